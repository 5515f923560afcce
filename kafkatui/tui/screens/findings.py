"""The findings screen: every finding, severity first, with the highlighted one in full below."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kafkatui.model.findings import Finding
from kafkatui.present import SEVERITY_RANK, SEVERITY_SYMBOL, severity_text
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import OpenBroker, OpenPartition, OpenTopic
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.findings import FindingView, copy_commands
from kafkatui.tui.widgets.vtable import Column, VirtualTable

FINDING_COLUMNS = [
    Column("severity", "severity", 10, min_width=3),
    Column("title", "finding", 66, min_width=24),
    Column("partitions", "partitions", 24, min_width=12),
    Column("brokers", "brokers", 8, min_width=4),
]


def finding_key(f: Finding) -> str:
    """A key that stays the same across refreshes while the problem lasts."""
    return "\x1f".join((f.id, ",".join(f.topics), ",".join(map(str, f.brokers))))


def partitions_cell(f: Finding) -> str:
    """'3: orders-0, orders-3' — the count, then the first names."""
    n = f.affected_partitions or len(f.partitions)
    if not n:
        return "-"
    return f"{n}: {', '.join(f.partitions[:3])}" if f.partitions else str(n)


def open_resource(f: Finding) -> tuple[str, str | int | tuple[str, int]] | None:
    """What Enter opens: the first partition, else the first topic, else the first broker."""
    for name in f.partitions:
        topic, _, number = name.rpartition("-")
        if topic and number.isdigit():
            return ("partition", (topic, int(number)))
    if f.topics:
        return ("topic", f.topics[0])
    if f.brokers:
        return ("broker", f.brokers[0])
    return None


class FindingsScreen(DashScreen):
    """All findings worst first; the highlighted one is shown in full; Enter opens what it is about."""

    BINDINGS = [Binding("c", "copy_commands", "copy")]

    DEFAULT_CSS = """
    FindingsScreen #findings-table { height: 2fr; min-height: 4; }
    FindingsScreen #finding-detail { height: 3fr; min-height: 4; padding: 0 1; border-top: solid $panel; }
    FindingsScreen #finding-detail:focus-within { border-top: solid $accent; }
    FindingsScreen #no-finding { height: auto; }
    FindingsScreen #findings-count { height: 1; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._by_key: dict[str, Finding] = {}

    def body(self) -> ComposeResult:
        yield Static(id="findings-count")
        yield VirtualTable[str](FINDING_COLUMNS, id="findings-table")
        with VerticalScroll(id="finding-detail"):
            yield Static(id="no-finding")
            yield FindingView(id="finding-view")

    def on_mount(self) -> None:
        self.query_one("#findings-table", VirtualTable).focus()
        self._detail_hint()

    def _detail_hint(self) -> None:
        """Say on the details' top border how to reach what to do and the commands (below the fold at 80x24)."""
        detail = self.query_one("#finding-detail", VerticalScroll)
        inside = self.focused is not None and (self.focused is detail or detail in self.focused.ancestors)
        detail.border_title = (
            "details: PgDn/PgUp/↑↓ scroll · Esc: back to the list · c copies"
            if inside
            else "Tab: scroll the details (what to do, commands) · c copies"
        )

    def on_descendant_focus(self) -> None:
        self._detail_hint()

    def action_back(self) -> None:
        table = self.query_one("#findings-table", VirtualTable)
        if not self.filter_active and self.focused is not None and self.focused is not table:
            table.focus()  # from the details, Esc returns to the list first
            return
        super().action_back()

    @property
    def current(self) -> Finding | None:
        """The highlighted finding."""
        key = self.query_one("#findings-table", VirtualTable).cursor_key
        return self._by_key.get(key) if key is not None else None

    def show(self, state: ViewState) -> None:
        by_key: dict[str, Finding] = {}
        for f in state.findings:
            key = finding_key(f)
            while key in by_key:  # two findings alike in id and resources: keep both
                key += "'"
            by_key[key] = f
        self._by_key = by_key
        table: VirtualTable[str] = self.query_one("#findings-table", VirtualTable)
        table.load(list(by_key), self._cell, self._sort, self._search)
        counts = Text(f"{len(by_key)} finding{'s' if len(by_key) != 1 else ''}, worst first: ", style="bold")
        for sev in SEVERITY_RANK:
            n = sum(1 for f in state.findings if f.severity == sev)
            counts.append_text(severity_text(sev) if n else Text(f"{SEVERITY_SYMBOL[sev]} {sev}", style="dim"))
            counts.append(f" {n}  ")
        counts.append("Enter opens it", style="dim")
        self.query_one("#findings-count", Static).update(counts)
        self._show_detail()

    def _cell(self, key: str, col: str) -> str | Text:
        f = self._by_key[key]
        if col == "severity":
            return severity_text(f.severity)
        if col == "title":
            return f.title
        if col == "partitions":
            return partitions_cell(f)
        if col == "brokers":
            return ",".join(map(str, f.brokers)) or "-"
        return ""

    def _sort(self, key: str, col: str) -> object:
        f = self._by_key[key]
        if col == "severity":
            return SEVERITY_RANK.get(f.severity, 9)
        if col == "partitions":
            return -(f.affected_partitions or len(f.partitions))
        if col == "brokers":
            return f.brokers
        return f.title

    def _search(self, key: str) -> str:
        f = self._by_key[key]
        return " ".join((f.severity, f.id, f.title, *f.topics, *f.partitions, *(f"broker {b}" for b in f.brokers)))

    def _show_detail(self) -> None:
        f = self.current
        view = self.query_one("#finding-view", FindingView)
        note = self.query_one("#no-finding", Static)
        if f is None:
            view.display = False
            note.display = True
            note.update(
                Text(
                    "✓ No findings: nothing is offline, under minISR or misconfigured."
                    if not self._by_key
                    else "no finding matches the filter",
                    style="green",
                )
            )
            return
        note.display = False
        view.display = True
        if view.finding != f:
            view.show(f)
            self.query_one("#finding-detail", VerticalScroll).scroll_home(animate=False)

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show_detail()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        f = self._by_key.get(event.key)
        target = open_resource(f) if f is not None else None
        if target is None:
            self.notify("this finding names no topic, partition or broker", timeout=3)
            return
        kind, what = target
        if kind == "partition":
            assert isinstance(what, tuple)
            self.post_message(OpenPartition(*what))
        elif kind == "topic":
            self.post_message(OpenTopic(str(what)))
        else:
            assert isinstance(what, int)
            self.post_message(OpenBroker(what))

    def action_copy_commands(self) -> None:
        f = self.current
        copy_commands(self, [f] if f is not None else [])
