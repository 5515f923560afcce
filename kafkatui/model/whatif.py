"""What happens to the partitions if some brokers go down, and whether one broker can be restarted.

Rules:

- Brokers absent from metadata are already down; `down` adds to them. Only partitions that have a
  leader now can change (already-offline ones are counted apart).
- Leader election is clean: when the leader goes down the first remaining live ISR member (in
  replica order) leads. A partition whose live ISR becomes empty is **offline**: it has lost its last
  in-sync copy. When its topic has unclean election enabled and a live out-of-sync replica remains,
  Kafka would instead elect that replica and truncate: such partitions stay in `offline` but carry
  ``unclean_possible`` and the note "could elect an out-of-sync replica (data loss)".
- **under minISR**: still led, live ISR below minISR, and not below minISR before (newly failing
  acks=all writes). Partitions already under minISR are not counted again unless they go offline.
- **single in-sync copy**: still led with exactly one live ISR member where there were more:
  acks=all is now no safer than acks=1 and one more failure takes them offline.
- Restart safety (the check Strimzi's rolling restart makes) is `kafkatui.model.restart_rule`, the rule
  of the dashboard's "restart now" and of the restart gate: it refuses a restart that would leave any
  partition on the broker under minISR or offline, *including* one already under minISR (its writes
  fail until it catches up). Unlike Strimzi, which lets topics with minISR >= RF roll because they
  could never roll otherwise, this reports them as unsafe: the restart does block their writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kafkatui.model import rules
from kafkatui.model.health import effective_min_isr, effective_unclean
from kafkatui.model.mode import snapshot_mode, words
from kafkatui.model.restart_rule import Impact, kept_in_sync, restart_impact
from kafkatui.model.snapshot import ClusterSnapshot

UNCLEAN_NOTE = "could elect an out-of-sync replica (data loss)"


@dataclass(frozen=True, slots=True)
class PartitionImpact:
    """One partition the brokers going down would hurt."""

    topic: str
    partition: int
    leader_before: int
    leader_after: int  # -1: offline
    live_isr: tuple[int, ...]  # ISR members still up afterwards
    min_isr: int
    unclean_possible: bool = False  # unclean election on and a live out-of-sync replica remains
    note: str = ""

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class TopicImpact:
    """Per-topic counts of a what-if."""

    topic: str
    offline: int = 0
    under_min_isr: int = 0
    single_in_sync_copy: int = 0


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The outcome of taking `down` (plus the already-absent brokers) down."""

    down: frozenset[int]
    already_down: frozenset[int]
    offline: tuple[PartitionImpact, ...]
    under_min_isr: tuple[PartitionImpact, ...]
    single_in_sync_copy: tuple[PartitionImpact, ...]
    leaders_moved: int
    already_offline: int
    already_under_min_isr: int
    topics: dict[str, TopicImpact] = field(default_factory=dict)

    @property
    def safe(self) -> bool:
        """No partition goes offline or under minISR."""
        return not self.offline and not self.under_min_isr

    @property
    def lost_last_in_sync_copy(self) -> tuple[PartitionImpact, ...]:
        """Partitions left without any live in-sync copy (the same set as `offline`)."""
        return self.offline

    def summary(self) -> str:
        """One line: what taking the brokers down does."""
        who = "broker " + _ids(self.down) if len(self.down) == 1 else "brokers " + _ids(self.down)
        if self.safe:
            return f"taking {who} down keeps every partition online and at or above minISR"
        parts = []
        if self.under_min_isr:
            parts.append(f"puts {_of(self.under_min_isr)} under minISR")
        if self.offline:
            unclean = sum(1 for p in self.offline if p.unclean_possible)
            extra = f" ({unclean} {UNCLEAN_NOTE})" if unclean else ""
            parts.append(f"takes {_of(self.offline)} offline{extra}")
        return f"taking {who} down " + " and ".join(parts)


