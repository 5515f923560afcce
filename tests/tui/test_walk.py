"""The 3 a.m. walk (issue 15): what a tired first-time user must be able to see and press.

The filter stays visible while typing and while active, the palette jumps to a topic, partition or
broker by name, every preview has one key map with the keyboard on its primary action, the data's
age keeps counting while paused, repeated refresh failures collapse, and a failing "Replay a day…"
keeps its dialog open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Button, Footer, Input, Label, TextArea

from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.screens.broker import BrokerScreen
from kafkatui.tui.screens.overview import OverviewScreen
from kafkatui.tui.screens.partition import PartitionScreen
from kafkatui.tui.screens.replay import ReplayDirPrompt
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.widgets.events import EventLog
from kafkatui.tui.widgets.summary import SummaryBar
from kafkatui.tui.widgets.vtable import VirtualTable
from kafkatui.tui.write.elect_preview import ElectPreviewScreen
from kafkatui.tui.write.readonly import ReadOnlyScreen
from tests.tui.test_screens import FIXED, FakeSource, drive, incident, make_app, refreshed, text_of


async def settle(pilot: Pilot[Any], times: int = 3) -> None:
    for _ in range(times):
        await pilot.pause()


def on_top(app: KafkaTuiApp, widget: Any) -> bool:
    """True when `widget` is what the user sees at its own place (nothing docked over it)."""
    region = widget.region
    if region.height == 0 or region.width == 0:
        return False
    found, _ = app.screen.get_widget_at(region.x + 1, region.y)
    return found is widget or widget in found.ancestors_with_self


# ------------------------------------------------------------------------------------------ filter
@pytest.mark.parametrize("open_screen", ["overview", "topic", "broker", "findings", "what-if"])
def test_filter_is_visible_while_typing_and_while_active(open_screen: str) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        if open_screen == "topic":
            app.open_topic("orders")
        elif open_screen == "broker":
            app.open_broker(3)
        elif open_screen == "findings":
            await pilot.press("f")
        elif open_screen == "what-if":
            await pilot.press("w", "t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DashScreen)
        await pilot.press("slash", *"or")
        await settle(pilot)
        box = screen.query_one("#filter", Input)
        assert box.has_focus and box.value == "or"
        assert on_top(app, box), "the typed filter is covered"
        footer = screen.query_one(Footer)
        assert box.region.y < footer.region.y
        assert "Enter keeps" in str(screen.query_one("#filter-hint", Label).content)

        await pilot.press("enter")
        await settle(pilot)
        assert screen.filter_active and on_top(app, box) and box.value == "or"
        hint = str(screen.query_one("#filter-hint", Label).content)
        assert "Esc clears" in hint and " rows" in hint
        table = screen.filter_target()
        assert isinstance(table, VirtualTable) and table.filter_text == "or" and table.has_focus

        await pilot.press("escape")  # clears the filter, stays on the screen
        await settle(pilot)
        assert app.screen is screen and not screen.filter_active and table.filter_text == ""

    drive(scenario)


def test_filter_typed_right_after_slash_is_not_lost() -> None:
    """Keys sent in one burst (tmux, a fast typist) reach the filter, not the table (`r` refreshed)."""

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        generation = app.state.generation
        await pilot.press("slash", "o", "r", "d", "enter")
        await settle(pilot)
        topics = app.screen.query_one("#topics", VirtualTable)
        assert topics.filter_text == "ord" and topics.keys_in_view() == ["orders"]
        assert app.state.generation == generation

    drive(scenario)


# ----------------------------------------------------------------------------------------- palette
def palette_prompts(app: KafkaTuiApp) -> list[str]:
    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("orders", (TopicScreen, "orders")),
        ("payments-0", (PartitionScreen, ("payments", 0))),
        ("broker 3", (BrokerScreen, 3)),
    ],
)
def test_palette_jumps_to_a_topic_partition_or_broker(typed: str, expected: tuple[type, object]) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("colon")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        first = palette_prompts(app)
        assert first and first[0].startswith("Findings"), first  # kafkatui's own commands, not Textual's
        assert not any("screenshot" in p.lower() or "maximize" in p.lower() for p in first)
        await pilot.press(*typed)
        await pilot.pause(0.5)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot, 5)
        kind, key = expected
        screen = app.screen
        assert isinstance(screen, kind), screen
        got = {
            TopicScreen: lambda s: s.topic,
            PartitionScreen: lambda s: (s.topic, s.partition),
            BrokerScreen: lambda s: s.broker_id,
        }[kind](screen)  # type: ignore[index]
        assert got == key

    drive(scenario)


# ----------------------------------------------------------------------------------- dialog keys
def test_every_preview_has_one_key_map_with_focus_on_the_primary_action(monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[str] = []
    monkeypatch.setattr(KafkaTuiApp, "copy_to_clipboard", lambda self, text: copied.append(text))

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_topic("moved")  # moved-0 is led by 2, its preferred replica 1 is in sync: one election
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ReadOnlyScreen)
        assert app.screen.focused is not None and app.screen.focused.id == "ro-export"
        await pilot.press("enter")  # Export… (the primary action when writes are off)
        await settle(pilot)
        preview = app.screen
        assert isinstance(preview, ElectPreviewScreen)
        assert "Enter export · x export · c copy" in str(preview.query_one("#preview-box").border_subtitle)
        assert preview.focused is not None and preview.focused.id == "export-button"
        await pilot.press("enter")  # the focused primary action shows the export
        await settle(pilot)
        area = preview.query_one("#export", TextArea)
        assert area.display and "kafka-leader-election.sh" in area.text
        await pilot.press("c")  # the same copy key as the partition screen's
        await settle(pilot)
        assert copied and "kafka-leader-election.sh" in copied[-1]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TopicScreen)

        app.open_topic("orders")  # orders-2's preferred replica 3 is out of the ISR: nothing to elect or export
        await settle(pilot)
        await pilot.press("e", "enter")
        await settle(pilot)
        preview = app.screen
        assert isinstance(preview, ElectPreviewScreen)
        assert preview.focused is not None and preview.focused.id == "close"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TopicScreen) and app.screen.topic == "orders"
        assert not any("nothing to export" in str(n.message) for n in app._notifications)

    from dataclasses import replace

    from tests.model.builders import topic

    base = incident()
    moved = topic("moved", [(2, [1, 2, 3], [1, 2, 3])], min_insync_replicas="2")
    drive(scenario, make_app(replace(base, topics={**base.topics, "moved": moved})))


# ------------------------------------------------------------------------------------ age, events
def test_age_keeps_counting_while_paused_and_on_sub_screens() -> None:
    now = [FIXED]
    feed = Feed(FakeSource(incident()), bootstrap="kafka:9092", clock=lambda: FIXED)
    app = KafkaTuiApp(feed, auto_refresh=False, clock=lambda: now[0], source_label="test")

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("p")
        app.open_topic("orders")
        await settle(pilot)
        bar = app.screen.query_one(SummaryBar)
        assert "3s ago" in text_of(bar) and "PAUSED" in text_of(bar)
        now[0] = FIXED + 60
        await pilot.pause(1.3)  # the 1 s tick, no refresh (paused)
        assert "63s ago" in text_of(bar)

    drive(scenario, app)


def test_repeated_refresh_failures_collapse_into_one_line() -> None:
    from kafkatui.kafka.errors import CannotConnectError

    class Failing(FakeSource):
        calls = 0

        def snapshot(self) -> Any:
            Failing.calls += 1
            if Failing.calls > 1:
                raise CannotConnectError("cannot connect to kafka:9092: connection refused")
            return super().snapshot()

    feed = Feed(Failing(incident()), bootstrap="kafka:9092", clock=lambda: FIXED)
    app = KafkaTuiApp(feed, auto_refresh=False, clock=lambda: FIXED, source_label="test")

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        log = app.screen.query_one("#events", EventLog)
        text = "\n".join(line.text for line in log.lines)
        assert "waiting for the first snapshot" not in text and "first snapshot" in text
        for _ in range(3):
            await refreshed(pilot)
        lines = [line.text for line in log.lines if "refresh failed" in line.text]
        assert len(lines) == 1 and lines[0].rstrip().endswith("×3"), lines

    drive(scenario, app)


def test_a_failing_replay_directory_keeps_the_dialog_open(tmp_path: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.action_replay()
        await settle(pilot)
        assert isinstance(app.screen, ReplayDirPrompt)
        await pilot.press(*str(tmp_path / "nowhere"), "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReplayDirPrompt)
        assert "no such directory" in text_of(app.screen.query_one("#replay-error"))  # type: ignore[arg-type]
        await pilot.press("u")  # lands in the dialog's input, not on the dashboard's revert
        await settle(pilot)
        assert isinstance(app.screen, ReplayDirPrompt)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)

    drive(scenario)


def test_worst_topic_stays_in_view_when_the_order_changes() -> None:
    from dataclasses import replace

    from tests.model.builders import healthy, snap, topic

    first = replace(snap(*(healthy(f"t{i:02}", 2) for i in range(30)), brokers=(1, 2, 3)), taken_at=FIXED)
    later = replace(
        snap(
            *(healthy(f"t{i:02}", 2) for i in range(29)),
            topic("t29", [(-1, [1, 2, 3], [1])], min_insync_replicas="2"),
            brokers=(1, 2, 3),
        ),
        taken_at=FIXED,
    )

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        topics = app.screen.query_one("#topics", VirtualTable)
        await refreshed(pilot)
        assert topics.cursor_key == "t29" and topics.scroll_offset.y == 0

    drive(scenario, make_app(first, later))


def test_buttons_say_their_state_without_colour() -> None:
    from textual.app import App, ComposeResult

    from kafkatui.tui.widgets.marks import MarkedCheckbox, MarkedRadioButton

    class Marks(App[None]):
        def compose(self) -> ComposeResult:
            yield MarkedRadioButton("on", value=True, id="r1")
            yield MarkedRadioButton("off", value=False, id="r0")
            yield MarkedCheckbox("on", value=True, id="c1")
            yield MarkedCheckbox("off", value=False, id="c0")

    async def main() -> None:
        app = Marks()
        async with app.run_test() as pilot:
            await pilot.pause()
            shown = {w.id: str(w._button) for w in app.query("#r1, #r0, #c1, #c0")}  # type: ignore[attr-defined]
            assert shown == {"r1": "(•)", "r0": "( )", "c1": "[x]", "c0": "[ ]"}
            assert not isinstance(app.query_one("#r1"), Button)

    import asyncio

    asyncio.run(main())


# ------------------------------------------------------------------------------------------ snapshots
# 120x40 snapshots of these screens live beside their tests (test_screens, test_alter_tui,
# test_guided_tui); here each screen and every dialog also at 80x24, and the new dialogs at both.
SMALL = (80, 24)
BOTH = [pytest.param((120, 40), id="120x40"), pytest.param(SMALL, id="80x24")]


def test_snapshot_topic_80x24(snap_compare: Any) -> None:
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(make_app(), terminal_size=SMALL, run_before=snapshot_of(lambda a: a.open_topic("orders")))


def test_snapshot_partition_with_a_long_command_80x24(snap_compare: Any) -> None:
    """orders-1's broker-absent finding writes a reassignment JSON: wrapped, every character kept."""
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(
        make_app(), terminal_size=SMALL, run_before=snapshot_of(lambda a: a.open_partition("orders", 1))
    )


