"""Fuzzing the simulator's request decoder: random bytes and mutated real request frames.

The valid frames come from kafka-python's protocol classes (ApiVersions, Metadata v1-v12, Produce,
Fetch, DescribeConfigs). Each mutation (flipped, inserted or deleted bytes, a wrong size prefix, a
huge array count, another version) is fed to `decode_request` directly and sent to a running
simulator over loopback; the simulator must answer or close that one connection, never die, log
no handler crash, and keep serving well-behaved clients afterwards. Budgets are small (a few
hundred examples, no deadline) so this runs in seconds in `make test`.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import struct
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.admin import KafkaAdminClient
from kafka.protocol.admin import DescribeConfigsRequest
from kafka.protocol.consumer import FetchRequest
from kafka.protocol.metadata import MetadataRequest
from kafka.protocol.metadata.api_versions import ApiVersionsRequest
from kafka.protocol.producer import ProduceRequest
from kafka.protocol.sasl import SaslAuthenticateRequest, SaslHandshakeRequest
from kafka.record import MemoryRecordsBuilder

from kafkatui.sim.protocol import DecodedRequest, RequestRejected, decode_request, load_handlers
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(180)

FUZZ_EXAMPLES = int(os.environ.get("KAFKATUI_FUZZ_EXAMPLES", "200"))
"""Examples per fuzz test; raise it for a longer hunt (KAFKATUI_FUZZ_EXAMPLES=5000)."""
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


# --------------------------------------------------------------------------- real frames
def _payload(request: Any, version: int) -> bytes:
    """A request's bytes after the 4-byte size prefix, as a client sends them."""
    request.with_header(correlation_id=7, client_id="fuzz")
    return bytes(request.encode(version=version, header=True, framed=False))


def _records() -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 16)
    builder.append(timestamp=int(time.time() * 1000), key=b"k", value=b"fuzz", headers=[])
    builder.close()
    return bytes(builder.buffer())


def valid_frames() -> list[bytes]:
    """Well-formed request payloads the simulator serves."""
    frames = [_payload(ApiVersionsRequest(version=v), v) for v in (0, 1, 2)]
    frames += [
        _payload(ApiVersionsRequest(version=v, client_software_name="fuzz", client_software_version="1"), v)
        for v in (3, 4)
    ]
    T = MetadataRequest.MetadataRequestTopic
    for v in range(1, 13):
        topics = [T(name="orders", topic_id=None)] if v % 2 else None
        frames.append(_payload(MetadataRequest(version=v, topics=topics, allow_auto_topic_creation=False), v))
    P = ProduceRequest.TopicProduceData
    for v in (3, 7, 9, 10):
        frames.append(
            _payload(
                ProduceRequest(
                    version=v,
                    transactional_id=None,
                    acks=1,
                    timeout_ms=1000,
                    topic_data=[P(name="orders", partition_data=[P.PartitionProduceData(index=0, records=_records())])],
                ),
                v,
            )
        )
    F = FetchRequest.FetchTopic
    for v in (4, 11, 12):
        frames.append(
            _payload(
                FetchRequest(
                    version=v,
                    replica_id=-1,
                    max_wait_ms=10,
                    min_bytes=1,
                    max_bytes=1 << 20,
                    isolation_level=0,
                    session_id=0,
                    session_epoch=-1,
                    forgotten_topics_data=[],
                    rack_id="",
                    topics=[
                        F(
                            topic="orders",
                            partitions=[
                                F.FetchPartition(
                                    partition=0,
                                    fetch_offset=0,
                                    partition_max_bytes=1 << 16,
                                    current_leader_epoch=-1,
                                    log_start_offset=-1,
                                    last_fetched_epoch=-1,
                                )
                            ],
                        )
                    ],
                ),
                v,
            )
        )
    R = DescribeConfigsRequest.DescribeConfigsResource
    for v in (1, 2, 3, 4):
        frames.append(
            _payload(
                DescribeConfigsRequest(
                    version=v,
                    include_synonyms=True,
                    include_documentation=False,
                    resources=[
                        R(resource_type=2, resource_name="orders", configuration_keys=None),
                        R(resource_type=4, resource_name="1", configuration_keys=["min.insync.replicas"]),
                    ],
                ),
                v,
            )
        )
    return frames


