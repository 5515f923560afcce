"""The dashboard's replay launcher: one PySpark replay job at a time, run as a child process.

`ReplayJobs.open()` (the launcher key, the palette, `kafkatui --replay` without OUT) shows the launcher
with its defaults: today (UTC; up to now), this dashboard's own recording directory, the profile's
``replay:`` master and settings (else ``local[2]``), a new output directory under the state directory.
Starting flushes the dashboard's recorder (an outage going on is written as a gap), then runs
`kafkatui replay` through `kafkatui.history.replay.launch` and shows its progress in a panel while the
dashboard goes on refreshing. On success the Replay screen opens at the first incident's minute with
its first broker out under the brokers' cursor; a failure is one line with the log's path.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkatui.history.replay.launch import (
    DEFAULT_MASTER,
    Launch,
    LaunchSpec,
    Outcome,
    new_output,
    split_sources,
    state_dir,
)
from kafkatui.tui.screens.launcher import LauncherScreen, LaunchFields, Progress, ProgressScreen

if TYPE_CHECKING:
    from textual.app import App

    from kafkatui.history.record.recorder import Recorder
    from kafkatui.kafka.profiles import ReplayTarget


def _day_of(ts: float) -> date:
    return datetime.fromtimestamp(ts, UTC).date()


class ReplayJobs:
    """The launcher's state: the running job (at most one), its progress and its panel."""

    def __init__(
        self,
        app: App[Any],
        *,
        recorder: Recorder | None,
        history_dir: Path | None,
        target: ReplayTarget | None,
        clock: Any = time.time,
        env: dict[str, str] | None = None,
    ) -> None:
        self.app = app
        self.recorder = recorder
        self.history_dir = recorder.directory if recorder is not None else history_dir
        self.master = (target.master if target is not None else None) or DEFAULT_MASTER
        self.conf = target.conf if target is not None else ()
        self.clock = clock
        self.env = env
        self.launch: Launch | None = None
        self.busy = False  # from the launcher's Enter until the job has ended
        self.progress: Progress | None = None
        self.panel: ProgressScreen | None = None
        self.last: Outcome | None = None

    # the launcher ------------------------------------------------------------------------------
    def defaults(self) -> LaunchFields:
        day = _day_of(self.clock())
        sources = str(self.history_dir) if self.history_dir is not None else ""
        out = new_output(day, now=datetime.fromtimestamp(self.clock(), UTC))
        return LaunchFields(day.isoformat(), sources, self.master, str(out))

    def open(self) -> None:
        """The launcher key: the form, or (a job running) one line and its progress panel."""
        if self.busy:
            assert self.progress is not None
            self.app.notify(
                f"a replay job is already running ({self.progress.title}); one at a time — c in its panel cancels it",
                severity="warning",
                timeout=6,
            )
            self.show_panel()
            return
        conf = ", ".join(f"{k}={v}" for k, v in self.conf)
        note = f"Spark settings from the profile: {conf}\n" if conf else ""
        self.app.push_screen(LauncherScreen(self.defaults(), note, self.check), callback=self._chosen)

    def spec(self, fields: LaunchFields) -> LaunchSpec | str:
        """The job the fields describe, or what is wrong with them (one line)."""
        try:
            day = date.fromisoformat(fields.day)
        except ValueError:
            return f"Day {fields.day!r}: give YYYY-MM-DD"
        now = self.clock()
        if day > _day_of(now):
            return f"Day {day}: that day has not come yet (UTC today is {_day_of(now)})"
        history, globs, problem = split_sources(fields.sources)
        if problem is not None:
            return f"Sources: {problem}"
        if not fields.master:
            return "Where: give local[N] or a Spark master URL (spark://host:7077)"
        if not fields.out:
            return "Output: give a directory"
        out = Path(fields.out).expanduser()
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            return f"Output {out}: exists and is not empty; give a new directory"
        until = int(now * 1000) if day == _day_of(now) else None
        return LaunchSpec(day, out, history, globs, fields.master, self.conf, until)

    def check(self, fields: LaunchFields) -> str | None:
        found = self.spec(fields)
        return found if isinstance(found, str) else None

    def _chosen(self, fields: LaunchFields | None) -> None:
        if fields is None:
            return
        found = self.spec(fields)
        if isinstance(found, str):  # the form checks first; a race with the filesystem ends here
            self.app.notify(found, severity="error", timeout=8)
            return
        self.start(found)

    # the job -----------------------------------------------------------------------------------
    def start(self, spec: LaunchSpec) -> None:
        if self.busy:
            self.app.notify("a replay job is already running; one at a time", severity="warning")
            return
        self.busy = True
        today = " (today, up to now)" if spec.until_ms is not None else ""
        self.progress = Progress(f"replaying {spec.day}{today} on {spec.master} → {spec.out}")
        self.show_panel()
        self.app.run_worker(lambda: self._start(spec), thread=True, group="replay-launch", exit_on_error=False)

    def _start(self, spec: LaunchSpec) -> None:
        """Worker thread: flush the recorder (today's replay sees what it holds), start the child."""
        if self.recorder is not None and spec.until_ms is not None:
            try:
                self.recorder.flush(spec.until_ms / 1000)
            except Exception as exc:  # RecorderError: the replay reads what is on disk
                self.app.call_from_thread(self.app.notify, f"history not flushed: {exc}", severity="warning")
        launch = Launch(
            spec,
            on_line=lambda line: self.app.call_from_thread(self._line, line),
            on_end=lambda outcome: self.app.call_from_thread(self._ended, outcome),
            env=self.env,
        )
        try:
            launch.start()
        except OSError as exc:
            self.app.call_from_thread(
                self._ended, Outcome(-1, error=f"cannot start the job: {exc.strerror or exc}", log=spec.log)
            )
            return
        self.launch = launch

    def _line(self, line: dict[str, Any]) -> None:
        p = self.progress
        if p is None or line.get("kind") != "progress":
            return
        p.step = int(line.get("step") or 0)
        p.stage = str(line.get("stage") or "")
        p.detail = str(line.get("detail") or "")
        p.tasks_done = int(line.get("tasks_done") or 0)
        p.tasks_total = int(line.get("tasks_total") or 0)
        p.elapsed_s = float(line.get("elapsed_s") or 0.0)
        if self.panel is not None and self.panel.is_attached:
            self.panel.show(p)

    def tick(self) -> None:
        """Every second: the elapsed time moves on between progress lines."""
        if self.busy and self.launch is not None and self.progress is not None:
            self.progress.elapsed_s = time.monotonic() - self.launch.started
            if self.panel is not None and self.panel.is_attached:
                self.panel.show(self.progress)

    def show_panel(self) -> None:
        if self.progress is None or (self.panel is not None and self.panel.is_attached):
            return
        self.panel = ProgressScreen(self.progress)
        self.app.push_screen(self.panel, callback=self._panel_closed)

    def _panel_closed(self, result: str | None) -> None:
        self.panel = None
        if result == "cancel":
            self.cancel()

    def cancel(self) -> None:
        """End the job and its JVM (a worker thread: it waits for them), remove its output."""
        launch = self.launch
        if launch is None or not self.busy:
            return
        self.app.notify("cancelling the replay job…", timeout=3)
        self.app.run_worker(launch.cancel, thread=True, group="replay-cancel", exit_on_error=False)

    def stop(self) -> None:
        """The dashboard quits: a job still running is cancelled (no JVM outlives the dashboard)."""
        if self.launch is not None and self.launch.running:
            self.launch.cancel()

    def _ended(self, outcome: Outcome) -> None:
        self.busy = False
        self.last = outcome
        if self.panel is not None and self.panel.is_attached:
            self.panel.dismiss(None)
        self.panel = None
        if outcome.cancelled:
            self.app.notify(f"replay cancelled: the job and its JVM ended, nothing was kept (log: {outcome.log})")
        elif outcome.out is None:
            self.app.notify(f"replay failed: {outcome.error} (log: {outcome.log})", severity="error", timeout=30)
        else:
            self.land(outcome.out)

    # landing ------------------------------------------------------------------------------------
    def land(self, out: Path) -> None:
        """Open the Replay screen on OUT (read in a worker thread) at its first incident."""
        from kafkatui.history.view.data import ReplayDataError
        from kafkatui.tui.screens.replay import ReplayScreen, open_day

        def load() -> None:
            try:
                data = open_day(out)
            except ReplayDataError as exc:
                self.app.call_from_thread(self.app.notify, str(exc), severity="error", timeout=15)
                return
            first = data.summary.incidents[0] if data.summary.incidents else None
            self.app.call_from_thread(
                self.app.push_screen, ReplayScreen(data, broker=first.first_broker_out if first else None)
            )
            self.app.call_from_thread(self.app.notify, landing_line(data.summary), timeout=10)

        self.app.run_worker(load, thread=True, group="replay", exit_on_error=False)


def landing_line(summary: Any) -> str:
    """What the user is told as the Replay screen opens."""
    from kafkatui.tui.screens.replay_drill import clock

    if not summary.incidents:
        return f"replayed {summary.day}: no incident (no partition under minISR or offline)"
    i = summary.incidents[0]
    first = (
        f"broker {i.first_broker_out} out first at {clock(i.first_out_ms, False)}"
        if i.first_broker_out is not None and i.first_out_ms is not None
        else "no broker left an ISR before it"
    )
    ongoing = ", ongoing when the recording ends" if i.ongoing else ""
    n = len(summary.incidents)
    return f"replayed {summary.day}: {n} incident(s); the first at {clock(i.start_ms, False)}: {first}{ongoing}"


__all__ = ["ReplayJobs", "landing_line", "state_dir"]
