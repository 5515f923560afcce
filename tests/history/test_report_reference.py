"""The postmortem of the reference day (replayed by the real Spark job) against the job's own tables: every
incident's numbers equal summary.json, and each topic's minutes without acks=all writes equal what the
job's intervals/ (Parquet) say, computed here independently with Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafkatui.history.replay_data import ReplayData
from kafkatui.report import facts, render
from kafkatui.report.write import write_report


def _union(spans: list[tuple[int, int]]) -> int:
    total, end = 0, None
    start = 0
    for s, e in sorted(spans):
        if end is None or s > end:
            if end is not None:
                total += end - start
            start, end = s, e
        else:
            end = max(end, e)
    return total + (end - start if end is not None else 0)


def test_the_report_equals_the_jobs_tables(spark: Any, reference: Any, tmp_path: Path) -> None:
    data = ReplayData.load(reference.out)
    pm = facts.build(data)
    summary = reference.result.summary
    assert len(pm.incidents) == len(summary["incidents"]) > 0
    rows = (
        spark.read.parquet(str(Path(reference.out) / "intervals"))
        .where("class in ('OFFLINE', 'UNDER_MIN_ISR')")
        .select("topic", "partition", "start_ms", "end_ms")
        .collect()
    )
    md = render.markdown(pm)
    for f, inc in zip(pm.incidents, summary["incidents"], strict=True):
        i = f.incident
        assert (i.start_ms, i.end_ms, i.first_broker_out, i.first_out_ms) == (
            inc["start_ms"],
            inc["end_ms"],
            inc["first_broker_out"],
            inc["first_out_ms"],
        )
        assert (i.peak_under_min_isr, i.peak_offline, i.partitions) == (
            inc["peak_under_min_isr"],
            inc["peak_offline"],
            inc["partitions"],
        )
        by_topic: dict[str, list[tuple[int, int]]] = {}
        for r in rows:
            s, e = max(r["start_ms"], i.start_ms), min(r["end_ms"], i.end_ms)
            if e > s:
                by_topic.setdefault(r["topic"], []).append((s, e))
        assert {o.topic: o.unavailable_ms for o in f.outages} == {t: _union(v) for t, v in by_topic.items()}
        for o in f.outages:
            assert f"| {o.topic} | " in md and render.span(o.unavailable_ms) in md
    written = write_report(data, tmp_path / "rep", use_audit=False)
    assert written.incidents == len(summary["incidents"])