FRAMES = valid_frames()


# --------------------------------------------------------------------------- mutations
def _flip(data: bytearray, i: int, value: int) -> None:
    if data:
        data[i % len(data)] ^= value or 0xFF


def _insert(data: bytearray, i: int, blob: bytes) -> None:
    data[i % (len(data) + 1) : i % (len(data) + 1)] = blob


def _delete(data: bytearray, i: int, n: int) -> None:
    start = i % (len(data) + 1)
    del data[start : start + n]


def _huge_count(data: bytearray, i: int, compact: bool) -> None:
    """Overwrite 4 bytes (or a varint) past the header with a huge array count."""
    start = 8 + i % max(1, len(data) - 8)
    data[start : start + 4] = b"\xff\xff\xff\x0f" if compact else struct.pack(">i", 0x7FFFFFFF)


def _version(data: bytearray, i: int, _: int) -> None:
    if len(data) >= 4:
        data[2:4] = struct.pack(">h", i % 40 - 4)


Op = tuple[Callable[..., None], int, Any]

_ops = st.one_of(
    st.tuples(st.just(_flip), st.integers(0, 4096), st.integers(0, 255)),
    st.tuples(st.just(_insert), st.integers(0, 4096), st.binary(min_size=1, max_size=16)),
    st.tuples(st.just(_delete), st.integers(0, 4096), st.integers(1, 32)),
    st.tuples(st.just(_huge_count), st.integers(0, 4096), st.booleans()),
    st.tuples(st.just(_version), st.integers(0, 4096), st.just(0)),
)


@st.composite
def mutated(draw: st.DrawFn, frames: list[bytes] = FRAMES) -> bytes:
    """A real frame with 1-4 mutations."""
    data = bytearray(draw(st.sampled_from(frames)))
    for fn, i, arg in draw(st.lists(_ops, min_size=1, max_size=4)):
        fn(data, i, arg)
    return bytes(data)


payloads = st.one_of(mutated(), st.binary(max_size=512))


# --------------------------------------------------------------------------- the decoder alone
def decode_or_reject(payload: bytes) -> DecodedRequest | None:
    try:
        return decode_request(payload)
    except RequestRejected as exc:
        assert str(exc) and "\n" not in str(exc)
        return None


def test_the_real_frames_decode() -> None:
    load_handlers()
    for payload in FRAMES:
        decoded = decode_request(payload)
        assert decoded.request is not None and decoded.correlation_id == 7


@FUZZ
@given(payloads)
def test_decoder_answers_or_rejects_never_raises_anything_else(payload: bytes) -> None:
    load_handlers()
    decode_or_reject(payload)  # any other exception fails the test


@pytest.mark.parametrize("compact", [False, True])
def test_huge_array_count_is_refused_without_allocating(compact: bool) -> None:
    """A Metadata request claiming 2^31-1 topics in 30 bytes: refused at once, memory stays flat."""
    load_handlers()
    version = 12 if compact else 4
    head = bytearray(_payload(MetadataRequest(version=version, topics=[], allow_auto_topic_creation=False), version))
    # the topics array count follows the header: client id (int16 length + "fuzz") and, if flexible, tagged fields
    at = 8 + 2 + len("fuzz") + (1 if compact else 0)
    count = b"\xff\xff\xff\xff\x07" if compact else struct.pack(">i", 0x7FFFFFFF)
    width = 1 if compact else 4
    payload = bytes(head[:at]) + count + bytes(head[at + width :]) + b"\x00\x03abc" * 4
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(RequestRejected, match="undecodable Metadata"):
            decode_request(payload)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 1.0
    assert peak < 1 << 20, peak  # well under a megabyte


