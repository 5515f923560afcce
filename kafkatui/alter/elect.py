"""Plan leader elections from a snapshot: pure, no network (the TUI and ``kafkatui elect`` share it).

* Preferred: partitions whose leader is not their first replica, split into those an election
  can move (the preferred replica is alive and in the ISR) and those it cannot, with the leader
  count per broker before and after.
* Unclean (KIP-460): one OFFLINE partition, its live out-of-sync replicas as candidates and what
  is known about how far behind they are (bytes on disk, offset lag), for the data-loss warning.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafkatui.alter.errors import NotApplicableError
from kafkatui.kafka.errors import UsageError
from kafkatui.model.findings import human_bytes
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo


@dataclass(frozen=True, slots=True)
class Move:
    """Leadership of one partition moving from `leader` to `preferred`."""

    topic: str
    partition: int
    leader: int
    preferred: int

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class Skipped:
    """A partition on a non-preferred leader that a preferred election cannot move, and why."""

    topic: str
    partition: int
    leader: int
    preferred: int
    reason: str


@dataclass(frozen=True, slots=True)
class PreferredPlan:
    """What a preferred leader election would do."""

    moves: tuple[Move, ...]
    skipped: tuple[Skipped, ...]
    before: dict[int, int]  # leaders per broker now
    after: dict[int, int]  # leaders per broker once every move took place


def select_topics(snapshot: ClusterSnapshot, topics: Sequence[str], all_topics: bool) -> list[str]:
    """The topics named (UsageError for unknown ones), or every topic with ``--all``."""
    if all_topics == bool(topics):
        raise UsageError("give --topic T (repeatable) or --all")
    if all_topics:
        return sorted(snapshot.topics)
    missing = [t for t in topics if t not in snapshot.topics]
    if missing:
        raise UsageError(
            f"unknown topic {missing[0]!r}" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
        )
    return list(dict.fromkeys(topics))


def live_brokers(snapshot: ClusterSnapshot, p: PartitionInfo) -> set[int]:
    """Replicas of `p` on brokers the metadata lists and does not report offline."""
    return {r for r in p.replicas if r in snapshot.broker_ids and r not in p.offline_replicas}


def leader_counts(snapshot: ClusterSnapshot) -> dict[int, int]:
    """Partitions led per broker, every known broker listed (0 when it leads nothing)."""
    counts = {b: 0 for b in sorted(snapshot.broker_ids | snapshot.referenced_brokers())}
    for t in snapshot.topics.values():
        for p in t.partitions:
            if p.leader >= 0:
                counts[p.leader] = counts.get(p.leader, 0) + 1
    return counts


def preferred_plan(snapshot: ClusterSnapshot, topics: Iterable[str], partitions: Sequence[int] = ()) -> PreferredPlan:
    """Moves for every partition of `topics` (only `partitions` when given) off its preferred leader."""
    moves: list[Move] = []
    skipped: list[Skipped] = []
    for name in topics:
        info = snapshot.topics[name]
        known = {p.partition for p in info.partitions}
        bad = [i for i in partitions if i not in known]
        if bad:
            raise UsageError(f"topic {name} has no partition {bad[0]} (it has {len(known)})")
        for p in info.partitions:
            if partitions and p.partition not in partitions:
                continue
            if not p.replicas or p.leader == p.preferred_leader:
                continue
            pref = p.preferred_leader
            if pref not in live_brokers(snapshot, p):
                reason = f"preferred replica {pref} is down"
            elif pref not in p.isr:
                reason = f"preferred replica {pref} is not in the ISR {list(p.isr)}"
            else:
                moves.append(Move(name, p.partition, p.leader, pref))
                continue
            skipped.append(Skipped(name, p.partition, p.leader, pref, reason))
    before = leader_counts(snapshot)
    after = dict(before)
    for m in moves:
        if m.leader >= 0:
            after[m.leader] -= 1
        after[m.preferred] = after.get(m.preferred, 0) + 1
    return PreferredPlan(tuple(moves), tuple(skipped), before, after)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A live replica of an offline partition and what is known of its log."""

    broker: int
    size: int | None  # bytes on disk (DescribeLogDirs); None when unknown
    offset_lag: int | None  # offsets behind, as its broker reports it; None when unknown


@dataclass(frozen=True, slots=True)
class UncleanPlan:
    """A one-off unclean election for one offline partition."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    last_isr: tuple[int, ...]  # the ISR the metadata still shows: the replicas that had every acknowledged write
    candidates: tuple[Candidate, ...]
    from_elr: bool = False  # last_isr comes from the eligible leader replicas (KIP-966: Kafka 4.1 empties the ISR)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def likely(self) -> Candidate:
        """The candidate Kafka's controller picks: the first live replica in the replica list."""
        return self.candidates[0]