def test_snapshot_filter_active(snap_compare: Any) -> None:
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(make_app(), terminal_size=SMALL, press=["slash", "o", "r", "enter"], run_before=snapshot_of())


@pytest.mark.parametrize("size", BOTH)
def test_snapshot_palette(snap_compare: Any, size: tuple[int, int]) -> None:
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(make_app(), terminal_size=size, press=["colon"], run_before=snapshot_of())


@pytest.mark.parametrize("size", BOTH)
def test_snapshot_read_only_note(snap_compare: Any, size: tuple[int, int]) -> None:
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(make_app(), terminal_size=size, press=["a"], run_before=snapshot_of())


@pytest.mark.parametrize("size", BOTH)
def test_snapshot_replay_prompt_keeps_its_error(snap_compare: Any, size: tuple[int, int]) -> None:
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(
        make_app(),
        terminal_size=size,
        press=[*"/nowhere/replay-x", "enter"],
        run_before=snapshot_of(lambda a: a.action_replay()),
    )


def test_snapshot_help_80x24(snap_compare: Any) -> None:
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(make_app(), terminal_size=SMALL, press=["question_mark"], run_before=snapshot_of())


def test_snapshot_alter_wizard_80x24(snap_compare: Any) -> None:
    from kafkatui.tui.write.alter_wizard import AlterWizardScreen
    from tests.tui.test_alter_tui import fake_app, pushing
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(
        fake_app(),
        terminal_size=SMALL,
        run_before=snapshot_of(pushing(AlterWizardScreen([("topic", "orders")], incident()))),
    )


