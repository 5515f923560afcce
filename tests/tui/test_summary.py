"""The summary bar keeps its two lines at 80 columns, and a broker refusing connections is down at once.

A broker killed a moment ago stays in the metadata until the controller fences it; the bar, the
broker table and the broker screen show it down from the first refresh that finds its port refused.
The bar's first line shortens (clock time, controller, counts, the STALE error) rather than wrap:
a wrapped line pushed the verdict off the bar at 80x24 when PARTIAL and a down broker came together.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from rich.text import Text

from kafkatui.model.health import assess
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import ViewState
from kafkatui.tui.screens.broker import BrokerScreen
from kafkatui.tui.widgets.summary import summary_markup
from kafkatui.tui.widgets.vtable import VirtualTable
from tests.tui.test_screens import FIXED, incident, make_app, ready, screen_text, snapshot_of

LONG_ERROR = "cannot connect to kafka-1.example.internal:9092: connection refused (3 of 3 bootstrap servers failing)"


def refusing(s: ClusterSnapshot | None = None) -> ClusterSnapshot:
    """The incident, read while broker 2 (listed) refused connections: PARTIAL, broker 2 down."""
    s = s or incident()
    problem = (
        "configs of broker 2 unreadable: connection refused: the broker is down (listed until the controller fences it)"
    )
    return replace(s, refused=frozenset({2}), partial=True, problems=(problem,))


def lines(markup: str) -> list[str]:
    return Text.from_markup(markup.replace("$", "")).plain.split("\n")


@pytest.mark.parametrize("width", [80, 100, 120, 160])
@pytest.mark.parametrize("stale", [False, True])
@pytest.mark.parametrize("paused", [False, True])
@pytest.mark.parametrize("read_only", [False, True])
def test_the_first_line_fits_and_the_verdict_stays_second(
    width: int, stale: bool, paused: bool, read_only: bool
) -> None:
    snap = refusing(replace(incident(), cluster_id="a-cluster-id-of-22-chrs"))
    report = assess(snap)
    state = ViewState(snapshot=snap, report=report, error=LONG_ERROR if stale else None, failures=3 if stale else 0)
    first, second = lines(
        summary_markup(state, paused=paused, read_only=read_only, source="kafka:9092", now=FIXED + 75, width=width)
    )
    assert len(first) <= width - 2, first
    assert second.startswith("verdict")
    assert "brokers 2/4 (down: 2,4)" in first  # 4 absent, 2 refusing connections
    assert ("read-only" if read_only else "WRITES ON") in first
    assert ("PAUSED" in first) == paused
    if stale:  # the error comes first; PARTIAL (of the old data) may give way
        assert "STALE 78s" in first and "cannot connect" in first
        assert width < 120 or "cannot connect to kafka-1.example" in first
        assert width < 100 or "(see events)" in first  # where the whole message is
        assert "retry in 0s" in first or "↻0s" in first
    else:
        assert "PARTIAL" in first
        assert width < 160 or ("ctrl" in first and "@" in first)  # room for everything


def test_a_refusing_broker_is_down_in_the_bar_the_table_and_its_screen() -> None:
    app = make_app(refusing())

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            text = screen_text(app)
            assert "(down: 2,4)" in text and "PARTIAL" in text and "verdict" in text
            brokers = app.screen.query_one("#brokers", VirtualTable)
            brokers.focus()
            assert brokers.move_cursor_to(2)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, BrokerScreen)
            assert "✖ DOWN: refuses connections; listed until the controller fences it" in screen_text(app)

    asyncio.run(scenario())


@pytest.mark.parametrize("width", [80, 120, 160])
def test_the_brokers_kafka_line_shows_where_it_fits(width: int) -> None:
    from kafkatui.model.rules import KRAFT, KafkaVersion

    snap = replace(incident(), kafka=KafkaVersion((3, 7), (3, 9), KRAFT, 3))
    state = ViewState(snapshot=snap, report=assess(snap))
    first, _ = lines(summary_markup(state, paused=False, read_only=True, source="k:9092", now=FIXED + 5, width=width))
    assert len(first) <= width - 2, first
    assert ("Kafka 3.7-3.9 (KRaft)" in first) == (width >= 120), first  # wide bars only; the first to go
    unknown = ViewState(snapshot=incident(), report=assess(incident()))
    assert "Kafka" not in lines(summary_markup(unknown, paused=False, read_only=True, source="k", width=width))[0]


def test_snapshot_refusing_broker_at_80x24(snap_compare: Any) -> None:
    assert snap_compare(make_app(refusing()), terminal_size=(80, 24), run_before=snapshot_of())


def _open_broker_2(app: KafkaTuiApp) -> None:
    app.push_screen(BrokerScreen(2))


def test_snapshot_refusing_broker_screen(snap_compare: Any) -> None:
    assert snap_compare(make_app(refusing()), terminal_size=(120, 40), run_before=snapshot_of(_open_broker_2))
