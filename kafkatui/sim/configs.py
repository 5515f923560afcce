"""Kafka's broker and topic configs, and the store the simulator's config APIs answer from.

The catalog uses Kafka 4.x names, types, defaults and validation rules (``LogConfig``,
``TopicConfig``, ``ServerLogConfigs``, ``ReplicationConfigs``, ``ServerConfigs``,
``SocketServerConfigs``, ``GroupCoordinatorConfig``, ``TransactionLogConfig``, ``QuotaConfig``).
Which broker configs are dynamic follows Kafka's ``DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS``;
which of those may only be set per broker follows its ``PER_BROKER_CONFIGS``.

:class:`ConfigStore` resolves values through the five sources DescribeConfigs reports
(topic override, dynamic per-broker, dynamic cluster default, static ``server.properties``,
Kafka's default) and applies IncrementalAlterConfigs / AlterConfigs with Kafka's validation
and error codes. Pure Python: no network, no UI imports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from enum import IntEnum
from typing import TypeAlias

__all__ = [
    "BROKER_CONFIGS",
    "TOPIC_CONFIGS",
    "ConfigDef",
    "ConfigEntry",
    "ConfigError",
    "ConfigSource",
    "ConfigStore",
    "ConfigType",
    "OP_APPEND",
    "OP_DELETE",
    "OP_SET",
    "OP_SUBTRACT",
    "Synonym",
]

# Kafka error codes this module raises (same numbers as kafkatui.sim.errors).
UNKNOWN_TOPIC_OR_PARTITION = 3
TOPIC_ALREADY_EXISTS = 36
INVALID_CONFIG = 40
INVALID_REQUEST = 42

# IncrementalAlterConfigs operation codes.
OP_SET = 0
OP_DELETE = 1
OP_APPEND = 2
OP_SUBTRACT = 3
_OP_NAMES = {OP_SET: "SET", OP_DELETE: "DELETE", OP_APPEND: "APPEND", OP_SUBTRACT: "SUBTRACT"}

LONG_MAX = "9223372036854775807"


class ConfigSource(IntEnum):
    """DescribeConfigs ``config_source`` codes (the simulator never emits 6 or 7)."""

    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5


class ConfigType(IntEnum):
    """DescribeConfigs v3+ ``config_type`` codes."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


Validator: TypeAlias = Callable[[str], str | None]


def _accept_any(value: str) -> str | None:
    """A validator that accepts every value."""
    return None


@dataclass(frozen=True, slots=True)
class ConfigDef:
    """One config key: Kafka's type, default (as DescribeConfigs renders it) and rules.

    ``validator`` returns Kafka's full error message (``Invalid value x for configuration
    y: ...``) or None. ``per_broker`` marks dynamic broker configs Kafka only accepts with a
    broker id (its ``PER_BROKER_CONFIGS``), never at the cluster-wide default.
    """

    name: str
    type: ConfigType
    default: str | None
    doc: str
    broker_synonym: str | None
    dynamic: bool
    sensitive: bool = False
    validator: Validator = _accept_any
    per_broker: bool = False


@dataclass(frozen=True, slots=True)
class Synonym:
    """One source a config's value could come from, as DescribeConfigs lists it."""

    name: str
    value: str | None
    source: ConfigSource


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    """One DescribeConfigs result entry."""

    name: str
    value: str | None
    source: ConfigSource
    read_only: bool
    is_default: bool
    sensitive: bool
    type: ConfigType
    doc: str
    synonyms: tuple[Synonym, ...]


class ConfigError(Exception):
    """A config request Kafka would refuse, with the error code and message it answers."""

    def __init__(self, error_code: int, message: str) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.message = message

    def __repr__(self) -> str:
        return f"ConfigError({self.error_code}, {self.message!r})"


# --------------------------------------------------------------------------- parsing
# Kafka's ConfigDef.parseType trims strings, then parses with Java's rules.

_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_DOUBLE = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?$|^[+-]?(?:NaN|Infinity)$")
_COMMA = re.compile(r"\s*,\s*")
_INT_BITS = {ConfigType.SHORT: 16, ConfigType.INT: 32, ConfigType.LONG: 64}


def _invalid(name: str, value: object, message: str | None = None) -> str:
    """Kafka's ConfigException text."""
    return f"Invalid value {value} for configuration {name}" + (f": {message}" if message else "")


def _parse_int(value: str, ctype: ConfigType) -> int | None:
    trimmed = value.strip()
    if not _INTEGER.match(trimmed):
        return None
    n = int(trimmed)
    bits = _INT_BITS[ctype]
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        return None
    return n


def _parse_double(value: str) -> float | None:
    trimmed = value.strip()
    if not _DOUBLE.match(trimmed):
        return None
    return float(trimmed.rstrip("fFdD"))


def _parse_list(value: str) -> list[str]:
    """Kafka's LIST parsing: trimmed, split on commas with surrounding whitespace; "" is []."""
    trimmed = value.strip()
    return [] if not trimmed else _COMMA.split(trimmed)


def _java_list(items: list[str]) -> str:
    """How Java prints a List (Kafka puts that in some messages)."""
    return "[" + ", ".join(items) + "]"


def _java_double(x: float) -> str:
    """Java's Double.toString, which Kafka uses to render DOUBLE configs."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if 1e-3 <= abs(x) < 1e7:
        text = repr(x)
        return text if "." in text else text + ".0"
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    assert isinstance(exp, int)
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    exponent = exp + len(digits) - 1
    return f"{'-' if sign else ''}{ds[0]}.{ds[1:] or '0'}E{exponent}"


def _canonical(ctype: ConfigType, value: str) -> str:
    """The value as Kafka renders it after parsing (only call on valid values)."""
    if ctype in _INT_BITS:
        return str(int(value.strip()))
    if ctype is ConfigType.BOOLEAN:
        return value.strip().lower()
    if ctype is ConfigType.DOUBLE:
        parsed = _parse_double(value)
        return _java_double(parsed) if parsed is not None else value.strip()
    if ctype is ConfigType.LIST:
        return ",".join(_parse_list(value))
    if ctype is ConfigType.UNKNOWN:
        return value
    return value.strip()


# --------------------------------------------------------------------------- validators


def _type_check(name: str, ctype: ConfigType, value: str) -> str | None:
    """Kafka's parseType errors."""
    if ctype in _INT_BITS and _parse_int(value, ctype) is None:
        return _invalid(name, value, f"Not a number of type {ctype.name}")
    if ctype is ConfigType.DOUBLE and _parse_double(value) is None:
        return _invalid(name, value, "Not a number of type DOUBLE")
    if ctype is ConfigType.BOOLEAN and value.strip().lower() not in ("true", "false"):
        return _invalid(name, value, "Expected value to be either true or false")
    return None


