"""The replay launcher driven as a user would: `d`, the defaults, a REAL `kafkatui replay` child
process with a local Spark JVM, its progress, the landing, cancel and failure; SVG snapshots.

The recorded day is small (through the real Recorder): orders-0 loses broker 3, then broker 2 (under
min ISR) 20 minutes before "now" (the app's fixed clock), and is still under min ISR when the replay
is launched, so the incident is ongoing where the recording ends (now)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.widgets import Input, Static

from kafkatui.history.record.recorder import Recorder
from kafkatui.history.replay.launch import pid_alive
from kafkatui.history.replay.spark_session import find_java
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.launcher import LauncherScreen, Progress, ProgressScreen
from kafkatui.tui.screens.replay import ReplayScreen
from kafkatui.tui.widgets.vtable import VirtualTable
from tests.ci import cannot_run
from tests.history.replay_days import base, with_isr
from tests.tui.test_screens import FIXED, FakeSource, incident
from tests.tui.waits import WAIT

SIZE = (120, 40)
JOB_S = 900.0  # a JVM start on a loaded 2-core machine: a bound, not a target (bench/ has the figures)
SNAP = Path("/tmp/kafkatui-launcher-snap")  # fixed paths: the snapshots show them


def record_day(history: Path) -> None:
    """orders-0: broker 3 out at now-20 min, broker 2 out 10 s later; nothing after (the end: now)."""
    rec = Recorder(history)
    s = dataclasses.replace(base(), taken_at=FIXED - 1800)
    rec.record(s)
    s = with_isr(s, 0, (1, 2), FIXED - 1200)
    rec.record(s)
    rec.record(with_isr(s, 0, (1,), FIXED - 1190))


def make_app(history: Path) -> KafkaTuiApp:
    feed = Feed(FakeSource(incident()), bootstrap="kafka:9092", clock=lambda: FIXED)
    return KafkaTuiApp(feed, refresh_seconds=0.5, clock=lambda: FIXED, source_label="test", history_dir=history)


async def wait_until(pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.2)  # not pilot.pause: on a loaded machine its wait for idle times out
    return predicate()


def brokers_cursor(app: KafkaTuiApp) -> int | None:
    """The Replay screen's brokers cursor, None while the screen is still being composed."""
    try:
        key: int | None = app.screen.query_one("#brokers", VirtualTable).cursor_key
    except NoMatches:
        return None
    return key


def notes(app: KafkaTuiApp) -> list[str]:
    return [str(n.message) for n in app._notifications]  # noqa: SLF001


@pytest.fixture
def java() -> None:
    if find_java() is None:
        cannot_run("no Java: the replay job needs a JDK 17+")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "kafkatui" / "replays"


@pytest.mark.timeout(1800)
def test_launch_shows_progress_and_lands_on_the_first_incident(java: None, state: Path, tmp_path: Path) -> None:
    history = tmp_path / "history"
    record_day(history)
    app = make_app(history)
    seen: list[tuple[str, int, int]] = []

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("d")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, LauncherScreen)
            fields = form.fields()
            assert (fields.day, fields.sources, fields.master) == ("2023-11-14", str(history), "local[2]")
            assert Path(fields.out).parent == state
            await pilot.press("enter")  # the defaults
            await pilot.pause()
            assert isinstance(app.screen, ProgressScreen)
            generation = app.state.generation

            def landed() -> bool:
                p = app.replay_jobs.progress
                if p is not None and (not seen or seen[-1] != (p.stage, p.tasks_done, p.tasks_total)):
                    seen.append((p.stage, p.tasks_done, p.tasks_total))
                return isinstance(app.screen, ReplayScreen)

            assert await wait_until(pilot, landed, JOB_S), notes(app)
            # the dashboard went on refreshing while the job ran
            assert app.state.generation > generation + 2
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            first = screen.data.summary.incidents[0]
            assert first.start_ms == int((FIXED - 1190) * 1000) and first.first_broker_out == 3
            assert first.ongoing  # still under min ISR where the recording ends: now
            assert screen.data.summary.recording_ends == (int(FIXED * 1000),)
            assert screen.minute == screen.data.minute_of(first.start_ms)
            assert await wait_until(pilot, lambda: brokers_cursor(app) == 3, 30)
            assert await wait_until(pilot, lambda: any("broker 3 out first" in n for n in notes(app)), WAIT)

    asyncio.run(run())
    stages = {s for s, _, _ in seen}
    assert {"read inputs", "aggregate"} <= stages, seen
    assert any(total > 0 for _, _, total in seen), seen  # Spark's tasks, counted


