"""While a refresh waits, the header says on what ("waiting on broker 3 (12 s)") rather than showing an
ageing time alone; and the counts line names partitions whose leader is down but not yet moved."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from rich.text import Text

from kafkatui.model.health import assess
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import Feed, ViewState
from kafkatui.tui.widgets.summary import summary_markup
from tests.tui.test_screens import FIXED, incident


def lines(markup: str) -> list[str]:
    return Text.from_markup(markup.replace("$", "")).plain.split("\n")


@pytest.mark.parametrize("width", [80, 120])
def test_the_header_says_what_a_slow_refresh_waits_on(width: int) -> None:
    snap = incident()
    state = ViewState(snapshot=snap, report=assess(snap))
    first, second = lines(
        summary_markup(
            state, paused=False, read_only=True, source="k", now=FIXED + 14, width=width, waiting=("broker 3", 12.4)
        )
    )
    assert "waiting on broker 3 (12 s)" in first and "s ago" in first, first
    assert len(first) <= width - 2 and second.startswith("verdict")
    quick = summary_markup(
        state, paused=False, read_only=True, source="k", now=FIXED + 3, width=width, waiting=("x", 1)
    )
    assert "waiting" not in quick  # a refresh under 2 s is not news


def test_the_feed_reports_what_its_refresh_waits_on() -> None:
    release = threading.Event()

    class Slow:
        waiting_on: str | None = None

        def snapshot(self) -> ClusterSnapshot:
            self.waiting_on = "broker 3"
            release.wait(10)
            return incident()

        def close(self) -> None:
            pass

    feed = Feed(Slow())
    assert feed.in_flight() is None
    t = threading.Thread(target=feed.refresh)
    t.start()
    try:
        for _ in range(200):
            got = feed.in_flight()
            if got is not None and got[0] == "broker 3":
                break
            threading.Event().wait(0.01)
        assert got is not None and got[0] == "broker 3" and got[1] >= 0
    finally:
        release.set()
        t.join(10)
    assert feed.in_flight() is None


def test_the_counts_name_partitions_whose_leader_is_down_not_moved() -> None:
    snap = incident()
    leader = next(p.leader for t in snap.topics.values() for p in t.partitions if p.leader > 0)
    killed = replace(snap, refused=frozenset({leader}))
    report = assess(killed)
    assert report.counts.leader_refused > 0
    state = ViewState(snapshot=killed, report=report)
    for width, word in ((80, "ldr down"), (120, "leader down")):
        _, second = lines(summary_markup(state, paused=False, read_only=True, source="k", now=FIXED, width=width))
        assert f"⊘ {report.counts.leader_refused} {word}" in second, second
        assert len(second) <= width - 2, second
