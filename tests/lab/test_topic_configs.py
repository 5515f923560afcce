"""Topic and broker configs as kafkatui reads them from real Kafka (topic configs: 4.4 and 3.9; broker
configs: every line).

kafkatui asks DescribeConfigs for the few topic keys it keeps: on a first read's own connection
(`kafkatui.kafka.firstread`), else through kafka-python; confluent-kafka, which can only ask for every
config with its synonyms, is the fallback. All must read the same values and sources from a real broker.
(A broker killed a moment ago: `test_seeds`.)
"""

from __future__ import annotations

import time
from typing import Any

from kafkatui.lab.cluster import LabCluster
from tests.lab.support import create_topic


def _without_own_connection(source: Any) -> None:
    """The first read through librdkafka, not on a connection of its own (`kafkatui.kafka.firstread`)."""
    source._kafka_answers = lambda protocol, seconds: ([], None, None)


def _configs(lab: LabCluster, way: str) -> dict[str, dict[str, tuple[Any, ...]]]:
    """Every topic's kept configs from a first read: on its own connection ("own"), through kafka-python
    ("kafka-python") or confluent-kafka ("confluent")."""
    from kafkatui.kafka import configs_wire
    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource

    asked: list[int] = []
    real = configs_wire.topic_configs

    def counted(*args: Any) -> Any:
        asked.append(len(args[1]))
        return real(*args)

    configs_wire.topic_configs = counted  # type: ignore[assignment]
    try:
        with KafkaClusterSource(ConnectionSettings(lab.bootstrap, timeout=10)) as source:
            if way != "own":
                _without_own_connection(source)
            if way == "confluent":
                source._kafka_python_for_configs = lambda *a, **k: None  # type: ignore[method-assign]
            snap = source.snapshot()
    finally:
        configs_wire.topic_configs = real  # type: ignore[assignment]
    assert bool(asked) == (way == "own"), (way, asked)
    assert not snap.partial, snap.problems
    return {
        name: {k: (v.value, v.source, v.sensitive, v.read_only) for k, v in t.configs.items()}
        for name, t in snap.topics.items()
    }


def test_keyed_topic_configs_equal_every_config_with_synonyms(lab: LabCluster) -> None:
    topic = f"tc-overrides-{time.monotonic_ns()}"  # a rerun must not meet the first attempt's topic
    create_topic(
        lab,
        topic,
        2,
        rf=3,
        min_isr=2,
        cleanup_policy="compact",
        retention_ms="3600000",
        leader_replication_throttled_replicas="0:1",
    )
    keyed = _configs(lab, "own")
    assert keyed == _configs(lab, "kafka-python")
    full = _configs(lab, "confluent")
    assert keyed == full
    got = keyed[topic]
    assert got["min.insync.replicas"] == ("2", "DYNAMIC_TOPIC_CONFIG", False, False)
    assert got["cleanup.policy"][:2] == ("compact", "DYNAMIC_TOPIC_CONFIG")
    assert got["leader.replication.throttled.replicas"][:2] == ("0:1", "DYNAMIC_TOPIC_CONFIG")
    assert got["unclean.leader.election.enable"][0] == "false"


def test_broker_configs_through_kafka_python_equal_librdkafkas(any_lab: LabCluster) -> None:
    """A first read asks each broker for its kept configs on a connection of its own, a refresh through
    kafka-python (librdkafka busy-loops on a request meant for a broker that refuses connections:
    `kafkatui.kafka.brokerconfigs`), a first read without its own connection through librdkafka. Every
    value, source and flag must be the same, on every mode and rule set."""
    from kafkatui.kafka import brokerconfigs, configs_wire
    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource

    sent: list[list[int]] = []
    own: list[int] = []
    real_send, real_own = brokerconfigs.send, configs_wire.broker_configs

    def counted(kadmin: Any, brokers: Any, keys: Any, timeout: float) -> Any:
        sent.append(list(brokers))
        return real_send(kadmin, brokers, keys, timeout)

    def counted_own(*args: Any) -> Any:
        own.append(args[4])
        return real_own(*args)

    def kept(snap: Any) -> dict[int, dict[str, tuple[Any, ...]]]:
        assert not snap.partial, snap.problems
        return {
            bid: {k: (v.value, v.source, v.sensitive, v.read_only) for k, v in configs.items()}
            for bid, configs in snap.broker_configs.items()
        }

    brokerconfigs.send = counted  # type: ignore[assignment]
    configs_wire.broker_configs = counted_own  # type: ignore[assignment]
    try:
        with KafkaClusterSource(ConnectionSettings(any_lab.bootstrap, timeout=10)) as source:
            first = source.snapshot()
            assert not sent and sorted(own) == sorted(first.broker_ids)  # on connections of its own
            source.snapshot()
            refreshed = source.snapshot()
        own.clear()
        asked = len(sent)
        with KafkaClusterSource(ConnectionSettings(any_lab.bootstrap, timeout=10)) as source:
            _without_own_connection(source)
            through_librdkafka = source.snapshot()
            assert not own and len(sent) == asked  # neither its own connections nor kafka-python: librdkafka
    finally:
        brokerconfigs.send = real_send  # type: ignore[assignment]
        configs_wire.broker_configs = real_own  # type: ignore[assignment]
    # the refreshes: kafka-python, for every broker it knows (one missing from its broker list for a moment,
    # at load, goes through librdkafka: seen on CI as [[1, 2, 3], [2, 3], [1, 2, 3]])
    assert all(set(call) <= first.broker_ids for call in sent)
    assert any(sorted(call) == sorted(first.broker_ids) for call in sent), sent
    assert kept(refreshed) == kept(first) == kept(through_librdkafka)
    assert [b.rack for b in refreshed.brokers] == [b.rack for b in first.brokers]
    assert [b.rack for b in through_librdkafka.brokers] == [b.rack for b in first.brokers]
    some = kept(first)[min(first.broker_ids)]
    assert some["min.insync.replicas"][1] in ("STATIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG", "DEFAULT_CONFIG")
