"""The PySpark replay job on a small synthetic day (tests/history/replay_days.py), in local Spark.

One shared SparkSession (tests/history/conftest.py); each input is replayed once per module and
every test reads its outputs as the TUI would (summary.json, frames JSON gzip) or via Parquet.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.replay import job as replay_job
from kafkatui.history.replay import schema as replay_schema
from kafkatui.history.replay.inputs import parse_day
from kafkatui.history.replay.job import EXIT_NO_INPUT, ReplayConfig, ReplayError, ReplayResult, run_job
from kafkatui.history.view.data import ReplayData
from tests.history import replay_days as rd
from tests.history.conftest import Reference

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def recorded(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> ReplayResult:
    root = tmp_path_factory.mktemp("rec")
    rd.write_recordings(root / "history")
    rd.damage(root / "history")
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=root / "out", history=root / "history")
    return run_job(spark, cfg)


@pytest.fixture(scope="module")
def from_logs(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> ReplayResult:
    root = tmp_path_factory.mktemp("logs")
    rd.write_logs(root / "logs")
    (root / "logs" / "server.log.2026-11-20-03").write_text(
        "[2026-11-20 03:00:00,000] INFO [Partition orders-1 broker=2] ISR updated to garbage "
        "(kafka.cluster.Partition)\n"
    )
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=root / "out", broker_logs=[str(root / "logs" / "server.log.*")])
    return run_job(spark, cfg)


def intervals(spark: Any, result: ReplayResult, topic: str, partition: int) -> list[tuple[str, int, int, float]]:
    rows = (
        spark.read.parquet(str(result.out / "intervals"))
        .where(f"topic = '{topic}' and partition = {partition}")
        .orderBy("start_ms")
        .collect()
    )
    return [(r["class"], r["start_ms"], r["end_ms"], r["duration_s"]) for r in rows]


def frames(result: ReplayResult, kind: str) -> list[dict[str, Any]]:
    out = []
    for part in sorted((result.out / "frames" / kind).glob("**/part-*.json.gz")):
        with gzip.open(part, "rt") as f:
            out.extend(json.loads(line) for line in f if line.strip())
    return sorted(out, key=lambda r: (r["ts_ms"], str(r.get("topic")), r.get("partition", r.get("broker"))))


def test_under_min_isr_interval_is_exact_to_the_millisecond(spark: Any, recorded: ReplayResult) -> None:
    assert intervals(spark, recorded, "orders", 0) == [
        ("HEALTHY", rd.D0_MS, rd.ms("02:13:30.000"), 8010.0),
        ("AT_MIN_ISR", rd.ms("02:13:30.000"), rd.ms("02:13:44.120"), 14.12),
        ("UNDER_MIN_ISR", rd.ms("02:13:44.120"), rd.ms("02:19:10.500"), 326.38),
        ("AT_MIN_ISR", rd.ms("02:19:10.500"), rd.ms("02:20:00.000"), 49.5),
        ("HEALTHY", rd.ms("02:20:00.000"), rd.ms("10:00:05.000"), 27605.0),
        ("HEALTHY", rd.ms("10:30:00.000"), rd.D0_MS + 86_400_000, 48600.0),
    ]


def test_state_at_midnight_is_carried_from_the_previous_day(spark: Any, recorded: ReplayResult) -> None:
    first = intervals(spark, recorded, "orders", 1)[0]
    assert first == ("AT_MIN_ISR", rd.D0_MS, rd.ms("01:00:00.000"), 3600.0)
    day_start = [f for f in frames(recorded, "partitions") if f["ts_ms"] == rd.D0_MS]
    assert len(day_start) == 5  # every partition of orders and payments
    o1 = next(f for f in day_start if f["topic"] == "orders" and f["partition"] == 1)
    assert o1 == {
        "ts_ms": rd.D0_MS,
        "topic": "orders",
        "partition": 1,
        "leader": 2,
        "isr": [2, 1],
        "replicas": [2, 3, 1],
        "min_isr": 2,
        "class": "AT_MIN_ISR",
    }


def test_timeline_counts_a_partition_in_every_state_it_touched_that_minute(recorded: ReplayResult) -> None:
    tl = recorded.summary["timeline"]
    assert len(tl) == 1440
    assert [tl[m]["at_min_isr"] for m in (0, 59, 60)] == [1, 1, 0]
    assert tl[133] == {
        "minute": 133,
        "offline": 0,
        "under_min_isr": 1,
        "at_min_isr": 1,
        "under_replicated": 0,
        "worst": "UNDER_MIN_ISR",
        "gap": False,
    }
    assert [(tl[m]["under_min_isr"], tl[m]["at_min_isr"]) for m in (134, 138, 139, 140)] == [
        (1, 0),
        (1, 0),
        (1, 1),
        (0, 0),
    ]
    assert tl[140]["worst"] == "HEALTHY"
    assert [tl[m]["at_min_isr"] for m in (299, 300, 301, 302)] == [0, 1, 1, 0]
    assert [tl[m]["under_min_isr"] for m in (1437, 1438, 1439)] == [0, 1, 1]
    assert tl[1437]["at_min_isr"] == 1


def test_a_recorder_gap_is_unknown_not_unchanged(spark: Any, recorded: ReplayResult) -> None:
    assert recorded.summary["gaps"] == [
        {"start_ms": rd.ms("10:00:05.000"), "end_ms": rd.ms("10:30:00.000"), "reason": "cannot connect to kafka:9092"}
    ]
    tl = recorded.summary["timeline"]
    assert [m for m in range(1440) if tl[m]["gap"]] == list(range(600, 630))
    # no interval covers the gap, for any partition
    rows = (
        spark.read.parquet(str(recorded.out / "intervals"))
        .where(f"start_ms < {rd.ms('10:30:00.000')} and end_ms > {rd.ms('10:00:05.000')}")
        .count()
    )
    assert rows == 0


def test_incidents_with_first_broker_out_and_clipped_at_midnight(recorded: ReplayResult) -> None:
    assert recorded.summary["incidents"] == [
        {
            "id": 1,
            "start_ms": rd.ms("02:13:44.120"),
            "end_ms": rd.ms("02:19:10.500"),
            "duration_s": 326.38,
            "first_broker_out": 3,
            "first_out_ms": rd.ms("02:13:30.000"),
            "topics": ["orders"],
            "partitions": 1,
            "peak_under_min_isr": 1,
            "peak_offline": 0,
            "ongoing": False,  # the recording went on past it (no end record, not today)
        },
        {
            "id": 2,
            "start_ms": rd.ms("23:58:00.250"),
            "end_ms": rd.D0_MS + 86_400_000,
            "duration_s": 119.75,
            "first_broker_out": 1,
            "first_out_ms": rd.ms("23:57:30.000"),
            "topics": ["orders"],
            "partitions": 1,
            "peak_under_min_isr": 1,
            "peak_offline": 0,
            "ongoing": False,  # the recording went on past it (no end record, not today)
        },
    ]


def test_brokers_shrinks_expands_and_flapping(recorded: ReplayResult) -> None:
    assert recorded.summary["brokers"] == [
        {"broker": 1, "shrinks": 1, "expands": 0, "flapping_score": 0.0},
        # out of orders-0 for 326 s (not a quick bounce), twice out and back of orders-2 within a minute
        {"broker": 2, "shrinks": 4, "expands": 3, "flapping_score": 1.0},
        {"broker": 3, "shrinks": 1, "expands": 2, "flapping_score": 0.0},
    ]
    assert recorded.summary["top_partitions"] == [
        {"topic": "orders", "partition": 0, "under_min_isr_s": 326.38, "intervals": 1},
        {"topic": "orders", "partition": 2, "under_min_isr_s": 119.75, "intervals": 1},
    ]


def test_damage_is_counted_not_fatal(recorded: ReplayResult) -> None:
    i = recorded.summary["inputs"]
    assert (i["torn_lines"], i["newer_schema_records"]) == (2, 1)  # the torn line and "not json"; the v2 record
    assert i["events"] == 13  # 11 ISR changes of the day, 2 broker records kept from the damaged file
    brokers = frames(recorded, "brokers")
    assert brokers == [{"ts_ms": rd.D0_MS, "broker": b, "up": True} for b in (1, 2, 3)]


def test_outputs_follow_the_contract(spark: Any, recorded: ReplayResult) -> None:
    s = json.loads((recorded.out / "summary.json").read_text())
    assert s["schema"] == "kafkatui.replay/1" and s["day"] == rd.DAY and s["day_start_ms"] == rd.D0_MS
    for name in ("timeline", "intervals", "brokers", "incidents", "top_partitions"):
        assert spark.read.parquet(str(recorded.out / name)).count() > 0
    classes = {f["class"] for f in frames(recorded, "partitions")}
    assert classes == {"HEALTHY", "AT_MIN_ISR", "UNDER_MIN_ISR"}


def test_the_outputs_have_the_schema_modules_tables(spark: Any, recorded: ReplayResult) -> None:
    """summary.json has the reader's fields; each table, in it and in Parquet, has its schema's columns."""
    s = json.loads((recorded.out / replay_schema.SUMMARY_FILE).read_text())
    assert set(s) == {"schema", *(f.name for f in fields(replay_schema.Summary))}
    for table in replay_schema.SUMMARY_TABLES:
        assert tuple(spark.read.parquet(str(recorded.out / table.name)).columns) == table.names
        assert s[table.name] and all(set(row) == set(table.names) for row in s[table.name]), table.name


def test_a_local_out_is_claimed_once_before_spark_runs(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """replay() claims a local --out before Spark starts; the job does not claim it again through Hadoop."""
    rd.write_recordings(tmp_path / "history")
    claims: list[str] = []
    local = replay_job.claim_local_output
    monkeypatch.setattr(replay_job, "claim_local_output", lambda out: (claims.append("local"), local(out))[1])
    monkeypatch.setattr(replay_job, "claim_output", lambda fs, cfg: claims.append("hadoop"))
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=tmp_path / "out", history=tmp_path / "history")
    result = replay_job.replay(cfg, None)
    assert claims == ["local"]
    assert (tmp_path / "out" / replay_schema.SUMMARY_FILE).is_file() and result.summary["day"] == rd.DAY


def test_each_hour_of_frames_is_in_time_order_so_a_minute_reads_only_its_hour_so_far(recorded: ReplayResult) -> None:
    """The Replay screen opens on a minute by reading that hour's frames up to the minute's end: each
    part file of an hour is in time order, ``frames/layout.json`` says so, and the state so read is
    the whole day's state at every minute of the hour."""
    assert json.loads((recorded.out / "frames" / "layout.json").read_text())["sorted_by"] == "ts_ms"
    runs = []
    for part in sorted((recorded.out / "frames" / "partitions").glob("hour=*/part-*.json.gz")):
        with gzip.open(part, "rt") as f:
            runs.append([json.loads(line)["ts_ms"] for line in f if line.strip()])
    assert all(ts == sorted(ts) for ts in runs)
    assert any(len(set(ts)) > 1 for ts in runs)  # some file holds frames of different instants
    day = ReplayData.load(recorded.out)
    for minute in range(120, 180, 7):
        part = ReplayData.load_hour(recorded.out, 2, minute)
        assert part is not None and part.window == (120, minute)
        assert part.at(minute)[0].topics == day.at(minute)[0].topics, minute
    first, whole = ReplayData.load_hour(recorded.out, 2, 120), ReplayData.load_hour(recorded.out, 2)
    assert first is not None and whole is not None and first.frames < whole.frames  # 02:13 is not read for 02:00


