"""A first read on a connection of our own: ApiVersions and an all-topics Metadata request written back
to back to a bootstrap server (as kcat does), the answer kept as bytes; the connection then carries the
topics' DescribeConfigs (`kafkatui.kafka.configs_wire`), so that a `check` needs no kafka-python.

On a first read librdkafka's `list_topics` goes out only after its own ApiVersions, a brokers-only
Metadata, a new connection to a learnt broker and that connection's ApiVersions (5-6 requests in sequence),
and confluent-kafka then builds a Python object per partition (~0.35 s of CPU at 100,000 partitions). Here
the metadata is 2 requests in, and `kafkatui.kafka.metadata_wire.decode` reads it into columns. PLAINTEXT
and SSL only (TLS verified as librdkafka is configured to, `tlsprobe._client_context`): with SASL the
broker answers nothing before authentication. Anything else that goes wrong (a refused version, a garbled
answer, no answer in time) leaves the read to librdkafka, which says why it failed.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import socket
import struct
import threading
from collections.abc import Mapping

from kafkatui.kafka.tlsprobe import _client_context
from kafkatui.kafka.versions import API_VERSIONS, decode_response, encode_request
from kafkatui.kafka.wire import Reader

PROTOCOLS = ("PLAINTEXT", "SSL")
"""Security protocols whose first read goes on a connection of our own (no SASL handshake to do)."""
_OTHER_IDENTITY = ("ssl.keystore.location", "ssl.certificate.pem", "ssl.key.pem", "ssl.engine.location")
"""Client certificates Python's ssl is not given (`tlsprobe._client_context`): a broker that only requests a
certificate would take our connection for another principal, whose ACLs may hide topics."""


def usable(conf: Mapping[str, str]) -> bool:
    """Whether a first read may go on a connection of our own with these librdkafka settings: PLAINTEXT, or
    SSL verified and identified as librdkafka is (no client certificate Python's ssl would lack)."""
    protocol = conf.get("security.protocol", "PLAINTEXT").upper()
    if protocol == "PLAINTEXT":
        return True
    if protocol != "SSL" or any(conf.get(key) for key in _OTHER_IDENTITY):
        return False
    return conf.get("enable.ssl.certificate.verification", "true").lower() != "false"


METADATA = 3
METADATA_VERSION = 9
"""Written before the broker's versions are known: v4-v11 are served by every Kafka from 2.8 to 4.4 (4.0
dropped v0-v3). v9, the first flexible version (no topic ids, which kafkatui does not use): its one-byte
array counts read faster than v8's int32s."""
MAX_ANSWER = 1 << 30


def metadata_frame(correlation_id: int, client_id: str = "kafkatui") -> bytes:
    """An all-topics Metadata v9 request frame (request header v2): no topics named (null: every topic),
    no auto-creation, no authorized operations, no tagged fields."""
    cid = client_id.encode()
    header = struct.pack(">hhih", METADATA, METADATA_VERSION, correlation_id, len(cid)) + cid + b"\x00"
    body = b"\x00" + struct.pack(">???", False, False, False) + b"\x00"
    return struct.pack(">i", len(header) + len(body)) + header + body


def _after_flexible_header(answer: bytes) -> bytes:
    """The body of a flexible answer: after its correlation id and tagged fields (response header v1)."""
    r = Reader(answer, flexible=True, pos=4)
    r.tags()
    return answer[r.pos :]


def _read(sock: socket.socket, n: int) -> bytes:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if not k:
            raise ConnectionError("closed before the answer was complete")
        got += k
    return bytes(buf)


def served(versions: Mapping[int, tuple[int, int]], api_key: int, wanted: tuple[int, ...]) -> int | None:
    """The first of `wanted` an ApiVersions answer (`versions`) serves for `api_key`, or None."""
    lo, hi = versions.get(api_key, (0, -1))
    return next((v for v in wanted if lo <= v <= hi), None)


class Sockets:
    """A source's own open connections: all shut down at once when the source closes, so that a thread
    waiting on a frozen broker's answer ends then, not at its timeout (`close()` joins those threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._closed = False

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            if not self._closed:
                self._open.add(sock)
                return
        sock.close()
        raise ConnectionError("the source was closed")

    def discard(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)

    def close_all(self) -> None:
        with self._lock:
            self._closed = True
            socks, self._open = list(self._open), set()
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv (close alone does not)
            with contextlib.suppress(OSError):
                sock.close()


class RawConnection:
    """A connection of our own, once it answered: more requests in the fixed-size encodings (request
    header v1), written back to back, answered in order. One thread at a time."""

    def __init__(
        self,
        sock: socket.socket,
        versions: dict[int, tuple[int, int]],
        address: tuple[str, int],
        sockets: Sockets | None = None,
    ) -> None:
        self.sock = sock
        self.versions = versions
        self.address = address  # (host, port) as the bootstrap server was named
        self._sockets = sockets
        self._next = 0x6B76

    def version_of(self, api_key: int, wanted: tuple[int, ...]) -> int | None:
        """The first of `wanted` the broker serves for `api_key`, or None."""
        return served(self.versions, api_key, wanted)

    def exchange(self, api_key: int, version: int, bodies: list[bytes], timeout: float) -> list[bytes]:
        """Send `bodies` as requests of `api_key` at `version`; their answers' bodies, in order."""
        cid = b"kafkatui"
        frames, ids = [], []
        for body in bodies:
            self._next += 1
            ids.append(self._next)
            header = struct.pack(">hhih", api_key, version, self._next, len(cid)) + cid
            frames.append(struct.pack(">i", len(header) + len(body)) + header + body)
        self.sock.settimeout(timeout)
        self.sock.sendall(b"".join(frames))
        out = []
        for corr in ids:
            (size,) = struct.unpack(">i", _read(self.sock, 4))
            if not 4 <= size <= MAX_ANSWER:
                raise ValueError("not a Kafka answer")
            answer = _read(self.sock, size)
            if struct.unpack_from(">i", answer, 0)[0] != corr:
                raise ValueError("an answer for another request")
            out.append(answer[4:])
        return out

    def close(self) -> None:
        if self._sockets is not None:
            self._sockets.discard(self.sock)
        with contextlib.suppress(OSError):
            self.sock.close()


def connect(
    host: str, port: int, conf: Mapping[str, str], timeout: float, sockets: Sockets | None = None
) -> socket.socket:
    """A connection to a broker, TLS as librdkafka is configured to verify it (SSL), kept in `sockets`."""
    raw = socket.create_connection((host.strip("[]"), port), timeout=timeout)
    try:
        sock = raw
        if conf.get("security.protocol", "PLAINTEXT").upper() == "SSL":
            sock = _client_context(conf).wrap_socket(raw, server_hostname=host.strip("[]"))
    except BaseException:
        raw.close()
        raise
    if sockets is not None:
        sockets.add(sock)
    return sock


def ask(
    host: str,
    port: int,
    conf: Mapping[str, str],
    versions_seconds: float,
    metadata_seconds: float,
    versions: cf.Future[dict[int, tuple[int, int]]],
    sockets: Sockets | None = None,
) -> tuple[int, bytes, RawConnection]:
    """(version, body) of the broker's all-topics Metadata answer and the connection, left open (the
    caller closes it); `versions` gets its ApiVersions answer (or the failure) as soon as that is known,
    within `versions_seconds`; the metadata may take `metadata_seconds` more. Raises OSError, ValueError
    or ssl.SSLError."""
    try:
        sock = connect(host, port, conf, versions_seconds, sockets)
    except BaseException as exc:
        _settle(versions, None, exc)
        raise
    try:
        api_corr, md_corr = 0x6B74, 0x6B75
        sock.sendall(encode_request(api_corr) + metadata_frame(md_corr))
        (size,) = struct.unpack(">i", _read(sock, 4))
        if not 10 <= size <= 1 << 16:
            raise ValueError("not an ApiVersions answer")
        api = decode_response(_read(sock, size), api_corr)
        _settle(versions, api, None)
        lo, hi = api.get(METADATA, (0, -1))
        if not lo <= METADATA_VERSION <= hi:
            raise ValueError(f"the broker serves Metadata v{lo}-v{hi}, not v{METADATA_VERSION}")
        sock.settimeout(metadata_seconds)
        (size,) = struct.unpack(">i", _read(sock, 4))
        if not 4 <= size <= MAX_ANSWER:
            raise ValueError("not a Metadata answer")
        answer = _read(sock, size)
        (corr,) = struct.unpack_from(">i", answer, 0)
        if corr != md_corr:
            raise ValueError("Metadata answer for another request")
        return METADATA_VERSION, _after_flexible_header(answer), RawConnection(sock, api, (host, port), sockets)
    except BaseException as exc:
        _settle(versions, None, exc)
        if sockets is not None:
            sockets.discard(sock)
        sock.close()
        raise


def _settle(
    fut: cf.Future[dict[int, tuple[int, int]]], result: dict[int, tuple[int, int]] | None, exc: BaseException | None
) -> None:
    if fut.done():
        return
    if exc is None and result is not None:
        fut.set_result(result)
    else:
        fut.set_exception(exc if exc is not None else ValueError("no answer"))


__all__ = [
    "PROTOCOLS",
    "API_VERSIONS",
    "METADATA_VERSION",
    "RawConnection",
    "Sockets",
    "ask",
    "connect",
    "discard",
    "metadata_frame",
    "served",
]


def discard(fut: cf.Future[tuple[int, bytes, RawConnection]]) -> None:
    """Close the connection of an `ask` whose answer is not used, once it is done."""

    def close(done: cf.Future[tuple[int, bytes, RawConnection]]) -> None:
        if not done.cancelled() and done.exception() is None:
            done.result()[2].close()

    fut.add_done_callback(close)
