"""The broker screen: what one broker leads and hosts, which ISRs it is missing from, restart safety."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kafkatui.model.findings import Finding
from kafkatui.model.health import BrokerHealth, HealthReport, OutOfSyncReplica
from kafkatui.model.mode import controller_restart_note, snapshot_mode, words
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo
from kafkatui.model.whatif import restart_safety
from kafkatui.present import human_bytes, ids, short_status
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import BROKER_DEFAULT, OpenPartition, StartAlter
from kafkatui.tui.screens.base import DashScreen
from kafkatui.tui.widgets.findings import FindingList, copy_commands
from kafkatui.tui.widgets.vtable import Column, VirtualTable

PartitionKey = tuple[str, int]
SHOWN_FINDINGS = 20
"""Findings listed in full here, worst first: a broker that left names thousands of per-topic findings
(the findings screen, `f`, lists them all)."""

MISSING_COLUMNS = [
    Column("status", "status", 9),
    Column("partition", "partition", 24, min_width=10),
    Column("leader", "leader", 8, min_width=6),
    Column("replicas", "replicas", 12, min_width=7),
    Column("isr", "ISR", 10, min_width=5),
    Column("lag", "this broker's lag", 22, min_width=12),
]


def missing_from_isrs(snapshot: ClusterSnapshot, broker_id: int) -> list[PartitionInfo]:
    """Partitions that list the broker as a replica but not in their ISR, topic by topic."""
    return list(snapshot.partitions_where(lambda _, replicas, isr: broker_id in replicas and broker_id not in isr))


def broker_header(b: BrokerHealth, snapshot: ClusterSnapshot) -> Text:
    """Two lines: state, address, rack, controller; then what it leads and hosts."""
    mode = snapshot_mode(snapshot)
    t = Text(overflow="fold")
    t.append(f"broker {b.id}  ", style="bold")
    if b.unresponsive:
        t.append(
            "✖ NOT ANSWERING (accepts connections): frozen, not crashed - a GC pause or a stuck disk: look "
            "before restarting",
            style="bold red",
        )
        t.append(f"  {b.host}:{b.port}" if b.host else "")
    elif b.refused:
        t.append(f"✖ DOWN: refuses connections; listed until {words(mode).listed_until}", style="bold red")
        t.append(f"  {b.host}:{b.port}" if b.host else "")
    elif b.up:
        t.append("✔ up", style="green")
        t.append(f"  {b.host}:{b.port}" if b.host else "")
    else:
        t.append("✖ DOWN: absent from the cluster metadata, still named in replica lists", style="bold red")
    t.append(f"  rack {b.rack or '-'}")
    if b.controller or snapshot.controller_id == b.id:
        t.append("  ★ controller", style="bold")
    if b.missing_from_all_isrs:
        t.append("  ⚠ in no ISR of the partitions it hosts", style="bold red")
    elif b.missing_from_most_isrs:
        t.append("  ⚠ missing from most of its ISRs", style="red")
    t.append(
        f"\nleads {b.led} · hosts {b.hosted} replicas · preferred leader of {b.preferred} "
        f"(leads {b.preferred_led} of them) · "
    )
    t.append(f"out of ISR in {b.out_of_isr}", style="bold red" if b.out_of_isr else "")
    note = controller_restart_note(mode, b.id, snapshot.controller_id)
    if note is not None:
        t.append(f"\n{note}", style="yellow")
    return t


def lag_of(out_of_sync: tuple[OutOfSyncReplica, ...], broker_id: int) -> Text:
    """This broker's byte and offset lag on one partition."""
    r = next((r for r in out_of_sync if r.broker == broker_id), None)
    if r is None:
        return Text("-", style="dim")
    if r.byte_lag is None and r.offset_lag is None:
        return Text("unknown", style="dim")
    t = Text("?" if r.byte_lag is None else human_bytes(r.byte_lag))  # offsets known, size not
    if r.offset_lag is not None:
        t.append(f" ({r.offset_lag:,} msgs)")
    return t


