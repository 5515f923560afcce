"""A ClusterSnapshot straight from a SimCluster's state, without sockets.

What `kafkatui.kafka.source.KafkaClusterSource` would read from the simulator over the wire
(Metadata: unfenced brokers, the reported controller, leader / epoch / replicas / ISR / offline
replicas; DescribeConfigs: every topic and broker config with its source), built in-process so a
simulated day can be recorded in seconds. No log dirs (the recorder does not use them).

`SnapshotBuilder` keeps the objects of the previous snapshot and rebuilds only the partitions it is
told changed (`touch`), so consecutive snapshots share every unchanged topic and partition object:
the recorder's diff skips shared objects, which keeps a snapshot per simulated event cheap.
"""

from __future__ import annotations

from kafkatui.model.snapshot import BrokerInfo, ClusterSnapshot, ConfigValue, PartitionInfo, TopicInfo
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.configs import ConfigEntry
from kafkatui.sim.handlers.metadata import reported_controller
from kafkatui.sim.kafkaversion import sim_version
from kafkatui.sim.state import Partition, Topic


def _config_value(e: ConfigEntry) -> ConfigValue:
    return ConfigValue(e.value, e.source.name, e.sensitive, e.read_only)


class SnapshotBuilder:
    """Snapshots of one SimCluster that share every object that did not change since the last one."""

    def __init__(self, cluster: SimCluster, bootstrap: str = "") -> None:
        self.cluster = cluster
        self.bootstrap = bootstrap
        self._topics: dict[str, TopicInfo] = {}
        self._dirty: dict[str, set[int]] = {}
        self._configs_dirty = True
        self._broker_configs: dict[int, dict[str, ConfigValue]] = {}
        self._topic_configs: dict[str, dict[str, ConfigValue]] = {}

    def touch(self, topic: str | None, partition: int | None = None) -> None:
        """Mark a partition (or, without `partition`, a whole topic) as changed."""
        if topic is None:
            return
        if partition is None:
            self._topics.pop(topic, None)
            self._topic_configs.pop(topic, None)
        else:
            self._dirty.setdefault(topic, set()).add(partition)

    def touch_broker(self, broker_id: int) -> None:
        """A broker's state changed: the offline replicas of every partition it hosts may have too."""
        for topic, index in self.cluster.hosted(broker_id):
            self._dirty.setdefault(topic, set()).add(index)

    def touch_configs(self) -> None:
        """Configs changed somewhere: read them all again at the next snapshot."""
        self._configs_dirty = True

    def snapshot(self, taken_at: float) -> ClusterSnapshot:
        """The cluster now, stamped `taken_at` (epoch seconds)."""
        c = self.cluster
        if self._configs_dirty:
            self._broker_configs = {
                b: {e.name: _config_value(e) for e in c.configs.describe_broker(b, None, False)}
                for b in sorted(c.brokers)
            }
            self._topic_configs = {}
            self._topics = {}
            self._configs_dirty = False
        topics: dict[str, TopicInfo] = {}
        for name, t in c.topics.items():
            info = self._topics.get(name)
            dirty = self._dirty.pop(name, None)
            if info is None or len(info.partitions) != len(t.partitions):
                info = self._topic_info(t)
            elif dirty:
                parts = list(info.partitions)
                for i in dirty:
                    if i < len(parts):
                        parts[i] = self._partition_info(t.partitions[i])
                info = TopicInfo(name, tuple(parts), t.internal, info.configs)
            topics[name] = info
        self._topics = topics
        self._dirty.clear()
        brokers = tuple(BrokerInfo(b.id, b.host, b.port, b.rack) for b in sorted(c.live_brokers(), key=lambda b: b.id))
        return ClusterSnapshot(
            cluster_id=c.cluster_id,
            controller_id=reported_controller(c),
            brokers=brokers,
            topics=topics,
            broker_configs=self._broker_configs,
            taken_at=taken_at,
            bootstrap=self.bootstrap,
            kafka=sim_version(c.kafka_line),
        )

    def _topic_info(self, t: Topic) -> TopicInfo:
        configs = self._topic_configs.get(t.name)
        if configs is None:
            configs = {e.name: _config_value(e) for e in self.cluster.configs.describe_topic(t.name, None, False)}
            self._topic_configs[t.name] = configs
        return TopicInfo(t.name, tuple(self._partition_info(p) for p in t.partitions), t.internal, configs)

    def _partition_info(self, p: Partition) -> PartitionInfo:
        return PartitionInfo(
            topic=p.topic,
            partition=p.index,
            leader=p.leader,
            replicas=tuple(p.replicas),
            isr=tuple(p.isr),
            offline_replicas=tuple(self.cluster.offline_replicas(p)),
            leader_epoch=p.leader_epoch,
        )


def cluster_snapshot(cluster: SimCluster, taken_at: float) -> ClusterSnapshot:
    """One snapshot of `cluster` (see `SnapshotBuilder` to take many cheaply)."""
    return SnapshotBuilder(cluster).snapshot(taken_at)
