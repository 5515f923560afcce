"""The postmortem report on a hand-written replayed day: its numbers, the audit log's changes, an ongoing
incident, the files and the command's errors (no Spark, no cluster)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kafkatui.history.view.data import ReplayData
from kafkatui.report import facts, render
from kafkatui.report.chart import incident_window, timeline_svg
from kafkatui.report.write import write_report
from tests.history.replay_fixture import DAY, at, incident_day

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> ReplayData:
    return ReplayData.load(incident_day(tmp_path_factory.mktemp("pm") / "out"))


def audit_records() -> list[dict[str, object]]:
    """A minISR raise during incident 2, a preferred election after it, another day's change, an intent."""
    return [
        {
            "time": "2026-11-20T14:10:00+00:00",
            "user": "oncall",
            "cluster_id": "c1",
            "command_id": "a",
            "resource": {"kind": "topic", "name": "payments"},
            "key": "min.insync.replicas",
            "before": {"value": "2", "source": "STATIC_BROKER_CONFIG"},
            "after": {"value": "1", "source": "DYNAMIC_TOPIC_CONFIG"},
            "result": "ok",
            "outcome": "applied",
        },
        {"time": "2026-11-20T14:09:00+00:00", "type": "intent", "command_id": "a", "user": "oncall"},
        {
            "time": "2026-11-20T15:00:00+00:00",
            "user": "oncall",
            "action": "elect-preferred",
            "resource": {"kind": "partition", "name": "orders-0", "topic": "orders", "partition": 0},
            "before": {"leader": 2},
            "after": {"leader": 1},
            "result": "ok",
        },
        {
            "time": "2026-11-21T01:00:00+00:00",
            "user": "x",
            "resource": {"kind": "topic", "name": "orders"},
            "key": "retention.ms",
            "before": {"value": "1"},
            "after": {"value": "2"},
            "result": "ok",
        },
    ]


def test_incidents_equal_the_summary_and_the_frames(day: ReplayData) -> None:
    pm = facts.build(day, audit_records(), "test")
    assert [f.incident for f in pm.incidents] == list(day.summary.incidents)
    one, two = pm.incidents
    # incident 1: orders-0 under minISR 02:13:44.120 -> 02:19:10.500, broker 3 first out at 02:13:30
    (orders,) = one.outages
    assert (orders.topic, orders.partitions) == ("orders", (0,))
    assert orders.unavailable_ms == at("02:19:10.500") - at("02:13:44.120") == 326_380
    assert [(e.broker, e.up) for e in one.broker_events] == [(3, False)]  # left before the window: first out
    assert dict(one.shrinks) == {2: 1}
    # incident 2: payments-0 under minISR, offline, under minISR again until 14:20
    (payments,) = two.outages
    assert payments.unavailable_ms == at("14:20:00") - at("14:04:50")
    assert [(e.broker, e.up) for e in two.broker_events] == [(1, False), (1, True)]
    assert dict(two.shrinks)[1] == 5  # broker 1 left the ISR of every partition it held
    assert [c.what for c in two.changes] == ["alter"] and not one.changes
    assert [c.what for c in pm.changes] == ["alter", "elect-preferred"]  # the intent and the next day's left out
    assert not one.ongoing and not two.ongoing


def test_markdown_says_the_numbers_the_tables_hold(day: ReplayData) -> None:
    pm = facts.build(day, audit_records(), "test")
    md = render.markdown(pm)
    s = day.summary
    for k, inc in enumerate(s.incidents, 1):
        head = f"## Incident {k}: {render.clock(inc.start_ms)} to {render.clock(inc.end_ms)}"
        assert head in md
        assert f"Peak: {inc.peak_under_min_isr} partition(s) under min ISR, {inc.peak_offline} offline" in md
        assert f"broker {inc.first_broker_out} at {render.clock(inc.first_out_ms or 0)}" in md
    assert "| orders | 0 | 5 min 26 s | 5 min 26 s |" in md
    assert "| payments | 0 | 15 min 10 s | 15 min 10 s |" in md
    assert "14:10:00 alter topic payments: min.insync.replicas 2 -> 1, by oncall" in md
    assert "Recorder gaps (state unknown): 20:00:00-20:10:00" in md
    assert "retention.ms" not in md


def test_chart_marks_incidents_gaps_brokers_and_changes(day: ReplayData) -> None:
    svg = timeline_svg(facts.build(day, audit_records(), "test"))
    assert svg.count('class="incident"') == 2 and svg.count('class="gap"') == 1
    assert svg.count('class="broker-event"') == 4  # 3 left, 3 back, 1 left, 1 back
    assert svg.count('class="config-change"') == 2
    assert "series under_min_isr" in svg and "series offline" in svg
    assert "<script" not in svg and "href" not in svg


def test_each_incident_gets_a_close_up_read_minute_by_minute(day: ReplayData) -> None:
    pm = facts.build(day, audit_records(), "test")
    first = pm.incidents[0].incident
    lo, hi = incident_window(day.summary.day_start_ms, first.start_ms, first.end_ms)
    assert lo * 60_000 + day.summary.day_start_ms <= first.start_ms - 5 * 60_000
    assert hi * 60_000 + day.summary.day_start_ms >= first.end_ms + 5 * 60_000
    svg = render.close_up(pm, 1)
    assert svg is not None and svg.count('class="incident"') >= 1
    labels = re.findall(r">(\d\d:\d\d)</text>", svg)
    minutes = [int(t[:2]) * 60 + int(t[3:]) for t in labels]
    assert 3 <= len(labels) <= 11 and all(lo <= m <= hi for m in minutes), labels  # the x axis is the window's
    day_svg = timeline_svg(pm)
    assert re.findall(r">(\d\d:\d\d)</text>", day_svg)[:2] == ["00:00", "03:00"]
    # the change made during incident 2 is on its close-up, named beside its line
    second = render.close_up(pm, 2) or ""
    assert 'class="config-change"' in second and "min.insync.replicas 2 -&gt; 1" in second


