"""A snapshot's metadata read from raw answers into columns (a first read's own connection, a refresh's
kafka-python connections): the same snapshot as librdkafka's `list_topics` gives, in trouble too, and a
broker that froze meanwhile costs one attempt, not the read."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from kafkatui.kafka import firstread
from kafkatui.kafka import metadata as metadata_module
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(120)


def _what_a_user_sees(snap: ClusterSnapshot) -> dict[str, Any]:
    return {
        "brokers": [(b.id, b.host, b.port, b.rack) for b in snap.brokers],
        "controller": snap.controller_id,
        "cluster": snap.cluster_id,
        "topics": {name: (t.error_code, t.internal, list(t.partitions)) for name, t in snap.topics.items()},
        "log_dirs": snap.log_dirs,
    }


def _count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    real = metadata_module.decode

    def counting(body: bytes, version: int, table: Any) -> Any:
        seen.append(version)
        return real(body, version, table)

    monkeypatch.setattr(metadata_module, "decode", counting)
    return seen


def test_a_refresh_reads_the_raw_answer_and_sees_what_librdkafka_sees(
    sim_factory: Callable[..., SimRunner], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim = sim_factory(5, racks=["a", "b", "c"], static_configs={"broker.session.timeout.ms": "60000"})
    sim.call(lambda c: c.create_topic("orders", 12, 3, configs={"min.insync.replicas": "2"}))
    sim.call(lambda c: c.create_topic("solo", 5, 1))
    decoded = _count_decodes(monkeypatch)
    settings = ConnectionSettings(sim.bootstrap, timeout=10.0)
    with KafkaClusterSource(settings, log_dirs="all") as raw, KafkaClusterSource(settings, log_dirs="all") as rdk:
        # the reference reads librdkafka's list_topics only: no connection of its own, no kafka-python answer
        monkeypatch.setattr(rdk, "_kp_metadata", lambda start, deadline: (None, None))
        monkeypatch.setattr(rdk, "_kafka_answers", lambda protocol, seconds: ([], None, None))
        raw.snapshot()
        rdk.snapshot()
        assert decoded == [firstread.METADATA_VERSION]  # a first read's own connection (kafkatui.kafka.firstread)
        decoded.clear()
        sim.crash(2)  # listed until fenced: its partitions out of sync, the single-copy ones offline
        sim.shutdown(4)  # gone from the metadata at once
        time.sleep(0.5)
        a = raw.snapshot()
        b = rdk.snapshot()
        assert decoded and decoded[0] > firstread.METADATA_VERSION, "the refresh did not read kafka-python's raw answer"
        assert _what_a_user_sees(a) == _what_a_user_sees(b)
        orders = a.topics["orders"].partitions
        assert any(len(p.isr) < len(p.replicas) for p in orders)
        assert any(p.leader == -1 for p in a.topics["solo"].partitions)


def test_a_broker_frozen_since_the_last_read_costs_one_attempt(
    sim_factory: Callable[..., SimRunner], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The broker kafka-python would ask froze after the last read (not yet known frozen): after one attempt
    another broker is asked, and the read goes on without a new client or the timeout."""
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    decoded = _count_decodes(monkeypatch)
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=10.0)) as source:
        source.snapshot()
        source.snapshot()  # kafka-python is up
        asked: list[int] = []
        real = metadata_module._idle_node

        def first_the_frozen_one(kadmin: Any, candidates: list[int]) -> int | None:
            node = 2 if not asked and 2 in candidates else real(kadmin, candidates)
            if node is not None:
                asked.append(node)
            return node

        monkeypatch.setattr(metadata_module, "_idle_node", first_the_frozen_one)
        sim.hang(2)
        try:
            decoded.clear()
            start = time.monotonic()
            snap = source.snapshot()
            took = snap.taken_at - time.time() + time.monotonic() - start
            assert asked[:2] == [2, asked[1]] and asked[1] != 2
            assert decoded, "the other broker's raw answer was not read"
            assert took < 2 * source._attempt_seconds() + 0.5, f"the metadata took {took:.1f} s"
            assert [len(p.replicas) for p in snap.topics["orders"].partitions] == [3] * 6
        finally:
            sim.restore(2)
