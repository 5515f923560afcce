"""The column definitions (`kafkatui.columns`): a mistake fails at import, and they cost `check --json` no rich.

That every column is shown by the dashboard, `check` and the JSON: tests/tui/test_column_specs.py.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from kafkatui.columns import TOPICS, ColumnSet, ColumnSpec, Json
from kafkatui.model.health import TopicHealth


def column(key: str, *json: str) -> ColumnSpec[TopicHealth]:
    return ColumnSpec(
        key,
        key,
        5,
        cell=lambda t, _: t.name,
        sort=lambda t: t.name,
        json=tuple(Json(name, lambda t, _: t.name) for name in json),
    )


@pytest.mark.parametrize(
    ("columns", "order", "error"),
    [
        ([column("a"), column("a")], [], "two columns with the key 'a'"),
        ([column("a", "x"), column("b", "x")], [], "JSON key 'x' of column 'b' is another column's"),
        ([column("a", "x")], ["y"], "JSON order names 'y', the key of no column"),
        ([column("a", "x")], ["x", Json("x", lambda t, _: 0)], "a JSON key twice: ['x']"),
    ],
)
def test_a_table_defined_twice_over_fails_when_it_is_made(
    columns: list[ColumnSpec[TopicHealth]], order: list[str | Json[TopicHealth]], error: str
) -> None:
    with pytest.raises(ValueError, match=error.replace("[", r"\[").replace("]", r"\]")):
        ColumnSet(columns, order)


def test_json_keys_follow_the_order_then_new_columns() -> None:
    table = ColumnSet([column("a", "x"), column("b", "counts.y", "z")], ["z", Json("w", lambda t, _: 1), "x"])
    assert [f.name for f in table.json_fields()] == ["z", "w", "x", "counts.y"]


def test_the_topics_json_keeps_schema_1s_order() -> None:
    """`check --json` writes a topic's keys as it always has (the columns' order differs)."""
    assert [f.name for f in TOPICS.json_fields()] == [
        "name",
        "internal",
        "worst",
        "partitions",
        *(f"counts.{c}" for c in ("offline", "under_min_isr", "at_min_isr", "under_replicated")),
        "counts.non_preferred_leader",
        "counts.healthy",
        "replication_factor",
        "min_isr",
        "min_isr_source",
        "effective_min_isr",
        "min_headroom",
        "unclean_leader_election",
        "tolerates_failures_without_data_loss",
        "tolerates_failures_with_writes",
        "writes_blocked",
        "tolerates_now_with_writes",
        "leader_down_not_moved",
    ]


def test_the_columns_import_neither_rich_nor_textual() -> None:
    """`check --json` imports them, and no rich (issue 17's start-up budget); nor may they import the TUI."""
    code = (
        "import sys, kafkatui.columns, kafkatui.check_cmd; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'textual'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
