"""Plan a topic's replication-factor change as a partition reassignment: pure, no network.

Raising RF: every existing replica stays, the current leader first (so leadership does not move);
each new replica goes where the shared placement rule (`model.placement`, also used by the findings'
plans) puts it: a live broker on the rack with fewest of the partition's replicas, then the broker
hosting the fewest replicas cluster-wide (including this plan's), then the lowest id.
Lowering RF: the leader always stays; replicas out of the ISR go first, then those on the rack
holding most of the partition's replicas, then those on the most loaded broker.

Also: the JSON ``kafka-reassign-partitions.sh`` reads (``--reassignment-json-file``), for the
plan and for its rollback (the current assignment).
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafkatui.alter.errors import NotApplicableError
from kafkatui.kafka.errors import UsageError
from kafkatui.model.health import effective_min_isr
from kafkatui.model.placement import Placement
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo


@dataclass(frozen=True, slots=True)
class PartitionMove:
    """One partition's replica list changing from `old` to `new`."""

    topic: str
    partition: int
    old: tuple[int, ...]
    new: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def adding(self) -> tuple[int, ...]:
        return tuple(r for r in self.new if r not in self.old)

    @property
    def removing(self) -> tuple[int, ...]:
        return tuple(r for r in self.old if r not in self.new)

    def reverse(self) -> PartitionMove:
        return PartitionMove(self.topic, self.partition, self.new, self.old)


@dataclass(frozen=True, slots=True)
class ReassignPlan:
    """The moves of a reassignment and the rack of every broker they name (None: no rack)."""

    moves: tuple[PartitionMove, ...]
    racks: dict[int, str | None]

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(m.topic for m in self.moves))

    def rack_list(self, replicas: Iterable[int]) -> list[str]:
        return [self.racks.get(r) or "-" for r in replicas]


def ids_text(ids: Iterable[int]) -> str:
    """Broker ids as ``1,2,3`` (``-`` for none)."""
    return ",".join(map(str, ids)) or "-"


def _rack_key(racks: Mapping[int, str | None], broker: int) -> str:
    """The rack a broker counts in: its own, or a rack of its own when it has none."""
    rack = racks.get(broker)
    return rack if rack else f"\0broker-{broker}"


def replica_load(snapshot: ClusterSnapshot) -> Counter[int]:
    """Replicas hosted per broker, over every topic."""
    load: Counter[int] = Counter({b: 0 for b in snapshot.broker_ids})
    for t in snapshot.topics.values():
        for p in t.partitions:
            load.update(p.replicas)
    return load


def _raise(p: PartitionInfo, rf: int, placement: Placement) -> tuple[int, ...]:
    keep = list(p.replicas)
    if p.leader in keep:
        keep.remove(p.leader)
        keep.insert(0, p.leader)
    while len(keep) < rf:
        best = placement.pick(keep, placement.racks_of(keep))
        if best is None:  # cannot happen: plan_replication_factor checked there are rf live brokers
            raise NotApplicableError(f"no live broker left for a replica of {p.topic}-{p.partition}")
        keep.append(best)
    return tuple(keep)


def _lower(p: PartitionInfo, rf: int, placement: Placement) -> tuple[int, ...]:
    racks, load = placement.rack, placement.load
    keep = list(p.replicas)
    while len(keep) > rf:
        used = Counter(_rack_key(racks, r) for r in keep)
        choices = [r for r in keep if r != p.leader] if p.leader in keep else keep[1:]
        worst = max(choices, key=lambda r: (r not in p.isr, used[_rack_key(racks, r)], load[r], r))
        keep.remove(worst)
        placement.release(worst)
    return tuple(keep)


def plan_replication_factor(snapshot: ClusterSnapshot, topic: str, rf: int) -> ReassignPlan:
    """Moves that bring every partition of `topic` to `rf` replicas (partitions already there stay)."""
    info = snapshot.topics.get(topic)
    if info is None:
        raise UsageError(f"unknown topic {topic!r}")
    if rf < 1:
        raise UsageError(f"--replication-factor must be >= 1, got {rf}")
    racks = {b.id: b.rack for b in snapshot.brokers}
    live = sorted(snapshot.broker_ids)
    if rf > len(live):
        raise NotApplicableError(
            f"cannot place {rf} replicas of {topic}: only {len(live)} broker(s) are up "
            f"({', '.join(map(str, live))}); nothing changed"
        )
    placement = Placement(live, racks, replica_load(snapshot))
    moves = []
    for p in sorted(info.partitions, key=lambda x: x.partition):
        if len(p.replicas) == rf:
            continue
        new = _raise(p, rf, placement) if len(p.replicas) < rf else _lower(p, rf, placement)
        moves.append(PartitionMove(topic, p.partition, p.replicas, new))
    named = {r for m in moves for r in (*m.old, *m.new)}
    return ReassignPlan(tuple(moves), {b: racks.get(b) for b in sorted(named)})


