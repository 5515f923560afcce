"""Kafka's broker and topic config catalog: names, types, defaults and validation rules.

The catalog uses Kafka 4.x names, types, defaults and validation rules (``LogConfig``,
``TopicConfig``, ``ServerLogConfigs``, ``ReplicationConfigs``, ``ServerConfigs``,
``SocketServerConfigs``, ``GroupCoordinatorConfig``, ``TransactionLogConfig``, ``QuotaConfig``).
Which broker configs are dynamic follows Kafka's ``DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS``;
which of those may only be set per broker follows its ``PER_BROKER_CONFIGS``.

This module owns the definitions; their types, value parsing and validators are
:mod:`kafkatui.sim.configtypes`, and the store that resolves and alters values lives in
:mod:`kafkatui.sim.configs`. Pure Python: no network, no UI.

Size: about 630 lines because it is a table: one entry per Kafka config (over 200), which
`ruff format` lays out one field per line.
"""

from __future__ import annotations

from collections.abc import Callable

from kafkatui.sim.configtypes import (
    LONG_MAX,
    ConfigDef,
    ConfigType,
    make_validator,
    throttled_replicas,
)

# --------------------------------------------------------------------------- catalog helpers

_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")
_CLEANUP_POLICIES = ("compact", "delete")


def _def(
    name: str,
    ctype: ConfigType,
    default: str | None,
    doc: str,
    *,
    synonym: str | None = None,
    dynamic: bool = True,
    per_broker: bool = False,
    at_least: float | None = None,
    at_most: float | None = None,
    one_of: tuple[str, ...] | None = None,
    list_of: tuple[str, ...] | None = None,
    extra: Callable[[str], str | None] | None = None,
) -> ConfigDef:
    validator = make_validator(
        name, ctype, at_least=at_least, at_most=at_most, one_of=one_of, list_of=list_of, extra=extra
    )
    return ConfigDef(
        name=name,
        type=ctype,
        default=default,
        doc=doc,
        broker_synonym=synonym,
        dynamic=dynamic,
        sensitive=ctype is ConfigType.PASSWORD,
        validator=validator,
        per_broker=per_broker,
    )


_T = ConfigType

