"""The min ISR rules of the release line the simulator answers as, as a producer and a consumer see them."""

from __future__ import annotations

import pytest

from kafkatui.sim import errors as E
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.cluster import SimCluster


def _cluster(version: str | None) -> SimCluster:
    configs = {"broker.session.timeout.ms": "3000", "replica.lag.time.max.ms": "5000"}
    c = SimCluster(
        3,
        clock=VirtualClock(manual=True, start_ms=1_700_000_000_000),
        static_configs=configs,
        kafka_version=version,
    )
    c.create_topic("t", 1, 3, configs={"min.insync.replicas": "2"})
    c.run_for(500)
    return c


def _produce(c: SimCluster, n: int, acks: int) -> list[int]:
    p = c.partition("t", 0)
    codes: list[int] = []
    for i in range(n):
        code, _ = c.append(p.leader, "t", 0, f"r{i}".encode(), 1, acks, 30_000, codes.append)
        if code != E.NONE or acks != -1:
            codes.append(code)
    return codes


@pytest.mark.parametrize(("version", "holds"), [(None, True), ("4.0", True), ("3.7", True), ("3.6", False)])
def test_under_min_isr_the_high_watermark_holds_from_3_7(version: str | None, holds: bool) -> None:
    c = _cluster(version)
    p = c.partition("t", 0)
    acked = _produce(c, 5, -1)
    c.run_for(1_000)
    assert acked == [E.NONE] * 5 and p.hw == p.log.end_offset == 5
    followers = [r for r in p.replicas if r != p.leader]
    for b in followers:  # both followers die: the ISR shrinks to the leader alone, under min ISR 2
        c.crash(b)
    c.run_for(10_000)
    assert p.isr == [p.leader]
    assert _produce(c, 3, -1) == [E.NOT_ENOUGH_REPLICAS] * 3  # acks=all refused on every line
    assert _produce(c, 4, 1) == [E.NONE] * 4  # acks=1 appended on every line
    c.run_for(1_000)
    assert p.log.end_offset == 9
    # what a consumer can read: 3.7+ holds the high watermark under the effective min ISR
    assert p.hw == (5 if holds else 9)
    for b in followers:
        c.restore(b)
    c.run_for(15_000)
    assert sorted(p.isr) == sorted(p.replicas)
    assert p.hw == 9  # back at min ISR, the held records become visible


def test_min_isr_above_rf_is_capped_from_3_7() -> None:
    for version, code in (("3.9", E.NONE), ("3.6", E.NOT_ENOUGH_REPLICAS)):
        c = SimCluster(1, clock=VirtualClock(manual=True, start_ms=1_700_000_000_000), kafka_version=version)
        c.create_topic("one", 1, 1, configs={"min.insync.replicas": "2"})
        c.run_for(500)
        p = c.partition("one", 0)
        codes: list[int] = []
        first, _ = c.append(p.leader, "one", 0, b"x", 1, -1, 30_000, codes.append)
        c.run_for(500)
        assert (codes[0] if first == E.NONE else first) == code, version
        assert p.hw == (1 if code == E.NONE else 0)  # capped at 1, the lone replica is not held
