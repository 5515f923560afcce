"""The what-if screen: toggle brokers down and watch the blast radius, recomputed from the model."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from kafkatui.model.health import BrokerHealth
from kafkatui.model.mode import Mode, snapshot_mode, words
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.whatif import TopicImpact, WhatIf, what_if
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import OpenTopic
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.marks import MarkedSelectionList
from kafkatui.tui.widgets.vtable import Column, VirtualTable

IMPACT_COLUMNS = [
    Column("status", "impact", 16, min_width=3),
    Column("topic", "topic", 30, min_width=10),
    Column("offline", "offline", 7, "right"),
    Column("under", "<minISR", 7, "right"),
    Column("single", "1 copy", 6, "right"),
]


class BrokerToggles(MarkedSelectionList):
    """The broker list; space toggles a broker down (shown in the footer)."""

    BINDINGS = [Binding("space", "select", "toggle down")]


def impact_status(t: TopicImpact) -> Text:
    """The worst thing that happens to the topic, as a symbol and words."""
    if t.offline:
        return Text("✖ goes offline", style="bold red")
    if t.under_min_isr:
        return Text("▼ under minISR", style="red")
    if t.single_in_sync_copy:
        return Text("● single copy", style="yellow")
    return Text("✓ unharmed", style="green")


def impact_sort(t: TopicImpact) -> tuple[int, int, int, str]:
    """Worst first: most partitions offline, then under minISR, then down to one copy."""
    return (-t.offline, -t.under_min_isr, -t.single_in_sync_copy, t.topic)


def broker_prompt(b: BrokerHealth, taken_down: bool = False, mode: Mode | None = None) -> Text:
    """'3 ✔ up  rack b  ctrl' / '3 ▼ DOWN (what-if)' / '4 ✖ already down': words, not only the check box colour."""
    t = Text(f"{b.id:>3} ")
    if b.up and taken_down:
        t.append("▼ DOWN?", style="bold yellow")
    elif b.refused:  # counted down already, like an absent broker
        t.append(f"✖ {words(mode).down_listed}", style="bold red")
    elif b.up:
        t.append("✔ up", style="green")
    else:
        t.append("✖ already down", style="bold red")
    if b.rack:
        t.append(f"  rack {b.rack}", style="dim")
    if b.controller:
        t.append("  ctrl", style="dim")
    return t


def _partitions(n: int) -> str:
    return f"{n} partition{'s' if n != 1 else ''}"


def summary_text(w: WhatIf, down: frozenset[int]) -> Text:
    """The model's sentence, then the counts in words and symbols."""
    t = Text(overflow="fold")
    if not down:
        t.append(
            "No broker selected: ↑↓ move, space toggles a broker down; the blast radius is recomputed on each toggle.",
            style="bold",
        )
    else:
        t.append(("✓ " if w.safe else "✖ ") + w.summary(), style="bold green" if w.safe else "bold red")
    t.append("\n")
    for label, n, symbol, style in (
        ("offline", len(w.offline), "✖", "bold red"),
        ("under minISR", len(w.under_min_isr), "▼", "red"),
        ("single in-sync copy", len(w.single_in_sync_copy), "●", "yellow"),
    ):
        t.append(f"{symbol} {label} ", style=style if n else "dim")
        t.append(str(n), style=("bold " + style) if n else "dim")
        t.append("   ")
    t.append(f"↺ leaders moved {w.leaders_moved}", style="dim")
    if w.already_down:
        t.append(
            f"\nalready down: broker {', '.join(map(str, sorted(w.already_down)))} "
            f"({_partitions(w.already_offline)} already offline, {w.already_under_min_isr} already under "
            "minISR: not counted above)",
            style="dim",
        )
    return t


