"""Pilot tests and SVG snapshots of the drill-down screens: topic, partition, broker, what-if, findings, help.

The app runs on a fake source that returns a hand-built snapshot (no network), with a fixed clock.
pytest-asyncio is not installed: async scenarios are driven with `asyncio.run` from sync tests.
"""

from __future__ import annotations

import asyncio
import io
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import SelectionList, Static, TextArea
from textual.widgets._footer import FooterKey

from kafkatui.model.snapshot import ClusterSnapshot, ReplicaLog
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.broker import BrokerScreen
from kafkatui.tui.screens.findings import FindingsScreen
from kafkatui.tui.screens.help import HelpScreen
from kafkatui.tui.screens.overview import OverviewScreen
from kafkatui.tui.screens.partition import PartitionScreen
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.screens.whatif import WhatIfScreen
from kafkatui.tui.widgets.findings import FindingView
from kafkatui.tui.widgets.vtable import VirtualTable
from tests.model.builders import healthy, snap, topic

FIXED = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
SIZE = (120, 40)


def incident() -> ClusterSnapshot:
    """Broker 4 gone, broker 3 lagging: orders has partitions at and under minISR, payments-0 is offline."""
    logs = {
        ("orders", 0, 1): ReplicaLog(10_000_000, 0),
        ("orders", 0, 2): ReplicaLog(10_000_000, 0),
        ("orders", 0, 3): ReplicaLog(7_600_000, 1234),
        ("orders", 1, 2): ReplicaLog(5_000_000, 0),
        ("orders", 1, 3): ReplicaLog(4_000_000, 800),
    }
    s = snap(
        topic(
            "orders",
            [
                (1, [1, 2, 3], [1, 2]),
                (2, [2, 4, 3], [2]),
                (1, [3, 1, 2], [1, 2]),
                (1, [1, 2, 3], [1, 2, 3]),
                (2, [2, 3, 1], [2, 3, 1]),
                (3, [3, 1, 2], [3, 1, 2]),
            ],
            min_insync_replicas="2",
        ),
        topic("payments", [(-1, [4, 3, 2], [4]), (2, [2, 3, 1], [2, 3, 1])], min_insync_replicas="2"),
        healthy("logs", 4),
        brokers=(1, 2, 3),
        racks={1: "a", 2: "b", 3: "c"},
        log_dirs=logs,
        broker_configs={"min.insync.replicas": "1"},
    )
    return replace(s, taken_at=FIXED - 3)


class FakeSource:
    """A ClusterSource that answers with prepared snapshots (the last one repeats)."""

    def __init__(self, *snapshots: ClusterSnapshot) -> None:
        self.snapshots = list(snapshots)

    def snapshot(self) -> ClusterSnapshot:
        return self.snapshots.pop(0) if len(self.snapshots) > 1 else self.snapshots[0]

    def close(self) -> None:
        pass


def make_app(*snapshots: ClusterSnapshot) -> KafkaTuiApp:
    feed = Feed(FakeSource(*(snapshots or (incident(),))), bootstrap="kafka:9092", clock=lambda: FIXED)
    return KafkaTuiApp(feed, auto_refresh=False, clock=lambda: FIXED, source_label="test")


async def ready(pilot: Pilot[Any]) -> None:
    """Wait until the first refresh (a worker thread) has landed on screen."""
    app = pilot.app
    assert isinstance(app, KafkaTuiApp)
    for _ in range(200):
        if app.state.snapshot is not None and isinstance(app.screen, OverviewScreen):
            break
        await pilot.pause(0.05)
    assert app.state.snapshot is not None
    await pilot.pause()


async def refreshed(pilot: Pilot[Any]) -> None:
    """Ask for a refresh and wait until it has been applied."""
    app = pilot.app
    assert isinstance(app, KafkaTuiApp)
    generation = app.state.generation
    app.request_refresh()
    for _ in range(200):
        if app.state.generation > generation:
            break
        await pilot.pause(0.05)
    await pilot.pause()


