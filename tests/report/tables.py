"""The replay job's own tables, read independently of kafkatui's reader, to check a report against."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafkatui.report.facts import IncidentFacts


def union_ms(spans: list[tuple[int, int]]) -> int:
    """The time covered by `spans` (overlaps counted once)."""
    total, start, end = 0, 0, None
    for s, e in sorted(spans):
        if end is None or s > end:
            if end is not None:
                total += end - start
            start, end = s, e
        else:
            end = max(end, e)
    return total + (end - start if end is not None else 0)


def unavailable_rows(spark: Any, out: str | Path) -> list[tuple[str, int, int]]:
    """(topic, start_ms, end_ms) of every interval/ row in which a partition could not take acks=all writes."""
    rows = (
        spark.read.parquet(str(Path(out) / "intervals"))
        .where("class in ('OFFLINE', 'UNDER_MIN_ISR')")
        .select("topic", "start_ms", "end_ms")
        .collect()
    )
    return [(r["topic"], r["start_ms"], r["end_ms"]) for r in rows]


def unavailable_by_topic(rows: list[tuple[str, int, int]], start_ms: int, end_ms: int) -> dict[str, int]:
    """Per topic, the time inside [start_ms, end_ms) during which one of its partitions could not take writes."""
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for topic, s, e in rows:
        s, e = max(s, start_ms), min(e, end_ms)
        if e > s:
            by_topic.setdefault(topic, []).append((s, e))
    return {t: union_ms(v) for t, v in by_topic.items()}


def assert_incident_matches(f: IncidentFacts, inc: dict[str, Any], rows: list[tuple[str, int, int]]) -> None:
    """The report's incident `f` says what summary.json's `inc` and the intervals `rows` say."""
    i = f.incident
    mine = (i.start_ms, i.end_ms, i.first_broker_out, i.first_out_ms, i.peak_under_min_isr, i.peak_offline)
    keys = ("start_ms", "end_ms", "first_broker_out", "first_out_ms", "peak_under_min_isr", "peak_offline")
    assert mine == tuple(inc[k] for k in keys)
    assert i.partitions == inc["partitions"]
    assert {o.topic: o.unavailable_ms for o in f.outages} == unavailable_by_topic(rows, i.start_ms, i.end_ms)
