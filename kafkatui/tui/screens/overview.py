"""The overview: brokers, topics worst first, and what changed between refreshes."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import RichLog

from kafkatui.model.changes import Change, summarize
from kafkatui.model.health import BrokerHealth, Health, TopicHealth
from kafkatui.present import broker_state, restart_now
from kafkatui.tui.feed import ViewState
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.vtable import Column, VirtualTable

STATUS_STYLE = {
    Health.OFFLINE: "bold red", Health.UNDER_MIN_ISR: "red", Health.AT_MIN_ISR: "yellow",
    Health.UNDER_REPLICATED: "yellow", Health.NON_PREFERRED_LEADER: "cyan", Health.HEALTHY: "green",
}
SOURCE = {
    "DYNAMIC_TOPIC_CONFIG": "topic", "DYNAMIC_BROKER_CONFIG": "broker", "DYNAMIC_DEFAULT_BROKER_CONFIG": "cluster",
    "STATIC_BROKER_CONFIG": "static", "DEFAULT_CONFIG": "default", "ASSUMED_DEFAULT": "assumed",
}

BROKER_COLUMNS = [
    Column("id", "broker", 6, "right"),
    Column("state", "state", 20, min_width=10),
    Column("rack", "rack", 10, min_width=4),
    Column("led", "leads", 6, "right"),
    Column("hosted", "hosts", 6, "right"),
    Column("out", "out of ISR", 10, "right", min_width=5),
    Column("restart", "restart now", 26, min_width=8),
]
TOPIC_COLUMNS = [
    Column("status", "status", 18, min_width=3),
    Column("topic", "topic", 28, min_width=12),
    Column("partitions", "parts", 6, "right"),
    Column("offline", "offl", 5, "right"),
    Column("under", "<min", 5, "right"),
    Column("at", "=min", 5, "right"),
    Column("urp", "URP", 5, "right"),
    Column("rf", "RF", 3, "right"),
    Column("minisr", "minISR", 13, min_width=6),
    Column("headroom", "room", 5, "right"),
    Column("survives", "survives", 14, min_width=1),
]


def status_cell(h: Health) -> Text:
    return Text(f"{h.symbol} {h.label}", style=STATUS_STYLE[h])


def broker_cell(b: BrokerHealth, key: str) -> str | Text:
    if key == "id":
        return str(b.id)
    if key == "state":
        return broker_state(b)
    if key == "rack":
        return b.rack or "-"
    if key == "led":
        return str(b.led)
    if key == "hosted":
        return str(b.hosted)
    if key == "out":
        return Text(str(b.out_of_isr), style="red" if b.out_of_isr else "")
    if key == "restart":
        return restart_now(b)
    return ""


def broker_sort(b: BrokerHealth, key: str) -> object:
    return {"id": b.id, "state": (b.up, not b.missing_from_all_isrs), "rack": b.rack or "", "led": b.led,
            "hosted": b.hosted, "out": b.out_of_isr, "restart": (b.restart_safe, -b.restart_under_min_isr)}.get(key, b.id)


def topic_cell(t: TopicHealth, key: str) -> str | Text:
    if key == "status":
        return status_cell(t.worst)
    if key == "topic":
        return Text(t.name, style="dim" if t.internal else "")
    if key == "partitions":
        return str(t.partitions)
    counts = {"offline": Health.OFFLINE, "under": Health.UNDER_MIN_ISR, "at": Health.AT_MIN_ISR}
    if key in counts:
        n = t.count(counts[key])
        return Text(str(n), style=STATUS_STYLE[counts[key]] if n else "dim")
    if key == "urp":
        return Text(str(t.under_replicated_total), style="yellow" if t.under_replicated_total else "dim")
    if key == "rf":
        return str(t.rf)
    if key == "minisr":
        return f"{t.min_isr} {SOURCE.get(t.min_isr_source, t.min_isr_source.lower())}"
    if key == "headroom":
        return Text(f"{t.min_headroom:+d}", style="red" if t.min_headroom < 0 else ("yellow" if t.min_headroom == 0 else "green"))
    if key == "survives":
        return f"{t.loss_tolerance} loss/{t.write_tolerance} wr"
    return ""


def topic_sort(t: TopicHealth, key: str) -> object:
    values: dict[str, object] = {
        "status": (t.worst, -t.affected, t.name), "topic": t.name, "partitions": t.partitions,
        "offline": t.count(Health.OFFLINE), "under": t.count(Health.UNDER_MIN_ISR), "at": t.count(Health.AT_MIN_ISR),
        "urp": t.under_replicated_total, "rf": t.rf, "minisr": t.min_isr, "headroom": t.min_headroom,
        "survives": (t.loss_tolerance, t.write_tolerance),
    }
    return values.get(key, t.name)


class OverviewScreen(DashScreen):
    """Brokers on top, topics worst first in the middle, events at the bottom."""

    BINDINGS = [
        Binding("b", "focus_brokers", "brokers"),
        Binding("t", "focus_topics", "topics"),
        Binding("e", "focus_events", "events", show=False),
        Binding("a", "alter", "alter"),
    ]

    DEFAULT_CSS = """
    OverviewScreen #brokers { height: auto; max-height: 30%; min-height: 3; }
    OverviewScreen #topics { height: 1fr; min-height: 4; }
    OverviewScreen #events { height: 22%; min-height: 3; max-height: 10; border-top: solid $panel; }
    """

    def body(self) -> ComposeResult:
        yield VirtualTable[int](BROKER_COLUMNS, id="brokers")
        yield VirtualTable[str](TOPIC_COLUMNS, id="topics")
        yield RichLog(id="events", max_lines=500, markup=False, wrap=True, highlight=False)  # errors in full

    def on_mount(self) -> None:
        self.query_one("#topics", VirtualTable).focus()
        self.query_one("#events", RichLog).border_title = "events"
        self._log_line(Text("waiting for the first snapshot…", style="dim"))

    def show(self, state: ViewState) -> None:
        report = state.report
        assert report is not None
        brokers: VirtualTable[int] = self.query_one("#brokers", VirtualTable)
        topics: VirtualTable[str] = self.query_one("#topics", VirtualTable)
        bh = report.brokers
        th = report.topics
        brokers.load(sorted(bh), lambda k, c: broker_cell(bh[k], c), lambda k, c: broker_sort(bh[k], c), lambda k: str(k))
        brokers.styles.height = len(bh) + 1  # capped by max-height: 30%
        ordered = [t.name for t in report.topics_worst_first()]
        topics.load(ordered, lambda k, c: topic_cell(th[k], c), lambda k, c: topic_sort(th[k], c), lambda k: k)
        if state.changes:
            topics.flash({c.topic for c in state.changes if c.topic})
            brokers.flash({c.broker for c in state.changes if c.broker is not None and c.kind.value.startswith("broker")})
            for change in summarize(list(state.changes)):
                self._log_change(change)
        if state.error:
            self._log_line(Text(f"refresh failed: {state.error}", style="bold red"))
        snap = state.snapshot
        problems = snap.problems if snap is not None and snap.partial else ()
        if problems and problems != self._last_problems:
            self._log_line(Text("partial snapshot: " + "; ".join(problems), style="yellow"))
        self._last_problems = problems

    _last_problems: tuple[str, ...] = ()

    def _log_change(self, change: Change) -> None:
        stamp = datetime.fromtimestamp(change.at).strftime("%H:%M:%S")
        style = "red" if change.severe else ("green" if change.kind.value in ("broker up", "online", "ISR expand") else "")
        self._log_line(Text(f"{stamp} {change.text}", style=style))

    def _log_line(self, text: Text) -> None:
        self.query_one("#events", RichLog).write(text)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        if event.table.id == "topics":
            self.dash.open_topic(str(event.key))
        elif event.table.id == "brokers":
            self.dash.open_broker(int(event.key))  # type: ignore[call-overload]

    def alter_targets(self) -> list[tuple[str, str]]:
        """`a` alters the topics matching the filter, else the topic under the cursor."""
        topics: VirtualTable[str] = self.query_one("#topics", VirtualTable)
        if topics.filter_text:
            return [("topic", t) for t in topics.keys_in_view()]
        key = topics.cursor_key
        return [("topic", key)] if key is not None else []

    def action_alter(self) -> None:
        from kafkatui.tui.write_actions import start_alter

        start_alter(self.dash, self.alter_targets())

    def action_focus_brokers(self) -> None:
        self.query_one("#brokers", VirtualTable).focus()

    def action_focus_topics(self) -> None:
        self.query_one("#topics", VirtualTable).focus()

    def action_focus_events(self) -> None:
        self.query_one("#events", RichLog).focus()