def test_snapshot_alter_preview_80x24(snap_compare: Any) -> None:
    from kafkatui.alter.plan import ChangePlan, ConfigChange
    from kafkatui.tui.write.alter_preview import AlterPreviewScreen
    from tests.tui.test_alter_tui import fake_app, pushing
    from tests.tui.test_screens import snapshot_of

    plan = ChangePlan(
        (
            ConfigChange("topic", "orders", "min.insync.replicas", "3"),
            ConfigChange("topic", "orders", "unclean.leader.election.enable", "true"),
        )
    )
    assert snap_compare(
        fake_app(),
        terminal_size=SMALL,
        press=["x"],
        run_before=snapshot_of(pushing(AlterPreviewScreen(plan, "alter topic orders"))),
    )


def test_snapshot_alter_confirmation_80x24(snap_compare: Any) -> None:
    from kafkatui.alter.plan import ChangePlan, ConfigChange
    from kafkatui.tui.write.confirm import ConfirmScreen
    from tests.tui.test_alter_tui import fake_app, pushing
    from tests.tui.test_screens import incident, snapshot_of

    plan = ChangePlan(tuple(ConfigChange("topic", t, "min.insync.replicas", "3") for t in ("orders", "payments")))
    assert snap_compare(
        fake_app(),
        terminal_size=SMALL,
        press=["1"],
        run_before=snapshot_of(pushing(ConfirmScreen(plan, "alter 2 topics", current=incident()))),
    )


