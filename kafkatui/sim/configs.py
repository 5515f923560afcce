"""The store the simulator's config APIs answer from.

:class:`ConfigStore` resolves values through the five sources DescribeConfigs reports
(topic override, dynamic per-broker, dynamic cluster default, static ``server.properties``,
Kafka's default) and applies IncrementalAlterConfigs / AlterConfigs with Kafka's validation
and error codes. The catalog it validates against (names, types, defaults, validators) lives in
:mod:`kafkatui.sim.configdefs`; its public names are re-exported here. Pure Python: no network,
no UI imports. A little over 600 lines: resolution, DescribeConfigs entries and both alter paths
share the per-resource validation, which splitting would put on both sides of an import.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias

from kafkatui.sim.configdefs import BROKER_CONFIGS, DERIVED_BROKER_DEFAULTS, TOPIC_CONFIGS
from kafkatui.sim.configtypes import (
    INVALID_CONFIG,
    INVALID_REQUEST,
    LONG_MAX,
    OP_APPEND,
    OP_DELETE,
    OP_NAMES,
    OP_SET,
    OP_SUBTRACT,
    TOPIC_ALREADY_EXISTS,
    UNKNOWN_TOPIC_OR_PARTITION,
    ConfigDef,
    ConfigEntry,
    ConfigError,
    ConfigSource,
    ConfigType,
    Synonym,
    canonical,
)

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

# SslConfigs.RECONFIGURABLE_CONFIGS: Kafka refuses these without a listener.name.<l>. prefix.
_LISTENER_PREFIX_ONLY = frozenset({"ssl.keystore.password"})
# Thread pools Kafka resizes dynamically, with its "half to double the current value" rule.
_THREAD_POOLS = frozenset({"num.io.threads", "num.network.threads", "num.replica.fetchers", "background.threads"})


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

    def topic_view_of(self, broker_id: int) -> tuple[Any, ...]:
        """What a topic's DescribeConfigs answer depends on besides the topic and the cluster defaults:
        the answering broker's static and dynamic per-broker settings (equal for brokers set alike)."""
        return (tuple(sorted(self._static[broker_id].items())), tuple(sorted(self._dyn_broker[broker_id].items())))

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
            props[key] = canonical(defn.type, value)
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
                f"Unexpected broker id, expected {sorted(self._static)} or empty string, but received {broker_id}",
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
            entries.append(self._broker_entry(name, defn, synonym.value, synonym.source, [synonym], include_synonyms))
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
            if op not in OP_NAMES:
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
                        INVALID_CONFIG, f"Can't {OP_NAMES[op]} to key {name} because its type is not LIST."
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
                value = canonical(defn.type, value)
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
                value = canonical(defn.type, value)
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
