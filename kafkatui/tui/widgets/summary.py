"""The summary bar: cluster, brokers, counts by class, freshness and mode, in words and symbols."""

from __future__ import annotations

import time
from datetime import datetime

from textual.markup import escape
from textual.widgets import Static

from kafkatui.model.health import Health
from kafkatui.tui.feed import ViewState


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


def summary_markup(state: ViewState, *, paused: bool, read_only: bool, source: str, now: float | None = None) -> str:
    """Two lines of Textual markup: who and how fresh; then the counts an operator looks at first."""
    now = time.time() if now is None else now
    snap, report = state.snapshot, state.report
    if snap is None or report is None:
        if state.error:
            return (f"[b]kafkatui[/b] [b $error]cannot read the cluster: {escape(state.error)}[/]"
                    f"  [dim]retry in {state.retry_in:.0f}s[/dim]")
        return f"[b]kafkatui[/b] [dim]connecting to {escape(source)}…[/dim]"
    c = report.counts
    out = [f"[b]{escape(snap.cluster_id or 'cluster')}[/b]  ctrl {snap.controller_id}  "]
    brokers = f"brokers {c.brokers_up}/{c.brokers_total}"
    if c.brokers_absent:
        out.append(f"[b $error]{brokers} (down: {','.join(map(str, c.brokers_absent))})[/]")
    else:
        out.append(brokers)
    out.append(f"  {c.topics} topics  {c.partitions} partitions  ")
    when = datetime.fromtimestamp(snap.taken_at).strftime("%H:%M:%S")
    if state.stale:  # the error in short: the counts below must stay on screen; the events log has it whole
        out.append(f"[b reverse $error] STALE {ago(state.age(now))} [/] [$error]{escape(short_error(state.error or ''))}"
                   f" (retry in {state.retry_in:.0f}s)[/]")
    else:
        out.append(f"[dim]@{when}, {ago(state.age(now))} ago[/dim]")
    if snap.partial:
        out.append("  [b $warning]PARTIAL[/]")
    if paused:
        out.append("  [b $warning]PAUSED[/]")
    out.append("  [dim]read-only[/dim]" if read_only else "  [b $warning]WRITES ON[/]")
    out.append("\n")
    pieces = [
        (Health.OFFLINE, "offline", c.offline, "$error"),
        (Health.UNDER_MIN_ISR, "under minISR", c.under_min_isr, "$error"),
        (Health.AT_MIN_ISR, "at minISR", c.at_min_isr, "$warning"),
        (Health.UNDER_REPLICATED, "under-replicated", c.under_replicated_total, "$warning"),
        (Health.NON_PREFERRED_LEADER, "non-preferred", c.non_preferred_total, "$secondary"),
    ]
    for health, label, n, style in pieces:
        if n:
            out.append(f"[{style}]{health.symbol} {label} [b]{n}[/b][/]   ")
        else:
            out.append(f"[dim]{health.symbol} {label} 0[/dim]   ")
    worst = c.worst
    style = "$error" if worst <= Health.UNDER_MIN_ISR else ("$warning" if worst < Health.HEALTHY else "$success")
    out.append(f"[b {style}]{worst.symbol} {worst.label}[/]")
    return "".join(out)


class SummaryBar(Static):
    """Top of every screen: what is wrong right now, and how old the data is."""

    DEFAULT_CSS = """
    SummaryBar { height: auto; max-height: 6; padding: 0 1; background: $panel; }
    """

    def show(self, state: ViewState, *, paused: bool, read_only: bool, source: str, now: float | None = None) -> None:
        self.update(summary_markup(state, paused=paused, read_only=read_only, source=source, now=now))