def test_broker_logs_alone_give_the_same_incidents(spark: Any, recorded: ReplayResult, from_logs: ReplayResult) -> None:
    assert from_logs.summary["incidents"] == recorded.summary["incidents"]
    assert from_logs.summary["top_partitions"] == recorded.summary["top_partitions"]
    assert from_logs.summary["brokers"] == recorded.summary["brokers"]
    assert from_logs.summary["inputs"]["unparsed_log_lines"] == 1
    # min ISR 2 inferred from "(under-min-isr)"; the assignment is not in the logs
    o1 = next(f for f in frames(from_logs, "partitions") if f["topic"] == "orders" and f["partition"] == 1)
    assert o1 == {
        "ts_ms": rd.D0_MS,
        "topic": "orders",
        "partition": 1,
        "leader": 2,
        "isr": [2, 1],
        "replicas": None,
        "min_isr": 2,
        "class": "AT_MIN_ISR",
    }
    assert intervals(spark, from_logs, "orders", 0)[2] == (
        "UNDER_MIN_ISR",
        rd.ms("02:13:44.120"),
        rd.ms("02:19:10.500"),
        326.38,
    )


def test_a_day_without_input_is_a_clear_error(spark: Any, tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "history")
    cfg = ReplayConfig(day=parse_day("2026-11-25"), out=tmp_path / "out", history=tmp_path / "history")
    with pytest.raises(ReplayError) as err:
        run_job(spark, cfg)
    assert err.value.exit_code == EXIT_NO_INPUT
    assert str(err.value) == (
        f"no ISR history for 2026-11-25 (UTC): looked for {tmp_path / 'history' / '2026-11-25' / 'HH.events.jsonl.gz'}"
    )


