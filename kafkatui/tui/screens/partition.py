"""The partition drill-down: its replication state, then every finding with the exact commands to fix it.

`FindingView`, `finding_text` and `copy_commands` are shared with the broker and findings screens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static, TextArea

from kafkatui.model.findings import Finding, findings_for_partition
from kafkatui.model.health import Health, PartitionHealth, effective_unclean
from kafkatui.model.snapshot import PartitionInfo
from kafkatui.tui.feed import ViewState
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.screens.overview import STATUS_STYLE
from kafkatui.tui.screens.topic import (
    headroom_text,
    human_bytes,
    ids,
    leader_text,
    replicas_text,
    source_word,
)

SEVERITY_SYMBOL = {"critical": "✖", "warning": "▲", "info": "ℹ"}
SEVERITY_STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan"}
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}


def severity_text(severity: str) -> Text:
    """'✖ critical', '▲ warning', 'ℹ info': a symbol and a word, never colour alone."""
    return Text(f"{SEVERITY_SYMBOL.get(severity, '•')} {severity}", style=SEVERITY_STYLE.get(severity, ""))


def resources_line(f: Finding, limit: int = 6) -> str:
    """'topics orders · partitions orders-0, orders-3 · brokers 3' (long lists end with '+N more')."""

    def few(items: Sequence[object]) -> str:
        head = ", ".join(map(str, items[:limit]))
        return head + (f" +{len(items) - limit} more" if len(items) > limit else "")

    parts = []
    if f.topics:
        parts.append(f"topic{'s' if len(f.topics) > 1 else ''} {few(f.topics)}")
    if f.partitions:
        parts.append(f"partition{'s' if len(f.partitions) > 1 else ''} {few(f.partitions)}")
    elif f.affected_partitions:
        parts.append(f"{f.affected_partitions} partition{'s' if f.affected_partitions != 1 else ''}")
    if f.brokers:
        parts.append(f"broker{'s' if len(f.brokers) > 1 else ''} {few(f.brokers)}")
    return " · ".join(parts)


def bullets(items: Sequence[str], numbered: bool = False) -> Table:
    """Items under a bullet or a number, wrapped lines indented under the text (not the bullet)."""
    grid = Table.grid(padding=(0, 1), pad_edge=False)
    grid.add_column(no_wrap=True, justify="right", min_width=3)
    grid.add_column(ratio=1, overflow="fold")
    for i, item in enumerate(items, 1):
        grid.add_row(f"{i}." if numbered else "•", item)
    return grid


def finding_text(f: Finding) -> Group:
    """Severity, title, resources, evidence, causes and steps (the commands go in a TextArea)."""
    head = severity_text(f.severity)
    head.stylize("bold")
    head.append("  ")
    head.append(f.title, style="bold")
    head.append(f"  [{f.id}]", style="dim")
    parts: list[RenderableType] = [head]
    res = resources_line(f)
    if res:
        parts.append(Text(res, style="dim"))
    for label, items, numbered in (("evidence", f.evidence, False), ("likely causes", f.causes, False),
                                   ("what to do", f.steps, True)):
        if items:
            parts.append(Text(f"{label}:", style="bold"))
            parts.append(bullets(items, numbered))
    return Group(*parts)


def all_commands(found: Iterable[Finding]) -> list[str]:
    """Every command of the findings, in order, each once."""
    return list(dict.fromkeys(c for f in found for c in f.commands))


def copy_commands(screen: Screen[None], commands: Sequence[str]) -> None:
    """Put the commands on the clipboard (OSC 52) and say how many."""
    if not commands:
        screen.notify("no commands on this screen", severity="warning", timeout=3)
        return
    screen.app.copy_to_clipboard("\n".join(commands) + "\n")
    n = len(commands)
    screen.notify(f"copied {n} command{'s' if n != 1 else ''} (OSC 52: the terminal must allow it)", timeout=3)


class FindingView(Vertical):
    """One finding in full: the text, then its exact commands and Strimzi patch in read-only text areas
    (select with the mouse or shift+arrows, ctrl+c copies the selection)."""

    DEFAULT_CSS = """
    FindingView { height: auto; margin: 0 0 1 0; }
    FindingView > .finding-body { height: auto; }
    FindingView > .label { height: 1; color: $text-muted; margin-top: 1; }
    FindingView > TextArea { height: auto; border: none; padding: 0 1; background: $boost; }
    FindingView > TextArea:focus { border: none; background-tint: $primary 10%; }
    FindingView > .hidden { display: none; }
    """

    def __init__(self, finding: Finding | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.finding = finding

    def compose(self) -> ComposeResult:
        yield Static(classes="finding-body")
        yield Static("commands, exact and in full (numbered; c copies every command on this screen):",
                     classes="label commands-label")
        yield TextArea(read_only=True, soft_wrap=True, show_line_numbers=True, classes="commands")
        yield Static("Strimzi KafkaTopic patch (merge into spec):", classes="label patch-label")
        yield TextArea(read_only=True, soft_wrap=True, show_line_numbers=False, classes="patch")

    def on_mount(self) -> None:
        for area in self.query(TextArea):
            area.cursor_blink = False
        if self.finding is not None:
            self.show(self.finding)

    def show(self, finding: Finding) -> None:
        """Redraw for `finding`."""
        self.finding = finding
        self.query_one(".finding-body", Static).update(finding_text(finding))
        commands = self.query_one(".commands", TextArea)
        text = "\n".join(finding.commands)
        if commands.text != text:  # a refresh must not reset a selection in progress
            commands.load_text(text)
        for widget in (commands, self.query_one(".commands-label")):
            widget.set_class(not finding.commands, "hidden")
        patch = self.query_one(".patch", TextArea)
        yaml = (finding.strimzi_patch or "").rstrip("\n")
        if patch.text != yaml:
            patch.load_text(yaml)
        for widget in (patch, self.query_one(".patch-label")):
            widget.set_class(not finding.strimzi_patch, "hidden")


class FindingList(Vertical):
    """A list of FindingViews, rebuilt only when the findings change (keeps scroll and focus otherwise)."""

    DEFAULT_CSS = """
    FindingList { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.findings: tuple[Finding, ...] = ()

    def show(self, found: Sequence[Finding]) -> None:
        new = tuple(found)
        if new == self.findings and len(self.children) == len(new):
            return
        views = list(self.query_children(FindingView))
        if len(views) == len(new):
            for view, f in zip(views, new, strict=True):
                view.show(f)
        else:
            self.remove_children()
            self.mount_all([FindingView(f) for f in new])
        self.findings = new


def why_healthy(ph: PartitionHealth) -> str:
    """Why no finding applies, in a sentence."""
    if ph.health == Health.HEALTHY:
        return (f"every replica is in sync (ISR {ids(ph.isr)}), its preferred leader {ph.leader} leads, and it has "
                f"{ph.headroom:+d} headroom above minISR {ph.min_isr}")
    return f"the partition is {ph.health.label}, but no finding in the catalog applies to it"


def partition_facts(ph: PartitionHealth, info: PartitionInfo, unclean: tuple[bool, str],
                    live: frozenset[int] | None = None) -> Group:
    """Leader, epoch, replicas, ISR, out-of-sync replicas with lag, minISR, headroom and ELR."""
    title = Text(f"{ph.name}  ", style="bold")
    title.append(f"{ph.health.symbol} {ph.health.label}", style=STATUS_STYLE[ph.health])
    grid = Table.grid(padding=(0, 2), pad_edge=False)
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(ratio=1, overflow="fold")

    leader = leader_text(ph)
    if ph.leader >= 0 and ph.health != Health.OFFLINE:
        leader.append("   (not its preferred replica)" if ph.non_preferred else "   (preferred)", style="dim")
    else:
        leader.append(" — no leader: no reads or writes", style="bold red")
    grid.add_row("leader", leader)
    if info.leader_epoch >= 0:  # an unknown epoch on a healthy partition is noise, not news
        grid.add_row("leader epoch", str(info.leader_epoch))
    reps = replicas_text(ph, live)
    reps.append("   (✗ out of ISR, ↓ broker down)" if "✗" in reps.plain or "↓" in reps.plain else "", style="dim")
    grid.add_row("replicas", reps)
    grid.add_row("ISR", ids(ph.isr))
    if info.offline_replicas:
        grid.add_row("offline repl.", ids(info.offline_replicas))
    for i, r in enumerate(ph.out_of_sync):
        line = Text(f"broker {r.broker} ")
        line.append("✔ up" if r.up else "✖ DOWN", style="green" if r.up else "bold red")
        if not r.up:
            line.append(": its lag cannot be read while it is down", style="dim")
        elif r.byte_lag is None and r.offset_lag is None:
            line.append(": lag unknown (log dirs not read)", style="dim")
        elif r.byte_lag is None:
            line.append(f": {r.offset_lag:,} offsets behind (size unknown)")
        else:
            line.append(f": {human_bytes(r.byte_lag)} behind")
            if r.offset_lag is not None:
                line.append(f", offset lag {r.offset_lag:,}")
        grid.add_row("out of sync" if i == 0 else "", line)
    if not ph.out_of_sync:
        grid.add_row("out of sync", "none")
    grid.add_row("minISR", f"{ph.min_isr} ({source_word(ph.min_isr_source)})")
    room = headroom_text(ph)
    h = ph.headroom
    if ph.health == Health.OFFLINE:
        room.append("  offline: nothing can be written")
    elif h < 0:
        room.append("  acks=all writes failing now (NOT_ENOUGH_REPLICAS)")
    elif h == 0:
        room.append("  at minISR: one more ISR loss stops acks=all writes")
    else:
        room.append(f"  {h} more in-sync replica{'s' if h != 1 else ''} can drop before acks=all writes stop")
    grid.add_row("headroom", room)
    # ELR matters when the ISR is short; "unknown" on a healthy partition was noise
    if info.elr is not None or info.last_known_elr or ph.health <= Health.UNDER_MIN_ISR:
        elr = "unknown (not reported by the brokers)" if info.elr is None else ids(info.elr)
        if info.last_known_elr:
            elr += f"   last known ELR {ids(info.last_known_elr)}"
        grid.add_row("ELR", elr)
    grid.add_row("unclean elect.", Text(f"{'ON' if unclean[0] else 'off'} ({source_word(unclean[1])})",
                                        style="bold red" if unclean[0] else ""))
    return Group(title, grid)


class PartitionScreen(DashScreen):
    """One partition: its state, and every finding that concerns it with the exact commands."""

    BINDINGS = [Binding("c", "copy_commands", "copy commands"), Binding("E", "unclean", "unclean elect")]

    DEFAULT_CSS = """
    PartitionScreen #detail { height: 1fr; padding: 0 1; }
    PartitionScreen #facts { height: auto; margin-bottom: 1; }
    PartitionScreen #verdict { height: auto; margin-bottom: 1; }
    """

    def __init__(self, topic: str, partition: int) -> None:
        super().__init__()
        self.topic = topic
        self.partition = partition
        self.findings: list[Finding] = []

    def body(self) -> ComposeResult:
        with VerticalScroll(id="detail"):
            yield Static(Text(f"{self.topic}-{self.partition}: waiting for the first snapshot…", style="dim"),
                         id="facts")
            yield Static(id="verdict")
            yield FindingList(id="findings")

    def on_mount(self) -> None:
        self.query_one("#detail").focus()

    @property
    def commands(self) -> list[str]:
        """Every command shown on this screen."""
        return all_commands(self.findings)

    def show(self, state: ViewState) -> None:
        report, snap = state.report, state.snapshot
        assert report is not None and snap is not None
        facts = self.query_one("#facts", Static)
        verdict = self.query_one("#verdict", Static)
        topic = snap.topics.get(self.topic)
        info = next((p for p in topic.partitions if p.partition == self.partition), None) if topic else None
        if topic is None or info is None or self.topic not in report.topics:
            what = f"topic {self.topic}" if topic is None else f"partition {self.topic}-{self.partition}"
            facts.update(Text(f"✖ {what} is not in the latest snapshot (deleted, or not visible to this client). "
                              "Esc goes back.", style="bold red"))
            verdict.update("")
            self.findings = []
            self.query_one(FindingList).show([])
            return
        ph = report.partition(self.topic, self.partition)
        facts.update(partition_facts(ph, info, effective_unclean(snap, self.topic), report.live))
        self.findings = findings_for_partition(state.findings, self.topic, self.partition)
        if self.findings:
            n = len(self.findings)
            worst = min((f.severity for f in self.findings), key=lambda s: SEVERITY_RANK.get(s, 9))
            text = Text(f"{n} finding{'s' if n != 1 else ''} for {ph.name}, worst ")
            text.append_text(severity_text(worst))
            c = len(self.commands)
            text.append(f"; {c} command{'s' if c != 1 else ''}, c copies them all" if c else "; no command",
                        style="dim")
            verdict.update(text)
        else:
            verdict.update(Text(f"✓ No finding applies: {why_healthy(ph)}.",
                                style="green" if ph.health == Health.HEALTHY else ""))
        self.query_one(FindingList).show(self.findings)

    def action_copy_commands(self) -> None:
        copy_commands(self, self.commands)

    def action_unclean(self) -> None:
        from kafkatui.tui.write_actions import start_unclean

        start_unclean(self.dash, self.topic, self.partition)
