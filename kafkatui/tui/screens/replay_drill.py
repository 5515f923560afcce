"""The replay's drill-down: the live topic, partition and broker screens fed a replayed minute.

`Replayed` is the base of every replay screen: its header is the replay's (REPLAY of DAY at HH:MM UTC,
never live) and the live feed's updates are ignored. The partition screen adds every change of the
partition that day. The live screens' config changes (`a`) are refused here: a replayed minute is the
past, changes start from the live dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kafkatui.history.replay.schema import NOT_RECORDED
from kafkatui.history.view.data import MINUTES, ReplayData
from kafkatui.model.evaluation import Assessment, evaluate
from kafkatui.model.health import Health, HealthReport
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.present import HEALTH_STYLE, ids
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import OpenBroker, OpenPartition, OpenTopic
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.screens.broker import BrokerScreen
from kafkatui.tui.screens.partition import PartitionScreen
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.widgets.findings import FindingList
from kafkatui.tui.widgets.summary import SummaryBar


def hhmm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def clock(ts_ms: int, millis: bool = True) -> str:
    """Epoch ms -> 'HH:MM:SS.mmm' UTC."""
    t = datetime.fromtimestamp(ts_ms / 1000, UTC)
    return t.strftime("%H:%M:%S") + (f".{ts_ms % 1000:03d}" if millis else "")


def duration(seconds: float) -> str:
    """326.38 -> '5m26.38s'; 900 -> '15m00s'; 8010 -> '2h13m30s'."""
    if seconds < 60:
        return f"{seconds:g}s"
    if seconds < 3600:
        m, s = divmod(seconds, 60)
        return f"{int(m)}m{s:05.2f}s".replace(".00s", "s")
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h)}h{int(m):02d}m{s:05.2f}s".replace(".00s", "s")


@dataclass
class ReplayMoment:
    """The replayed cluster at one minute, as the live screens want it (its evaluation, with the
    findings, built on demand: scrubbing the timeline needs only the report)."""

    data: ReplayData
    minute: int
    snapshot: ClusterSnapshot
    report: HealthReport
    _state: ViewState | None = field(default=None, repr=False)

    @classmethod
    def at(cls, data: ReplayData, minute: int) -> ReplayMoment:
        snapshot, report = data.at(minute)
        return cls(data, minute, snapshot, report)

    @property
    def assessment(self) -> Assessment:
        """The one evaluation of the minute (`kafkatui.model.evaluation`): the ISR shrinks of the hour
        before it (within the day) as history, the commands addressed to the snapshot's placeholder
        bootstrap."""
        return self.state.assessment  # type: ignore[return-value]  # always set by `state`

    @property
    def state(self) -> ViewState:
        if self._state is None:
            shrinks = self.data.shrink_counts(self.minute)
            self._state = ViewState.empty().succeeded(evaluate(self.snapshot, shrinks, report=self.report), ())
        return self._state


def replay_markup(data: ReplayData, minute: int, report: HealthReport | None, width: int = 200) -> Text:
    """Two lines: REPLAY of DAY at HH:MM UTC (not live), brokers; then the counts at that minute.

    Narrower than 100 columns the labels get short, so that each line still fits on one.
    """
    s = data.summary
    wide = width >= 100
    t = Text()
    t.append(" REPLAY ", style="bold reverse")
    t.append(f" {s.day} at {hhmm(minute)} UTC", style="bold")
    t.append(" (end of the minute) · not live" if wide else " · not live", style="dim")
    if report is not None:
        c = report.counts
        t.append(f" · brokers {c.brokers_up}/{c.brokers_total}")
        if c.brokers_down:
            t.append(f" (down: {','.join(map(str, c.brokers_down))})", style="bold red")
    if wide:
        t.append(f" · {data.directory}", style="dim")
    t.append("\n")
    gap = data.gap_at(minute)
    if gap is not None and gap.reason == NOT_RECORDED:
        t.append(
            f"⏹ the recording ends at {clock(gap.start_ms, False)}: nothing known after it"
            + (" (the tables show its last state)   " if wide else "   "),
            style="bold yellow",
        )
    elif gap is not None:
        t.append(
            f"? state unknown {clock(gap.start_ms, False)}–{clock(gap.end_ms, False)}: recorder gap"
            + (f" ({gap.reason})   " if wide else "   "),
            style="bold yellow",
        )
    if report is not None:
        c = report.counts
        labels = (
            ("offline", "under minISR", "at minISR", "under-replicated")
            if wide
            else ("offline", "<minISR", "=minISR", "URP")
        )
        for health, label, n in zip(
            (Health.OFFLINE, Health.UNDER_MIN_ISR, Health.AT_MIN_ISR, Health.UNDER_REPLICATED),
            labels,
            (c.offline, c.under_min_isr, c.at_min_isr, c.under_replicated_total),
            strict=True,
        ):
            t.append(
                f"{health.symbol} {label} {n}   " if wide else f"{health.symbol} {label} {n}  ",
                style=HEALTH_STYLE[health] if n else "dim",
            )
    else:
        t.append("counts at the end of the minute: reading…   " if wide else "reading…  ", style="dim")
    worst = s.timeline[minute].worst
    t.append("during the minute: " if wide else "minute's worst ", style="dim")
    t.append(f"{worst.symbol} {worst.label}", style=HEALTH_STYLE[worst])
    return t


class Replayed(DashScreen):
    """Base of the replay screens: the header is the replay's, and the live feed's updates are ignored."""

    moment: ReplayMoment
    _shown: ReplayMoment | None = None
    # the live screens' writes (config changes, elections, reassignments): not from the past
    LIVE_ONLY = frozenset({"alter", "alter_defaults", "elect", "unclean", "reassign", "elect_all", "revert_last"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in self.LIVE_ONLY and super().check_action(action, parameters)

    def update_state(self, state: ViewState) -> None:
        """Called at mount and after each live refresh (when opened from the live dashboard): show the
        replayed minute once; the live state is not this screen's business."""
        self.tick()
        if self._shown is not self.moment:
            self._shown = self.moment
            self.show(self.moment.state)

    def tick(self) -> None:
        m = getattr(self, "moment", None)
        if m is not None:
            self.query_one(SummaryBar).update(replay_markup(m.data, m.minute, m.report, self.app.size.width))

    def open_topic(self, topic: str) -> None:
        self.app.push_screen(ReplayTopicScreen(self.moment, topic))

    def open_partition(self, topic: str, partition: int) -> None:
        self.app.push_screen(ReplayPartitionScreen(self.moment, topic, partition))

    def open_broker(self, broker: int) -> None:
        self.app.push_screen(ReplayBrokerScreen(self.moment, broker))

    # the live screens' drill-down asks the app for the live screens: here it opens the replayed ones
    def on_open_topic(self, message: OpenTopic) -> None:
        message.stop()
        self.open_topic(message.topic)

    def on_open_partition(self, message: OpenPartition) -> None:
        message.stop()
        self.open_partition(message.topic, message.partition)

    def on_open_broker(self, message: OpenBroker) -> None:
        message.stop()
        self.open_broker(message.broker_id)


