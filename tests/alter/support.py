"""Helpers the write-command tests share: a typed-into terminal, the audit log, the command line, clusters."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafkatui.sim.runner import SimRunner


class Tty(io.StringIO):
    """A terminal's stdin: confirmations typed by the test (`before_read` runs before each answer)."""

    def __init__(self, text: str, before_read: Callable[[], object] | None = None) -> None:
        super().__init__(text)
        self._before = before_read

    def isatty(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if self._before is not None:
            self._before()
        return super().readline(-1 if size is None else size)


def records(path: Path) -> list[dict[str, Any]]:
    """The outcome records (intents left out: `intents` has them)."""
    return [r for r in all_records(path) if r.get("record") != "intent"]


def all_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def intents(path: Path) -> list[dict[str, Any]]:
    return [r for r in all_records(path) if r.get("record") == "intent"]


def sim_leaders(sim: SimRunner) -> dict[tuple[str, int], int]:
    """Every partition's leader as the simulator itself holds it."""
    return sim.call(lambda c: {(p.topic, p.index): p.leader for p in c.partitions()})


def kafkatui(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the real command line in a subprocess, stdin closed."""
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def assert_one_line_error(proc: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    err = proc.stderr.strip()
    assert proc.returncode == code, (proc.returncode, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for f in fragments:
        assert f in err, err


RECORDS_PER_PARTITION = 30_000
RATE = 20_000.0  # records a follower copies per simulated second: about 1.5 s of copying per partition


def racked_cluster(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    """6 brokers on racks a, b, c; orders (3 partitions, RF 1) holding data to copy."""
    sim = sim_factory(6, racks=["a", "b", "c"], replication_rate=RATE)
    sim.call(lambda c: c.create_topic("orders", 3, 1))
    for i in range(3):
        sim.call(
            lambda c, i=i: c.append(c.partition("orders", i).leader, "orders", i, None, RECORDS_PER_PARTITION, 1, 1000)
        )
    return sim


def replicas_isr(sim: SimRunner, topic: str = "orders") -> list[tuple[list[int], list[int]]]:
    """Each partition's replicas and ISR as the simulator holds them."""
    return sim.call(lambda c: [(list(p.replicas), list(p.isr)) for p in c.topic(topic).partitions])


NO_REBALANCE = {"auto.leader.rebalance.enable": "false"}


def skewed_cluster(sim_factory: Callable[..., SimRunner], *topics: tuple[str, int]) -> SimRunner:
    """3 brokers holding `topics` (name, partitions; RF 3); broker 1 crashed and came back with auto leader
    rebalance off, so it leads nothing."""
    sim = sim_factory(3, static_configs=NO_REBALANCE)
    for name, partitions in topics:
        sim.call(lambda c, name=name, partitions=partitions: c.create_topic(name, partitions, 3))
    sim.crash(1)
    assert sim.wait_for(lambda c: all(p.leader not in (1, -1) for p in c.partitions()), 15)
    sim.restore(1)
    assert sim.wait_for(lambda c: all(len(p.isr) == 3 for p in c.partitions()), 15)
    assert 1 not in sim_leaders(sim).values()
    return sim


def offline_cluster(sim_factory: Callable[..., SimRunner], *others: tuple[str, int]) -> SimRunner:
    """payments-0 on brokers 1 and 2, unclean off: 2 falls 500 records behind, 1 dies, 2 comes back out of
    sync; `others` (name, partitions; RF 3) stand beside it."""
    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("payments", assignment={0: [1, 2]}))
    for name, partitions in others:
        sim.call(lambda c, name=name, partitions=partitions: c.create_topic(name, partitions, 3))
    sim.crash(2)
    assert sim.wait_for(lambda c: c.partition("payments", 0).isr == [1], 15)
    sim.call(lambda c: c.append(1, "payments", 0, None, 500, 1, 1000))
    sim.crash(1)
    assert sim.wait_for(lambda c: c.brokers[1].fenced and c.partition("payments", 0).leader == -1, 15)
    sim.restore(2)
    assert sim.wait_for(lambda c: not c.brokers[2].fenced, 15)
    return sim
