"""What the fault tests share: a timed source, the simulator's ground truth, and the recording check.

How "nothing is lost" is judged, exactly as a poller can observe it:

* The simulator's event log is the ground truth. `Truth` subscribes to it and stamps every event with
  the wall-clock time it was emitted. The simulator is one asyncio thread, so a Metadata answer
  produced at wall time ``h`` shows exactly the events emitted before ``h``; replaying the log gives
  each partition's (leader, ISR) and the set of registered (unfenced) brokers at any instant. The
  replay is checked against the simulator's own final state, so the log itself is complete.
* `TimedSource` remembers, for every refresh, the window ``[asked, end]`` within which the cluster
  answered: from the attempt's start to its return. (``taken_at`` is stamped when the Metadata answer
  has been read, which under load is a little after the cluster produced it, so a change in that gap
  is legitimately not in the snapshot.) A snapshot is correct when every partition's (leader, ISR)
  and the broker set equal the truth at some instant of that window; when the truth did not change
  during the window, there is exactly one such value. Changes that come and go between two refreshes cannot be seen by a
  poller and are not required (several ISR or leader changes between refreshes coalesce into the last).
* The recording is read back and replayed: after each successful refresh it must equal that refresh's
  snapshot exactly (no change dropped, none invented), every record must belong to a refresh, and
  every run of failed refreshes must appear as one ``gap`` record from the last good refresh to the
  next one, with the number of failures, followed by a full snapshot record; a run of failures when
  the dashboard stopped must be the recording's last record, a gap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.history.record.recorder import read_day
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.kafka.source import ClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.events import EventKind, SimEvent
from kafkatui.sim.runner import SimRunner
from kafkatui.tui.feed import Feed

PartitionState = tuple[int, tuple[int, ...]]  # (leader, ISR)
Key = tuple[str, int]


@dataclass(slots=True)
class Poll:
    """One refresh attempt: its wall-clock window, and the snapshot or the error."""

    start: float  # for a snapshot: its taken_at, which stamps its records
    end: float
    snapshot: ClusterSnapshot | None  # None when failed, or not kept (see `digest`)
    error: str | None
    digest: int | None = None  # `state_digest` of the snapshot (kept when the snapshot is not)
    asked: float = field(kw_only=True)  # when the attempt began: the cluster's answer was produced in [asked, end]

    @property
    def ok(self) -> bool:
        return self.error is None


class TimedSource:
    """A ClusterSource wrapper that notes every attempt's window and outcome (thread-safe)."""

    def __init__(self, inner: ClusterSource, keep: bool = True) -> None:
        """`keep=False` keeps only a digest of each snapshot (a soak takes thousands of large ones)."""
        self.inner = inner
        self.keep = keep
        self.polls: list[Poll] = []
        self.started: list[float] = []  # start of every attempt, also the one in flight
        self._busy = threading.Lock()

    def snapshot(self) -> ClusterSnapshot:
        with self._busy:
            start = time.time()
            self.started.append(start)
            try:
                snap = self.inner.snapshot()
            except KafkaTuiError as exc:
                self.polls.append(Poll(start, time.time(), None, str(exc), asked=start))
                raise
            end = time.time()
            if self.keep:
                self.polls.append(Poll(snap.taken_at, end, snap, None, asked=start))
            else:
                digest = state_digest(*snapshot_state(snap))
                self.polls.append(Poll(snap.taken_at, end, None, None, digest, asked=start))
            return snap

    def in_flight_since(self) -> float | None:
        """Start of the attempt running now, or None."""
        return self.started[-1] if len(self.started) > len(self.polls) else None

    def wait_idle(self, feed: Feed, timeout: float = 30.0) -> None:
        """Wait for an attempt in flight to finish and `feed` to take it in (the app's worker thread
        outlives the app)."""
        if self._busy.acquire(timeout=timeout):
            self._busy.release()
        assert wait(lambda: feed.state.generation >= len(self.polls), timeout)

    def close(self) -> None:
        self.inner.close()


