"""Tests for the simulator's Kafka config catalog and ConfigStore."""

from __future__ import annotations

import pytest

from kafkatui.sim.configs import (
    BROKER_CONFIGS,
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    TOPIC_CONFIGS,
    ConfigEntry,
    ConfigError,
    ConfigSource,
    ConfigStore,
    ConfigType,
    Synonym,
)

S = ConfigSource


@pytest.fixture
def store() -> ConfigStore:
    s = ConfigStore([1, 2, 3])
    s.add_topic("orders", {"retention.ms": "3600000"})
    return s


def entry(entries: list[ConfigEntry], name: str) -> ConfigEntry:
    matches = [e for e in entries if e.name == name]
    assert len(matches) == 1, f"{name}: {matches}"
    return matches[0]


def error_of(call: object, *args: object) -> ConfigError:
    assert callable(call)
    with pytest.raises(ConfigError) as info:
        call(*args)
    return info.value


# ---------------------------------------------------------------------------- catalog


def test_catalog_has_kafkas_defaults_and_types() -> None:
    assert BROKER_CONFIGS["replica.lag.time.max.ms"].default == "30000"
    assert BROKER_CONFIGS["replica.lag.time.max.ms"].type is ConfigType.LONG
    assert BROKER_CONFIGS["offsets.topic.replication.factor"].type is ConfigType.SHORT
    assert BROKER_CONFIGS["message.max.bytes"].default == "1048588"
    assert BROKER_CONFIGS["log.segment.bytes"].default == "1073741824"
    assert BROKER_CONFIGS["transaction.state.log.min.isr"].default == "2"
    assert TOPIC_CONFIGS["retention.ms"].broker_synonym == "log.retention.ms"
    assert TOPIC_CONFIGS["cleanup.policy"].broker_synonym == "log.cleanup.policy"
    assert TOPIC_CONFIGS["max.message.bytes"].broker_synonym == "message.max.bytes"
    assert TOPIC_CONFIGS["min.cleanable.dirty.ratio"].default == "0.5"
    assert "message.downconversion.enable" not in TOPIC_CONFIGS
    throttled = TOPIC_CONFIGS["leader.replication.throttled.replicas"]
    assert (throttled.type, throttled.default, throttled.broker_synonym) == (ConfigType.LIST, "", None)
    assert list(TOPIC_CONFIGS) == sorted(TOPIC_CONFIGS)
    for defn in TOPIC_CONFIGS.values():
        assert defn.dynamic
        assert defn.broker_synonym is None or BROKER_CONFIGS[defn.broker_synonym].dynamic


def test_catalog_dynamic_flags_follow_kafka() -> None:
    dynamic = {n for n, d in BROKER_CONFIGS.items() if d.dynamic}
    assert {
        "min.insync.replicas",
        "unclean.leader.election.enable",
        "log.retention.ms",
        "num.io.threads",
        "num.network.threads",
        "background.threads",
        "num.replica.fetchers",
        "ssl.keystore.password",
        "message.max.bytes",
        "compression.type",
        "log.cleanup.policy",
    } <= dynamic
    static = {
        "broker.id",
        "broker.rack",
        "log.dirs",
        "default.replication.factor",
        "num.partitions",
        "offsets.topic.replication.factor",
        "transaction.state.log.replication.factor",
        "transaction.state.log.min.isr",
        "replica.lag.time.max.ms",
        "advertised.listeners",
    }
    assert not static & dynamic
    assert BROKER_CONFIGS["ssl.keystore.password"].sensitive
    assert BROKER_CONFIGS["sasl.jaas.config"].type is ConfigType.PASSWORD


