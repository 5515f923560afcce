"""Faults injected into the simulator while the dashboard runs (Pilot) and records ISR history.

Every case runs the same script: the dashboard is up on a healthy cluster, a fault is injected, the
fault holds for a few refreshes, the cluster is repaired. Each case asserts what the user sees:

* no exception reaches the user (the app is still running, no crash, no "internal error");
* keys are answered within `KEY_BUDGET` while the fault holds (all but one; none as slow as `SCREEN_BUDGET`; a
  refresh is in flight meanwhile);
* while the cluster cannot be read at all, the data on screen is marked STALE with its age by the
  first refresh that starts after the fault; while it can, the view shows the fault's effect within
  one refresh (of the simulator reflecting it);
* the view shows the repaired cluster within two refreshes of it being repaired;
* and that nothing is lost: every refresh matches the simulator's event log, the recording replays to
  every refresh, and each outage is one explicit gap record (see `tests.faults.harness`).
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from kafkatui.history.record.recorder import Recorder
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import PROBE_SECONDS, KafkaClusterSource
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.events import EventKind
from kafkatui.sim.runner import SimRunner
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from tests.faults.harness import (
    TimedSource,
    Truth,
    check_recording,
    check_snapshots_against_truth,
    snapshot_state,
)

REFRESH = 0.5  # the dashboard's refresh interval (its minimum)
TIMEOUT = 1.5  # the client timeout (--timeout)
KEY_BUDGET = 0.1  # a key press must change the screen within this
SCREEN_BUDGET = 1.0  # opening or closing a screen: Textual builds, styles and repaints it (60-380 ms here
# with or without a fault; up to 1.03 s on a 2-core machine under load 9); below TIMEOUT, so a network wait
# on the UI thread (at least TIMEOUT) still fails it
SLACK = 0.5  # scheduling slack on a busy 2-core machine
HOLD = 2.5  # how long a fault holds after its effect shows
ATTEMPT_MAX = TIMEOUT + PROBE_SECONDS + SLACK  # the longest one refresh may take


@dataclass(frozen=True)
class Fault:
    """A fault: how to inject and repair it, and what the user should see meanwhile."""

    name: str
    inject: Callable[[SimRunner], None]
    repair: Callable[[SimRunner], None]
    outage: bool = False  # the cluster cannot be read at all: STALE expected
    bootstrap: tuple[int, ...] = (1, 2, 3)  # brokers named in --bootstrap
    down: int | None = None  # the broker the view should show as down during the fault
    partial: str | None = None  # a problem line the view should show (PARTIAL) during the fault
    hold: float = HOLD
    complete: bool = False  # every refresh during the fault reads everything (no PARTIAL)


def _all(action: str) -> Callable[[SimRunner], None]:
    def run(sim: SimRunner) -> None:
        for b in (1, 2, 3):
            getattr(sim, action)(b)

    return run


class Churn:
    """Moves every partition's leader to the next in-sync replica once a second, on a thread."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0

    def start(self, sim: SimRunner) -> None:
        def step(c: SimCluster) -> None:
            for p in list(c.partitions()):
                if len(p.isr) > 1:
                    c.move_leader(p.topic, p.index, p.isr[(p.isr.index(p.leader) + 1) % len(p.isr)])

        def run() -> None:
            while not self._stop.wait(1.0):
                sim.call(step)
                self.rounds += 1

        self._thread = threading.Thread(target=run, name="churn", daemon=True)
        self._thread.start()

    def stop(self, sim: SimRunner) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        sim.call(lambda c: c.elect_leaders(0, None))  # preferred leaders back


_CHURNS: dict[int, Churn] = {}


def _churn_start(sim: SimRunner) -> None:
    _CHURNS.setdefault(id(sim), Churn()).start(sim)


def _churn_stop(sim: SimRunner) -> None:
    _CHURNS.pop(id(sim)).stop(sim)