def _cluster_state(c: SimCluster) -> tuple[dict[Key, PartitionState], frozenset[int]]:
    parts = {(p.topic, p.index): (p.leader, tuple(p.isr)) for p in c.partitions()}
    return parts, frozenset(b.id for b in c.brokers.values() if not b.fenced)


@dataclass
class Truth:
    """The simulator's event log, stamped with wall-clock emission times, replayable at any instant."""

    initial: dict[Key, PartitionState]
    initial_brokers: frozenset[int]
    since: float
    events: list[tuple[float, SimEvent]] = field(default_factory=list)

    @classmethod
    def attach(cls, sim: SimRunner) -> Truth:
        def subscribe(c: SimCluster) -> Truth:
            parts, brokers = _cluster_state(c)
            truth = cls(parts, brokers, time.time())
            c.events.subscribe(lambda e: truth.events.append((time.time(), e)))
            return truth

        return sim.call(subscribe)

    def timeline(self) -> tuple[dict[Key, list[tuple[float, PartitionState]]], list[tuple[float, frozenset[int]]]]:
        """Every partition's and the broker set's states, each with the wall time it began."""
        parts: dict[Key, list[tuple[float, PartitionState]]] = {k: [(self.since, v)] for k, v in self.initial.items()}
        brokers: list[tuple[float, frozenset[int]]] = [(self.since, self.initial_brokers)]
        for t, e in list(self.events):
            d = e.detail
            if e.kind in (EventKind.BROKER_FENCED, EventKind.BROKER_UNFENCED):
                current = set(brokers[-1][1])
                (current.discard if e.kind == EventKind.BROKER_FENCED else current.add)(e.broker)  # type: ignore[arg-type]
                brokers.append((t, frozenset(current)))
                continue
            if e.topic is None or e.partition is None:
                continue
            assert e.kind not in (EventKind.TOPIC_CREATED, EventKind.TOPIC_DELETED, EventKind.PARTITIONS_CREATED)
            key = (e.topic, e.partition)
            leader, isr = parts[key][-1][1]
            if e.kind in (EventKind.ISR_SHRINK, EventKind.ISR_EXPAND):
                isr = tuple(d["new_isr"])
            elif e.kind == EventKind.LEADER_CHANGE:
                leader, isr = d["leader"], tuple(d["isr"])
            elif e.kind == EventKind.OFFLINE:
                leader = -1
            elif e.kind == EventKind.UNCLEAN_ELECTION:
                leader, isr = -1, (d["leader"],)
            else:
                continue
            if (leader, isr) != parts[key][-1][1]:
                parts[key].append((t, (leader, isr)))
        return parts, brokers

    def check_complete(self, sim: SimRunner) -> None:
        """Replaying the log must give the simulator's real state: the ground truth misses nothing."""
        parts, brokers = self.timeline()
        real_parts, real_brokers = sim.call(_cluster_state)
        assert {k: v[-1][1] for k, v in parts.items()} == real_parts
        assert brokers[-1][1] == real_brokers

    def changes(self, kinds: Iterable[EventKind]) -> int:
        wanted = set(kinds)
        return sum(1 for _, e in self.events if e.kind in wanted)


def states_during(history: list[tuple[float, Any]], start: float, end: float) -> list[Any]:
    """The states a step function took during [start, end]: the one at `start`, then each change."""
    out = [history[0][1]]
    for t, v in history:
        if t <= start:
            out = [v]
        elif t <= end:
            out.append(v)
    return out


def snapshot_state(snap: ClusterSnapshot) -> tuple[dict[Key, PartitionState], frozenset[int]]:
    parts = {(p.topic, p.partition): (p.leader, tuple(p.isr)) for t in snap.topics.values() for p in t.partitions}
    return parts, frozenset(b.id for b in snap.brokers)


def state_digest(parts: dict[Key, PartitionState], brokers: frozenset[int]) -> int:
    return hash((frozenset(parts.items()), brokers))


