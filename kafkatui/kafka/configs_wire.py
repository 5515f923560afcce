"""DescribeConfigs v1-v3 written and read by kafkatui, for the first read's own connection
(`kafkatui.kafka.firstread`): topics' configs naming only the kept keys, without kafka-python (its import
alone is ~0.2 s of a `check`'s CPU). The bytes are kafka-python's (tests/integration/test_wire_codecs.py).
"""

from __future__ import annotations

import concurrent.futures as cf
import struct
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from kafkatui.kafka.brokerconfigs import BROKER_RESOURCE, ConfigsUnreadable, KeptConfigs
from kafkatui.kafka.errors import one_line
from kafkatui.kafka.firstread import RawConnection, Sockets, connect, served
from kafkatui.kafka.topicconfigs import TOPIC_RESOURCE, Entry, TopicConfigs, read_results
from kafkatui.kafka.wire import Reader

API_KEY = 32
VERSIONS = (3, 2, 1)
"""The fixed-size encodings, newest first (v0 has no config source; v4 is flexible; Kafka 4.0 dropped v0)."""

TOPICS_PER_REQUEST = 10_000
"""Topics a request names: a broker serves one connection's requests one after another, so each request
more is a round trip more (10,000 topics with 13 keys: ~0.5 MB asked, well under socket.request.max.bytes)."""
HEDGE_SECONDS = 0.1
"""How long the bootstrap server's broker may trail another broker's config answer before the topic
configs are asked of that one too (less was scheduling noise: equal brokers at load were asked twice)."""

Result = tuple[str, int, str | None, list[Entry]]
_FLAGS = struct.Struct(">?b?")  # read only, config source, sensitive


def _string(s: str) -> bytes:
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def encode_request(resources: Sequence[tuple[int, str]], keys: Sequence[str], version: int) -> bytes:
    """The body of a DescribeConfigs request for `resources` ((type, name)), asking for `keys`, no synonyms
    (no documentation)."""
    if version not in VERSIONS:
        raise ValueError(f"DescribeConfigs v{version} is not written here")
    wanted = struct.pack(">i", len(keys)) + b"".join(_string(k) for k in keys)
    out = [struct.pack(">i", len(resources))]
    for kind, name in resources:
        out.append(struct.pack(">b", kind) + _string(name) + wanted)
    out.append(b"\x00")  # include_synonyms
    if version >= 3:
        out.append(b"\x00")  # include_documentation
    return b"".join(out)


def decode_response(body: bytes, version: int) -> Iterator[Result]:
    """The results of a DescribeConfigs answer (after the response header): (resource name, error code,
    error message, entries as `topicconfigs.Entry`)."""
    if version not in VERSIONS:
        raise ValueError(f"DescribeConfigs v{version} is not read here")
    r = Reader(body, flexible=False)
    r.pos += 4  # throttle time
    n = r.int32()
    out: list[Result] = []
    for _ in range(max(0, n)):
        code = r.int16()
        message = r.string()
        r.pos += 1  # resource type
        name = r.string() or ""
        m = r.int32()
        entries: list[Entry] = []
        for _ in range(max(0, m)):
            key = r.string() or ""
            value = r.string()
            read_only, source, sensitive = r.fixed(_FLAGS)
            k = r.int32()
            for _ in range(max(0, k)):  # synonyms (none asked for)
                r.string()
                r.string()
                r.pos += 1
            if version >= 3:
                r.pos += 1  # config type
                r.string()  # documentation
            entries.append((key, value, int(source), bool(sensitive), bool(read_only), None))
        out.append((name, int(code), message, entries))
    if r.pos > len(body):
        raise ValueError("DescribeConfigs answer ends early")
    return iter(out)


def topic_configs(
    conn: RawConnection, names: Sequence[str], keys: frozenset[str], per_request: int, version: int, timeout: float
) -> TopicConfigs:
    """The kept `keys` of every topic in `names`, asked on `conn` (`per_request` topics a request, written
    back to back), read as `topicconfigs.read_responses` reads kafka-python's answers. Closes `conn`."""
    try:
        wanted = sorted(keys)
        bodies = [
            encode_request([(TOPIC_RESOURCE, n) for n in names[i : i + per_request]], wanted, version)
            for i in range(0, len(names), per_request)
        ]
        answers = conn.exchange(API_KEY, version, bodies, timeout)
        results = [result for body in answers for result in decode_response(body, version)]
        return read_results(results, keys, timeout)
    finally:
        conn.close()


