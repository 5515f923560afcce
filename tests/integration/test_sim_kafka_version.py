"""The simulator answers as a Kafka release, and kafkatui judges min ISR by that release's rule.

An RF-1 topic under min.insync.replicas=2: brokers 3.7+ cap the min ISR at RF (KAFKA-15583) and take
acks=all writes; older brokers reject them with NOT_ENOUGH_REPLICAS. A real client (confluent-kafka)
produces; `kafkatui check --json` must agree with what it saw.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer

from kafkatui.check_cmd import main_check
from kafkatui.sim.runner import SimRunner


def _produce_all(bootstrap: str, topic: str) -> list[Any]:
    # retries 0: librdkafka retries NOT_ENOUGH_REPLICAS (retriable) until the message times out
    conf = {"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 1, "message.timeout.ms": 8000, "retries": 0}
    p = Producer(conf)
    results: list[Any] = []
    for i in range(3):
        p.produce(topic, value=f"m{i}".encode(), on_delivery=lambda e, m: results.append(e))
    p.flush(20)
    return results


@pytest.mark.parametrize(
    ("version", "label", "accepted"),
    [(None, "4.3", True), ("3.9", "3.9", True), ("3.7", "3.7", True), ("3.6", "3.5", False), ("2.8", "2.8", False)],
)
def test_rf1_under_min_isr_2_as_each_release(
    sim_factory: Callable[..., SimRunner],
    capsys: pytest.CaptureFixture[str],
    version: str | None,
    label: str,
    accepted: bool,
) -> None:
    sim = sim_factory(3, kafka_version=version)
    sim.call(lambda c: c.create_topic("rf1-scratch", 2, 1, configs={"min.insync.replicas": "2"}))
    results = _produce_all(sim.bootstrap, "rf1-scratch")
    assert len(results) == 3
    if accepted:
        assert results == [None, None, None]
    else:
        assert {e.code() for e in results} == {KafkaError.NOT_ENOUGH_REPLICAS}

    code = main_check(["--bootstrap", sim.bootstrap, "--json", "--timeout", "20"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["cluster"]["kafka_version"] == label and doc["cluster"]["mode"] == "kraft"
    (t,) = [t for t in doc["topics"] if t["name"] == "rf1-scratch"]
    assert t["min_isr"] == 2 and t["replication_factor"] == 1
    assert t["effective_min_isr"] == (1 if accepted else 2)
    assert t["writes_blocked"] is (not accepted)
    assert t["counts"]["under_min_isr"] == (0 if accepted else 2)
    f = next(f for f in doc["findings"] if f["id"] == "min-isr-above-rf")
    assert f["severity"] == ("warning" if accepted else "critical")
    assert code == (1 if accepted else 2)
    # three live brokers: raise RF to 3, then the durable minISR 2
    assert any("min.insync.replicas=2" in c for c in f["commands"])


def test_rf2_under_min_isr_3_advice_keeps_min_isr_at_rf(
    sim_factory: Callable[..., SimRunner], capsys: pytest.CaptureFixture[str]
) -> None:
    sim = sim_factory(2, kafka_version="3.6")
    sim.call(lambda c: c.create_topic("rf2", 1, 2, configs={"min.insync.replicas": "3"}))
    main_check(["--bootstrap", sim.bootstrap, "--json", "--timeout", "20"])
    doc = json.loads(capsys.readouterr().out)
    f = next(f for f in doc["findings"] if f["id"] == "min-isr-above-rf")
    assert not any("min.insync.replicas=1" in c for c in f["commands"])
    assert any("min.insync.replicas=2" in c for c in f["commands"])
