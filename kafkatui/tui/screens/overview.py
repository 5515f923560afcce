"""The overview: brokers, topics worst first, and what changed between refreshes."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding

from kafkatui.columns import BROKERS, TOPICS, Context
from kafkatui.model.changes import Change, summarize
from kafkatui.model.mode import snapshot_mode
from kafkatui.model.unfenced import per_topic, writes_failing_first
from kafkatui.present import problems_sentence
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import OpenBroker, OpenTopic, StartAlter
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.columns import table_columns
from kafkatui.tui.widgets.events import EventLog
from kafkatui.tui.widgets.vtable import VirtualTable


class OverviewScreen(DashScreen):
    """Brokers on top, topics worst first in the middle, events at the bottom."""

    BINDINGS = [
        Binding("b", "focus_brokers", "brokers", show=False),  # in help; Tab moves between the panes too
        Binding("t", "focus_topics", "topics", show=False),
        Binding("e", "focus_events", "events", show=False),
        Binding("a", "alter", "alter"),
        Binding("d", "app.launch_replay", "replay"),  # the app's key, shown where the on-call user starts
    ]

    DEFAULT_CSS = """
    OverviewScreen #brokers { height: 7; min-height: 3; }
    OverviewScreen #topics { height: 1fr; min-height: 4; }
    OverviewScreen #events { height: 1fr; min-height: 4; }
    """

    def body(self) -> ComposeResult:
        yield VirtualTable[int](table_columns(BROKERS), id="brokers")
        yield VirtualTable[str](table_columns(TOPICS), id="topics")
        yield EventLog(id="events")

    def on_mount(self) -> None:
        self.query_one("#topics", VirtualTable).focus()
        self.query_one("#events", EventLog).border_title = "events"
        log = self.query_one("#events", EventLog)
        log.placeholder(Text("waiting for the first snapshot…", style="dim"))
        self._first = True
        self._demo_intro = self.session.demo.intro() if self.session.demo is not None else ""

    def on_resize(self) -> None:
        self._check_size()
        self._layout()

    def _layout(self) -> None:
        """Every broker in view (up to 40% of the body), topics as many rows as they have, events the rest.

        Fixed shares left 10 blank lines under 11 topics and 6 lines of events at 120x40, and hid two of
        six brokers at 80x24.
        """
        report = self.state.report
        body = self.query_one("#screen-body").size.height or max(1, self.app.size.height - 3)
        n_brokers = len(report.brokers) if report is not None else 3
        n_topics = self.query_one("#topics", VirtualTable).visible_count
        brokers_h = max(3, min(n_brokers + 1, int(body * 0.4)))
        events_min = 4 if body < 30 else 7
        topics_h = max(4, min(n_topics + 1, body - brokers_h - events_min))
        self.query_one("#brokers", VirtualTable).styles.height = brokers_h
        self.query_one("#topics", VirtualTable).styles.height = topics_h

    def show(self, state: ViewState) -> None:
        report = state.report
        assert report is not None
        brokers: VirtualTable[int] = self.query_one("#brokers", VirtualTable)
        topics: VirtualTable[str] = self.query_one("#topics", VirtualTable)
        bh = report.brokers
        th = report.topics
        snap = state.snapshot
        down = per_topic(snap) if snap is not None and report.counts.leader_refused else {}
        context = Context(mode=snapshot_mode(snap) if snap is not None else None, leader_down=down)
        brokers.load(sorted(bh), lambda k, c: BROKERS.cell(bh[k], c, context), lambda k, c: BROKERS.sort(bh[k], c), str)
        ordered = [t.name for t in writes_failing_first(report.topics_worst_first(), down)]
        # a cursor the user has not moved stays on the worst topic: a reordering must not scroll it away
        at_top = topics.cursor_row == 0
        topics.load(
            ordered, lambda k, c: TOPICS.cell(th[k], c, context), lambda k, c: TOPICS.sort(th[k], c), lambda k: k
        )
        if at_top:
            topics.cursor_to_top()
        self._layout()
        log = self.query_one("#events", EventLog)
        if getattr(self, "_first", False) and state.snapshot is not None:
            self._first = False
            when = datetime.fromtimestamp(state.snapshot.taken_at).strftime("%H:%M:%S")
            log.add(
                Text(
                    f"{when} first snapshot: {report.counts.partitions} partitions on "
                    f"{report.counts.brokers_total} brokers; changes between refreshes appear here",
                    style="dim",
                )
            )
            if getattr(self, "_demo_intro", ""):
                log.add(Text(self._demo_intro, style="bold"))
        demo = self.session.demo
        if demo is not None:
            for note in demo.drain():
                log.add(Text(note, style="bold yellow"))
                log.border_title = f"events · {note}"  # the story's latest step stays in view
        for note in self.session.drain_notes():  # what the dashboard itself changed (a config applied)
            log.add(Text(note, style="bold cyan"))
        if state.changes:
            topics.flash({c.topic for c in state.changes if c.topic})
            brokers.flash(
                {c.broker for c in state.changes if c.broker is not None and c.kind.value.startswith("broker")}
            )
            for change in summarize(list(state.changes)):
                self._log_change(change)
        if state.error:
            log.add(Text(f"refresh failed: {state.error}", style="bold red"), key=f"error:{state.error}")
        snap = state.snapshot
        problems = snap.problems if snap is not None and snap.partial else ()
        sentence = problems_sentence(problems)
        if sentence and sentence != self._last_problems:
            log.add(Text(f"PARTIAL snapshot, {sentence}", style="yellow"))
        self._last_problems = sentence
        over = demo.over() if demo is not None else None
        if over:
            log.add(Text(over, style="bold"))
            self.notify(over, timeout=15)

    _last_problems: str = ""

    def _log_change(self, change: Change) -> None:
        stamp = datetime.fromtimestamp(change.at).strftime("%H:%M:%S")
        style = (
            "red" if change.severe else ("green" if change.kind.value in ("broker up", "online", "ISR expand") else "")
        )
        self.query_one("#events", EventLog).add(Text(f"{stamp} {change.text}", style=style))

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        if event.table.id == "topics":
            self.post_message(OpenTopic(str(event.key)))
        elif event.table.id == "brokers":
            key = event.key
            assert isinstance(key, int)
            self.post_message(OpenBroker(key))

    def alter_targets(self) -> list[tuple[str, str]]:
        """`a` alters the topics matching the filter, else the topic under the cursor."""
        topics: VirtualTable[str] = self.query_one("#topics", VirtualTable)
        if topics.filter_text:
            return [("topic", t) for t in topics.keys_in_view()]
        key = topics.cursor_key
        return [("topic", key)] if key is not None else []

    def action_alter(self) -> None:
        self.post_message(StartAlter(tuple(self.alter_targets())))

    def action_focus_brokers(self) -> None:
        self.query_one("#brokers", VirtualTable).focus()

    def action_focus_topics(self) -> None:
        self.query_one("#topics", VirtualTable).focus()

    def action_focus_events(self) -> None:
        self.query_one("#events", EventLog).focus()