def test_short_unknown_and_unauthenticated_frames_are_rejected_with_a_reason() -> None:
    load_handlers()
    metadata = FRAMES[5]
    cases = [
        (b"\x00\x03", "shorter than a request header"),
        (struct.pack(">hhi", 999, 0, 1), "unknown api key 999"),
        (struct.pack(">hhi", 3, 99, 1), "MetadataRequest v99 not supported"),
        (metadata[:12], "undecodable MetadataRequest"),
    ]
    for payload, reason in cases:
        with pytest.raises(RequestRejected, match=reason):
            decode_request(payload)
    with pytest.raises(RequestRejected, match="api key 3 before SASL authentication"):
        decode_request(metadata, authenticated=False)
    unsupported = decode_request(struct.pack(">hhi", 18, 99, 5))  # ApiVersions v99: answered, not rejected
    assert unsupported.request is None and unsupported.correlation_id == 5


@pytest.mark.parametrize(
    ("request_", "version", "field"),
    [
        # found by this fuzzer: each crashed its handler with "'NoneType' object is not iterable"
        (ProduceRequest(version=7, transactional_id=None, acks=1, timeout_ms=1000, topic_data=None), 7, "topic_data"),
        (
            ProduceRequest(
                version=9,
                transactional_id=None,
                acks=1,
                timeout_ms=1000,
                topic_data=[ProduceRequest.TopicProduceData(name="orders", partition_data=None)],
            ),
            9,
            "topic_data[].partition_data",
        ),
        (
            FetchRequest(
                version=11,
                replica_id=-1,
                max_wait_ms=10,
                min_bytes=1,
                max_bytes=1,
                isolation_level=0,
                session_id=0,
                session_epoch=-1,
                topics=None,
                forgotten_topics_data=[],
                rack_id="",
            ),
            11,
            "topics",
        ),
        (DescribeConfigsRequest(version=1, resources=None, include_synonyms=False), 1, "resources"),
    ],
)
def test_null_where_the_schema_forbids_it_is_refused(request_: Any, version: int, field: str) -> None:
    """Regression: kafka-python decodes a null array anywhere; Kafka (and now the simulator) refuses it."""
    load_handlers()
    with pytest.raises(RequestRejected, match=rf"non-nullable field {re.escape(field)} was serialized as null"):
        decode_request(_payload(request_, version))


def test_null_where_the_schema_allows_it_is_served() -> None:
    load_handlers()
    all_topics = decode_request(_payload(MetadataRequest(version=4, topics=None, allow_auto_topic_creation=False), 4))
    assert all_topics.request is not None and all_topics.request.topics is None


