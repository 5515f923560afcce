"""DescribeConfigs v1-v4 written and read by kafkatui: on the first read's own connection
(`kafkatui.kafka.firstread`), without kafka-python (its import alone is ~0.2 s of a `check`'s CPU), and on
kafka-python's connections at later refreshes (`kafkatui.kafka.kpreads`), where its decoder took ~0.1 s of
its IO thread for 2,001 topics. Topics' configs naming only the kept keys. The bytes are kafka-python's
(tests/integration/test_wire_codecs.py).
"""

from __future__ import annotations

import concurrent.futures as cf
import struct
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from kafkatui.kafka.brokerconfigs import BROKER_RESOURCE, ConfigsUnreadable, KeptConfigs
from kafkatui.kafka.errors import one_line
from kafkatui.kafka.firstread import RawConnection, Sockets, connect, served
from kafkatui.kafka.topicconfigs import TOPIC_RESOURCE, Entry, TopicConfigs, entry_values, noted_failure
from kafkatui.kafka.wire import Reader, uvarint
from kafkatui.model.snapshot import DYNAMIC_TOPIC_CONFIG, ConfigValue

API_KEY = 32
VERSIONS = (4, 3, 2, 1)
"""The encodings written and read here, newest first (v0 has no config source: kafka-python's own codec reads
it; v4 is flexible; Kafka 4.0 dropped v0)."""
FLEXIBLE = 4
OWN_VERSIONS = (3, 2, 1)
"""The versions asked on a connection of our own (`firstread.RawConnection` writes request header v1)."""

TOPICS_PER_REQUEST = 10_000
"""Topics a request names: a broker serves one connection's requests one after another, so each request
more is a round trip more (10,000 topics with 13 keys: ~0.5 MB asked, well under socket.request.max.bytes)."""
HEDGE_SECONDS = 0.1
"""How long the bootstrap server's broker may trail another broker's config answer before the topic
configs are asked of that one too (less was scheduling noise: equal brokers at load were asked twice)."""

Result = tuple[str, int, str | None, list[Entry]]
_FLAGS = struct.Struct(">?b?")  # read only, config source, sensitive


def _string(s: str, flexible: bool) -> bytes:
    raw = s.encode()
    return (uvarint(len(raw) + 1) if flexible else struct.pack(">h", len(raw))) + raw


def encode_request(resources: Sequence[tuple[int, str]], keys: Sequence[str], version: int) -> bytes:
    """The body of a DescribeConfigs request for `resources` ((type, name)), asking for `keys`, no synonyms
    (no documentation)."""
    if version not in VERSIONS:
        raise ValueError(f"DescribeConfigs v{version} is not written here")
    flexible = version >= FLEXIBLE
    count = (lambda n: uvarint(n + 1)) if flexible else (lambda n: struct.pack(">i", n))
    wanted = count(len(keys)) + b"".join(_string(k, flexible) for k in keys)
    tail = b"\x00" if flexible else b""  # a resource's tagged fields
    out = [count(len(resources))]
    for kind, name in resources:
        out.append(struct.pack(">b", kind) + _string(name, flexible) + wanted + tail)
    out.append(b"\x00")  # include_synonyms
    if version >= 3:
        out.append(b"\x00")  # include_documentation
    if flexible:
        out.append(b"\x00")  # the request's tagged fields
    return b"".join(out)


def decode_response(body: bytes, version: int) -> Iterator[Result]:
    """The results of a DescribeConfigs answer (after the response header): (resource name, error code,
    error message, entries as `topicconfigs.Entry`)."""
    return iter([(name, code, msg, _entries(body, at, version)) for name, code, msg, _, at in _results(body, version)])