def drive(
    scenario: Callable[[Pilot[Any], KafkaTuiApp], Awaitable[None]],
    app: KafkaTuiApp | None = None,
    size: tuple[int, int] = SIZE,
) -> None:
    """Run `scenario` against a fresh app at 120x40 (or `size`)."""
    app = app or make_app()

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await ready(pilot)
            await scenario(pilot, app)

    asyncio.run(main())


def text_of(widget: Static) -> str:
    """What the widget shows, as plain text (wide enough not to wrap)."""
    content = widget.content
    if isinstance(content, str):
        return content
    console = Console(width=300, file=io.StringIO(), record=True)
    console.print(content)
    return console.export_text()


def screen_text(app: KafkaTuiApp) -> str:
    """Every Static and TextArea of the current screen, as plain text."""
    parts = [text_of(w) for w in app.screen.query(Static) if w.display]
    parts += [a.text for a in app.screen.query(TextArea)]
    return "\n".join(parts)


# --------------------------------------------------------------------------------------------- pilot
def test_drill_from_overview_to_topic_to_partition_shows_its_findings_and_commands() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        topics = app.screen.query_one("#topics", VirtualTable)
        assert topics.cursor_key == "payments"  # worst first: payments has an offline partition
        assert topics.move_cursor_to("orders")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen) and app.screen.topic == "orders"
        header = text_of(app.screen.query_one("#topic-header", Static))
        assert "under minISR" in header and "minISR 2 (topic)" in header and "unclean off" in header
        parts = app.screen.query_one("#partitions", VirtualTable)
        assert parts.keys_in_view() == [0, 1, 2, 3, 4, 5]
        row0 = {c.key: str(parts._cell(0, c.key)) for c in parts.columns}
        assert row0["replicas"] == "1,2,3✗" and row0["isr"] == "1,2" and row0["lag"] == "3: 2.3 MiB"
        assert row0["headroom"].startswith("+0 ██░")
        assert "↺ (pref 3)" in str(parts._cell(2, "leader"))
        assert "4✗↓" in str(parts._cell(1, "replicas"))

        await pilot.press("down", "enter")  # orders-1: under minISR
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PartitionScreen) and (screen.topic, screen.partition) == ("orders", 1)
        text = screen_text(app)
        assert "orders-1" in text and "under minISR" in text
        assert "broker 4 ✖ DOWN" in text and "broker 3 ✔ up: 976.6 KiB behind, offset lag 800" in text
        assert {f.id for f in screen.findings} == {"under-min-isr", "broker-absent"}
        # every command of every finding is shown in full in a text area
        shown = "\n".join(a.text for a in screen.query(TextArea))
        for f in screen.findings:
            for command in f.commands:
                assert command in shown

        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)

    drive(scenario)


def test_healthy_partition_says_why() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_partition("orders", 3)
        await pilot.pause()
        assert isinstance(app.screen, PartitionScreen) and app.screen.findings == []
        verdict = text_of(app.screen.query_one("#verdict", Static))
        assert "No finding applies" in verdict and "every replica is in sync" in verdict

    drive(scenario)


def test_c_copies_every_command_of_the_partition(monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[str] = []
    monkeypatch.setattr(KafkaTuiApp, "copy_to_clipboard", lambda self, text: copied.append(text))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_partition("logs", 0)  # min-isr-one: commands and a Strimzi patch
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PartitionScreen)
        assert [f.id for f in screen.findings] == ["min-isr-one"]
        patch = screen.query_one(".patch", TextArea)
        assert patch.display and "min.insync.replicas" in patch.text
        await pilot.press("c")
        await pilot.pause()
        f = screen.findings[0]
        assert copied == [f.paste_block()]  # every command a change: each commented out under when to run it
        assert copied[0].splitlines() == [
            "# To make acks=all writes to logs wait for two brokers, in the order of the finding's steps, "
            "then run (changes the cluster: uncomment to run):",
            *(f"# {c}" for c in f.commands),
        ]
        assert any(
            f"copied 0 read-only commands and {len(f.commands)} changes, commented out" in str(n.message)
            for n in app._notifications
        )

    drive(scenario)


