"""The day's timeline as one SVG: partitions offline, under min ISR and at min ISR per minute, with the
incidents, the recorder's gaps, broker departures and returns and the changes made through kafkatui
marked on it. Plain SVG 1.1 text, no script, no external reference: it renders offline, in print and
inside a Markdown viewer that shows images."""

from __future__ import annotations

from html import escape

from kafkatui.history.replay_schema import MINUTE_MS, MINUTES
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


def _x(minute: float) -> float:
    return LEFT + (WIDTH - LEFT - RIGHT) * minute / MINUTES


def _nice_max(n: int) -> int:
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000):
        if n <= step * 4:
            return step * 4 if n > 4 else max(n, 1)
    return n


def timeline_svg(pm: Postmortem) -> str:
    """The chart as an `<svg>` element (with a title and a description for screen readers)."""
    s = pm.data.summary
    peak = max((max(m.offline, m.under_min_isr, m.at_min_isr) for m in s.timeline if not m.gap), default=0)
    ymax = _nice_max(peak)
    plot_h = HEIGHT - TOP - BOTTOM

    def y(v: float) -> float:
        return TOP + plot_h - plot_h * v / ymax

    def minute_of(ts_ms: int) -> float:
        return max(0.0, min(MINUTES, (ts_ms - s.day_start_ms) / MINUTE_MS))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-labelledby="tl-title tl-desc" font-family="sans-serif" font-size="11">',
        f'<title id="tl-title">Partitions that could not take acks=all writes on {escape(s.day)} (UTC)</title>',
        f'<desc id="tl-desc">Per minute: offline, under min ISR and at min ISR partition counts, peak {peak}; '
        f"{len(pm.incidents)} incident(s), {len(pm.broker_events)} broker event(s), "
        f"{len(pm.changes)} change(s) made through kafkatui.</desc>",
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{plot_h}" '
        'fill="#ffffff" stroke="#ced4da"/>',
    ]
    for i, facts in enumerate(pm.incidents, 1):  # incident bands behind everything
        a, b = _x(minute_of(facts.incident.start_ms)), _x(minute_of(facts.incident.end_ms))
        out.append(
            f'<rect class="incident" x="{a:.1f}" y="{TOP}" width="{max(b - a, 2):.1f}" height="{plot_h}" '
            f'fill="#fff0f0" stroke="#ffc9c9"><title>incident {i}</title></rect>'
        )
        out.append(f'<text x="{a + 2:.1f}" y="{TOP + 11}" fill="#c92a2a">#{i}</text>')
    for g in s.gaps:
        a, b = _x(minute_of(g.start_ms)), _x(minute_of(g.end_ms))
        out.append(
            f'<rect class="gap" x="{a:.1f}" y="{TOP}" width="{max(b - a, 1):.1f}" height="{plot_h}" '
            f'fill="{GAP_COLOUR}" fill-opacity="0.35"><title>recorder gap: {escape(g.reason)}</title></rect>'
        )
    if pm.end_ms < s.day_start_ms + MINUTES * MINUTE_MS:
        a = _x(minute_of(pm.end_ms))
        out.append(
            f'<rect class="after-end" x="{a:.1f}" y="{TOP}" width="{_x(MINUTES) - a:.1f}" height="{plot_h}" '
            f'fill="{GAP_COLOUR}" fill-opacity="0.2"><title>after the recording ends</title></rect>'
        )
        out.append(f'<text x="{a + 3:.1f}" y="{TOP + plot_h - 4}" fill="#495057">recording ends</text>')
    for v in range(0, ymax + 1, max(1, ymax // 4)):  # y grid
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#f1f3f5"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#495057">{v}</text>')
    for h in range(0, 25, 3):  # x axis: hours
        x = _x(h * 60)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP + plot_h}" y2="{TOP + plot_h + 4}" stroke="#495057"/>')
        out.append(f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" fill="#495057">{h:02d}:00</text>')
    for label, field, colour in SERIES:
        pts: list[str] = []
        paths: list[str] = []
        for m in s.timeline:
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
    for c in pm.changes:  # changes made through kafkatui: dashed blue lines
        x = _x(minute_of(c.ts_ms))
        out.append(
            f'<line class="config-change" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
            f'stroke="{CHANGE_COLOUR}" stroke-dasharray="4 3" stroke-width="1.4">'
            f"<title>{escape(c.what)} {escape(c.target)}: {escape(c.detail)} by {escape(c.user)}</title></line>"
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