@dataclass(frozen=True, slots=True)
class RestartSafety:
    """Whether one broker can be restarted now without hurting acks=all producers."""

    broker: int
    safe: bool
    under_min_isr: int
    offline: int
    topics: tuple[str, ...]  # topics with a partition going under minISR or offline
    message: str


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(str(i) for i in sorted(ids))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _of(impacts: tuple[PartitionImpact, ...]) -> str:
    """ "41 partitions of 7 topics"."""
    return f"{_plural(len(impacts), 'partition')} of {_plural(len({p.topic for p in impacts}), 'topic')}"


def what_if(snapshot: ClusterSnapshot, down: set[int] | frozenset[int]) -> WhatIf:
    """Take `down` down in addition to the brokers already down: absent from metadata, or listed but
    refusing connections (their ISRs lose them when the controller fences them)."""
    live_now = snapshot.broker_ids
    already = (snapshot.referenced_brokers() - live_now) | (snapshot.refused & live_now)
    gone = frozenset(down) | already
    check_leader = bool(live_now)
    offline: list[PartitionImpact] = []
    under: list[PartitionImpact] = []
    single: list[PartitionImpact] = []
    per_topic: dict[str, list[int]] = {}
    moved = already_off = already_under = 0
    capped = snapshot.kafka.capped
    for name in sorted(snapshot.topics):
        t = snapshot.topics[name]
        configured, _ = effective_min_isr(snapshot, name)
        unclean: bool | None = None
        for p in t.partitions:
            # what the leader enforces: capped at RF by 3.7+ brokers (`kafkatui.model.rules`)
            min_isr = rules.effective_min_isr(configured, len(p.replicas), capped)
            leader = p.leader
            if leader < 0 or (check_leader and leader not in live_now):
                already_off += 1
                continue
            isr = p.isr
            before = [b for b in isr if b not in already] if already and not already.isdisjoint(isr) else isr
            if leader in already:  # led by a broker refusing connections: its fencing elects another
                if not before:
                    already_off += 1
                    continue
                leader = next((r for r in p.replicas if r in before), before[0])
            if len(before) < min_isr:
                already_under += 1
            if gone.isdisjoint(isr) and leader not in gone:
                continue
            after = tuple(b for b in before if b not in gone)
            n_before, n_after = len(before), len(after)
            if leader in gone:
                new_leader = next((r for r in p.replicas if r in after), after[0] if after else -1)
                if new_leader >= 0:
                    moved += 1
            else:
                new_leader = leader
            if n_after == n_before and new_leader == leader:
                continue
            counts = per_topic.setdefault(name, [0, 0, 0])
            if n_after == 0 or new_leader < 0:
                if unclean is None:
                    unclean = effective_unclean(snapshot, name)[0]
                candidates = unclean and any(r not in gone and r in live_now for r in p.replicas)
                offline.append(
                    PartitionImpact(
                        name,
                        p.partition,
                        leader,
                        -1,
                        after,
                        min_isr,
                        bool(candidates),
                        UNCLEAN_NOTE if candidates else "",
                    )
                )
                counts[0] += 1
                continue
            impact = PartitionImpact(name, p.partition, leader, new_leader, after, min_isr)
            if n_after < min_isr <= n_before:
                under.append(impact)
                counts[1] += 1
            if n_after == 1 < n_before:
                single.append(impact)
                counts[2] += 1
    topics = {n: TopicImpact(n, *c) for n, c in per_topic.items() if any(c)}
    return WhatIf(
        frozenset(down),
        frozenset(already),
        tuple(offline),
        tuple(under),
        tuple(single),
        moved,
        already_off,
        already_under,
        topics,
    )