_TOPIC_DEFS: list[ConfigDef] = [
    _def(
        "cleanup.policy",
        _T.LIST,
        "delete",
        'The retention policy to use on log segments: "delete" discards old segments when their retention '
        'time or size limit is reached; "compact" enables log compaction, keeping the latest value per key.',
        synonym="log.cleanup.policy",
        list_of=_CLEANUP_POLICIES,
    ),
    _def(
        "compression.type",
        _T.STRING,
        "producer",
        "The final compression type for the topic: 'gzip', 'snappy', 'lz4', 'zstd', 'uncompressed', or "
        "'producer' to retain the codec set by the producer.",
        synonym="compression.type",
        one_of=_COMPRESSION_TYPES,
    ),
    _def(
        "delete.retention.ms",
        _T.LONG,
        "86400000",
        "The amount of time to retain delete tombstone markers for log compacted topics.",
        synonym="log.cleaner.delete.retention.ms",
        at_least=0,
    ),
    _def(
        "file.delete.delay.ms",
        _T.LONG,
        "60000",
        "The time to wait before deleting a file from the filesystem.",
        synonym="log.segment.delete.delay.ms",
        at_least=0,
    ),
    _def(
        "flush.messages",
        _T.LONG,
        LONG_MAX,
        "The number of messages written to a log partition after which Kafka forces an fsync.",
        synonym="log.flush.interval.messages",
        at_least=1,
    ),
    _def(
        "flush.ms",
        _T.LONG,
        LONG_MAX,
        "The time interval after which Kafka forces an fsync of data written to the log.",
        synonym="log.flush.interval.ms",
        at_least=0,
    ),
    _def(
        "follower.replication.throttled.replicas",
        _T.LIST,
        "",
        "A list of replicas for which log replication should be throttled on the follower side, as "
        "[PartitionId]:[BrokerId],... or the wildcard '*' for all replicas of this topic.",
        extra=throttled_replicas("follower.replication.throttled.replicas"),
    ),
    _def(
        "index.interval.bytes",
        _T.INT,
        "4096",
        "How frequently Kafka adds an index entry to its offset index.",
        synonym="log.index.interval.bytes",
        at_least=0,
    ),
    _def(
        "leader.replication.throttled.replicas",
        _T.LIST,
        "",
        "A list of replicas for which log replication should be throttled on the leader side, as "
        "[PartitionId]:[BrokerId],... or the wildcard '*' for all replicas of this topic.",
        extra=throttled_replicas("leader.replication.throttled.replicas"),
    ),
    _def(
        "max.compaction.lag.ms",
        _T.LONG,
        LONG_MAX,
        "The maximum time a message will remain ineligible for compaction in the log.",
        synonym="log.cleaner.max.compaction.lag.ms",
        at_least=1,
    ),
    _def(
        "max.message.bytes",
        _T.INT,
        "1048588",
        "The largest record batch size allowed by Kafka (after compression if compression is enabled).",
        synonym="message.max.bytes",
        at_least=0,
    ),
    _def(
        "message.timestamp.type",
        _T.STRING,
        "CreateTime",
        "Whether the timestamp in the message is message create time or log append time.",
        synonym="log.message.timestamp.type",
        one_of=_TIMESTAMP_TYPES,
    ),
    _def(
        "min.cleanable.dirty.ratio",
        _T.DOUBLE,
        "0.5",
        "How frequently the log compactor will attempt to clean the log (assuming compaction is enabled).",
        synonym="log.cleaner.min.cleanable.ratio",
        at_least=0,
        at_most=1,
    ),
    _def(
        "min.compaction.lag.ms",
        _T.LONG,
        "0",
        "The minimum time a message will remain uncompacted in the log.",
        synonym="log.cleaner.min.compaction.lag.ms",
        at_least=0,
    ),
    _def(
        "min.insync.replicas",
        _T.INT,
        "1",
        'When a producer sets acks to "all" (or "-1"), the minimum number of replicas that must '
        "acknowledge a write for the write to be considered successful.",
        synonym="min.insync.replicas",
        at_least=1,
    ),
    _def(
        "preallocate",
        _T.BOOLEAN,
        "false",
        "True if we should preallocate the file on disk when creating a new log segment.",
        synonym="log.preallocate",
    ),
    _def(
        "retention.bytes",
        _T.LONG,
        "-1",
        "The maximum size a partition can grow to before old log segments are discarded under the "
        '"delete" retention policy.',
        synonym="log.retention.bytes",
    ),
    _def(
        "retention.ms",
        _T.LONG,
        "604800000",
        'The maximum time a log is retained before old log segments are discarded under the "delete" '
        "retention policy. -1 means no time limit.",
        synonym="log.retention.ms",
        at_least=-1,
    ),
    _def(
        "segment.bytes",
        _T.INT,
        "1073741824",
        "The segment file size for the log.",
        synonym="log.segment.bytes",
        at_least=1024 * 1024,
    ),
    _def(
        "segment.index.bytes",
        _T.INT,
        "10485760",
        "The size of the index that maps offsets to file positions.",
        synonym="log.index.size.max.bytes",
        at_least=4,
    ),
    _def(
        "segment.jitter.ms",
        _T.LONG,
        "0",
        "The maximum random jitter subtracted from the scheduled segment roll time.",
        synonym="log.roll.jitter.ms",
        at_least=0,
    ),
    _def(
        "segment.ms",
        _T.LONG,
        "604800000",
        "The period of time after which Kafka will force the log to roll even if the segment file isn't full.",
        synonym="log.roll.ms",
        at_least=1,
    ),
    _def(
        "unclean.leader.election.enable",
        _T.BOOLEAN,
        "false",
        "Whether replicas not in the ISR set may be elected as leader as a last resort, even though doing so "
        "may result in data loss.",
        synonym="unclean.leader.election.enable",
    ),
]

TOPIC_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in _TOPIC_DEFS}
"""Topic configs (DescribeConfigs order: alphabetical, as Kafka lists them)."""

