"""The topic screen: the topic's verdict on one line, then every partition with its replicas and lag."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from kafkatui.model.health import Health, HealthReport, PartitionHealth, TopicHealth
from kafkatui.model.snapshot import PartitionInfo
from kafkatui.model.unfenced import SYMBOL as UNFENCED_SYMBOL
from kafkatui.present import HEALTH_STYLE, ids, leader_down_status, min_isr_cell, source_word
from kafkatui.tolerance import durability_words
from kafkatui.tui.feed import ViewState
from kafkatui.tui.format import headroom_text, lag_text, partition_cell
from kafkatui.tui.messages import OpenPartition, StartAlter, StartPreferredElection, StartReassign
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.vtable import Column, VirtualTable

PARTITION_COLUMNS = [
    Column("status", "status", 9),
    Column("partition", "part", 5, "right"),
    Column("leader", "leader", 12, min_width=6),
    Column("replicas", "replicas", 12, min_width=8),
    Column("isr", "ISR", 10, min_width=5),
    Column("minisr", "minISR", 6, "right"),
    Column("headroom", "headroom", 10, min_width=8),
    Column("lag", "out-of-ISR lag", 20, min_width=8, short="lag"),
    Column("elr", "ELR", 6, min_width=4),  # "none" whole at 80 columns: at 3 it read "no…"
]


def partition_search_text(report: HealthReport, topic: str, partition: int) -> str:
    """What `/` matches a partition row against: 'orders-3 under minISR'.

    Reads the partition's class only: building the detail view for every row (lag of each replica)
    made the first filter of a 5,000-partition topic five times slower and kept 5,000 views alive.
    """
    return f"{topic}-{partition} {report.health(topic, partition).label}"


def durability_text(th: TopicHealth) -> str:
    """The design figure (RF, minISR) and the figure now (current ISR), as two clauses never mixed."""
    return durability_words(th)


def topic_header(th: TopicHealth) -> Text:
    """The topic's verdict in one line (two when the counts by class do not fit)."""
    t = Text()
    t.append(f"{th.name} ", style="bold")
    if th.internal:
        t.append("(internal) ", style="dim")
    t.append(f"{th.worst.symbol} {th.worst.label}", style=HEALTH_STYLE[th.worst])
    rf = f"RF {th.rf}" if th.rf == th.min_rf else f"RF {th.min_rf}-{th.rf}"
    t.append(f"  {rf}  minISR {min_isr_cell(th)} ({source_word(th.min_isr_source)})")
    t.append(
        f"  unclean {'ON' if th.unclean else 'off'} ({source_word(th.unclean_source)})",
        style="bold red" if th.unclean else "",
    )
    t.append(f"  {durability_text(th)}")
    t.append(f"\n{th.partitions} partitions: ")
    parts = [f"{h.symbol} {th.count(h)} {h.label}" for h in Health if th.count(h)]
    t.append(" · ".join(parts) or "none")
    if th.under_replicated_total:
        t.append(f"  ({th.under_replicated_total} under-replicated in all)", style="dim")
    return t


