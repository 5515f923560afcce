"""The dashboard's replay launcher: time from the key press to the Replay screen, and key latency
while the job (a real `kafkatui replay` child process with a local Spark JVM) runs.

A one-hour recording of today is written through the real Recorder: 3 brokers, 20 topics x 10
partitions, a poll every 10 s for the last hour with ISR churn (a follower dropping out and back every
few minutes), and broker 3 crashing 30 minutes ago (every ISR it was in shrinks; orders-* with min ISR 2
go under min ISR when broker 2 follows 10 s later) and coming back 20 minutes ago. The app runs headless
(`run_test`, 120x40) over a fake cluster source refreshing every second, records nothing itself, and its
launcher's defaults are taken as they are (Enter). Measured:

- key press (`d`, Enter) to the Replay screen on screen (the JVM's start included);
- key latency while the job runs: with the progress panel hidden, `f` (findings) and Esc back, one
  after the other, each from the driver being handed the key to the end of the first frame showing
  the new screen (tui_app.py's `Frames`: Pilot's own idle waits are not counted); median, p95 and max
  over the job's life, beside the same keys for 10 s before the launch (no job); the refreshes go on
  meanwhile (their count is printed). The job runs at nice 10, as the launcher starts it.

`--bench-day` does the same on replay_day.py's bench day (5 million ISR events of a 50,000-partition
cluster, generated once and cached under $TMPDIR/kafkatui-bench-replay, as replay_day.py does): in
the launcher the day and the sources are typed over the defaults (that day, that history), the rest
is accepted.

Run: `.venv/bin/python bench/launcher.py [--bench-day]` (about a minute on a quiet 2-core machine; the
bench day about two).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # replay_day: the bench day

from tui_app import Frames, key_to_frame  # noqa: E402

from kafkatui.history.record.recorder import Recorder  # noqa: E402
from kafkatui.model.snapshot import ClusterSnapshot  # noqa: E402
from kafkatui.tui.app import KafkaTuiApp  # noqa: E402
from kafkatui.tui.feed import Feed  # noqa: E402
from kafkatui.tui.screens.findings import FindingsScreen  # noqa: E402
from kafkatui.tui.screens.launcher import LauncherScreen  # noqa: E402
from kafkatui.tui.screens.replay import ReplayScreen  # noqa: E402
from tests.model.builders import healthy, snap  # noqa: E402
from tests.tui.test_screens import FakeSource, incident  # noqa: E402


def set_isr(s: ClusterSnapshot, topic: str, part: int, isr: tuple[int, ...], at: float) -> ClusterSnapshot:
    t = s.topics[topic]
    parts = list(t.partitions)
    parts[part] = dataclasses.replace(parts[part], isr=isr)
    topics = dict(s.topics)
    topics[topic] = dataclasses.replace(t, partitions=tuple(parts))
    return dataclasses.replace(s, topics=topics, taken_at=at)


def record_hour(history: Path, now: float) -> None:
    names = [f"orders-{i}" for i in range(10)] + [f"logs-{i}" for i in range(10)]
    s0 = snap(*(healthy(n, 10, min_insync_replicas="2" if n.startswith("orders") else "1") for n in names))
    rec = Recorder(history)
    start = now - 3600
    s = dataclasses.replace(s0, taken_at=start)
    rec.record(s)
    for k in range(1, 360):
        at = start + 10 * k
        s = dataclasses.replace(s, taken_at=at)
        if k % 17 == 0:  # churn: one follower out, back at the next multiple
            name = names[k % len(names)]
            p = s.topics[name].partitions[k % 10]
            s = set_isr(s, name, k % 10, p.isr[:-1] if len(p.isr) == 3 else p.replicas, at)
        if k == 180 or k == 181:  # broker 3 crashes, broker 2 follows for orders
            gone = 3 if k == 180 else 2
            for name in names:
                for i, p in enumerate(s.topics[name].partitions):
                    if gone in p.isr and (gone == 3 or name.startswith("orders")) and len(p.isr) > 1:
                        s = set_isr(s, name, i, tuple(b for b in p.isr if b != gone), at)
        if k == 240:  # both back
            for name in names:
                for i, p in enumerate(s.topics[name].partitions):
                    s = set_isr(s, name, i, p.replicas, at)
        rec.record(s)


def _summary(label: str, latencies: list[float]) -> str:
    ms = sorted(x * 1000 for x in latencies)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"{label} ({len(ms)} keys): median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms"


async def findings_and_back(pilot: Pilot[None], frames: Frames) -> list[float]:
    """`f` then Esc, each timed from the key to the frame showing its screen."""
    app = pilot.app
    out = [await key_to_frame(pilot, frames, "f", lambda: isinstance(app.screen, FindingsScreen))]
    if isinstance(app.screen, FindingsScreen):
        out.append(await key_to_frame(pilot, frames, "escape", lambda: not isinstance(app.screen, FindingsScreen)))
    return out


async def measure(app: KafkaTuiApp, day: str | None = None, sources: Path | None = None) -> None:
    """`d`, Enter (the defaults; `day` and `sources` typed over theirs when given), then keys meanwhile."""
    frames = Frames(app)
    async with app.run_test(size=(120, 40)) as pilot:
        frames.hook_driver()
        while app.state.snapshot is None:
            await pilot.pause(0.05)
        baseline: list[float] = []
        t_base = time.perf_counter()
        while time.perf_counter() - t_base < 10:
            baseline += await findings_and_back(pilot, frames)
            await pilot.pause(0.3)
        generation = app.state.generation
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        await pilot.press("d")
        if day is not None and sources is not None:
            while not isinstance(app.screen, LauncherScreen):
                await asyncio.sleep(0.005)
            app.screen.query_one("#day", Input).value = day
            app.screen.query_one("#sources", Input).value = str(sources)
        await pilot.press("enter")
        await pilot.pause(0.2)
        await pilot.press("escape")  # hide the panel: the dashboard's keys
        latencies: list[float] = []
        while not isinstance(app.screen, ReplayScreen):
            if not app.replay_jobs.busy and app.replay_jobs.last is not None and app.replay_jobs.last.out is None:
                print("the job failed:", app.replay_jobs.last)
                return
            with contextlib.suppress(TimeoutError):  # the Replay screen landed over the findings
                latencies += await findings_and_back(pilot, frames)
            if isinstance(app.screen, FindingsScreen) and not app.replay_jobs.busy:
                await asyncio.sleep(0.2)  # the landing pushes the Replay screen next
            await pilot.pause(0.3)
        landed = time.perf_counter() - t0
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        first = screen.data.summary.incidents[0] if screen.data.summary.incidents else None
        print(
            f"key press to the Replay screen: {landed:.1f} s "
            f"(load average {load:.1f} at the press, {os.getloadavg()[0]:.1f} at the landing)"
        )
        if first is not None:
            print(f"landed at minute {screen.minute}, first broker out {first.first_broker_out}")
        print(f"refreshes while the job ran: {app.state.generation - generation}")
        print(_summary("key latency before the launch, no job", baseline))
        if latencies:
            print(_summary("key latency while the job ran", latencies))


def bench_day() -> Path:
    """replay_day.py's bench day, generated once (cached): its history directory."""
    import replay_day

    root = Path(os.environ.get("KAFKATUI_BENCH_DIR", Path(tempfile.gettempdir()) / "kafkatui-bench-replay"))
    history = root / "history"
    marker = root / f"done-{replay_day.EVENTS}"
    if not marker.exists():
        t = time.perf_counter()
        marker.write_text(str(replay_day.generate(history)))
        print(f"bench day generated in {time.perf_counter() - t:.1f} s under {history}")
    return history


def main() -> None:
    base = Path(tempfile.mkdtemp(prefix="kafkatui-bench-launcher-"))
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    if "--bench-day" in sys.argv[1:]:
        import replay_day

        history = bench_day()
        feed = Feed(FakeSource(incident()), bootstrap="kafka:9092")
        app = KafkaTuiApp(feed, refresh_seconds=1.0, source_label="bench")
        print(f"bench day {replay_day.DAY}: {history}")
        asyncio.run(measure(app, replay_day.DAY, history))
        return
    history = base / "history"
    now = time.time()
    t = time.perf_counter()
    record_hour(history, now)
    print(f"one-hour recording written in {time.perf_counter() - t:.1f} s under {history}")
    feed = Feed(FakeSource(incident()), bootstrap="kafka:9092")
    app = KafkaTuiApp(feed, refresh_seconds=1.0, source_label="bench", history_dir=history)
    asyncio.run(measure(app))


if __name__ == "__main__":
    main()