def check_snapshots_against_truth(polls: list[Poll], truth: Truth) -> int:
    """Every snapshot shows what the cluster was at some instant of its window; returns the number checked."""
    parts, brokers = truth.timeline()
    checked = 0
    for poll in polls:
        if poll.snapshot is None or poll.asked < truth.since:
            continue
        seen_parts, seen_brokers = snapshot_state(poll.snapshot)
        assert set(seen_parts) == set(parts), "partitions missing from a snapshot"
        for key, state in seen_parts.items():
            possible = states_during(parts[key], poll.asked, poll.end)
            assert state in possible, f"{key}: saw {state}, cluster was {possible} during the refresh"
        possible_b = states_during(brokers, poll.asked, poll.end)
        assert seen_brokers in possible_b, f"brokers: saw {sorted(seen_brokers)}, cluster had {possible_b}"
        checked += 1
    return checked


def _days(polls: list[Poll]) -> list[str]:
    days = {datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d") for p in polls for t in (p.start, p.end)}
    return sorted(days)


def read_recording(directory: Path, polls: list[Poll]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for day in _days(polls):
        recs, stats = read_day(directory, day)
        assert stats.torn == stats.garbled == 0
        records.extend(recs)
    return records


def check_recording(directory: Path, polls: list[Poll]) -> dict[str, int]:
    """The recording replays to every snapshot exactly, with one gap record per run of failures, and ends
    with the `end` record that closing the recorder writes.

    Returns counts: refreshes, failures, gaps and partition records.
    """
    records = read_recording(directory, polls)
    parts: dict[Key, PartitionState] = {}
    brokers: set[int] = set()
    i = 0
    failures = 0
    last_ok: float | None = None
    counts = {"refreshes": 0, "failures": 0, "gaps": 0, "partition_records": 0}
    for poll in polls:
        if not poll.ok:
            failures += 1
            counts["failures"] += 1
            continue
        ts = round(poll.start, 3)
        batch: list[dict[str, Any]] = []
        while i < len(records) and records[i]["ts"] == ts:
            batch.append(records[i])
            i += 1
        gaps = [r for r in batch if r["type"] == "gap"]
        if failures:
            assert len(gaps) == 1, f"{failures} failed refreshes before {ts} but {len(gaps)} gap records"
            gap = gaps[0]
            assert gap["failures"] == failures and gap["to"] == ts and gap["reason"]
            assert last_ok is None or gap["from"] == round(last_ok, 3)
            assert any(r["type"] == "snapshot" and r["reason"] == "after-gap" for r in batch)
            counts["gaps"] += 1
        else:
            assert not gaps, f"a gap record at {ts} without failed refreshes"
        for r in batch:
            if r["type"] == "snapshot":
                parts = {
                    (name, row[0]): (row[1], tuple(row[4]))
                    for name, t in r["topics"].items()
                    for row in t["partitions"]
                }
                brokers = {b[0] for b in r["brokers"]}
            elif r["type"] == "partition":
                parts[(r["topic"], r["partition"])] = (r["leader"], tuple(r["isr"]))
                counts["partition_records"] += 1
            elif r["type"] == "broker":
                (brokers.add if r["op"] == "up" else brokers.discard)(r["broker"])
        if poll.snapshot is not None:
            want_parts, want_brokers = snapshot_state(poll.snapshot)
            assert parts == want_parts, f"the recording differs from the refresh at {ts}"
            assert frozenset(brokers) == want_brokers
        else:
            assert state_digest(parts, frozenset(brokers)) == poll.digest, (
                f"the recording differs from the refresh at {ts}"
            )
        failures = 0
        last_ok = poll.start
        counts["refreshes"] += 1
    if failures:  # the dashboard stopped during an outage: closing wrote the gap
        assert i < len(records) and records[i]["type"] == "gap", "an outage at the end is not in the recording"
        gap = records[i]
        assert gap["failures"] == failures and (last_ok is None or gap["from"] == round(last_ok, 3))
        counts["gaps"] += 1
        i += 1
    # closing the recorder marks where the recording ends (one `end` record, after everything else)
    assert i < len(records) and records[i]["type"] == "end", f"no end record: {records[i : i + 3]}"
    i += 1
    assert i == len(records), f"{len(records) - i} records belong to no refresh: {records[i : i + 3]}"
    return counts


def wait(predicate: Callable[[], bool], timeout: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