class BrokerScreen(DashScreen):
    """One broker: state and counts, restart safety, the ISRs it is missing from, its findings."""

    releases_state = True  # on_unmount drops the report and rows (its findings hold no state): GcPacer

    BINDINGS = [Binding("c", "copy_commands", "copy"), Binding("a", "alter_defaults", "alter")]

    DEFAULT_CSS = """
    BrokerScreen #broker-header { height: auto; padding: 0 1; }
    BrokerScreen #restart { height: auto; padding: 0 1; }
    BrokerScreen #missing-title { height: 1; padding: 0 1; text-style: bold; margin-top: 1; }
    BrokerScreen #missing { height: 1fr; min-height: 4; }
    BrokerScreen #broker-findings { height: 1fr; min-height: 3; padding: 0 1; border-top: solid $panel; }
    """

    def __init__(self, broker_id: int) -> None:
        super().__init__()
        self.broker_id = broker_id
        self.findings: list[Finding] = []
        self._rows: dict[PartitionKey, PartitionInfo] = {}
        self._report: HealthReport | None = None

    def body(self) -> ComposeResult:
        yield Static(Text(f"broker {self.broker_id}: waiting for the first snapshot…", style="dim"), id="broker-header")
        yield Static(id="restart")
        yield Static(id="missing-title")
        yield VirtualTable[PartitionKey](MISSING_COLUMNS, id="missing")
        with VerticalScroll(id="broker-findings"):
            yield Static(id="findings-title")
            yield FindingList(id="findings")

    def on_mount(self) -> None:
        self.query_one("#missing", VirtualTable).focus()

    def on_unmount(self) -> None:
        # a closed screen is cyclic garbage until the pacer's thorough collection (kafkatui.tui.app.GcPacer),
        # which waits for 2 s without keys: let the report and partitions it showed go now
        self._report = None
        self._rows = {}
        self.findings = []

    def show(self, state: ViewState) -> None:
        report, snap = state.report, state.snapshot
        assert report is not None and snap is not None
        self._report = report
        table: VirtualTable[PartitionKey] = self.query_one("#missing", VirtualTable)
        b = report.brokers.get(self.broker_id)
        if b is None:
            self.query_one("#broker-header", Static).update(
                Text(
                    f"✖ broker {self.broker_id} is not in the latest snapshot: not in metadata and named in no "
                    "replica list. Esc goes back.",
                    style="bold red",
                )
            )
            self.query_one("#restart", Static).update("")
            self.query_one("#missing-title", Static).update("")
            self._rows = {}
            table.load([], self._cell)
            self.findings = []
            self.query_one("#findings-title", Static).update("")
            self.query_one(FindingList).show([])
            return
        self.query_one("#broker-header", Static).update(broker_header(b, snap))
        safety = restart_safety(snap, self.broker_id)
        restart = Text("restart: ", style="bold")
        if b.unresponsive:  # frozen, not crashed: neither "safe, already down" nor a what-if verdict
            restart.append("⚠ look first — " + safety.message, style="bold yellow")
        else:
            restart.append(
                ("✔ safe — " if safety.safe else "✖ NOT safe — ") + safety.message,
                style="green" if safety.safe else "bold red",
            )
        if safety.topics:
            shown = ", ".join(safety.topics[:5]) + (
                f" +{len(safety.topics) - 5} more" if len(safety.topics) > 5 else ""
            )
            restart.append(f" (topics: {shown})")
        self.query_one("#restart", Static).update(restart)

        missing = sorted(
            missing_from_isrs(snap, self.broker_id),
            key=lambda p: (report.health(p.topic, p.partition), p.topic, p.partition),
        )
        self._rows = {(p.topic, p.partition): p for p in missing}
        title = (
            f"missing from {len(missing)} ISR{'s' if len(missing) != 1 else ''} (of {b.hosted} partitions it hosts)"
            if missing
            else f"in the ISR of every partition it hosts ({b.hosted})"
        )
        self.query_one("#missing-title", Static).update(title)
        table.load(list(self._rows), self._cell, self._sort, lambda k: f"{k[0]}-{k[1]}")
        changed = {
            (c.topic, c.partition)
            for c in state.changes
            if c.broker == self.broker_id and c.topic is not None and c.partition is not None
        }
        if changed:
            table.flash(changed)

        naming = [f for f in state.findings if self.broker_id in f.brokers]
        self.findings = naming[:SHOWN_FINDINGS]  # the findings are worst first
        n = len(naming)
        title = f"{n} finding{'s' if n != 1 else ''} naming broker {self.broker_id}"
        if n > len(self.findings):
            title += f", the worst {len(self.findings)} here (f lists them all: filter 'broker {self.broker_id}')"
        if any(f.commands for f in self.findings):
            title += "; c copies their commands"
        self.query_one("#findings-title", Static).update(Text(title, style="bold"))
        self.query_one(FindingList).show(self.findings)

    def _cell(self, key: PartitionKey, col: str) -> str | Text:
        p = self._rows[key]
        report = self._report
        if col == "status":
            return short_status(report.health(*key)) if report is not None else ""
        if col == "partition":
            return f"{key[0]}-{key[1]}"
        if col == "leader":
            return Text("✖ none", style="bold red") if p.leader < 0 else str(p.leader)
        if col == "replicas":
            return ids(p.replicas)
        if col == "isr":
            return ids(p.isr)
        if col == "lag":
            return lag_of(report.out_of_sync(p), self.broker_id) if report is not None else ""
        return ""

    def _sort(self, key: PartitionKey, col: str) -> object:
        p = self._rows[key]
        if col == "status":
            return (self._report.health(*key) if self._report is not None else 0, key)
        if col == "partition":
            return key
        if col == "leader":
            return p.leader
        if col == "replicas":
            return p.replicas
        if col == "isr":
            return (len(p.isr), p.isr)
        if col == "lag":
            r = (
                next((r for r in self._report.out_of_sync(p) if r.broker == self.broker_id), None)
                if self._report is not None
                else None
            )
            return -(r.byte_lag or 0) if r is not None else 0
        return key

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        topic, partition = event.key
        self.post_message(OpenPartition(topic, partition))

    def action_copy_commands(self) -> None:
        copy_commands(self, self.findings)

    def action_alter_defaults(self) -> None:
        self.post_message(StartAlter((BROKER_DEFAULT,)))