def broker_configs(
    host: str,
    port: int,
    conf: Mapping[str, str],
    versions: dict[int, tuple[int, int]],
    broker: int,
    keys: frozenset[str],
    timeout: float,
    sockets: Sockets | None = None,
) -> KeptConfigs:
    """One broker's kept configs, asked of it on a connection of our own (a broker answers DescribeConfigs
    of itself only); `versions`: the bootstrap server's ApiVersions answer. Raises `ConfigsUnreadable`, as
    `kafkatui.kafka.brokerconfigs` does: `answered` when the broker said why."""
    try:
        version = served(versions, API_KEY, VERSIONS)
        if version is None:
            raise ValueError("the broker serves none of DescribeConfigs v1-v3")
        conn = RawConnection(connect(host, port, conf, timeout, sockets), versions, (host, port), sockets)
        try:
            (body,) = conn.exchange(
                API_KEY, version, [encode_request([(BROKER_RESOURCE, str(broker))], sorted(keys), version)], timeout
            )
        finally:
            conn.close()
        got = read_results(decode_response(body, version), keys, timeout, set_here="UNKNOWN")
    except (OSError, ValueError, struct.error) as exc:
        raise ConfigsUnreadable(_reason(exc, timeout)) from None
    values = got.configs.get(str(broker))
    if values is None:
        raise ConfigsUnreadable(next(iter(got.failed), "the answer did not name the broker"), answered=True)
    return KeptConfigs(values)


def hedged_topic_configs(
    first: cf.Future[TopicConfigs],
    brokers: Mapping[int, cf.Future[Any]],
    node: int | None,
    ask_another: Callable[[int], cf.Future[TopicConfigs]],
    timeout: float,
) -> TopicConfigs:
    """The topic configs asked of the bootstrap server's broker `node` (`first`, on the first read's own
    connection), unless that broker proves slower than another: another broker answered its own config
    request (`brokers`, sent at about the same time) and `node`'s has not `HEDGE_SECONDS` later. Then they
    are asked of that one too (`ask_another`, a connection of our own) and the first good answer is
    taken: a slow bootstrap broker does not hold up the read. Raises what `first` raises when no answer is good."""
    deadline = time.monotonic() + timeout
    own = brokers.get(node) if node is not None else None
    asked: list[cf.Future[TopicConfigs]] = [first]
    trailing: float | None = None  # since when another broker answered and `node` had not
    while own is not None and not first.done() and not own.done() and time.monotonic() < deadline:
        faster = next((b for b, f in brokers.items() if b != node and f.done() and _answered(f)), None)
        if faster is not None:
            trailing = time.monotonic() if trailing is None else trailing
            if time.monotonic() - trailing >= HEDGE_SECONDS:
                asked.append(ask_another(faster))
                break
        pending = [f for f in brokers.values() if not f.done()]
        cf.wait(
            [first, *pending], timeout=min(0.05, max(0.0, deadline - time.monotonic())), return_when=cf.FIRST_COMPLETED
        )
    while True:
        done = [f for f in asked if f.done()]
        for f in done:
            if f.exception() is None:
                return f.result()
        if len(done) == len(asked) or time.monotonic() >= deadline:
            return first.result(timeout=max(0.0, deadline - time.monotonic()))
        cf.wait(
            [f for f in asked if not f.done()],
            timeout=max(0.0, deadline - time.monotonic()),
            return_when=cf.FIRST_COMPLETED,
        )


def _answered(fut: cf.Future[Any]) -> bool:
    return not fut.cancelled() and fut.exception() is None


def _reason(exc: BaseException, timeout: float) -> str:
    """A problem line's reason for a failed request on a connection of our own."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:.1f}s"
    if isinstance(exc, ConnectionRefusedError):
        return "the broker refused the connection"
    return one_line(f"{type(exc).__name__}: {exc}", 160)


__all__ = [
    "API_KEY",
    "TOPICS_PER_REQUEST",
    "VERSIONS",
    "broker_configs",
    "decode_response",
    "encode_request",
    "topic_configs",
]
