"""The dashboard against a running simulator: a broker crashes mid-session and the view follows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual.widgets import RichLog

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.sim.runner import SimRunner
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.help import HelpScreen
from tests.tui.waits import WAIT


def make_app(sim: SimRunner, refresh: float = 0.5) -> KafkaTuiApp:
    source = KafkaClusterSource(ConnectionSettings(bootstrap=tuple(sim.bootstrap.split(",")), timeout=3.0))
    return KafkaTuiApp(Feed(source, bootstrap=sim.bootstrap), refresh_seconds=refresh, source_label="test")


async def wait_until(pilot: object, predicate: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await pilot.pause(0.1)  # type: ignore[attr-defined]
    return predicate()


def events_text(app: KafkaTuiApp) -> str:
    log = app.screen.query_one("#events", RichLog)
    return "\n".join(line.text for line in log.lines)


def test_broker_crash_mid_session_shows_within_a_refresh(sim_factory: Callable[..., SimRunner]) -> None:
    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("orders", 6, 3, configs={"min.insync.replicas": "2"}))
    app = make_app(sim)

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await wait_until(pilot, lambda: app.state.report is not None)
            assert app.state.report is not None and app.state.report.counts.brokers_up == 3
            sim.crash(3)
            assert await wait_until(
                pilot, lambda: app.state.report is not None and app.state.report.counts.brokers_up == 2
            )
            # down at once (it refuses connections), whether or not the controller fenced it yet
            assert "(down: 3)" in str(app.screen.query_one("#summary").render())
            assert await wait_until(pilot, lambda: app.state.report.counts.at_min_isr == 6)
            counts = app.state.report.counts
            assert counts.at_min_isr == 6 and counts.under_min_isr == 0
            assert await wait_until(pilot, lambda: "broker 3 left the cluster metadata" in events_text(app), WAIT)
            # the UI answers keys while refreshes (every 0.5 s) run in a worker thread: the help opens
            # at once; the bound is a freeze guard, loose enough for a loaded CI machine
            started = time.monotonic()
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            assert time.monotonic() - started < 3.0
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)

    asyncio.run(scenario())
    app.feed.close()


def test_cluster_gone_keeps_data_marked_stale_and_recovers(sim_factory: Callable[..., SimRunner]) -> None:
    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    app = make_app(sim)

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await wait_until(pilot, lambda: app.state.report is not None)
            for b in (1, 2, 3):
                sim.hang(b)
            assert await wait_until(pilot, lambda: app.state.stale, 30)
            assert app.state.snapshot is not None  # the last data stays on screen
            summary = str(app.screen.query_one("#summary").render())
            assert "STALE" in summary
            for b in (1, 2, 3):
                sim.restore(b)
            assert await wait_until(pilot, lambda: not app.state.stale and app.state.error is None, 60)

    asyncio.run(scenario())
    app.feed.close()


def test_every_screen_and_key_against_the_simulator(sim_factory: Callable[..., SimRunner]) -> None:
    from kafkatui.tui.screens.broker import BrokerScreen
    from kafkatui.tui.screens.findings import FindingsScreen
    from kafkatui.tui.screens.overview import OverviewScreen
    from kafkatui.tui.screens.partition import PartitionScreen
    from kafkatui.tui.screens.topic import TopicScreen
    from kafkatui.tui.screens.whatif import WhatIfScreen
    from kafkatui.tui.widgets.vtable import VirtualTable

    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("orders", 6, 3, configs={"min.insync.replicas": "2"}))
    sim.call(lambda c: c.create_topic("audit", 2, 3))
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[3].fenced, 10)
    app = make_app(sim, refresh=30.0)

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await wait_until(pilot, lambda: app.state.report is not None)
            await pilot.pause()
            overview = app.screen
            assert isinstance(overview, OverviewScreen)
            topics = overview.query_one("#topics", VirtualTable)
            assert topics.cursor_key in ("orders", "audit")
            # sort and filter
            await pilot.press("s")
            assert topics.sort_column is not None
            await pilot.press("S")
            await pilot.press("slash", *"ord", "enter")
            assert topics.visible_count == 1 and topics.cursor_key == "orders"
            # drill down: topic -> partition
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, PartitionScreen)
            await pilot.press("escape", "escape")
            await pilot.pause()
            assert isinstance(app.screen, OverviewScreen)
            # broker screen
            await pilot.press("b", "enter")
            await pilot.pause()
            assert isinstance(app.screen, BrokerScreen)
            await pilot.press("escape")
            # what-if: take broker 1 down on top of the crashed 3
            await pilot.press("w")
            await pilot.pause()
            assert isinstance(app.screen, WhatIfScreen)
            await pilot.press("space")
            await pilot.pause()
            result = app.screen.result  # type: ignore[attr-defined]
            assert result is not None and not result.safe
            await pilot.press("escape")
            # findings
            await pilot.press("f")
            await pilot.pause()
            assert isinstance(app.screen, FindingsScreen)
            await pilot.press("escape")
            # refresh now, pause, command palette
            generation = app.state.generation
            await pilot.press("r")
            assert await wait_until(pilot, lambda: app.state.generation > generation, 10)
            await pilot.press("p")
            assert app.paused
            await pilot.press("p")
            assert not app.paused
            await pilot.press("colon")
            await pilot.pause()
            assert app.screen.__class__.__name__ == "CommandPalette"
            await pilot.press("escape")

    asyncio.run(scenario())
    app.feed.close()
