"""ISR shrinks per broker from recorded history, for the `isr-flapping` finding outside the dashboard.

The dashboard counts shrink episodes itself while it runs (`kafkatui.tui.feed`); `kafkatui check`
runs once, so it reads what `kafkatui record` (or a dashboard with recording on) wrote: partition
records whose ISR lost brokers. One episode is one (time, broker) pair, as the dashboard counts them:
a broker leaving many ISRs at once (a crash) is one shrink, not flapping. Episodes of a broker that was
down then or went down soon after (its ``broker`` records, or its absence from a ``snapshot`` record)
are an outage, not flapping, and are not counted (`kafkatui.model.flapping`).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.history.record.recorder import read_events
from kafkatui.model.flapping import DOWN_GRACE_S, WINDOW_S, unexplained_counts

__all__ = ["WINDOW_S", "shrink_counts"]


def shrink_counts(
    directory: str | os.PathLike[str], cluster_id: str | None, now: float, window_s: float = WINDOW_S
) -> dict[int, int] | None:
    """Shrink episodes per broker in the `window_s` before `now`, from the history in `directory`,
    for `cluster_id` (records of other clusters are ignored). None when nothing was recorded for the
    cluster in that window (not the same as "no shrinks": the caller says history is missing)."""
    folder = Path(directory)
    if not folder.is_dir():
        return None
    start = now - window_s
    days = sorted({datetime.fromtimestamp(t, UTC).date() for t in (start, now + DOWN_GRACE_S)})
    episodes: set[tuple[float, int]] = set()
    transitions: dict[int, list[tuple[float, bool]]] = {}
    seen = False
    for day in days:
        for rec in read_events(folder, day):
            ts = rec.get("ts")
            if not isinstance(ts, int | float) or not start <= ts <= now + DOWN_GRACE_S:
                continue
            if cluster_id is not None and rec.get("cluster") not in (cluster_id, None):
                continue
            _note_brokers(rec, float(ts), transitions)
            if not start <= ts <= now:
                continue
            seen = True
            if rec.get("type") != "partition" or not rec.get("prev_isr"):
                continue
            isr = set(rec.get("isr") or ())
            for b in rec["prev_isr"]:
                if b not in isr:
                    episodes.add((float(ts), int(b)))
    if not seen:
        return None
    for marks in transitions.values():
        marks.sort()
    return unexplained_counts(sorted(episodes), transitions)


def _note_brokers(rec: dict[str, Any], ts: float, transitions: dict[int, list[tuple[float, bool]]]) -> None:
    """Brokers going down or up: ``broker`` records, and a ``snapshot`` record's brokers (a replica's
    broker missing from its list is down)."""
    kind = rec.get("type")
    if kind == "broker" and isinstance(rec.get("broker"), int):
        transitions.setdefault(rec["broker"], []).append((ts, rec.get("op") == "down"))
    elif kind == "snapshot":
        up = {int(b[0]) for b in rec.get("brokers") or () if b}
        replicas: set[int] = set()
        for t in (rec.get("topics") or {}).values():
            for row in t.get("partitions") or ():
                if len(row) > 3:
                    replicas.update(int(r) for r in row[3])
        for b in up | replicas:
            transitions.setdefault(b, []).append((ts, b not in up))