def _make_validator(
    name: str,
    ctype: ConfigType,
    *,
    at_least: float | None = None,
    at_most: float | None = None,
    one_of: tuple[str, ...] | None = None,
    list_of: tuple[str, ...] | None = None,
    extra: Callable[[str], str | None] | None = None,
) -> Validator:
    """Build a validator the way Kafka's ConfigDef.define(type, validator) checks a value."""

    def validate(value: str) -> str | None:
        error = _type_check(name, ctype, value)
        if error:
            return error
        if at_least is not None or at_most is not None:
            num: float
            if ctype is ConfigType.DOUBLE:
                parsed = _parse_double(value)
                assert parsed is not None
                num = parsed
            else:
                num = int(value.strip())
            if at_least is not None and num < at_least:
                return _invalid(name, value.strip(), f"Value must be at least {_num(at_least)}")
            if at_most is not None and num > at_most:
                return _invalid(name, value.strip(), f"Value must be no more than {_num(at_most)}")
        if one_of is not None and value.strip() not in one_of:
            return _invalid(name, value.strip(), "String must be one of: " + ", ".join(one_of))
        if list_of is not None:
            items = _parse_list(value)
            if not items:
                return _invalid(name, value.strip(), f"Configuration '{name}' must not be empty")
            for item in items:
                if item not in list_of:
                    return _invalid(name, item, "String must be one of: " + ", ".join(list_of))
        if extra is not None:
            return extra(value)
        return None

    return validate


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else repr(n)


_REPLICA_ENTRY = re.compile(r"^([0-9]+:[0-9]+)?$")


