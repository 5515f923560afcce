"""The dashboard's table cells and key tables, as rich renderables (no Textual).

Screens share these instead of importing each other: the partition cells (topic, replay), the key tables
(help, replay help), a headless tool's output in the guided previews (elections, RF change). Words and
symbols come from `kafkatui.present`, which `check` uses too; the broker and topic tables are defined
once for the dashboard and `check` in `kafkatui.columns`.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from kafkatui.model.health import Health, OutOfSyncReplica, PartitionHealth
from kafkatui.present import human_bytes, ids, short_status

GAUGE_CELLS = 6


def replicas_text(ph: PartitionHealth, live: frozenset[int] | None = None) -> Text:
    """Replicas in order, out-of-sync ones marked with ✗, and ↓ on every replica whose broker is down.

    An offline partition's last ISR member is down although still "in sync" (`1↓,2✗,3✗`): with `live`
    (the live brokers) it is marked from that; without, an offline partition's ISR members are.
    """
    down = {r.broker for r in ph.out_of_sync if not r.up}
    if live is not None:
        down |= {r for r in ph.replicas if r not in live}
    elif ph.health == Health.OFFLINE:
        down |= set(ph.isr)
    missing = {r.broker for r in ph.out_of_sync}
    t = Text()
    for i, r in enumerate(ph.replicas):
        if i:
            t.append(",")
        if r in missing:
            t.append(f"{r}✗" + ("↓" if r in down else ""), style="bold red")
        elif r in down:
            t.append(f"{r}↓", style="bold red")
        else:
            t.append(str(r))
    return t


def leader_text(ph: PartitionHealth) -> Text:
    """'3', '3 ↺ (pref 1)' when not led by its preferred replica, or '✖ none' when offline."""
    if ph.leader < 0 or ph.health == Health.OFFLINE:
        return Text("✖ none", style="bold red")
    t = Text(str(ph.leader))
    if ph.non_preferred:
        t.append(f" ↺ (pref {ph.preferred_leader})", style="cyan")
    return t


def partition_cell(ph: PartitionHealth, col: str, live: frozenset[int] | None = None) -> str | Text | None:
    """The cells every partition table shows alike (status, leader, replicas, isr, minisr); None for others."""
    if col == "status":
        return short_status(ph.health)
    if col == "leader":
        return leader_text(ph)
    if col == "replicas":
        return replicas_text(ph, live)
    if col == "isr":
        return ids(ph.isr)
    if col == "minisr":
        return str(ph.min_isr)
    return None


def headroom_text(ph: PartitionHealth) -> Text:
    """Signed headroom, then a gauge: █ per in-sync replica, ░ per replica out of the ISR."""
    h = ph.headroom
    style = "red" if h < 0 else ("yellow" if h == 0 else "green")
    in_sync = 0 if ph.health == Health.OFFLINE else len(ph.isr)
    total = max(len(ph.replicas), in_sync)
    filled = min(in_sync, GAUGE_CELLS)
    gauge = "█" * filled + "░" * min(total - in_sync, GAUGE_CELLS - filled)
    return Text(f"{h:+d} {gauge or '▁'}", style=style)


def lag_text(out_of_sync: tuple[OutOfSyncReplica, ...]) -> Text:
    """'3: 1.2 MiB, 4: down' for the replicas out of the ISR (a down broker's lag cannot be read)."""
    t = Text()
    for i, r in enumerate(out_of_sync):
        if i:
            t.append(", ")
        if not r.up:
            t.append(f"{r.broker}: ")
            t.append("down", style="bold red")
        else:
            t.append(f"{r.broker}: {human_bytes(r.byte_lag) if r.byte_lag is not None else 'lag unknown'}")
    return t


def keys_table(sections: list[tuple[str, list[tuple[str, str]]]]) -> Table:
    """Keys by where they work (the help screens): a bold section title, then key and what it does."""
    table = Table(expand=True, box=None, show_edge=False, pad_edge=False, show_header=False)
    table.add_column("key", no_wrap=True, style="bold", min_width=15)
    table.add_column("what", ratio=1)
    for i, (where, keys) in enumerate(sections):
        table.add_row(Text(where, style="bold underline"), "", end_section=False)
        for key, what in keys:
            table.add_row(key, what)
        if i < len(sections) - 1:
            table.add_row("", "")
    return table


def tool_lines(text: str, warn_prefix: str = "! ") -> Text:
    """Plain lines of a headless command's output, the first bold and warnings in the warning colour."""
    t = Text()
    for n, line in enumerate(text.splitlines()):
        warn = line.lstrip().startswith(warn_prefix)
        t.append(line + "\n", style="bold" if n == 0 else ("yellow" if warn else ""))
    t.rstrip()
    return t