def unclean_plan(snapshot: ClusterSnapshot, topic: str, partition: int) -> UncleanPlan:
    """The plan for an unclean election of `topic`-`partition`; NotApplicableError unless it is offline
    with a live out-of-sync replica."""
    info = snapshot.topics.get(topic)
    if info is None:
        raise UsageError(f"unknown topic {topic!r}")
    found = [p for p in info.partitions if p.partition == partition]
    if not found:
        raise UsageError(f"topic {topic} has no partition {partition} (it has {len(info.partitions)})")
    p = found[0]
    name = f"{topic}-{partition}"
    listed = snapshot.broker_ids
    # offline as the health model says it: no leader, or a leader the metadata no longer lists (a
    # ZooKeeper-mode cluster can name a dead broker as leader of a partition with no live replica)
    if p.leader >= 0 and (not listed or p.leader in listed):
        raise NotApplicableError(
            f"{name} is not offline (leader {p.leader}, ISR {list(p.isr)}): an unclean election is only for a "
            "partition without a leader; nothing changed"
        )
    live = live_brokers(snapshot, p)
    if not live:
        raise NotApplicableError(
            f"{name} is offline and none of its replicas {list(p.replicas)} is alive: an election has no "
            "candidate; bring a replica's broker back; nothing changed"
        )
    logs = snapshot.log_dirs or {}
    candidates = []
    for r in p.replicas:
        if r in live:
            rl = logs.get((topic, partition, r))
            candidates.append(Candidate(r, rl.size if rl else None, rl.offset_lag if rl else None))
    last, from_elr = last_in_sync(p)
    return UncleanPlan(topic, partition, p.replicas, last, tuple(candidates), from_elr)


def last_in_sync(p: PartitionInfo) -> tuple[tuple[int, ...], bool]:
    """The replicas known to hold every acknowledged write of an offline partition: its ISR, or, where
    ELR (KIP-966, on by default from Kafka 4.1) emptied the ISR, its eligible leader replicas; True
    when they come from ELR."""
    if p.isr or not (p.elr or p.last_known_elr):
        return p.isr, False
    return tuple(dict.fromkeys((*(p.elr or ()), *(p.last_known_elr or ())))), True


def data_loss_warning(plan: UncleanPlan) -> list[str]:
    """The lines of the warning shown before an unclean election: who becomes leader, what is lost."""
    c = plan.likely
    gone = [r for r in plan.last_isr if r not in {x.broker for x in plan.candidates}]
    lines = [
        f"DATA LOSS: an unclean election makes an out-of-sync replica the leader of {plan.name}.",
        f"candidate: broker {c.broker} (replicas {list(plan.replicas)}, "
        + (
            f"ISR empty, eligible leader replicas {list(plan.last_isr)})"
            if plan.from_elr
            else f"last ISR {list(plan.last_isr)})"
        ),
    ]
    if c.offset_lag is None:
        lines.append("  how many offsets it is behind is unknown (its log dir could not be read)")
    elif c.offset_lag > 0:
        lines.append(
            f"  it is at least {c.offset_lag} offsets behind, as broker {c.broker} reports it (DescribeLogDirs)"
        )
    else:
        lines.append(
            f"  broker {c.broker} reports no offset lag, but Kafka counts it against the replica's own last "
            "known high watermark: a replica out of the ISR can show 0 and still be behind"
        )
    lines.append(
        f"  it holds {human_bytes(c.size)} ({c.size:,} bytes) of this partition"
        if c.size is not None
        else "  its size on disk is unknown"
    )
    if gone:
        lines.append(f"  the last in-sync replica(s) {gone} are down: what they hold beyond the candidate is unknown")
    for other in plan.candidates[1:]:
        lag = "?" if other.offset_lag is None else str(other.offset_lag)
        lines.append(
            f"  another live replica: broker {other.broker} ({lag} offsets behind); "
            "Kafka picks the first live replica in the replica list"
        )
    lines.append(
        "every record the candidate does not have is deleted from the partition, acknowledged writes "
        "included; consumers may see offsets go back"
    )
    return lines


def election_command(kind: str, bootstrap: str, targets: Mapping[str, Sequence[int]] | None) -> str:
    """The kafka-leader-election.sh line for the same election (`targets` None: every partition)."""
    args = ["kafka-leader-election.sh", "--bootstrap-server", bootstrap, "--election-type", kind.upper()]
    if targets is None:
        args.append("--all-topic-partitions")
    elif len(targets) == 1 and len(next(iter(targets.values()))) == 1:
        ((topic, parts),) = targets.items()
        args += ["--topic", topic, "--partition", str(parts[0])]
    else:
        import json

        doc = {"partitions": [{"topic": t, "partition": i} for t, ps in targets.items() for i in ps]}
        return (
            "echo "
            + shlex.quote(json.dumps(doc))
            + " > elect.json && "
            + shlex.join(args + ["--path-to-json-file", "elect.json"])
        )
    return shlex.join(args)
