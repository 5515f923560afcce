"""ISR shrinks per broker from recorded history, for the `isr-flapping` finding outside the dashboard.

The dashboard counts shrink episodes itself while it runs (`kafkatui.tui.feed`); `kafkatui check`
runs once, so it reads what `kafkatui record` (or a dashboard with recording on) wrote: partition
records whose ISR lost brokers. One episode is one (time, broker) pair, as the dashboard counts them:
a broker leaving many ISRs at once (a crash) is one shrink, not flapping.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from kafkatui.history.recorder import read_events

WINDOW_S = 3600.0  # the dashboard's window (kafkatui.tui.feed.SHRINK_WINDOW_S)


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
    days = sorted({datetime.fromtimestamp(t, UTC).date() for t in (start, now)})
    episodes: set[tuple[float, int]] = set()
    seen = False
    for day in days:
        for rec in read_events(folder, day):
            ts = rec.get("ts")
            if not isinstance(ts, int | float) or not start <= ts <= now:
                continue
            if cluster_id is not None and rec.get("cluster") not in (cluster_id, None):
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
    counts: dict[int, int] = {}
    for _, b in episodes:
        counts[b] = counts.get(b, 0) + 1
    return counts
