"""Which broker brings a leaderless partition back, in the order the controller elects.

KRaft's `PartitionChangeBuilder.electAnyLeader` takes, in replica order, the first unfenced broker that
is in the ISR or, when the ISR is empty (only with ELR, KIP-966, on by default from Kafka 4.1), in the
ELR; failing that, the last known leader (the one member of the last known ELR, with both sets empty);
failing that, an unclean election, when the topic allows it or someone runs one.

* Without ELR (Kafka 3.x and 4.0 by default) the controller keeps the last in-sync replica in the ISR
  of a partition that lost its leader (`Leader: none ... Isr: 3`): that broker brings it back with every
  acknowledged write.
* With ELR the ISR may be empty and the brokers that still hold every acknowledged write are in the
  ELR: one of them brings it back. A broker missing from both was out of sync, and coming back it only
  joins as a follower: "bring back one of brokers 2, 3" when only 3 helps is the advice this module
  exists to avoid.
* With ELR and both sets empty, the last known leader takes the partition back when it returns.

`next_leaders` answers for one partition; `restore_advice` words it for a finding or a screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kafkatui.model.snapshot import PartitionInfo

IN_ISR = "isr"
IN_ELR = "elr"
LAST_LEADER = "last-leader"
UNCLEAN = "unclean"

WHY = {
    IN_ISR: "it is the last in-sync replica: it becomes leader with every acknowledged write",
    IN_ELR: "it is the eligible leader replica (KIP-966): it becomes leader with every acknowledged write",
    LAST_LEADER: "it was the last leader (KIP-966 last known ELR): it takes the partition back",
    UNCLEAN: "no in-sync or eligible replica is known: only an unclean election elects one (writes it missed are lost)",
}
WHY_MANY = {
    IN_ISR: "they are the last in-sync replicas: the first back becomes leader with every acknowledged write",
    IN_ELR: "they are the eligible leader replicas (KIP-966): the first back becomes leader with every "
    "acknowledged write",
    LAST_LEADER: WHY[LAST_LEADER],
    UNCLEAN: WHY[UNCLEAN],
}


@dataclass(frozen=True, slots=True)
class NextLeader:
    """The brokers that can lead a leaderless partition next, in the controller's order, and why."""

    brokers: tuple[int, ...]  # in replica order: the first one back leads
    rule: str  # IN_ISR, IN_ELR, LAST_LEADER or UNCLEAN

    @property
    def clean(self) -> bool:
        """True when the broker named holds every acknowledged write."""
        return self.rule in (IN_ISR, IN_ELR)

    @property
    def why(self) -> str:
        return (WHY if len(self.brokers) == 1 else WHY_MANY)[self.rule]


def _in_replica_order(p: PartitionInfo, members: Iterable[int]) -> tuple[int, ...]:
    wanted = set(members)
    ordered = [r for r in p.replicas if r in wanted]
    return tuple(ordered + sorted(wanted.difference(ordered)))


def next_leaders(p: PartitionInfo) -> NextLeader:
    """Who brings `p` (a partition without a leader) back, by Kafka's election order."""
    if p.isr:
        return NextLeader(_in_replica_order(p, p.isr), IN_ISR)
    if p.elr:
        return NextLeader(_in_replica_order(p, p.elr), IN_ELR)
    if p.last_known_elr and len(p.last_known_elr) == 1:
        return NextLeader(tuple(p.last_known_elr), LAST_LEADER)
    return NextLeader(tuple(p.replicas), UNCLEAN)


def _brokers(ids: tuple[int, ...]) -> str:
    if len(ids) == 1:
        return f"broker {ids[0]}"
    return "broker " + ", ".join(map(str, ids[:-1])) + f" or {ids[-1]}"


def restore_advice(parts: Iterable[PartitionInfo], limit: int = 3) -> str:
    """'bring back broker 3: it is the eligible leader replica (KIP-966): ...' for leaderless partitions,
    grouped by answer ('for orders-1, orders-5'), the groups holding most partitions first."""
    groups: dict[NextLeader, list[str]] = {}
    for p in parts:
        groups.setdefault(next_leaders(p), []).append(f"{p.topic}-{p.partition}")
    ranked = sorted(groups.items(), key=lambda kv: (not kv[0].clean, -len(kv[1]), kv[0].brokers))
    if len(ranked) == 1:
        ((nl, _),) = ranked
        return f"bring back {_brokers(nl.brokers)}: {nl.why}"
    lines = []
    for nl, names in ranked[:limit]:
        shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
        lines.append(f"for {shown}, bring back {_brokers(nl.brokers)}: {nl.why}")
    if len(ranked) > limit:
        lines.append(f"and {len(ranked) - limit} more group(s) of partitions (see each partition's screen)")
    return "; ".join(lines)


def restore_brokers(parts: Iterable[PartitionInfo]) -> set[int]:
    """Every broker whose return brings one of `parts` back without an unclean election."""
    out: set[int] = set()
    for p in parts:
        nl = next_leaders(p)
        if nl.rule != UNCLEAN:
            out.update(nl.brokers)
    return out