def test_validators_return_kafka_messages() -> None:
    mir = TOPIC_CONFIGS["min.insync.replicas"].validator
    assert mir("2") is None
    assert mir("0") == "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"
    assert mir("1.5") == "Invalid value 1.5 for configuration min.insync.replicas: Not a number of type INT"
    assert mir("99999999999") is not None  # out of INT range
    boolean = TOPIC_CONFIGS["unclean.leader.election.enable"].validator
    assert boolean("TRUE") is None
    assert boolean("yes") == (
        "Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false"
    )
    policy = TOPIC_CONFIGS["cleanup.policy"].validator
    for ok in ("delete", "compact", "compact,delete", "delete, compact"):
        assert policy(ok) is None
    assert policy("compact,shred") == (
        "Invalid value shred for configuration cleanup.policy: String must be one of: compact, delete"
    )
    compression = TOPIC_CONFIGS["compression.type"].validator
    assert compression("zstd") is None
    assert compression("brotli") == (
        "Invalid value brotli for configuration compression.type: "
        "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"
    )
    ratio = TOPIC_CONFIGS["min.cleanable.dirty.ratio"].validator
    assert ratio("0.9") is None
    assert ratio("1.5") == "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"
    assert TOPIC_CONFIGS["segment.bytes"].validator("1024") is not None  # below 1 MiB
    replicas = TOPIC_CONFIGS["follower.replication.throttled.replicas"].validator
    assert replicas("*") is None and replicas("0:1,1:2") is None and replicas("") is None
    assert replicas("0-1") is not None


# ---------------------------------------------------------------------------- resolution


def test_min_insync_replicas_resolves_through_all_five_sources() -> None:
    s = ConfigStore([1, 2], {1: {"min.insync.replicas": "2"}, 2: {}})
    s.add_topic("t")
    # DEFAULT_CONFIG: broker 2 has nothing in server.properties
    assert s.effective_topic("t", "min.insync.replicas", broker_id=2) == ("1", S.DEFAULT_CONFIG)
    # STATIC_BROKER_CONFIG
    assert s.effective_topic("t", "min.insync.replicas", broker_id=1) == ("2", S.STATIC_BROKER_CONFIG)
    # DYNAMIC_DEFAULT_BROKER_CONFIG beats static
    s.incremental_alter(("broker", ""), [("min.insync.replicas", OP_SET, "3")], False)
    assert s.effective_topic("t", "min.insync.replicas", broker_id=1) == ("3", S.DYNAMIC_DEFAULT_BROKER_CONFIG)
    # DYNAMIC_BROKER_CONFIG beats the cluster default, but only on that broker
    s.incremental_alter(("broker", "1"), [("min.insync.replicas", OP_SET, "4")], False)
    assert s.effective_topic("t", "min.insync.replicas", broker_id=1) == ("4", S.DYNAMIC_BROKER_CONFIG)
    assert s.effective_topic("t", "min.insync.replicas", broker_id=2) == ("3", S.DYNAMIC_DEFAULT_BROKER_CONFIG)
    # DYNAMIC_TOPIC_CONFIG beats everything
    s.incremental_alter(("topic", "t"), [("min.insync.replicas", OP_SET, "5")], False)
    assert s.effective_topic("t", "min.insync.replicas", broker_id=1) == ("5", S.DYNAMIC_TOPIC_CONFIG)
    assert s.min_insync_replicas("t") == 5
    # and deleting walks back down the chain
    s.incremental_alter(("topic", "t"), [("min.insync.replicas", OP_DELETE, None)], False)
    assert s.effective_topic("t", "min.insync.replicas", broker_id=1) == ("4", S.DYNAMIC_BROKER_CONFIG)
    s.incremental_alter(("broker", "1"), [("min.insync.replicas", OP_DELETE, None)], False)
    s.incremental_alter(("broker", ""), [("min.insync.replicas", OP_DELETE, None)], False)
    assert s.effective_topic("t", "min.insync.replicas", broker_id=1) == ("2", S.STATIC_BROKER_CONFIG)


def test_cluster_view_uses_default_then_lowest_brokers_static() -> None:
    s = ConfigStore([3, 1, 2], {1: {"unclean.leader.election.enable": "true"}, 3: {"min.insync.replicas": "3"}})
    s.add_topic("t")
    # no broker given: per-broker dynamic configs are ignored, static comes from broker 1 (the lowest)
    assert s.effective_topic("t", "unclean.leader.election.enable") == ("true", S.STATIC_BROKER_CONFIG)
    assert s.effective_topic("t", "min.insync.replicas") == ("1", S.DEFAULT_CONFIG)
    s.incremental_alter(("broker", "1"), [("min.insync.replicas", OP_SET, "2")], False)
    assert s.effective_topic("t", "min.insync.replicas") == ("1", S.DEFAULT_CONFIG)
    assert s.unclean_enabled("t") is True
    assert s.min_insync_replicas("t") == 1