def read_answers(
    answers: Iterable[tuple[int, bytes]], keys: frozenset[str], timeout: float, set_here: str = DYNAMIC_TOPIC_CONFIG
) -> TopicConfigs:
    """DescribeConfigs answers ((version, body) each) read as `topicconfigs.read_results` reads decoded ones.
    A result's configs are read once per distinct bytes: the topics of a cluster mostly share theirs (2,001
    topics, 7 keys: ~10 ms, where kafka-python's decoder and its containers took ~0.1 s)."""
    out = TopicConfigs()
    seen: dict[tuple[Any, ...], ConfigValue] = {}
    read: dict[bytes, dict[str, ConfigValue]] = {}
    for version, body in answers:
        for name, code, message, block, at in _results(body, version):
            if noted_failure(out, name, code, message, timeout):
                continue
            values = read.get(block)
            if values is None:
                values = read[block] = entry_values(_entries(body, at, version), keys, seen, set_here)
            out.configs[name] = dict(values)
    return out


def _results(body: bytes, version: int) -> list[tuple[str, int, str | None, bytes, int]]:
    """Each result of an answer: (name, error code, error message, its configs' bytes, where they start)."""
    if version not in VERSIONS:
        raise ValueError(f"DescribeConfigs v{version} is not read here")
    r = Reader(body, version >= FLEXIBLE)
    r.pos += 4  # throttle time
    out = []
    try:
        for _ in range(max(0, r.length())):
            code = r.int16()
            message = r.string()
            r.pos += 1  # resource type
            name = r.string() or ""
            at = r.pos
            _skip_entries(r, version)
            out.append((name, int(code), message, body[at : r.pos], at))
            r.tags()
        r.tags()
    except (IndexError, struct.error):
        raise ValueError("DescribeConfigs answer ends early") from None
    if r.pos > len(body):
        raise ValueError("DescribeConfigs answer ends early")
    return out


def _skip_entries(r: Reader, version: int) -> None:
    """Past a result's configs array: its lengths only, where each entry is the common kind (a flexible
    entry with one-byte lengths, no synonyms, documentation or tagged fields); any other entry is read."""
    n = r.length()
    if version < FLEXIBLE:
        _entries_at(r, max(0, n), version)
        return
    buf, pos = r.buf, r.pos
    for i in range(max(0, n)):
        name = buf[pos]
        value = buf[pos + name] if not name & 0x80 else 0x80
        tail = pos + name + (value or 1) + 3
        if not value & 0x80 and buf[tail] == 1 and buf[tail + 2] == 0 and buf[tail + 3] == 0:
            pos = tail + 4  # no synonyms, the config type, no documentation, no tagged fields
            continue
        r.pos = pos
        _entries_at(r, n - i, version)
        return
    r.pos = pos


def _entries(body: bytes, at: int, version: int) -> list[Entry]:
    """The configs array starting at `at`, every field read."""
    r = Reader(body, version >= FLEXIBLE, at)
    return _entries_at(r, max(0, r.length()), version)


def _entries_at(r: Reader, m: int, version: int) -> list[Entry]:
    entries: list[Entry] = []
    for _ in range(m):
        key = r.string() or ""
        value = r.string()
        read_only, source, sensitive = r.fixed(_FLAGS)
        for _ in range(max(0, r.length())):  # synonyms (none asked for)
            r.string()
            r.string()
            r.pos += 1
            r.tags()
        if version >= 3:
            r.pos += 1  # config type
            r.string()  # documentation
        r.tags()
        entries.append((key, value, int(source), bool(sensitive), bool(read_only), None))
    return entries


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
        return read_answers([(version, body) for body in answers], keys, timeout)
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
        version = served(versions, API_KEY, OWN_VERSIONS)
        if version is None:
            raise ValueError("the broker serves none of DescribeConfigs v1-v3")
        conn = RawConnection(connect(host, port, conf, timeout, sockets), versions, (host, port), sockets)
        try:
            (body,) = conn.exchange(
                API_KEY, version, [encode_request([(BROKER_RESOURCE, str(broker))], sorted(keys), version)], timeout
            )
        finally:
            conn.close()
        got = read_answers([(version, body)], keys, timeout, set_here="UNKNOWN")
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
    "OWN_VERSIONS",
    "TOPICS_PER_REQUEST",
    "VERSIONS",
    "broker_configs",
    "decode_response",
    "encode_request",
    "read_answers",
    "topic_configs",
]
