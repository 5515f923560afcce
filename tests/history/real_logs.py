"""The real-Kafka log fixtures (tests/history/fixtures/real-kafka-<line>/) and how a recording and the
broker logs of the same run are compared "within one refresh".

The recorder stamps a snapshot with the time it started, and a snapshot of a cluster with a hung or
dead broker takes up to ~15 s; so a change the recorder stamped at ``s_k`` happened somewhere in
``[s_(k-1), s_(k+1)]`` (the neighbouring snapshot stamps), and a state the logs saw that began and
ended between two consecutive stamps may have been invisible to the recorder. Brokers' metadata
caches also trail the controller's log by a few hundred ms (`PROPAGATION_MS`).
"""

from __future__ import annotations

import bisect
import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkatui.history.logparse import IsrLogEvent

FIXTURES = Path(__file__).parent / "fixtures"
LINES = ("4.1", "3.9")
ZK_LINES = ("3.9-zk", "2.8")
TOPICS = ("isr", "solo", "unclean")


def fixture_dir(line: str) -> Path:
    return FIXTURES / f"real-kafka-{line}"


def log_glob(line: str) -> str:
    return str(fixture_dir(line) / "*" / "*.log")


def run_info(line: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((fixture_dir(line) / "run.json").read_text(encoding="utf-8"))
    return doc


def records(line: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for f in sorted((fixture_dir(line) / "history").rglob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            out.extend(json.loads(x) for x in fh if x.strip())
    return out


def stamps(recs: Sequence[dict[str, Any]]) -> list[int]:
    """Every distinct snapshot stamp the recording wrote (ms)."""
    return sorted({round(r["ts"] * 1000) for r in recs})


@dataclass(frozen=True)
class Step:
    """A partition entering a state at `ts` (ms)."""

    ts: int
    state: Any


def dedupe(steps: Sequence[Step]) -> list[Step]:
    out: list[Step] = []
    for s in steps:
        if not out or out[-1].state != s.state:
            out.append(s)
    return out


def recorded_isr_steps(recs: Sequence[dict[str, Any]], topic: str) -> list[Step]:
    """The recorder's (leader, ISR) states of ``topic``-0; "offline" when it had no (live) leader."""
    return dedupe(
        [
            Step(round(r["ts"] * 1000), "offline" if r["class"] == "OFFLINE" else (r["leader"], frozenset(r["isr"])))
            for r in recs
            if r["type"] == "partition" and r["topic"] == topic and r["partition"] == 0
        ]
    )


def logged_isr_steps(events: Sequence[IsrLogEvent], topic: str) -> list[Step]:
    """The same states as the broker-log events say (as `replay_inputs.log_rows` reads them)."""
    out: list[Step] = []
    isr: tuple[int, ...] = ()
    for e in events:
        if e.topic != topic or e.partition != 0:
            continue
        lead = e.broker if e.leader is None else e.leader
        if e.new_isr or e.kind != "leader":
            isr = e.new_isr
        out.append(Step(e.ts_ms, "offline" if lead < 0 else (lead, frozenset(isr))))
    return dedupe(out)


PROPAGATION_MS = 1000
"""A broker's metadata cache (what a client's Metadata request reads) trails the controller by up to
this much: a change logged just before a snapshot started can still be missing from it."""


def window(st: list[int], ts: int) -> tuple[int, int]:
    """The stamps just before and just after `ts` (the refresh around a recorded change), the start
    widened by `PROPAGATION_MS`."""
    i = bisect.bisect_left(st, ts)
    return st[max(0, i - 1)] - PROPAGATION_MS, st[min(len(st) - 1, i + 1 if i < len(st) and st[i] == ts else i)]


def unseen(st: list[int], start: int, end: int) -> bool:
    """True when no whole refresh [s_i, s_(i+1)] lies within [start, end): a snapshot may have missed it."""
    i = bisect.bisect_left(st, start)
    return i + 1 >= len(st) or st[i + 1] > end


def match(recorded: list[Step], logged: list[Step], st: list[int], end_ms: int) -> list[str]:
    """What does not agree (empty: every recorded state was logged within one refresh, in order, and
    every logged state the recording lacks was too short for a snapshot to see)."""
    problems: list[str] = []
    j = 0
    for n, r in enumerate(recorded):
        lo, hi = window(st, r.ts)
        if n == 0:
            lo = 0  # a new topic: the recorder lists topics on its own cadence, the first state may be older
        k = j
        while k < len(logged) and not (logged[k].state == r.state and lo <= logged[k].ts <= hi):
            k += 1
        if k == len(logged):
            problems.append(f"recorded {r.state} at {r.ts}: not logged within [{lo}, {hi}]")
            continue
        before = recorded[n - 1].state if n else None
        for x in range(j, k):  # logged states the recording lacks: too short to see, or a return to the
            nxt = logged[x + 1].ts if x + 1 < len(logged) else end_ms  # state recorded before after one
            if x > 0 and not unseen(st, logged[x].ts, nxt) and logged[x].state != before:
                problems.append(f"logged {logged[x].state} {logged[x].ts}-{nxt}: long enough to record, not recorded")
        j = k + 1
    return problems


def expected_class(r: dict[str, Any], min_isr: int) -> str:
    """The class a replay of broker logs can give for a recorded partition record: the recorder's
    OFFLINE kept (it knew which brokers were alive), the rest from leader / ISR / replicas with the
    topic's real min ISR, NON_PREFERRED_LEADER as HEALTHY (the assignment is not in the logs)."""
    if r["class"] == "OFFLINE":
        return "OFFLINE"
    n = len(r["isr"])
    if n < min_isr:
        return "UNDER_MIN_ISR"
    if n == min_isr:
        return "AT_MIN_ISR"
    return "UNDER_REPLICATED" if n < len(r["replicas"]) else "HEALTHY"


def recorded_class_steps(recs: Sequence[dict[str, Any]], topic: str, min_isr: int) -> list[Step]:
    return dedupe(
        [
            Step(round(r["ts"] * 1000), expected_class(r, min_isr))
            for r in recs
            if r["type"] == "partition" and r["topic"] == topic and r["partition"] == 0
        ]
    )


def recorded_states(recs: Sequence[dict[str, Any]], topic: str, partition: int) -> list[Step]:
    """(leader, ISR) / "offline" of one partition as the recording says: its snapshots (the state when
    the recorder started, which may be after the topic's creation) and its change records."""
    out: list[Step] = []
    for r in recs:
        ts = round(r["ts"] * 1000)
        if r["type"] == "snapshot" and topic in r["topics"]:
            for p, leader, _, _replicas, isr, cls in r["topics"][topic]["partitions"]:
                if p == partition:
                    out.append(Step(ts, "offline" if cls == "OFFLINE" else (leader, frozenset(isr))))
        elif r["type"] == "partition" and r["topic"] == topic and r["partition"] == partition:
            out.append(Step(ts, "offline" if r["class"] == "OFFLINE" else (r["leader"], frozenset(r["isr"]))))
    return dedupe(sorted(out, key=lambda s: s.ts))


def logged_states(events: Sequence[IsrLogEvent], topic: str, partition: int) -> list[Step]:
    """The same states as the broker-log events say (as `replay_inputs.log_rows` reads them)."""
    out: list[Step] = []
    isr: tuple[int, ...] = ()
    for e in events:
        if e.topic != topic or e.partition != partition:
            continue
        lead = e.broker if e.leader is None else e.leader
        if e.new_isr or e.kind != "leader":
            isr = e.new_isr
        out.append(Step(e.ts_ms, "offline" if lead < 0 else (lead, frozenset(isr))))
    return dedupe(out)


def state_at(steps: Sequence[Step], ts: int) -> Any:
    """The state in effect at `ts` (None before the first step)."""
    i = bisect.bisect_right([s.ts for s in steps], ts)
    return steps[i - 1].state if i else None


def held_within(recorded: list[Step], logged: list[Step], st: list[int]) -> list[str]:
    """Every recorded state was the logged one at some instant of its refresh window (a looser `match`
    for a recorder that read a paused broker's stale metadata: the state may have begun earlier), and
    every logged offline stretch the recording spans was recorded within one refresh of it."""
    problems = []
    for n, r in enumerate(recorded):
        lo, hi = window(st, r.ts)
        lo = 0 if n == 0 else lo  # the first snapshot: the state may be older (or stale, as above)
        starts = [s.ts for s in logged if lo <= s.ts <= hi]
        if not any(state_at(logged, t) == r.state for t in [lo, *starts]):
            problems.append(f"recorded {r.state} at {r.ts}: not the logged state within [{lo}, {hi}]")
    for i, s in enumerate(logged):
        end = logged[i + 1].ts if i + 1 < len(logged) else st[-1]
        if s.state == "offline" and s.ts <= st[-1] and not unseen(st, s.ts, end):
            lo, hi = window(st, s.ts)
            if not any(r.state == "offline" and lo <= r.ts <= hi for r in recorded):
                problems.append(f"logged offline {s.ts}-{end}: not recorded within [{lo}, {hi}]")
    return problems
