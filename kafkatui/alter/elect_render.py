"""How ``kafkatui elect`` and the TUI's election previews show an election: the moves, leaders per broker,
and the words an unclean election's second confirmation asks for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TextIO

from kafkatui.alter.elect import PreferredPlan

LOSE_DATA = "LOSE DATA"
"""What the second confirmation of an unclean election asks the user to type."""
BY_HAND_MAX = 10
"""Up to this many partitions the preview shows the kafka-leader-election.sh line itself."""


def _table(rows: Sequence[Sequence[str]], out: TextIO, indent: str = "") -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write(
            indent
            + "  ".join(
                c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
            + "\n"
        )


def render_preferred(plan: PreferredPlan, out: TextIO) -> None:
    """The preview: each move, what cannot move and why, leaders per broker now and after."""
    if plan.moves:
        out.write(f"preferred leader election: {len(plan.moves)} partition(s) move to their preferred replica\n")
        _table(
            [("partition", "leader", "->", "preferred")]
            + [(m.name, str(m.leader), "->", str(m.preferred)) for m in plan.moves],
            out,
            "  ",
        )
    else:
        out.write("nothing to elect: every leader selected is on its preferred replica or cannot move\n")
    if plan.skipped:
        out.write(f"cannot move ({len(plan.skipped)}):\n")
        for s in plan.skipped:
            out.write(f"  {s.topic}-{s.partition} leader {s.leader}, preferred {s.preferred}: {s.reason}\n")
    out.write("leaders per broker:\n")
    counts_table({"now": plan.before, "after": plan.after}, out)


def counts_table(columns: Mapping[str, Mapping[int, int]], out: TextIO) -> None:
    """Leaders per broker, one column per mapping (the preview, the results)."""
    brokers = sorted({b for c in columns.values() for b in c})
    rows = [("broker", *columns)] + [(str(b), *(str(c.get(b, 0)) for c in columns.values())) for b in brokers]
    _table(rows, out, "  ")
