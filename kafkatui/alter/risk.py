"""Pure risk analysis of a `ChangePlan` against a live snapshot, and the durability wizard.

Durability arithmetic (see KAFKA-FACTS.md): acknowledged acks=all writes survive N broker failures
when RF >= N+1 and minISR >= N+1; acks=all writes stay available through RF - minISR failures. The
wizard's recommendations keep 2 <= minISR < RF (what the findings' audit accepts); lowering minISR is a
risk line saying how many failures acknowledged writes then survive.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kafkatui.alter.plan import ChangePlan, ConfigChange
from kafkatui.model import rules
from kafkatui.model.health import HealthReport
from kafkatui.model.snapshot import (
    ASSUMED_DEFAULT,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
    KAFKA_DEFAULTS,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
)

MAX_TOPIC_LINES = 5
"""Broker-level changes list risks for this many topics, then say how many more."""

STRIMZI_PREFIXES = ("strimzi", "__strimzi")


@dataclass(frozen=True, slots=True)
class ChangePreview:
    """One change as the preview shows it: current value and source, new value, risks."""

    change: ConfigChange
    current: ConfigValue
    risks: tuple[str, ...]


def strimzi_managed(topic: str, flag: bool = False) -> bool:
    """True when the user says so (``--strimzi``) or the topic is one of Strimzi's own."""
    return flag or topic.lower().startswith(STRIMZI_PREFIXES)


def current_value(snapshot: ClusterSnapshot, change: ConfigChange) -> ConfigValue:
    """The value a change replaces, with its source, as the snapshot shows it."""
    if change.kind == "topic":
        return snapshot.topic_config(change.name, change.key)
    if change.kind == "broker":
        cv = snapshot.broker_configs.get(int(change.name), {}).get(change.key)
        return cv if cv is not None else ConfigValue(KAFKA_DEFAULTS.get(change.key), ASSUMED_DEFAULT)
    return default_broker_value(snapshot, change.key)


def default_broker_value(snapshot: ClusterSnapshot, key: str) -> ConfigValue:
    """The cluster-wide broker value: a dynamic default if a broker reports one, else a broker without
    a per-broker override, else the snapshot's broker value."""
    per_broker = [snapshot.broker_configs[b].get(key) for b in sorted(snapshot.broker_configs)]
    values = [cv for cv in per_broker if cv is not None]
    for cv in values:
        if cv.source == DYNAMIC_DEFAULT_BROKER_CONFIG:
            return cv
    for cv in values:
        if cv.source != DYNAMIC_BROKER_CONFIG:
            return cv
    return snapshot.broker_config(key)


def _effective_new(snapshot: ClusterSnapshot, change: ConfigChange) -> str | None:
    """The value in force after the change (a DELETE falls back one level)."""
    if change.value is not None:
        return change.value
    if change.kind == "topic":
        return snapshot.broker_config(change.key).value
    if change.kind == "broker":
        return (
            default_broker_value(snapshot, change.key).value
            if _has_default(snapshot, change.key)
            else (KAFKA_DEFAULTS.get(change.key))
        )
    return KAFKA_DEFAULTS.get(change.key)


def _has_default(snapshot: ClusterSnapshot, key: str) -> bool:
    return any(
        c.get(key) is not None and c[key].source == DYNAMIC_DEFAULT_BROKER_CONFIG
        for c in snapshot.broker_configs.values()
    )


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _affected(snapshot: ClusterSnapshot, change: ConfigChange) -> dict[str, list[PartitionInfo]]:
    """Partitions whose effective value the change sets: the topic's, or for broker-level changes the
    partitions without a topic override led by the broker (any broker without its own override)."""
    if change.kind == "topic":
        t = snapshot.topics.get(change.name)
        return {change.name: list(t.partitions)} if t is not None else {}
    out: dict[str, list[PartitionInfo]] = {}
    for name in sorted(snapshot.topics):
        t = snapshot.topics[name]
        cv = t.configs.get(change.key)
        if cv is not None and cv.source == DYNAMIC_TOPIC_CONFIG:
            continue
        if change.kind == "broker":
            parts = [p for p in t.partitions if p.leader == int(change.name)]
        else:
            parts = [
                p
                for p in t.partitions
                if (snapshot.broker_configs.get(p.leader, {}).get(change.key) or ConfigValue(None)).source
                != DYNAMIC_BROKER_CONFIG
            ]
        if parts:
            out[name] = parts
    return out