def test_snapshot_election_preview_80x24(snap_compare: Any) -> None:
    from tests.tui.test_alter_tui import pushing
    from tests.tui.test_guided_tui import guided_app
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(
        guided_app(), terminal_size=SMALL, press=["x"], run_before=snapshot_of(pushing(ElectPreviewScreen(["orders"])))
    )


def test_snapshot_reassignment_plan_80x24(snap_compare: Any) -> None:
    from kafkatui.tui.write.reassign import ReassignScreen
    from tests.tui.test_guided_tui import guided_app
    from tests.tui.test_screens import snapshot_of

    def push(app: KafkaTuiApp) -> None:
        assert app.state.snapshot is not None
        app.push_screen(ReassignScreen("clicks", app.state.snapshot))

    assert snap_compare(guided_app(), terminal_size=SMALL, run_before=snapshot_of(push))


def test_snapshot_unclean_warning_80x24(snap_compare: Any) -> None:
    from kafkatui.tui.write.unclean import UncleanScreen
    from tests.tui.test_alter_tui import pushing
    from tests.tui.test_guided_tui import guided_app
    from tests.tui.test_screens import snapshot_of

    assert snap_compare(
        guided_app(), terminal_size=SMALL, run_before=snapshot_of(pushing(UncleanScreen("payments", 0)))
    )


