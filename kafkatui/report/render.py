"""The postmortem as Markdown (for a wiki or a ticket) and as one self-contained HTML file (inline CSS and
SVG, no script, no fetch: readable offline and printable). Both say the same things in the same order:
summary, timeline, each incident, what to fix, where the numbers come from."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from html import escape

from kafkatui.model.paste import paste_block
from kafkatui.report.chart import incident_window, timeline_svg
from kafkatui.report.facts import ChangeMade, IncidentFacts, Postmortem

CHART_FILE = "timeline.svg"
CLOSE_UPS = 12  # incidents that get a close-up chart of their own (the first ones of the day)


def close_up(pm: Postmortem, k: int) -> str | None:
    """The close-up chart of incident `k` (1-based) as SVG text, or None past CLOSE_UPS."""
    if k > CLOSE_UPS:
        return None
    i = pm.incidents[k - 1].incident
    return timeline_svg(pm, incident_window(pm.data.summary.day_start_ms, i.start_ms, i.end_ms), f"inc{k}")


def close_up_file(chart: str, k: int) -> str:
    """`postmortem-DAY-timeline.svg` -> `postmortem-DAY-incident-K.svg`."""
    stem = chart.removesuffix(".svg").removesuffix("-timeline").removesuffix("timeline")
    return f"{stem}{'-' if stem else ''}incident-{k}.svg"


def clock(ts_ms: int) -> str:
    """'14:07:30' (UTC)."""
    return datetime.fromtimestamp(ts_ms / 1000, tz=UTC).strftime("%H:%M:%S")


def span(ms: float) -> str:
    """'5 min 26 s', '1 h 02 min', '0.4 s'."""
    s = ms / 1000
    if s < 10:
        return f"{s:.1f} s"
    s = round(s)
    if s < 60:
        return f"{s} s"
    m, sec = divmod(s, 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def _end_text(f: IncidentFacts) -> str:
    return "ongoing when the recording ends" if f.ongoing else clock(f.incident.end_ms)


def _duration(f: IncidentFacts) -> str:
    d = span(f.incident.end_ms - f.incident.start_ms)
    return f"{d} so far" if f.ongoing else d


def _first_out(f: IncidentFacts) -> str:
    i = f.incident
    if i.first_broker_out is None:
        return "no broker left an ISR first (configuration or election)"
    at = f" at {clock(i.first_out_ms)}" if i.first_out_ms is not None else ""
    return f"broker {i.first_broker_out}{at}"


def _counts(pairs: Iterable[tuple[int, int]]) -> str:
    items = [f"broker {b}: {n}" for b, n in pairs]
    return _capped(items, "broker") or "none"


HEADLINE_MAX = 10  # names listed in one line of the summary; a big day says how many more


def _capped(items: list[str], noun: str) -> str:
    """The first HEADLINE_MAX of `items`, then "and N more <noun>s"."""
    if len(items) <= HEADLINE_MAX:
        return ", ".join(items)
    more = len(items) - HEADLINE_MAX
    return ", ".join(items[:HEADLINE_MAX]) + f" and {more} more {noun}{'s' if more != 1 else ''}"


def _change(c: ChangeMade) -> str:
    result = "" if c.result == "ok" else f" (failed: {c.result})"
    return f"{clock(c.ts_ms)} {c.what} {c.target}: {c.detail}, by {c.user}{result}"


def _headline(pm: Postmortem) -> list[str]:
    n = len(pm.incidents)
    lines = [f"{n} incident{'s' if n != 1 else ''} (a partition under min ISR or offline: acks=all writes failed)."]
    worst: dict[str, int] = {}
    for f in pm.incidents:
        for o in f.outages:
            worst[o.topic] = worst.get(o.topic, 0) + o.unavailable_ms
    if worst:
        ranked = [f"{t} ({span(ms)})" for t, ms in sorted(worst.items(), key=lambda kv: (-kv[1], kv[0]))]
        lines.append(f"acks=all writes stopped for: {_capped(ranked, 'topic')}.")
    firsts = [f for f in pm.incidents if f.incident.first_broker_out is not None]
    if 0 < len(firsts) <= HEADLINE_MAX:
        lines.append(
            "First broker out: " + "; ".join(f"#{pm.incidents.index(f) + 1} {_first_out(f)}" for f in firsts) + "."
        )
    elif firsts:  # a big day: which brokers went first most often
        often = Counter(f.incident.first_broker_out for f in firsts).most_common()
        lines.append(
            f"First broker out, over {len(firsts)} incidents: "
            + _capped([f"broker {b} ({n} time{'s' if n != 1 else ''})" for b, n in often], "broker")
            + "."
        )
    lines.append(f"{len(pm.changes)} change(s) made through kafkatui that day.")
    return lines


def _provenance(pm: Postmortem) -> list[str]:
    s = pm.data.summary
    i = s.inputs
    logs = i.get("broker_logs") or []
    out = [
        f"Recordings: {i.get('history') or 'none'}; broker logs: {', '.join(map(str, logs)) or 'none'}.",
        f"{i.get('events', 0):,} events read; {i.get('torn_lines', 0)} torn or garbled lines; "
        f"{i.get('unparsed_log_lines', 0)} unparsed broker-log lines; "
        f"{i.get('newer_schema_records', 0)} records of a newer schema.",
        "Times are UTC. A partition could not take acks=all writes while offline or under its effective min "
        "ISR, as the replay classified it.",
        f"Kafka: {pm.kafka or 'version and mode not recorded in these inputs'}.",
    ]
    if pm.end_ms < s.day_start_ms + 86_400_000:
        out.append(f"The recording ends at {clock(pm.end_ms)}: nothing after it is known.")
    gaps = [g for g in s.gaps if g.start_ms != pm.end_ms]  # after the recording's end: said above
    if gaps:
        day_end = s.day_start_ms + 86_400_000
        said = "; ".join(
            f"{clock(g.start_ms)}-{'24:00:00' if g.end_ms >= day_end else clock(g.end_ms)} ({g.reason or 'no reason'})"
            for g in gaps
        )
        out.append(f"Recorder gaps (state unknown): {said}.")
    else:
        out.append("Recorder gaps: none.")
    out.append(f"Changes: {pm.audit_source or 'no audit log read'}.")
    if pm.findings_minute is not None:
        out.append(
            f"Configuration findings from the recorded state at {pm.findings_minute // 60:02d}:"
            f"{pm.findings_minute % 60:02d}."
        )
    return out


# ------------------------------------------------------------------------------------------- markdown
def markdown(pm: Postmortem, chart: str = CHART_FILE) -> str:
    """The report as Markdown; the chart is the image file `chart` beside it."""
    s = pm.data.summary
    md = [f"# Postmortem: Kafka replication, {s.day} (UTC)", ""]
    md += [f"- {line}" for line in _headline(pm)]
    md += ["", f"![Partitions offline, under and at min ISR per minute, {s.day}]({chart})", ""]
    for k, f in enumerate(pm.incidents, 1):
        i = f.incident
        md += [f"## Incident {k}: {clock(i.start_ms)} to {_end_text(f)} ({_duration(f)})", ""]
        if k <= CLOSE_UPS:
            md += [f"![Incident {k}, minute by minute]({close_up_file(chart, k)})", ""]
        md += [
            f"- First broker out: {_first_out(f)}",
            f"- Peak: {i.peak_under_min_isr} partition(s) under min ISR, {i.peak_offline} offline",
            f"- Partitions affected: {i.partitions}, in {', '.join(i.topics) or '-'}",
        ]
        moves = "; ".join(
            f"{clock(e.ts_ms)} broker {e.broker} {'returned' if e.up else 'left'}" for e in f.broker_events
        )
        md.append(f"- Brokers: {moves or 'no broker left or returned'}")
        md.append(f"- ISR shrinks: {_counts(f.shrinks)}; expands: {_counts(f.expands)}")
        flapped = ", ".join(f"{n} ({k} times)" for n, k in f.flapped)
        md.append(f"- Flapped (lost writes twice or more): {flapped or 'none'}")
        md += ["", "| topic | partitions that lost acks=all writes | writes unavailable | partition time |"]
        md.append("|---|---|---|---|")
        for o in f.outages:
            parts = ", ".join(map(str, o.partitions))
            md.append(f"| {o.topic} | {parts} | {span(o.unavailable_ms)} | {span(o.partition_ms)} |")
        if not f.outages:
            md.append("| - | - | - | - |")
        md.append("")
        if f.changes:
            md.append("Changes made through kafkatui during the incident:")
            md += [f"- {_change(c)}" for c in f.changes]
            md.append("")
    if pm.changes:
        md += ["## Changes made through kafkatui that day", ""]
        md += [f"- {_change(c)}" for c in pm.changes]
        md.append("")
    md += ["## What to fix so that it does not happen again", ""]
    if not pm.findings:
        md += ["No configuration finding in the recorded state.", ""]
    for fd in pm.findings:
        md += [f"### {fd.title} ({fd.severity})", ""]
        md += [f"- {step}" for step in fd.steps]
        if fd.commands:  # safe to paste whole: every change is commented out under when to run it
            md += ["", "```sh", *paste_block(fd.commands, fd.change_when).splitlines(), "```"]
        md.append("")
    md += ["## Where these numbers come from", ""]
    md += [f"- {line}" for line in _provenance(pm)]
    md.append("")
    return "\n".join(md)


# ----------------------------------------------------------------------------------------------- html
CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #212529; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #dee2e6; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .5em 0 1em; } th, td { border: 1px solid #dee2e6; padding: .25em .6em; }
th { background: #f1f3f5; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f8f9fa; padding: .6em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.ongoing { color: #c92a2a; font-weight: bold; } figure { margin: 1em 0; } svg { max-width: 100%; height: auto; }
.muted { color: #495057; }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; } section { break-inside: avoid; } }
"""


