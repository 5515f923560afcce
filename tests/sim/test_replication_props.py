"""Property tests of the replication model: what Kafka guarantees must hold in the simulator."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkatui.sim import errors as E
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.events import EventKind

Op = tuple[str, int, int]

ops_single = st.lists(
    st.one_of(
        st.tuples(st.just("produce"), st.integers(0, 1), st.integers(1, 5)),
        st.tuples(st.just("advance"), st.integers(50, 15_000), st.just(0)),
        st.tuples(st.just("crash"), st.integers(1, 3), st.just(0)),
        st.tuples(st.just("shutdown"), st.integers(1, 3), st.just(0)),
        st.tuples(st.just("slow"), st.integers(1, 3), st.just(0)),
        st.tuples(st.just("pause"), st.integers(1, 3), st.integers(100, 40_000)),
        st.tuples(st.just("restore"), st.integers(1, 3), st.just(0)),
    ),
    max_size=40,
)


class Harness:
    """Drives a 3-broker cluster on a manual clock and remembers every acknowledged record."""

    def __init__(self, unclean: bool) -> None:
        configs = {"broker.session.timeout.ms": "3000", "replica.lag.time.max.ms": "5000"}
        self.c = SimCluster(3, clock=VirtualClock(manual=True, start_ms=1_700_000_000_000), static_configs=configs)
        self.c.create_topic(
            "t", 2, 3, configs={"min.insync.replicas": "2", "unclean.leader.election.enable": str(unclean).lower()}
        )
        self.c.run_for(500)
        self.acked: set[bytes] = set()
        self.next_id = 0

    def produce(self, partition: int, n: int) -> None:
        p = self.c.partition("t", partition)
        for _ in range(n):
            rid = f"r{self.next_id}".encode()
            self.next_id += 1

            def done(code: int, rid: bytes = rid) -> None:
                if code == E.NONE:
                    self.acked.add(rid)

            if p.leader == -1:
                continue
            self.c.append(p.leader, "t", partition, rid, 1, -1, 60_000, done)

    def present(self) -> set[bytes]:
        return {pl for p in self.c.topic("t").partitions for pl in p.log.payloads if pl is not None}

    def check_invariants(self) -> None:
        for p in self.c.topic("t").partitions:
            assert set(p.isr) <= set(p.replicas), f"ISR {p.isr} not within replicas {p.replicas}"
            assert p.isr, "ISR never empty"
            if p.leader != -1:
                assert p.leader in p.isr, f"leader {p.leader} not in ISR {p.isr}"
                assert p.hw <= min(p.leo[r] for r in p.isr), "HW above the ISR's smallest log end"
                assert p.hw <= p.log.end_offset


def run(h: Harness, ops: list[Op], single_failure: bool) -> None:
    down: set[int] = set()
    for kind, a, b in ops:
        if kind == "produce":
            h.produce(a, b)
        elif kind == "advance":
            h.c.run_for(a)
        elif kind in ("crash", "shutdown", "slow", "pause"):
            if single_failure and down and a not in down:
                continue
            down.add(a)
            if kind == "crash":
                h.c.crash(a)
            elif kind == "shutdown":
                h.c.shutdown(a)
            elif kind == "slow":
                h.c.slow(a, 0.0)
            else:
                h.c.pause(a, b)
        elif kind == "restore":
            h.c.restore(a)
            down.discard(a)
            if single_failure:
                h.c.run_for(20_000)  # let it rejoin before anything else fails
                down.clear()
        h.check_invariants()
    for b in (1, 2, 3):
        h.c.restore(b)
    h.c.run_for(30_000)
    h.check_invariants()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops_single)
def test_no_acknowledged_write_is_lost_under_single_broker_failures(ops: list[Op]) -> None:
    h = Harness(unclean=False)
    run(h, ops, single_failure=True)
    missing = h.acked - h.present()
    assert not missing, f"acknowledged records lost: {sorted(missing)[:5]}"
    assert h.c.lost_acked_records == 0
    assert not h.c.events.of_kind(EventKind.UNCLEAN_ELECTION)
    # after recovery every partition is fully replicated again
    for p in h.c.topic("t").partitions:
        assert sorted(p.isr) == [1, 2, 3]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops_single)
def test_only_unclean_election_loses_acknowledged_writes_and_it_is_reported(ops: list[Op]) -> None:
    h = Harness(unclean=True)
    run(h, ops, single_failure=False)
    missing = h.acked - h.present()
    if missing:
        unclean = h.c.events.of_kind(EventKind.UNCLEAN_ELECTION)
        assert unclean, "acknowledged records vanished without an unclean election"
        assert sum(int(e.detail["lost_acked_records"]) for e in unclean) >= len(missing)
        assert h.c.lost_acked_records >= len(missing)


def test_unclean_election_reports_lost_records() -> None:
    """A leader that took acks=1 writes alone dies; the stale follower is elected and the loss is counted."""
    h = Harness(unclean=True)
    p = h.c.partition("t", 0)
    leader = p.leader
    followers = [r for r in p.replicas if r != leader]
    for f in followers:
        h.c.slow(f, 0.0)
    for i in range(10):
        h.c.append(leader, "t", 0, f"x{i}".encode(), 1, 1, 1000)
    h.c.run_for(6_000)  # stalled followers of a written partition fall out of the ISR
    assert h.c.partition("t", 0).isr == [leader]
    h.c.crash(leader)
    for f in followers:
        h.c.restore(f)
    h.c.run_for(5_000)
    p = h.c.partition("t", 0)
    assert p.leader in followers
    (ev,) = [e for e in h.c.events.of_kind(EventKind.UNCLEAN_ELECTION) if e.partition == 0]
    assert ev.detail["lost_records"] == 10
    assert h.c.lost_records >= 10


def test_idle_follower_stays_in_the_isr_while_it_is_caught_up() -> None:
    """No load: a paused follower of an idle partition stays in the ISR however long it is silent
    (its log end equals the leader's: Kafka's Replica.isCaughtUp); only fencing would remove it.
    The first write after the lag time takes it out at once."""
    configs = {"broker.session.timeout.ms": "18000", "replica.lag.time.max.ms": "10000"}
    c = SimCluster(3, clock=VirtualClock(manual=True, start_ms=1_700_000_000_000), static_configs=configs)
    c.create_topic("t", 3, 3)
    c.run_for(60_000)  # long settled: nothing is stepped any more
    start = c.now_ms
    c.pause(2, 17_000)  # a GC pause longer than the lag time, shorter than the session timeout
    c.run_for(16_000)
    assert all(2 in p.isr for p in c.topic("t").partitions)
    assert not c.events.of_kind(EventKind.ISR_SHRINK)
    p = next(p for p in c.topic("t").partitions if p.leader != 2 and 2 in p.replicas)
    c.append(p.leader, "t", p.index, b"x", 1, 1, 1000)
    c.run_for(200)
    shrinks = [e for e in c.events.of_kind(EventKind.ISR_SHRINK) if e.ts_ms > start]
    assert [(e.partition, e.detail["out"], e.detail["reason"]) for e in shrinks] == [(p.index, [2], "lag")]
    c.run_for(5_000)  # the pause is over: back in every ISR, never fenced
    assert all(2 in p.isr for p in c.topic("t").partitions)
    assert not c.events.of_kind(EventKind.BROKER_FENCED)


def test_a_new_leader_gives_in_sync_followers_a_fresh_lag_clock() -> None:
    """Leader 1 crashes, then follower 2: the leader elected at 1's fencing drops 2 after the lag time, not at once."""
    configs = {"broker.session.timeout.ms": "18000", "replica.lag.time.max.ms": "10000"}
    c = SimCluster(3, clock=VirtualClock(manual=True, start_ms=1_700_000_000_000), static_configs=configs)
    c.create_topic("t", 1, 3, assignment={0: [1, 2, 3]})
    c.run_for(60_000)
    c.crash(1)
    c.run_for(15_000)
    c.crash(2)  # fenced only 18 s from now
    c.run_for(3_100)  # broker 1 fenced: broker 3 leads, broker 2 (down, not yet noticed) still in the ISR
    p = c.partition("t", 0)
    assert (p.leader, p.isr) == (3, [2, 3])
    elected = c.now_ms
    c.append(3, "t", 0, b"x", 1, 1, 1000)  # a write: broker 2 (down) is no longer caught up
    c.run_for(10_000)
    assert c.partition("t", 0).isr == [2, 3]
    c.run_for(200)
    (shrink,) = [e for e in c.events.of_kind(EventKind.ISR_SHRINK) if e.detail["reason"] == "lag"]
    assert (shrink.detail["out"], shrink.ts_ms - elected) == ([2], 10_100)