def restart_safety(snapshot: ClusterSnapshot, broker_id: int) -> RestartSafety:
    """Is restarting `broker_id` now safe? Refused when any partition would go under minISR or offline."""
    if broker_id in snapshot.unresponsive:  # its port takes connections: frozen, not crashed
        return RestartSafety(
            broker_id,
            False,
            0,
            0,
            (),
            f"broker {broker_id} is not answering but accepts connections: frozen, not crashed (a GC pause or "
            "a stuck disk): look before restarting (its GC log, iostat, dmesg, a thread dump with jstack)",
        )
    if broker_id not in snapshot.broker_ids:
        if broker_id not in snapshot.referenced_brokers():
            return RestartSafety(
                broker_id, True, 0, 0, (), f"broker {broker_id} is not in metadata and holds no replica"
            )
        return RestartSafety(
            broker_id,
            True,
            0,
            0,
            (),
            f"broker {broker_id} is frozen (accepts connections, does not answer) and out of the metadata: "
            "look at it before restarting it (GC log, jstack, disks); it may answer again by itself"
            if broker_id in snapshot.unresponsive
            else f"broker {broker_id} is already down (absent from metadata): restarting it can only help",
        )
    if broker_id in snapshot.refused:
        return RestartSafety(
            broker_id,
            True,
            0,
            0,
            (),
            f"broker {broker_id} is already down (it refuses connections; "
            f"{words(snapshot_mode(snapshot)).not_yet_removed} yet): starting it again can only help",
        )
    live_now = snapshot.broker_ids
    serving = live_now - snapshot.refused
    capped = snapshot.kafka.capped
    # per impact: [partitions], [those already so before the restart]
    hit: dict[Impact, tuple[list[PartitionImpact], list[PartitionImpact]]] = {
        Impact.UNDER_MIN_ISR: ([], []),
        Impact.OFFLINE: ([], []),
    }
    for name in sorted(snapshot.topics):
        configured: int | None = None
        for p in snapshot.topics[name].partitions:
            if broker_id not in p.replicas:
                continue
            if configured is None:
                configured = effective_min_isr(snapshot, name)[0]
            min_isr = rules.effective_min_isr(configured, len(p.replicas), capped)
            led = p.leader >= 0 and (not live_now or p.leader in live_now)
            kept = kept_in_sync(p.isr, broker_id, serving, led)
            impact = restart_impact(kept, min_isr)
            if not impact:
                continue
            after = tuple(b for b in p.isr if b != broker_id and b in serving) if kept else ()
            stays = p.leader != broker_id and p.leader in after
            new_leader = p.leader if stays else next((r for r in p.replicas if r in after), -1)
            part = PartitionImpact(name, p.partition, p.leader, new_leader, after, min_isr)
            before = kept + (broker_id in p.isr and led)
            was_so = before == 0 if impact == Impact.OFFLINE else before < min_isr
            hit[impact][0].append(part)
            if was_so:
                hit[impact][1].append(part)
    under, offline = hit[Impact.UNDER_MIN_ISR][0], hit[Impact.OFFLINE][0]
    topics = tuple(sorted({p.topic for p in under + offline}))
    if not under and not offline:
        msg = f"restarting broker {broker_id} now keeps every partition online and at or above minISR"
    else:
        newly, held = [], []
        for impact, verb, state in (
            (Impact.UNDER_MIN_ISR, "puts", "under minISR"),
            (Impact.OFFLINE, "takes", "offline"),
        ):
            all_, already = hit[impact]
            fresh = tuple(p for p in all_ if p not in already)
            if fresh:
                newly.append(f"{verb} {_of(fresh)} {state}")
            if already:
                held.append(f"{_of(tuple(already))} already {state}")
        held_text = " and ".join(held)
        if newly:
            msg = f"restarting broker {broker_id} now " + " and ".join(newly)
            msg += f"; it also holds {held_text}" if held else ""
        else:
            msg = f"broker {broker_id} holds {held_text}: wait until they are in sync again before restarting it"
    return RestartSafety(broker_id, not under and not offline, len(under), len(offline), topics, msg)
