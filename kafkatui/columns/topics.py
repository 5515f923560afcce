"""The topics table (the dashboard's overview, `check`'s "Topics, worst first") and `check --json`'s topics.

To add a column: one `ColumnSpec` in `TOPICS` (ARCHITECTURE.md, "Adding a column to the topics table").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkatui.columns.spec import ColumnSet, ColumnSpec, Context, Json
from kafkatui.model.health import Health, TopicHealth
from kafkatui.present import HEALTH_STYLE, leader_down_status, min_isr_cell, short_status, source_word
from kafkatui.tolerance import tolerance_cell, writes_now

if TYPE_CHECKING:
    from rich.text import Text

CLASS_JSON = tuple(h.name.lower() for h in Health)
"""The JSON's name of each class (`worst`, the keys of `counts`), by `Health` value."""


def _styled(text: str, style: str) -> Text:
    from rich.text import Text

    return Text(text, style=style)


def _count_cell(t: TopicHealth, health: Health) -> Text:
    n = t.count(health)
    return _styled(str(n), HEALTH_STYLE[health] if n else "dim")


def _headroom(t: TopicHealth) -> Text:
    h = t.min_headroom
    return _styled(f"{h:+d}", "red" if h < 0 else ("yellow" if h == 0 else "green"))


def _count(health: Health, key: str, label: str) -> ColumnSpec[TopicHealth]:
    """A column of partitions in one class (`counts.<class>` in the JSON)."""
    return ColumnSpec(
        key,
        label,
        4,
        "right",
        cell=lambda t, _: _count_cell(t, health),
        sort=lambda t: t.count(health),
        json=(Json(f"counts.{CLASS_JSON[health]}", lambda t, _: t.count(health)),),
        no_wrap=True,
        text_min_width=len(label),
    )


def _class_count(health: Health) -> Json[TopicHealth]:
    return Json(f"counts.{CLASS_JSON[health]}", lambda t, _: t.count(health))


def _status(t: TopicHealth, c: Context) -> Text:
    """The topic's class; `⊘ ldr dn` when a partition's leader is down and not yet moved (writes fail now),
    unless one is offline, the worse of the two (nothing will bring it back by itself)."""
    if c.leader_down.get(t.name) and t.worst != Health.OFFLINE:
        return leader_down_status()
    return short_status(t.worst)


def _now(t: TopicHealth) -> int:
    now = writes_now(t)
    return -1 if now is None else now


TOPICS: ColumnSet[TopicHealth] = ColumnSet(
    [
        ColumnSpec(
            "status",
            "status",
            9,
            cell=_status,
            text=_status,
            sort=lambda t: (t.worst, -t.affected, t.name),
            json=(Json("worst", lambda t, _: CLASS_JSON[t.worst]),),
            no_wrap=True,
        ),
        ColumnSpec(
            "topic",
            "topic",
            32,
            min_width=18,
            cell=lambda t, _: _styled(t.name, "dim" if t.internal else ""),
            sort=lambda t: t.name,
            json=(Json("name", lambda t, _: t.name), Json("internal", lambda t, _: t.internal)),
            no_wrap=True,
            text_max_width=40,
        ),
        ColumnSpec(
            "partitions",
            "parts",
            5,
            "right",
            cell=lambda t, _: str(t.partitions),
            sort=lambda t: t.partitions,
            json=(Json("partitions", lambda t, _: t.partitions),),
            no_wrap=True,
            text_min_width=5,
        ),
        _count(Health.OFFLINE, "offline", "offl"),
        _count(Health.UNDER_MIN_ISR, "under", "<min"),
        _count(Health.AT_MIN_ISR, "at", "=min"),
        ColumnSpec(
            "urp",
            "URP",
            4,
            "right",
            cell=lambda t, _: _styled(str(t.under_replicated_total), "yellow" if t.under_replicated_total else "dim"),
            sort=lambda t: t.under_replicated_total,
            json=(),  # not in schema 1: a topic has the class count (counts.under_replicated), not this total
            no_wrap=True,
            text_min_width=3,
        ),
        ColumnSpec(
            "rf",
            "RF",
            2,
            "right",
            cell=lambda t, _: str(t.rf),
            sort=lambda t: t.rf,
            json=(Json("replication_factor", lambda t, _: t.rf),),
            no_wrap=True,
            text_min_width=2,
        ),
        ColumnSpec(
            "minisr",
            "minISR",
            10,
            min_width=8,
            cell=lambda t, _: min_isr_cell(t, source_word(t.min_isr_source)),
            sort=lambda t: t.min_isr,
            json=(
                Json("min_isr", lambda t, _: t.min_isr),
                Json("min_isr_source", lambda t, _: t.min_isr_source),
                Json("effective_min_isr", lambda t, _: t.effective_min_isr),
            ),
            no_wrap=True,
        ),
        ColumnSpec(
            "headroom",
            "headroom",
            8,
            "right",
            cell=lambda t, _: _headroom(t),
            sort=lambda t: t.min_headroom,
            json=(Json("min_headroom", lambda t, _: t.min_headroom),),
        ),
        ColumnSpec(
            "survives",
            "tolerates",
            24,
            min_width=1,
            cell=lambda t, _: tolerance_cell(t),
            sort=lambda t: (t.write_tolerance, _now(t)),
            json=(
                Json("tolerates_failures_with_writes", lambda t, _: t.write_tolerance),
                Json("writes_blocked", lambda t, _: t.writes_blocked),
                Json("tolerates_now_with_writes", lambda t, _: writes_now(t)),
            ),
            no_wrap=True,
        ),
    ],
    json_order=[
        "name",
        "internal",
        "worst",
        "partitions",
        "counts.offline",
        "counts.under_min_isr",
        "counts.at_min_isr",
        _class_count(Health.UNDER_REPLICATED),
        _class_count(Health.NON_PREFERRED_LEADER),
        _class_count(Health.HEALTHY),
        "replication_factor",
        "min_isr",
        "min_isr_source",
        "effective_min_isr",
        "min_headroom",
        Json("unclean_leader_election", lambda t, _: t.unclean),
        Json("tolerates_failures_without_data_loss", lambda t, _: t.loss_tolerance),
        "tolerates_failures_with_writes",
        "writes_blocked",
        "tolerates_now_with_writes",
        Json("leader_down_not_moved", lambda t, c: c.leader_down.get(t.name, 0)),
    ],
)
"""The topics table, worst first: classes per topic, RF, minISR and where it comes from, headroom and
what the topic tolerates."""
