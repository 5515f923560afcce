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
from kafkatui.model.unfenced import SYMBOL as UNFENCED_SYMBOL
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
ERROR_ROOM = 40
"""Characters of a STALE error the first line makes room for (dropping details) before it cuts the error."""


def short_error(text: str, limit: int = SHORT_ERROR, more: str = "… (see events)") -> str:
    """`text` cut at a word boundary (inside a long word) to `limit` characters, then `more`."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    words = cut.rsplit(" ", 1)[0]
    cut = (words if len(words) >= limit - 12 else cut).rstrip(" :,;(")  # a long host name is cut inside
    return f"{cut}{more}"


def _cluster_name(cluster_id: str | None, width: int) -> str:
    name = cluster_id or "cluster"
    limit = 24 if width >= WIDE else 12
    return name if len(name) <= limit else name[: limit - 1] + "…"


WAIT_SHOWN_AFTER = 2.0
"""Seconds a refresh runs before the header says what it waits on."""


def _first_line(
    state: ViewState,
    *,
    paused: bool,
    read_only: bool,
    now: float,
    width: int,
    waiting: tuple[str, float] | None = None,
) -> str:
    """Cluster, controller, brokers, freshness and mode, within `width` (less detail when narrow).

    A wrapped line would push the verdict off the two-line bar, so until the line fits it drops the
    clock time of the read, the controller, the topic and partition counts; when STALE, to keep
    ERROR_ROOM characters of the error, PARTIAL (of the old data), the words of the retry and the
    cluster's name, and last the "(see events)" hint.
    """
    snap, report = state.snapshot, state.report
    assert snap is not None and report is not None
    c = report.counts
    wide = width >= WIDE
    brokers = f"brokers {c.brokers_up}/{c.brokers_total}"
    if c.brokers_down:
        brokers = f"[b $error]{brokers} (down: {','.join(map(str, c.brokers_down))})[/]"
    p = {
        "name": f"[b]{escape(_cluster_name(snap.cluster_id, width))}[/b]  ",
        "ctrl": f"ctrl {snap.controller_id}  ",
        "sizes": f"{c.topics} topics  {c.partitions} partitions  " if wide else "",
        # the brokers' Kafka line and mode (`kafkatui.model.rules`): which min ISR rule the counts follow
        "kafka": f"[dim]{escape(snap.kafka.describe())}[/dim]  " if wide and snap.kafka.known else "",
        "when": f"[dim]@{datetime.fromtimestamp(snap.taken_at).strftime('%H:%M:%S')}[/dim] ",
        "partial": "  [b $warning]PARTIAL[/]" if snap.partial else "",
        "more": "… (see events)",
        "retry": f" (retry in {state.retry_in:.0f}s)",
    }
    wait = ""
    if waiting is not None and waiting[1] >= WAIT_SHOWN_AFTER:  # a slow refresh says on what, not just an age
        wait = f"  [b $warning]waiting on {escape(waiting[0])} ({waiting[1]:.0f} s)[/]"
    mode = (
        wait
        + ("  [b reverse $warning] PAUSED [/]" if paused else "")
        + ("  [dim]read-only[/dim]" if read_only else "  [b $warning]WRITES ON[/]")
    )
    error = " ".join((state.error or "").split())
    shorter: list[tuple[str, str]] = [("kafka", ""), ("when", ""), ("ctrl", ""), ("sizes", "")]
    if state.stale:
        shorter += [("partial", ""), ("retry", f" ↻{state.retry_in:.0f}s"), ("name", ""), ("more", "…")]
    line = ""
    for key, value in [("", ""), *shorter]:
        if key:
            p[key] = value
        head = p["name"] + p["ctrl"] + p["kafka"] + brokers + "  " + p["sizes"]
        flags = p["partial"] + mode
        if state.stale:  # the error in short: the counts below must stay on screen; the events log has it whole
            stale = f"[b reverse $error] STALE {ago(state.age(now))} [/] "
            spare = width - 2 - _cells(head + stale + p["retry"] + flags)  # 2: the bar's padding
            whole = len(error) <= min(SHORT_ERROR, spare)
            limit = SHORT_ERROR if whole else min(SHORT_ERROR, spare - len(p["more"]))
            text = short_error(error, max(12, limit), p["more"])
            line = head + f"{stale}[$error]{escape(text)}{p['retry']}[/]" + flags
            # short of ERROR_ROOM, details go first; the "(see events)" hint goes only when even
            # 20 characters of the error do not fit beside it
            fits = whole or limit >= (20 if key == "name" else ERROR_ROOM)
        else:
            line = head + f"{p['when']}{ago(state.age(now))} ago" + flags
            fits = _cells(line) <= width - 2
        if fits:
            break
    return line


def _cells(markup: str) -> int:
    """Terminal cells the markup takes once rendered."""
    from rich.text import Text

    return Text.from_markup(markup.replace("$", "")).cell_len


def summary_markup(
    state: ViewState,
    *,
    paused: bool,
    read_only: bool,
    source: str,
    now: float | None = None,
    width: int = 120,
    waiting: tuple[str, float] | None = None,
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
    out = [_first_line(state, paused=paused, read_only=read_only, now=now, width=width, waiting=waiting)]
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
    if c.leader_refused:  # led by a broker refusing connections: no writes until the controller moves them
        word = "leader down" if wide else "ldr down"
        out.append(f"[$error]{UNFENCED_SYMBOL} [b]{c.leader_refused}[/b] {word}[/]{sep}")
        # room for it on the line: the least urgent count gives way
        pieces = [p for p in pieces if p[0] != Health.NON_PREFERRED_LEADER]
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

    def show(
        self,
        state: ViewState,
        *,
        paused: bool,
        read_only: bool,
        source: str,
        now: float | None = None,
        waiting: tuple[str, float] | None = None,
    ) -> None:
        width = self.size.width or self.app.size.width
        self.update(
            summary_markup(
                state, paused=paused, read_only=read_only, source=source, now=now, width=width, waiting=waiting
            )
        )
