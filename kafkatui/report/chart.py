"""The day's timeline as one SVG: partitions offline, under min ISR and at min ISR per minute, with the
incidents, the recorder's gaps, broker departures and returns and the changes made through kafkatui
marked on it. Plain SVG 1.1 text, no script, no external reference: it renders offline, in print and
inside a Markdown viewer that shows images.

The same chart draws a window of the day: the whole day (the overview), or a close-up of one incident
(`incident_window`), where a five-minute outage is wide enough to read minute by minute."""

from __future__ import annotations

from html import escape

from kafkatui.history.replay.schema import MINUTE_MS, MINUTES
from kafkatui.report.facts import Postmortem

WIDTH, HEIGHT = 960, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 34, 40
SERIES = (  # (label, MinuteCounts field, colour); drawn in this order, worst on top
    ("at min ISR", "at_min_isr", "#d4a017"),
    ("under min ISR", "under_min_isr", "#e8590c"),
    ("offline", "offline", "#c92a2a"),
)
CHANGE_COLOUR = "#1c7ed6"
GAP_COLOUR = "#adb5bd"


TICK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 180)  # minutes between x-axis labels; at most MAX_TICKS of them
MAX_TICKS = 10
CLOSE_UP_PAD = 5  # minutes before and after an incident in its close-up (at least)
LABEL_CHANGES_WITHIN = 180  # a chart of at most this many minutes names each change beside its line