def rf_risks(snapshot: ClusterSnapshot, topic: str, rf: int) -> list[str]:
    """What the new replication factor means with the topic's effective min.insync.replicas."""
    min_isr, source = effective_min_isr(snapshot, topic)
    where = f"min.insync.replicas {min_isr} ({source})"
    if min_isr > rf and snapshot.kafka.capped:
        return [
            f"{where} > RF {rf}: 3.7+ brokers hold acks=all to {rf} copies, fewer than the config says; "
            "lower min.insync.replicas to match"
        ]
    if min_isr > rf:
        return [f"{where} > RF {rf}: every acks=all write to {topic} will fail; lower min.insync.replicas first"]
    if rf == 1:
        return [f"RF 1: {topic} keeps a single copy; losing its broker loses the data"]
    if min_isr == rf:
        return [f"{where} = RF {rf}: any broker loss stops acks=all writes to {topic}"]
    if min_isr == 1:
        return [
            f"{where}: acks=all can be acknowledged by the leader alone; consider "
            f"`kafkatui alter --topic {topic} --set min.insync.replicas=2`"
        ]
    return []


def reassignment_json(moves: Iterable[PartitionMove], rollback: bool = False) -> str:
    """The ``--reassignment-json-file`` document for the moves (the old assignment with `rollback`)."""
    parts = [
        {
            "topic": m.topic,
            "partition": m.partition,
            "replicas": list(m.old if rollback else m.new),
            "log_dirs": ["any"] * len(m.old if rollback else m.new),
        }
        for m in moves
    ]
    return json.dumps({"version": 1, "partitions": parts})


def reassign_commands(
    bootstrap: str, file: str = "reassign.json", rollback_file: str = "rollback.json", throttle: int | None = None
) -> list[str]:
    """The kafka-reassign-partitions.sh lines: execute (throttled when asked), verify (which also removes
    the throttle once done), and roll back."""
    base = ["kafka-reassign-partitions.sh", "--bootstrap-server", bootstrap]
    limit = ["--throttle", str(throttle)] if throttle else []
    return [
        shlex.join([*base, "--reassignment-json-file", file, "--execute", *limit]),
        shlex.join([*base, "--reassignment-json-file", file, "--verify"]),
        shlex.join([*base, "--reassignment-json-file", rollback_file, "--execute"]) + "   # roll back",
    ]


def moves_from_records(records: Iterable[Mapping[str, object]]) -> tuple[PartitionMove, ...]:
    """The moves that undo audited reassignments: each partition back to its ``before`` replicas."""
    out = []
    for r in records:
        res, before, after = r.get("resource"), r.get("before"), r.get("after")
        if not (isinstance(res, dict) and isinstance(before, dict) and isinstance(after, dict)):
            continue
        out.append(
            PartitionMove(
                str(res["topic"]),
                int(res["partition"]),
                tuple(int(x) for x in after["replicas"]),
                tuple(int(x) for x in before["replicas"]),
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a reassignment is: partitions finished, new replicas in their ISR."""

    finished: int
    partitions: int
    in_isr: int  # new (added) replicas in their partition's ISR
    adding: int  # new replicas in all
    pending: tuple[str, ...]  # partitions not finished yet

    @property
    def done(self) -> bool:
        return self.finished == self.partitions


def progress(moves: Sequence[PartitionMove], snapshot: ClusterSnapshot, ongoing: Iterable[tuple[str, int]]) -> Progress:
    """A partition is finished when no reassignment of it is listed, its replicas are the target's and
    every replica it gained is in its ISR (a replica it kept on a down broker does not hold it up)."""
    running = set(ongoing)
    finished = in_isr = 0
    pending = []
    for m in moves:
        p = _partition(snapshot, m.topic, m.partition)
        isr = set(p.isr) if p else set()
        joined = sum(r in isr for r in m.adding)
        in_isr += joined
        if (
            p is not None
            and (m.topic, m.partition) not in running
            and set(p.replicas) == set(m.new)
            and joined == len(m.adding)
        ):
            finished += 1
        else:
            pending.append(m.name)
    return Progress(finished, len(moves), in_isr, sum(len(m.adding) for m in moves), tuple(pending))


def _partition(snapshot: ClusterSnapshot, topic: str, index: int) -> PartitionInfo | None:
    info = snapshot.topics.get(topic)
    for p in info.partitions if info else ():
        if p.partition == index:
            return p
    return None
