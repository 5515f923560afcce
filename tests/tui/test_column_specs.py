"""The topics and brokers tables are defined once (`kafkatui.columns`) and every column is shown everywhere.

The dashboard's overview, `check`'s tables and `check --json` are read as a user meets them (painted
rows, printed text, the JSON document), on one cluster with every kind of cell: an offline partition,
partitions under and at minISR, an absent broker, an internal topic, and a topic whose minISR 3 the
3.9 brokers cap at its RF 2. A column defined but left out of one of them, or a column one of them adds
on its own, fails here; so does a new column that needs more than its one entry.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console

from kafkatui.check_cmd import render, to_json
from kafkatui.columns import BROKERS, TOPICS, ColumnSet, ColumnSpec, Context, Json
from kafkatui.model.findings import findings
from kafkatui.model.health import HealthReport, TopicHealth, assess
from kafkatui.model.mode import snapshot_mode
from kafkatui.model.rules import KafkaVersion
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.widgets.columns import GAP, fit_str, layout_widths, plain_text
from kafkatui.tui.widgets.vtable import VirtualTable
from tests.model.builders import healthy, topic
from tests.tui.test_screens import incident, make_app, ready

WIDE = (220, 50)  # every column at its full width: cells are compared whole


def cluster() -> ClusterSnapshot:
    """The screens' incident (broker 4 absent, orders under/at minISR, payments offline) on Kafka 3.9,
    plus an internal topic and one whose minISR 3 is capped at its RF 2 (shown `3→2 topic`)."""
    s = incident()
    extra = {
        "capped": topic("capped", [(1, [1, 2], [1, 2]), (2, [2, 3], [2])], min_insync_replicas="3"),
        "__consumer_offsets": healthy("__consumer_offsets", 3),
    }
    return replace(
        s, topics={**s.topics, **extra}, kafka=KafkaVersion(low=(3, 9), high=(3, 9), mode="kraft", brokers=3)
    )


def painted(table: VirtualTable[Any]) -> list[str]:
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


def expected_row(table: VirtualTable[Any], cells: list[Any]) -> str:
    """A row as the virtual table paints it: every cell fitted to its column, a gap before each."""
    widths = layout_widths(table.columns, table.scrollable_content_region.width)
    assert all(w == c.width for w, c in zip(widths, table.columns, strict=True)), "every column at full width"
    columns = table.columns
    return "".join(
        " " * GAP + fit_str(plain_text(v), w, c.justify == "right")
        for v, w, c in zip(cells, widths, columns, strict=True)
    ).rstrip()


def dashboard_tables(snapshot: ClusterSnapshot) -> tuple[list[str], list[str], list[str], list[str]]:
    """(topic keys in view, topics table lines, broker keys, brokers table lines) of the overview."""
    app = make_app(snapshot)
    out: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=WIDE) as pilot:
            await ready(pilot)
            await pilot.pause()
            topics = app.screen.query_one("#topics", VirtualTable)
            brokers = app.screen.query_one("#brokers", VirtualTable)
            assert [c.key for c in topics.columns] == list(TOPICS.keys)
            assert [c.key for c in brokers.columns] == list(BROKERS.keys)
            out["topics"] = (topics.keys_in_view(), painted(topics), topics)
            out["brokers"] = (brokers.keys_in_view(), painted(brokers), brokers)
            report = assess(snapshot)
            context = Context(mode=snapshot_mode(snapshot))
            for name, (keys, lines, table) in (("topics", out["topics"]), ("brokers", out["brokers"])):
                spec: ColumnSet[Any] = TOPICS if name == "topics" else BROKERS
                rows = report.topics if name == "topics" else report.brokers
                assert len(lines) > len(keys), f"every {name} row in view"
                for c in spec.columns:  # the header, left to right
                    assert c.label in lines[0], (c.key, lines[0])
                for y, key in enumerate(keys, 1):
                    cells = [spec.cell(rows[key], c.key, context) for c in spec.columns]
                    assert lines[y] == expected_row(table, cells), f"{name} row {key!r}"

    asyncio.run(main())
    return out["topics"][0], out["topics"][1], out["brokers"][0], out["brokers"][1]


def evaluated(snapshot: ClusterSnapshot) -> tuple[HealthReport, list[Any]]:
    report = assess(snapshot)
    return report, findings(report, snapshot, bootstrap="kafka:9092")


def check_text(snapshot: ClusterSnapshot) -> str:
    report, found = evaluated(snapshot)
    buf = io.StringIO()
    render(Console(file=buf, width=1000, color_system=None), snapshot, report, found, None, show_all=True)
    return buf.getvalue()


def table_lines(text: str, title: str) -> list[str]:
    """The header and rows of one of check's tables: after its title, up to the blank line ending it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == title) + 1
    while not lines[start].strip():
        start += 1
    out: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        if not set(line.strip()) <= {"━", "─"}:  # not the rule under the header
            out.append(line)
    return out


