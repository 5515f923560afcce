"""Topic configs as kafkatui reads them from real Kafka (4.4 and 3.9).

kafkatui asks DescribeConfigs for the few topic keys it keeps, through kafka-python; confluent-kafka,
which can only ask for every config with its synonyms, is the fallback. Both must read the same values
and sources from a real broker. (A broker killed a moment ago: `test_seeds`.)
"""

from __future__ import annotations

import time
from typing import Any

from kafkatui.lab.cluster import LabCluster
from tests.lab.support import create_topic


def _configs(lab: LabCluster, through_confluent: bool) -> dict[str, dict[str, tuple[Any, ...]]]:
    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource

    with KafkaClusterSource(ConnectionSettings(lab.bootstrap, timeout=10)) as source:
        if through_confluent:
            source._kafka_python_for_configs = lambda *a, **k: None  # type: ignore[method-assign]
        snap = source.snapshot()
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
    keyed = _configs(lab, through_confluent=False)
    full = _configs(lab, through_confluent=True)
    assert keyed == full
    got = keyed[topic]
    assert got["min.insync.replicas"] == ("2", "DYNAMIC_TOPIC_CONFIG", False, False)
    assert got["cleanup.policy"][:2] == ("compact", "DYNAMIC_TOPIC_CONFIG")
    assert got["leader.replication.throttled.replicas"][:2] == ("0:1", "DYNAMIC_TOPIC_CONFIG")
    assert got["unclean.leader.election.enable"][0] == "false"
