"""A small synthetic day for the replay job, as recordings (through the Recorder) and as broker logs.

Cluster: brokers 1, 2, 3; topic ``orders`` with 3 partitions, RF 3, min ISR 2 (replicas
[1,2,3], [2,3,1], [3,1,2]); topic ``payments`` with 2 healthy partitions that never change.

- orders-1 lost broker 3 at 23:30 the day before: AT_MIN_ISR from midnight until 01:00:00.000.
- orders-0: broker 3 out at 02:13:30.000, broker 2 out at 02:13:44.120 (UNDER_MIN_ISR), broker 2
  back at 02:19:10.500, broker 3 back at 02:20:00.000: incident 1, 326.38 s, first broker out 3.
- orders-2: broker 2 bounces out and back twice between 05:00:00 and 05:01:30 (flapping).
- the recorder could not reach the cluster after its 10:00:05 poll until 10:30:00: a gap (minutes 600-629).
- orders-2: broker 1 out at 23:57:30.000, broker 2 out at 23:58:00.250: incident 2, open at 24:00,
  119.75 s, first broker out 1.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from datetime import UTC, datetime
from pathlib import Path

from kafkatui.history.record.recorder import Recorder
from kafkatui.model.snapshot import ClusterSnapshot
from tests.model.builders import healthy, snap

DAY = "2026-11-20"
D0_MS = 1795132800000


def ts(hms: str, day: int = 20) -> float:
    """Epoch seconds of ``HH:MM:SS.fff`` on 2026-11-`day` (UTC)."""
    t = datetime.strptime(f"2026-11-{day} {hms}", "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)
    return t.timestamp()


def ms(hms: str, day: int = 20) -> int:
    return round(ts(hms, day) * 1000)


def base() -> ClusterSnapshot:
    return snap(healthy("orders", 3, min_insync_replicas="2"), healthy("payments", 2, min_insync_replicas="2"))


def with_isr(s: ClusterSnapshot, part: int, isr: tuple[int, ...], at: float) -> ClusterSnapshot:
    t = s.topics["orders"]
    parts = list(t.partitions)
    parts[part] = dataclasses.replace(parts[part], isr=isr)
    topics = dict(s.topics)
    topics["orders"] = dataclasses.replace(t, partitions=tuple(parts))
    return dataclasses.replace(s, topics=topics, taken_at=at)


# (time, day, partition, new ISR) in order
CHANGES: list[tuple[str, int, int, tuple[int, ...]]] = [
    ("23:30:00.000", 19, 1, (2, 1)),
    ("01:00:00.000", 20, 1, (2, 3, 1)),
    ("02:13:30.000", 20, 0, (1, 2)),
    ("02:13:44.120", 20, 0, (1,)),
    ("02:19:10.500", 20, 0, (1, 2)),
    ("02:20:00.000", 20, 0, (1, 2, 3)),
    ("05:00:00.000", 20, 2, (3, 1)),
    ("05:00:20.000", 20, 2, (3, 1, 2)),
    ("05:01:00.000", 20, 2, (3, 1)),
    ("05:01:30.000", 20, 2, (3, 1, 2)),
    ("23:57:30.000", 20, 2, (3, 2)),
    ("23:58:00.250", 20, 2, (3,)),
]
GAP = ("09:59:00.000", "10:30:00.000")


def write_recordings(history: Path) -> None:
    """The day through the real Recorder (snapshots at every change, hourly ones, and the gap)."""
    rec = Recorder(history)
    s = dataclasses.replace(base(), taken_at=ts("23:00:00.000", 19))
    rec.record(s)
    polls = [(ts(t, d), p, isr) for t, d, p, isr in CHANGES]
    polls += [(ts(f"{h:02d}:00:05.000"), -1, ()) for h in range(24)]  # hourly polls, no change
    polls += [(ts(GAP[0]), -1, ()), (ts(GAP[1]), -2, ())]
    for at, part, isr in sorted(polls, key=lambda x: x[0]):
        if part == -2:
            rec.record_failure(ts("10:05:00.000"), "cannot connect to kafka:9092")
            s = dataclasses.replace(s, taken_at=at)
        elif part == -1:
            s = dataclasses.replace(s, taken_at=at)
        else:
            s = with_isr(s, part, isr, at)
        rec.record(s)


LEADERS = {0: 1, 1: 2, 2: 3}
REPLICAS = {0: (1, 2, 3), 1: (2, 3, 1), 2: (3, 1, 2)}


def log_lines() -> dict[str, list[str]]:
    """Kafka 3.6 server.log lines of the same changes, per file name (hourly rotation)."""
    files: dict[str, list[str]] = {}
    isr = dict(REPLICAS)
    for t, d, p, new in CHANGES:
        leader, old = LEADERS[p], isr[p]
        isr[p] = new
        head = f"[2026-11-{d} {t[:8]},{t[9:12]}] INFO [Partition orders-{p} broker={leader}] "
        tail = " (kafka.cluster.Partition)"
        under = len(new) < 2
        fmt = ",".join(map(str, new))
        lines = []
        if len(new) < len(old):
            oos = " ".join(
                f"(brokerId: {b}, endOffset: 100, lastCaughtUpTimeMs: 1795140000000)" for b in old if b not in new
            )
            lines.append(
                f"{head}Shrinking ISR from {','.join(map(str, old))} to {fmt}. Leader: "
                f"(highWatermark: 100, endOffset: 120). Out of sync replicas: {oos}.{tail}"
            )
        marker = " (under-min-isr) " if under else "  "
        lines.append(f"{head}ISR updated to {fmt}{marker}and version updated to 7{tail}")
        name = f"server.log.2026-11-{d}-{t[:2]}"
        files.setdefault(name, []).extend(lines)
        files.setdefault(name, []).append(f"[2026-11-{d} {t[:8]},{t[9:12]}] INFO [ReplicaFetcher] unrelated line")
    return files


def write_logs(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, lines in log_lines().items():
        (folder / name).write_text("\n".join(lines) + "\n")


def damage(history: Path) -> None:
    """A recorder killed mid-write at 12:00 (torn line), a garbled line, a record of a newer schema."""
    day = history / DAY
    line = json.dumps(
        {
            "v": 1,
            "type": "broker",
            "ts": ts("12:00:00.000"),
            "cluster": "test",
            "broker": 3,
            "op": "up",
            "host": "b3",
            "port": 9092,
            "rack": None,
        }
    ).encode()
    member = gzip.compress(line + b"\n" + line + b"\n", mtime=0)
    (day / "12.events.jsonl.gz").write_bytes(gzip.compress(line + b"\n", mtime=0) + member[: len(member) - 12])
    newer = json.dumps({"v": 2, "type": "partition", "ts": ts("13:00:00.000"), "topic": "orders"}).encode()
    (day / "13.events.jsonl.gz").write_bytes(gzip.compress(newer + b"\nnot json\n", mtime=0))