def _faulty_half_hour(skip_quiet: bool) -> list[tuple[int, str, str | None, int | None, int | None, str]]:
    configs = {
        "broker.session.timeout.ms": "18000",
        "replica.lag.time.max.ms": "10000",
        "leader.imbalance.check.interval.seconds": "120",
    }
    c = SimCluster(4, clock=VirtualClock(manual=True, start_ms=1_700_000_000_000), static_configs=configs)
    if not skip_quiet:
        c.quiet_until = lambda target_ms: c.now_ms  # type: ignore[method-assign]  # step every 100 ms
    c.create_topic("t", 8, 3, configs={"min.insync.replicas": "2"})
    for at, fault in [
        (61_230, lambda: c.crash(2)),
        (95_000, lambda: c.pause(3, 14_000)),
        (300_050, lambda: c.restart(2)),
        (400_000, lambda: c.shutdown(4)),
        (700_000, lambda: c.restart(4)),
        (900_000, lambda: c.pause(1, 25_000)),
    ]:
        c.run_for(at - (c.now_ms - 1_700_000_000_000))
        fault()
    c.run_for(1_800_000 - (c.now_ms - 1_700_000_000_000))
    return [
        (e.ts_ms, e.kind.value, e.topic, e.partition, e.broker, repr(sorted(e.detail.items())))
        for e in c.events.snapshot()
    ]


def test_skipping_quiet_stretches_changes_nothing() -> None:
    """Jumping over steps in which nothing can happen gives exactly the events of stepping every 100 ms."""
    skipped = _faulty_half_hour(skip_quiet=True)
    assert sorted(skipped) == sorted(_faulty_half_hour(skip_quiet=False))
    assert any(kind == "leader_change" and "auto_rebalance" in detail for _, kind, _, _, _, detail in skipped)
