"""The postmortem of the reference day (replayed by the real Spark job) against the job's own tables: every
incident's numbers equal summary.json, and each topic's minutes without acks=all writes equal what the
job's intervals/ (Parquet) say, computed here independently with Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafkatui.history.view.data import ReplayData
from kafkatui.report import facts, render
from kafkatui.report.write import write_report
from tests.report.tables import assert_incident_matches, unavailable_rows


def test_the_report_equals_the_jobs_tables(spark: Any, reference: Any, tmp_path: Path) -> None:
    data = ReplayData.load(reference.out)
    pm = facts.build(data)
    summary = reference.result.summary
    assert len(pm.incidents) == len(summary["incidents"]) > 0
    rows = unavailable_rows(spark, reference.out)
    md = render.markdown(pm)
    for f, inc in zip(pm.incidents, summary["incidents"], strict=True):
        assert_incident_matches(f, inc, rows)
        for o in f.outages:
            assert f"| {o.topic} | " in md and render.span(o.unavailable_ms) in md
    written = write_report(data, tmp_path / "rep", use_audit=False)
    assert written.incidents == len(summary["incidents"])
