"""Changes between snapshots: what the events pane and the recorder report."""

from __future__ import annotations

from dataclasses import replace

from kafkatui.model.changes import ChangeKind, diff, summarize
from tests.model.builders import healthy, snap, topic


def test_first_snapshot_has_no_changes() -> None:
    assert diff(None, snap(healthy("orders", 3))) == []


def test_isr_shrink_expand_and_leader_move() -> None:
    before = snap(topic("orders", [(1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3, 1])]))
    after = snap(topic("orders", [(1, [1, 2, 3], [1, 2]), (3, [2, 3, 1], [3, 1, 2])]))
    changes = diff(before, replace(after, taken_at=100.0))
    kinds = [(c.kind, c.topic, c.partition) for c in changes]
    assert (ChangeKind.ISR_SHRINK, "orders", 0) in kinds
    assert (ChangeKind.LEADER, "orders", 1) in kinds
    shrink = next(c for c in changes if c.kind == ChangeKind.ISR_SHRINK)
    assert shrink.broker == 3 and "out: [3]" in shrink.text and shrink.at == 100.0
    back = diff(after, before)
    assert any(c.kind == ChangeKind.ISR_EXPAND and c.broker == 3 for c in back)


def test_offline_online_and_brokers() -> None:
    before = snap(topic("pay", [(2, [2, 3], [2, 3])]), brokers=(1, 2, 3))
    after = snap(topic("pay", [(-1, [2, 3], [2])]), brokers=(1,))
    changes = diff(before, after)
    kinds = {c.kind for c in changes}
    assert {ChangeKind.OFFLINE, ChangeKind.BROKER_DOWN, ChangeKind.ISR_SHRINK} <= kinds
    assert sorted(c.broker for c in changes if c.kind == ChangeKind.BROKER_DOWN) == [2, 3]
    assert any(c.kind == ChangeKind.ONLINE for c in diff(after, before))


def test_topics_created_and_deleted() -> None:
    a = snap(healthy("a", 1))
    b = snap(healthy("b", 2))
    kinds = {(c.kind, c.topic) for c in diff(a, b)}
    assert kinds == {(ChangeKind.TOPIC_REMOVED, "a"), (ChangeKind.TOPIC_ADDED, "b")}


def test_bursts_are_summarized() -> None:
    before = snap(healthy("t", 40))
    after = snap(
        topic(
            "t",
            [(p.leader, p.replicas, tuple(r for r in p.isr if r != 3) or p.isr) for p in before.topics["t"].partitions],
        )
    )
    changes = diff(before, after)
    assert len([c for c in changes if c.kind == ChangeKind.ISR_SHRINK]) > 6
    lines = summarize(changes)
    shrink_lines = [c for c in lines if c.kind == ChangeKind.ISR_SHRINK]
    assert len(shrink_lines) == 1 and "brokers 3" in shrink_lines[0].text