def test_changes_to_other_clusters_stay_out_and_the_version_is_stated(tmp_path: Path) -> None:
    out = incident_day(tmp_path / "out")
    summary = json.loads((out / "summary.json").read_text())
    summary["inputs"].update(clusters=["c1"], kafka_version="3.9", mode="ZooKeeper")
    (out / "summary.json").write_text(json.dumps(summary))
    other = dict(audit_records()[0], cluster_id="staging", key="retention.ms", time="2026-11-20T14:11:00+00:00")
    pm = facts.build(ReplayData.load(out), [*audit_records(), other], "test")
    assert [c.target for c in pm.changes] == ["topic payments", "partition orders-0"]  # not staging's
    assert "- Kafka: 3.9, ZooKeeper." in render.markdown(pm)
    unknown = facts.build(ReplayData.load(incident_day(tmp_path / "plain")), [*audit_records(), other], "test")
    assert len(unknown.changes) == 3  # no cluster recorded: every cluster's changes that day


def test_an_incident_open_at_the_end_of_the_recording_is_ongoing(tmp_path: Path) -> None:
    out = incident_day(tmp_path / "out")
    summary = json.loads((out / "summary.json").read_text())
    summary["recording_ends"] = [at("14:12:00")]
    summary["incidents"][1]["end_ms"] = at("14:12:00")
    summary["incidents"][1]["ongoing"] = True
    (out / "summary.json").write_text(json.dumps(summary))
    pm = facts.build(ReplayData.load(out))
    assert pm.end_ms == at("14:12:00") and pm.incidents[1].ongoing
    md = render.markdown(pm)
    assert "## Incident 2: 14:04:50 to ongoing when the recording ends (7 min 10 s so far)" in md
    assert "The recording ends at 14:12:00" in md
    assert 'class="after-end"' in timeline_svg(pm)
    assert pm.incidents[1].outages[0].unavailable_ms == at("14:12:00") - at("14:04:50")


def test_the_files_are_written_whole_and_the_html_needs_nothing_else(day: ReplayData, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    audit.write_text("".join(json.dumps(r) + "\n" for r in audit_records()))
    w = write_report(day, tmp_path / "rep", audit_log=audit)
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == [
        f"postmortem-{DAY}-incident-1.svg",
        f"postmortem-{DAY}-incident-2.svg",
        f"postmortem-{DAY}-timeline.svg",
        f"postmortem-{DAY}.html",
        f"postmortem-{DAY}.md",
    ]
    page = w.html.read_text()
    assert (
        page.count("<svg") == 3
        and "<script" not in page
        and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    assert "https://" not in page and "@import" not in page and "src=" not in page
    assert f"]({w.chart.name})" in w.markdown.read_text()
    assert f"](postmortem-{DAY}-incident-2.svg)" in w.markdown.read_text()
    assert w.changes == 2 and w.incidents == 2


def _kafkatui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", *args], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
    )


def test_report_command_writes_and_says_where(tmp_path: Path) -> None:
    out = incident_day(tmp_path / "out")
    proc = _kafkatui("report", str(out), "--no-audit")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"postmortem: {out}/report/postmortem-{DAY}.md and ")
    assert (out / "report" / f"postmortem-{DAY}.html").is_file()


@pytest.mark.parametrize(
    ("case", "code", "message"),
    [
        ("missing", 3, "no such directory"),
        ("not-a-replay", 3, "no summary.json"),
        ("unwritable", 17, "cannot write the report in"),
    ],
)
def test_report_command_errors_are_one_line(tmp_path: Path, case: str, code: int, message: str) -> None:
    out = incident_day(tmp_path / "out")
    args = {
        "missing": [str(tmp_path / "nope")],
        "not-a-replay": [str(tmp_path)],
        "unwritable": [str(out), "--to", "/proc/kafkatui-report"],
    }[case]
    proc = _kafkatui("report", *args, "--no-audit")
    assert proc.returncode == code, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_every_command_block_is_safe_to_paste_whole(day: ReplayData) -> None:
    """As `c` in the dashboard and `check` print them: a change runs only once uncommented, under when to run it."""
    from kafkatui.model.paste import runnable_changes

    pm = facts.build(day, audit_records(), "test")
    assert any(fd.commands for fd in pm.findings)
    md = render.markdown(pm)
    blocks = re.findall(r"```sh\n(.*?)```", md, flags=re.S)
    page = render.html(pm)
    pres = [html.unescape(b) for b in re.findall(r"<pre>(.*?)</pre>", page, flags=re.S)]
    assert blocks and len(pres) == len(blocks)
    for block in [*blocks, *pres]:
        assert runnable_changes(block) == [], block
    assert any(ln.startswith("# ") and "then run" in ln for b in blocks for ln in b.splitlines())


def test_a_big_day_headline_names_the_worst_and_counts_the_rest() -> None:
    topics = [f"t{i:02d} ({i} s)" for i in range(12)]
    assert render._capped(topics, "topic").endswith("t09 (9 s) and 2 more topics")
    assert render._capped(topics[:10], "topic") == ", ".join(topics[:10])
    assert render._capped(topics[:11], "topic").endswith("and 1 more topic")
