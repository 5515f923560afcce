"""Issue 27's "done when", as a user does it on real Kafka: the dashboard records a lab (into a temp
history directory, a refresh a second), a broker crashes, and after the next recorded refresh the user
presses `d` and accepts the launcher's defaults. A real `kafkatui replay` child process (local Spark)
runs on today up to now, and the dashboard lands on the Replay screen at that crash: the crashed broker
first out, under the brokers' cursor, the incident ongoing and the end of the recording marked."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from kafkatui.history.record.recorder import Recorder
from kafkatui.history.replay.spark_session import find_java
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.lab.cluster import LabCluster
from kafkatui.model.health import Health
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.launcher import LauncherScreen
from kafkatui.tui.screens.replay import ReplayScreen
from kafkatui.tui.screens.replay_drill import clock
from tests.ci import cannot_run
from tests.lab.support import create_topic, describe, wait_for
from tests.tui.test_launcher import brokers_cursor, wait_until

JOB_S = 600.0  # a JVM start on a loaded 2-core machine: a bound, not a target (bench/launcher.py has figures)
CRASHED = 2


def under_min_isr(app: KafkaTuiApp, topic: str) -> bool:
    report = app.state.report
    t = report.topics.get(topic) if report is not None else None
    return t is not None and t.count(Health.UNDER_MIN_ISR) > 0


def test_d_after_a_broker_crash_lands_on_that_crash(
    full_lab: LabCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if find_java() is None:
        cannot_run("no Java: the replay job needs a JDK 17+")
    lab = full_lab
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the launcher's default output goes there
    create_topic(lab, "launched", 1, rf=2, min_isr=2, assignment=[[1, CRASHED]])
    history = tmp_path / "history"
    source = KafkaClusterSource(
        ConnectionSettings(bootstrap=tuple(lab.bootstrap.split(",")), timeout=5.0), log_dirs="out-of-sync"
    )
    feed = Feed(source, bootstrap=lab.bootstrap, recorder=Recorder(history))  # as `kafkatui -b` builds it
    app = KafkaTuiApp(feed, refresh_seconds=1.0, source_label="lab")
    marks: dict[str, float] = {}

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await wait_until(pilot, lambda: app.state.report is not None, 60), "the dashboard's first refresh"
            marks["crash"] = time.time()
            lab.crash(str(CRASHED))
            assert await wait_until(pilot, lambda: under_min_isr(app, "launched"), 90), (
                "launched-0 under minISR on screen"
            )
            seen = app.state.generation
            assert await wait_until(pilot, lambda: app.state.generation > seen, 30), "one more refresh, recorded"
            await pilot.press("d")
            assert await wait_until(pilot, lambda: isinstance(app.screen, LauncherScreen), 10)
            marks["launch"] = time.time()
            t0 = time.monotonic()
            await pilot.press("enter")  # the defaults: today up to now, this recording, local[2], a new OUT
            assert await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), JOB_S), [
                str(n.message)
                for n in app._notifications  # noqa: SLF001
            ]
            marks["landed_s"] = time.monotonic() - t0
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            summary = screen.data.summary
            assert summary.day == time.strftime("%Y-%m-%d", time.gmtime(marks["launch"]))
            first = summary.incidents[0]
            # at that crash: after it, before the launch; broker 2 out first, still out when the recording ends
            assert marks["crash"] * 1000 <= first.start_ms <= marks["launch"] * 1000, (marks, first)
            assert first.first_broker_out == CRASHED and first.ongoing, first
            assert screen.minute == screen.data.minute_of(first.start_ms)
            assert await wait_until(pilot, lambda: brokers_cursor(app) == CRASHED, 30)
            # the end of the recording: when the job was launched, said over the incidents
            (end,) = summary.recording_ends
            assert marks["launch"] * 1000 - 5000 <= end <= time.time() * 1000, (marks, end)
            caption = str(screen.query_one("#incidents-caption", Static).content)
            assert f"the recording ends at {clock(end, False)}" in caption and "ongoing" in caption, caption

    try:
        asyncio.run(scenario())
    finally:
        feed.close()
        lab.restore(str(CRASHED))
        wait_for("launched-0 whole again", lambda: len(describe(lab, "launched")[0]["isr"]) == 2, 120)
    print(f"\nkey press to the Replay screen on a real lab: {marks.get('landed_s', float('nan')):.1f} s")