def test_recordings_and_broker_logs_together_agree(reference: Reference, recorded: ReplayResult) -> None:
    both = reference.result  # the same recordings, and the broker logs of the same changes
    assert both.summary["incidents"] == recorded.summary["incidents"]
    assert both.summary["brokers"] == recorded.summary["brokers"]
    # log rows take the recorded assignment and min ISR: no "unknown replicas" frame for orders-0
    o0 = [f for f in frames(both, "partitions") if f["topic"] == "orders" and f["partition"] == 0]
    assert {tuple(f["replicas"]) for f in o0} == {(1, 2, 3)} and {f["min_isr"] for f in o0} == {2}


def test_no_state_is_carried_past_where_the_recording_ends(spark: Any, tmp_path: Path) -> None:
    """Recorded from 12:18 to 12:19 (the recorder stopped, an end record), orders-0 under min ISR from
    12:18:30: the incident is ongoing when the recording ends at 12:19, not over at 24:00; nothing is
    known after 12:19."""
    import dataclasses

    from kafkatui.history.record.recorder import Recorder

    rec = Recorder(tmp_path / "history")
    s = dataclasses.replace(rd.base(), taken_at=rd.ts("12:18:00.000"))
    rec.record(s)
    rec.record(rd.with_isr(s, 0, (1,), rd.ts("12:18:30.000")))
    rec.close(rd.ts("12:19:00.000"))
    end = rd.ms("12:19:00.000")
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=tmp_path / "out", history=tmp_path / "history")
    result = run_job(spark, cfg)
    s = result.summary
    assert s["recording_ends"] == [end]
    assert [(i["start_ms"], i["end_ms"], i["ongoing"]) for i in s["incidents"]] == [(rd.ms("12:18:30.000"), end, True)]
    assert {"start_ms": end, "end_ms": rd.D0_MS + 86_400_000, "reason": "not recorded: the recording ends here"} in s[
        "gaps"
    ]
    assert all(m["gap"] and m["under_min_isr"] == 0 for m in s["timeline"][12 * 60 + 19 :])
    assert s["timeline"][12 * 60 + 18]["under_min_isr"] == 1
    assert max(end for _, _, end, _ in intervals(spark, result, "orders", 0)) == end
    # the Replay screen reads it: the incident is ongoing, the end is listed
    data = ReplayData.load(cfg.out)
    assert data.summary.incidents[0].ongoing and data.summary.recording_ends == (end,)