def _li(items: Iterable[str]) -> str:
    return "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in items) + "</ul>"


def html(pm: Postmortem) -> str:
    """The report as one HTML document with the chart inline."""
    s = pm.data.summary
    h = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Postmortem: Kafka replication, {escape(s.day)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>Postmortem: Kafka replication, {escape(s.day)} (UTC)</h1>",
        _li(_headline(pm)),
        f'<figure id="timeline">{timeline_svg(pm)}<figcaption class="muted">Partitions offline, under and at min '
        "ISR per minute (UTC). Shaded: incidents; grey: recorder gaps; triangles: brokers leaving and returning; "
        "dashed: changes made through kafkatui.</figcaption></figure>",
    ]
    for k, f in enumerate(pm.incidents, 1):
        i = f.incident
        end = f'<span class="ongoing">{escape(_end_text(f))}</span>' if f.ongoing else escape(_end_text(f))
        h.append(
            f'<section class="incident"><h2>Incident {k}: {clock(i.start_ms)} to {end} ({escape(_duration(f))})</h2>'
        )
        zoom = close_up(pm, k)
        if zoom is not None:
            h.append(f'<figure class="close-up">{zoom}</figure>')
        moves = "; ".join(
            f"{clock(e.ts_ms)} broker {e.broker} {'returned' if e.up else 'left'}" for e in f.broker_events
        )
        flapped = ", ".join(f"{n} ({k} times)" for n, k in f.flapped)
        h.append(
            _li(
                [
                    f"First broker out: {_first_out(f)}",
                    f"Peak: {i.peak_under_min_isr} partition(s) under min ISR, {i.peak_offline} offline",
                    f"Partitions affected: {i.partitions}, in {', '.join(i.topics) or '-'}",
                    f"Brokers: {moves or 'no broker left or returned'}",
                    f"ISR shrinks: {_counts(f.shrinks)}; expands: {_counts(f.expands)}",
                    f"Flapped (lost writes twice or more): {flapped or 'none'}",
                ]
            )
        )
        h.append(
            "<table><tr><th>topic</th><th>partitions that lost acks=all writes</th>"
            "<th>writes unavailable</th><th>partition time</th></tr>"
        )
        for o in f.outages:
            h.append(
                f"<tr><td>{escape(o.topic)}</td><td>{escape(', '.join(map(str, o.partitions)))}</td>"
                f'<td class="n">{span(o.unavailable_ms)}</td><td class="n">{span(o.partition_ms)}</td></tr>'
            )
        h.append("</table>")
        if f.changes:
            h.append("<p>Changes made through kafkatui during the incident:</p>" + _li(_change(c) for c in f.changes))
        h.append("</section>")
    if pm.changes:
        h.append("<h2>Changes made through kafkatui that day</h2>" + _li(_change(c) for c in pm.changes))
    h.append("<h2>What to fix so that it does not happen again</h2>")
    if not pm.findings:
        h.append("<p>No configuration finding in the recorded state.</p>")
    for fd in pm.findings:
        h.append(f"<h3>{escape(fd.title)} ({escape(fd.severity)})</h3>" + _li(fd.steps))
        if fd.commands:
            h.append("<pre>" + escape(paste_block(fd.commands, fd.change_when).rstrip("\n")) + "</pre>")
    h.append("<h2>Where these numbers come from</h2>" + _li(_provenance(pm)))
    h.append("</body></html>")
    return "\n".join(h) + "\n"