FAULTS = [
    # --bootstrap names broker 3 only; the client has learnt the others from the metadata
    Fault("bootstrap-broker-crashes", lambda s: s.crash(3), lambda s: s.restore(3), bootstrap=(3,), down=3),
    Fault("controller-crashes", lambda s: s.crash(1), lambda s: s.restore(1), down=1),
    Fault("all-brokers-crash-and-return", _all("crash"), _all("restore"), outage=True),
    Fault("one-broker-hangs", lambda s: s.hang(2), lambda s: s.restore(2), down=2),
    Fault("controller-hangs", lambda s: s.hang(1), lambda s: s.restore(1), down=1),
    Fault("all-brokers-hang", _all("hang"), _all("restore"), outage=True),
    # a snapshot reads the metadata, then the configs (broker configs from each broker itself), in one
    # --timeout: a broker answering every request in 0.35 x timeout still lets both fit, so nothing may be
    # missing; at 1.2 x timeout its configs cannot arrive, so the view must say PARTIAL and name it. (At
    # 0.45 x, two answers left 0.15 s for everything else, and one refresh in a fresh-clone run at load 7-10
    # did not fit: the margin is for the machine, the claim is the same.)
    Fault(
        "slow-just-under-timeout", lambda s: s.delay_responses(2, TIMEOUT * 0.35), lambda s: s.restore(2), complete=True
    ),
    Fault(
        "slow-just-over-timeout",
        lambda s: s.delay_responses(2, TIMEOUT * 1.2),
        lambda s: s.restore(2),
        partial="broker 2",
    ),
    Fault("network-cut-isolates-one-broker", lambda s: s.isolate(3), lambda s: s.restore(3), down=3),
    Fault("leadership-churns-every-second", _churn_start, _churn_stop, hold=4.0),
]


def summary_text(app: KafkaTuiApp) -> str:
    from kafkatui.tui.screens.overview import OverviewScreen

    screen = next(s for s in app.screen_stack if isinstance(s, OverviewScreen))
    return str(screen.query_one("#summary").render())