def test_a_recording_still_being_written_is_read_as_it_was_at_launch(spark: Any, tmp_path: Path) -> None:
    """Today so far from the dashboard: the recorder goes on appending to the hour file while the job
    runs. orders-0 went under min ISR at 12:18:30, the job was launched at 12:19 (until) and the
    recorder wrote another snapshot once Spark had listed the file: the incident is still found (Hadoop's
    gzip line reader stops once its read-ahead passes the length listed, which lost all but the first
    line of a small live file: 0 incidents, a flat timeline)."""
    import dataclasses

    from kafkatui.history.record.recorder import Recorder

    rec = Recorder(tmp_path / "history")
    s = dataclasses.replace(rd.base(), taken_at=rd.ts("12:18:00.000"))
    rec.record(s)
    under = rd.with_isr(s, 0, (1,), rd.ts("12:18:30.000"))
    rec.record(under)
    until = rd.ms("12:19:00.000")
    rec.flush(until / 1000)  # what the launcher does before it starts the job
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=tmp_path / "out", history=tmp_path / "history", until_ms=until)

    def go_on_recording(stage: int, detail: str) -> None:
        if stage == 1:  # Spark has listed the inputs; the dashboard's next refresh is appended
            assert rec.record(rd.with_isr(under, 0, (1, 2, 3), rd.ts("12:19:04.000"))) == 1

    s = run_job(spark, cfg, go_on_recording).summary
    assert [(i["start_ms"], i["end_ms"], i["ongoing"]) for i in s["incidents"]] == [
        (rd.ms("12:18:30.000"), until, True)
    ]
    assert s["timeline"][12 * 60 + 18]["under_min_isr"] == 1
