"""The summary bar: cluster, brokers, the verdict, counts by class, freshness and mode, in words and symbols.

Two lines at any width: who and how fresh; then the labelled verdict and the counts. Below
WIDE columns the words shorten (`<minISR` for `under minISR`) so nothing is cut at 80x24.
"""

from __future__ import annotations

import time
from datetime import datetime

from textual.markup import escape
from textual.widgets import Static

from kafkatui.model.health import Health
from kafkatui.present import VERDICT_SYMBOL, verdict_of
from kafkatui.tui.feed import ViewState

WIDE = 110  # columns from which the summary uses long words
# the topic table's column headers, so that 3-digit counts still fit 80 columns
NARROW_LABEL = {
    Health.OFFLINE: "offl",
    Health.UNDER_MIN_ISR: "<min",
    Health.AT_MIN_ISR: "=min",
    Health.UNDER_REPLICATED: "URP",
    Health.NON_PREFERRED_LEADER: "non-pref",
}


def ago(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


SHORT_ERROR = 60


def short_error(text: str, limit: int = SHORT_ERROR) -> str:
    """`text` cut at a word boundary to about `limit` characters, with "…" when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" :,;(")
    return f"{cut}… (see events)"


def _cluster_name(cluster_id: str | None, width: int) -> str:
    name = cluster_id or "cluster"
    limit = 24 if width >= WIDE else 12
    return name if len(name) <= limit else name[: limit - 1] + "…"


def summary_markup(
    state: ViewState, *, paused: bool, read_only: bool, source: str, now: float | None = None, width: int = 120
) -> str:
    """Two lines of Textual markup: who and how fresh; then the verdict and the counts."""
    now = time.time() if now is None else now
    wide = width >= WIDE
    snap, report = state.snapshot, state.report
    if snap is None or report is None:
        if state.error:
            return (
                f"[b]kafkatui[/b] [b $error]cannot read the cluster: {escape(state.error)}[/]"
                f"  [dim]retry in {state.retry_in:.0f}s[/dim]"
            )
        return f"[b]kafkatui[/b] [dim]connecting to {escape(source)}…[/dim]"
    c = report.counts
    out = [f"[b]{escape(_cluster_name(snap.cluster_id, width))}[/b]  ctrl {snap.controller_id}  "]
    brokers = f"brokers {c.brokers_up}/{c.brokers_total}"
    if c.brokers_absent:
        out.append(f"[b $error]{brokers} (down: {','.join(map(str, c.brokers_absent))})[/]")
    else:
        out.append(brokers)
    out.append(f"  {c.topics} topics  {c.partitions} partitions  " if wide else "  ")
    when = datetime.fromtimestamp(snap.taken_at).strftime("%H:%M:%S")
    if state.stale:  # the error in short: the counts below must stay on screen; the events log has it whole
        out.append(
            f"[b reverse $error] STALE {ago(state.age(now))} [/] [$error]{escape(short_error(state.error or ''))}"
            f" (retry in {state.retry_in:.0f}s)[/]"
        )
    else:
        out.append(f"[dim]@{when}[/dim] {ago(state.age(now))} ago")
    if snap.partial:
        out.append("  [b $warning]PARTIAL[/]")
    if paused:
        out.append("  [b reverse $warning] PAUSED [/]")
    out.append("  [dim]read-only[/dim]" if read_only else "  [b $warning]WRITES ON[/]")
    out.append("\n")
    level = verdict_of(f.severity for f in state.findings)
    vstyle = {"critical": "$error", "warning": "$warning"}.get(level, "$success")
    out.append(f"verdict [b reverse {vstyle}] {VERDICT_SYMBOL[level]} {level.upper()} [/]" + ("   " if wide else " "))
    pieces = [
        (Health.OFFLINE, "offline", c.offline, "$error"),
        (Health.UNDER_MIN_ISR, "under minISR", c.under_min_isr, "$error"),
        (Health.AT_MIN_ISR, "at minISR", c.at_min_isr, "$warning"),
        (Health.UNDER_REPLICATED, "under-replicated", c.under_replicated_total, "$warning"),
        (Health.NON_PREFERRED_LEADER, "non-preferred", c.non_preferred_total, "$secondary"),
    ]
    sep = "   " if wide else " "
    for health, label, n, style in pieces:
        word = label if wide else NARROW_LABEL[health]
        if n:
            out.append(f"[{style}]{health.symbol} [b]{n}[/b] {word}[/]{sep}")
        else:
            out.append(f"[dim]{health.symbol} 0 {word}[/dim]{sep}")
    return "".join(out).rstrip()


class SummaryBar(Static):
    """Top of every screen: what is wrong right now, and how old the data is (two lines)."""

    DEFAULT_CSS = """
    SummaryBar { height: 2; padding: 0 1; background: $panel; }
    """

    def show(self, state: ViewState, *, paused: bool, read_only: bool, source: str, now: float | None = None) -> None:
        width = self.size.width or self.app.size.width
        self.update(summary_markup(state, paused=paused, read_only=read_only, source=source, now=now, width=width))