def _throttled_replicas(name: str) -> Callable[[str], str | None]:
    """Kafka's ThrottledReplicaListValidator: '*' or partition:broker pairs."""

    def check(value: str) -> str | None:
        items = [item.strip() for item in _parse_list(value)]
        if all(_REPLICA_ENTRY.match(item) for item in items) or "".join(items) == "*":
            return None
        return _invalid(
            name,
            _java_list(items),
            f"{name} must be the literal '*' or a list of replicas in the following format: "
            "[partitionId]:[brokerId],[partitionId]:[brokerId],...",
        )

    return check


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
    validator = _make_validator(
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
    _def("cleanup.policy", _T.LIST, "delete",
         "The retention policy to use on log segments: \"delete\" discards old segments when their retention "
         "time or size limit is reached; \"compact\" enables log compaction, keeping the latest value per key.",
         synonym="log.cleanup.policy", list_of=_CLEANUP_POLICIES),
    _def("compression.type", _T.STRING, "producer",
         "The final compression type for the topic: 'gzip', 'snappy', 'lz4', 'zstd', 'uncompressed', or "
         "'producer' to retain the codec set by the producer.",
         synonym="compression.type", one_of=_COMPRESSION_TYPES),
    _def("delete.retention.ms", _T.LONG, "86400000",
         "The amount of time to retain delete tombstone markers for log compacted topics.",
         synonym="log.cleaner.delete.retention.ms", at_least=0),
    _def("file.delete.delay.ms", _T.LONG, "60000",
         "The time to wait before deleting a file from the filesystem.",
         synonym="log.segment.delete.delay.ms", at_least=0),
    _def("flush.messages", _T.LONG, LONG_MAX,
         "The number of messages written to a log partition after which Kafka forces an fsync.",
         synonym="log.flush.interval.messages", at_least=1),
    _def("flush.ms", _T.LONG, LONG_MAX,
         "The time interval after which Kafka forces an fsync of data written to the log.",
         synonym="log.flush.interval.ms", at_least=0),
    _def("follower.replication.throttled.replicas", _T.LIST, "",
         "A list of replicas for which log replication should be throttled on the follower side, as "
         "[PartitionId]:[BrokerId],... or the wildcard '*' for all replicas of this topic.",
         extra=_throttled_replicas("follower.replication.throttled.replicas")),
    _def("index.interval.bytes", _T.INT, "4096",
         "How frequently Kafka adds an index entry to its offset index.",
         synonym="log.index.interval.bytes", at_least=0),
    _def("leader.replication.throttled.replicas", _T.LIST, "",
         "A list of replicas for which log replication should be throttled on the leader side, as "
         "[PartitionId]:[BrokerId],... or the wildcard '*' for all replicas of this topic.",
         extra=_throttled_replicas("leader.replication.throttled.replicas")),
    _def("max.compaction.lag.ms", _T.LONG, LONG_MAX,
         "The maximum time a message will remain ineligible for compaction in the log.",
         synonym="log.cleaner.max.compaction.lag.ms", at_least=1),
    _def("max.message.bytes", _T.INT, "1048588",
         "The largest record batch size allowed by Kafka (after compression if compression is enabled).",
         synonym="message.max.bytes", at_least=0),
    _def("message.timestamp.type", _T.STRING, "CreateTime",
         "Whether the timestamp in the message is message create time or log append time.",
         synonym="log.message.timestamp.type", one_of=_TIMESTAMP_TYPES),
    _def("min.cleanable.dirty.ratio", _T.DOUBLE, "0.5",
         "How frequently the log compactor will attempt to clean the log (assuming compaction is enabled).",
         synonym="log.cleaner.min.cleanable.ratio", at_least=0, at_most=1),
    _def("min.compaction.lag.ms", _T.LONG, "0",
         "The minimum time a message will remain uncompacted in the log.",
         synonym="log.cleaner.min.compaction.lag.ms", at_least=0),
    _def("min.insync.replicas", _T.INT, "1",
         "When a producer sets acks to \"all\" (or \"-1\"), the minimum number of replicas that must "
         "acknowledge a write for the write to be considered successful.",
         synonym="min.insync.replicas", at_least=1),
    _def("preallocate", _T.BOOLEAN, "false",
         "True if we should preallocate the file on disk when creating a new log segment.",
         synonym="log.preallocate"),
    _def("retention.bytes", _T.LONG, "-1",
         "The maximum size a partition can grow to before old log segments are discarded under the "
         "\"delete\" retention policy.",
         synonym="log.retention.bytes"),
    _def("retention.ms", _T.LONG, "604800000",
         "The maximum time a log is retained before old log segments are discarded under the \"delete\" "
         "retention policy. -1 means no time limit.",
         synonym="log.retention.ms", at_least=-1),
    _def("segment.bytes", _T.INT, "1073741824",
         "The segment file size for the log.",
         synonym="log.segment.bytes", at_least=1024 * 1024),
    _def("segment.index.bytes", _T.INT, "10485760",
         "The size of the index that maps offsets to file positions.",
         synonym="log.index.size.max.bytes", at_least=4),
    _def("segment.jitter.ms", _T.LONG, "0",
         "The maximum random jitter subtracted from the scheduled segment roll time.",
         synonym="log.roll.jitter.ms", at_least=0),
    _def("segment.ms", _T.LONG, "604800000",
         "The period of time after which Kafka will force the log to roll even if the segment file isn't full.",
         synonym="log.roll.ms", at_least=1),
    _def("unclean.leader.election.enable", _T.BOOLEAN, "false",
         "Whether replicas not in the ISR set may be elected as leader as a last resort, even though doing so "
         "may result in data loss.",
         synonym="unclean.leader.election.enable"),
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
    _def("broker.id", _T.INT, "-1",
         "The broker id for this server (in KRaft mode, the same as node.id).", dynamic=False),
    _def("node.id", _T.INT, None,
         "The node ID associated with the roles this process is playing.", dynamic=False),
    # Kafka's defaults (empty): the simulator names its controller in Metadata as a ZooKeeper
    # cluster did, so kafkatui trusts that id (a KRaft broker names a random one; see
    # kafkatui.kafka.source.controller_of)
    _def("process.roles", _T.LIST, "",
         "The roles that this process plays: 'broker', 'controller', or 'broker,controller' if it is both.",
         dynamic=False),
    _def("controller.quorum.voters", _T.LIST, "",
         "Map of id/endpoint information for the set of voters in a comma-separated list of {id}@{host}:{port}.",
         dynamic=False),
    _def("broker.rack", _T.STRING, None,
         "Rack of the broker, used in rack aware replication assignment for fault tolerance.", dynamic=False),
    # listeners is in DynamicListenerConfig.RECONFIGURABLE_CONFIGS: Kafka lets it change per broker.
    _def("listeners", _T.LIST, "PLAINTEXT://:9092",
         "Comma-separated list of URIs we will listen on and the listener names.", per_broker=True),
    _def("advertised.listeners", _T.LIST, None,
         "The listener addresses the broker advertises to clients and other brokers, if different from "
         "listeners.", dynamic=False),
    _def("log.dirs", _T.LIST, None,
         "A comma-separated list of the directories where the log data is stored. If not set, the value in "
         "log.dir is used.", dynamic=False),
    _def("log.dir", _T.LIST, "/tmp/kafka-logs",
         "The directory in which the log data is kept (supplemental for log.dirs).", dynamic=False),
    _def("broker.session.timeout.ms", _T.INT, "9000",
         "The length of time in milliseconds that a broker lease lasts if no heartbeats are made.",
         dynamic=False),
    _def("controlled.shutdown.enable", _T.BOOLEAN, "true",
         "Enable controlled shutdown of the server.", dynamic=False),
    _def("delete.topic.enable", _T.BOOLEAN, "true",
         "Enables delete topic.", dynamic=False),
    # ---- replication
    _def("min.insync.replicas", _T.INT, "1",
         "When a producer sets acks to \"all\" (or \"-1\"), the minimum number of replicas that must "
         "acknowledge a write for the write to be considered successful.", at_least=1),
    _def("unclean.leader.election.enable", _T.BOOLEAN, "false",
         "Whether replicas not in the ISR set may be elected as leader as a last resort, even though doing so "
         "may result in data loss."),
    # Not dynamic in Kafka 3.x/4.x: DynamicReplicationConfig.RECONFIGURABLE_CONFIGS only holds
    # follower.fetch.last.tiered.offset.enable, and no other reconfigurable set names it, so
    # IncrementalAlterConfigs answers "Cannot update these configs dynamically: [replica.lag.time.max.ms]".
    _def("replica.lag.time.max.ms", _T.LONG, "30000",
         "If a follower hasn't sent any fetch requests or hasn't consumed up to the leader's log end offset "
         "for at least this time, the leader will remove the follower from the ISR.", dynamic=False),
    _def("default.replication.factor", _T.INT, "1",
         "The default replication factor for automatically created topics.", dynamic=False),
    _def("num.partitions", _T.INT, "1",
         "The default number of log partitions per topic.", dynamic=False, at_least=1),
    _def("offsets.topic.replication.factor", _T.SHORT, "3",
         "The replication factor for the offsets topic (set higher to ensure availability).",
         dynamic=False, at_least=1),
    _def("transaction.state.log.replication.factor", _T.SHORT, "3",
         "The replication factor for the transaction topic (set higher to ensure availability).",
         dynamic=False, at_least=1),
    _def("transaction.state.log.min.isr", _T.INT, "2",
         "The minimum number of replicas that must acknowledge a write to the transaction topic.",
         dynamic=False, at_least=1),
    _def("auto.create.topics.enable", _T.BOOLEAN, "true",
         "Enable auto creation of topic on the server.", dynamic=False),
    _def("num.replica.fetchers", _T.INT, "1",
         "Number of fetcher threads used to replicate records from each source broker."),
    _def("replica.fetch.max.bytes", _T.INT, "1048576",
         "The number of bytes of messages to attempt to fetch for each partition.",
         dynamic=False, at_least=0),
    _def("replica.socket.timeout.ms", _T.INT, "30000",
         "The socket timeout for network requests. Its value should be at least replica.fetch.wait.max.ms.",
         dynamic=False),
    _def("auto.leader.rebalance.enable", _T.BOOLEAN, "true",
         "Enables auto leader balancing.", dynamic=False),
    _def("leader.imbalance.check.interval.seconds", _T.LONG, "300",
         "The frequency with which the partition rebalance check is triggered by the controller.",
         dynamic=False, at_least=1),
    _def("leader.imbalance.per.broker.percentage", _T.INT, "10",
         "The ratio of leader imbalance allowed per broker, in percent.", dynamic=False),
    _def("leader.replication.throttled.rate", _T.LONG, LONG_MAX,
         "The upper bound (bytes/sec) on replication traffic for leaders enumerated in the property "
         "leader.replication.throttled.replicas (for each topic). Only settable dynamically.", at_least=0),
    _def("follower.replication.throttled.rate", _T.LONG, LONG_MAX,
         "The upper bound (bytes/sec) on replication traffic for followers enumerated in the property "
         "follower.replication.throttled.replicas (for each topic). Only settable dynamically.", at_least=0),
    # ---- log defaults (broker synonyms of topic configs): all dynamic, cluster-wide
    _def("log.cleanup.policy", _T.LIST, "delete",
         "The default cleanup policy for segments beyond the retention window. A comma separated list of "
         "valid policies.", list_of=_CLEANUP_POLICIES),
    _def("compression.type", _T.STRING, "producer",
         "The final compression type for a given topic: 'gzip', 'snappy', 'lz4', 'zstd', 'uncompressed', or "
         "'producer' to retain the codec set by the producer.", one_of=_COMPRESSION_TYPES),
    _def("log.cleaner.delete.retention.ms", _T.LONG, "86400000",
         "The amount of time to retain tombstone message markers for log compacted topics.", at_least=0),
    _def("log.segment.delete.delay.ms", _T.LONG, "60000",
         "The amount of time to wait before deleting a file from the filesystem.", at_least=0),
    _def("log.flush.interval.messages", _T.LONG, LONG_MAX,
         "The number of messages accumulated on a log partition before messages are flushed to disk.",
         at_least=1),
    _def("log.flush.interval.ms", _T.LONG, LONG_MAX,
         "The maximum time in ms that a message in any topic is kept in memory before flushed to disk."),
    _def("log.index.interval.bytes", _T.INT, "4096",
         "The interval with which we add an entry to the offset index.", at_least=0),
    _def("log.cleaner.max.compaction.lag.ms", _T.LONG, LONG_MAX,
         "The maximum time a message will remain ineligible for compaction in the log.", at_least=1),
    _def("message.max.bytes", _T.INT, "1048588",
         "The largest record batch size allowed by Kafka (after compression if compression is enabled).",
         at_least=0),
    _def("log.message.timestamp.type", _T.STRING, "CreateTime",
         "Whether the timestamp in the message is message create time or log append time.",
         one_of=_TIMESTAMP_TYPES),
    _def("log.cleaner.min.cleanable.ratio", _T.DOUBLE, "0.5",
         "The minimum ratio of dirty log to total log for a log to be eligible for cleaning.",
         at_least=0, at_most=1),
    _def("log.cleaner.min.compaction.lag.ms", _T.LONG, "0",
         "The minimum time a message will remain uncompacted in the log.", at_least=0),
    _def("log.preallocate", _T.BOOLEAN, "false",
         "Should pre allocate file when create new segment?"),
    _def("log.retention.hours", _T.INT, "168",
         "The number of hours to keep a log file before deleting it (tertiary to log.retention.ms).",
         dynamic=False),  # read-only on Kafka 4.1: only log.retention.ms is dynamic (seen on the lab)
    _def("log.retention.bytes", _T.LONG, "-1",
         "The maximum size of the log before deleting it."),
    _def("log.retention.ms", _T.LONG, "604800000",
         "The number of milliseconds to keep a log file before deleting it. If not set, the value in "
         "log.retention.minutes is used. If set to -1, no time limit is applied.", at_least=-1),
    _def("log.segment.bytes", _T.INT, "1073741824",
         "The maximum size of a single log file.", at_least=1024 * 1024),
    _def("log.index.size.max.bytes", _T.INT, "10485760",
         "The maximum size in bytes of the offset index.", at_least=4),
    _def("log.roll.jitter.ms", _T.LONG, "0",
         "The maximum jitter to subtract from logRollTimeMillis (in milliseconds)."),
    _def("log.roll.ms", _T.LONG, "604800000",
         "The maximum time before a new log segment is rolled out (in milliseconds)."),
    # ---- group coordinator
    _def("group.initial.rebalance.delay.ms", _T.INT, "3000",
         "The amount of time the group coordinator will wait for more consumers to join a new group before "
         "performing the first rebalance.", dynamic=False),
    # ---- threads: DynamicThreadPool (cluster-wide) and num.network.threads (cluster-level listener config)
    _def("background.threads", _T.INT, "10",
         "The number of threads to use for various background processing tasks.", at_least=1),
    _def("num.io.threads", _T.INT, "8",
         "The number of threads that the server uses for processing requests, which may include disk I/O.",
         at_least=1),
    _def("num.network.threads", _T.INT, "3",
         "The number of threads that the server uses for receiving requests from the network and sending "
         "responses to the network.", at_least=1),
    # ---- security: per-broker only (DynamicBrokerConfig.PER_BROKER_CONFIGS)
    _def("ssl.keystore.password", _T.PASSWORD, None,
         "The store password for the key store file.", per_broker=True),
    _def("sasl.jaas.config", _T.PASSWORD, None,
         "JAAS login context parameters for SASL connections in the format used by JAAS configuration files.",
         per_broker=True),
]