def test_snapshot_unclean_second_confirmation_80x24(snap_compare: Any) -> None:
    from kafkatui.tui.write.unclean import UncleanScreen
    from tests.tui.test_alter_tui import pushing
    from tests.tui.test_guided_tui import guided_app
    from tests.tui.test_screens import snapshot_of

    async def second(pilot: Pilot[Any]) -> None:
        await snapshot_of(pushing(UncleanScreen("payments", 0)))(pilot)
        await pilot.click("#apply")
        await pilot.pause()
        await pilot.press(*"payments-0", "enter")
        await pilot.pause()
        await pilot.press(*"LOSE")
        await pilot.pause()

    assert snap_compare(guided_app(), terminal_size=SMALL, run_before=second)


# ---------------------------------------------------------------------------------------------- demo
def test_demo_narrator_tells_the_story_and_says_when_it_is_over(tmp_path: Path) -> None:
    from kafkatui.sim import scenario
    from kafkatui.sim.clock import VirtualClock
    from kafkatui.tui.demo import DemoNarrator

    sc = scenario.load("incident")
    narrator = DemoNarrator(scenario.ScenarioPlayer(sc, sc.build(clock=VirtualClock(manual=True))), "incident", 4.0)
    assert "about 15 min" in narrator.intro()  # 57 min of steps + 3 min settling, at x4

    story = tmp_path / "short.yaml"
    story.write_text(
        "name: short\ncluster: {brokers: 3}\ntopics:\n  - {name: orders, partitions: 3, rf: 3}\n"
        'timeline:\n  - {at: 10s, action: crash, broker: 2, note: "Broker 2 crashes"}\n'
        "  - {at: 20s, action: restore, broker: 2}\n"
    )
    sc = scenario.load(str(story))
    player = scenario.ScenarioPlayer(sc, sc.build(clock=VirtualClock(manual=True)))
    narrator = DemoNarrator(player, "short", 4.0)
    player.advance(15_000)
    assert narrator.drain() == ["demo 0:10 ▸ Broker 2 crashes"]
    assert narrator.drain() == [] and narrator.over() is None
    player.advance(60_000)
    assert narrator.drain() == ["demo 0:20 ▸ restore broker=2"] and narrator.over() is None  # still settling
    player.advance(3 * 60_000)
    over = narrator.over()
    assert over is not None and "scenario over" in over and "kafkatui --demo short" in over
    assert narrator.over() is None  # said once


def test_events_wrap_again_when_the_terminal_grows() -> None:
    """Issue 26: after a resize from 80 to 120 columns the events stayed wrapped at 80."""
    from rich.text import Text

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        log = app.screen.query_one("#events", EventLog)
        long = "orders-1 ISR [1,2,3] -> [1] (out: [2,3]) " * 3
        log.add(Text("12:00:01 " + long.strip()), key="a")
        log.add(Text("12:00:02 " + long.strip()), key="b")
        log.add(Text("12:00:02 " + long.strip()), key="b")  # a repeat: one line with ×2
        await settle(pilot)
        narrow = [line.text.rstrip() for line in log.lines]
        assert max(len(t) for t in narrow) <= 78
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        wide = [line.text.rstrip() for line in log.lines]
        assert max(len(t) for t in wide) > 80 and len(wide) < len(narrow)
        assert "".join(wide).replace(" ", "") == "".join(narrow).replace(" ", "")  # the same words, ×2 kept
        assert wide[-1].endswith("×2")
        log.add(Text("12:00:02 " + long.strip()), key="b")  # repeats still collapse after the re-wrap
        await settle(pilot)
        assert [line.text.rstrip() for line in log.lines][-1].endswith("×3")

    drive(scenario, size=(80, 24))
