"""Real clients (confluent-kafka, kafka-python, kcat) against the simulated cluster."""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import time
from typing import Any

import pytest
from confluent_kafka import Consumer as CKConsumer
from confluent_kafka import KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from kafkatui.sim.runner import SimRunner
from tests.conftest import kcat_path


def produce(bootstrap: str, topic: str, n: int, partition: int | None = None, **conf: Any) -> list[Any]:
    """Produce n records and return the delivery errors (None = acknowledged)."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 1, "message.timeout.ms": 8000, **conf})
    results: list[Any] = []
    for i in range(n):
        kwargs = {"partition": partition} if partition is not None else {}
        p.produce(
            topic, value=f"m{i}".encode(), key=str(i).encode(), on_delivery=lambda e, m: results.append(e), **kwargs
        )
    p.flush(20)
    return results


def read_all(bootstrap: str, topic: str, partitions: int, expect: int, timeout: float = 15) -> list[bytes]:
    c = CKConsumer({"bootstrap.servers": bootstrap, "group.id": "reader", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, i, 0) for i in range(partitions)])
    got: list[bytes] = []
    deadline = time.monotonic() + timeout
    while len(got) < expect and time.monotonic() < deadline:
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got.append(m.value())
    c.close()
    return got


def test_metadata_matches_the_cluster(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    md = AdminClient({"bootstrap.servers": sim.bootstrap}).list_topics(timeout=10)
    assert sorted(md.brokers) == [1, 2, 3]
    assert md.cluster_id == sim.cluster.cluster_id
    assert md.controller_id == 1
    parts = md.topics["orders"].partitions
    assert len(parts) == 6
    for p in parts.values():
        assert sorted(p.replicas) == [1, 2, 3] and sorted(p.isrs) == [1, 2, 3] and p.leader == p.replicas[0]
    # leaders are spread over the brokers
    assert {p.leader for p in parts.values()} == {1, 2, 3}


def test_acks_all_fails_with_not_enough_replicas_when_isr_below_min_isr(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("payments", 1, 3, configs={"min.insync.replicas": "2"}))
    leader = sim.call(lambda c: c.partition("payments", 0).leader)
    others = [b for b in (1, 2, 3) if b != leader]
    for b in others:
        sim.crash(b)
    assert sim.wait_for(lambda c: c.partition("payments", 0).isr == [leader], 15)
    errs = produce(sim.bootstrap, "payments", 1, partition=0, acks="all", retries=0)
    assert len(errs) == 1 and errs[0] is not None
    assert errs[0].code() == KafkaError.NOT_ENOUGH_REPLICAS
    # acks=1 goes on with two brokers down
    assert produce(sim.bootstrap, "payments", 5, partition=0, acks=1, retries=0) == [None] * 5


def test_acks_all_succeeds_with_one_broker_down_and_reads_back(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3, configs={"min.insync.replicas": "2"}))
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[3].fenced, 15)
    assert sim.call(lambda c: all(3 not in p.isr for p in c.topic("orders").partitions))
    errs = produce(sim.bootstrap, "orders", 30, acks="all")
    assert errs == [None] * 30
    assert sorted(read_all(sim.bootstrap, "orders", 3, 30)) == sorted(f"m{i}".encode() for i in range(30))


def test_consumer_reads_across_a_leader_failover(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("events", 1, 3, configs={"min.insync.replicas": "2"}))
    assert produce(sim.bootstrap, "events", 10, acks="all") == [None] * 10
    old_leader = sim.call(lambda c: c.partition("events", 0).leader)
    sim.crash(old_leader)
    assert sim.wait_for(lambda c: c.partition("events", 0).leader not in (-1, old_leader), 15)
    assert produce(sim.bootstrap, "events", 10, acks="all") == [None] * 10
    got = read_all(sim.bootstrap, "events", 1, 20)
    assert len(got) == 20


def test_restarted_broker_catches_up_and_rejoins_the_isr(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 2, 3))
    sim.crash(2)
    assert sim.wait_for(lambda c: all(2 not in p.isr for p in c.topic("orders").partitions), 15)
    assert produce(sim.bootstrap, "orders", 20, acks="all") == [None] * 20
    sim.restore(2)
    assert sim.wait_for(lambda c: all(sorted(p.isr) == [1, 2, 3] for p in c.topic("orders").partitions), 15)
    assert sim.call(lambda c: all(p.leo[2] == p.log.end_offset for p in c.topic("orders").partitions))


def test_kafka_python_idempotent_producer(sim: SimRunner) -> None:
    from kafka import KafkaProducer

    sim.call(lambda c: c.create_topic("t", 1, 3))
    # kafka-python's producer is idempotent by default: InitProducerId comes first
    p = KafkaProducer(bootstrap_servers=sim.bootstrap, acks="all", request_timeout_ms=5000)
    md = p.send("t", b"hello").get(timeout=10)
    assert md.offset == 0
    p.close()


def test_produce_sent_to_a_follower_gets_not_leader_or_follower(sim: SimRunner) -> None:
    from kafka.protocol.producer.produce import ProduceRequest, ProduceResponse
    from kafka.record import MemoryRecordsBuilder

    sim.call(lambda c: c.create_topic("t", 1, 3))
    leader = sim.call(lambda c: c.partition("t", 0).leader)
    follower = next(b for b in (1, 2, 3) if b != leader)
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 16)
    builder.append(timestamp=int(time.time() * 1000), key=None, value=b"x", headers=[])
    builder.close()
    T = ProduceRequest.TopicProduceData
    req = ProduceRequest[9](
        transactional_id=None,
        acks=-1,
        timeout_ms=5000,
        topic_data=[T(name="t", partition_data=[T.PartitionProduceData(index=0, records=bytes(builder.buffer()))])],
    )
    req.with_header(correlation_id=42, client_id="test")
    with socket.create_connection(("127.0.0.1", sim.port_of(follower)), timeout=5) as s:
        s.sendall(req.encode(header=True, framed=True))
        size = struct.unpack(">i", s.recv(4))[0]
        data = b""
        while len(data) < size:
            data += s.recv(size - len(data))
    resp = ProduceResponse.decode(data, version=9, header=True)
    assert resp.header.correlation_id == 42
    assert resp.responses[0].partition_responses[0].error_code == 6  # NOT_LEADER_OR_FOLLOWER


def test_kafka_python_consumer_reads_what_confluent_produced(sim: SimRunner) -> None:
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTP

    sim.call(lambda c: c.create_topic("mixed", 2, 3))
    assert produce(sim.bootstrap, "mixed", 12, acks="all") == [None] * 12
    c = KafkaConsumer(bootstrap_servers=sim.bootstrap, enable_auto_commit=False, consumer_timeout_ms=5000)
    c.assign([KTP("mixed", 0), KTP("mixed", 1)])
    c.seek_to_beginning()
    values = sorted(m.value for m in c)
    c.close()
    assert values == sorted(f"m{i}".encode() for i in range(12))


@pytest.mark.kcat
def test_kcat_metadata_json(sim: SimRunner) -> None:
    kcat = kcat_path()
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[3].fenced, 15)
    out = subprocess.run(
        [kcat, "-L", "-J", "-b", sim.bootstrap.split(",")[0]], capture_output=True, text=True, timeout=20
    )
    assert out.returncode == 0, out.stderr
    md = json.loads(out.stdout)
    assert sorted(b["id"] for b in md["brokers"]) == [1, 2]
    (topic,) = [t for t in md["topics"] if t["topic"] == "orders"]
    for p in topic["partitions"]:
        assert 3 not in [i["id"] for i in p["isrs"]]
        assert len(p["replicas"]) == 3


@pytest.mark.kcat
def test_kcat_produce_and_consume(sim: SimRunner) -> None:
    kcat = kcat_path()
    sim.call(lambda c: c.create_topic("logs", 1, 3))
    b = sim.bootstrap.split(",")[0]
    p = subprocess.run(
        [kcat, "-P", "-b", b, "-t", "logs", "-p", "0"],
        input="one\ntwo\nthree\n",
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert p.returncode == 0, p.stderr
    c = subprocess.run(
        [kcat, "-C", "-b", b, "-t", "logs", "-p", "0", "-o", "beginning", "-e", "-q"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert c.returncode == 0, c.stderr
    assert c.stdout.split() == ["one", "two", "three"]


def _raw(port: int, payload: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        return data


@pytest.mark.parametrize(
    "payload",
    [
        b"\x00\x00\x00\x10garbage-garbage!",  # unknown api key
        struct.pack(">i", 200) + b"\x00\x03\x00\x0c",  # truncated frame
        struct.pack(">i", 1 << 30),  # oversized frame
        struct.pack(">ihhi", 8, 3, 99, 1),  # Metadata v99
        struct.pack(">i", 40) + struct.pack(">hhi", 3, 12, 7) + b"\xff" * 32,  # undecodable body
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",  # HTTP client on a Kafka port
    ],
)
def test_bad_frames_close_only_that_connection(sim: SimRunner, payload: bytes) -> None:
    port = sim.port_of(1)
    assert _raw(port, payload) == b""  # closed without an answer
    md = AdminClient({"bootstrap.servers": sim.bootstrap}).list_topics(timeout=10)
    assert sorted(md.brokers) == [1, 2, 3]


@pytest.mark.parametrize(
    "payload", [b"", struct.pack(">i", 200) + b"\x00\x03\x00\x0c"], ids=["silent", "stalled-mid-request"]
)
def test_an_idle_or_stalled_connection_is_closed_after_connections_max_idle(sim: SimRunner, payload: bytes) -> None:
    """Kafka's connections.max.idle.ms: a client that stops mid-request does not hold its socket for ever."""
    sim.server.idle_seconds = 0.5
    with socket.create_connection(("127.0.0.1", sim.port_of(1)), timeout=10) as s:
        s.sendall(payload)
        started = time.monotonic()
        assert s.recv(1) == b""  # closed by the broker, not by our timeout
        assert 0.4 < time.monotonic() - started < 5
    md = AdminClient({"bootstrap.servers": sim.bootstrap}).list_topics(timeout=10)
    assert sorted(md.brokers) == [1, 2, 3]