@pytest.mark.timeout(1800)
def test_cancel_ends_the_jvm_and_keeps_no_output(java: None, state: Path, tmp_path: Path) -> None:
    history = tmp_path / "history"
    record_day(history)
    app = make_app(history)

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("d", "enter")
            jobs = app.replay_jobs
            assert await wait_until(pilot, lambda: jobs.launch is not None and jobs.launch.jvm_pid is not None, JOB_S)
            assert jobs.launch is not None and jobs.launch.jvm_pid is not None
            pid, out = jobs.launch.jvm_pid, jobs.launch.spec.out
            assert pid_alive(pid)
            await pilot.press("escape")  # hide the panel: the job goes on
            await pilot.pause()
            await pilot.press("d")  # a second launch is refused in one line, the panel shows again
            await pilot.pause()
            assert await wait_until(pilot, lambda: any("already running" in n for n in notes(app)), WAIT)
            assert all("\n" not in n for n in notes(app))
            assert isinstance(app.screen, ProgressScreen)
            await pilot.press("c")
            assert await wait_until(pilot, lambda: not jobs.busy, 60)
            assert jobs.last is not None and jobs.last.cancelled
            assert not pid_alive(pid)
            assert not out.exists()  # nothing left for a later --replay to take for a result
            assert not isinstance(app.screen, ReplayScreen)

    asyncio.run(run())


def failing_app() -> KafkaTuiApp:
    """No recording that day: the job refuses at once (no JVM), with paths the snapshot may show."""
    shutil.rmtree(SNAP, ignore_errors=True)
    return make_app(SNAP / "history")


@pytest.fixture
def snap_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(SNAP / "state"))


def test_a_failure_is_one_line_with_the_log(snap_state: None) -> None:
    app = failing_app()
    (SNAP / "history").mkdir(parents=True)

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("d", "enter")
            assert await wait_until(pilot, lambda: any(n.startswith("replay failed:") for n in notes(app)), 120)
            failed = [n for n in notes(app) if n.startswith("replay failed:")]
            assert len(failed) == 1 and "\n" not in failed[0]
            assert "no ISR history for 2023-11-14" in failed[0]
            log = str(SNAP / "state" / "kafkatui" / "replays" / "2023-11-14-at-221320.log")
            assert f"(log: {log})" in failed[0]
            assert Path(log).read_text().startswith("kafkatui replay: error: no ISR history")
            assert app.state.generation > 0 and not isinstance(app.screen, ReplayScreen)  # the dashboard goes on

    asyncio.run(run())


async def dashboard_up(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, KafkaTuiApp)
    assert await wait_until(pilot, lambda: app.state.snapshot is not None, 20)
    await pilot.pause()


def test_snapshot_launcher(snap_state: None, snap_compare: Any) -> None:
    async def open_it(pilot: Pilot[Any]) -> None:
        await dashboard_up(pilot)
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(failing_app(), terminal_size=SIZE, run_before=open_it)


def test_snapshot_launcher_80x24(snap_state: None, snap_compare: Any) -> None:
    async def open_it(pilot: Pilot[Any]) -> None:
        await dashboard_up(pilot)
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(failing_app(), terminal_size=(80, 24), run_before=open_it)


