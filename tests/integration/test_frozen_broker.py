"""A frozen broker (SIGSTOP: its port accepts connections, nothing answers) is told apart from a crashed
one (refuses connections), and does not hold up what the other brokers answer."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.health import assess
from kafkatui.model.whatif import restart_safety
from kafkatui.present import broker_state
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(120)


def test_a_frozen_listed_broker_is_not_answering_and_waited_for_briefly(
    sim_factory: Callable[..., SimRunner],
) -> None:
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})  # listed while frozen
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=10.0)) as source:
        assert not source.snapshot().partial
        sim.hang(3)
        try:
            for _ in range(3):
                start = time.monotonic()
                snap = source.snapshot()
                took = time.monotonic() - start
                # not the 10 s timeout: the others' answers are in, the frozen one gets a second more
                assert took < 5.0, f"a frozen broker held the snapshot {took:.1f} s"
                assert snap.unresponsive == {3} and not snap.refused, (snap.unresponsive, snap.problems)
                assert any("broker 3 unreadable: not answering: it accepts connections" in p for p in snap.problems)
                assert sorted(snap.broker_configs) == [1, 2]
            b = assess(snap).brokers[3]
            assert str(broker_state(b)) == "✖ NOT ANSWERING (accepts connections)"
            safety = restart_safety(snap, 3)
            assert not safety.safe and "look before restarting" in safety.message
            assert "already down" not in safety.message
        finally:
            sim.restore(3)


def test_a_crashed_broker_is_not_called_frozen(sim_factory: Callable[..., SimRunner]) -> None:
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=10.0)) as source:
        assert not source.snapshot().partial
        sim.crash(3)
        snap = source.snapshot()
        assert snap.refused == {3} and not snap.unresponsive
        assert str(broker_state(assess(snap).brokers[3])) == "✖ DOWN unfenced"


def test_a_frozen_broker_fenced_out_of_the_metadata_is_not_answering_not_absent(sim: SimRunner) -> None:
    """The walk: a SIGSTOPped broker showed "✖ DOWN: absent from the cluster metadata" and "restart: ✔ safe —
    broker 3 is already down"; its port still accepted connections."""
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=10.0)) as source:
        assert not source.snapshot().partial
        sim.hang(3)
        try:
            assert sim.wait_for(lambda c: c.brokers[3].fenced, 10)
            deadline = time.monotonic() + 15
            while 3 in (snap := source.snapshot()).broker_ids:
                assert time.monotonic() < deadline
            assert 3 in snap.unresponsive, snap.unresponsive
            b = assess(snap).brokers[3]
            assert not b.up and str(broker_state(b)).startswith("✖ NOT ANSWERING (accepts connections)")
            assert "already down" not in restart_safety(snap, 3).message
        finally:
            sim.restore(3)
