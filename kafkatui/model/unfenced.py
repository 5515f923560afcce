"""Partitions whose leader is down but not yet moved: the metadata still names a leader that refuses
connections (killed a moment ago, not fenced yet), so every produce to them fails until the controller
fences the broker and elects new leaders (`broker.session.timeout.ms`, 9 s by default, in KRaft;
`zookeeper.session.timeout.ms`, 18 s, with ZooKeeper). Reads stop too.

Their class (`kafkatui.model.health`) still follows the metadata's ISR, which is what the fencing will
change; this module says what holds *now*: they cannot take writes, like offline partitions. The
verdict counts them through the `broker-refusing-connections` finding, critical while the broker leads
any partition; `ClusterCounts.leader_refused` counts them cluster-wide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from kafkatui.model.health import Health, TopicHealth
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo

STATE = "leader down, not yet moved: writes fail"
SHORT = "leader down"
SYMBOL = "⊘"


def leader_down(snapshot: ClusterSnapshot) -> list[PartitionInfo]:
    """Partitions led by a listed broker that refuses connections, topic by topic in name order."""
    dead = snapshot.refused & snapshot.broker_ids
    if not dead:
        return []
    return list(snapshot.partitions_where(lambda leader, _reps, _isr: leader in dead))


def per_topic(snapshot: ClusterSnapshot) -> Counter[str]:
    """How many partitions of each topic are led by a broker that refuses connections."""
    return Counter(p.topic for p in leader_down(snapshot))


def writes_failing_first(topics: Iterable[TopicHealth], down: Mapping[str, int]) -> list[TopicHealth]:
    """`topics` (worst first) with those whose writes fail now first: offline ones and those whose leader
    is down and not yet moved (whatever their class says), in their worst-first order."""
    return sorted(topics, key=lambda t: not (down.get(t.name) or t.worst == Health.OFFLINE))


def is_leader_down(snapshot: ClusterSnapshot, p: PartitionInfo) -> bool:
    return p.leader >= 0 and p.leader in snapshot.refused and p.leader in snapshot.broker_ids
