"""The dashboard's "restart now" cell, the restart advice and the restart gate give one answer (issue 29):
at every step of a roll of four brokers, and in the states where they used to differ, a partition
already under min ISR among them (`kafkatui.model.restart_rule`). The gate also waits for the controller
side (a ZooKeeper cluster's controller broker serving, a KRaft quorum caught up), which is not a cell of
the broker table: here the controller is one the step does not stop, or the step's partitions refuse
anyway."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from kafkatui.columns import BROKERS as BROKER_TABLE
from kafkatui.model.health import HealthReport, assess
from kafkatui.model.restart_gate import gate, zookeeper_quorum
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.whatif import restart_safety
from tests.model.builders import snap, topic

BROKERS = (1, 2, 3, 4)
LAYOUT = {
    # RF 3 / min ISR 2, round robin: what a roll is for
    "orders": ([1, 2, 3], [2, 3, 4], [3, 4, 1], [4, 1, 2]),
    # RF 4 / min ISR 3: one to spare, so one broker out plus one lagging puts it under min ISR
    "wide": ([1, 2, 3, 4], [2, 3, 4, 1]),
    # RF 2 / min ISR 2: no restart of its brokers is ever safe
    "ledger": ([1, 2],),
}
MIN_ISR = {"orders": "2", "wide": "3", "ledger": "2"}


def state(
    topics: tuple[str, ...],
    absent: frozenset[int] = frozenset(),
    refused: frozenset[int] = frozenset(),
    out: frozenset[int] = frozenset(),
    lagging: dict[str, int] | None = None,
) -> ClusterSnapshot:
    """The cluster at one moment of a roll: `absent` brokers gone from metadata (out of every ISR),
    `refused` ones listed but refusing connections (not yet fenced: still in their ISRs), `out` ones
    back and catching up (in no ISR), and `lagging` partitions ("wide-1") with one more follower out."""
    lagging = lagging or {}
    made = []
    for name in topics:
        specs = []
        for i, reps in enumerate(LAYOUT[name]):
            slow = lagging.get(f"{name}-{i}")
            isr = [r for r in reps if r not in absent and r not in out and r != slow]
            specs.append((isr[0] if isr else -1, reps, isr))
        made.append(topic(name, specs, min_insync_replicas=MIN_ISR[name]))
    s = snap(*made, brokers=[b for b in BROKERS if b not in absent], controller=4 if 4 not in absent else 1)
    return dataclasses.replace(s, refused=refused)


def roll(topics: tuple[str, ...]) -> Iterator[tuple[str, ClusterSnapshot]]:
    """Every state a roll of brokers 1-4 goes through (the controller, 4, last), one broker at a time."""
    for b in BROKERS:
        one = frozenset({b})
        nxt = BROKERS[b % len(BROKERS)]
        yield f"before {b}", state(topics)
        yield f"{b} stopping (refused, not yet fenced)", state(topics, refused=one)
        yield f"{b} down", state(topics, absent=one)
        yield f"{b} back, catching up", state(topics, out=one)
        # a second follower slips out of a partition already short: under min ISR before any restart
        yield f"{b} catching up, {nxt} lagging on wide-0", state(topics, out=one, lagging={"wide-0": nxt})
        yield f"{b} catching up, {nxt} lagging on orders", state(topics, out=one, lagging={"orders-0": nxt})
    yield "after", state(topics)


def answers(s: ClusterSnapshot, report: HealthReport, b: int) -> tuple[bool, bool, bool]:
    """(dashboard cell, restart advice, gate) for broker `b`: is its restart safe now?"""
    cell = str(BROKER_TABLE.cell(report.brokers[b], "restart"))
    return cell == "✔ safe", restart_safety(s, b).safe, gate(report, b, 0, zookeeper_quorum(report)).safe


@pytest.mark.parametrize("topics", [("orders", "wide"), ("orders", "wide", "ledger")])
def test_the_dashboard_the_advice_and_the_gate_agree_at_every_step_of_a_roll(topics: tuple[str, ...]) -> None:
    seen: set[bool] = set()
    steps = 0
    for step, s in roll(topics):
        report = assess(s)
        for b in sorted(report.brokers):
            if not report.brokers[b].serving:
                continue
            dashboard, advice, verdict = answers(s, report, b)
            assert dashboard == advice == verdict, f"{step}, broker {b}: dashboard/advice/gate differ"
            seen.add(verdict)
            steps += 1
    assert steps > 60
    assert seen == {True, False}  # brokers 3 and 4 hold no ledger replica: they go when the rest allows


def test_a_broker_of_a_partition_already_under_min_isr_may_not_restart() -> None:
    # broker 1 back and catching up, broker 2 lagging on wide-0 (RF 4 / min ISR 3): ISR [3, 4], already
    # under min ISR, so its acks=all writes fail now; 2 is needed for them to come back, and 3 and 4 are
    # its last in-sync copies
    s = state(("orders", "wide"), out=frozenset({1}), lagging={"wide-0": 2})
    report = assess(s)
    assert [p.isr for p in s.topics["wide"].partitions] == [(3, 4), (2, 3, 4)]
    for b in (2, 3, 4):
        dashboard, advice, verdict = answers(s, report, b)
        assert (dashboard, advice, verdict) == (False, False, False), b
        blockers = gate(report, b, 0, zookeeper_quorum(report)).blockers
        assert "wide-0" in {x.name for x in blockers} and not any(x.hopeless for x in blockers)
    # the advice says what the restart would do: it keeps the partition under (3, 4: down to one copy)
    assert "it also holds 1 partition of 1 topic already under minISR" in restart_safety(s, 3).message
    assert report.brokers[3].restart_under_min_isr >= 1
    # once broker 2 is back in sync, broker 1 (still catching up) holds the roll, the others may go
    caught = state(("orders", "wide"), out=frozenset({1}))
    r2 = assess(caught)
    assert {b: answers(caught, r2, b) for b in (1, 2, 3, 4)}[2] == (False, False, False)  # orders: ISR [2, 3]


@pytest.mark.parametrize(
    ("reps", "isr", "leader", "min_isr", "broker", "safe"),
    [
        ([1, 2, 3], [1], 1, "2", 2, False),  # a follower catching up while the partition is under min ISR
        ([1, 2, 3], [1], 1, "2", 1, False),  # its last in-sync copy: offline
        ([1, 2, 3], [1, 2], 1, "3", 1, False),  # min ISR = RF, already under: an ISR member
        ([1, 2, 3], [2, 3], 2, "1", 1, True),  # min ISR 1 with two in sync: the out-of-sync one may go
        ([1, 2, 3], [3], -1, "1", 1, False),  # offline (its last copy, 3, absent): nothing on it restarts
    ],
)
def test_problem_states_give_one_answer(
    reps: list[int], isr: list[int], leader: int, min_isr: str, broker: int, safe: bool
) -> None:
    brokers = (1, 2) if leader < 0 else (1, 2, 3)
    s = snap(topic("t", [(leader, reps, isr)], min_insync_replicas=min_isr), brokers=brokers)
    report = assess(s)
    assert answers(s, report, broker) == (safe, safe, safe)


def test_a_leader_refusing_connections_is_replaced_from_its_isr() -> None:
    # leader 1 refuses connections (not yet fenced): its fencing elects 2 or 3, so with min ISR 1
    # restarting 2 leaves 3 in sync and leading; the gate used to call the partition leaderless
    s = dataclasses.replace(
        snap(topic("t", [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="1"), controller=3), refused=frozenset({1})
    )
    report = assess(s)
    assert answers(s, report, 2) == (True, True, True)
    s2 = dataclasses.replace(
        snap(topic("t", [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="2"), controller=3), refused=frozenset({1})
    )
    assert answers(s2, assess(s2), 2) == (False, False, False)