async def until(predicate: Callable[[], bool], timeout: float) -> float | None:
    """Wall time at which `predicate` first held (sampled every 10 ms), or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return time.time()
        await asyncio.sleep(0.01)
    return None


def send_key(app: KafkaTuiApp, key: str, char: str | None) -> None:
    """Deliver a key as the terminal driver does (Pilot's `press` also waits for the process to go idle,
    which a busy refresh thread delays: that would measure the test, not the dashboard)."""
    event = events.Key(key, char)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def reacted_within(app: KafkaTuiApp, key: str, char: str | None, done: Callable[[], bool]) -> float:
    start = time.perf_counter()
    send_key(app, key, char)
    while not done():
        await asyncio.sleep(0.001)
        assert time.perf_counter() - start < 10, f"no reaction to {key}"
    return time.perf_counter() - start


async def key_latencies(pilot: Pilot[None], app: KafkaTuiApp) -> tuple[list[float], list[float]]:
    """Seconds from a key reaching the app to the screen reacting.

    Keys within the overview: `p` pauses and resumes (the summary bar says PAUSED), Down and Up move
    the topics cursor. Screen changes, timed apart: `?` opens help (built and mounted), Esc closes it;
    the work a screen change leaves behind (styling the footer) is let finish before the next round.
    """
    from kafkatui.tui.screens.help import HelpScreen
    from kafkatui.tui.widgets.vtable import VirtualTable

    topics = app.screen.query_one("#topics", VirtualTable)
    if not topics.has_focus:
        await reacted_within(app, "t", "t", lambda: topics.has_focus)
    row = topics.cursor_row
    there, back = ("down", "up") if row == 0 else ("up", "down")
    keys = [
        await reacted_within(app, "p", "p", lambda: "PAUSED" in summary_text(app)),
        await reacted_within(app, "p", "p", lambda: "PAUSED" not in summary_text(app)),
        await reacted_within(app, there, None, lambda: topics.cursor_row != row),
        await reacted_within(app, back, None, lambda: topics.cursor_row == row),
    ]
    screens = [
        await reacted_within(
            app, "question_mark", "?", lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted
        ),
        await reacted_within(app, "escape", None, lambda: not isinstance(app.screen, HelpScreen)),
    ]
    await pilot.pause()
    return keys, screens


def healthy(c: SimCluster) -> bool:
    return all(not b.fenced for b in c.brokers.values()) and all(
        p.leader != -1 and len(p.isr) == len(p.replicas) for p in c.partitions()
    )


def sim_state(sim: SimRunner) -> object:
    return sim.call(
        lambda c: (
            {(p.topic, p.index): (p.leader, tuple(p.isr)) for p in c.partitions()},
            frozenset(b.id for b in c.brokers.values() if not b.fenced),
        )
    )


def cluster(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("orders", 6, 3, configs={"min.insync.replicas": "2"}))
    sim.call(lambda c: c.create_topic("audit", 3, 3))
    return sim


def dashboard(sim: SimRunner, brokers: tuple[int, ...], history: Path) -> tuple[KafkaTuiApp, TimedSource, Feed]:
    """The dashboard as `kafkatui --bootstrap` builds it (recording history), on a timed source."""
    ports = dict(zip((1, 2, 3), sim.bootstrap.split(","), strict=True))
    bootstrap = tuple(ports[b] for b in brokers)
    inner = KafkaClusterSource(ConnectionSettings(bootstrap=bootstrap, timeout=TIMEOUT), log_dirs="out-of-sync")
    source = TimedSource(inner)
    feed = Feed(source, bootstrap=",".join(bootstrap), recorder=Recorder(history))
    return KafkaTuiApp(feed, refresh_seconds=REFRESH, source_label="faults"), source, feed


def run_dashboard(scenario: Callable[[], Coroutine[Any, Any, None]], source: TimedSource, feed: Feed) -> None:
    """Run the Pilot `scenario`; then, even if it failed, let the refresh in flight land and close the feed."""
    try:
        asyncio.run(scenario())
    finally:
        source.wait_idle(feed)
        feed.close()


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_fault_while_the_dashboard_runs(fault: Fault, sim_factory: Callable[..., SimRunner], tmp_path: Path) -> None:
    sim = cluster(sim_factory)
    app, source, feed = dashboard(sim, fault.bootstrap, tmp_path)
    truth = Truth.attach(sim)
    latencies: list[float] = []
    screen_latencies: list[float] = []
    errors: list[str] = []
    marks: dict[str, float] = {}

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await until(lambda: app.state.report is not None and not app.state.stale, 20)
            assert "STALE" not in summary_text(app)
            await key_latencies(pilot, app)  # warm up: the first help screen imports and styles its module
            if fault.complete:
                # the claim is a running dashboard's, its connections up: a client's first connection to a slow
                # broker pays its delay per round trip (ApiVersions, then the request). Injected right after the
                # first read (1 run in 10 at load 3), the next refresh met broker 2 on librdkafka's new
                # connection, kafka-python not up yet, and its configs came at 1.50 s of a 1.5 s timeout
                assert await until(lambda: len(source.polls) >= 4, 10)
            marks["fault"] = time.time()
            fault.inject(sim)
            if fault.outage:
                marks["stale"] = (
                    await until(
                        lambda: re.search(r"STALE \d+s", summary_text(app)) is not None, REFRESH + 2 * ATTEMPT_MAX
                    )
                    or 0
                )
                assert marks["stale"], f"never marked stale: {summary_text(app)!r}"
                assert app.state.snapshot is not None  # the last data stays on screen
            if fault.down is not None:
                down = fault.down
                assert sim.wait_for(lambda c: c.brokers[down].fenced, 10)
                marks["effect"] = time.time()
                shown = await until(lambda: f"(down: {down})" in summary_text(app), REFRESH + ATTEMPT_MAX + SLACK)
                assert shown, f"broker {down} not shown down: {summary_text(app)!r}"
                marks["shown"] = shown
            if fault.partial is not None:
                want = fault.partial
                marks["shown"] = (
                    await until(
                        lambda: (
                            app.state.snapshot is not None
                            and app.state.snapshot.partial
                            and any(want in p for p in app.state.snapshot.problems)
                        ),
                        REFRESH + 2 * ATTEMPT_MAX,
                    )
                    or 0
                )
                assert marks["shown"], f"no problem naming {want}: {app.state.snapshot and app.state.snapshot.problems}"
                assert "PARTIAL" in summary_text(app)
            # keys while the fault holds and refreshes run (or hang) in the worker
            hold_until = time.monotonic() + fault.hold
            while time.monotonic() < hold_until:
                keys, opened = await key_latencies(pilot, app)
                latencies.extend(keys)
                screen_latencies.extend(opened)
                if app.state.error is not None and not fault.outage:
                    errors.append(app.state.error)
                await asyncio.sleep(0.2)
            if not fault.outage:
                assert "STALE" not in summary_text(app), "a readable cluster must not be shown stale"
            fault.repair(sim)
            assert sim.wait_for(healthy, 20), "the simulator did not recover"
            marks["recovered"] = max([marks["fault"], *(t for t, _ in truth.events)])
            final = sim_state(sim)
            marks["view"] = (
                await until(
                    lambda: (
                        not app.state.stale
                        and app.state.snapshot is not None
                        and snapshot_state(app.state.snapshot) == final
                        and "STALE" not in summary_text(app)
                        and "brokers 3/3" in summary_text(app)
                    ),
                    20,
                )
                or 0
            )
            assert marks["view"], f"the view did not recover: {summary_text(app)!r}"
            await pilot.pause(2 * REFRESH)  # a few more refreshes of the healthy cluster
            assert app.is_running and app.return_code is None
            errors.extend(s for s in [app.state.error] if s)

    run_dashboard(scenario, source, feed)
    assert app._exception is None and app.return_code in (None, 0)
    assert not errors, f"refreshes failed while the cluster was readable: {errors}"
    polls = source.polls
    assert not any(p.error and p.error.startswith("internal error") for p in polls)
    if fault.complete:
        partial = [p.snapshot.problems for p in polls if p.snapshot is not None and p.snapshot.partial]
        assert not partial, partial
    # responsive: every key while the fault held
    # every key but one within KEY_BUDGET, and none as slow as opening a screen (a network wait on the UI
    # thread takes at least TIMEOUT): a loaded CI machine once took 0.31 s for one key of sixteen while a
    # refresh was in flight. Two fresh-clone runs had 2 and 5 of 8-12 keys at 0.1-0.46 s while all
    # brokers were down: the metadata read's wait loop spun on a finished future, holding the GIL (fixed);
    # how fast keys are is measured in bench/tui_app.py, this only guards against a freeze
    slow = sorted(latencies)[-2:] if len(latencies) > 1 else latencies
    assert latencies and slow[0] <= KEY_BUDGET and slow[-1] <= SCREEN_BUDGET, (
        f"key latencies {[round(x, 3) for x in latencies]}"
    )
    assert screen_latencies and max(screen_latencies) <= SCREEN_BUDGET, (
        f"help screen open/close latencies {[round(x, 3) for x in screen_latencies]}"
    )
    if fault.outage:
        # stale within one refresh: the first refresh that started after the fault (and after the one
        # in flight then) failed, and the screen said so as soon as it ended
        first = next(p for p in polls if p.start > marks["fault"])
        assert first.snapshot is None
        assert marks["stale"] <= first.end + SLACK
        prev_end = max([marks["fault"], *(p.end for p in polls if p.start <= marks["fault"])])
        assert first.start - prev_end <= REFRESH + SLACK
    if "shown" in marks and "effect" in marks:
        assert marks["shown"] - marks["effect"] <= REFRESH + ATTEMPT_MAX + SLACK
    # recovered within two refreshes of the cluster
    assert marks["view"] - marks["recovered"] <= ATTEMPT_MAX + 2 * REFRESH + SLACK, (
        f"view recovered {marks['view'] - marks['recovered']:.1f}s after the cluster"
    )
    # nothing lost
    truth.check_complete(sim)
    assert check_snapshots_against_truth(polls, truth) >= 3
    if fault.name.startswith("leadership"):
        assert truth.changes([EventKind.LEADER_CHANGE]) >= 3 * 9  # three rounds or more, each moving all 9
    counts = check_recording(tmp_path, polls)
    print(
        f"\n{fault.name}: keys max {max(latencies) * 1000:.0f} ms, screens max {max(screen_latencies) * 1000:.0f} ms, "
        f"recovered {marks['view'] - marks['recovered']:.2f} s after the cluster, "
        + (f"stale {marks['stale'] - marks['fault']:.2f} s after the fault, " if fault.outage else "")
        + (
            f"shown {marks['shown'] - marks.get('effect', marks['fault']):.2f} s after the effect, "
            if "shown" in marks
            else ""
        )
        + f"{counts}, {len(truth.events)} sim events"
    )
    if fault.outage:
        assert counts["gaps"] >= 1 and counts["failures"] >= 1
    else:
        assert counts["gaps"] == 0 and counts["failures"] == 0


def test_after_a_long_outage_the_view_is_back_within_two_refreshes(
    sim_factory: Callable[..., SimRunner], tmp_path: Path
) -> None:
    """Retries back off while the cluster is gone, but never so far that its return goes unseen for long."""
    sim = cluster(sim_factory)
    app, source, feed = dashboard(sim, (1, 2, 3), tmp_path)
    marks: dict[str, float] = {}

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)):
            assert await until(lambda: app.state.report is not None and not app.state.stale, 20)
            for b in (1, 2, 3):
                sim.crash(b)
            assert await until(lambda: app.state.failures >= 6, 40), f"only {app.state.failures} attempts"
            assert "STALE" in summary_text(app)
            for b in (1, 2, 3):
                sim.restore(b)
            marks["recovered"] = time.time()
            marks["view"] = await until(lambda: not app.state.stale and "STALE" not in summary_text(app), 40) or 0
            assert marks["view"]

    run_dashboard(scenario, source, feed)
    assert app._exception is None
    assert marks["view"] - marks["recovered"] <= ATTEMPT_MAX + 2 * REFRESH + SLACK, (
        f"view recovered {marks['view'] - marks['recovered']:.1f}s after the cluster"
    )
    counts = check_recording(tmp_path, source.polls)
    assert counts["gaps"] == 1 and counts["failures"] >= 6


def test_bootstrap_broker_stays_down_while_the_others_blink(
    sim_factory: Callable[..., SimRunner], tmp_path: Path
) -> None:
    """--bootstrap names broker 3 only. It crashes for good; then 1 and 2 crash and return. New clients
    bootstrap from the brokers the cluster named, so refreshes stay whole and the view comes back."""
    sim = cluster(sim_factory)
    app, source, feed = dashboard(sim, (3,), tmp_path)
    truth = Truth.attach(sim)
    marks: dict[str, float] = {}

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)):
            assert await until(lambda: app.state.report is not None and not app.state.stale, 20)
            sim.crash(3)
            assert sim.wait_for(lambda c: c.brokers[3].fenced, 10)
            fenced = time.time()
            assert await until(lambda: app.state.snapshot is not None and app.state.snapshot.taken_at > fenced, 10)
            shown = app.state.snapshot
            assert shown is not None and not shown.partial, shown and shown.problems  # log dirs read too
            assert "(down: 3)" in summary_text(app)
            for b in (1, 2):
                sim.crash(b)
            assert await until(lambda: "STALE" in summary_text(app), REFRESH + 2 * ATTEMPT_MAX)
            for b in (1, 2):
                sim.restore(b)
            assert sim.wait_for(
                lambda c: (
                    not c.brokers[1].fenced
                    and not c.brokers[2].fenced
                    and all(p.leader in (1, 2) for p in c.partitions())
                ),
                20,
            )
            marks["recovered"] = max([time.time(), *(t for t, _ in truth.events)])
            marks["view"] = await until(lambda: not app.state.stale and "STALE" not in summary_text(app), 20) or 0
            assert marks["view"], f"never recovered: {summary_text(app)!r}"
            assert "(down: 3)" in summary_text(app)

    run_dashboard(scenario, source, feed)
    assert app._exception is None
    assert marks["view"] - marks["recovered"] <= ATTEMPT_MAX + 2 * REFRESH + SLACK
    check_snapshots_against_truth(source.polls, truth)
    counts = check_recording(tmp_path, source.polls)
    assert counts["gaps"] == 1


def test_quitting_during_an_outage_records_the_gap(sim_factory: Callable[..., SimRunner], tmp_path: Path) -> None:
    """The user quits while every broker is down: the history still says the cluster could not be read."""
    sim = cluster(sim_factory)
    app, source, feed = dashboard(sim, (1, 2, 3), tmp_path)

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await until(lambda: app.state.report is not None and not app.state.stale, 20)
            for b in (1, 2, 3):
                sim.crash(b)
            assert await until(lambda: app.state.failures >= 2, REFRESH + 3 * ATTEMPT_MAX)
            await pilot.press("q")

    run_dashboard(scenario, source, feed)
    assert app._exception is None and app.return_code in (None, 0)
    counts = check_recording(tmp_path, source.polls)
    assert counts["gaps"] == 1 and counts["failures"] >= 2
