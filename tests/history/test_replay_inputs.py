"""The replay's input work without Spark: the per-file scan its first stage runs, and the broker-log
rows the job's log stage must reproduce (`log_rows`, the reference)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from kafkatui.history.logparse import parse_logs
from kafkatui.history.record.recorder import ReadStats, read_file
from kafkatui.history.replay.inputs import (
    HourScan,
    carry_files,
    hour_files,
    infer_min_isr,
    log_rows,
    parse_day,
    scan_file,
    scan_task,
)
from tests.history import replay_days as rd


def test_the_fast_scan_counts_what_the_recorder_reader_reads(tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "h")
    day = tmp_path / "h" / rd.DAY
    odd = day / "13.events.jsonl.gz"  # lines the recorder did not write: spaced JSON, garbage, a newer schema
    lines = [
        json.dumps({"v": 1, "type": "broker", "ts": rd.ts("13:00:00.000"), "broker": 2, "op": "down"}),
        "not json",
        json.dumps({"v": 2, "type": "partition", "ts": rd.ts("13:00:01.000")}),
    ]
    odd.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    for path in sorted(day.iterdir()):
        scan = scan_file(path)
        assert scan is not None
        stats = ReadStats()
        records = list(read_file(path, stats))
        assert scan.events == sum(r["type"] in ("partition", "broker") for r in records)
        assert (scan.garbled, scan.newer) == (stats.garbled, stats.future_version)
        assert [(m["type"], m["ts_ms"]) for m in scan.meta] == [
            (r["type"], round(r["ts"] * 1000)) for r in records if r["type"] in ("broker", "snapshot", "gap")
        ]


def scan_day(history: Path) -> list[HourScan]:
    """What the job's scan stage returns for each file of the day (the carry file first)."""
    day = parse_day(rd.DAY)
    files = carry_files(history, day) + hour_files(history, day)
    first = len(carry_files(history, day))
    return [scan_task(rank, f.read_bytes(), rank < first, rank == first) for rank, f in enumerate(files)]


def test_spark_expands_only_the_snapshots_that_say_something_new(tmp_path: Path) -> None:
    """The carry file's start snapshot, the day's first and the one after the gap; hourly ones repeat
    what the change records said. A torn file's snapshots all go (its change records may be lost)."""
    rd.write_recordings(tmp_path / "h")
    scans = scan_day(tmp_path / "h")
    picked = [json.loads(line) for s in scans for line in s.snapshots]
    assert [(r["reason"], r["ts"]) for r in picked] == [
        ("start", rd.ts("23:00:00.000", 19)),
        ("hour", rd.ts("00:00:05.000")),
        ("after-gap", rd.ts(rd.GAP[1])),
    ]
    assert all(r["topics"]["orders"]["partitions"] for r in picked)
    # the snapshot heads were read without their topics, and agree with the whole records
    history = tmp_path / "h"
    paths = carry_files(history, parse_day(rd.DAY)) + hour_files(history, parse_day(rd.DAY))
    whole = [r for path in paths for r in read_file(path, ReadStats()) if r["type"] == "snapshot"]
    assert [(m["ts_ms"], m["reason"], m["ids"]) for s in scans for m in s.meta if m["type"] == "snapshot"] == [
        (round(r["ts"] * 1000), r["reason"], [b[0] for b in r["brokers"]]) for r in whole
    ]

    torn = tmp_path / "h" / rd.DAY / "05.events.jsonl.gz"
    torn.write_bytes(torn.read_bytes()[:-5])
    reasons = [json.loads(line)["reason"] for s in scan_day(tmp_path / "h") for line in s.snapshots]
    assert reasons == ["start", "hour", "hour", "after-gap"]  # 05's hourly snapshot too


def test_a_torn_file_is_read_to_its_damage_and_counted(tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "h")
    path = tmp_path / "h" / rd.DAY / "02.events.jsonl.gz"
    stats = ReadStats()
    good = [r for r in read_file(path, stats) if r["type"] != "snapshot"]
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    assert scan_file(path) is None
    got = scan_task(3, path.read_bytes(), False, False)
    assert got.damaged and got.torn == 1 and got.rank == 3
    assert [json.loads(line) for line in got.lines] == good[: len(got.lines)]