class ReplayTopicScreen(Replayed, TopicScreen):
    """The live topic screen at a replayed minute."""

    def __init__(self, moment: ReplayMoment, topic: str) -> None:
        self.moment = moment
        super().__init__(topic)


class ReplayBrokerScreen(Replayed, BrokerScreen):
    """The live broker screen at a replayed minute."""

    def __init__(self, moment: ReplayMoment, broker_id: int) -> None:
        self.moment = moment
        super().__init__(broker_id)


class ReplayPartitionScreen(Replayed, PartitionScreen):
    """The live partition screen at a replayed minute, plus every change of the partition that day."""

    BINDINGS = [Binding("t", "topic", "its topic")]

    DEFAULT_CSS = """
    ReplayPartitionScreen #day-history { height: auto; margin-bottom: 1; }
    """

    def __init__(self, moment: ReplayMoment, topic: str, partition: int) -> None:
        self.moment = moment
        super().__init__(topic, partition)

    def body(self) -> ComposeResult:
        with VerticalScroll(id="detail"):
            yield Static(id="facts")
            yield Static(id="day-history")
            yield Static(id="verdict")
            yield FindingList(id="findings")

    def show(self, state: ViewState) -> None:
        super().show(state)
        self.query_one("#day-history", Static).update(self.day_history())

    def day_history(self) -> Table | Text:
        """The partition's states that day, one line per change, the one in force at the minute marked."""
        data, minute = self.moment.data, self.moment.minute
        changes = data.history(self.topic, self.partition)
        if not changes:
            return Text("no frame for this partition that day", style="dim")
        end_of_minute = data.end_ms(minute)
        day_end = data.summary.day_start_ms + MINUTES * 60_000
        grid = Table.grid(padding=(0, 2), pad_edge=False)
        grid.title = f"{self.topic}-{self.partition} on {data.summary.day} (UTC)"
        grid.title_justify = "left"
        grid.title_style = "bold"
        for col in ("from", "state", "for", "leader", "ISR", ""):
            grid.add_column(col, no_wrap=True)
        for i, c in enumerate(changes):
            until = changes[i + 1].ts_ms if i + 1 < len(changes) else day_end
            current = c.ts_ms < end_of_minute <= until or (i + 1 == len(changes) and c.ts_ms < end_of_minute)
            health = c.health
            state = Text(f"{health.symbol} {health.label}", style=HEALTH_STYLE[health]) if health else Text("?")
            grid.add_row(
                clock(c.ts_ms),
                state,
                duration(max(0, until - c.ts_ms) / 1000),
                "✖ none" if c.leader < 0 else str(c.leader),
                ids(c.isr),
                Text(f"◀ at {hhmm(minute)}", style="bold") if current else "",
            )
        return grid

    def action_topic(self) -> None:
        self.open_topic(self.topic)
