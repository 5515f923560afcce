"""A frozen broker (SIGSTOP: its port accepts connections, nothing answers) is told apart from a crashed
one (refuses connections), and does not hold up what the other brokers answer."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.findings import findings
from kafkatui.model.health import assess
from kafkatui.model.whatif import restart_safety
from kafkatui.present import broker_state
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(120)


def listed_while_frozen(
    sim_factory: Callable[..., SimRunner], partitions: int = 6, configs: dict[str, str] | None = None
) -> SimRunner:
    """Three brokers whose frozen one stays listed for a minute (the controller's session timeout), and
    `orders` (RF 3)."""
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})
    sim.call(lambda c: c.create_topic("orders", partitions, 3, configs=configs))
    return sim


def test_a_frozen_listed_broker_is_not_answering_and_waited_for_briefly(
    sim_factory: Callable[..., SimRunner],
) -> None:
    sim = listed_while_frozen(sim_factory)
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
    sim = listed_while_frozen(sim_factory, 3)
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
            absent = next(f for f in findings(assess(snap), snap) if f.id.startswith("broker-absent"))
            assert "frozen" in " ".join(absent.causes) and "Look at broker 3 before restarting it" in absent.steps[1]
            assert not any(s.startswith("Start broker 3 again") for s in absent.steps), absent.steps
        finally:
            sim.restore(3)


def test_after_a_broker_is_found_frozen_the_metadata_is_read_without_it(
    sim_factory: Callable[..., SimRunner],
) -> None:
    """The recorder's blind spot (issue 26): the client that found a broker frozen keeps its connection to
    it and sent it a later metadata request, which waited out a whole attempt (1.1-1.6 s on the lab) before
    a new client asked another broker, so the recording dated the ISR shrink that much late. Once a broker
    is found frozen, the metadata is read through a client that never completed a handshake with it."""
    sim = listed_while_frozen(sim_factory)
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=10.0)) as source:
        assert not source.snapshot().partial
        sim.hang(3)
        try:
            first = source._admin
            while 3 not in source.snapshot().unresponsive:
                pass
            clients = set()
            for _ in range(10):  # librdkafka picks a broker per request: several reads, several picks
                start = time.time()
                snap = source.snapshot()
                clients.add(id(source._admin))
                assert snap.unresponsive == {3}
                # a metadata request sent to the frozen broker waits out an attempt (at least 1 s)
                assert snap.taken_at - start < 1.0, f"the metadata took {snap.taken_at - start:.1f} s"
            assert first is not source._admin and len(clients) == 1  # replaced once, not at every snapshot
        finally:
            sim.restore(3)


def test_a_broker_that_freezes_after_answering_does_not_hold_the_snapshot_to_the_timeout(
    sim_factory: Callable[..., SimRunner], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk's +6.4 s: the topic configs go to a broker that has just answered its own config request; that
    broker froze in between, and the snapshot waited the whole timeout for them, so the recorder's next read
    of the ISR came seconds after the shrink. It is found frozen like any other, the topic configs are asked
    of a broker that answers, and the snapshot ends within seconds."""
    sim = listed_while_frozen(sim_factory, configs={"min.insync.replicas": "2"})
    froze: list[int] = []
    real = KafkaClusterSource._kafka_python_for_configs

    def freeze_the_chosen_one(self: KafkaClusterSource, md: object, answered: list[int], deadline: float) -> object:
        if answered and not froze:  # the broker the topic configs are about to be sent to
            froze.append(answered[0])
            sim.hang(answered[0])
        return real(self, md, answered, deadline)

    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=10.0)) as source:
        assert not source.snapshot().partial
        monkeypatch.setattr(KafkaClusterSource, "_kafka_python_for_configs", freeze_the_chosen_one)
        try:
            start = time.monotonic()
            snap = source.snapshot()
            took = time.monotonic() - start
            assert froze and snap.unresponsive == set(froze), (froze, snap.unresponsive, snap.problems)
            assert took < 5.0, f"a broker frozen after answering held the snapshot {took:.1f} s"
            # asked again of a broker that answers: the topic's own min ISR, not Kafka's default
            assert snap.topics["orders"].configs["min.insync.replicas"].value == "2", snap.problems
        finally:
            for bid in froze:
                sim.restore(bid)


def test_a_first_read_with_a_frozen_broker_says_so_and_closes_at_once(
    sim_factory: Callable[..., SimRunner],
) -> None:
    """`check` against a cluster with a frozen broker: the first read asks the broker configs on connections of
    its own (kafkatui.kafka.firstread); the frozen one is called not answering within seconds, and closing the
    source does not wait for its request's timeout."""
    sim = listed_while_frozen(sim_factory)
    sim.hang(3)
    try:
        source = KafkaClusterSource(ConnectionSettings(sim.bootstrap.split(",")[0], timeout=10.0))
        try:
            start = time.monotonic()
            snap = source.snapshot()
            took = time.monotonic() - start
            assert took < 5.0, f"a frozen broker held the first read {took:.1f} s"
            assert snap.unresponsive == {3} and sorted(snap.broker_configs) == [1, 2], snap.problems
            assert [len(p.replicas) for p in snap.topics["orders"].partitions] == [3] * 6
        finally:
            start = time.monotonic()
            source.close()
            closing = time.monotonic() - start
        assert closing < 1.0, f"closing waited {closing:.1f} s for the frozen broker"
    finally:
        sim.restore(3)


def test_a_frozen_broker_that_comes_back_slow_is_read_again(sim_factory: Callable[..., SimRunner]) -> None:
    """Frozen, then answering every request in a third of the timeout: once its late answer is in, it is
    slow, not frozen. (It stayed "not answering" on every refresh: a frozen broker is waited for only a
    moment, shorter than it took.)"""
    sim = listed_while_frozen(sim_factory)
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=1.5)) as source:
        assert not source.snapshot().partial
        sim.hang(2)
        try:
            assert source.snapshot().unresponsive == {2}
        finally:
            sim.restore(2)
        sim.delay_responses(2, 0.5)
        snaps = []
        for _ in range(4):
            time.sleep(1.0)  # the dashboard's refresh interval
            snaps.append(source.snapshot())
        # the first may still skip it (its request of the frozen snapshot was not answered yet); then never
        assert all(not s.partial and not s.unresponsive for s in snaps[1:]), [s.problems for s in snaps]
        assert sorted(snaps[-1].broker_configs) == [1, 2, 3]