class TopicScreen(DashScreen):
    """Every partition of one topic: leader, replicas vs ISR, headroom, lag and ELR."""

    releases_state = True  # see on_unmount and kafkatui.tui.app.GcPacer

    BINDINGS = [Binding("a", "alter", "alter"), Binding("e", "elect", "elect"), Binding("R", "reassign", "RF")]

    DEFAULT_CSS = """
    TopicScreen #topic-header { height: auto; padding: 0 1; }
    TopicScreen #partitions { height: 1fr; min-height: 4; }
    """

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self._details: dict[int, PartitionHealth] = {}
        self._infos: dict[int, PartitionInfo] = {}
        self._report: HealthReport | None = None
        self._down_leaders: frozenset[int] = frozenset()  # listed brokers refusing connections
        self._left_in_theme: str | None = None  # the theme when the screen was last closed (see reuse_for)
        self._restyled = False  # shown again with its styles as they were: no restyle on resume

    def body(self) -> ComposeResult:
        yield Static(self._waiting(), id="topic-header")
        yield VirtualTable[int](PARTITION_COLUMNS, id="partitions")

    def _waiting(self) -> Text:
        return Text(f"{self.topic}: waiting for the first snapshot…", style="dim")

    def on_mount(self) -> None:
        self.query_one("#partitions", VirtualTable).focus()

    def on_unmount(self) -> None:
        # a closed screen is cyclic garbage until the next collection (see kafkatui.tui.app.GcPacer):
        # let the snapshot and report it showed go now
        self.release()

    def release(self) -> None:
        """Drop every reference to the state shown (the screen is closed, or kept to be shown again)."""
        self._report = None
        self._infos = {}
        self._details.clear()
        self._left_in_theme = self.app.theme if self.is_attached else None

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual's push restyles every widget of the screen (15 ms here); a kept screen shown again in the
        # theme it was left in has its styles already (class and focus changes restyle as they happen)
        if self._restyled:
            event.refresh_styles = False
            self._restyled = False

    def reuse_for(self, topic: str, state: ViewState) -> None:
        """Show `topic` on this screen, built before for another: as a new screen would (no filter, no
        sort, the cursor at the top, the table focused), without building one (see KafkaTuiApp.open_topic)."""
        self.topic = topic
        self._restyled = self._left_in_theme == self.app.theme
        self.release()
        self.clear_filter_bar()
        table: VirtualTable[int] = self.query_one("#partitions", VirtualTable)
        table.reset()
        if state.snapshot is None or state.report is None:  # else `show` writes the header at once
            self.query_one("#topic-header", Static).update(self._waiting())
        if self.focused is not table:
            self.set_focus(table)
        self.update_state(state)

    def show(self, state: ViewState) -> None:
        report, snap = state.report, state.snapshot
        assert report is not None and snap is not None
        header = self.query_one("#topic-header", Static)
        table: VirtualTable[int] = self.query_one("#partitions", VirtualTable)
        self._details.clear()
        th = report.topics.get(self.topic)
        info = snap.topics.get(self.topic)
        if th is None or info is None:
            self._report = None
            self._infos = {}
            header.update(
                Text(
                    f"✖ topic {self.topic} is not in the latest snapshot (deleted, or not visible to "
                    "this client). Esc goes back.",
                    style="bold red",
                )
            )
            table.load([], self._cell)
            return
        self._report = report
        snap = state.snapshot
        self._down_leaders = snap.refused & snap.broker_ids if snap is not None else frozenset()
        self._infos = {p.partition: p for p in info.partitions}
        header.update(topic_header(th))
        table.load([p.partition for p in info.partitions], self._cell, self._sort, self._search)
        changed = {c.partition for c in state.changes if c.topic == self.topic and c.partition is not None}
        if changed:
            table.flash(changed)

    def detail(self, partition: int) -> PartitionHealth:
        """The partition's health view, built once per refresh."""
        ph = self._details.get(partition)
        if ph is None:
            assert self._report is not None
            ph = self._details[partition] = self._report.partition(self.topic, partition)
        return ph

    def _cell(self, key: int, col: str) -> str | Text:
        ph = self.detail(key)
        if ph.leader in self._down_leaders:  # writes fail now, whatever the class says
            if col == "status":
                return leader_down_status()
            if col == "leader":  # the broker the status blames, marked where it is named
                return Text(f"{ph.leader} {UNFENCED_SYMBOL} down", style="bold red")
        shared = partition_cell(ph, col, self._report.live if self._report is not None else None)
        if shared is not None:
            return shared
        if col == "partition":
            return str(key)
        if col == "headroom":
            return headroom_text(ph)
        if col == "lag":
            return lag_text(ph.out_of_sync)
        if col == "elr":
            elr = self._infos[key].elr
            return Text("-", style="dim") if elr is None else Text(ids(elr))
        return ""

    def _sort(self, key: int, col: str) -> object:
        ph = self.detail(key)
        if col == "status":
            return (ph.health, ph.headroom, key)
        if col == "leader":
            return (ph.leader < 0, not ph.non_preferred, ph.leader)
        if col == "replicas":
            return (-len(ph.out_of_sync), ph.replicas)
        if col == "isr":
            return (len(ph.isr), ph.isr)
        if col == "minisr":
            return ph.min_isr
        if col == "headroom":
            return (ph.headroom, key)
        if col == "lag":
            return -sum(r.byte_lag or 0 for r in ph.out_of_sync)
        if col == "elr":
            elr = self._infos[key].elr
            return (elr is None, elr or ())
        return key

    def _search(self, key: int) -> str:
        assert self._report is not None
        return partition_search_text(self._report, self.topic, key)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        if self._report is not None:
            self.post_message(OpenPartition(self.topic, int(event.key)))

    def action_alter(self) -> None:
        self.post_message(StartAlter((("topic", self.topic),)))

    def action_elect(self) -> None:
        self.post_message(StartPreferredElection((self.topic,)))

    def action_reassign(self) -> None:
        self.post_message(StartReassign(self.topic))
