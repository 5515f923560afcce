"""'Tolerates' says which figure is the design (RF, minISR) and which is now (the current ISR)."""

from __future__ import annotations

from kafkatui.model.health import TopicHealth, assess
from kafkatui.tolerance import durability_words, tolerance_cell, writes_now
from tests.model.builders import Spec, snap, topic


def th(specs: list[Spec], brokers: tuple[int, ...] = (1, 2, 3), min_isr: str = "2") -> TopicHealth:
    s = snap(topic("orders", specs, min_insync_replicas=min_isr), brokers=brokers)
    return assess(s).topics["orders"]


def test_at_min_isr_says_design_and_now_apart() -> None:
    t = th([(1, [1, 2, 3], [1, 3])])
    assert durability_words(t) == (
        "design: tolerates 1 failure (no data loss, acks=all writes go on); "
        "now: 0 more (at minISR: the next ISR loss stops acks=all writes)"
    )
    assert tolerance_cell(t) == "design 1 · now 0" and writes_now(t) == 0


def test_an_offline_topic_does_not_claim_writes_go_on() -> None:
    t = th([(-1, [2, 3], [3]), (1, [1, 2], [1])], brokers=(1,), min_isr="1")
    words = durability_words(t)
    assert "now: 1 partition(s) offline: no writes to them" in words
    assert words.startswith("design: tolerates 0 failures without data loss, 1 before acks=all writes stop; ")
    assert "going on" not in words, words
    assert tolerance_cell(t) == "design 1 · now offline" and writes_now(t) is None


def test_under_min_isr_is_failing_not_minus_one() -> None:
    t = th([(1, [1, 2, 3], [1])], brokers=(1,))
    assert t.min_headroom == -1
    assert tolerance_cell(t) == "design 1 · now failing"
    assert "now: acks=all writes failing (under minISR)" in durability_words(t)


def test_healthy_topic_has_its_design_figure_now() -> None:
    t = th([(1, [1, 2, 3], [1, 2, 3])])
    assert tolerance_cell(t) == "design 1 · now 1"
    assert durability_words(t).endswith("now: 1 more before acks=all writes stop")