def min_isr_risks(topic: str, parts: list[PartitionInfo], old: int | None, new: int, capped: bool = False) -> list[str]:
    """Risks of an effective min.insync.replicas of `new` (was `old`) on one topic's partitions;
    `capped`: the brokers hold acks=all to min(min ISR, RF) (3.7+, `kafkatui.model.rules`)."""
    out: list[str] = []
    led = [p for p in parts if p.leader >= 0]
    if old is not None and new > old:
        short = [p for p in led if len(p.isr) < rules.effective_min_isr(new, len(p.replicas), capped)]
        if short:
            sizes = sorted({len(p.isr) for p in short})
            isr = f"ISR {sizes[0]}" if len(sizes) == 1 else f"ISR below {new} (as low as {sizes[0]})"
            n = len(short)
            out.append(
                f"raising min.insync.replicas to {new} on {topic}: {n} partition{'s' if n != 1 else ''} "
                f"{'have' if n != 1 else 'has'} {isr} now, acks=all producers will fail at once"
            )
    rfs = [len(p.replicas) for p in parts if p.replicas]
    if rfs:
        rf = min(rfs)
        if new > rf and capped:
            out.append(
                f"min.insync.replicas > RF ({rf}): 3.7+ brokers hold acks=all to RF {rf}, fewer copies than "
                "the config says (brokers before 3.7 reject every acks=all write)"
            )
        elif new > rf:
            out.append(f"min.insync.replicas > RF ({rf}): every acks=all write fails")
        elif new == rf:
            out.append(f"min.insync.replicas >= RF ({rf}): any broker loss stops acks=all writes")
        if new == 1 and (old is None or old > 1) and rf >= 2:
            out.append("lowering min.insync.replicas to 1: acks=all acknowledged by the leader alone")
        elif old is not None and 1 < new < old:
            was, now = min(rf, old) - 1, min(rf, new) - 1
            if now < was:
                out.append(
                    f"lowering min.insync.replicas from {old} to {new} on {topic}: acknowledged acks=all "
                    f"writes then survive {_failures(now)} instead of {was} (less durable, more available)"
                )
    elif new == 1 and old is not None and old > 1:
        out.append("lowering min.insync.replicas to 1: acks=all acknowledged by the leader alone")
    return out


def change_risks(snapshot: ClusterSnapshot, change: ConfigChange, strimzi: bool = False) -> list[str]:
    """Every risk line for one change."""
    out: list[str] = []
    new_value = _effective_new(snapshot, change)
    if change.key == "unclean.leader.election.enable" and (new_value or "").lower() == "true":
        out.append("unclean.leader.election.enable=true: acknowledged data can be lost")
    if change.key == "min.insync.replicas":
        new = _int(new_value)
        if new is not None:
            blocks: list[list[str]] = []
            affected = _affected(snapshot, change)
            for topic, parts in affected.items():
                old = _int(snapshot.topic_config(topic, change.key).value)
                found = min_isr_risks(topic, parts, old, new, snapshot.kafka.capped)
                if change.kind != "topic":
                    found = [f if f.startswith("raising") else f"{topic}: {f}" for f in found]
                if found:
                    blocks.append(found)
            for block in blocks[:MAX_TOPIC_LINES]:
                out += block
            if len(blocks) > MAX_TOPIC_LINES:
                out.append(f"... and {len(blocks) - MAX_TOPIC_LINES} more topics at risk")
    if change.kind == "topic" and strimzi_managed(change.name, strimzi):
        out.append(
            "managed by Strimzi: use the YAML export instead (--export strimzi); "
            "its topic operator reverts live changes"
        )
    if change.kind == "topic" and change.name not in snapshot.topics and snapshot.topics:
        out.append(f"topic {change.name} does not exist in the snapshot")
    return out


def preview(
    plan: ChangePlan, snapshot: ClusterSnapshot, report: HealthReport | None = None, strimzi: bool = False
) -> list[ChangePreview]:
    """Per change: current value and source, and the risks the snapshot shows.

    `report` is accepted for callers that have one; the analysis reads the snapshot it came from.
    """
    snap = report.snapshot if report is not None else snapshot
    return [ChangePreview(c, current_value(snap, c), tuple(change_risks(snap, c, strimzi))) for c in plan.changes]


# --------------------------------------------------------------------------- durability wizard
MIN_ISR_FLOOR = 2
"""The audit flags minISR 1 with RF >= 2 (the leader alone acknowledges) and minISR >= RF (any broker
loss stops writes): the wizard never recommends either, so 2 <= minISR < RF."""


@dataclass(frozen=True, slots=True)
class Recommendation:
    """Replication settings meeting a durability goal, and what the current RF allows.

    `rf` is the replication factor the goal needs (a floor: a larger current RF is kept); when
    `raise_rf_first` is set the current RF is below it, and min.insync.replicas must wait for the
    reassignment (set first, it would stop writes or block them at any broker loss)."""

    rf: int
    min_isr: int
    unclean: bool
    notes: tuple[str, ...]
    current_rf: int = 0

    @property
    def raise_rf_first(self) -> bool:
        return self.current_rf < self.rf


