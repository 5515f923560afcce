"""The restart gate: may broker B be restarted *now*, with K in-sync replicas to spare?

`gate(report, broker, headroom, quorum)` judges one snapshot (the caller re-reads and asks again):

- Every partition with a replica on B must keep, without B, an ISR of at least its effective min ISR
  + K among the brokers that serve now (listed and taking connections): `kafkatui.model.restart_rule`,
  the rule the dashboard's "restart now" uses too (there with K = 0). A partition already under that
  (a broker restarted a moment ago still catching up, a follower out of sync) is *not yet safe*.
- The verdict also requires the dashboard's answer (`BrokerHealth.restart_safe`) to agree: with one
  rule the two cannot differ, and a difference would refuse rather than let a broker go.
- Waiting cannot help (`hopeless`) when a partition on B has too few replicas for any ISR to leave
  enough behind: ``RF - 1 < min ISR + K`` (RF 1, min ISR = RF, min ISR above RF, or a headroom its RF
  cannot give). Only a config or reassignment fixes those.
- The controller side: on KRaft a quorum leader and a majority of voters caught up, not counting B if
  it is a voter; on ZooKeeper clusters the controller broker serving. Judged by the caller's reader
  (`Quorum`); None when unknown, which is not safe.

Partitions without a replica on B are not judged: restarting B cannot change them. A broker absent
from metadata is down for this judgement; a broker restarted a moment ago looks exactly like a dead
one, so an absent broker makes partitions *not yet safe* (the deadline ends the wait), never hopeless.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkatui.model import rules
from kafkatui.model.health import HealthReport, OutOfSyncReplica, effective_min_isr
from kafkatui.model.restart_rule import kept_in_sync, restart_impact


@dataclass(frozen=True, slots=True)
class Quorum:
    """The controller side of a cluster, as one read found it."""

    kind: str  # "kraft" or "zookeeper"
    healthy: bool
    detail: str  # one line: the leader, voters caught up, or why not


@dataclass(frozen=True, slots=True)
class Blocker:
    """One partition on the broker that a restart now would leave short (or always will)."""

    topic: str
    partition: int
    leader: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    min_isr: int
    needed: int  # min ISR + headroom
    left: int  # in-sync replicas that would remain, serving, without the broker
    hopeless: bool  # RF - 1 < needed: waiting cannot help
    lag: tuple[OutOfSyncReplica, ...]  # its out-of-sync followers, with lag when known

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def short_by(self) -> int:
        return self.needed - self.left

    def describe(self) -> str:
        """`orders-3 ISR [2,3] leader 2: 1 would remain, needs 2; follower 1 lags 1,234 messages`."""
        isr = ",".join(map(str, self.isr))
        text = f"{self.name} ISR [{isr}] leader {self.leader}: {self.left} in sync would remain, needs {self.needed}"
        if self.hopeless:
            text += f" (RF {len(self.replicas)}: it never can)"
        lags = []
        for r in self.lag:
            if not r.up:
                lags.append(f"broker {r.broker} down")
            elif r.offset_lag is not None:
                lags.append(f"follower {r.broker} lags {r.offset_lag:,} messages")
            elif r.byte_lag is not None:
                lags.append(f"follower {r.broker} lags {r.byte_lag:,} bytes")
            else:
                lags.append(f"follower {r.broker} out of sync")
        return text + ("; " + ", ".join(lags) if lags else "")


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """Whether restarting `broker` now is safe, and what it waits for if not."""

    broker: int
    headroom: int
    safe: bool
    hopeless: bool
    model_safe: bool  # the dashboard's "restart now" (BrokerHealth.restart_safe)
    hosted: int  # partitions with a replica on the broker
    blockers: tuple[Blocker, ...]  # worst first
    quorum: Quorum | None
    problems: tuple[str, ...]  # cluster-level reasons (the broker itself, the quorum, absent brokers)

    @property
    def waiting_on(self) -> int:
        """Partitions not yet safe."""
        return len(self.blockers)

    def summary(self) -> str:
        """One line for people and logs."""
        b = self.broker
        if self.safe:
            spare = f" with {self.headroom} to spare" if self.headroom else ""
            return (
                f"broker {b} can be restarted now: each of its {self.hosted} partitions keeps its min ISR "
                f"in sync{spare}" + (f"; {self.quorum.detail}" if self.quorum else "")
            )
        if self.hopeless:
            n = sum(1 for x in self.blockers if x.hopeless)
            topics = sorted({x.topic for x in self.blockers if x.hopeless})
            return (
                f"broker {b} cannot be restarted safely however long you wait: {n} partition(s) of "
                f"{', '.join(topics[:5])}{' ...' if len(topics) > 5 else ''} have too few replicas to keep "
                f"min ISR{' + ' + str(self.headroom) if self.headroom else ''} in sync without it"
            )
        parts = []
        if self.blockers:
            parts.append(f"{len(self.blockers)} partition(s) not yet safe")
        parts.extend(self.problems)
        return f"broker {b} not yet safe to restart: " + "; ".join(parts)


def gate(report: HealthReport, broker: int, headroom: int = 0, quorum: Quorum | None = None) -> GateVerdict:
    """Judge restarting `broker` now against one snapshot's `report` (see the module docstring)."""
    snap = report.snapshot
    refused = snap.refused
    capped = snap.kafka.capped
    serving = frozenset(b for b in report.live if b not in refused)
    blockers: list[Blocker] = []
    hosted = 0
    for name in sorted(snap.topics):
        topic = snap.topics[name]
        configured: int | None = None
        for p in topic.partitions:
            if broker not in p.replicas:
                continue
            hosted += 1
            if configured is None:
                configured = effective_min_isr(snap, name)[0]
            # what the leader enforces (capped at RF on 3.7+), as the dashboard counts it
            min_isr = rules.effective_min_isr(configured, len(p.replicas), capped)
            needed = min_isr + headroom
            led = p.leader >= 0 and (not report.live or p.leader in report.live)
            left = kept_in_sync(p.isr, broker, serving, led)
            hopeless = len(p.replicas) - 1 < needed
            if restart_impact(left, min_isr, headroom) or hopeless:
                blockers.append(
                    Blocker(name, p.partition, p.leader, p.replicas, p.isr, min_isr, needed, left, hopeless,
                            report.out_of_sync(p))
                )  # fmt: skip
    blockers.sort(key=lambda x: (not x.hopeless, -x.short_by, x.topic, x.partition))
    problems: list[str] = []
    bh = report.brokers.get(broker)
    if bh is None or bh.absent:
        problems.append(f"broker {broker} is not in the cluster's metadata (down, or still starting)")
    elif bh.refused:
        problems.append(f"broker {broker} refuses connections (down, not yet fenced)")
    if quorum is None:
        problems.append("controller state unknown")
    elif not quorum.healthy:
        problems.append(quorum.detail)
    model_safe = bh is not None and bh.restart_safe
    if not model_safe and not blockers and bh is not None:
        problems.append(
            f"the dashboard's restart analysis refuses it ({bh.restart_under_min_isr} under min ISR, "
            f"{bh.restart_offline} offline)"
        )
    hopeless = any(x.hopeless for x in blockers)
    safe = not blockers and not problems
    return GateVerdict(broker, headroom, safe, hopeless, model_safe, hosted, tuple(blockers), quorum, tuple(problems))