def test_topic_config_without_broker_synonym_uses_its_own_default(store: ConfigStore) -> None:
    assert store.effective_topic("orders", "leader.replication.throttled.replicas") == ("", S.DEFAULT_CONFIG)
    assert store.effective_topic("orders", "retention.ms") == ("3600000", S.DYNAMIC_TOPIC_CONFIG)
    assert store.effective_topic("orders", "segment.bytes") == ("1073741824", S.DEFAULT_CONFIG)


def test_effective_broker(store: ConfigStore) -> None:
    assert store.effective_broker(2, "broker.id") == ("2", S.STATIC_BROKER_CONFIG)
    assert store.effective_broker(2, "replica.lag.time.max.ms") == ("30000", S.DEFAULT_CONFIG)
    assert store.effective_broker(2, "broker.rack") == (None, S.DEFAULT_CONFIG)
    store.add_broker(4, {"replica.lag.time.max.ms": "10000", "broker.rack": "eu-1a"})
    assert store.replica_lag_time_max_ms(4) == 10000
    assert store.replica_lag_time_max_ms(1) == 30000
    assert store.effective_broker(4, "broker.rack") == ("eu-1a", S.STATIC_BROKER_CONFIG)


def test_unknown_topic_and_broker(store: ConfigStore) -> None:
    err = error_of(store.effective_topic, "nope", "retention.ms")
    assert (err.error_code, err.message) == (3, "The topic 'nope' does not exist.")
    err = error_of(store.incremental_alter, ("topic", "nope"), [("retention.ms", OP_SET, "1")], False)
    assert err.error_code == 3
    err = error_of(store.describe_broker, 9, None, False)
    assert err.error_code == 42 and "received 9" in err.message
    err = error_of(store.incremental_alter, ("broker", "9"), [("min.insync.replicas", OP_SET, "2")], False)
    assert err.error_code == 42
    err = error_of(store.incremental_alter, ("broker", "one"), [], False)
    assert (err.error_code, err.message) == (42, "Broker id must be an integer, but it is: one")
    err = error_of(store.incremental_alter, ("group", "g"), [], False)
    assert err.error_code == 42
    err = error_of(store.effective_topic, "orders", "retention.minutes")
    assert (err.error_code, err.message) == (40, "Unknown topic config name: retention.minutes")


# ---------------------------------------------------------------------------- describe


def test_describe_topic_synonyms_in_kafka_order() -> None:
    s = ConfigStore([1, 2], {1: {"log.retention.ms": "86400000"}})
    s.add_topic("t", {"retention.ms": "1000"})
    s.incremental_alter(("broker", ""), [("log.retention.ms", OP_SET, "172800000")], False)
    s.incremental_alter(("broker", "1"), [("log.retention.ms", OP_SET, "259200000")], False)
    e = entry(s.describe_topic("t", ["retention.ms"], True, broker_id=1), "retention.ms")
    assert (e.value, e.source, e.read_only, e.is_default, e.type) == (
        "1000",
        S.DYNAMIC_TOPIC_CONFIG,
        False,
        False,
        ConfigType.LONG,
    )
    assert e.synonyms == (
        Synonym("retention.ms", "1000", S.DYNAMIC_TOPIC_CONFIG),
        Synonym("log.retention.ms", "259200000", S.DYNAMIC_BROKER_CONFIG),
        Synonym("log.retention.ms", "172800000", S.DYNAMIC_DEFAULT_BROKER_CONFIG),
        Synonym("log.retention.ms", "86400000", S.STATIC_BROKER_CONFIG),
    )  # no DEFAULT_CONFIG synonym: Kafka's log.retention.ms default is null (seen on Kafka 4.1)
    # only the sources that are set are listed
    e = entry(s.describe_topic("t", ["segment.bytes"], True), "segment.bytes")
    assert e.is_default and e.synonyms == (Synonym("log.segment.bytes", "1073741824", S.DEFAULT_CONFIG),)
    e = entry(
        s.describe_topic("t", ["follower.replication.throttled.replicas"], True),
        "follower.replication.throttled.replicas",
    )
    assert (e.value, e.source, e.synonyms) == ("", S.DEFAULT_CONFIG, ())
    # without include_synonyms, none
    assert entry(s.describe_topic("t", None, False), "retention.ms").synonyms == ()


def test_describe_topic_lists_every_config_or_just_the_known_keys(store: ConfigStore) -> None:
    everything = store.describe_topic("orders", None, False)
    assert [e.name for e in everything] == list(TOPIC_CONFIGS)
    some = store.describe_topic("orders", ["segment.ms", "no.such.config", "retention.ms"], False)
    assert [e.name for e in some] == ["retention.ms", "segment.ms"]
    assert all(not e.read_only for e in everything)


