"""How ``kafkatui reassign`` and the TUI's Reassign screen show a plan: replicas and racks now and new."""

from __future__ import annotations

from typing import TextIO

from kafkatui.alter.reassign import ReassignPlan, ids_text
from kafkatui.model.snapshot import ClusterSnapshot


def render_plan(plan: ReassignPlan, snapshot: ClusterSnapshot, out: TextIO, title: str) -> None:
    """Per partition: replicas and racks now -> new; added replicas marked +, removed ones -."""
    out.write(title + "\n")
    rows = [("partition", "replicas", "racks", "->", "new replicas", "racks", "adds", "removes")]
    for m in plan.moves:
        rows.append(
            (
                m.name,
                ids_text(m.old),
                ",".join(plan.rack_list(m.old)),
                "->",
                ids_text(m.new),
                ",".join(plan.rack_list(m.new)),
                ids_text(m.adding),
                ids_text(m.removing),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
    for m in plan.moves:
        info = snapshot.topics.get(m.topic)
        p = next((x for x in info.partitions if x.partition == m.partition), None) if info else None
        if p is not None and p.leader < 0:
            out.write(f"  ! {m.name} is offline: its new replicas cannot copy until it has a leader\n")
    racks = {plan.racks.get(r) for m in plan.moves for r in m.new}
    shared = [m.name for m in plan.moves if len(set(plan.rack_list(m.new))) < len(m.new) and None not in racks]
    if shared:
        out.write(
            f"  ! {len(shared)} partition(s) keep two replicas on one rack: there are fewer racks than replicas\n"
        )