def _failures(n: int) -> str:
    return f"{n} broker failure{'s' if n != 1 else ''}"


def recommend(goal_loss_failures: int | None, goal_write_failures: int | None, current_rf: int) -> Recommendation:
    """RF, minISR and unclean setting for the goals (ValueError when none or negative).

    `goal_loss_failures` N: keep acknowledged acks=all writes through N failures (minISR >= N+1).
    `goal_write_failures` W: keep acks=all writes available through W failures (RF - minISR >= W).
    Whatever the goals, the result is never what the audit flags: minISR >= 2 and RF >= minISR + 1,
    so one failure is the least it plans for (RF 3 / minISR 2, the durable triple).
    """
    if goal_loss_failures is None and goal_write_failures is None:
        raise ValueError("give a goal: failures to survive without data loss, or with writes available")
    for g in (goal_loss_failures, goal_write_failures, current_rf):
        if g is not None and g < 0:
            raise ValueError("goals and RF must not be negative")
    loss = goal_loss_failures or 0
    writes = goal_write_failures or 0
    min_isr = max(MIN_ISR_FLOOR, loss + 1)
    rf = min_isr + max(1, writes)
    kept = max(rf, current_rf)
    notes = [
        f"RF {rf}, min.insync.replicas {min_isr}, unclean.leader.election.enable=false: acknowledged acks=all "
        f"writes survive {_failures(min_isr - 1)}; writes continue through {_failures(rf - min_isr)}",
        "producers must use acks=all (with enable.idempotence=true) for these guarantees",
    ]
    if loss + 1 < min_isr or writes < 1:
        notes.append(
            "never less than RF 3 / min.insync.replicas 2: minISR 1 lets the leader alone acknowledge "
            "writes, and minISR equal to RF stops writes at any broker loss (both flagged by the audit)"
        )
    if current_rf >= rf:
        notes.append(f"current RF {current_rf} is enough: change min.insync.replicas only")
        if current_rf > rf:
            notes.append(
                f"with RF {current_rf} and min.insync.replicas {min_isr}, writes continue through "
                f"{_failures(kept - min_isr)}"
            )
    else:
        if current_rf < min_isr:
            now = "every acks=all write would fail"
        elif current_rf == min_isr:
            now = "any broker loss would stop acks=all writes"
        else:
            now = f"writes would continue through only {_failures(current_rf - min_isr)}"
        notes.append(
            f"raise RF from {current_rf} to {rf} first (a reassignment: R on the topic screen, or "
            f"kafkatui reassign --replication-factor {rf}), then set min.insync.replicas {min_isr}: "
            f"set now on RF {current_rf}, {now}. The plan leaves min.insync.replicas alone until then"
        )
        if current_rf == 1:
            notes.append("RF 1: no redundancy at all, any broker loss takes partitions offline")
    return Recommendation(rf, min_isr, False, tuple(notes), current_rf)


def _topic_rf(snapshot: ClusterSnapshot | None, topic: str) -> int | None:
    t = snapshot.topics.get(topic) if snapshot is not None else None
    rfs = [len(p.replicas) for p in t.partitions if p.replicas] if t is not None else []
    return min(rfs) if rfs else None


def recommendation_changes(
    rec: Recommendation, topics: Iterable[str], snapshot: ClusterSnapshot | None = None
) -> ChangePlan:
    """The config part of a recommendation as a plan (RF changes need a reassignment).

    min.insync.replicas is left out for a topic whose RF is below the recommendation (the RF goes up
    first); with a `snapshot`, a change whose value is already in force is left out too (it would only
    add an override)."""
    changes: list[ConfigChange] = []
    for t in topics:
        rf = _topic_rf(snapshot, t)
        wanted = [("unclean.leader.election.enable", str(rec.unclean).lower())]
        if (rf if rf is not None else rec.current_rf) >= rec.rf:
            wanted.insert(0, ("min.insync.replicas", str(rec.min_isr)))
        for key, value in wanted:
            change = ConfigChange("topic", t, key, value)
            if snapshot is not None and not is_change(snapshot, change):
                continue
            changes.append(change)
    return ChangePlan(tuple(changes))


def is_change(snapshot: ClusterSnapshot, change: ConfigChange) -> bool:
    """False when the change sets the value already in force (a no-op that would only add an override)."""
    if change.value is None:
        return True
    cur = current_value(snapshot, change)
    if cur.value is None or cur.source == ASSUMED_DEFAULT:
        return True  # the brokers' configs were not read: the value in force is not known
    return cur.value.strip().lower() != change.value.strip().lower()
