"""A broker that died and is still listed must not make the dashboard spin a core.

librdkafka sends an admin request meant for one broker (DescribeCluster to the "controller" it cached,
a broker's own DescribeConfigs) only once that broker's connection is up, and while the broker refuses
connections it reconnects without a pause for as long as the request waits. Measured on the bench's
105,000-partition cluster: 4-6 s of a core in librdkafka's threads per refresh while a crashed broker
was listed, on a 2-core bastion the UI's and the recorder's core. Refreshes ask neither through it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafkatui.kafka import firstread
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.sim.runner import SimRunner


def librdkafka_cpu_seconds() -> float:
    """CPU time of this process's librdkafka threads (named rdk:*) still alive."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for task in Path("/proc/self/task").iterdir():
        try:
            if not (task / "comm").read_text().startswith("rdk:"):
                continue
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def test_refreshes_with_a_crashed_broker_still_listed_do_not_spin(sim_factory: Callable[..., SimRunner]) -> None:
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})  # listed while down
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=6.0)) as source:
        for _ in range(3):  # kafka-python connected: what the dashboard's refreshes are like
            assert not source.snapshot().partial
        controller = source.snapshot().controller_id
        dead = controller if controller in (1, 2, 3) else 1
        sim.crash(dead)
        cpu, start = librdkafka_cpu_seconds(), time.monotonic()
        while time.monotonic() - start < 3.0:  # refreshes as the dashboard makes them, a pause between
            snap = source.snapshot()
            assert dead in snap.refused and dead in snap.broker_ids, (snap.refused, snap.broker_ids)
            time.sleep(0.2)
        spent, wall = librdkafka_cpu_seconds() - cpu, time.monotonic() - start
    # spinning, librdkafka's thread for the dead broker takes a whole core: about `wall` seconds
    assert spent < 0.25 * wall, f"librdkafka's threads used {spent:.2f} s of CPU in {wall:.2f} s"


@pytest.mark.parametrize("own_read", ["answers first", "answers late"])
def test_a_frozen_broker_that_then_dies_does_not_spin_either(
    sim_factory: Callable[..., SimRunner], monkeypatch: pytest.MonkeyPatch, own_read: str
) -> None:
    """Seen on the lab (4.4): a broker in controlled shutdown stops answering first (found frozen), then its
    process exits. Asked through librdkafka because it was frozen, it made the dashboard spin 8 s of CPU in 9 s,
    the refresh stuck on "the brokers' configs". "answers late": the read after the broker froze starts a new
    client, whose first read's own connection (`kafkatui.kafka.firstread`) lost to librdkafka on CI's loaded
    core; librdkafka then sent the frozen broker's config request, and spun 3.1 s of CPU in 3.2 s once it died."""
    if own_read == "answers late":
        real = firstread.ask

        def late(*args: Any, **kwargs: Any) -> Any:
            time.sleep(0.6)
            return real(*args, **kwargs)

        monkeypatch.setattr(firstread, "ask", late)
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})  # listed while frozen and down
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=6.0)) as source:
        for _ in range(3):
            assert not source.snapshot().partial
        sim.hang(2)
        deadline = time.monotonic() + 20
        while 2 not in source.snapshot().unresponsive:
            assert time.monotonic() < deadline
        assert 2 in source.snapshot().unresponsive  # found frozen again: the next read asks it the same way
        sim.crash(2)
        cpu, start = librdkafka_cpu_seconds(), time.monotonic()
        while time.monotonic() - start < 3.0:
            snap = source.snapshot()
            time.sleep(0.2)
        assert 2 in snap.refused, (snap.refused, snap.unresponsive)
        spent, wall = librdkafka_cpu_seconds() - cpu, time.monotonic() - start
    assert spent < 0.25 * wall, f"librdkafka's threads used {spent:.2f} s of CPU in {wall:.2f} s"
