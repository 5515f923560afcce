"""Write small replay OUT directories by hand: summary.json plus frames/ gzip JSON Lines, as the contract says.

`DayBuilder` takes frames in any order, computes the per-minute timeline from them (a partition counts in
a state for a minute if it was in it at any moment of the minute) and writes the frames in two part files
in shuffled order, like Spark does. `incident_day(out)` writes the day the tests share.
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.history.record.recorder import classify
from kafkatui.model.health import Health
from kafkatui.model.snapshot import PartitionInfo

DAY = "2026-11-20"
DAY_START_MS = int(datetime(2026, 11, 20, tzinfo=UTC).timestamp()) * 1000  # 1795132800000


def at(hms: str) -> int:
    """'02:13:44.120' -> epoch ms on DAY."""
    h, m, s = hms.split(":")
    sec, _, ms = s.partition(".")
    return DAY_START_MS + ((int(h) * 60 + int(m)) * 60 + int(sec)) * 1000 + int((ms or "0").ljust(3, "0"))


@dataclass
class DayBuilder:
    """Frames and summary entries of one replayed day."""

    day: str = DAY
    day_start_ms: int = DAY_START_MS
    partitions: list[dict[str, Any]] = field(default_factory=list)
    brokers: list[dict[str, Any]] = field(default_factory=list)
    incidents: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    broker_stats: list[dict[str, Any]] = field(default_factory=list)

    def partition(
        self,
        when: str,
        topic: str,
        partition: int,
        leader: int,
        isr: list[int],
        replicas: list[int] | None,
        min_isr: int | None,
        cls: str | None = None,
    ) -> DayBuilder:
        if cls is None:
            info = PartitionInfo(topic, partition, leader, tuple(replicas or isr), tuple(isr))
            cls = classify(info, min_isr or 1, frozenset()).name
        self.partitions.append(
            {
                "ts_ms": at(when),
                "topic": topic,
                "partition": partition,
                "leader": leader,
                "isr": isr,
                "replicas": replicas,
                "min_isr": min_isr,
                "class": cls,
            }
        )
        return self

    def broker(self, when: str, broker: int, up: bool, rack: str | None = None) -> DayBuilder:
        frame: dict[str, Any] = {"ts_ms": at(when), "broker": broker, "up": up}
        if rack is not None:
            frame["rack"] = rack
        self.brokers.append(frame)
        return self

    def incident(
        self,
        start: str,
        end: str,
        first_out: int | None,
        first_out_at: str | None,
        topics: list[str],
        partitions: int,
        peak_under: int,
        peak_offline: int = 0,
    ) -> DayBuilder:
        s, e = at(start), at(end)
        self.incidents.append(
            {
                "id": len(self.incidents) + 1,
                "start_ms": s,
                "end_ms": e,
                "duration_s": (e - s) / 1000,
                "first_broker_out": first_out,
                "first_out_ms": at(first_out_at) if first_out_at else None,
                "topics": topics,
                "partitions": partitions,
                "peak_under_min_isr": peak_under,
                "peak_offline": peak_offline,
            }
        )
        return self

    def gap(self, start: str, end: str, reason: str) -> DayBuilder:
        self.gaps.append({"start_ms": at(start), "end_ms": at(end), "reason": reason})
        return self

    def timeline(self) -> list[dict[str, Any]]:
        """Per minute: partitions in each state at any moment of it; the worst state; gap minutes."""
        by_key: dict[tuple[str, int], list[tuple[int, Health]]] = {}
        for f in sorted(self.partitions, key=lambda f: f["ts_ms"]):
            by_key.setdefault((f["topic"], f["partition"]), []).append((f["ts_ms"], Health[f["class"]]))
        names = {
            Health.OFFLINE: "offline",
            Health.UNDER_MIN_ISR: "under_min_isr",
            Health.AT_MIN_ISR: "at_min_isr",
            Health.UNDER_REPLICATED: "under_replicated",
        }
        out = []
        for m in range(1440):
            start = self.day_start_ms + m * 60_000
            end = start + 60_000
            counts = dict.fromkeys(names.values(), 0)
            worst = Health.HEALTHY
            for frames in by_key.values():
                states = {h for ts, h in frames if start <= ts < end}
                before = [h for ts, h in frames if ts < start]
                if before:
                    states.add(before[-1])
                for h in states:
                    if h in names:
                        counts[names[h]] += 1
                    worst = min(worst, h)
            gap = any(g["start_ms"] < end and g["end_ms"] > start for g in self.gaps)
            out.append({"minute": m, **counts, "worst": worst.name, "gap": gap})
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "schema": "kafkatui.replay/1",
            "day": self.day,
            "day_start_ms": self.day_start_ms,
            "inputs": {
                "history": "/var/lib/history",
                "broker_logs": [],
                "events": len(self.partitions),
                "torn_lines": 0,
                "unparsed_log_lines": 0,
                "newer_schema_records": 0,
            },
            "gaps": self.gaps,
            "timeline": self.timeline(),
            "incidents": self.incidents,
            "brokers": self.broker_stats,
            "top_partitions": [],
        }

    def write(
        self, out: Path, seed: int = 7, compact: bool = False, by_hour: bool = False, time_sorted: bool = False
    ) -> Path:
        """summary.json and frames in two shuffled part files per kind; returns `out`. `compact`: without
        spaces, as the replay job's JSON writer lays them out (the loader's fast path). `by_hour`: the
        partition frames in ``hour=H`` folders with each hour's starting state in ``frames/at_hour``, as
        the job wrote them in layout 1. `time_sorted` (with `by_hour`): each hour's part files in time
        order and ``frames/layout.json`` saying so, as the job writes them now."""
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary()), encoding="utf-8")
        rng = random.Random(seed)
        for kind, frames in (("partitions", self.partitions), ("brokers", self.brokers)):
            folder = out / "frames" / kind
            folder.mkdir(parents=True, exist_ok=True)
            shuffled = list(frames)
            rng.shuffle(shuffled)
            half = len(shuffled) // 2
            for n, chunk in enumerate((shuffled[:half], shuffled[half:])):
                if time_sorted:
                    chunk = sorted(chunk, key=lambda f: f["ts_ms"])
                if by_hour and kind == "partitions":
                    for f in chunk:
                        self._put(folder / f"hour={(f['ts_ms'] - self.day_start_ms) // 3_600_000}", n, [f], compact)
                    continue
                self._put(folder, n, chunk, compact)
        if by_hour:
            for h in range(1, 24):
                start = self.day_start_ms + h * 3_600_000
                last: dict[tuple[str, int], dict[str, Any]] = {}
                for f in sorted(self.partitions, key=lambda f: f["ts_ms"]):
                    if f["ts_ms"] < start:
                        last[(f["topic"], f["partition"])] = f
                self._put(out / "frames" / "at_hour" / f"hour={h}", 0, list(last.values()), compact)
        if by_hour and time_sorted:
            (out / "frames" / "layout.json").write_text('{"schema": "kafkatui.frames/2", "sorted_by": "ts_ms"}\n')
        return out

    @staticmethod
    def _put(folder: Path, n: int, frames: list[dict[str, Any]], compact: bool) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        with gzip.open(folder / f"part-0000{n}-abc.json.gz", "at", encoding="utf-8") as fh:
            fh.writelines(json.dumps(f, separators=(",", ":") if compact else None) + "\n" for f in frames)


RACKS = {1: "eu-west-1a", 2: "eu-west-1b", 3: "eu-west-1c"}


def incident_day(out: Path, compact: bool = False, by_hour: bool = False, time_sorted: bool = False) -> Path:
    """A 3-broker day with two incidents and a recorder gap:

    - 02:13:30 broker 3 dies: orders-0 and orders-1 at minISR (orders-1 fails over to broker 1);
      02:13:44.120 broker 2 leaves orders-0's ISR: under minISR until 02:19:10.500 (incident 1, 326.38 s);
      02:30 broker 3 is back, 02:31 it rejoins the ISRs, 02:40 orders-1 is led by its preferred leader again.
    - 14:04:50 payments-0 is down to its leader 1 (under minISR); 14:05 broker 1 dies: payments-0 goes offline
      (ISR [1]), the other partitions fail over at minISR; 14:07:30.250 broker 2 leads payments-0 under minISR
      (an unclean election); broker 1 is back at 14:15 and in every ISR at 14:20, orders-0 and payments-0
      staying led by broker 2, not their preferred leader (incident 2).
    - 20:00-20:10 the recorder could not read the cluster.
    """
    b = DayBuilder()
    for broker in (1, 2, 3):
        b.broker("00:00:00", broker, True, RACKS[broker])
    for p, reps in enumerate(([1, 2, 3], [3, 1, 2], [2, 3, 1])):
        b.partition("00:00:00", "orders", p, reps[0], reps, reps, 2)
    b.partition("00:00:00", "payments", 0, 1, [1, 2, 3], [1, 2, 3], 2)
    b.partition("00:00:00", "payments", 1, 2, [2, 3, 1], [2, 3, 1], 2)
    b.partition("00:00:00", "logs", 0, 2, [2, 1], None, None)  # from broker logs: no replicas, no min ISR
    b.partition("09:00:00", "logs", 0, 2, [2], None, None)
    b.partition("09:01:00", "logs", 0, 2, [2, 1], None, None)
    b.broker("02:13:30", 3, False, RACKS[3])
    b.partition("02:13:30", "orders", 0, 1, [1, 2], [1, 2, 3], 2)
    b.partition("02:13:30", "orders", 1, 1, [1, 2], [3, 1, 2], 2)
    b.partition("02:13:30", "orders", 2, 2, [2, 1], [2, 3, 1], 2)
    b.partition("02:13:30", "payments", 0, 1, [1, 2], [1, 2, 3], 2)
    b.partition("02:13:30", "payments", 1, 2, [2, 1], [2, 3, 1], 2)
    b.partition("02:13:44.120", "orders", 0, 1, [1], [1, 2, 3], 2)
    b.partition("02:19:10.500", "orders", 0, 1, [1, 2], [1, 2, 3], 2)
    b.broker("02:30:00", 3, True, RACKS[3])
    b.partition("02:31:00", "orders", 0, 1, [1, 2, 3], [1, 2, 3], 2)
    b.partition("02:31:00", "orders", 1, 1, [1, 2, 3], [3, 1, 2], 2)
    b.partition("02:31:00", "orders", 2, 2, [2, 1, 3], [2, 3, 1], 2)
    b.partition("02:31:00", "payments", 0, 1, [1, 2, 3], [1, 2, 3], 2)
    b.partition("02:31:00", "payments", 1, 2, [2, 1, 3], [2, 3, 1], 2)
    b.partition("02:40:00", "orders", 1, 3, [3, 1, 2], [3, 1, 2], 2)
    b.incident("02:13:44.120", "02:19:10.500", 3, "02:13:30", ["orders"], 1, 1)
    b.partition("14:04:50", "payments", 0, 1, [1], [1, 2, 3], 2)
    b.broker("14:05:00", 1, False, RACKS[1])
    b.partition("14:05:00", "payments", 0, -1, [1], [1, 2, 3], 2)
    b.partition("14:05:00", "orders", 0, 2, [2, 3], [1, 2, 3], 2)
    b.partition("14:05:00", "orders", 1, 3, [3, 2], [3, 1, 2], 2)
    b.partition("14:05:00", "orders", 2, 2, [2, 3], [2, 3, 1], 2)
    b.partition("14:05:00", "payments", 1, 2, [2, 3], [2, 3, 1], 2)
    b.partition("14:05:00", "logs", 0, 2, [2], None, None)
    b.partition("14:07:30.250", "payments", 0, 2, [2], [1, 2, 3], 2)
    b.broker("14:15:00", 1, True, RACKS[1])
    b.partition("14:20:00", "payments", 0, 2, [2, 3, 1], [1, 2, 3], 2)
    b.partition("14:20:00", "orders", 0, 2, [2, 3, 1], [1, 2, 3], 2)
    b.partition("14:20:00", "orders", 1, 3, [3, 2, 1], [3, 1, 2], 2)
    b.partition("14:20:00", "orders", 2, 2, [2, 3, 1], [2, 3, 1], 2)
    b.partition("14:20:00", "payments", 1, 2, [2, 3, 1], [2, 3, 1], 2)
    b.partition("14:20:00", "logs", 0, 2, [2, 1], None, None)
    b.incident("14:04:50", "14:20:00", 2, "14:04:50", ["payments"], 1, 1, 1)
    b.gap("20:00:00", "20:10:00", "cannot connect to kafka-1:9092: connection refused")
    b.broker_stats = [
        {"broker": 1, "shrinks": 5, "expands": 5, "flapping_score": 0.0},
        {"broker": 2, "shrinks": 2, "expands": 2, "flapping_score": 0.0},
        {"broker": 3, "shrinks": 5, "expands": 5, "flapping_score": 0.25},
    ]
    return b.write(out, compact=compact, by_hour=by_hour, time_sorted=time_sorted)
