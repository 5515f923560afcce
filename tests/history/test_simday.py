"""`kafkatui sim --history-day`: a simulated day, recorded and logged, whose two inputs tell the same story."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.logparse import IsrLogEvent, parse_line, parse_logs
from kafkatui.history.record.recorder import read_day
from kafkatui.sim.brokerlog import BrokerLogWriter
from kafkatui.sim.cmd import main_sim
from kafkatui.sim.simday import DayResult, EventTap, build_cluster, day_script, generate
from kafkatui.sim.snapshot import SnapshotBuilder, cluster_snapshot

DAY = date(2026, 11, 20)
PARTITIONS = 60  # small, and still with partitions on both brokers of each two-broker outage
Key = tuple[str, int]


def ms(clock: str, day: str = "2026-11-20") -> int:
    """Epoch ms of ``HH:MM:SS.mmm`` UTC on `day`."""
    dt = datetime.strptime(f"{day} {clock}", "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DayResult]:
    out = tmp_path_factory.mktemp("simday")
    return out, generate(DAY, out, partitions=PARTITIONS, seed=7)


@pytest.fixture(scope="module")
def records(day: tuple[Path, DayResult]) -> list[dict[str, Any]]:
    out, _ = day
    evening, st0 = read_day(out, "2026-11-19")
    rest, st1 = read_day(out, "2026-11-20")
    assert (st0.torn, st0.garbled, st1.torn, st1.garbled) == (0, 0, 0, 0)
    return evening + rest


def ts(r: dict[str, Any]) -> int:
    return round(r["ts"] * 1000)


def incidents(records: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """(start, end, first broker out) of every window with a partition under min ISR or offline."""
    cls: dict[Key, str] = {}
    removed: list[tuple[int, int]] = []
    found: list[tuple[int, int, int]] = []
    start: int | None = None
    for r in records:
        if r["type"] == "snapshot":
            cls.update({(t, row[0]): row[5] for t, td in r["topics"].items() for row in td["partitions"]})
        elif r["type"] == "partition":
            cls[(r["topic"], r["partition"])] = r["class"]
            removed.extend((ts(r), b) for b in set(r["prev_isr"] or ()) - set(r["isr"]))
        bad = any(c in ("UNDER_MIN_ISR", "OFFLINE") for c in cls.values())
        if bad and start is None:
            start = ts(r)
        elif not bad and start is not None:
            first = min(x for x in removed if start - 60_000 <= x[0] <= start)
            found.append((start, ts(r), first[1]))
            start = None
    return found


def test_generates_in_seconds_and_says_what_it_wrote(day: tuple[Path, DayResult]) -> None:
    out, result = day
    assert result.seconds < 60
    assert (result.brokers, result.incidents, result.day) == (6, 7, "2026-11-20")
    assert 55 <= result.partitions <= 65
    assert result.isr_changes > 500 and result.events > result.isr_changes
    assert [p.name for p in result.recording_files] == ["23.events.jsonl.gz"] + [
        f"{h:02d}.events.jsonl.gz" for h in range(24)
    ]
    assert result.recording_files[0].parent.name == "2026-11-19"
    line = result.summary()
    assert "6 brokers" in line and "7 incidents scripted" in line and f"{result.log_lines} lines" in line


def test_the_evening_before_carries_broker_6_away_into_midnight(records: list[dict[str, Any]]) -> None:
    first = records[0]
    assert (first["type"], first["reason"], ts(first)) == ("snapshot", "start", ms("23:00:00.000", "2026-11-19"))
    midnight = next(r for r in records if r["type"] == "snapshot" and ts(r) == ms("00:00:00.000"))
    assert midnight["reason"] == "hour"
    assert [b[0] for b in midnight["brokers"]] == [1, 2, 3, 4, 5]
    rows = [row for td in midnight["topics"].values() for row in td["partitions"]]
    assert all(6 not in row[4] for row in rows)
    assert any(6 in row[3] and row[5] == "AT_MIN_ISR" for row in rows)


def test_recordings_hold_the_scripted_incidents_at_the_scripted_times(records: list[dict[str, Any]]) -> None:
    assert incidents(records) == [
        (ms("02:13:44.120"), ms("02:19:10.500"), 3),  # brokers 3 then 5 crash: 326.38 s under min ISR
        (ms("10:40:45.000"), ms("10:43:00.100"), 6),  # broker 1 shut down while 6 is away: 135.1 s
    ]
    brokers = [(ts(r), r["broker"], r["op"]) for r in records if r["type"] == "broker"]
    assert brokers[:6] == [
        (ms("23:40:00.000", "2026-11-19"), 6, "down"),
        (ms("00:25:00.100"), 6, "up"),
        (ms("02:13:38.020"), 3, "down"),
        (ms("02:13:52.120"), 5, "down"),  # fenced 18 s after the crash
        (ms("02:19:10.500"), 5, "up"),
        (ms("02:31:00.100"), 3, "up"),
    ]
    storm = [b for b in brokers if ms("15:20:00.000") <= b[0] <= ms("15:25:00.000")]
    assert storm == [
        (ms(f"15:2{m}:18.100"), 2, "down") if i % 2 == 0 else (ms(f"15:2{m}:20.000"), 2, "up")
        for m in (0, 2, 4)
        for i in (0, 1)
    ]
    assert (ms("21:07:30.600"), 4, "down") in brokers  # crashed 21:07:12.500


def test_broker_4_flaps_at_night_without_being_fenced(records: list[dict[str, Any]]) -> None:
    night = [r for r in records if ms("03:29:00.000") <= ts(r) <= ms("04:00:00.000")]
    assert not [r for r in night if r["type"] == "broker"]
    out = sorted({ts(r) for r in night if r["type"] == "partition" and 4 in set(r["prev_isr"]) - set(r["isr"])})
    back = sorted({ts(r) for r in night if r["type"] == "partition" and 4 in set(r["isr"]) - set(r["prev_isr"])})
    assert out == [ms(f"03:{30 + 3 * k}:10.100") for k in range(10)]  # 10 s into each 14 s GC pause
    assert back == [ms(f"03:{30 + 3 * k}:14.000") for k in range(10)]  # when the pause ends


def test_every_broker_log_line_parses_and_files_roll_like_log4j(day: tuple[Path, DayResult]) -> None:
    out, result = day
    logs = out / "broker-logs"
    events, report = parse_logs(str(logs / "*" / "*.log*"))
    assert (report.unparsed, report.problems, report.lines) == (0, [], result.log_lines)
    assert report.files == len(result.log_files)
    assert len(events) > result.isr_changes  # a shrink is two lines
    for b in range(1, 7):
        names = {p.name for p in (logs / f"broker-{b}").iterdir()}
        assert {
            "server.log",
            "state-change.log",
            "server.log.2026-11-19-23.gz",
            "server.log.2026-11-20-11.gz",
            "server.log.2026-11-20-12",
        } <= names
        assert not any(n.endswith(".gz") and n[-5:-3] >= "12" and "2026-11-20" in n for n in names)
        assert gzip.decompress((logs / f"broker-{b}" / "server.log.2026-11-20-11.gz").read_bytes()).startswith(
            b"[2026-11-20 11:"
        )
    # broker 3 was down from its crash at 02:13:20 to 02:31: no file of it holds a line in between
    quiet = [e for e in events if e.broker == 3 and ms("02:13:20.001") <= e.ts_ms < ms("02:31:00.000")]
    assert quiet == []


def test_the_first_shrink_of_the_outage_is_logged_by_the_leader(day: tuple[Path, DayResult]) -> None:
    out, _ = day
    events, _ = parse_logs(str(out / "broker-logs" / "*" / "server.log*"))
    shrinks = [e for e in events if e.kind == "shrink" and e.ts_ms == ms("02:13:30.100")]
    assert shrinks and all(e.out_of_sync[0][0] == 3 and e.broker != 3 for e in shrinks)
    assert all(e.out_of_sync[0][2] == ms("02:13:20.000") for e in shrinks)  # lastCaughtUpTimeMs: the crash


def isr_changes_from_records(records: list[dict[str, Any]]) -> tuple[dict[Key, tuple[int, ...]], dict[Key, list[Any]]]:
    start = {(t, row[0]): tuple(row[4]) for t, td in records[0]["topics"].items() for row in td["partitions"]}
    cur, seq = dict(start), defaultdict(list)
    for r in records:
        if r["type"] == "partition":
            key, isr = (r["topic"], r["partition"]), tuple(r["isr"])
            if isr != cur[key]:
                seq[key].append((ts(r), isr))
                cur[key] = isr
    return start, seq


def isr_changes_from_logs(events: list[IsrLogEvent], start: dict[Key, tuple[int, ...]]) -> dict[Key, list[Any]]:
    last: dict[Key, dict[int, tuple[int, ...]]] = defaultdict(dict)
    for e in events:  # sorted by time, file order among equals: the last line of a millisecond wins
        last[(e.topic, e.partition)][e.ts_ms] = e.new_isr
    seq = defaultdict(list)
    for key, by_ts in last.items():
        cur = start[key]
        for t in sorted(by_ts):
            if by_ts[t] != cur:
                seq[key].append((t, by_ts[t]))
                cur = by_ts[t]
    return seq


def test_isr_rebuilt_from_broker_logs_equals_the_recordings(
    day: tuple[Path, DayResult], records: list[dict[str, Any]]
) -> None:
    out, _ = day
    start, from_records = isr_changes_from_records(records)
    events, _ = parse_logs(str(out / "broker-logs" / "*" / "*.log*"))
    from_logs = isr_changes_from_logs(events, start)
    assert sum(len(v) for v in from_records.values()) > 500
    for key in start:
        assert from_logs[key] == from_records[key], key


def test_same_seed_same_bytes_from_the_cli_other_seed_other_ids(day: tuple[Path, DayResult], tmp_path: Path) -> None:
    out, result = day
    again = tmp_path / "again"
    # another process: another hash seed, so another order of the simulator's sets
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafkatui.cli",
            "sim",
            "--history-day",
            "2026-11-20",
            "--out",
            str(again),
            "--partitions",
            str(PARTITIONS),
            "--seed",
            "7",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONHASHSEED": "random"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("kafkatui sim: simulated 2026-11-20: 6 brokers,") and proc.stderr == ""
    mine = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    theirs = sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert mine == theirs
    assert all((out / p).read_bytes() == (again / p).read_bytes() for p in mine)
    other = generate(DAY, tmp_path / "other", partitions=PARTITIONS, seed=8)
    assert other.cluster_id != result.cluster_id
    assert (other.isr_changes, other.log_lines) == (result.isr_changes, result.log_lines)  # the script's day


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main_sim(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("value", ["2026-13-01", "yesterday", "2026-11-20T00:00"])
def test_bad_date_is_one_line_exit_3(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--history-day", value, "--out", str(tmp_path / "d")], capsys)
    assert (code, out) == (3, "")
    assert err.count("\n") == 1 and "not a date" in err and "YYYY-MM-DD" in err
    assert not (tmp_path / "d").exists()


def test_unwritable_out_is_one_line_exit_17(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code, out, err = run_cli(["--history-day", "2026-11-20", "--out", str(blocker / "day")], capsys)
    assert (code, out) == (17, "")
    assert err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "needs --out"),
        (["--out", "{tmp}/d", "--brokers", "3"], "--brokers must be at least 6"),
        (["--out", "{tmp}/d", "--partitions", "2"], "--partitions must be at least 8"),
    ],
)
def test_other_bad_input_is_one_line_exit_3(
    args: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["--history-day", "2026-11-20", *[a.format(tmp=tmp_path) for a in args]], capsys)
    assert (code, out) == (3, "")
    assert err.count("\n") == 1 and words in err


def test_an_existing_day_is_never_appended_to(day: tuple[Path, DayResult], capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = day
    before = (out / "2026-11-20" / "02.events.jsonl.gz").read_bytes()
    code, _, err = run_cli(["--history-day", "2026-11-20", "--out", str(out)], capsys)
    assert code == 3 and "already exists" in err and err.count("\n") == 1
    assert (out / "2026-11-20" / "02.events.jsonl.gz").read_bytes() == before


def test_skipped_lines_are_other_broker_lines_not_isr_lines(day: tuple[Path, DayResult]) -> None:
    out, _ = day
    text = gzip.decompress((out / "broker-logs" / "broker-1" / "server.log.2026-11-20-09.gz").read_bytes()).decode()
    others = [line for line in text.splitlines() if parse_line(line) is None]
    assert any("Beginning controlled shutdown" in line for line in others)  # the rolling restart at 09:00
    assert all(" ISR" not in line for line in others)


def test_no_textual() -> None:
    code = (
        "import sys, kafkatui.sim.simday, kafkatui.sim.brokerlog, kafkatui.sim.snapshot; "
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_incremental_snapshots_equal_fresh_ones(tmp_path: Path) -> None:
    """The builder rebuilds only what the events touched: after every kind of change it still equals a fresh read."""
    cluster = build_cluster(day_script(), ms("23:00:00.000", "2026-11-19"), 40, 7, 0)
    builder = SnapshotBuilder(cluster)
    cluster.events.subscribe(EventTap(cluster, builder, BrokerLogWriter(tmp_path)))
    builder.snapshot(0)
    steps: list[tuple[int, Any]] = [
        (0, lambda: cluster.crash(3)),
        (20_000, lambda: cluster.crash(5)),
        (30_000, lambda: cluster.restart(5)),
        (1_000, lambda: cluster.pause(4, 14_000)),
        (12_000, lambda: cluster.shutdown(1)),
        (500, lambda: cluster.alter_configs(("topic", "orders"), [("min.insync.replicas", 0, "3")], False)),
        (2_000, lambda: cluster.restart(1)),
        (1_000, lambda: cluster.create_topic("late", 3, 3)),
        (1_000, lambda: cluster.create_partitions("late", 5)),
        (400_000, lambda: cluster.restart(3)),
    ]
    for wait, action in steps:
        cluster.run_for(wait)
        action()
        cluster.run_for(100)
        t = cluster.now_ms / 1000
        incremental, fresh = builder.snapshot(t), cluster_snapshot(cluster, t)
        assert incremental == fresh
    assert fresh.brokers[-1].id == 7 and fresh.topics["late"].partitions[-1].partition == 4
