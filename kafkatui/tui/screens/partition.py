"""The partition drill-down: its replication state, then every finding with the exact commands to fix it."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kafkatui.model.election_order import restore_advice
from kafkatui.model.findings import Finding, findings_for_partition
from kafkatui.model.health import Health, PartitionHealth, effective_unclean
from kafkatui.model.snapshot import PartitionInfo
from kafkatui.model.unfenced import STATE as UNFENCED_STATE
from kafkatui.model.unfenced import SYMBOL as UNFENCED_SYMBOL
from kafkatui.present import HEALTH_STYLE, SEVERITY_RANK, human_bytes, ids, severity_text, source_word
from kafkatui.tui.feed import ViewState
from kafkatui.tui.format import headroom_text, leader_text, replicas_text
from kafkatui.tui.messages import StartUncleanElection
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.findings import FindingList, all_commands, copy_commands


def why_healthy(ph: PartitionHealth) -> str:
    """Why no finding applies, in a sentence."""
    if ph.health == Health.HEALTHY:
        return (
            f"every replica is in sync (ISR {ids(ph.isr)}), its preferred leader {ph.leader} leads, and it has "
            f"{ph.headroom:+d} headroom above minISR {ph.min_isr}"
        )
    return f"the partition is {ph.health.label}, but no finding in the catalog applies to it"


def partition_facts(
    ph: PartitionHealth,
    info: PartitionInfo,
    unclean: tuple[bool, str],
    live: frozenset[int] | None = None,
    refused: frozenset[int] = frozenset(),
) -> Group:
    """Leader, epoch, replicas, ISR, out-of-sync replicas with lag, minISR, headroom and ELR."""
    title = Text(f"{ph.name}  ", style="bold")
    if ph.leader >= 0 and ph.leader in refused:  # its leader refuses connections and is not fenced yet
        title.append(f"{UNFENCED_SYMBOL} {UNFENCED_STATE}", style="bold red")
        title.append(f"   (by its ISR: {ph.health.label})", style="dim")
    else:
        title.append(f"{ph.health.symbol} {ph.health.label}", style=HEALTH_STYLE[ph.health])
    grid = Table.grid(padding=(0, 2), pad_edge=False)
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(ratio=1, overflow="fold")

    leader = leader_text(ph)
    if ph.leader >= 0 and ph.health != Health.OFFLINE:
        leader.append("   (not its preferred replica)" if ph.non_preferred else "   (preferred)", style="dim")
    else:
        leader.append(" — no leader: no reads or writes", style="bold red")
    grid.add_row("leader", leader)
    if ph.health == Health.OFFLINE:  # by the controller's election order, not any replica that is down
        grid.add_row("comes back", Text(restore_advice([info]), style="bold"))
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
    capped = f"→{ph.effective_min_isr}, capped at RF by the brokers" if 0 < ph.effective_min_isr != ph.min_isr else ""
    grid.add_row("minISR", f"{ph.min_isr}{capped} ({source_word(ph.min_isr_source)})")
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
    grid.add_row(
        "unclean elect.",
        Text(f"{'ON' if unclean[0] else 'off'} ({source_word(unclean[1])})", style="bold red" if unclean[0] else ""),
    )
    return Group(title, grid)


class PartitionScreen(DashScreen):
    """One partition: its state, and every finding that concerns it with the exact commands."""

    BINDINGS = [Binding("c", "copy_commands", "copy"), Binding("E", "unclean", "unclean")]

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
            yield Static(
                Text(f"{self.topic}-{self.partition}: waiting for the first snapshot…", style="dim"), id="facts"
            )
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
            facts.update(
                Text(
                    f"✖ {what} is not in the latest snapshot (deleted, or not visible to this client). Esc goes back.",
                    style="bold red",
                )
            )
            verdict.update("")
            self.findings = []
            self.query_one(FindingList).show([])
            return
        ph = report.partition(self.topic, self.partition)
        facts.update(partition_facts(ph, info, effective_unclean(snap, self.topic), report.live, snap.refused))
        self.findings = findings_for_partition(state.findings, self.topic, self.partition)
        if self.findings:
            n = len(self.findings)
            worst = min((f.severity for f in self.findings), key=lambda s: SEVERITY_RANK.get(s, 9))
            text = Text(f"{n} finding{'s' if n != 1 else ''} for {ph.name}, worst ")
            text.append_text(severity_text(worst))
            c = len(self.commands)
            text.append(
                f"; {c} command{'s' if c != 1 else ''}, c copies them all" if c else "; no command", style="dim"
            )
            verdict.update(text)
        else:
            verdict.update(
                Text(f"✓ No finding applies: {why_healthy(ph)}.", style="green" if ph.health == Health.HEALTHY else "")
            )
        self.query_one(FindingList).show(self.findings)

    def action_copy_commands(self) -> None:
        copy_commands(self, self.findings)

    def action_unclean(self) -> None:
        self.post_message(StartUncleanElection(self.topic, self.partition))
