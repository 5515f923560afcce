"""How many broker failures a topic tolerates, as two figures never mixed in one sentence:

* **design**: from its RF and minISR alone (`TopicHealth.write_tolerance`: RF - minISR failures with
  acks=all writes going on; `min(RF, minISR) - 1` without losing an acknowledged write), what the topic
  was built to take with every replica in sync;
* **now**: from the current ISR of its worst partition (`TopicHealth.min_headroom`): how many more
  in-sync replicas can drop before acks=all writes stop, or that they have stopped (under minISR,
  offline).

"design: tolerates 1 failure; now: 0 more (at minISR)" where the walk read "tolerates 1 failure (no data
loss, acks=all writes go on)" beside "at minISR: one more ISR loss stops acks=all writes".
"""

from __future__ import annotations

from kafkatui.model.health import Health, TopicHealth


def _failures(n: int) -> str:
    return f"{n} failure" if n == 1 else f"{n} failures"


def design_loss(t: TopicHealth) -> int:
    """Failures an acknowledged acks=all write survives by design: min(RF, minISR) - 1."""
    return max(0, min(t.min_rf, t.min_isr) - 1)


def writes_now(t: TopicHealth) -> int | None:
    """More in-sync replica losses acks=all writes survive now; None when they fail already."""
    if t.writes_blocked or t.count(Health.OFFLINE) or t.min_headroom < 0:
        return None
    return t.min_headroom


def design_words(t: TopicHealth) -> str:
    """'design: tolerates 1 failure (...)', or 'design: tolerates 0 failures without data loss, 1 before
    acks=all writes stop'."""
    if t.writes_blocked:
        return f"design: no acks=all write can succeed (minISR {t.min_isr} > RF {t.min_rf})"
    loss, writes = design_loss(t), t.write_tolerance
    if loss == writes == 0:
        return "design: tolerates no broker failure (one loss stops acks=all writes)"
    if loss == writes:
        return f"design: tolerates {_failures(loss)} (no data loss, acks=all writes go on)"
    return f"design: tolerates {_failures(loss)} without data loss, {writes} before acks=all writes stop"


def now_words(t: TopicHealth) -> str:
    """'now: 0 more (at minISR)', 'now: acks=all writes failing (under minISR)', 'now: offline: no writes'."""
    if t.writes_blocked:
        return "now: acks=all writes impossible"
    if t.count(Health.OFFLINE):
        return f"now: {t.count(Health.OFFLINE)} partition(s) offline: no writes to them"
    if t.min_headroom < 0:
        return "now: acks=all writes failing (under minISR)"
    if t.min_headroom == 0:
        return "now: 0 more (at minISR: the next ISR loss stops acks=all writes)"
    return f"now: {t.min_headroom} more before acks=all writes stop"


def durability_words(t: TopicHealth) -> str:
    """Both figures, as two clauses: 'design: tolerates 1 failure (...); now: 0 more (at minISR ...)'."""
    return f"{design_words(t)}; {now_words(t)}"


def tolerance_cell(t: TopicHealth) -> str:
    """The tables' 'tolerates' column, in failures acks=all writes go on through: 'design 1 · now 0',
    'design 1 · now failing', 'design 1 · now offline' (the design figure is RF - minISR, the now figure
    the worst partition's ISR above minISR)."""
    if t.writes_blocked:
        return "design: no writes"
    design = f"design {t.write_tolerance}"
    if t.count(Health.OFFLINE):
        return f"{design} · now offline"
    now = writes_now(t)
    return f"{design} · now " + ("failing" if now is None else str(now))