def in_order(line: str, words: list[str]) -> bool:
    """`words` all in `line`, left to right, none overlapping the one before."""
    at = 0
    for word in words:
        found = line.find(word, at)
        if found < 0:
            return False
        at = found + len(word)
    return True


def assert_check_table(text: str, title: str, spec: ColumnSet[Any], rows: list[Any], context: Context) -> None:
    header, *body = table_lines(text, title)
    labels = [c.text_label or c.label for c in spec.columns]
    assert in_order(header, labels), f"{title}: {labels} in {header!r}"
    assert header.split() == " ".join(labels).split(), f"{title}: no header but the columns'"
    assert len(body) == len(rows), f"{title}: one line per row"
    for line, row in zip(body, rows, strict=True):
        words = [spec.plain(row, c.key, context) for c in spec.columns]
        assert in_order(line, words), f"{title}: {words} in {line!r}"


def flat(obj: dict[str, Any]) -> list[str]:
    """Keys of a JSON object in order, a nested object's as `outer.inner`."""
    keys: list[str] = []
    for key, value in obj.items():
        keys += [f"{key}.{inner}" for inner in value] if isinstance(value, dict) else [key]
    return keys


def assert_json(doc: dict[str, Any], report: HealthReport) -> None:
    for name, spec, rows in (
        ("topics", TOPICS, report.topics_worst_first()),
        ("brokers", BROKERS, sorted(report.brokers.values(), key=lambda b: b.id)),
    ):
        assert len(doc[name]) == len(rows)
        names = [f.name for f in spec.json_fields()]
        for record, row in zip(doc[name], rows, strict=True):
            assert flat(record) == names, f"{name}: the document's keys are the columns' and the declared ones"
            for c in spec.columns:
                for f in c.json:
                    outer, _, inner = f.name.partition(".")
                    value = record[outer][inner] if inner else record[outer]
                    assert value == f.value(row, Context(leader_down={})), (name, c.key, f.name)


# ------------------------------------------------------------------------------------------------- tests
def test_every_column_is_in_the_dashboard_check_and_json() -> None:
    snapshot = cluster()
    report, found = evaluated(snapshot)
    topic_keys, topic_lines, broker_keys, _ = dashboard_tables(snapshot)
    assert set(topic_keys) == set(report.topics) and set(broker_keys) == set(report.brokers)
    capped = next(line for key, line in zip(topic_keys, topic_lines[1:], strict=False) if key == "capped")
    assert "3→2 topic" in capped, "the overview shows the capped minISR as check does (it showed '3 topic')"

    text = check_text(snapshot)
    context = Context(mode=snapshot_mode(snapshot))
    assert_check_table(text, "Brokers", BROKERS, sorted(report.brokers.values(), key=lambda b: b.id), context)
    assert_check_table(text, "Topics, worst first", TOPICS, report.topics_worst_first(), context)
    assert_json(to_json(snapshot, report, found, None), report)


def test_every_column_says_where_its_json_is_and_docs_name_it() -> None:
    """A column's JSON keys are in docs/check.md's schema table; `json=()` is a choice made in the entry."""
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "check.md").read_text()
    schema = doc[doc.index("## JSON: schema") : doc.index("## Which min ISR rule")]
    for spec in (TOPICS, BROKERS):
        for f in spec.json_fields():
            assert f"`{f.name.partition('.')[0]}`" in schema or f"].{f.name.partition('.')[0]}`" in schema, f.name


def test_a_new_topics_column_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """One `ColumnSpec` appended to TOPICS: the overview paints it, check prints it, the JSON carries it."""

    def unclean(t: TopicHealth, _: Context) -> str:
        return "on" if t.unclean else "off"

    entry: ColumnSpec[TopicHealth] = ColumnSpec(
        "unclean",
        "unclean",
        7,
        cell=unclean,
        sort=lambda t: t.unclean,
        json=(Json("unclean_new_column", lambda t, _: t.unclean),),
    )
    monkeypatch.setattr(TOPICS, "columns", (*TOPICS.columns, entry))
    snapshot = cluster()
    report, found = evaluated(snapshot)
    _, lines, _, _ = dashboard_tables(snapshot)  # asserts every column's cells, the new one's too
    assert lines[0].rstrip().endswith("unclean") and all(line.endswith(("on", "off")) for line in lines[1:] if line)
    text = check_text(snapshot)
    context = Context(mode=snapshot_mode(snapshot))
    assert_check_table(text, "Topics, worst first", TOPICS, report.topics_worst_first(), context)
    doc = to_json(snapshot, report, found, None)
    assert_json(doc, report)
    assert [t["unclean_new_column"] for t in doc["topics"]] == [t.unclean for t in report.topics_worst_first()]
    assert list(doc["topics"][0])[-1] == "unclean_new_column", "a new key comes after schema 1's"
