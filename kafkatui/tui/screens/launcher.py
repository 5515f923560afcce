"""The Replay launcher: the fields of a replay job (day, sources, where it runs, output), and the
panel that shows a running job's progress.

`LauncherScreen` returns the fields as typed (`LaunchFields`); `kafkatui.tui.replay_jobs` checks them,
starts the job as a child process and lands on its result. `ProgressScreen` shows the stage, the
Spark tasks done out of total and the time elapsed; `c` cancels the job, Esc hides the panel (the job
goes on; the launcher key shows it again).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static


@dataclass(frozen=True)
class LaunchFields:
    """What the launcher's fields say (checked by the caller)."""

    day: str
    sources: str
    master: str
    out: str


class LauncherScreen(ModalScreen[LaunchFields | None]):
    """The launcher's form: Enter in any field starts the job with what the fields say, Esc closes."""

    BINDINGS = [Binding("escape", "cancel", "close"), Binding("ctrl+s", "start", "start")]

    DEFAULT_CSS = """
    LauncherScreen { align: center middle; }
    LauncherScreen #launch-box { width: 90%; max-width: 110; height: auto; border: round $primary;
                                 background: $surface; padding: 0 1; }
    LauncherScreen Label { color: $text-muted; margin-top: 0; }
    LauncherScreen Input { height: 3; }
    LauncherScreen #launch-note { height: auto; color: $text-muted; }
    LauncherScreen #launch-error { height: auto; color: $error; display: none; }
    LauncherScreen #launch-error.visible { display: block; }
    """

    def __init__(
        self, defaults: LaunchFields, note: str = "", check: Callable[[LaunchFields], str | None] | None = None
    ) -> None:
        super().__init__()
        self.defaults = defaults
        self.note = note
        self.check = check

    def compose(self) -> ComposeResult:
        d = self.defaults
        with Vertical(id="launch-box"):
            yield Label("Day (UTC, YYYY-MM-DD; today: up to now)", markup=False)
            yield Input(d.day, id="day")
            yield Label("Sources: a recording directory, broker-log globs (comma-separated)", markup=False)
            yield Input(d.sources, id="sources")
            yield Label("Where the job runs: local[N] or a Spark master URL", markup=False)
            yield Input(d.master, id="master")
            yield Label("Output: a new directory", markup=False)
            yield Input(d.out, id="out")
            yield Static(self.note + "Enter starts the job · Esc closes", id="launch-note", markup=False)
            yield Static(id="launch-error", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#launch-box").border_title = "Replay a day: launch the PySpark job"
        self.query_one("#day", Input).focus()

    def fields(self) -> LaunchFields:
        def value(name: str) -> str:
            return self.query_one(f"#{name}", Input).value.strip()

        return LaunchFields(value("day"), value("sources"), value("master"), value("out"))

    def show_error(self, line: str) -> None:
        """Keep the form open with the reason (fix a field and press Enter again)."""
        error = self.query_one("#launch-error", Static)
        error.update(f"✖ {line}")
        error.add_class("visible")
        self.app.bell()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def action_start(self) -> None:
        fields = self.fields()
        problem = self.check(fields) if self.check is not None else None
        if problem is not None:
            self.show_error(problem + "  (fix it and press Enter, or Esc)")
            return
        self.dismiss(fields)

    def action_cancel(self) -> None:
        self.dismiss(None)


def bar(done: int, total: int, width: int = 24) -> str:
    """A text bar: '█████░░░░░' for done out of total."""
    if total <= 0:
        return "░" * width
    full = min(width, round(width * done / total))
    return "█" * full + "░" * (width - full)


def elapsed(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


@dataclass
class Progress:
    """The latest progress of the job (what the panel shows)."""

    title: str
    step: int = 0
    stage: str = "starting"
    detail: str = "starting the job"
    tasks_done: int = 0
    tasks_total: int = 0
    elapsed_s: float = 0.0
    steps: int = 4


def progress_text(p: Progress, width: int = 60) -> Text:
    t = Text()
    t.append(p.title + "\n", style="bold")
    t.append(f"stage {min(p.step + 1, p.steps)}/{p.steps}: {p.stage}", style="bold")
    t.append(f" · {p.detail}\n")
    t.append("Spark tasks ")
    t.append(bar(p.tasks_done, p.tasks_total, max(10, min(30, width - 30))), style="green")
    t.append(f" {p.tasks_done}/{p.tasks_total}" if p.tasks_total else " (between stages)")
    t.append(f"\nelapsed {elapsed(p.elapsed_s)}")
    return t


class ProgressScreen(ModalScreen[str | None]):
    """A running job's progress; `c` cancels it (dismisses with "cancel"), Esc hides the panel."""

    BINDINGS = [Binding("c", "cancel_job", "cancel the job"), Binding("escape", "hide", "hide (job goes on)")]

    DEFAULT_CSS = """
    ProgressScreen { align: center bottom; }
    ProgressScreen #progress-box { width: 90%; max-width: 100; height: auto; border: round $primary;
                                   background: $surface; padding: 0 1; margin-bottom: 2; }
    ProgressScreen #progress-hint { color: $text-muted; height: auto; }
    """

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress

    def compose(self) -> ComposeResult:
        with Vertical(id="progress-box"):
            yield Static(id="progress-text")
            yield Static(
                "c cancels the job (its JVM too; nothing is kept) · Esc hides this (the job goes on; "
                "d shows it again) · the dashboard keeps refreshing",
                id="progress-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#progress-box").border_title = "Replay job"
        self.show(self.progress)

    def show(self, progress: Progress) -> None:
        self.progress = progress
        with suppress(NoMatches):  # pushed a moment ago and still composing: on_mount shows it
            self.query_one("#progress-text", Static).update(progress_text(progress, self.app.size.width))

    def action_cancel_job(self) -> None:
        self.dismiss("cancel")

    def action_hide(self) -> None:
        self.dismiss(None)
