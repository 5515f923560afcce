"""What changed between two snapshots: ISR shrinks and expansions, leader moves, brokers coming and going.

The dashboard's events pane and the history recorder both read these. Pure: no textual, no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kafkatui.model.mode import snapshot_mode, words
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo, Partitions


class ChangeKind(StrEnum):
    BROKER_UP = "broker up"
    BROKER_DOWN = "broker down"
    CONTROLLER = "controller"
    ISR_SHRINK = "ISR shrink"
    ISR_EXPAND = "ISR expand"
    LEADER = "leader"
    OFFLINE = "offline"
    ONLINE = "online"
    TOPIC_ADDED = "topic added"
    TOPIC_REMOVED = "topic removed"


@dataclass(frozen=True, slots=True)
class Change:
    """One change seen between two refreshes, stamped with the newer snapshot's time."""

    at: float
    kind: ChangeKind
    text: str
    topic: str | None = None
    partition: int | None = None
    broker: int | None = None

    @property
    def severe(self) -> bool:
        return self.kind in (ChangeKind.BROKER_DOWN, ChangeKind.OFFLINE, ChangeKind.ISR_SHRINK)


def _ids(ids: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, ids)) + "]"


def diff(old: ClusterSnapshot | None, new: ClusterSnapshot) -> list[Change]:
    """Changes from `old` to `new` (none for the first snapshot)."""
    if old is None:
        return []
    at = new.taken_at
    out: list[Change] = []
    old_b, new_b = old.broker_ids, new.broker_ids
    for b in sorted(old_b - new_b):
        out.append(Change(at, ChangeKind.BROKER_DOWN, f"broker {b} left the cluster metadata", broker=b))
    for b in sorted(new_b - old_b):
        out.append(Change(at, ChangeKind.BROKER_UP, f"broker {b} joined the cluster metadata", broker=b))
    for b in sorted((new.refused - old.refused) & new_b):
        text = f"broker {b} refuses connections: down, listed until {words(snapshot_mode(new)).listed_until}"
        out.append(Change(at, ChangeKind.BROKER_DOWN, text, broker=b))
    for b in sorted((old.refused - new.refused) & new_b & old_b):
        out.append(Change(at, ChangeKind.BROKER_UP, f"broker {b} takes connections again", broker=b))
    if old.controller_id != new.controller_id:
        out.append(
            Change(
                at,
                ChangeKind.CONTROLLER,
                f"controller {old.controller_id} -> {new.controller_id}",
                broker=new.controller_id,
            )
        )
    for name in sorted(set(old.topics) - set(new.topics)):
        out.append(Change(at, ChangeKind.TOPIC_REMOVED, f"topic {name} deleted", topic=name))
    transitions: dict[tuple[int, int], list[tuple[ChangeKind, str, int]]] = {}
    for name, topic in new.topics.items():
        before = old.topics.get(name)
        if before is None:
            out.append(
                Change(
                    at, ChangeKind.TOPIC_ADDED, f"topic {name} created ({len(topic.partitions)} partitions)", topic=name
                )
            )
            continue
        if before.partitions is topic.partitions:
            continue
        olds = before.partitions
        news = topic.partitions
        if isinstance(news, Partitions) and isinstance(olds, Partitions) and news.table is olds.table:
            # columns of one state table: equal state ids are equal leaders, replicas and ISRs
            if olds.states == news.states:
                continue
            # from the table's states, without a partition view each: many partitions share a transition
            # (a broker leaving thousands of ISRs at once), whose texts are made once
            states, ids = news.table.states, news.ids
            for i in [i for i, (a, b) in enumerate(zip(olds.states, news.states, strict=False)) if a != b]:
                key = (olds.states[i], news.states[i])
                made = transitions.get(key)
                if made is None:
                    (ql, _, qi), (pl, _, pi) = states[key[0]], states[key[1]]
                    made = transitions[key] = _transition(ql, qi, pl, pi, old.refused)
                if made:
                    pid = ids[i]
                    prefix = f"{name}-{pid} "
                    out.extend(Change(at, kind, prefix + text, name, pid, broker) for kind, text, broker in made)
            continue
        for i, p in enumerate(news):
            if i < len(olds):
                q = olds[i]
                if q.isr != p.isr or q.leader != p.leader:
                    out.extend(_partition_changes(at, q, p, old.refused))
    return out


def _partition_changes(
    at: float, q: PartitionInfo, p: PartitionInfo, refused: frozenset[int] = frozenset()
) -> list[Change]:
    prefix = f"{p.topic}-{p.partition} "
    return [
        Change(at, kind, prefix + text, p.topic, p.partition, broker)
        for kind, text, broker in _transition(q.leader, q.isr, p.leader, p.isr, refused)
    ]


def _transition(
    q_leader: int, q_isr: tuple[int, ...], p_leader: int, p_isr: tuple[int, ...], refused: frozenset[int]
) -> list[tuple[ChangeKind, str, int]]:
    """What one partition's move from (leader, ISR) `q` to `p` shows: (kind, text after its name, broker)."""
    out: list[tuple[ChangeKind, str, int]] = []
    if q_leader != p_leader:
        if p_leader == -1:
            out.append((ChangeKind.OFFLINE, f"OFFLINE (leader {q_leader} lost, ISR {_ids(p_isr)})", q_leader))
        elif q_leader == -1:
            out.append((ChangeKind.ONLINE, f"back online, leader {p_leader}", p_leader))
        else:
            text = f"leader {q_leader} -> {p_leader}"
            if q_leader in refused:  # it was led by a dead broker not yet fenced: writes failed until now
                text += f": leadership moved off down broker {q_leader}, writes resume"
            out.append((ChangeKind.LEADER, text, p_leader))
    gone = [r for r in q_isr if r not in p_isr]
    came = [r for r in p_isr if r not in q_isr]
    if gone:
        out.append((ChangeKind.ISR_SHRINK, f"ISR {_ids(q_isr)} -> {_ids(p_isr)} (out: {_ids(tuple(gone))})", gone[0]))
    if came:
        out.append((ChangeKind.ISR_EXPAND, f"ISR {_ids(q_isr)} -> {_ids(p_isr)} (in: {_ids(tuple(came))})", came[0]))
    return out


def summarize(changes: list[Change], limit: int = 6) -> list[Change]:
    """Bursts of one kind become one line each, so a broker dying does not flood the pane."""
    by_kind: dict[ChangeKind, list[Change]] = {}
    for c in changes:
        by_kind.setdefault(c.kind, []).append(c)
    out: list[Change] = []
    for kind, items in by_kind.items():
        if len(items) <= limit:
            out.extend(items)
            continue
        brokers = sorted({c.broker for c in items if c.broker is not None})
        topics = sorted({c.topic for c in items if c.topic})
        who = f" (brokers {', '.join(map(str, brokers))})" if brokers else ""
        shown = ", ".join(topics[:3]) + (f" +{len(topics) - 3}" if len(topics) > 3 else "")
        out.append(Change(items[0].at, kind, f"{len(items)} x {kind.value}{who} in {shown}"))
    return out
