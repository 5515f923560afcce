"""Which Kafka the brokers run: one ApiVersions request per broker, read into a `KafkaVersion`.

confluent-kafka does not expose the ApiVersions answer librdkafka gets, and kafka-python's client
is not started for a dashboard's first read (its import alone costs ~0.2 s). So each broker is
asked once, on its own connection, with a hand-encoded ApiVersions v0 request (every broker since
0.10 answers it, before SASL authentication too; TLS as the client is configured). The answer is
kept per broker address and asked again only when the broker has left the metadata or refused
connections (a restart may be an upgrade). The markers that tell releases apart are
`kafkatui.model.rules.MARKERS`. Nothing secret is sent.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import socket
import ssl
import struct
import threading
from collections.abc import Callable, Mapping

from kafkatui.kafka.tlsprobe import _client_context
from kafkatui.model.rules import KafkaVersion, combine, mode_from_roles, version_from_api_versions

log = logging.getLogger(__name__)

API_VERSIONS = 18
ASK_SECONDS = 2.0
"""At most this long per broker (connect, TLS, answer)."""

Address = tuple[int, str, int]  # broker id, host, port


def encode_request(correlation_id: int, client_id: str = "kafkatui") -> bytes:
    """An ApiVersions v0 request frame (request header v1, empty body)."""
    cid = client_id.encode()
    body = struct.pack(">hhih", API_VERSIONS, 0, correlation_id, len(cid)) + cid
    return struct.pack(">i", len(body)) + body


def decode_response(payload: bytes, correlation_id: int) -> dict[int, tuple[int, int]]:
    """{api key: (min, max)} from an ApiVersions v0 response body (after the size); ValueError if garbled."""
    if len(payload) < 10:
        raise ValueError("short ApiVersions answer")
    corr, error, n = struct.unpack_from(">ihi", payload, 0)
    if corr != correlation_id:
        raise ValueError("ApiVersions answer for another request")
    if error:
        raise ValueError(f"ApiVersions error {error}")
    if n < 0 or 10 + 6 * n > len(payload):
        raise ValueError("garbled ApiVersions answer")
    out = {}
    for i in range(n):
        key, lo, hi = struct.unpack_from(">hhh", payload, 10 + 6 * i)
        out[key] = (lo, hi)
    return out


def _read_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed before the answer was complete")
        buf += chunk
    return buf


def ask(host: str, port: int, conf: Mapping[str, str], timeout: float = ASK_SECONDS) -> dict[int, tuple[int, int]]:
    """One broker's ApiVersions answer; raises OSError / ValueError / ssl.SSLError when it cannot be had."""
    protocol = conf.get("security.protocol", "PLAINTEXT").upper()
    with socket.create_connection((host.strip("[]"), port), timeout=timeout) as raw:
        sock: socket.socket = raw
        if protocol in ("SSL", "SASL_SSL"):
            sock = _client_context(conf).wrap_socket(raw, server_hostname=host.strip("[]"))
        corr = 0x6B74  # any id: one request per connection
        sock.sendall(encode_request(corr))
        (size,) = struct.unpack(">i", _read_exact(sock, 4))
        if not 10 <= size <= 1 << 16:
            raise ValueError("not an ApiVersions answer")
        return decode_response(_read_exact(sock, size), corr)


class BrokerVersions:
    """The brokers' versions, asked once per broker address and kept (thread-safe)."""

    def __init__(self, conf: Mapping[str, str], asker: Callable[..., dict[int, tuple[int, int]]] = ask) -> None:
        self._conf = dict(conf)
        self._ask = asker
        self._known: dict[Address, KafkaVersion] = {}
        self._pending: dict[Address, cf.Future[dict[int, tuple[int, int]]]] = {}
        self._lock = threading.Lock()

    def forget(self, broker_ids: frozenset[int]) -> None:
        """Ask these brokers again next time (they restarted, or refused connections)."""
        with self._lock:
            for addr in [a for a in self._known if a[0] in broker_ids]:
                del self._known[addr]

    def start(self, brokers: Mapping[int, tuple[str, int]], pool: cf.Executor) -> None:
        """Ask the listed brokers not yet known (on `pool`, one connection each); an answer still on
        its way from an earlier call is not asked again."""
        addrs = {(bid, host, port) for bid, (host, port) in brokers.items()}
        with self._lock:
            for gone in [a for a in self._known if a not in addrs]:
                del self._known[gone]  # left the metadata or moved: ask again when back
            for addr in sorted(addrs):
                if addr not in self._known and addr not in self._pending:
                    self._pending[addr] = pool.submit(self._ask, addr[1], addr[2], self._conf, ASK_SECONDS)

    def result(self, brokers: Mapping[int, tuple[str, int]], wait: float) -> dict[int, KafkaVersion]:
        """Each listed broker's version, waiting up to `wait` seconds for answers on their way;
        a broker that has not answered (hung, refusing, not Kafka) is left out and asked next time."""
        with self._lock:
            pending = list(self._pending.values())
        if pending and wait > 0:
            cf.wait(pending, timeout=wait)
        with self._lock:
            for addr, fut in list(self._pending.items()):
                if not fut.done():
                    continue
                del self._pending[addr]
                try:
                    self._known[addr] = version_from_api_versions(fut.result())
                except (OSError, ValueError, ssl.SSLError) as exc:
                    log.debug("ApiVersions of broker %d unanswered: %s", addr[0], exc)
            return {
                bid: self._known[(bid, host, port)]
                for bid, (host, port) in sorted(brokers.items())
                if (bid, host, port) in self._known
            }


def cluster_version(per_broker: Mapping[int, KafkaVersion], roles: list[str | None]) -> KafkaVersion:
    """The cluster's range over its brokers' answers; `roles` (the brokers' ``process.roles``) give
    the mode when no broker answered."""
    return combine(per_broker.values(), mode_from_roles(roles))
