"""How ``kafkatui alter`` and the TUI's config previews show a change: the preview table, the
snapshot's age, the change history and what the user types to confirm.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TextIO

from kafkatui.alter import revert
from kafkatui.alter.plan import ChangePlan
from kafkatui.alter.risk import ChangePreview
from kafkatui.model.snapshot import ClusterSnapshot


def render_history(snapshot: ClusterSnapshot, out: TextIO) -> None:
    """The cluster's config change sets, numbered for --revert N, newest first."""
    sets = revert.history(revert.CONFIG, snapshot.cluster_id)
    if not sets:
        out.write(f"no config change in {revert.where(None, snapshot.cluster_id)}\n")
        return
    for n, s in enumerate(sets, 1):
        out.write(f"{n:>3}  {s.describe()}\n")


def age_text(snapshot: ClusterSnapshot, now: float | None = None) -> str:
    """How old a snapshot is: ``read 3 s ago (12:01:07 UTC)``."""
    taken = snapshot.taken_at
    if not taken:
        return "read at an unknown time"
    age = max(0.0, (time.time() if now is None else now) - taken)
    shown = f"{age:.1f} s" if age < 10 else (f"{age:.0f} s" if age < 120 else f"{age / 60:.0f} min")
    return f"read {shown} ago ({datetime.fromtimestamp(taken, UTC):%H:%M:%S} UTC)"


def render_preview(items: Sequence[ChangePreview], out: TextIO) -> None:
    """The preview table (resource, key, current (source), new) and the risks under each row."""
    rows = [("resource", "key", "current (source)", "new")]
    for it in items:
        c = it.change
        rows.append((c.label, c.key, f"{it.current.value} ({it.current.source})", c.shown_value))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for n, row in enumerate(rows):
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")
        if n:
            for risk in items[n - 1].risks:
                out.write(f"    ! {risk}\n")
    if not any(it.risks for it in items):
        out.write("no risks found\n")


def expected_confirmation(plan: ChangePlan) -> tuple[str, str]:
    """What the user must type to apply `plan`, and how to ask for it: the topic name (one topic),
    the broker id, ``default``, or the number of resources. The TUI asks the same."""
    resources = list(plan.resources())
    if len(resources) == 1:
        kind, name = resources[0]
        expected = name if kind != "broker-default" else "default"
        what = {"topic": "the topic name", "broker": "the broker id", "broker-default": "'default'"}[kind]
    else:
        expected = str(len(resources))
        what = f"the number of resources ({'topics' if all(k == 'topic' for k, _ in resources) else 'resources'})"
    return expected, what