# Broker configs. dynamic=True only where Kafka's DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS lists
# the name. Every broker synonym of a topic config is dynamic, cluster-wide
# (DynamicLogConfig.RECONFIGURABLE_CONFIGS = ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS.values()).
#
# Simplification: Kafka leaves log.retention.ms, log.roll.ms, log.roll.jitter.ms and
# log.flush.interval.ms null and derives them from log.retention.hours (168), log.roll.hours (168),
# log.roll.jitter.hours (0) and log.flush.scheduler.interval.ms (Long.MAX_VALUE). Here they carry
# that derived value as their own default, so DescribeConfigs shows one DEFAULT_CONFIG synonym.
DERIVED_BROKER_DEFAULTS = frozenset({"log.retention.ms", "log.roll.ms", "log.roll.jitter.ms", "log.flush.interval.ms"})
"""Broker keys whose default here is the derived value (see above): no DEFAULT_CONFIG synonym of a topic."""

_BROKER_DEFS: list[ConfigDef] = [
    # ---- identity, placement, listeners
    _def(
        "broker.id", _T.INT, "-1", "The broker id for this server (in KRaft mode, the same as node.id).", dynamic=False
    ),
    _def("node.id", _T.INT, None, "The node ID associated with the roles this process is playing.", dynamic=False),
    # Kafka's defaults (empty): the simulator names its controller in Metadata as a ZooKeeper
    # cluster did, so kafkatui trusts that id (a KRaft broker names a random one; see
    # kafkatui.kafka.source.controller_of)
    _def(
        "process.roles",
        _T.LIST,
        "",
        "The roles that this process plays: 'broker', 'controller', or 'broker,controller' if it is both.",
        dynamic=False,
    ),
    _def(
        "controller.quorum.voters",
        _T.LIST,
        "",
        "Map of id/endpoint information for the set of voters in a comma-separated list of {id}@{host}:{port}.",
        dynamic=False,
    ),
    _def(
        "broker.rack",
        _T.STRING,
        None,
        "Rack of the broker, used in rack aware replication assignment for fault tolerance.",
        dynamic=False,
    ),
    # listeners is in DynamicListenerConfig.RECONFIGURABLE_CONFIGS: Kafka lets it change per broker.
    _def(
        "listeners",
        _T.LIST,
        "PLAINTEXT://:9092",
        "Comma-separated list of URIs we will listen on and the listener names.",
        per_broker=True,
    ),
    _def(
        "advertised.listeners",
        _T.LIST,
        None,
        "The listener addresses the broker advertises to clients and other brokers, if different from listeners.",
        dynamic=False,
    ),
    _def(
        "log.dirs",
        _T.LIST,
        None,
        "A comma-separated list of the directories where the log data is stored. If not set, the value in "
        "log.dir is used.",
        dynamic=False,
    ),
    _def(
        "log.dir",
        _T.LIST,
        "/tmp/kafka-logs",
        "The directory in which the log data is kept (supplemental for log.dirs).",
        dynamic=False,
    ),
    _def(
        "broker.session.timeout.ms",
        _T.INT,
        "9000",
        "The length of time in milliseconds that a broker lease lasts if no heartbeats are made.",
        dynamic=False,
    ),
    _def("controlled.shutdown.enable", _T.BOOLEAN, "true", "Enable controlled shutdown of the server.", dynamic=False),
    _def("delete.topic.enable", _T.BOOLEAN, "true", "Enables delete topic.", dynamic=False),
    # ---- replication
    _def(
        "min.insync.replicas",
        _T.INT,
        "1",
        'When a producer sets acks to "all" (or "-1"), the minimum number of replicas that must '
        "acknowledge a write for the write to be considered successful.",
        at_least=1,
    ),
    _def(
        "unclean.leader.election.enable",
        _T.BOOLEAN,
        "false",
        "Whether replicas not in the ISR set may be elected as leader as a last resort, even though doing so "
        "may result in data loss.",
    ),
    # Not dynamic in Kafka 3.x/4.x: DynamicReplicationConfig.RECONFIGURABLE_CONFIGS only holds
    # follower.fetch.last.tiered.offset.enable, and no other reconfigurable set names it, so
    # IncrementalAlterConfigs answers "Cannot update these configs dynamically: [replica.lag.time.max.ms]".
    _def(
        "replica.lag.time.max.ms",
        _T.LONG,
        "30000",
        "If a follower hasn't sent any fetch requests or hasn't consumed up to the leader's log end offset "
        "for at least this time, the leader will remove the follower from the ISR.",
        dynamic=False,
    ),
    _def(
        "default.replication.factor",
        _T.INT,
        "1",
        "The default replication factor for automatically created topics.",
        dynamic=False,
    ),
    _def("num.partitions", _T.INT, "1", "The default number of log partitions per topic.", dynamic=False, at_least=1),
    _def(
        "offsets.topic.replication.factor",
        _T.SHORT,
        "3",
        "The replication factor for the offsets topic (set higher to ensure availability).",
        dynamic=False,
        at_least=1,
    ),
    _def(
        "transaction.state.log.replication.factor",
        _T.SHORT,
        "3",
        "The replication factor for the transaction topic (set higher to ensure availability).",
        dynamic=False,
        at_least=1,
    ),
    _def(
        "transaction.state.log.min.isr",
        _T.INT,
        "2",
        "The minimum number of replicas that must acknowledge a write to the transaction topic.",
        dynamic=False,
        at_least=1,
    ),
    _def(
        "auto.create.topics.enable", _T.BOOLEAN, "true", "Enable auto creation of topic on the server.", dynamic=False
    ),
    _def(
        "num.replica.fetchers",
        _T.INT,
        "1",
        "Number of fetcher threads used to replicate records from each source broker.",
    ),
    _def(
        "replica.fetch.max.bytes",
        _T.INT,
        "1048576",
        "The number of bytes of messages to attempt to fetch for each partition.",
        dynamic=False,
        at_least=0,
    ),
    _def(
        "replica.socket.timeout.ms",
        _T.INT,
        "30000",
        "The socket timeout for network requests. Its value should be at least replica.fetch.wait.max.ms.",
        dynamic=False,
    ),
    _def("auto.leader.rebalance.enable", _T.BOOLEAN, "true", "Enables auto leader balancing.", dynamic=False),
    _def(
        "leader.imbalance.check.interval.seconds",
        _T.LONG,
        "300",
        "The frequency with which the partition rebalance check is triggered by the controller.",
        dynamic=False,
        at_least=1,
    ),
    _def(
        "leader.imbalance.per.broker.percentage",
        _T.INT,
        "10",
        "The ratio of leader imbalance allowed per broker, in percent.",
        dynamic=False,
    ),
    _def(
        "leader.replication.throttled.rate",
        _T.LONG,
        LONG_MAX,
        "The upper bound (bytes/sec) on replication traffic for leaders enumerated in the property "
        "leader.replication.throttled.replicas (for each topic). Only settable dynamically.",
        at_least=0,
    ),
    _def(
        "follower.replication.throttled.rate",
        _T.LONG,
        LONG_MAX,
        "The upper bound (bytes/sec) on replication traffic for followers enumerated in the property "
        "follower.replication.throttled.replicas (for each topic). Only settable dynamically.",
        at_least=0,
    ),
    # ---- log defaults (broker synonyms of topic configs): all dynamic, cluster-wide
    _def(
        "log.cleanup.policy",
        _T.LIST,
        "delete",
        "The default cleanup policy for segments beyond the retention window. A comma separated list of "
        "valid policies.",
        list_of=_CLEANUP_POLICIES,
    ),
    _def(
        "compression.type",
        _T.STRING,
        "producer",
        "The final compression type for a given topic: 'gzip', 'snappy', 'lz4', 'zstd', 'uncompressed', or "
        "'producer' to retain the codec set by the producer.",
        one_of=_COMPRESSION_TYPES,
    ),
    _def(
        "log.cleaner.delete.retention.ms",
        _T.LONG,
        "86400000",
        "The amount of time to retain tombstone message markers for log compacted topics.",
        at_least=0,
    ),
    _def(
        "log.segment.delete.delay.ms",
        _T.LONG,
        "60000",
        "The amount of time to wait before deleting a file from the filesystem.",
        at_least=0,
    ),
    _def(
        "log.flush.interval.messages",
        _T.LONG,
        LONG_MAX,
        "The number of messages accumulated on a log partition before messages are flushed to disk.",
        at_least=1,
    ),
    _def(
        "log.flush.interval.ms",
        _T.LONG,
        LONG_MAX,
        "The maximum time in ms that a message in any topic is kept in memory before flushed to disk.",
    ),
    _def(
        "log.index.interval.bytes",
        _T.INT,
        "4096",
        "The interval with which we add an entry to the offset index.",
        at_least=0,
    ),
    _def(
        "log.cleaner.max.compaction.lag.ms",
        _T.LONG,
        LONG_MAX,
        "The maximum time a message will remain ineligible for compaction in the log.",
        at_least=1,
    ),
    _def(
        "message.max.bytes",
        _T.INT,
        "1048588",
        "The largest record batch size allowed by Kafka (after compression if compression is enabled).",
        at_least=0,
    ),
    _def(
        "log.message.timestamp.type",
        _T.STRING,
        "CreateTime",
        "Whether the timestamp in the message is message create time or log append time.",
        one_of=_TIMESTAMP_TYPES,
    ),
    _def(
        "log.cleaner.min.cleanable.ratio",
        _T.DOUBLE,
        "0.5",
        "The minimum ratio of dirty log to total log for a log to be eligible for cleaning.",
        at_least=0,
        at_most=1,
    ),
    _def(
        "log.cleaner.min.compaction.lag.ms",
        _T.LONG,
        "0",
        "The minimum time a message will remain uncompacted in the log.",
        at_least=0,
    ),
    _def("log.preallocate", _T.BOOLEAN, "false", "Should pre allocate file when create new segment?"),
    _def(
        "log.retention.hours",
        _T.INT,
        "168",
        "The number of hours to keep a log file before deleting it (tertiary to log.retention.ms).",
        dynamic=False,
    ),  # read-only on Kafka 4.1: only log.retention.ms is dynamic (seen on the lab)
    _def("log.retention.bytes", _T.LONG, "-1", "The maximum size of the log before deleting it."),
    _def(
        "log.retention.ms",
        _T.LONG,
        "604800000",
        "The number of milliseconds to keep a log file before deleting it. If not set, the value in "
        "log.retention.minutes is used. If set to -1, no time limit is applied.",
        at_least=-1,
    ),
    _def("log.segment.bytes", _T.INT, "1073741824", "The maximum size of a single log file.", at_least=1024 * 1024),
    _def("log.index.size.max.bytes", _T.INT, "10485760", "The maximum size in bytes of the offset index.", at_least=4),
    _def(
        "log.roll.jitter.ms", _T.LONG, "0", "The maximum jitter to subtract from logRollTimeMillis (in milliseconds)."
    ),
    _def(
        "log.roll.ms",
        _T.LONG,
        "604800000",
        "The maximum time before a new log segment is rolled out (in milliseconds).",
    ),
    # ---- group coordinator
    _def(
        "group.initial.rebalance.delay.ms",
        _T.INT,
        "3000",
        "The amount of time the group coordinator will wait for more consumers to join a new group before "
        "performing the first rebalance.",
        dynamic=False,
    ),
    # ---- threads: DynamicThreadPool (cluster-wide) and num.network.threads (cluster-level listener config)
    _def(
        "background.threads",
        _T.INT,
        "10",
        "The number of threads to use for various background processing tasks.",
        at_least=1,
    ),
    _def(
        "num.io.threads",
        _T.INT,
        "8",
        "The number of threads that the server uses for processing requests, which may include disk I/O.",
        at_least=1,
    ),
    _def(
        "num.network.threads",
        _T.INT,
        "3",
        "The number of threads that the server uses for receiving requests from the network and sending "
        "responses to the network.",
        at_least=1,
    ),
    # ---- security: per-broker only (DynamicBrokerConfig.PER_BROKER_CONFIGS)
    _def("ssl.keystore.password", _T.PASSWORD, None, "The store password for the key store file.", per_broker=True),
    _def(
        "sasl.jaas.config",
        _T.PASSWORD,
        None,
        "JAAS login context parameters for SASL connections in the format used by JAAS configuration files.",
        per_broker=True,
    ),
]

BROKER_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in _BROKER_DEFS}
"""Broker configs, in the order describe_broker lists them."""


def _check_catalog() -> None:
    for d in TOPIC_CONFIGS.values():
        assert d.broker_synonym is None or d.broker_synonym in BROKER_CONFIGS, d.name
        assert d.dynamic, d.name


_check_catalog()