def test_c_on_the_absent_broker_finding_copies_a_block_safe_to_paste(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26: the read-only checks and the reassignment off broker 4 were one paste-ready block; pasted
    whole it moved replicas off a broker that may only have crashed."""
    copied: list[str] = []
    monkeypatch.setattr(KafkaTuiApp, "copy_to_clipboard", lambda self, text: copied.append(text))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FindingsScreen)
        table = screen.query_one("#findings-table", VirtualTable)
        assert table.move_cursor_to(next(k for k, f in screen._by_key.items() if f.id == "broker-absent"))
        await pilot.pause()
        shown = screen.query_one(".commands", TextArea).text
        await pilot.press("c")
        await pilot.pause()
        (block,) = copied
        assert block == shown + "\n"  # the screen shows what c copies
        lines = block.splitlines()
        when = lines.index(
            "# If broker 4 is gone for good (not just crashed or restarting: then start it again instead), "
            "then run (changes the cluster: uncomment to run):"
        )
        assert all(not ln.startswith("#") and "--describe" in ln or "api-versions" in ln for ln in lines[:when])
        assert (
            lines[when + 1].startswith("# printf '%s\\n' '{\"version\":1")
            and "> reassign-broker-4.json" in lines[when + 1]
        )
        assert any(ln.startswith("# kafka-reassign-partitions.sh") and "--execute" in ln for ln in lines[when:])
        assert not any("--execute" in ln or "> reassign" in ln for ln in lines if not ln.startswith("#"))
        proc = subprocess.run(["bash", "-n"], input=block, text=True, capture_output=True, check=False)
        assert proc.returncode == 0, proc.stderr
        assert any(
            "copied 2 read-only commands and 3 changes, commented out" in str(n.message) for n in app._notifications
        )

    drive(scenario)


def test_findings_at_80x24_say_how_to_reach_what_to_do_and_scroll_it() -> None:
    """Issue 26: at 80x24 the details show about 10 lines; PageDown moved the list, and nothing said that
    Tab reaches what to do and the commands."""

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FindingsScreen)
        table = screen.query_one("#findings-table", VirtualTable)
        detail = screen.query_one("#finding-detail")
        assert "Tab: scroll the details (what to do, commands)" in str(detail.border_title)
        first = screen.current
        await pilot.press("tab")
        await pilot.pause()
        assert screen.focused is detail
        assert "PgDn/PgUp/↑↓ scroll · Esc: back to the list" in str(detail.border_title)
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert detail.scroll_y > 0 and screen.current is first  # the details moved, the list did not
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.focused is table
        footer = [k for k in screen.query(FooterKey) if k.display]
        assert [(k.key_display, k.description) for k in footer][-1] == ("c", "copy")
        assert sum(len(k.key_display) + 1 + len(k.description) + 1 for k in footer) - 1 <= 80

    drive(scenario, size=(80, 24))


def test_broker_screen_names_the_isrs_it_is_missing_from() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.screen.query_one("#brokers", VirtualTable).focus()
        app.screen.query_one("#brokers", VirtualTable).move_cursor_to(3)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrokerScreen) and screen.broker_id == 3
        missing = screen.query_one("#missing", VirtualTable)
        assert set(missing.keys_in_view()) == {("orders", 0), ("orders", 1), ("orders", 2), ("payments", 0)}
        assert missing.keys_in_view()[0] == ("payments", 0)  # worst first: offline
        text = screen_text(app)
        assert "missing from 4 ISRs" in text and "rack c" in text
        # catching up on orders-1, already under min ISR: restarting it would hold that partition's writes back
        assert "restart: ✖ NOT safe" in text and "already under minISR" in text
        assert str(missing._cell(("orders", 0), "lag")) == "2.3 MiB (1,234 msgs)"
        assert missing.move_cursor_to(("orders", 1))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PartitionScreen) and app.screen.partition == 1

    drive(scenario)


def test_absent_broker_is_marked_down_with_its_findings() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_broker(4)
        await pilot.pause()
        text = screen_text(app)
        assert "✖ DOWN" in text and "already down" in text
        assert isinstance(app.screen, BrokerScreen)
        assert [f.id for f in app.screen.findings] == ["offline", "broker-absent", "under-min-isr"]  # no leader first

    drive(scenario)


def test_broker_screen_lists_the_worst_findings_naming_it_and_says_where_the_rest_are() -> None:
    """Issue 31: a broker out of the ISRs of 30 topics names 31 findings; the screen listed every one in
    full (thousands when a broker of a large cluster leaves). It lists the worst 20 and says how many more."""
    lagging = [topic(f"t{i:02d}", [(1, [1, 2, 3], [1, 2])], min_insync_replicas="2") for i in range(30)]
    app = make_app(replace(snap(*lagging, brokers=(1, 2, 3)), taken_at=FIXED - 3))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        naming = [f for f in app.state.findings if 3 in f.brokers]
        assert len(naming) == 31  # broker-missing-from-isrs, and an at-min-isr finding per topic
        app.open_broker(3)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrokerScreen)
        assert screen.findings == naming[:20] and naming[0].id == "broker-missing-from-isrs"
        assert len(screen.query(FindingView)) == 20
        assert (
            "31 findings naming broker 3, the worst 20 here (f lists them all: filter 'broker 3'); "
            "c copies their commands" in screen_text(app)
        )

    drive(scenario, app)


def test_what_if_counts_follow_the_toggles_and_survive_a_refresh() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WhatIfScreen)
        summary = screen.query_one("#whatif-summary", Static)
        assert "No broker selected" in text_of(summary)
        toggles = screen.query_one(SelectionList)
        assert [o.disabled for o in toggles._options] == [False, False, False, True]  # 4 is already down
        await pilot.press("space")  # broker 1 down
        await pilot.pause()
        assert screen.down == {1} and screen.result is not None
        one = (len(screen.result.offline), len(screen.result.under_min_isr))
        assert "taking broker 1 down" in text_of(summary)
        await pilot.press("down", "space")  # and broker 2
        await pilot.pause()
        assert screen.down == {1, 2}
        two = (len(screen.result.offline), len(screen.result.under_min_isr))
        assert two != one and two[0] > one[0]
        impact = screen.query_one("#impact", VirtualTable)
        first = impact.keys_in_view()[0]
        assert screen.result.topics[first].offline == max(t.offline for t in screen.result.topics.values())

        await refreshed(pilot)
        assert screen.down == {1, 2} and set(toggles.selected) == {1, 2}

        await pilot.press("t", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen) and app.screen.topic == first

    drive(scenario)


def test_findings_screen_is_critical_first_and_enter_opens_the_resource() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FindingsScreen)
        table = screen.query_one("#findings-table", VirtualTable)
        severities = [screen._by_key[k].severity for k in table.keys_in_view()]
        assert severities[0] == "critical" and severities == sorted(
            severities, key=["critical", "warning", "info"].index
        )
        detail = screen.query_one("#finding-view", FindingView)
        assert detail.finding is screen.current and detail.finding is not None
        assert detail.finding.id == "offline"  # issue 26: no leader ranks first, above the absent broker
        await pilot.press("down")
        await pilot.pause()
        assert detail.finding is screen.current and detail.finding.id == "broker-absent"
        await pilot.press("up")
        await pilot.pause()
        await pilot.press("enter")  # offline payments-0 -> the partition screen
        await pilot.pause()
        assert isinstance(app.screen, PartitionScreen)
        assert (app.screen.topic, app.screen.partition) == ("payments", 0)
        await pilot.press("escape")
        await pilot.pause()
        assert table.move_cursor_to(next(k for k, f in screen._by_key.items() if f.id == "min-isr-one"))
        await pilot.press("enter")  # a whole-topic finding -> the topic screen
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen) and app.screen.topic == "logs"

    drive(scenario)


def test_help_opens_and_closes_with_question_mark_and_escape() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)

    drive(scenario)


def test_topic_deleted_during_a_refresh_is_said_on_screen() -> None:
    gone = replace(incident(), topics={k: v for k, v in incident().topics.items() if k != "orders"}, taken_at=FIXED)

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("orders")
        await pilot.pause()
        app.open_partition("orders", 0)
        await pilot.pause()
        await refreshed(pilot)
        assert "not in the latest snapshot" in text_of(app.screen.query_one("#facts", Static))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen)
        assert "not in the latest snapshot" in text_of(app.screen.query_one("#topic-header", Static))
        assert app.screen.query_one("#partitions", VirtualTable).total_count == 0

    drive(scenario, make_app(incident(), gone))


def test_filter_on_the_topic_screen() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("orders")
        await pilot.pause()
        await pilot.press("slash", *"under", "enter")
        await pilot.pause()
        assert app.screen.query_one("#partitions", VirtualTable).keys_in_view() == [1]

    drive(scenario)


def test_a_topic_opened_again_starts_as_a_new_screen() -> None:
    """The topic screen is built once and shown again for each topic: what the user did to the last
    topic (sort, cursor, a filter) never carries over, and a closed one holds no state."""

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("orders")
        await pilot.pause()
        kept = app.screen
        assert isinstance(kept, TopicScreen)
        table = kept.query_one("#partitions", VirtualTable)
        await pilot.press("s", "down", "down")
        assert table.sort_column is not None and table.cursor_row > 0
        table.set_filter("orders")  # left with a filter set another way than the bar (Esc clears the bar's)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        assert kept._report is None and kept._infos == {}  # the closed screen lets the state go
        app.open_topic("payments")
        await pilot.pause()
        assert app.screen is kept and kept.topic == "payments"
        assert text_of(kept.query_one("#topic-header", Static)).startswith("payments ")
        assert table.keys_in_view() == [0, 1] and table.cursor_row == 0
        assert table.sort_column is None and table.filter_text == "" and not kept.filter_active
        assert kept.focused is table
        await pilot.press("down", "enter")  # the cursor and Enter act on the new topic's rows
        await pilot.pause()
        assert isinstance(app.screen, PartitionScreen) and app.screen.topic == "payments"

    drive(scenario)


def test_a_topic_opened_over_the_kept_screen_gets_its_own() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("orders")
        await pilot.pause()
        kept = app.screen
        app.open_partition("orders", 0)
        await pilot.pause()
        app.open_topic("payments")  # the palette can open a topic from anywhere
        await pilot.pause()
        other = app.screen
        assert isinstance(other, TopicScreen) and other is not kept and other.topic == "payments"
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is kept and isinstance(kept, TopicScreen) and kept.topic == "orders"
        assert kept.query_one("#partitions", VirtualTable).total_count == 6

    drive(scenario)


def test_a_topic_screen_shown_again_after_a_theme_change_takes_the_new_theme() -> None:
    """A kept screen skips Textual's restyle on push only when the theme is the one it was left in."""

    def styles(screen: TopicScreen) -> tuple[object, ...]:
        table = screen.query_one("#partitions", VirtualTable)
        return (table.rich_style, table.get_component_rich_style("vtable--cursor"), screen.styles.background)

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("orders")
        await pilot.pause()
        kept = app.screen
        assert isinstance(kept, TopicScreen)
        before = styles(kept)
        await pilot.press("escape")
        await pilot.pause()
        app.theme = next(name for name in app.available_themes if name != app.theme and "light" in name)
        await pilot.pause()
        app.open_topic("orders")
        await pilot.pause()
        assert app.screen is kept
        app.open_partition("orders", 0)
        await pilot.pause()
        app.open_topic("orders")  # a new screen over the kept one: styled from scratch
        await pilot.pause()
        fresh = app.screen
        assert isinstance(fresh, TopicScreen) and fresh is not kept
        assert styles(kept) == styles(fresh) != before

    drive(scenario)


def test_the_footer_rebuilds_only_when_its_keys_change() -> None:
    """Textual's footer rebuilt every key several times per screen change; this one keeps its keys
    while the bindings are the same, and follows them when they change (`/` hides while typing)."""

    def keys(app: KafkaTuiApp) -> list[FooterKey]:
        return list(app.screen.query(FooterKey))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        before = keys(app)
        assert "filter" in [k.description for k in before]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert keys(app) == before  # the same widgets: nothing was rebuilt
        await pilot.press("slash")
        await pilot.pause()
        await pilot.pause()
        assert "filter" not in [k.description for k in keys(app)]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert "filter" in [k.description for k in keys(app)]

    drive(scenario)


# ------------------------------------------------------------------------------------------ snapshots
def snapshot_of(open_screen: Callable[[KafkaTuiApp], None] | None = None) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """A `run_before` that waits for the data, then opens a screen."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        app = pilot.app
        assert isinstance(app, KafkaTuiApp)
        if open_screen is not None:
            open_screen(app)
        await pilot.pause()
        await pilot.pause()

    return run_before


def test_snapshot_topic(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=snapshot_of(lambda a: a.open_topic("orders")))


def test_snapshot_partition_with_findings(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=snapshot_of(lambda a: a.open_partition("orders", 1)))


def test_snapshot_partition_with_strimzi_patch(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=snapshot_of(lambda a: a.open_partition("logs", 0)))


def test_snapshot_partition_healthy(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=snapshot_of(lambda a: a.open_partition("orders", 3)))


def test_snapshot_broker(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=snapshot_of(lambda a: a.open_broker(3)))


def test_snapshot_what_if_two_brokers_down(snap_compare: Any) -> None:
    assert snap_compare(make_app(), press=["w", "space", "down", "space"], terminal_size=SIZE, run_before=snapshot_of())


def test_snapshot_findings(snap_compare: Any) -> None:
    assert snap_compare(make_app(), press=["f"], terminal_size=SIZE, run_before=snapshot_of())


def test_snapshot_findings_80x24_details_scrolled_to_the_commands(snap_compare: Any) -> None:
    """The absent broker's finding at 80x24, its details scrolled down to the paste-safe commands."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await snapshot_of()(pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, FindingsScreen)
        table = screen.query_one("#findings-table", VirtualTable)
        assert table.move_cursor_to(next(k for k, f in screen._by_key.items() if f.id == "broker-absent"))
        await pilot.press("tab", "end")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_help(snap_compare: Any) -> None:
    assert snap_compare(make_app(), press=["question_mark"], terminal_size=SIZE, run_before=snapshot_of())


# ------------------------------------------------------------------------------------------ overview
def test_snapshot_overview_80x24(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=snapshot_of())


@pytest.mark.parametrize("theme", ["kafkatui-dark", "kafkatui-light", "kafkatui-contrast"])
def test_snapshot_overview_in_every_theme(snap_compare: Any, theme: str) -> None:
    def use_theme(app: KafkaTuiApp) -> None:
        app.theme = theme

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=snapshot_of(use_theme))


def test_snapshot_too_small_terminal_says_so(snap_compare: Any) -> None:
    assert snap_compare(make_app(), terminal_size=(40, 12), run_before=snapshot_of())


def test_stale_data_is_marked_with_its_age() -> None:
    from kafkatui.kafka.errors import CannotConnectError

    class Failing(FakeSource):
        def __init__(self) -> None:
            super().__init__(incident())
            self.calls = 0

        def snapshot(self) -> ClusterSnapshot:
            self.calls += 1
            if self.calls > 1:
                raise CannotConnectError("cannot connect to kafka:9092: connection refused")
            return super().snapshot()

    feed = Feed(Failing(), bootstrap="kafka:9092", clock=lambda: FIXED)
    app = KafkaTuiApp(feed, auto_refresh=False, clock=lambda: FIXED + 60, source_label="test")

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await refreshed(pilot)
        summary = screen_text(app)
        assert "STALE" in summary and "connection refused" in summary
        assert "orders" in screen_text(app) or app.state.snapshot is not None  # the data stays

    drive(scenario, app)