class WhatIfScreen(DashScreen):
    """Pick brokers to take down; the offline / under-minISR / single-copy counts follow each toggle."""

    BINDINGS = [
        Binding("x", "clear", "all up"),
        Binding("b", "focus_brokers", "brokers"),
        Binding("t", "focus_topics", "topics"),
    ]

    DEFAULT_CSS = """
    WhatIfScreen #whatif-main { height: 1fr; }
    WhatIfScreen #whatif-left { width: 30; height: 1fr; border-right: solid $panel; }
    WhatIfScreen #toggles-title { height: 1; padding: 0 1; text-style: bold; }
    WhatIfScreen #toggles { height: 1fr; border: none; }
    WhatIfScreen #whatif-right { width: 1fr; height: 1fr; }
    WhatIfScreen #whatif-summary { height: auto; padding: 0 1; margin-bottom: 1; }
    WhatIfScreen #impact { height: 1fr; min-height: 4; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.down: set[int] = set()
        self.result: WhatIf | None = None
        self._snapshot: ClusterSnapshot | None = None
        self._prompts: list[tuple[int, str, bool]] = []

    def body(self) -> ComposeResult:
        with Horizontal(id="whatif-main"):
            with Vertical(id="whatif-left"):
                yield Static("take down (space):", id="toggles-title")
                yield BrokerToggles(id="toggles")
            with Vertical(id="whatif-right"):
                yield Static(Text("waiting for the first snapshot…", style="dim"), id="whatif-summary")
                yield VirtualTable[str](IMPACT_COLUMNS, id="impact")

    def on_mount(self) -> None:
        self.query_one(BrokerToggles).focus()

    def show(self, state: ViewState) -> None:
        report, snap = state.report, state.snapshot
        assert report is not None and snap is not None
        self._snapshot = snap
        brokers = sorted(report.brokers.values(), key=lambda b: b.id)
        self.down &= {b.id for b in brokers if b.serving}  # an absent broker is down already
        self._brokers = brokers
        prompts = [(b.id, broker_prompt(b, mode=snapshot_mode(snap)).markup, b.serving) for b in brokers]
        if prompts != self._prompts:
            self._prompts = prompts
            toggles = self.query_one(BrokerToggles)
            highlighted = toggles.highlighted
            with self.app.batch_update():
                toggles.clear_options()
                toggles.add_options(
                    [
                        Selection(
                            broker_prompt(b, b.id in self.down, snapshot_mode(snap)),
                            b.id,
                            b.id in self.down,
                            disabled=not b.serving,
                        )
                        for b in brokers
                    ]
                )
                if brokers:
                    toggles.highlighted = min(highlighted or 0, len(brokers) - 1)
        self.recompute()

    def recompute(self) -> None:
        """Run the model's what-if for the current selection and redraw."""
        snap = self._snapshot
        if snap is None:
            return
        down = frozenset(self.down)
        w = self.result = what_if(snap, down)
        self.query_one("#whatif-summary", Static).update(summary_text(w, down))
        impacts = w.topics
        ordered = sorted(impacts, key=lambda n: impact_sort(impacts[n]))
        table: VirtualTable[str] = self.query_one("#impact", VirtualTable)
        table.load(ordered, lambda k, c: self._cell(impacts[k], c), lambda k, c: self._sort(impacts[k], c), lambda k: k)

    @staticmethod
    def _cell(t: TopicImpact, col: str) -> str | Text:
        if col == "status":
            return impact_status(t)
        if col == "topic":
            return t.topic
        n = {"offline": t.offline, "under": t.under_min_isr, "single": t.single_in_sync_copy}.get(col)
        if n is None:
            return ""
        return Text(str(n), style="bold" if n else "dim")

    @staticmethod
    def _sort(t: TopicImpact, col: str) -> object:
        return {
            "status": impact_sort(t),
            "topic": t.topic,
            "offline": t.offline,
            "under": t.under_min_isr,
            "single": t.single_in_sync_copy,
        }.get(col, t.topic)

    def _mode(self) -> Mode | None:
        return snapshot_mode(self._snapshot) if self._snapshot is not None else None

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[int]) -> None:
        event.stop()
        selected = set(event.selection_list.selected)
        if selected != self.down:
            self.down = selected
            for i, b in enumerate(getattr(self, "_brokers", [])):
                event.selection_list.replace_option_prompt_at_index(i, broker_prompt(b, b.id in selected, self._mode()))
            self.recompute()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.post_message(OpenTopic(str(event.key)))

    def action_clear(self) -> None:
        self.query_one(BrokerToggles).deselect_all()

    def action_focus_brokers(self) -> None:
        self.query_one(BrokerToggles).focus()

    def action_focus_topics(self) -> None:
        self.query_one("#impact", VirtualTable).focus()