def zookeeper_quorum(report: HealthReport) -> Quorum:
    """A ZooKeeper-mode cluster's controller side: the controller broker is known and serving."""
    cid = report.snapshot.controller_id
    if cid < 0:
        return Quorum("zookeeper", False, "no active controller in the metadata")
    b = report.brokers.get(cid)
    if b is None or not b.serving:
        return Quorum("zookeeper", False, f"controller broker {cid} is down")
    return Quorum("zookeeper", True, f"controller broker {cid} up")


def kraft_quorum(answer: dict[str, object], broker: int | None, max_lag: int) -> Quorum:
    """The KRaft controller quorum from a DescribeQuorum answer (kafka-python's describe_metadata_quorum):
    healthy when it has a leader and a majority of its voters, not counting `broker` (it is about to
    go), are within `max_lag` records of the leader's log end."""
    topics = answer.get("topics") or []
    try:
        part = topics[0]["partitions"][0]  # type: ignore[index]
        leader = int(part["leader_id"])
        voters = list(part["current_voters"])
    except (IndexError, KeyError, TypeError, ValueError):
        return Quorum("kraft", False, "controller quorum: the answer named no partition")
    if leader < 0:
        return Quorum("kraft", False, "controller quorum has no leader")
    ends = {int(v["replica_id"]): int(v["log_end_offset"]) for v in voters}
    top = ends.get(leader, max(ends.values(), default=-1))
    caught = sorted(v for v, end in ends.items() if end >= 0 and top - end <= max_lag)
    need = len(ends) // 2 + 1
    counted = [v for v in caught if v != broker]
    behind = sorted(set(ends) - set(caught))
    lagging = f"; behind: {', '.join(f'{v} ({top - ends[v]} records)' for v in behind)}" if behind else ""
    detail = f"controller quorum leader {leader}, {len(caught)}/{len(ends)} voters caught up{lagging}"
    if len(counted) < need:
        without = f" without broker {broker}" if broker in caught else ""
        return Quorum("kraft", False, f"{detail}: fewer than {need} would remain caught up{without}")
    return Quorum("kraft", True, detail)


def is_kraft(report: HealthReport) -> bool:
    """Whether the brokers say they run in KRaft mode (process.roles set)."""
    roles = [c.get("process.roles") for c in report.snapshot.broker_configs.values()]
    return any(r is not None and r.value for r in roles)
