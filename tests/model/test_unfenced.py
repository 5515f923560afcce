"""A partition led by a broker that refuses connections (killed, not yet fenced) cannot take writes:
counted as such in the counts, the verdict, `check --json`, and the events say when leadership moved."""

from __future__ import annotations

import dataclasses

from kafkatui.check_cmd import to_json, verdict
from kafkatui.model.changes import diff
from kafkatui.model.findings import findings
from kafkatui.model.health import assess
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.unfenced import leader_down
from tests.model.builders import snap, topic


def killed() -> tuple[ClusterSnapshot, ClusterSnapshot]:
    s = snap(
        topic(
            "orders",
            [(1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3, 1]), (2, [2, 1, 3], [2, 1, 3])],
            min_insync_replicas="2",
        )
    )
    return s, dataclasses.replace(s, refused=frozenset({2}), taken_at=s.taken_at + 1)


def test_partitions_led_by_a_refusing_broker_cannot_take_writes() -> None:
    _, s = killed()
    r = assess(s)
    assert r.counts.leader_refused == 2
    assert [p.partition for p in leader_down(s)] == [1, 2]
    found = findings(r, s, bootstrap="kafka:9092")
    f = next(f for f in found if f.id == "broker-refusing-connections")
    # every ISR is still whole by the metadata, yet writes to orders-1 and -2 fail: critical, as offline is
    assert f.severity == "critical" and f.partitions[:2] == ("orders-1", "orders-2")
    assert any(st.startswith("Writes fail NOW on the 2 partition(s) it leads") for st in f.steps), f.steps
    assert verdict(found)[0] == "critical"
    doc = to_json(s, r, found, None)
    assert doc["summary"]["leader_down_not_moved"] == 2
    assert next(t for t in doc["topics"] if t["name"] == "orders")["leader_down_not_moved"] == 2


def test_no_refusing_broker_no_count() -> None:
    s, _ = killed()
    r = assess(s)
    assert r.counts.leader_refused == 0
    assert to_json(s, r, findings(r, s), None)["summary"]["leader_down_not_moved"] == 0


def test_the_events_say_when_leadership_moved_off_the_dead_broker() -> None:
    _, dead = killed()
    moved = dataclasses.replace(
        dead,
        refused=frozenset(),
        brokers=tuple(b for b in dead.brokers if b.id != 2),
        topics={"orders": topic("orders", [(1, [1, 2, 3], [1, 3]), (3, [2, 3, 1], [3, 1]), (1, [2, 1, 3], [1, 3])])},
        taken_at=dead.taken_at + 7,
    )
    texts = [c.text for c in diff(dead, moved)]
    assert "orders-1 leader 2 -> 3: leadership moved off down broker 2, writes resume" in texts, texts
    assert "orders-2 leader 2 -> 1: leadership moved off down broker 2, writes resume" in texts


def test_check_puts_the_topic_whose_writes_fail_first_and_says_why() -> None:
    """The topics table and the brief line name the topic as `⊘ ldr dn`, above the worse classes."""
    import io

    from rich.console import Console

    from kafkatui.check_cmd import render, render_brief

    # `payments` is at min ISR (a worse class than `orders`' whole ISRs), but orders' writes fail now
    healthy, s = killed()
    s = dataclasses.replace(
        s, topics={**s.topics, **snap(topic("payments", [(1, [1, 3], [1])], min_insync_replicas="1")).topics}
    )
    r = assess(s)
    found = findings(r, s, bootstrap="kafka:9092")
    out = Console(file=io.StringIO(), width=120, color_system=None)
    render(out, s, r, found, None)
    table = out.file.getvalue()  # type: ignore[attr-defined]
    rows = [line for line in table.splitlines() if "orders" in line or "payments" in line]
    assert rows[0].lstrip().startswith("⊘ ldr dn") and "orders" in rows[0], rows
    assert "payments" in rows[1], rows
    brief = Console(file=io.StringIO(), width=120, color_system=None)
    render_brief(brief, s, r, found)
    assert "worst topics: orders (⊘ leader down), payments" in brief.file.getvalue()  # type: ignore[attr-defined]
    # once the controller has moved the leaders, orders is no longer shown as failing
    calm = Console(file=io.StringIO(), width=120, color_system=None)
    render(calm, healthy, assess(healthy), findings(assess(healthy), healthy, bootstrap="kafka:9092"), None)
    assert "ldr dn" not in calm.file.getvalue()  # type: ignore[attr-defined]
