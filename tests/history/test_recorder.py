"""The ISR history recorder and its reader: changes, hourly snapshots, gaps, crashes, retention, errors."""

from __future__ import annotations

import dataclasses
import errno
import gzip
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import kafkatui.history.record.recorder as recmod
from kafkatui.history.record.recorder import (
    ReadStats,
    Recorder,
    RecorderError,
    classify,
    prune,
    read_day,
    read_events,
)
from kafkatui.kafka.errors import CannotConnectError
from kafkatui.model.health import Health, assess, effective_min_isr
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo, TopicInfo
from tests.model.builders import healthy, snap, topic

DAY = "2026-11-20"
T0 = datetime(2026, 11, 20, 2, 13, 0, tzinfo=UTC).timestamp()


def at(s: ClusterSnapshot, ts: float) -> ClusterSnapshot:
    return dataclasses.replace(s, taken_at=ts)


def base() -> ClusterSnapshot:
    return snap(
        topic("orders", [(1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3, 1])], min_insync_replicas="2"),
        healthy("payments.eu", 4),
    )


def with_partition(s: ClusterSnapshot, name: str, i: int, **changes: Any) -> ClusterSnapshot:
    """A copy of `s` with one partition changed; every other topic object is shared."""
    t = s.topics[name]
    parts = list(t.partitions)
    parts[i] = dataclasses.replace(parts[i], **changes)
    topics = dict(s.topics)
    topics[name] = dataclasses.replace(t, partitions=tuple(parts))
    return dataclasses.replace(s, topics=topics)


def by_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