# --------------------------------------------------------------------------- over loopback
def send_raw(port: int, data: bytes, wait: float = 0.3) -> bytes:
    """Send `data`, half-close, and read what comes back until EOF or `wait` seconds of silence."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # the server closed first: fine
            return b""
        sock.settimeout(wait)
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except (TimeoutError, OSError):
            pass
        return out


def well_behaved_clients_work(sim: SimRunner) -> None:
    admin = AdminClient({"bootstrap.servers": sim.bootstrap, "log_level": 0})
    assert "orders" in admin.list_topics(timeout=10).topics
    kp = KafkaAdminClient(bootstrap_servers=sim.bootstrap, request_timeout_ms=5000)
    try:
        assert "orders" in kp.list_topics()
    finally:
        kp.close()


def test_server_survives_fuzzing_and_keeps_serving(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="kafkatui.sim")
    with SimRunner(brokers=1) as sim:
        sim.call(lambda c: c.create_topic("orders", 1, 1))
        port = sim.port_of(1)
        size_fixes = st.sampled_from(["right", "right", "right", "short", "long", "negative", "huge"])

        @FUZZ
        @given(payloads, size_fixes)
        def fuzz(payload: bytes, size: str) -> None:
            n = {
                "right": len(payload),
                "short": max(0, len(payload) - 3),
                "long": len(payload) + 50,
                "negative": -len(payload),
                "huge": 0x7FFFFFFF,
            }[size]
            send_raw(port, struct.pack(">i", n) + payload)

        fuzz()
        # a client that keeps its connection open while others misbehave is still served
        with socket.create_connection(("127.0.0.1", port), timeout=5) as held:
            held.sendall(struct.pack(">i", len(FRAMES[0])) + FRAMES[0])
            for payload in FRAMES[5:9]:
                send_raw(port, struct.pack(">i", len(payload)) + payload[: len(payload) // 2] + b"\xff" * 9)
            assert held.recv(4)  # the ApiVersions answer arrived
        well_behaved_clients_work(sim)
        assert sim.call(lambda c: "orders" in c.topics)
    crashes = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not crashes, [r.getMessage() for r in crashes[:5]]
    assert any("closing" in r.getMessage() for r in caplog.records)  # bad frames were seen and refused


# --------------------------------------------------------------------------- SASL and TLS listeners
USER, PASSWORD = "ops", "fuzz-pw-1"
SASL_FRAMES = [
    *[_payload(SaslHandshakeRequest(version=v, mechanism=m), v) for v in (0, 1) for m in ("PLAIN", "SCRAM-SHA-256")],
    *[_payload(SaslAuthenticateRequest(version=v, auth_bytes=f"\0{USER}\0{PASSWORD}".encode()), v) for v in (0, 1, 2)],
    *[_payload(SaslAuthenticateRequest(version=v, auth_bytes=b"n,,n=ops,r=fuzznonce"), v) for v in (0, 2)],
]
HANDSHAKE = struct.pack(">i", len(SASL_FRAMES[1])) + SASL_FRAMES[1]  # SaslHandshake v1 PLAIN


@pytest.mark.parametrize("protocol", ["SASL_PLAINTEXT", "SSL"])
def test_secured_listeners_survive_garbage(protocol: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Garbage before and during SASL authentication, or instead of a TLS handshake: that connection is
    closed, and a client with the right credentials is still served."""
    from tests.integration.tls import make_certs

    caplog.set_level(logging.WARNING, logger="kafkatui.sim")
    client: dict[str, Any] = {"log_level": 0, "security.protocol": protocol}
    if protocol == "SSL":
        certs = make_certs(tmp_path)
        security: dict[str, Any] = {
            "protocol": "SSL",
            "certfile": str(certs.server_cert),
            "keyfile": str(certs.server_key),
        }
        client["ssl.ca.location"] = str(certs.ca)
    else:
        security = {"protocol": "SASL_PLAINTEXT", "users": {USER: PASSWORD}, "mechanisms": ["PLAIN", "SCRAM-SHA-256"]}
        client.update({"sasl.mechanism": "PLAIN", "sasl.username": USER, "sasl.password": PASSWORD})
    with SimRunner(brokers=1, security=security) as sim:
        sim.call(lambda c: c.create_topic("orders", 1, 1))
        port = sim.port_of(1)

        @settings(FUZZ, max_examples=max(50, FUZZ_EXAMPLES // 4))
        @given(st.one_of(mutated(SASL_FRAMES), mutated(), st.binary(max_size=256)), st.booleans())
        def fuzz(payload: bytes, after_handshake: bool) -> None:
            prefix = HANDSHAKE if after_handshake and protocol != "SSL" else b""
            send_raw(port, prefix + struct.pack(">i", len(payload)) + payload, wait=0.2)

        fuzz()
        admin = AdminClient({"bootstrap.servers": sim.bootstrap, **client})
        assert "orders" in admin.list_topics(timeout=10).topics
    crashes = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not crashes, [r.getMessage() for r in crashes[:5]]