def test_snapshot_progress(snap_state: None, snap_compare: Any) -> None:
    async def show(pilot: Pilot[Any]) -> None:
        await dashboard_up(pilot)
        app = pilot.app
        assert isinstance(app, KafkaTuiApp)
        progress = Progress(
            "replaying 2023-11-14 (today, up to now) on local[2] → /tmp/replays/2023-11-14-at-221320",
            step=1,
            stage="build intervals",
            detail="1,234 events",
            tasks_done=3,
            tasks_total=8,
            elapsed_s=17.4,
        )
        app.push_screen(ProgressScreen(progress))
        await pilot.pause()

    assert snap_compare(failing_app(), terminal_size=SIZE, run_before=show)


def test_snapshot_error(snap_state: None, snap_compare: Any) -> None:
    async def fail(pilot: Pilot[Any]) -> None:
        await dashboard_up(pilot)
        (SNAP / "history").mkdir(parents=True, exist_ok=True)
        await pilot.press("d", "enter")
        app = pilot.app
        assert isinstance(app, KafkaTuiApp)
        assert await wait_until(pilot, lambda: any("replay failed" in n for n in notes(app)), 120)
        await pilot.pause()

    assert snap_compare(failing_app(), terminal_size=SIZE, run_before=fail)


def test_replay_without_out_opens_the_launcher(snap_state: None, tmp_path: Path) -> None:
    from kafkatui.tui.cmd import LAUNCHER, add_tui_arguments

    p = argparse.ArgumentParser()
    add_tui_arguments(p)
    assert p.parse_args(["--replay"]).replay == LAUNCHER
    assert p.parse_args(["--replay", "out"]).replay == Path("out")
    app = KafkaTuiApp(None, auto_refresh=False, clock=lambda: FIXED, history_dir=tmp_path, launch_replay=True)

    async def run() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert await wait_until(pilot, lambda: isinstance(app.screen, LauncherScreen), 10)
            screen = app.screen
            assert isinstance(screen, LauncherScreen)
            assert screen.fields().sources == str(tmp_path)
            await pilot.press("ctrl+a")  # the day field: a day to come is refused, the form stays
            screen.query_one("#day", Input).value = "2099-01-01"
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, LauncherScreen)
            assert "that day has not come yet" in str(screen.query_one("#launch-error", Static).content)

    asyncio.run(run())


def footer_keys(app: KafkaTuiApp) -> list[str]:
    from textual.widgets._footer import FooterKey

    return [f"{k.key_display} {k.description}".strip() for k in app.screen.query(FooterKey) if k.display]


def test_the_launcher_key_is_in_the_footer_at_80_columns(snap_state: None) -> None:
    """At 80x24 the overview's footer was cut before its last key, `d replay`: longer descriptions shorten
    first (palette -> cmd, findings -> find), and at 120 columns they are whole again."""
    app = failing_app()

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await dashboard_up(pilot)
            keys = footer_keys(app)
            assert keys[-1] == "d replay" and {"q quit", "w what-if", "f find", ": cmd"} <= set(keys), keys
            assert sum(len(k) + 1 for k in keys) - 1 <= 80
            await pilot.resize_terminal(120, 40)
            assert await wait_until(pilot, lambda: ": palette" in footer_keys(app), 5), footer_keys(app)
            assert {"f findings", "d replay"} <= set(footer_keys(app))

    asyncio.run(run())


def test_the_recording_end_leads_the_caption_at_80_columns(tmp_path: Path) -> None:
    """Landed at 80x24, the incidents' caption was cut before "the recording ends at": the end comes first."""
    from kafkatui.history.view.data import ReplayData
    from tests.history.replay_fixture import incident_day

    data = ReplayData.load(incident_day(tmp_path / "out"))
    last = data.summary.incidents[-1]
    end = last.start_ms + 60_000
    data.summary = dataclasses.replace(
        data.summary,
        incidents=(*data.summary.incidents[:-1], dataclasses.replace(last, end_ms=end, ongoing=True)),
        recording_ends=(end,),
    )
    app = KafkaTuiApp(None, replay=data, auto_refresh=False, clock=lambda: FIXED)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ReplayScreen)
            caption = app.screen.query_one("#incidents-caption", Static)
            shown = str(caption.content)[: caption.size.width]
            assert shown.startswith("⏹ the recording ends at ") and "(an incident ongoing there)" in shown, shown

    asyncio.run(run())
