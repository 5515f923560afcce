"""The Replay screen: a recorded day scrubbed minute by minute, with the tables as they were then.

`kafkatui --replay OUT` opens it without any cluster connection; in the live dashboard the command
palette's "Replay a day…" asks for OUT. The header says REPLAY, the day and the minute (UTC) on every
replay screen. Tables show the state at the END of the selected minute; the timeline strip shows the
worst state at any moment of each minute (see `kafkatui.history.view.data`).

Drill-down reuses the live topic, partition and broker screens, fed the replayed minute instead of
the feed (`kafkatui.tui.screens.replay_drill`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from kafkatui.columns import BROKERS
from kafkatui.history.view.data import MINUTES, ReplayData, ReplayDataError
from kafkatui.history.view.files import read_summary
from kafkatui.model.health import Health, PartitionHealth
from kafkatui.tui.feed import ViewState
from kafkatui.tui.format import keys_table, partition_cell
from kafkatui.tui.screens.help import LEGEND, HelpScreen
from kafkatui.tui.screens.replay_drill import (
    Replayed,
    ReplayMoment,
    clock,
    duration,
    hhmm,
    replay_markup,
)
from kafkatui.tui.widgets.columns import table_columns
from kafkatui.tui.widgets.summary import SummaryBar
from kafkatui.tui.widgets.timeline import TimelineStrip
from kafkatui.tui.widgets.vtable import Column, VirtualTable

PartitionKey = tuple[str, int]

INCIDENT_COLUMNS = [
    Column("id", "#", 3, "right"),
    Column("start", "start (UTC)", 12),
    Column("duration", "duration", 9, "right"),
    Column("first", "first out", 10, min_width=6),
    Column("parts", "parts", 5, "right"),
    Column("peak", "peak <min/offl", 14, "right", min_width=6),
    Column("topics", "topics", 40, min_width=8),
]
PARTITION_COLUMNS = [
    Column("status", "status", 9),
    Column("partition", "partition", 26, min_width=10),
    Column("since", "since (UTC)", 12),
    Column("leader", "leader", 18, min_width=6),
    Column("replicas", "replicas ✗=out", 14, min_width=9),
    Column("isr", "ISR", 10, min_width=5),
    Column("minisr", "minISR", 6, "right"),
]

REPLAY_KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "replay",
        [
            ("← / →", "one minute back / forward (the tables show the end of the minute)"),
            ("PgUp / PgDn", "one hour back / forward"),
            ("Home / End", "00:00 / 23:59"),
            (
                "Enter",
                "incidents: jump to the incident's start; partitions: open it (its changes that day); brokers: open it",
            ),
            ("click", "a timeline cell selects its first minute"),
            ("Tab / Shift+Tab", "move the focus: incidents, partitions, brokers"),
            ("/", "filter the focused table: text or /regex/"),
            ("s / S", "sort by the next column / reverse"),
            ("Esc", "back (in the live dashboard: back to it)"),
            ("P", "write the day's postmortem (Markdown and HTML, under OUT/report) and say where it went"),
            ("?", "this help"),
            ("q", "quit"),
        ],
    ),
    (
        "timeline",
        [
            (
                "▁ ▂ ▄ ▅ ▇ █",
                "worst state in the cell: healthy, non-preferred, under-replicated, at minISR, under minISR, offline",
            ),
            ("░", "the recorder could not read the cluster: state unknown"),
            ("second line", "under-minISR partitions (highest in the cell); ▲ marks the selected minute"),
        ],
    ),
]


def day_shrinks(data: ReplayData, limit: int = 6) -> str:
    """' · ISR shrinks that day: broker 3 ×12 (flapping 0.5), ...', most shrinks first (from summary.json)."""
    rows = []
    for b in data.summary.brokers:
        try:
            rows.append((int(b["broker"]), int(b.get("shrinks") or 0), float(b.get("flapping_score") or 0)))
        except (KeyError, TypeError, ValueError):
            continue
    rows = sorted((r for r in rows if r[1]), key=lambda r: (-r[1], r[0]))
    if not rows:
        return ""
    shown = ", ".join(f"broker {b} ×{n}" + (f" (flapping {f:g})" if f else "") for b, n, f in rows[:limit])
    return " · ISR shrinks that day: " + shown + (f" +{len(rows) - limit} more" if len(rows) > limit else "")


class ReplayScreen(Replayed):
    """A day: timeline strip, incidents, and the partitions and brokers as they were at the selected minute."""

    BINDINGS = [
        Binding("left", "minute(-1)", "-1 min", priority=True, key_display="←"),
        Binding("right", "minute(1)", "+1 min", priority=True, key_display="→"),
        Binding("pageup", "minute(-60)", "-1 h", priority=True, key_display="PgUp"),
        Binding("pagedown", "minute(60)", "+1 h", priority=True, key_display="PgDn"),
        Binding("home", "go(0)", "00:00", priority=True, show=False),
        Binding("end", "go(1439)", "23:59", priority=True, show=False),
        Binding("question_mark", "replay_help", "help"),
        Binding("P", "postmortem", "report"),
    ]

    DEFAULT_CSS = """
    ReplayScreen #timeline { height: 4; }
    ReplayScreen #incidents { height: auto; max-height: 7; min-height: 2; }
    ReplayScreen #partitions { height: 1fr; min-height: 4; }
    ReplayScreen #brokers { height: auto; max-height: 25%; min-height: 2; }
    ReplayScreen .caption { height: 1; padding: 0 1; color: $text-muted; background: $panel; }
    """

    def __init__(self, data: ReplayData, minute: int | None = None, broker: int | None = None) -> None:
        super().__init__()
        self.data = data
        self.first_out = broker  # the launcher lands with the first incident's first broker out under the cursor
        first = data.summary.incidents[0].start_ms if data.summary.incidents else None
        self.minute = minute if minute is not None else (data.minute_of(first) if first is not None else 0)
        self.moment = ReplayMoment.at(data, self.minute)
        self._incidents = {i.id: i for i in data.summary.incidents}
        self._rows: dict[PartitionKey, PartitionHealth] = {}
        self._hours: dict[int, ReplayData] = {}  # hour views read on demand while the whole day loads
        self._hours_lock = threading.Lock()

    def body(self) -> ComposeResult:
        yield TimelineStrip(self.data.summary.timeline, id="timeline")
        yield Static(id="incidents-caption", classes="caption")
        yield VirtualTable[int](INCIDENT_COLUMNS, id="incidents")
        yield Static(id="partitions-caption", classes="caption")
        yield VirtualTable[PartitionKey](PARTITION_COLUMNS, id="partitions")
        yield Static(id="brokers-caption", classes="caption")
        yield VirtualTable[int](table_columns(BROKERS), id="brokers")

    def on_mount(self) -> None:  # DashScreen.on_mount runs next (Textual calls each class's handler)
        n = len(self._incidents)
        st = self.data.stats
        damaged = f" · {st.torn} torn, {st.garbled} garbled frame lines skipped" if st.torn or st.garbled else ""
        ends = self.data.summary.recording_ends
        # the end first: at 80 columns the caption is cut after "Enter jumps to the start"
        ended = f"⏹ the recording ends at {clock(ends[-1], False)}" if ends else ""
        if ended and any(i.ongoing for i in self._incidents.values()):
            ended += " (an incident ongoing there)"
        self.query_one("#incidents-caption", Static).update(
            (f"{ended} · " if ended else "")
            + f"{n} incident{'s' if n != 1 else ''} (a partition under minISR or offline) · Enter jumps to the start"
            + damaged
        )
        incidents: VirtualTable[int] = self.query_one("#incidents", VirtualTable)
        incidents.load(list(self._incidents), self._incident_cell, self._incident_sort)
        incidents.styles.height = min(n, 6) + 1
        self.query_one(TimelineStrip).select(self.minute)
        (incidents if n else self.query_one("#partitions", VirtualTable)).focus()
        if self.first_out is not None:
            self.call_after_refresh(self.query_one("#brokers", VirtualTable).move_cursor_to, self.first_out)
        if self.data.window is not None:  # opened on part of the day: the rest follows in the background
            # once the first frame is painted (the reading thread would share the interpreter with it)
            self.call_after_refresh(self.set_timer, 0.05, self._load_day)

    @work(thread=True, group="replay-day", exit_on_error=False)
    def _load_day(self) -> None:
        """The rest of the opening hour (when only its start was read), then the whole day."""
        try:
            first = self.data.window
            if first is not None and first[1] % 60 != 59:
                hour = ReplayData.load_hour(self.data.directory, first[0] // 60)
                if hour is not None:
                    self.app.call_from_thread(self._more, hour)
            data = ReplayData.load(self.data.directory)
        except ReplayDataError as exc:
            self.app.call_from_thread(self.app.notify, str(exc), severity="error", timeout=8)
            return
        self.app.call_from_thread(self._more, data)

    def _more(self, data: ReplayData) -> None:
        """More of the day has been read (its opening hour whole, or the whole day): minutes it covers
        are now one step away."""
        if self.data.window is None:
            return
        self.data = data
        if data.window is None:
            self._hours.clear()
        self._build(self.minute)

    def _data_for(self, minute: int) -> ReplayData:
        """The whole day, or (while it loads) the view of the minute's hour, read on demand."""
        data = self.data
        if data.covers(minute):
            return data
        hour = minute // 60
        with self._hours_lock:
            view = self._hours.get(hour)
            if view is None:
                view = ReplayData.load_hour(data.directory, hour) or ReplayData.load(data.directory)
                self._hours[hour] = view
        return view

    # moving -----------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the filter box keeps its arrows, Home and End
        if action in ("minute", "go") and isinstance(self.focused, Input):
            return False
        return super().check_action(action, parameters)

    def action_minute(self, delta: int) -> None:
        self.go_to(self.minute + delta)

    def action_go(self, minute: int) -> None:
        self.go_to(minute)

    def go_to(self, minute: int) -> None:
        """Select a minute: the strip and the header's time follow at once; the tables when the state is built.

        The state is built in a worker thread (about 0.3 s at 50,000 partitions), so keys are never
        held up; a build for a minute the user has already left is skipped.
        """
        self.minute = max(0, min(MINUTES - 1, minute))
        self.query_one(TimelineStrip).select(self.minute)
        if self.moment.minute != self.minute:
            self.query_one(SummaryBar).update(replay_markup(self.data, self.minute, None, self.app.size.width))
            self._build(self.minute)
        else:
            self._arrived(self.moment)

    @work(thread=True, group="replay-minute", exit_on_error=False, description="a minute of the replay")
    def _build(self, minute: int) -> None:
        if minute != self.minute:
            return  # the user has moved on: a later build follows
        moment = ReplayMoment.at(self._data_for(minute), minute)
        if minute == self.minute:
            self.app.call_from_thread(self._arrived, moment)

    def _arrived(self, moment: ReplayMoment) -> None:
        if moment.minute != self.minute or (moment.data.window is not None and self.data.window is None):
            return  # the user has moved on, or the whole day arrived meanwhile (a build from it follows)
        self.moment = moment
        self.tick()
        self.show_moment()

    # showing --------------------------------------------------------------------------------------------
    def update_state(self, state: ViewState) -> None:
        self.tick()
        if self._shown is not self.moment:
            self.show_moment()

    def show_moment(self) -> None:
        m = self._shown = self.moment
        report = m.report
        buckets: list[list[PartitionKey]] = [[] for _ in Health]  # worst first without sorting 50,000 rows
        for name in sorted(m.snapshot.topics):
            codes = report.class_codes(name)
            for i, p in enumerate(m.snapshot.topics[name].partitions):
                buckets[codes[i]].append((name, p.partition))
        keys = [k for bucket in buckets for k in bucket]
        self._rows = {}
        parts: VirtualTable[PartitionKey] = self.query_one("#partitions", VirtualTable)
        # a cursor the user moved follows its partition through the day; one on the first row stays
        # there, on the minute's worst (following it put the worst rows above the view once it healed)
        at_top = parts.cursor_row == 0
        parts.load(
            keys, self._partition_cell, self._partition_sort, lambda k: f"{k[0]}-{k[1]} {self._ph(k).health.label}"
        )
        if at_top:
            parts.cursor_to_top()
        bad = len(keys) - len(buckets[Health.HEALTHY]) - len(buckets[Health.NON_PREFERRED_LEADER])
        loading = " · reading the rest of the day…" if m.data.window is not None else ""
        self.query_one("#partitions-caption", Static).update(
            f"partitions at {hhmm(m.minute)}: {len(keys)}, {bad} below fully in sync · worst first · Enter opens one"
            + loading
        )
        bh = report.brokers
        brokers: VirtualTable[int] = self.query_one("#brokers", VirtualTable)
        brokers.load(sorted(bh), lambda k, c: BROKERS.cell(bh[k], c), lambda k, c: BROKERS.sort(bh[k], c), str)
        brokers.styles.height = len(bh) + 1
        self.query_one("#brokers-caption", Static).update(
            f"brokers at {hhmm(m.minute)} · Enter opens one" + day_shrinks(self.data)
        )

    def _ph(self, key: PartitionKey) -> PartitionHealth:
        ph = self._rows.get(key)
        if ph is None:
            ph = self._rows[key] = self.moment.report.partition(*key)
        return ph

    def _partition_cell(self, key: PartitionKey, col: str) -> str | Text:
        ph = self._ph(key)
        shared = partition_cell(ph, col)
        if shared is not None:
            return shared
        if col == "partition":
            return f"{key[0]}-{key[1]}"
        if col == "since":
            since = self.since(key)
            return "?" if since is None else clock(since)
        return ""

    def _partition_sort(self, key: PartitionKey, col: str) -> object:
        ph = self._ph(key)
        values: dict[str, object] = {
            "status": (ph.health, key),
            "partition": key,
            "leader": ph.leader,
            "replicas": (-len(ph.out_of_sync), ph.replicas),
            "isr": (len(ph.isr), ph.isr),
            "minisr": ph.min_isr,
            "since": self.since(key) or 0,
        }
        return values.get(col, key)

    def since(self, key: PartitionKey) -> int | None:
        """When the partition entered the class it is in at the selected minute's end (its frames' classes)."""
        end = self.data.end_ms(self.minute)
        changes = [c for c in self.moment.data.history(*key) if c.ts_ms < end]
        if not changes:
            return None
        i = len(changes) - 1
        while i > 0 and changes[i - 1].health == changes[i].health:
            i -= 1
        return changes[i].ts_ms

    def _incident_cell(self, key: int, col: str) -> str | Text:
        i = self._incidents[key]
        if col == "id":
            return str(i.id)
        if col == "start":
            return clock(i.start_ms)
        if col == "duration":
            return Text("ongoing", style="bold") if i.ongoing else duration(i.duration_s)
        if col == "first":
            return "-" if i.first_broker_out is None else f"broker {i.first_broker_out}"
        if col == "parts":
            return str(i.partitions)
        if col == "peak":
            return Text(f"{i.peak_under_min_isr}/{i.peak_offline}", style="red" if i.peak_offline else "")
        if col == "topics":
            return ", ".join(i.topics)
        return ""

    def _incident_sort(self, key: int, col: str) -> object:
        i = self._incidents[key]
        values: dict[str, object] = {
            "start": i.start_ms,
            "duration": i.duration_s,
            "first": i.first_broker_out or -1,
            "parts": i.partitions,
            "peak": (i.peak_offline, i.peak_under_min_isr),
            "topics": i.topics,
        }
        return values.get(col, key)

    # events -----------------------------------------------------------------------------------------------
    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        if event.table.id == "incidents":
            self.go_to(self.data.minute_of(self._incidents[int(event.key)].start_ms))
        elif event.table.id == "partitions":
            self._sync()
            topic, partition = event.key
            self.open_partition(topic, partition)
        elif event.table.id == "brokers":
            self._sync()
            self.open_broker(int(event.key))

    def _sync(self) -> None:
        """Drill-down opens the selected minute even when its build has not arrived yet."""
        if self.moment.minute != self.minute:
            self._arrived(ReplayMoment.at(self._data_for(self.minute), self.minute))

    def on_timeline_strip_clicked(self, event: TimelineStrip.Clicked) -> None:
        self.go_to(event.minute)

    def action_replay_help(self) -> None:
        self.app.push_screen(ReplayHelpScreen())

    def action_postmortem(self) -> None:
        """Write the day's postmortem in a worker thread (the whole day is read for it), then say where."""
        self.app.notify("writing the postmortem…", timeout=2)
        self._write_postmortem()

    @work(thread=True, group="postmortem", exclusive=True, exit_on_error=False)
    def _write_postmortem(self) -> None:
        from kafkatui.kafka.errors import KafkaTuiError
        from kafkatui.report.cmd import say_written
        from kafkatui.report.write import write_report

        try:
            data = self.data if self.data.window is None else ReplayData.load(self.data.directory)
            written = write_report(data)
        except KafkaTuiError as exc:
            self.app.call_from_thread(self.app.notify, str(exc), severity="error", timeout=10)
            return
        self.app.call_from_thread(self._written, say_written(written))

    def _written(self, text: str) -> None:
        self.app.clear_notifications()  # "writing the postmortem…" is over
        self.app.notify(text, title="postmortem written", timeout=15)