def incident_window(day_start_ms: int, start_ms: int, end_ms: int) -> tuple[int, int]:
    """The minutes [lo, hi) of an incident's close-up: the incident with a margin (a fifth of its length,
    at least CLOSE_UP_PAD minutes) on each side, inside the day."""
    a = (start_ms - day_start_ms) // MINUTE_MS
    b = -(-(end_ms - day_start_ms) // MINUTE_MS)
    pad = max(CLOSE_UP_PAD, (b - a) // 5)
    return max(0, a - pad), min(MINUTES, max(b, a + 1) + pad)


def _tick_step(width: int) -> int:
    return next((t for t in TICK_STEPS if width / t <= MAX_TICKS), TICK_STEPS[-1])


def _nice_max(n: int) -> int:
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000):
        if n <= step * 4:
            return step * 4 if n > 4 else max(n, 1)
    return n


def timeline_svg(pm: Postmortem, window: tuple[int, int] = (0, MINUTES), ident: str = "tl") -> str:
    """The chart of the minutes [lo, hi) of the day as an `<svg>` element, with a title and a description
    for screen readers (`ident` keeps their ids apart when several charts share one page)."""
    s = pm.data.summary
    lo, hi = window
    shown = [m for m in s.timeline if lo <= m.minute < hi]
    peak = max((max(m.offline, m.under_min_isr, m.at_min_isr) for m in shown if not m.gap), default=0)
    ymax = _nice_max(peak)
    plot_h = HEIGHT - TOP - BOTTOM

    def y(v: float) -> float:
        return TOP + plot_h - plot_h * v / ymax

    hi_ms = s.day_start_ms + hi * MINUTE_MS

    def _x(minute: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (minute - lo) / (hi - lo)

    def minute_of(ts_ms: int) -> float:
        return max(float(lo), min(float(hi), (ts_ms - s.day_start_ms) / MINUTE_MS))

    def inside(ts_ms: int) -> bool:
        return lo <= (ts_ms - s.day_start_ms) / MINUTE_MS <= hi

    span = "" if (lo, hi) == (0, MINUTES) else f", {_hhmm(lo)} to {_hhmm(hi)}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-labelledby="{ident}-title {ident}-desc" font-family="sans-serif" '
        'font-size="11">',
        f'<title id="{ident}-title">Partitions that could not take acks=all writes on {escape(s.day)}{span} '
        "(UTC)</title>",
        f'<desc id="{ident}-desc">Per minute: offline, under min ISR and at min ISR partition counts, peak {peak}; '
        f"{len(pm.incidents)} incident(s), {len(pm.broker_events)} broker event(s), "
        f"{len(pm.changes)} change(s) made through kafkatui.</desc>",
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{plot_h}" '
        'fill="#ffffff" stroke="#ced4da"/>',
    ]
    for i, facts in enumerate(pm.incidents, 1):  # incident bands behind everything
        if facts.incident.end_ms < s.day_start_ms + lo * MINUTE_MS or facts.incident.start_ms > hi_ms:
            continue
        a, b = _x(minute_of(facts.incident.start_ms)), _x(minute_of(facts.incident.end_ms))
        out.append(
            f'<rect class="incident" x="{a:.1f}" y="{TOP}" width="{max(b - a, 2):.1f}" height="{plot_h}" '
            f'fill="#fff0f0" stroke="#ffc9c9"><title>incident {i}</title></rect>'
        )
        out.append(f'<text x="{a + 2:.1f}" y="{TOP + 11}" fill="#c92a2a">#{i}</text>')
    for g in s.gaps:
        if g.end_ms < s.day_start_ms + lo * MINUTE_MS or g.start_ms > hi_ms:
            continue
        a, b = _x(minute_of(g.start_ms)), _x(minute_of(g.end_ms))
        out.append(
            f'<rect class="gap" x="{a:.1f}" y="{TOP}" width="{max(b - a, 1):.1f}" height="{plot_h}" '
            f'fill="{GAP_COLOUR}" fill-opacity="0.35"><title>recorder gap: {escape(g.reason)}</title></rect>'
        )
    if pm.end_ms < min(hi_ms, s.day_start_ms + MINUTES * MINUTE_MS):
        a = _x(minute_of(pm.end_ms))
        out.append(
            f'<rect class="after-end" x="{a:.1f}" y="{TOP}" width="{_x(hi) - a:.1f}" height="{plot_h}" '
            f'fill="{GAP_COLOUR}" fill-opacity="0.2"><title>after the recording ends</title></rect>'
        )
        out.append(f'<text x="{a + 3:.1f}" y="{TOP + plot_h - 4}" fill="#495057">recording ends</text>')
    for v in range(0, ymax + 1, max(1, ymax // 4)):  # y grid
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#f1f3f5"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#495057">{v}</text>')
    step = _tick_step(hi - lo)
    for t in range(-(-lo // step) * step, hi + 1, step):  # x axis: HH:MM every `step` minutes
        x = _x(t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP + plot_h}" y2="{TOP + plot_h + 4}" stroke="#495057"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" fill="#495057">{_hhmm(t)}</text>')
    for label, field, colour in SERIES:
        pts: list[str] = []
        paths: list[str] = []
        for m in shown:
            v = getattr(m, field)
            if m.gap:
                if pts:
                    paths.append(" ".join(pts))
                    pts = []
                continue
            pts.append(f"{_x(m.minute):.1f},{y(v):.1f} {_x(m.minute + 1):.1f},{y(v):.1f}")
        if pts:
            paths.append(" ".join(pts))
        for d in paths:
            out.append(
                f'<polyline class="series {field}" points="{d}" fill="none" stroke="{colour}" stroke-width="1.6">'
                f"<title>{label}</title></polyline>"
            )
    for e in pm.broker_events:  # broker departures (down) and returns (up) along the top
        if not inside(e.ts_ms):
            continue
        x = _x(minute_of(e.ts_ms))
        mark = (
            f"{x - 4:.1f},{TOP - 12} {x + 4:.1f},{TOP - 12} {x:.1f},{TOP - 4}"
            if not e.up
            else (f"{x - 4:.1f},{TOP - 4} {x + 4:.1f},{TOP - 4} {x:.1f},{TOP - 12}")
        )
        word = "returned" if e.up else "left"
        colour = "#2b8a3e" if e.up else "#c92a2a"
        out.append(
            f'<polygon class="broker-event" points="{mark}" fill="{colour}">'
            f"<title>broker {e.broker} {word}</title></polygon>"
        )
        out.append(f'<text x="{x + 5:.1f}" y="{TOP - 5}" fill="{colour}" font-size="9">{e.broker}</text>')
    shown_changes = [c for c in pm.changes if inside(c.ts_ms)]
    for n, c in enumerate(shown_changes):  # changes made through kafkatui: dashed blue lines
        x = _x(minute_of(c.ts_ms))
        out.append(
            f'<line class="config-change" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
            f'stroke="{CHANGE_COLOUR}" stroke-dasharray="4 3" stroke-width="1.4">'
            f"<title>{escape(c.what)} {escape(c.target)}: {escape(c.detail)} by {escape(c.user)}</title></line>"
        )
        if hi - lo <= LABEL_CHANGES_WITHIN:  # a close-up has room to name it
            out.append(
                f'<text x="{x + 3:.1f}" y="{TOP + 24 + 12 * (n % 4)}" fill="{CHANGE_COLOUR}" font-size="9" '
                'stroke="#ffffff" stroke-width="3" paint-order="stroke">'
                f"{escape(c.target)}: {escape(c.detail)}</text>"
            )
    lx = LEFT
    ly = HEIGHT - 8
    for label, _, colour in reversed(SERIES):
        out.append(f'<rect x="{lx}" y="{ly - 8}" width="12" height="3" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly - 3}" fill="#212529">{label}</text>')
        lx += 110
    legend = (
        ("#fff0f0", "incident"),
        (GAP_COLOUR, "recorder gap"),
        (CHANGE_COLOUR, "change made (kafkatui)"),
    )
    for colour, label in legend:
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="8" fill="{colour}" stroke="#adb5bd"/>')
        out.append(f'<text x="{lx + 16}" y="{ly - 3}" fill="#212529">{label}</text>')
        lx += 150
    out.append(f'<text x="{lx}" y="{ly - 3}" fill="#212529">▼ broker left  ▲ returned</text>')
    out.append("</svg>")
    return "\n".join(out)


def _hhmm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"
