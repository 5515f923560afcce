"""The postmortem of a real lab run (Kafka 4.4, captured by `python -m tests.report.capture_lab_run`:
tests/report/fixtures/lab-4.4/): brokers 2 then 3 crashed under acks=all load, `orders` lost its writes,
the engineer lowered its min ISR with `kafkatui alter --write`, the brokers came back and
`kafkatui alter --revert-last --write` set it back.

The recording is replayed by the real Spark job; the report says when writes stopped for `orders` and for
how long, that broker 2 went first, and shows both changes on the timeline at the minute they were made,
and its numbers equal the job's tables (summary.json and intervals/)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from kafkatui.alter import audit
from kafkatui.history.replay.job import ReplayConfig, ReplayResult, run_job
from kafkatui.history.view.data import ReplayData
from kafkatui.report import facts, render
from kafkatui.report.write import write_report
from tests.report.tables import assert_incident_matches, unavailable_rows

pytestmark = pytest.mark.timeout(900)

RUN = Path(__file__).resolve().parents[1] / "report" / "fixtures" / "lab-4.4"
SLACK_MS = 10_000  # a crash shows once the controller fences the broker (6 s here) and a snapshot reads it


def _run() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((RUN / "run.json").read_text(encoding="utf-8"))
    return doc


def _ms(step: str) -> int:
    return round(_run()["steps"][step] * 1000)


@pytest.fixture(scope="module")
def replayed(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> ReplayResult:
    out = tmp_path_factory.mktemp("labrun") / "out"
    return run_job(spark, ReplayConfig(day=date.fromisoformat(_run()["day"]), out=out, history=RUN / "history"))


@pytest.fixture(scope="module")
def postmortem(replayed: ReplayResult) -> facts.Postmortem:
    records = audit.read(RUN / "audit.jsonl")
    return facts.build(ReplayData.load(Path(replayed.out)), records, "the lab run's audit log")


def test_the_report_equals_the_jobs_tables(spark: Any, replayed: ReplayResult, postmortem: facts.Postmortem) -> None:
    summary = replayed.summary
    assert len(postmortem.incidents) == len(summary["incidents"]) >= 1
    rows = unavailable_rows(spark, replayed.out)
    for f, inc in zip(postmortem.incidents, summary["incidents"], strict=True):
        assert_incident_matches(f, inc, rows)


def test_the_crash_the_outage_and_the_changes_are_where_they_happened(postmortem: facts.Postmortem) -> None:
    first = postmortem.incidents[0]
    assert first.incident.first_broker_out == 2
    assert first.incident.first_out_ms is not None
    assert _ms("crash 2") <= first.incident.first_out_ms <= _ms("crash 2") + SLACK_MS
    left = [(e.broker, e.ts_ms) for e in first.broker_events if not e.up]
    assert [b for b, _ in left] == [2, 3], left
    assert _ms("crash 3") <= left[1][1] <= _ms("crash 3") + SLACK_MS
    # orders (RF 3, minISR 2) lost acks=all writes from broker 3's crash until min ISR was lowered to 1
    orders = next(o for o in first.outages if o.topic == "orders")
    lost = _ms("alter") - _ms("crash 3")
    assert lost - SLACK_MS <= orders.unavailable_ms <= lost + SLACK_MS, (orders.unavailable_ms, lost)
    # both changes, at the minute they were made, by what they changed
    made = [(c.what, c.target, c.detail, c.result) for c in postmortem.changes]
    assert made == [
        ("alter", "topic orders", "min.insync.replicas 2 -> 1", "ok"),
        ("alter", "topic orders", "min.insync.replicas 1 -> 2", "ok"),
    ], made
    assert abs(postmortem.changes[0].ts_ms - _ms("alter")) <= SLACK_MS
    assert abs(postmortem.changes[1].ts_ms - _ms("revert")) <= 60_000
    assert postmortem.changes[0] in first.changes  # made during the incident
    assert "KRaft" in postmortem.kafka and postmortem.kafka.startswith("4.")


def test_both_files_carry_it(postmortem: facts.Postmortem, tmp_path: Path) -> None:
    written = write_report(postmortem.data, tmp_path / "rep", RUN / "audit.jsonl")
    md = written.markdown.read_text(encoding="utf-8")
    assert "First broker out: #1 broker 2 at " in md
    orders = next(o for o in postmortem.incidents[0].outages if o.topic == "orders")
    assert f"| orders | {', '.join(map(str, orders.partitions))} | {render.span(orders.unavailable_ms)} |" in md
    assert "alter topic orders: min.insync.replicas 2 -> 1" in md
    close_up = (tmp_path / "rep" / f"postmortem-{postmortem.day}-incident-1.svg").read_text(encoding="utf-8")
    assert close_up.count('class="config-change"') >= 1 and "min.insync.replicas 2 -&gt; 1" in close_up
    assert 'class="broker-event"' in close_up
    page = written.html.read_text(encoding="utf-8")
    assert render.span(postmortem.incidents[0].outages[0].unavailable_ms) in page


def test_the_example_in_the_docs_is_what_kafkatui_writes_today(postmortem: facts.Postmortem, tmp_path: Path) -> None:
    """docs/example/ was written by `kafkatui report` from this fixture; a report change must refresh it
    (`kafkatui report OUT --to docs/example --audit-log tests/report/fixtures/lab-4.4/audit.jsonl` on the
    fixture's replay, run from the repository's root)."""
    root = RUN.parents[3]
    written = write_report(postmortem.data, tmp_path / "rep", RUN / "audit.jsonl")
    example = root / "docs" / "example"
    for made in (written.markdown, written.chart, tmp_path / "rep" / f"postmortem-{postmortem.day}-incident-1.svg"):
        text = made.read_text(encoding="utf-8").replace(f"{root}/", "")
        assert text == (example / made.name).read_text(encoding="utf-8"), f"docs/example/{made.name} is stale"