class ReplayHelpScreen(HelpScreen):
    """The replay's keys and symbols."""

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                Text("Replay keys", style="bold").append(
                    "  — a recorded day, minute by minute; nothing here talks to a cluster.", style=""
                ),
                id="help-intro",
            )
            with VerticalScroll(id="help-keys"):
                yield Static(keys_table(REPLAY_KEYS))
            yield Static(LEGEND, id="help-legend", markup=False)
        yield Footer()


class ReplayDirPrompt(ModalScreen[str | None]):
    """Asks for a replay job's OUT directory."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    DEFAULT_CSS = """
    ReplayDirPrompt { align: center middle; }
    ReplayDirPrompt #replay-box { width: 80%; max-width: 100; height: auto; border: round $primary;
                                  background: $surface; padding: 0 1; }
    ReplayDirPrompt #replay-hint { height: auto; color: $text-muted; }
    ReplayDirPrompt #replay-error { height: auto; color: $error; display: none; }
    ReplayDirPrompt #replay-error.visible { display: block; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="replay-box"):
            yield Static(
                "The OUT directory of `kafkatui replay --day DAY --out OUT` (Enter opens it, Esc cancels):",
                id="replay-hint",
                markup=False,
            )
            yield Input(placeholder="e.g. ./replay-2026-11-20", id="replay-dir")
            yield Static(id="replay-error", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#replay-box").border_title = "Replay a day"
        self.query_one("#replay-dir", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A directory that cannot be replayed keeps the dialog open with the reason (keys typed next
        must not land on the dashboard: a `u` there opened a revert preview)."""
        event.stop()
        value = event.value.strip()
        if not value:
            self.dismiss(None)
            return
        try:
            read_summary(Path(value).expanduser())  # summary.json only: quick, and the usual failure
        except ReplayDataError as exc:
            error = self.query_one("#replay-error", Static)
            error.update(f"✖ {exc}  (fix the path and press Enter, or Esc)")
            error.add_class("visible")
            self.app.bell()
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def open_day(directory: str | Path, progress: Callable[[int], None] | None = None) -> ReplayData:
    """What the Replay screen opens on: the day's first incident, read from its hour's frames up to
    the incident's minute when the job wrote them in time order, else the whole hour (a fraction of a
    second even for millions of frames; the screen then reads the rest in the background), or, for an
    older job's output without per-hour frames, the whole day."""
    directory = Path(directory).expanduser()
    summary = read_summary(directory)
    first = summary.incidents[0].start_ms if summary.incidents else summary.day_start_ms
    minute = max(0, min(MINUTES - 1, (first - summary.day_start_ms) // 60_000))
    return ReplayData.load_hour(directory, minute // 60, minute) or ReplayData.load(directory, progress)


def ask_replay_dir(app: App[Any]) -> None:
    """The palette's "Replay a day…": ask for OUT, read it in a worker thread, open the Replay screen."""

    def chosen(directory: str | None) -> None:
        if directory:
            open_replay(app, Path(directory).expanduser())

    app.push_screen(ReplayDirPrompt(), callback=chosen)


def open_replay(app: App[Any], directory: Path) -> None:
    """Read OUT without blocking the UI; errors are shown as one line."""
    app.notify(f"reading {directory}…", timeout=2)

    reports = [0]

    def progress(frames: int) -> None:  # a big day takes tens of seconds: a toast every ~1M frames
        reports[0] += 1
        if not reports[0] % 4:
            app.call_from_thread(app.notify, f"reading {directory}… {frames:,} partition frames", timeout=3)

    def load() -> None:
        try:
            data = open_day(directory, progress)
        except ReplayDataError as exc:
            app.call_from_thread(app.notify, str(exc), severity="error", timeout=8)
            return
        app.call_from_thread(app.push_screen, ReplayScreen(data))

    app.run_worker(load, thread=True, group="replay", exit_on_error=False)