def test_a_growing_file_gives_its_lines_as_scanned(tmp_path: Path) -> None:
    """A file the recorder may still append to: every line but the snapshots comes back with the scan
    (Spark parses these, never the file again), the counts are an intact file's."""
    rd.write_recordings(tmp_path / "h")
    path = tmp_path / "h" / rd.DAY / "02.events.jsonl.gz"
    others = [r for r in read_file(path, ReadStats()) if r["type"] != "snapshot"]
    got = scan_task(3, path.read_bytes(), False, False, growing=True)
    intact = scan_task(3, path.read_bytes(), False, False)
    assert not got.damaged and [json.loads(line) for line in got.lines] == others and others
    assert (got.events, got.meta, got.snapshots, intact.lines) == (intact.events, intact.meta, intact.snapshots, [])


def test_records_with_a_time_that_is_no_number_are_garbled_not_fatal() -> None:
    lines = [
        {"v": 1, "type": "partition", "ts": "yesterday", "topic": "t", "partition": 0},
        {"v": 1, "type": "partition", "topic": "t", "partition": 0},
        {"v": 1, "type": "broker", "ts": "yesterday", "broker": 1, "op": "up"},
        {"v": 1, "type": "broker", "ts": 1.0, "broker": "one", "op": "up"},
        {"v": 1, "type": "gap", "ts": 1.0, "from": "x", "to": 2},
        {"v": 1, "type": "partition", "ts": 1795132800.0, "topic": "t", "partition": 0},
    ]
    for spaced in (False, True):  # the recorder's compact layout (counted by substring) and any other
        text = "\n".join(json.dumps(r, separators=(", ", ": ") if spaced else (",", ":")) for r in lines)
        got = scan_task(0, gzip.compress(text.encode() + b"\n"), True, False)
        assert (got.events, got.garbled, got.meta) == (1, 5, []), spaced


def test_logs_become_rows_with_inferred_min_isr_and_a_midnight_state(tmp_path: Path) -> None:
    rd.write_logs(tmp_path)
    events, _ = parse_logs(str(tmp_path / "server.log.*"))
    assert infer_min_isr(events) == {"orders": 2}
    rows = log_rows(events, rd.D0_MS, None)
    first = [r for r in rows.rows if r[1] == "orders" and r[2] == 0][0]
    # the first "Shrinking ISR from 1,2,3" says orders-0 had ISR 1,2,3 before: a weak row before midnight
    assert first == (rd.D0_MS - 1, "orders", 0, 1, [1, 2, 3], [1, 2, 3], 2, -1, True)
    assert rows.events_in_day == sum(1 for e in events if e.ts_ms >= rd.D0_MS)
    assert log_rows(events, rd.D0_MS, 3).min_isr == {"orders": 2}  # the markers are evidence: they beat the default


def test_min_isr_from_markers_and_the_cluster_default() -> None:
    from kafkatui.history.logparse import IsrLogEvent

    def update(topic: str, isr: tuple[int, ...], marked: bool | None) -> IsrLogEvent:
        return IsrLogEvent(0, isr[0], topic, 0, "update", None, isr, under_min_isr=marked)

    events = [
        update("orders", (1,), True),  # under min ISR with one in sync: min ISR > 1
        update("orders", (1, 2), False),
        update("clickstream", (1,), False),  # one in sync and NOT under: min ISR <= 1 (overridden to 1)
        update("audit-log", (1, 2), False),  # never marked: the cluster default, capped at 2
        update("old", (1, 2), None),  # a pre-3.5 line says nothing either way
    ]
    assert infer_min_isr(events) == {"orders": 2, "clickstream": None, "audit-log": None, "old": None}
    assert infer_min_isr(events, 2) == {"orders": 2, "clickstream": 1, "audit-log": 2, "old": 2}
    assert infer_min_isr(events, 3) == {"orders": 2, "clickstream": 1, "audit-log": 2, "old": 3}
