"""Replication throttles for a reassignment, as kafka-reassign-partitions.sh ``--throttle`` sets them.

Topic configs name the throttled replicas (``leader.replication.throttled.replicas``: every current
replica of a moving partition, as ``partition:broker``; ``follower.replication.throttled.replicas``:
the replicas being added); dynamic broker configs give the rate in bytes per second
(``leader.replication.throttled.rate`` and ``follower.replication.throttled.rate``) on every broker
the moves name. Clearing deletes all four, as the Kafka tool does once a reassignment is verified.
Plans only here; `ConfigAlterer` sends them (IncrementalAlterConfigs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kafkatui.alter.apply import ResourceResult
from kafkatui.alter.plan import ChangePlan, ConfigChange
from kafkatui.alter.reassign import PartitionMove
from kafkatui.kafka.errors import UsageError
from kafkatui.model.snapshot import DYNAMIC_TOPIC_CONFIG, ClusterSnapshot

LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
TOPIC_KEYS = (LEADER_REPLICAS, FOLLOWER_REPLICAS)
BROKER_KEYS = (LEADER_RATE, FOLLOWER_RATE)


def throttled(snapshot: ClusterSnapshot, topic: str) -> bool:
    """Whether the topic has a throttled-replica list of its own."""
    info = snapshot.topics.get(topic)
    return info is not None and any(
        k in info.configs and info.configs[k].source == DYNAMIC_TOPIC_CONFIG for k in TOPIC_KEYS
    )


def parse_rate(text: str) -> int:
    """``--throttle``: bytes per second, a whole number >= 1 (UsageError otherwise)."""
    t = text.strip()
    if not t.isascii() or not t.isdigit() or int(t) < 1:
        raise UsageError(f"--throttle takes bytes per second, a whole number >= 1 (e.g. 50000000), got {text!r}")
    return int(t)


def throttle_plan(moves: Sequence[PartitionMove], rate: int) -> ChangePlan:
    """The config changes that throttle `moves` to `rate` bytes per second."""
    changes: list[ConfigChange] = []
    for topic in dict.fromkeys(m.topic for m in moves):
        mine = [m for m in moves if m.topic == topic]
        leaders = ",".join(f"{m.partition}:{b}" for m in mine for b in m.old)
        followers = ",".join(f"{m.partition}:{b}" for m in mine for b in m.adding)
        changes.append(ConfigChange("topic", topic, LEADER_REPLICAS, leaders))
        if followers:
            changes.append(ConfigChange("topic", topic, FOLLOWER_REPLICAS, followers))
    brokers = sorted({b for m in moves for b in (*m.old, *m.new)})
    for b in brokers:
        changes += [ConfigChange("broker", str(b), key, str(rate)) for key in BROKER_KEYS]
    return ChangePlan(tuple(changes))


def clear_plan(topics: Iterable[str], brokers: Iterable[int]) -> ChangePlan:
    """The config changes that remove every throttle from `topics` and `brokers`."""
    changes = [ConfigChange("topic", t, key, None) for t in dict.fromkeys(topics) for key in TOPIC_KEYS]
    changes += [ConfigChange("broker", str(b), key, None) for b in sorted(set(brokers)) for key in BROKER_KEYS]
    return ChangePlan(tuple(changes))


def audit_records(
    action: str, results: Sequence[ResourceResult], cluster_id: str | None, command_id: str
) -> list[dict[str, Any]]:
    """One audit record per config set or removed (action ``throttle`` / ``throttle-clear``)."""
    from kafkatui.alter import audit

    return [
        audit.action_record(
            action,
            cluster_id,
            command_id,
            {"kind": r.kind, "name": r.name},
            {},
            {"value": c.value},
            r.error,
            extra={"key": c.key},
        )
        for r in results
        for c in r.changes
    ]