def test_describe_broker_and_cluster_default(store: ConfigStore) -> None:
    store.incremental_alter(("broker", ""), [("log.retention.ms", OP_SET, "1000")], False)
    entries = store.describe_broker(2, None, True)
    assert entry(entries, "broker.id").value == "2"
    assert entry(entries, "broker.id").read_only
    assert entry(entries, "broker.id").source is S.STATIC_BROKER_CONFIG
    assert not entry(entries, "min.insync.replicas").read_only
    assert entry(entries, "min.insync.replicas").is_default
    assert entry(entries, "replica.lag.time.max.ms").read_only
    retention = entry(entries, "log.retention.ms")
    assert (retention.value, retention.source) == ("1000", S.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert retention.synonyms == (
        Synonym("log.retention.ms", "1000", S.DYNAMIC_DEFAULT_BROKER_CONFIG),
        Synonym("log.retention.ms", "604800000", S.DEFAULT_CONFIG),
    )
    assert [e.name for e in store.describe_broker(2, ["num.io.threads", "bogus"], False)] == ["num.io.threads"]
    # the cluster-default resource shows only what is set there, with only that synonym
    defaults = store.describe_broker_default(None, True)
    assert [(e.name, e.value, e.source) for e in defaults] == [
        ("log.retention.ms", "1000", S.DYNAMIC_DEFAULT_BROKER_CONFIG)
    ]
    assert defaults[0].synonyms == (Synonym("log.retention.ms", "1000", S.DYNAMIC_DEFAULT_BROKER_CONFIG),)
    assert store.describe_broker_default(["num.io.threads"], True) == []


def test_sensitive_values_are_masked() -> None:
    s = ConfigStore([1, 2], {1: {"ssl.keystore.password": "hunter2"}})
    e = entry(s.describe_broker(1, ["ssl.keystore.password"], True), "ssl.keystore.password")
    assert (e.value, e.sensitive, e.source, e.type) == (None, True, S.STATIC_BROKER_CONFIG, ConfigType.PASSWORD)
    assert e.synonyms == (Synonym("ssl.keystore.password", None, S.STATIC_BROKER_CONFIG),)
    # sasl.jaas.config is a per-broker dynamic config
    s.incremental_alter(("broker", "2"), [("sasl.jaas.config", OP_SET, "secret module;")], False)
    e = entry(s.describe_broker(2, None, True), "sasl.jaas.config")
    assert (e.value, e.source, e.synonyms) == (
        None,
        S.DYNAMIC_BROKER_CONFIG,
        (Synonym("sasl.jaas.config", None, S.DYNAMIC_BROKER_CONFIG),),
    )
    assert all("secret" not in repr(x) for x in s.describe_broker(2, None, True))
    # configs Kafka has no type for are treated as sensitive too
    s.incremental_alter(("broker", "2"), [("plugin.custom.key", OP_SET, "value")], False)
    custom = entry(s.describe_broker(2, None, True), "plugin.custom.key")
    assert (custom.value, custom.sensitive, custom.type, custom.read_only) == (None, True, ConfigType.UNKNOWN, True)


# ---------------------------------------------------------------------------- incremental alter


def test_incremental_set_delete_append_subtract(store: ConfigStore) -> None:
    store.incremental_alter(
        ("topic", "orders"), [("min.insync.replicas", OP_SET, "2"), ("retention.ms", OP_DELETE, None)], False
    )
    assert store.topic_overrides("orders") == {"min.insync.replicas": "2"}
    # APPEND with no override starts from the config's default ("delete")
    store.incremental_alter(("topic", "orders"), [("cleanup.policy", OP_APPEND, "compact")], False)
    assert store.topic_overrides("orders")["cleanup.policy"] == "delete,compact"
    store.incremental_alter(("topic", "orders"), [("cleanup.policy", OP_SUBTRACT, "delete")], False)
    assert store.topic_overrides("orders")["cleanup.policy"] == "compact"
    store.incremental_alter(
        ("topic", "orders"),
        [
            ("leader.replication.throttled.replicas", OP_APPEND, "0:1,1:2"),
            ("follower.replication.throttled.replicas", OP_SET, "*"),
        ],
        False,
    )
    store.incremental_alter(
        ("topic", "orders"), [("leader.replication.throttled.replicas", OP_APPEND, "1:2,2:3")], False
    )
    assert store.topic_overrides("orders")["leader.replication.throttled.replicas"] == "0:1,1:2,2:3"
    store.incremental_alter(("topic", "orders"), [("leader.replication.throttled.replicas", OP_SUBTRACT, "1:2")], False)
    assert store.topic_overrides("orders")["leader.replication.throttled.replicas"] == "0:1,2:3"
    # deleting a key that is not set is fine
    store.incremental_alter(("topic", "orders"), [("segment.ms", OP_DELETE, None)], False)


def test_append_subtract_only_for_lists(store: ConfigStore) -> None:
    err = error_of(store.incremental_alter, ("topic", "orders"), [("retention.ms", OP_APPEND, "1")], False)
    assert (err.error_code, err.message) == (40, "Can't APPEND to key retention.ms because its type is not LIST.")
    err = error_of(store.incremental_alter, ("topic", "orders"), [("retention.ms", OP_SUBTRACT, "1")], False)
    assert err.message == "Can't SUBTRACT to key retention.ms because its type is not LIST."
    err = error_of(store.incremental_alter, ("broker", "1"), [("num.io.threads", OP_APPEND, "1")], False)
    assert (err.error_code, err.message) == (42, "Config value append is not allowed for config key: num.io.threads")
    store.incremental_alter(("broker", ""), [("log.cleanup.policy", OP_APPEND, "compact")], False)
    assert store.effective_broker(1, "log.cleanup.policy") == ("delete,compact", S.DYNAMIC_DEFAULT_BROKER_CONFIG)


def test_validate_only_changes_nothing(store: ConfigStore) -> None:
    before = (store.version(), store.topic_overrides("orders"), store.describe_broker_default(None, True))
    store.incremental_alter(
        ("topic", "orders"), [("min.insync.replicas", OP_SET, "2"), ("retention.ms", OP_DELETE, None)], True
    )
    store.incremental_alter(("broker", ""), [("min.insync.replicas", OP_SET, "2")], True)
    store.alter_legacy(("topic", "orders"), {"segment.ms": "1000"}, True)
    store.add_topic("new", {"retention.ms": "1"}, validate_only=True)
    assert (store.version(), store.topic_overrides("orders"), store.describe_broker_default(None, True)) == before
    assert not store.has_topic("new")
    assert store.min_insync_replicas("orders") == 1
    # validate_only still reports errors
    err = error_of(store.incremental_alter, ("topic", "orders"), [("min.insync.replicas", OP_SET, "0")], True)
    assert err.error_code == 40


def test_invalid_value_and_unknown_key_are_all_or_nothing(store: ConfigStore) -> None:
    version = store.version()
    err = error_of(
        store.incremental_alter,
        ("topic", "orders"),
        [("retention.ms", OP_SET, "5"), ("min.insync.replicas", OP_SET, "x")],
        False,
    )
    assert (err.error_code, err.message) == (
        40,
        "Invalid value x for configuration min.insync.replicas: Not a number of type INT",
    )
    err = error_of(
        store.incremental_alter, ("topic", "orders"), [("retention.ms", OP_SET, "5"), ("foo", OP_SET, "1")], False
    )
    assert (err.error_code, err.message) == (40, "Unknown topic config name: foo")
    err = error_of(
        store.incremental_alter,
        ("topic", "orders"),
        [("retention.ms", OP_DELETE, None), ("cleanup.policy", OP_SET, "shred")],
        False,
    )
    assert err.error_code == 40
    err = error_of(
        store.incremental_alter,
        ("broker", ""),
        [("min.insync.replicas", OP_SET, "2"), ("unclean.leader.election.enable", OP_SET, "maybe")],
        False,
    )
    assert err.error_code == 42  # broker resources wrap ConfigException as INVALID_REQUEST (KAFKA-13609)
    assert err.message.startswith("Invalid value maybe for configuration unclean.leader.election.enable")
    assert store.version() == version
    assert store.topic_overrides("orders") == {"retention.ms": "3600000"}
    assert store.describe_broker_default(None, False) == []


def test_duplicate_keys_and_bad_op_codes(store: ConfigStore) -> None:
    err = error_of(
        store.incremental_alter,
        ("topic", "orders"),
        [("retention.ms", OP_SET, "5"), ("retention.ms", OP_DELETE, None)],
        False,
    )
    assert (err.error_code, err.message) == (42, "Error due to duplicate config keys")
    assert error_of(store.incremental_alter, ("topic", "orders"), [("retention.ms", 7, "5")], False).error_code == 42


def test_compaction_lag_bounds_are_cross_checked(store: ConfigStore) -> None:
    err = error_of(
        store.incremental_alter,
        ("topic", "orders"),
        [("min.compaction.lag.ms", OP_SET, "10"), ("max.compaction.lag.ms", OP_SET, "5")],
        False,
    )
    assert err.message == "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"


def test_values_are_stored_as_kafka_renders_them(store: ConfigStore) -> None:
    store.incremental_alter(
        ("topic", "orders"),
        [
            ("unclean.leader.election.enable", OP_SET, " TRUE "),
            ("min.cleanable.dirty.ratio", OP_SET, "1"),
            ("cleanup.policy", OP_SET, "compact , delete"),
        ],
        False,
    )
    assert store.topic_overrides("orders") == {
        "retention.ms": "3600000",
        "unclean.leader.election.enable": "true",
        "min.cleanable.dirty.ratio": "1.0",
        "cleanup.policy": "compact,delete",
    }
    assert store.unclean_enabled("orders") is True


# ---------------------------------------------------------------------------- broker rules


def test_non_dynamic_broker_configs_are_refused(store: ConfigStore) -> None:
    for key, value in (("replica.lag.time.max.ms", "10000"), ("broker.rack", "r1"), ("num.partitions", "3")):
        err = error_of(store.incremental_alter, ("broker", "1"), [(key, OP_SET, value)], False)
        assert (err.error_code, err.message) == (42, f"Cannot update these configs dynamically: [{key}]")
    err = error_of(
        store.incremental_alter,
        ("broker", ""),
        [("log.dirs", OP_SET, "/x"), ("broker.id", OP_SET, "7"), ("min.insync.replicas", OP_SET, "2")],
        False,
    )
    assert err.message == "Cannot update these configs dynamically: [broker.id, log.dirs]"
    assert store.describe_broker_default(None, False) == []


def test_per_broker_and_listener_prefixed_configs(store: ConfigStore) -> None:
    err = error_of(store.incremental_alter, ("broker", ""), [("sasl.jaas.config", OP_SET, "x")], False)
    assert (err.error_code, err.message) == (
        42,
        "Cannot update these configs at default cluster level, broker id must be specified: [sasl.jaas.config]",
    )
    err = error_of(store.incremental_alter, ("broker", "1"), [("ssl.keystore.password", OP_SET, "x")], False)
    assert err.message == (
        "These security configs can be dynamically updated only per-listener using the "
        "listener prefix: [ssl.keystore.password]"
    )
    store.incremental_alter(("broker", "1"), [("listeners", OP_SET, "PLAINTEXT://:9092,SSL://:9093")], False)
    assert store.effective_broker(1, "listeners") == ("PLAINTEXT://:9092,SSL://:9093", S.DYNAMIC_BROKER_CONFIG)


def test_thread_pools_may_only_halve_or_double(store: ConfigStore) -> None:
    store.incremental_alter(("broker", "1"), [("num.io.threads", OP_SET, "16")], False)
    err = error_of(store.incremental_alter, ("broker", "1"), [("num.io.threads", OP_SET, "64")], False)
    assert err.error_code == 42
    assert "value should not be greater than double the current value 16" in err.message
    # the cluster default must suit every broker that takes it (brokers 2 and 3 run 8 threads)
    err = error_of(store.incremental_alter, ("broker", ""), [("num.io.threads", OP_SET, "3")], False)
    assert "value should be at least half the current value 8" in err.message
    store.incremental_alter(("broker", ""), [("num.io.threads", OP_SET, "12")], False)
    assert store.effective_broker(2, "num.io.threads") == ("12", S.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert store.effective_broker(1, "num.io.threads") == ("16", S.DYNAMIC_BROKER_CONFIG)


def test_unknown_broker_keys_are_kept_as_custom_configs(store: ConfigStore) -> None:
    store.incremental_alter(("broker", ""), [("my.plugin.setting", OP_SET, "on")], False)
    value, source = store.effective_broker(3, "my.plugin.setting")
    assert (value, source) == ("on", S.DYNAMIC_DEFAULT_BROKER_CONFIG)


# ---------------------------------------------------------------------------- legacy alter


def test_legacy_alter_replaces_the_whole_topic_override_set(store: ConfigStore) -> None:
    store.incremental_alter(
        ("topic", "orders"), [("min.insync.replicas", OP_SET, "2"), ("cleanup.policy", OP_SET, "compact")], False
    )
    store.alter_legacy(("topic", "orders"), {"segment.ms": "60000"}, False)
    assert store.topic_overrides("orders") == {"segment.ms": "60000"}
    assert store.min_insync_replicas("orders") == 1
    err = error_of(store.alter_legacy, ("topic", "orders"), {"retention.ms": "1", "foo": "2"}, False)
    assert (err.error_code, err.message) == (40, "Unknown topic config name: foo")
    assert store.topic_overrides("orders") == {"segment.ms": "60000"}
    store.alter_legacy(("topic", "orders"), {}, False)
    assert store.topic_overrides("orders") == {}


def test_legacy_alter_replaces_dynamic_broker_configs(store: ConfigStore) -> None:
    store.incremental_alter(
        ("broker", "2"),
        [("min.insync.replicas", OP_SET, "2"), ("unclean.leader.election.enable", OP_SET, "true")],
        False,
    )
    store.alter_legacy(("broker", "2"), {"log.retention.ms": "1000"}, False)
    assert store.dynamic_broker_configs(2) == {"log.retention.ms": "1000"}
    assert store.effective_broker(2, "min.insync.replicas") == ("1", S.DEFAULT_CONFIG)
    err = error_of(store.alter_legacy, ("broker", "2"), {"broker.rack": "x"}, False)
    assert err.error_code == 42
    store.incremental_alter(("broker", ""), [("min.insync.replicas", OP_SET, "2")], False)
    store.alter_legacy(("broker", ""), {}, False)
    assert store.dynamic_broker_configs(None) == {}


# ---------------------------------------------------------------------------- lifecycle and caches


def test_add_topic_validates_and_refuses_duplicates(store: ConfigStore) -> None:
    err = error_of(store.add_topic, "bad", {"retention.ms": "forever"})
    assert err.error_code == 40
    assert not store.has_topic("bad")
    err = error_of(store.add_topic, "orders")
    assert (err.error_code, err.message) == (36, "Topic 'orders' already exists.")
    store.remove_topic("orders")
    assert not store.has_topic("orders")
    store.remove_topic("orders")  # idempotent
    with pytest.raises(ConfigError):
        store.topic_overrides("orders")


def test_static_values_are_validated() -> None:
    with pytest.raises(ConfigError) as info:
        ConfigStore([1], {1: {"min.insync.replicas": "zero"}})
    assert info.value.error_code == 40
    with pytest.raises(ValueError):
        ConfigStore([1], {2: {}})
    s = ConfigStore([1], {1: {"broker.id": "99"}})
    assert s.effective_broker(1, "broker.id") == ("1", S.STATIC_BROKER_CONFIG)


def test_version_bumps_on_every_change_and_caches_follow(store: ConfigStore) -> None:
    v0 = store.version()
    assert store.min_insync_replicas("orders") == 1
    store.incremental_alter(("broker", ""), [("min.insync.replicas", OP_SET, "2")], False)
    v1 = store.version()
    assert v1 > v0
    assert store.min_insync_replicas("orders") == 2
    store.incremental_alter(("topic", "orders"), [("min.insync.replicas", OP_SET, "3")], False)
    assert store.version() > v1
    assert store.min_insync_replicas("orders") == 3
    v2 = store.version()
    store.add_topic("other")
    assert store.version() > v2
    assert store.min_insync_replicas("other") == 2
    v3 = store.version()
    store.remove_topic("other")
    assert store.version() > v3
    v4 = store.version()
    store.add_broker(4)
    assert store.version() > v4
    # unknown topics get the cluster-wide value
    assert store.min_insync_replicas("never-created") == 2
    assert store.unclean_enabled("never-created") is False


def test_min_insync_replicas_is_cheap_for_many_partitions() -> None:
    s = ConfigStore([1, 2, 3])
    for i in range(100):
        s.add_topic(f"t{i}", {"min.insync.replicas": "2"} if i % 2 else None)
    total = sum(s.min_insync_replicas(f"t{p % 100}") for p in range(100_000))
    assert total == 50_000 * 2 + 50_000 * 1