BROKER_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in _BROKER_DEFS}
"""Broker configs, in the order describe_broker lists them."""

# SslConfigs.RECONFIGURABLE_CONFIGS: Kafka refuses these without a listener.name.<l>. prefix.
_LISTENER_PREFIX_ONLY = frozenset({"ssl.keystore.password"})
# Thread pools Kafka resizes dynamically, with its "half to double the current value" rule.
_THREAD_POOLS = frozenset({"num.io.threads", "num.network.threads", "num.replica.fetchers", "background.threads"})


def _check_catalog() -> None:
    for d in TOPIC_CONFIGS.values():
        assert d.broker_synonym is None or d.broker_synonym in BROKER_CONFIGS, d.name
        assert d.dynamic, d.name


_check_catalog()


def _sorted_set(names: Iterable[str]) -> str:
    """A Java Set's toString, in a stable order."""
    return "[" + ", ".join(sorted(names)) + "]"


# --------------------------------------------------------------------------- the store

_BrokerKey: TypeAlias = int | None  # None is the cluster-wide default resource ""


class ConfigStore:
    """Static, dynamic and per-topic configs of one simulated cluster.

    Resolution (Kafka's precedence): topic override, then the topic config's broker synonym
    set dynamically for the broker, then dynamically as the cluster default, then statically in
    the broker's ``server.properties``, then Kafka's default.
    """

    def __init__(self, broker_ids: Iterable[int], static: dict[int, dict[str, str]] | None = None) -> None:
        self._static: dict[int, dict[str, str]] = {}
        self._dyn_broker: dict[int, dict[str, str]] = {}
        self._dyn_default: dict[str, str] = {}
        self._topics: dict[str, dict[str, str]] = {}
        self._version = 0
        self._lowest: int | None = None
        self._mir_cache: dict[str, int] = {}
        self._unclean_cache: dict[str, bool] = {}
        self._lag_cache: dict[int, int] = {}
        self._cluster_cache: dict[str, str | None] = {}
        static = dict(static or {})
        ids = list(broker_ids)
        unknown = set(static) - set(ids)
        if unknown:
            raise ValueError(f"static configs for unknown brokers {sorted(unknown)}")
        for broker_id in ids:
            self.add_broker(broker_id, static.get(broker_id))

    # ------------------------------------------------------------------ bookkeeping
    def version(self) -> int:
        """A counter that bumps on every change (for callers' caches)."""
        return self._version

    def _changed(self) -> None:
        self._version += 1
        self._mir_cache.clear()
        self._unclean_cache.clear()
        self._lag_cache.clear()
        self._cluster_cache.clear()

    def broker_ids(self) -> list[int]:
        """The brokers the store knows, ascending."""
        return sorted(self._static)

    def has_topic(self, topic: str) -> bool:
        """Whether `topic` was added."""
        return topic in self._topics

    # ------------------------------------------------------------------ brokers and topics
    def add_broker(self, broker_id: int, static: dict[str, str] | None = None) -> None:
        """Register a broker with its ``server.properties`` values (STATIC_BROKER_CONFIG).

        ``broker.id`` and ``node.id`` are always the broker's id. Values of known configs are
        validated (ConfigError 40); unknown keys are kept, as Kafka keeps custom configs.
        """
        if broker_id in self._static:
            raise ValueError(f"broker {broker_id} already exists")
        props: dict[str, str] = {}
        for key, value in (static or {}).items():
            if key in ("broker.id", "node.id"):
                continue
            defn = BROKER_CONFIGS.get(key)
            if defn is None:
                props[key] = value
                continue
            error = defn.validator(value)
            if error:
                raise ConfigError(INVALID_CONFIG, error)
            props[key] = _canonical(defn.type, value)
        props["broker.id"] = str(broker_id)
        props["node.id"] = str(broker_id)
        self._static[broker_id] = props
        self._dyn_broker[broker_id] = {}
        self._lowest = min(self._static)
        self._changed()

    def add_topic(self, topic: str, overrides: dict[str, str] | None = None, *, validate_only: bool = False) -> None:
        """Create a topic's config overrides (CreateTopics' configs); ConfigError 40/36 on failure."""
        if topic in self._topics:
            raise ConfigError(TOPIC_ALREADY_EXISTS, f"Topic '{topic}' already exists.")
        raw = {k: v for k, v in (overrides or {}).items() if v is not None}
        new = self._validate_topic(topic, raw, set(raw))
        if validate_only:
            return
        self._topics[topic] = new
        self._changed()

    def remove_topic(self, topic: str) -> None:
        """Forget a deleted topic's overrides (no-op if unknown)."""
        if self._topics.pop(topic, None) is not None:
            self._changed()

    def topic_overrides(self, topic: str) -> dict[str, str]:
        """A copy of the topic's DYNAMIC_TOPIC_CONFIG values."""
        return dict(self._topic(topic))

    def dynamic_broker_configs(self, broker_id: int | None) -> dict[str, str]:
        """A copy of the dynamic configs of one broker, or of the cluster default (None)."""
        if broker_id is None:
            return dict(self._dyn_default)
        self._check_broker(broker_id)
        return dict(self._dyn_broker[broker_id])

    def _topic(self, topic: str) -> dict[str, str]:
        try:
            return self._topics[topic]
        except KeyError:
            raise ConfigError(UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{topic}' does not exist.") from None

    def _check_broker(self, broker_id: int) -> None:
        if broker_id not in self._static:
            # What a broker answers for a broker resource that is not its own (ConfigHelper /
            # ConfigAdminManager): INVALID_REQUEST. A controller would say BROKER_ID_NOT_REGISTERED (102).
            raise ConfigError(
                INVALID_REQUEST,
                f"Unexpected broker id, expected {sorted(self._static)} or empty string, "
                f"but received {broker_id}",
            )

    # ------------------------------------------------------------------ resolution
    def _broker_chain(
        self,
        key: str,
        broker_id: int | None,
        dyn_broker: dict[str, str] | None = None,
        dyn_default: dict[str, str] | None = None,
    ) -> list[Synonym]:
        """The sources a broker config is set at, highest precedence first (Kafka's synonym order)."""
        chain: list[Synonym] = []
        if broker_id is not None:
            per_broker = self._dyn_broker[broker_id] if dyn_broker is None else dyn_broker
            if key in per_broker:
                chain.append(Synonym(key, per_broker[key], ConfigSource.DYNAMIC_BROKER_CONFIG))
        default = self._dyn_default if dyn_default is None else dyn_default
        if key in default:
            chain.append(Synonym(key, default[key], ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG))
        static_id = broker_id if broker_id is not None else self._lowest
        if static_id is not None:
            static = self._static[static_id]
            if key in static:
                chain.append(Synonym(key, static[key], ConfigSource.STATIC_BROKER_CONFIG))
        defn = BROKER_CONFIGS.get(key)
        if defn is not None and defn.default is not None:
            chain.append(Synonym(key, defn.default, ConfigSource.DEFAULT_CONFIG))
        return chain

    def _topic_chain(self, topic_overrides: dict[str, str], defn: ConfigDef, broker_id: int | None) -> list[Synonym]:
        chain: list[Synonym] = []
        if defn.name in topic_overrides:
            chain.append(Synonym(defn.name, topic_overrides[defn.name], ConfigSource.DYNAMIC_TOPIC_CONFIG))
        if defn.broker_synonym is not None:
            broker = self._broker_chain(defn.broker_synonym, broker_id)
            if defn.broker_synonym in DERIVED_BROKER_DEFAULTS:
                # Kafka's default of this broker key is null (derived from an hours/scheduler key,
                # which ConfigHelper.configSynonyms drops): a topic lists no DEFAULT_CONFIG synonym
                broker = [s for s in broker if s.source != ConfigSource.DEFAULT_CONFIG]
            chain.extend(broker)
        return chain

    def effective_topic(self, topic: str, key: str, broker_id: int | None = None) -> tuple[str | None, ConfigSource]:
        """A topic config's value and source, as broker `broker_id` (or the cluster) sees it."""
        overrides = self._topic(topic)
        defn = TOPIC_CONFIGS.get(key)
        if defn is None:
            raise ConfigError(INVALID_CONFIG, f"Unknown topic config name: {key}")
        if broker_id is not None:
            self._check_broker(broker_id)
        chain = self._topic_chain(overrides, defn, broker_id)
        if chain:
            return chain[0].value, chain[0].source
        return defn.default, ConfigSource.DEFAULT_CONFIG

    def effective_broker(self, broker_id: int, key: str) -> tuple[str | None, ConfigSource]:
        """A broker config's value and source on `broker_id` (None, DEFAULT_CONFIG if unset)."""
        self._check_broker(broker_id)
        chain = self._broker_chain(key, broker_id)
        if chain:
            return chain[0].value, chain[0].source
        return None, ConfigSource.DEFAULT_CONFIG

    def _cluster_topic_value(self, key: str) -> str | None:
        """A topic config's value for a topic without overrides (cluster view, memoised)."""
        try:
            return self._cluster_cache[key]
        except KeyError:
            pass
        defn = TOPIC_CONFIGS[key]
        value = defn.default
        if defn.broker_synonym is not None:
            chain = self._broker_chain(defn.broker_synonym, None)
            if chain:
                value = chain[0].value
        self._cluster_cache[key] = value
        return value

    def _override_or_cluster(self, overrides: dict[str, str], key: str) -> str | None:
        return overrides[key] if key in overrides else self._cluster_topic_value(key)

    # ------------------------------------------------------------------ fast helpers
    def min_insync_replicas(self, topic: str) -> int:
        """The topic's effective min.insync.replicas (memoised; unknown topics get the cluster value)."""
        try:
            return self._mir_cache[topic]
        except KeyError:
            pass
        value = int(self._override_or_cluster(self._topics.get(topic, {}), "min.insync.replicas") or 1)
        self._mir_cache[topic] = value
        return value

    def unclean_enabled(self, topic: str) -> bool:
        """The topic's effective unclean.leader.election.enable (memoised)."""
        try:
            return self._unclean_cache[topic]
        except KeyError:
            pass
        value = self._override_or_cluster(self._topics.get(topic, {}), "unclean.leader.election.enable") == "true"
        self._unclean_cache[topic] = value
        return value

    def replica_lag_time_max_ms(self, broker_id: int) -> int:
        """replica.lag.time.max.ms on `broker_id` (memoised)."""
        try:
            return self._lag_cache[broker_id]
        except KeyError:
            pass
        value, _ = self.effective_broker(broker_id, "replica.lag.time.max.ms")
        result = int(value or 30000)
        self._lag_cache[broker_id] = result
        return result

    # ------------------------------------------------------------------ describe
    def describe_topic(
        self,
        topic: str,
        keys: Iterable[str] | None,
        include_synonyms: bool,
        broker_id: int | None = None,
    ) -> list[ConfigEntry]:
        """DescribeConfigs for a topic (as broker `broker_id` answers, or the cluster view)."""
        overrides = self._topic(topic)
        if broker_id is not None:
            self._check_broker(broker_id)
        wanted = None if keys is None else set(keys)
        entries: list[ConfigEntry] = []
        for defn in TOPIC_CONFIGS.values():
            if wanted is not None and defn.name not in wanted:
                continue
            chain = self._topic_chain(overrides, defn, broker_id)
            if chain:
                value, source = chain[0].value, chain[0].source
            else:
                value, source = defn.default, ConfigSource.DEFAULT_CONFIG
            entries.append(self._entry(defn, value, source, read_only=False, chain=chain, include=include_synonyms))
        return entries

    def describe_broker(self, broker_id: int, keys: Iterable[str] | None, include_synonyms: bool) -> list[ConfigEntry]:
        """DescribeConfigs for broker resource ``str(broker_id)``."""
        self._check_broker(broker_id)
        names = list(BROKER_CONFIGS)
        custom = set(self._static[broker_id]) | set(self._dyn_broker[broker_id]) | set(self._dyn_default)
        names.extend(sorted(custom - set(BROKER_CONFIGS)))
        wanted = None if keys is None else set(keys)
        entries: list[ConfigEntry] = []
        for name in names:
            if wanted is not None and name not in wanted:
                continue
            chain = self._broker_chain(name, broker_id)
            value, source = (chain[0].value, chain[0].source) if chain else (None, ConfigSource.DEFAULT_CONFIG)
            defn = BROKER_CONFIGS.get(name)
            entries.append(self._broker_entry(name, defn, value, source, chain, include_synonyms))
        return entries

    def describe_broker_default(self, keys: Iterable[str] | None, include_synonyms: bool) -> list[ConfigEntry]:
        """DescribeConfigs for broker resource "": only what is set as a cluster-wide dynamic default."""
        wanted = None if keys is None else set(keys)
        names = [n for n in BROKER_CONFIGS if n in self._dyn_default]
        names.extend(sorted(set(self._dyn_default) - set(BROKER_CONFIGS)))
        entries: list[ConfigEntry] = []
        for name in names:
            if wanted is not None and name not in wanted:
                continue
            synonym = Synonym(name, self._dyn_default[name], ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
            defn = BROKER_CONFIGS.get(name)
            entries.append(
                self._broker_entry(name, defn, synonym.value, synonym.source, [synonym], include_synonyms)
            )
        return entries

    def _broker_entry(
        self,
        name: str,
        defn: ConfigDef | None,
        value: str | None,
        source: ConfigSource,
        chain: list[Synonym],
        include: bool,
    ) -> ConfigEntry:
        if defn is None:
            # Kafka treats configs it has no type for as sensitive (KafkaConfig.maybeSensitive).
            return ConfigEntry(
                name=name,
                value=None,
                source=source,
                read_only=True,
                is_default=source is ConfigSource.DEFAULT_CONFIG,
                sensitive=True,
                type=ConfigType.UNKNOWN,
                doc="",
                synonyms=tuple(Synonym(s.name, None, s.source) for s in chain) if include else (),
            )
        return self._entry(defn, value, source, read_only=not defn.dynamic, chain=chain, include=include)

    @staticmethod
    def _entry(
        defn: ConfigDef,
        value: str | None,
        source: ConfigSource,
        *,
        read_only: bool,
        chain: list[Synonym],
        include: bool,
    ) -> ConfigEntry:
        synonyms: tuple[Synonym, ...] = ()
        if include:
            synonyms = tuple(Synonym(s.name, None, s.source) for s in chain) if defn.sensitive else tuple(chain)
        return ConfigEntry(
            name=defn.name,
            value=None if defn.sensitive else value,
            source=source,
            read_only=read_only,
            is_default=source is ConfigSource.DEFAULT_CONFIG,
            sensitive=defn.sensitive,
            type=defn.type,
            doc=defn.doc,
            synonyms=synonyms,
        )

    # ------------------------------------------------------------------ alter
    def _resource(self, resource: tuple[str, str]) -> tuple[str, str | int | None]:
        kind, name = resource
        if kind == "topic":
            return kind, name
        if kind == "broker":
            if name == "":
                return kind, None
            try:
                broker_id = int(name)
            except ValueError:
                raise ConfigError(INVALID_REQUEST, f"Broker id must be an integer, but it is: {name}") from None
            self._check_broker(broker_id)
            return kind, broker_id
        raise ConfigError(INVALID_REQUEST, f"Unsupported resource type: {kind}")

    def incremental_alter(
        self,
        resource: tuple[str, str],
        ops: list[tuple[str, int, str | None]],
        validate_only: bool,
    ) -> None:
        """IncrementalAlterConfigs on ("topic", name), ("broker", "3") or ("broker", "").

        Ops are (name, op, value) with op 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT. Every op is
        validated before anything changes; nothing changes on error or when `validate_only`.
        """
        kind, target = self._resource(resource)
        names = [name for name, _, _ in ops]
        if len(set(names)) != len(names):
            raise ConfigError(INVALID_REQUEST, "Error due to duplicate config keys")
        for name, op, _ in ops:
            if op not in _OP_NAMES:
                raise ConfigError(INVALID_REQUEST, f"Unknown alter config operation {op} for config {name}")
        if kind == "topic":
            assert isinstance(target, str)
            self._alter_topic_incremental(target, ops, validate_only)
        else:
            assert target is None or isinstance(target, int)
            self._alter_broker_incremental(target, ops, validate_only)

    def _alter_topic_incremental(self, topic: str, ops: list[tuple[str, int, str | None]], validate_only: bool) -> None:
        current = self._topics.get(topic, {})
        new = dict(current)
        touched: set[str] = set()
        for name, op, value in ops:
            if op == OP_SET and value is not None:
                new[name] = value
                touched.add(name)
            elif op in (OP_SET, OP_DELETE):
                new.pop(name, None)  # a null SET deletes, as a null ConfigRecord does
            else:
                defn = TOPIC_CONFIGS.get(name)
                if defn is None or defn.type is not ConfigType.LIST:
                    raise ConfigError(
                        INVALID_CONFIG, f"Can't {_OP_NAMES[op]} to key {name} because its type is not LIST."
                    )
                new[name] = _splice(new.get(name, defn.default), op, value)
                touched.add(name)
        validated = self._validate_topic(topic, new, touched)
        # the controller validates the values first, then checks that the topic exists
        self._topic(topic)
        if validate_only or validated == current:
            return
        self._topics[topic] = validated
        self._changed()

    def _alter_broker_incremental(
        self, broker_id: _BrokerKey, ops: list[tuple[str, int, str | None]], validate_only: bool
    ) -> None:
        current = self._dyn_default if broker_id is None else self._dyn_broker[broker_id]
        new = dict(current)
        touched: set[str] = set()
        for name, op, value in ops:
            if op == OP_SET and value is not None:
                new[name] = value
                touched.add(name)
            elif op in (OP_SET, OP_DELETE):
                new.pop(name, None)
                touched.add(name)
            else:
                defn = BROKER_CONFIGS.get(name)
                if defn is None or defn.type is not ConfigType.LIST:
                    # ConfigAdminManager.prepareIncrementalConfigs, on the broker
                    verb = "append" if op == OP_APPEND else "subtract"
                    raise ConfigError(INVALID_REQUEST, f"Config value {verb} is not allowed for config key: {name}")
                # the controller splices onto the stored value, else the ConfigDef default
                new[name] = _splice(new.get(name, defn.default), op, value)
                touched.add(name)
        validated = self._validate_broker(broker_id, new, touched)
        if validate_only or validated == current:
            return
        self._set_broker_dynamic(broker_id, validated)

    def alter_legacy(self, resource: tuple[str, str], entries: dict[str, str | None], validate_only: bool) -> None:
        """Legacy AlterConfigs: REPLACES the resource's whole override set with `entries`.

        Every topic override / dynamic broker config not named in `entries` is dropped, as
        Kafka's ConfigurationControlManager.legacyAlterConfigResource does. None values are dropped.
        """
        kind, target = self._resource(resource)
        new = {k: v for k, v in entries.items() if v is not None}
        if kind == "topic":
            assert isinstance(target, str)
            validated = self._validate_topic(target, new, set(new))
            current = self._topic(target)
            if validate_only or validated == current:
                return
            self._topics[target] = validated
            self._changed()
            return
        assert target is None or isinstance(target, int)
        old = self._dyn_default if target is None else self._dyn_broker[target]
        validated = self._validate_broker(target, new, set(new) | set(old))
        if validate_only or validated == old:
            return
        self._set_broker_dynamic(target, validated)

    def _set_broker_dynamic(self, broker_id: _BrokerKey, values: dict[str, str]) -> None:
        if broker_id is None:
            self._dyn_default = values
        else:
            self._dyn_broker[broker_id] = values
        self._changed()

    # ------------------------------------------------------------------ validation
    def _validate_topic(self, topic: str, new: dict[str, str], touched: set[str]) -> dict[str, str]:
        """Check a topic's whole new override set (Kafka's LogConfig.validate); return it canonicalised."""
        for name in new:
            if name not in TOPIC_CONFIGS:
                raise ConfigError(INVALID_CONFIG, f"Unknown topic config name: {name}")
        out: dict[str, str] = {}
        for name, value in new.items():
            defn = TOPIC_CONFIGS[name]
            if name in touched:
                error = defn.validator(value)
                if error:
                    raise ConfigError(INVALID_CONFIG, error)
                value = _canonical(defn.type, value)
            out[name] = value
        if "min.compaction.lag.ms" in touched or "max.compaction.lag.ms" in touched:
            low = int(self._override_or_cluster(out, "min.compaction.lag.ms") or 0)
            high = int(self._override_or_cluster(out, "max.compaction.lag.ms") or LONG_MAX)
            if low > high:
                raise ConfigError(
                    INVALID_CONFIG,
                    f"conflict topic config setting min.compaction.lag.ms ({low}) > max.compaction.lag.ms ({high})",
                )
        return out

    def _validate_broker(self, broker_id: _BrokerKey, new: dict[str, str], touched: set[str]) -> dict[str, str]:
        """Kafka's DynamicBrokerConfig.validateConfigs on a resource's whole new dynamic set.

        Failures are INVALID_REQUEST (42): the broker wraps ConfigException that way (KAFKA-13609).
        """
        static_only = [n for n in new if n in BROKER_CONFIGS and not BROKER_CONFIGS[n].dynamic]
        if static_only:
            raise ConfigError(INVALID_REQUEST, f"Cannot update these configs dynamically: {_sorted_set(static_only)}")
        unprefixed = [n for n in new if n in _LISTENER_PREFIX_ONLY]
        if unprefixed:
            raise ConfigError(
                INVALID_REQUEST,
                "These security configs can be dynamically updated only per-listener using the listener prefix: "
                + _sorted_set(unprefixed),
            )
        out: dict[str, str] = {}
        for name, value in new.items():
            defn = BROKER_CONFIGS.get(name)
            if defn is not None and name in touched:
                error = defn.validator(value)
                if error:
                    raise ConfigError(INVALID_REQUEST, error)
                value = _canonical(defn.type, value)
            out[name] = value
        if broker_id is None:
            per_broker = [n for n in out if n in BROKER_CONFIGS and BROKER_CONFIGS[n].per_broker]
            if per_broker:
                raise ConfigError(
                    INVALID_REQUEST,
                    "Cannot update these configs at default cluster level, broker id must be specified: "
                    + _sorted_set(per_broker),
                )
        self._check_thread_pools(broker_id, out, touched)
        return out

    def _resolve_broker(
        self,
        key: str,
        broker_id: _BrokerKey,
        new_values: dict[str, str] | None = None,
        on_broker: int | None = None,
    ) -> tuple[str | None, ConfigSource]:
        """Resolve `key` on a broker, optionally with `new_values` replacing resource `broker_id`'s set."""
        target = on_broker if on_broker is not None else broker_id
        dyn_broker = new_values if (new_values is not None and broker_id is not None) else None
        dyn_default = new_values if (new_values is not None and broker_id is None) else None
        chain = self._broker_chain(key, target, dyn_broker=dyn_broker, dyn_default=dyn_default)
        if chain:
            return chain[0].value, chain[0].source
        return None, ConfigSource.DEFAULT_CONFIG

    def _check_thread_pools(self, broker_id: _BrokerKey, new: dict[str, str], touched: set[str]) -> None:
        """DynamicThreadPool's rule: a pool may shrink to half or grow to double its current size."""
        keys = touched & _THREAD_POOLS
        if not keys:
            return
        brokers = [broker_id] if broker_id is not None else self.broker_ids()
        for b in brokers:
            for key in sorted(keys):
                old_raw, _ = self._resolve_broker(key, b)
                new_raw, _ = self._resolve_broker(key, broker_id, new, on_broker=b)
                old, value = int(old_raw or 1), int(new_raw or 1)
                if value == old:
                    continue
                problem = None
                if value <= 0:
                    problem = "value should be at least 1"
                elif value < old / 2:
                    problem = f"value should be at least half the current value {old}"
                elif value > old * 2:
                    problem = f"value should not be greater than double the current value {old}"
                if problem:
                    # Kafka wraps the reconfiguration failure as ConfigException("Invalid dynamic
                    # configuration", e), whose (name, value) constructor yields this odd text.
                    inner = f"Dynamic thread count update validation failed for {key}={value}, {problem}"
                    raise ConfigError(
                        INVALID_REQUEST,
                        f"Invalid value org.apache.kafka.common.config.ConfigException: {inner} "
                        "for configuration Invalid dynamic configuration",
                    )


def _splice(current: str | None, op: int, value: str | None) -> str:
    """APPEND / SUBTRACT on a LIST value, as ConfigurationControlManager does it."""
    parts = [p for p in (current or "").split(",") if p]
    for item in (value or "").split(","):
        if op == OP_APPEND:
            if item and item not in parts:
                parts.append(item)
        elif item in parts:
            parts.remove(item)
    return ",".join(parts)

