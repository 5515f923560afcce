"""The simulator's all-topics Metadata answer, written in one pass, is byte for byte kafka-python's
encoding of the same response, at every version, with the states an incident leaves behind."""

from __future__ import annotations

import pytest

from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.handlers.metadata import CACHE, build_metadata


def _incident_cluster() -> SimCluster:
    cluster = SimCluster(5, racks=["a", "b", "c"])
    cluster.create_topic("orders", 12, 3)
    cluster.create_topic("single", 3, 1)
    cluster.create_topic("__consumer_offsets", 4, 3)
    cluster.crash(2)  # listed until fenced: offline replicas, shrunk ISRs
    cluster.shutdown(4)  # gone from the broker list; partitions it led have moved or are offline
    parts = [p for t in cluster.topics.values() for p in t.partitions]
    assert any(p.leader == -1 for p in parts) and cluster.offline_brokers() == {2, 4}
    assert any(len(p.isr) < len(p.replicas) for p in parts)
    return cluster


@pytest.mark.parametrize("version", range(14))
@pytest.mark.parametrize("make", [_incident_cluster, lambda: SimCluster(3)], ids=["incident", "empty"])
def test_all_topics_answer_is_kafka_pythons_bytes(version: int, make: object) -> None:
    cluster = make()  # type: ignore[operator]
    expected = bytes(build_metadata(cluster, list(cluster.topics.values()), [], version).encode(version=version))
    assert CACHE.get(cluster, version) == expected


def test_the_answer_follows_the_cluster() -> None:
    cluster = _incident_cluster()
    before = CACHE.get(cluster, 12)
    cluster.create_topic("later", 2, 2)
    after = CACHE.get(cluster, 12)
    assert after != before
    assert after == bytes(build_metadata(cluster, list(cluster.topics.values()), [], 12).encode(version=12))
