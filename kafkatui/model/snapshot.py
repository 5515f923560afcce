"""One observation of a cluster: what the Kafka source read, before any judgement.

Plain frozen dataclasses with tuples, so a 100,000-partition snapshot stays small and can be shared
between threads. No textual, no network.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# DescribeConfigs sources, by the names Kafka's tools print
DYNAMIC_TOPIC_CONFIG = "DYNAMIC_TOPIC_CONFIG"
DYNAMIC_BROKER_CONFIG = "DYNAMIC_BROKER_CONFIG"
DYNAMIC_DEFAULT_BROKER_CONFIG = "DYNAMIC_DEFAULT_BROKER_CONFIG"
STATIC_BROKER_CONFIG = "STATIC_BROKER_CONFIG"
DEFAULT_CONFIG = "DEFAULT_CONFIG"
ASSUMED_DEFAULT = "ASSUMED_DEFAULT"  # configs could not be read: Kafka's default is assumed

KAFKA_DEFAULTS = {
    "min.insync.replicas": "1",
    "unclean.leader.election.enable": "false",
    "replica.lag.time.max.ms": "30000",
    "default.replication.factor": "1",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}


@dataclass(frozen=True, slots=True)
class ConfigValue:
    """A config's effective value and where it comes from."""

    value: str | None
    source: str = DEFAULT_CONFIG
    sensitive: bool = False
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class BrokerInfo:
    """A broker the cluster's metadata lists (alive and registered)."""

    id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    """Leader, replicas and ISR of one partition as the metadata reports them."""

    topic: str
    partition: int
    leader: int  # -1: no leader (offline)
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    leader_epoch: int = -1
    elr: tuple[int, ...] | None = None  # eligible leader replicas (KIP-966); None when unknown
    last_known_elr: tuple[int, ...] | None = None
    error_code: int = 0

    @property
    def preferred_leader(self) -> int:
        return self.replicas[0] if self.replicas else -1


@dataclass(frozen=True, slots=True)
class TopicInfo:
    """A topic, its partitions and its effective configs (value + source)."""

    name: str
    partitions: tuple[PartitionInfo, ...]
    internal: bool = False
    configs: dict[str, ConfigValue] = field(default_factory=dict)
    error_code: int = 0


@dataclass(frozen=True, slots=True)
class ReplicaLog:
    """Size and lag of one replica's log, from DescribeLogDirs."""

    size: int
    offset_lag: int
    log_dir: str = ""


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """Everything kafkatui knows about a cluster at `taken_at`.

    `partial` is true when some part could not be read (a broker down mid-fetch, DescribeConfigs
    denied, log dirs unavailable); `problems` says what, one line each.
    """

    cluster_id: str | None
    controller_id: int
    brokers: tuple[BrokerInfo, ...]
    topics: dict[str, TopicInfo]
    broker_configs: dict[int, dict[str, ConfigValue]] = field(default_factory=dict)
    log_dirs: dict[tuple[str, int, int], ReplicaLog] | None = None  # (topic, partition, broker)
    taken_at: float = 0.0  # epoch seconds
    fetch_seconds: float = 0.0
    partial: bool = False
    problems: tuple[str, ...] = ()
    bootstrap: str = ""

    @property
    def broker_ids(self) -> frozenset[int]:
        return frozenset(b.id for b in self.brokers)

    def referenced_brokers(self) -> frozenset[int]:
        """Every broker id any replica list names (brokers absent from metadata included)."""
        ids: set[int] = set()
        for t in self.topics.values():
            for p in t.partitions:
                ids.update(p.replicas)
        return frozenset(ids)

    def partition_count(self) -> int:
        return sum(len(t.partitions) for t in self.topics.values())

    def broker_config(self, key: str) -> ConfigValue:
        """A broker-level config as the lowest-numbered broker that answered reports it."""
        for bid in sorted(self.broker_configs):
            cv = self.broker_configs[bid].get(key)
            if cv is not None:
                return cv
        return ConfigValue(KAFKA_DEFAULTS.get(key), ASSUMED_DEFAULT)

    def topic_config(self, topic: str, key: str) -> ConfigValue:
        """A topic's effective config, falling back to the broker config, then Kafka's default."""
        t = self.topics.get(topic)
        if t is not None and key in t.configs:
            return t.configs[key]
        cv = self.broker_config(key)
        return cv
