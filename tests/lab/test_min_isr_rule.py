"""On real Kafka, min.insync.replicas above RF is judged as the brokers' own line judges it.

An RF-1 topic under min.insync.replicas=2 takes acks=all writes on 3.7+ (the leader uses
min(min ISR, RF), KAFKA-15583) and rejects them with NOT_ENOUGH_REPLICAS before. The produce is
Kafka's verdict; kafkatui detects the brokers' version from their ApiVersions answers, and what it
then says (`kafkatui check --json`: effective min ISR, under min ISR, writes blocked) must agree.
The expected outcome is a function of the detected version, not of the fixture: it runs on every
mode and rule set the suite starts (`any_lab`: 4.4 and 3.9 KRaft, 3.9 in ZooKeeper mode, 2.8).
"""

from __future__ import annotations

import json
import time
from typing import Any

from kafkatui.lab.cluster import LabCluster
from kafkatui.model.rules import version_from_api_versions
from tests.lab.support import create_topic


def _produce_all(bootstrap: str, topic: str, n: int = 5) -> list[str | None]:
    from confluent_kafka import Producer

    got: list[str | None] = []
    p = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "retries": 0,  # NOT_ENOUGH_REPLICAS is retriable: without this the message just times out
            "enable.idempotence": False,
            "message.timeout.ms": 15000,
            "log_level": 0,
        }
    )
    for i in range(n):
        p.produce(topic, value=f"v{i}".encode(), on_delivery=lambda e, _m: got.append(e.name() if e else None))
    p.flush(30)
    return got


def _check(bootstrap: str, topic: str) -> tuple[int, dict[str, Any]]:
    from tests.lab.support import kafkatui

    proc = kafkatui("check", "--bootstrap", bootstrap, "--json", "--timeout", "20", "--topic", f"^{topic}$")
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_rf1_topic_under_min_isr_2_is_judged_by_the_brokers_line(any_lab: LabCluster) -> None:
    lab = any_lab
    from kafkatui.kafka.versions import ask

    host, port = lab.bootstrap.split(",")[0].rsplit(":", 1)
    version = version_from_api_versions(ask(host, int(port), {}))
    assert version.label.removesuffix("+") == lab.rel.line, f"Kafka {lab.rel.version} read as {version.label}"
    caps = version.caps_min_isr
    assert caps is not None, f"kafkatui cannot tell whether Kafka {version.label} caps min ISR"

    topic = f"rf1-min2-{time.monotonic_ns()}"  # a rerun must not meet the first attempt's topic
    create_topic(lab, topic, 1, rf=1, min_isr=2)
    outcome = _produce_all(lab.bootstrap, topic)
    # Kafka's verdict
    if caps:
        assert outcome == [None] * 5, f"Kafka {version.label} rejected acks=all writes: {outcome}"
    else:
        assert set(outcome) == {"NOT_ENOUGH_REPLICAS"}, f"Kafka {version.label}: {outcome}"

    # kafkatui's, from its own reading of the cluster
    code, doc = _check(lab.bootstrap, topic)
    assert doc["cluster"]["kafka_version"] == version.label
    assert doc["cluster"]["mode"] == version.mode
    (t,) = doc["topics"]
    assert (t["min_isr"], t["replication_factor"]) == (2, 1)
    assert t["effective_min_isr"] == (1 if caps else 2)
    assert t["writes_blocked"] is (not caps)
    assert t["counts"]["under_min_isr"] == (0 if caps else 1)
    assert t["worst"] == ("at_min_isr" if caps else "under_min_isr")
    f = next(f for f in doc["findings"] if f["id"] == "min-isr-above-rf")
    assert f["severity"] == ("warning" if caps else "critical")
    ours = [g for g in doc["findings"] if topic in g["resources"]["topics"]]
    if caps:  # nothing about this topic is critical (other labs' tests may leave warnings elsewhere)
        assert not [g["id"] for g in ours if g["severity"] == "critical"]
    else:
        assert code == 2 and "under-min-isr" not in {g["id"] for g in ours}  # min-isr-above-rf says it