def test_first_record_is_a_snapshot_in_the_hour_file(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    assert rec.record(at(base(), T0)) == 1
    assert (tmp_path / DAY / "02.events.jsonl.gz").is_file()
    records, stats = read_day(tmp_path, DAY)
    assert stats == ReadStats(files=1, records=1)
    (s,) = records
    assert (s["v"], s["type"], s["reason"], s["cluster"], s["ts"]) == (1, "snapshot", "start", "test", T0)
    assert s["brokers"][0] == [1, "broker1.example", 9092, None]
    assert s["topics"]["orders"] == {
        "min_isr": 2,
        "partitions": [[0, 1, -1, [1, 2, 3], [1, 2, 3], "HEALTHY"], [1, 2, -1, [2, 3, 1], [2, 3, 1], "HEALTHY"]],
    }
    assert s["topics"]["payments.eu"]["min_isr"] == 1


def test_shrink_expand_leader_and_broker_events_read_back(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    s1 = at(with_partition(s0, "orders", 0, isr=(1, 2)), T0 + 10)  # shrink, at minISR
    s2 = at(with_partition(s1, "orders", 0, isr=(1,)), T0 + 20)  # under minISR
    s3 = at(with_partition(s2, "orders", 0, isr=(1, 2, 3)), T0 + 30)  # expand
    s4 = at(with_partition(s3, "orders", 1, leader=3, leader_epoch=8), T0 + 40)  # leader move
    s5 = at(dataclasses.replace(s4, brokers=s4.brokers[:2]), T0 + 50)  # broker 3 leaves
    s6 = at(dataclasses.replace(s5, brokers=s4.brokers), T0 + 60)  # and comes back
    assert rec.record(s0) == 1
    assert rec.record(s0) == 0  # nothing changed: nothing written
    for s in (s1, s2, s3, s4, s5, s6):
        rec.record(s)
    records, stats = read_day(tmp_path, DAY)
    assert stats.torn == stats.garbled == stats.future_version == 0
    parts = [
        (r["ts"] - T0, r["topic"], r["partition"], r["isr"], r["leader"], r["class"], r["changed"], r["prev_isr"])
        for r in by_type(records, "partition")
    ]
    assert parts == [
        (10, "orders", 0, [1, 2], 1, "AT_MIN_ISR", ["isr"], [1, 2, 3]),
        (20, "orders", 0, [1], 1, "UNDER_MIN_ISR", ["isr"], [1, 2]),
        (30, "orders", 0, [1, 2, 3], 1, "HEALTHY", ["isr"], [1]),
        (40, "orders", 1, [2, 3, 1], 3, "NON_PREFERRED_LEADER", ["leader", "epoch"], [2, 3, 1]),
        # broker 3 left the metadata: the partitions it leads are offline, then back
        (50, "orders", 1, [2, 3, 1], 3, "OFFLINE", ["broker"], [2, 3, 1]),
        (50, "payments.eu", 2, [3, 1, 2], 3, "OFFLINE", ["broker"], [3, 1, 2]),
        (60, "orders", 1, [2, 3, 1], 3, "NON_PREFERRED_LEADER", ["broker"], [2, 3, 1]),
        (60, "payments.eu", 2, [3, 1, 2], 3, "HEALTHY", ["broker"], [3, 1, 2]),
    ]
    leader = by_type(records, "partition")[3]
    assert (leader["leader_epoch"], leader["prev_leader"], leader["min_isr"], leader["cluster"]) == (8, 2, 2, "test")
    brokers = [(r["ts"] - T0, r["broker"], r["op"], r["host"]) for r in by_type(records, "broker")]
    assert brokers == [(50, 3, "down", None), (60, 3, "up", "broker3.example")]
    assert all(r["v"] == 1 for r in records)


def test_topic_added_removed_and_min_isr_change(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    rec.record(s0)
    topics = dict(s0.topics)
    del topics["payments.eu"]
    topics["new.topic"] = healthy("new.topic", 2)
    orders = topics["orders"]
    topics["orders"] = dataclasses.replace(
        orders,
        configs={
            **orders.configs,
            "min.insync.replicas": dataclasses.replace(orders.configs["min.insync.replicas"], value="3"),
        },
    )
    rec.record(at(dataclasses.replace(s0, topics=topics), T0 + 5))
    records, _ = read_day(tmp_path, DAY)
    assert [(r["topic"], r["op"]) for r in by_type(records, "topic")] == [
        ("payments.eu", "removed"),
        ("new.topic", "added"),
    ]
    parts = [
        (r["topic"], r["partition"], r["min_isr"], r["class"], r["changed"]) for r in by_type(records, "partition")
    ]
    assert parts == [
        ("new.topic", 0, 1, "HEALTHY", ["new"]),
        ("new.topic", 1, 1, "HEALTHY", ["new"]),
        ("orders", 0, 3, "AT_MIN_ISR", ["min_isr"]),
        ("orders", 1, 3, "AT_MIN_ISR", ["min_isr"]),
    ]


def test_snapshot_at_first_write_of_every_hour(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    rec.record(s0)
    hour3 = datetime(2026, 11, 20, 3, 0, 5, tzinfo=UTC).timestamp()
    rec.record(at(with_partition(s0, "orders", 0, isr=(1, 2)), hour3))
    rec.record(at(with_partition(s0, "orders", 0, isr=(1,)), hour3 + 60))
    assert sorted(p.name for p in (tmp_path / DAY).iterdir()) == ["02.events.jsonl.gz", "03.events.jsonl.gz"]
    records, _ = read_day(tmp_path, DAY)
    assert [(r["type"], r.get("reason")) for r in records] == [
        ("snapshot", "start"),
        ("partition", None),
        ("snapshot", "hour"),
        ("partition", None),
    ]
    # the hour's snapshot is the state after the records before it
    assert records[2]["topics"]["orders"]["partitions"][0][4] == [1, 2]


def test_gap_after_failures(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    rec.record(s0)
    rec.record_failure(T0 + 10, "cannot connect to kafka:9092: connection refused")
    rec.record_failure(T0 + 20, "cannot connect to kafka:9092:\n  connection timed out")
    rec.record(at(with_partition(s0, "orders", 0, isr=(1,)), T0 + 30))
    rec.record(at(with_partition(s0, "orders", 0, isr=(1,)), T0 + 40))
    records, _ = read_day(tmp_path, DAY)
    assert [r["type"] for r in records] == ["snapshot", "gap", "partition", "snapshot"]
    gap = records[1]
    assert (gap["from"], gap["to"], gap["failures"]) == (T0, T0 + 30, 2)
    assert gap["reason"] == "cannot connect to kafka:9092: connection timed out"
    assert records[3]["reason"] == "after-gap"


def test_stopping_during_an_outage_writes_the_gap(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    rec.record(s0)
    assert rec.flush(T0 + 5) == 0  # nothing pending: every change is on disk already
    rec.record_failure(T0 + 10, "cannot connect to kafka:9092: connection refused")
    rec.record_failure(T0 + 20, "cannot connect to kafka:9092: connection refused")
    assert rec.close(T0 + 25) == 2  # the gap, then where the recording ends
    records, _ = read_day(tmp_path, DAY)
    assert [r["type"] for r in records] == ["snapshot", "gap", "end"]
    assert (records[1]["from"], records[1]["to"], records[1]["failures"]) == (T0, T0 + 25, 2)
    assert records[2]["ts"] == T0 + 25
    # recording again later starts afresh with a whole snapshot, without a second gap
    rec.record(at(s0, T0 + 60))
    records, _ = read_day(tmp_path, DAY)
    assert [(r["type"], r.get("reason")) for r in records[3:]] == [("snapshot", "start")]


def test_flush_writes_an_outage_going_on_and_close_marks_the_end(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    assert rec.close(T0) == 0  # nothing recorded: nothing ends
    s0 = at(base(), T0)
    rec.record(s0)
    rec.record_failure(T0 + 10, "cannot connect to kafka:9092: connection refused")
    assert rec.flush(T0 + 15) == 1  # a replay launched now sees the outage up to now
    rec.record(at(s0, T0 + 20))
    assert rec.close(T0 + 30) == 1
    records, _ = read_day(tmp_path, DAY)
    assert [(r["type"], r.get("reason")) for r in records] == [
        ("snapshot", "start"),
        ("gap", "cannot connect to kafka:9092: connection refused"),
        ("snapshot", "start"),
        ("end", None),
    ]


def test_poll_records_an_unreachable_cluster_as_a_failure(tmp_path: Path) -> None:
    class Source:
        def __init__(self) -> None:
            self.calls = 0

        def snapshot(self) -> ClusterSnapshot:
            self.calls += 1
            if self.calls == 2:
                raise CannotConnectError("cannot connect to kafka:9092: connection refused")
            return at(base(), T0 + self.calls)

        def close(self) -> None:
            pass

    rec = Recorder(tmp_path)
    src = Source()
    assert rec.poll(src) is not None
    assert rec.poll(src) is None
    assert rec.poll(src) is not None
    records, _ = read_day(tmp_path, DAY)
    (gap,) = by_type(records, "gap")
    assert (gap["from"], gap["to"], gap["reason"]) == (
        T0 + 1,
        T0 + 3,
        "cannot connect to kafka:9092: connection refused",
    )


def test_kill_during_write_loses_only_the_torn_line(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    rec.record(s0)
    path = tmp_path / DAY / "02.events.jsonl.gz"
    good = path.stat().st_size
    s = s0
    for i in range(40):  # one batch of 40 partition records, one gzip member
        t = healthy(f"t{i}", 1)
        s = dataclasses.replace(s, topics={**s.topics, t.name: t})
    rec.record(at(s, T0 + 1))
    whole = path.stat().st_size
    with open(path, "r+b") as f:  # kill -9 in the middle of the second member
        f.truncate(good + (whole - good) * 2 // 3)
    stats = ReadStats()
    records = list(read_events(tmp_path, DAY, stats))
    assert records[0]["type"] == "snapshot"
    assert stats.torn == 1 and stats.garbled == 0
    kept = [(r["type"], r["topic"]) for r in records[1:]]
    written = [(kind, f"t{i}") for i in sorted(range(40), key=str) for kind in ("topic", "partition")]
    assert 0 < len(kept) < len(written) and kept == written[: len(kept)]  # complete lines, in order
    assert all(r["v"] == 1 for r in records)
    n_before = len(records)
    # the restarted recorder appends after the torn member; the reader resumes at the new member
    rec2 = Recorder(tmp_path)
    rec2.record(at(s0, T0 + 2))
    records2, stats2 = read_day(tmp_path, DAY)
    assert len(records2) == n_before + 1 and records2[-1]["reason"] == "start"
    assert stats2.torn == 1


def test_reader_counts_garbled_lines_and_future_versions(tmp_path: Path) -> None:
    folder = tmp_path / DAY
    folder.mkdir()
    lines = [
        b'{"v":1,"type":"gap","ts":1.0}',
        b"{not json",
        b"[1,2]",
        b'{"v":2,"type":"partition","ts":2.0}',
        b'{"type":"partition"}',
        b'{"v":1,"type":"broker","ts":3.0}',
    ]
    (folder / "05.events.jsonl.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n", mtime=0) + b"junk bytes")
    records, stats = read_day(tmp_path, DAY)
    assert [r["ts"] for r in records] == [1.0, 3.0]
    assert (stats.records, stats.garbled, stats.future_version, stats.torn) == (2, 4, 1, 0)
    assert read_day(tmp_path, "2026-11-21") == ([], ReadStats())
    with pytest.raises(ValueError):
        read_day(tmp_path, "20-11-2026")


def test_retention(tmp_path: Path) -> None:
    for d in ("2026-11-10", "2026-11-17", "2026-11-18", "2026-11-20", "2026-11-22"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "00.events.jsonl.gz").write_bytes(b"")
    (tmp_path / "notes").mkdir()
    (tmp_path / "2026-11-01").write_text("a file, not a day folder")
    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC).timestamp()
    assert Recorder(tmp_path).prune(4, now=now) == ["2026-11-10", "2026-11-17"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "2026-11-01",
        "2026-11-18",
        "2026-11-20",
        "2026-11-22",
        "notes",
    ]
    assert prune(tmp_path / "missing", 1, now=now) == []
    with pytest.raises(ValueError):
        prune(tmp_path, -1)


@pytest.mark.skipif(os.geteuid() == 0, reason="running as root: chmod does not make a directory unwritable")
def test_unwritable_directory_raises_one_recorder_error(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        rec = Recorder(ro)
        with pytest.raises(RecorderError) as info:
            rec.record(at(base(), T0))
        assert "\n" not in str(info.value) and "permission denied" in str(info.value)
        assert str(ro) in str(info.value)
    finally:
        ro.chmod(0o700)


def test_directory_that_cannot_exist_raises_one_recorder_error(tmp_path: Path) -> None:
    """Runs as root too: a path below a regular file can never be created."""
    (tmp_path / "file").write_text("x")
    with pytest.raises(
        RecorderError,
        match=r"^cannot write ISR history to .*/file/sub/2026-11-20/02\.events"
        r"\.jsonl\.gz: Not a directory$",
    ):
        Recorder(tmp_path / "file" / "sub").record(at(base(), T0))


def test_disk_full_rolls_back_and_the_next_write_catches_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    rec.record(s0)
    path = tmp_path / DAY / "02.events.jsonl.gz"
    size = path.stat().st_size
    real_open = open

    class Full:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def tell(self) -> int:
            return int(self.f.tell())

        def write(self, data: bytes) -> int:
            self.f.write(data[:7])  # a partial member reaches the file, then the disk is full
            self.f.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self) -> None:
            self.f.flush()

        def truncate(self, n: int) -> None:
            self.f.truncate(n)

    monkeypatch.setattr(recmod, "open", lambda p, mode: Full(real_open(p, mode)), raising=False)
    s1 = at(with_partition(s0, "orders", 0, isr=(1, 2)), T0 + 10)
    with pytest.raises(RecorderError, match=r"^cannot write ISR history to .*02\.events\.jsonl\.gz: disk full$"):
        rec.record(s1)
    assert path.stat().st_size == size
    monkeypatch.undo()
    rec.record(at(with_partition(s1, "orders", 1, isr=(2, 3)), T0 + 20))
    records, stats = read_day(tmp_path, DAY)
    assert stats.torn == stats.garbled == 0
    assert [(r["partition"], r["isr"], r["ts"] - T0) for r in by_type(records, "partition")] == [
        (0, [1, 2], 20),
        (1, [2, 3], 20),
    ]


def test_classify_matches_assess() -> None:
    specs: list[tuple[int, list[int], list[int]]] = [
        (1, [1, 2, 3], [1, 2, 3]),
        (2, [1, 2, 3], [1, 2, 3]),
        (1, [1, 2, 3], [1, 2]),
        (1, [1, 2, 3], [1]),
        (-1, [1, 2, 3], [1]),
        (4, [4, 1, 2], [4, 1, 2]),
        (1, [1], [1]),
        (1, [1, 2, 3, 4], [1, 2, 3]),
        (1, [], []),
    ]
    for min_isr in ("1", "2", "3", "bad"):
        s = snap(topic("t", specs, min_insync_replicas=min_isr), brokers=(1, 2, 3))
        report = assess(s)
        m = effective_min_isr(s, "t")[0]
        for p in s.topics["t"].partitions:
            assert classify(p, m, s.broker_ids) == report.health("t", p.partition), (min_isr, p)
    empty = dataclasses.replace(snap(topic("t", specs)), brokers=())
    report = assess(empty)
    for p in empty.topics["t"].partitions:
        assert classify(p, 1, empty.broker_ids) == report.health("t", p.partition)


def test_no_secrets_written(tmp_path: Path) -> None:
    s = snap(
        topic("orders", [(1, [1, 2], [1, 2])], sasl_jaas_config="password=hunter2"),
        broker_configs={"ssl.keystore.password": "hunter2"},
    )
    rec = Recorder(tmp_path)
    rec.record(at(s, T0))
    rec.record(at(with_partition(s, "orders", 0, isr=(1,)), T0 + 1))
    raw = gzip.decompress((tmp_path / DAY / "02.events.jsonl.gz").read_bytes())
    assert b"hunter2" not in raw and b"jaas" not in raw
    assert all(json.loads(line)["v"] == 1 for line in raw.splitlines())


def test_unchanged_topics_cost_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With shared topic objects, a snapshot with one change classifies and resolves min ISR for that topic only."""
    big: dict[str, TopicInfo] = {f"t{i}": healthy(f"t{i}", 50) for i in range(200)}
    s0 = at(snap(*big.values()), T0)
    rec = Recorder(tmp_path)
    rec.record(s0)
    calls: list[str] = []
    real = recmod.effective_min_isr
    seen: list[PartitionInfo] = []
    real_classify = recmod.classify

    def spy_min_isr(s: ClusterSnapshot, t: str) -> tuple[int, str]:
        calls.append(t)
        return real(s, t)

    def spy_classify(p: PartitionInfo, m: int, live: frozenset[int]) -> Health:
        seen.append(p)
        return real_classify(p, m, live)

    monkeypatch.setattr(recmod, "effective_min_isr", spy_min_isr)
    monkeypatch.setattr(recmod, "classify", spy_classify)
    assert rec.record(at(with_partition(s0, "t7", 3, isr=(1, 2)), T0 + 1)) == 1
    assert calls == [] and len(seen) == 1


def test_configs_unreadable_for_a_moment_keep_the_last_min_isr(tmp_path: Path) -> None:
    """Seen on real Kafka: while a broker hangs, DescribeConfigs fails and the snapshot is partial. The
    recorder keeps the topic's last known min ISR instead of Kafka's default 1, so a partition at min ISR
    is recorded AT_MIN_ISR, not merely UNDER_REPLICATED."""
    rec = Recorder(tmp_path)
    s0 = at(base(), T0)
    shrunk = with_partition(s0, "orders", 0, isr=(1, 2))
    no_configs = dict(shrunk.topics)
    no_configs["orders"] = dataclasses.replace(shrunk.topics["orders"], configs={})
    s1 = at(dataclasses.replace(shrunk, topics=no_configs, partial=True), T0 + 10)
    rec.record(s0)
    rec.record(s1)
    records, _ = read_day(tmp_path, DAY)
    (change,) = by_type(records, "partition")
    assert (change["isr"], change["min_isr"], change["class"]) == ([1, 2], 2, "AT_MIN_ISR")
