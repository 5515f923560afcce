"""Why a Kafka client failed, in one line for the user: librdkafka's error events and errors, and
kafka-python's exceptions, classified into `KafkaTuiError` subclasses (see `kafkatui.kafka.errors`).

Used by `kafkatui.kafka.source`: `_EventLog` collects what librdkafka reports through ``error_cb``
and its log lines; `classify_event` and `_best` tell a refused connection, DNS, TLS, SASL or a
non-Kafka listener apart; `_probe` tries a plain TCP connection when librdkafka gives no reason.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from confluent_kafka import KafkaError, KafkaException

from kafkatui.kafka.errors import (
    AuthenticationError,
    AuthorizationDeniedError,
    CannotConnectError,
    KafkaTuiError,
    MetadataTimeoutError,
    NotKafkaError,
    UsageError,
    one_line,
    scrub,
)
from kafkatui.kafka.settings import parse_host_port
from kafkatui.kafka.tlsprobe import REJECTED_CLIENT_CERT

_AUTHZ_CODES = {
    29: "TOPIC_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    53: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
}
_AUTHZ_HINTS = {29: "DESCRIBE_CONFIGS on the topics", 31: "DESCRIBE on the CLUSTER resource"}


# --------------------------------------------------------------------------- librdkafka errors
@dataclass(frozen=True, slots=True)
class ClientEvent:
    """One error librdkafka reported through error_cb (text scrubbed of secrets)."""

    code: int
    name: str
    text: str
    at: float  # time.monotonic()


class _EventLog:
    """error_cb target: the recent librdkafka errors (bounded; holds no reference to a client)."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = list(secrets)
        self._lock = threading.Lock()
        self._items: deque[ClientEvent] = deque(maxlen=500)
        self.fatal = False

    def error_cb(self, err: KafkaError) -> None:
        event = ClientEvent(err.code(), err.name(), one_line(scrub(err.str(), self._secrets)), time.monotonic())
        with self._lock:
            self._items.append(event)
            if err.fatal():
                self.fatal = True

    def since(self, t: float) -> list[ClientEvent]:
        with self._lock:
            return [e for e in self._items if e.at >= t]

    def logger(self, forward: logging.Logger | None) -> logging.Logger:
        """A logger for librdkafka's `logger` setting: records its lines here (and to `forward`).

        The lines say what error_cb does not, e.g. that a request timed out. The logger is
        outside logging's registry, so nothing reaches stderr.
        """
        level = logging.INFO if forward is None else min(logging.INFO, forward.getEffectiveLevel())
        logger = logging.Logger("kafkatui.librdkafka", level)
        logger.propagate = False
        logger.addHandler(_EventHandler(self))
        if forward is not None:
            logger.addHandler(_Forward(forward, self._secrets))
        return logger

    def add_log_line(self, facility: str, text: str) -> None:
        event = ClientEvent(0, facility, one_line(scrub(text, self._secrets)), time.monotonic())
        with self._lock:
            self._items.append(event)


_LOG_LINE = re.compile(r"^(?P<facility>[A-Z_0-9]+) \[[^\]]*\] \[[^\]]*\]: (?P<text>.*)$")


class _EventHandler(logging.Handler):
    def __init__(self, events: _EventLog) -> None:
        super().__init__(logging.INFO)
        self._events = events

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = record.getMessage()
        except Exception:
            return
        m = _LOG_LINE.match(line)
        if m:
            self._events.add_log_line(m.group("facility"), m.group("text"))
        else:
            self._events.add_log_line("LOG", line)


class _Forward(logging.Handler):
    """Pass librdkafka's lines on to the caller's logger, secrets scrubbed."""

    def __init__(self, target: logging.Logger, secrets: Sequence[str]) -> None:
        super().__init__(logging.NOTSET)
        self._target = target
        self._secrets = list(secrets)

    def emit(self, record: logging.LogRecord) -> None:
        if self._target.isEnabledFor(record.levelno):
            clean = logging.makeLogRecord(record.__dict__)
            clean.msg, clean.args = scrub(record.getMessage(), self._secrets), None
            self._target.handle(clean)


_EVENT_HEAD = re.compile(
    r"^(?:(?P<proto>[a-z_]+)://)?(?P<addr>\[[^\]]+\]:\d+|[^\s/\[\]]+:\d+)/(?P<node>[^:\s]+):\s*(?P<rest>.*)$"
)
_EVENT_TAIL = re.compile(r"\s*\(after \d+ms in state (?P<state>[A-Z_]+)(?:,[^)]*)?\)\s*$")
_RESPONSE_SIZE = re.compile(r"Invalid response size (\d+)")
_UNVERIFIED = re.compile(r"^TLS handshake with (?P<addr>\S+) failed: .*certificate verify failed", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Parsed:
    addr: str | None
    state: str | None
    detail: str


def _parse_event(text: str) -> _Parsed:
    addr = state = None
    rest = text
    m = _EVENT_HEAD.match(text)
    if m:
        addr, rest = m.group("addr"), m.group("rest")
    t = _EVENT_TAIL.search(rest)
    if t:
        state, rest = t.group("state"), rest[: t.start()]
    return _Parsed(addr, state, rest.strip())


def _looks_like(size: int) -> str:
    """What a non-Kafka server sent, from the 4 bytes librdkafka read as a response size."""
    head = size.to_bytes(4, "big", signed=False) if 0 <= size < 1 << 32 else b""
    if head.startswith(b"HTTP") or head.lower().startswith((b"<htm", b"<!do")):
        return "it answered the Kafka handshake with HTTP (a web server or proxy?)"
    if head[:1] == b"\x15" and head[1:2] == b"\x03":
        return "it answered with a TLS alert: the listener expects TLS (security protocol SSL or SASL_SSL)"
    if head.startswith(b"SSH-"):
        return "it is an SSH server"
    if head and all(32 <= b < 127 for b in head):
        return f"it answered the Kafka handshake with text starting {head.decode()!r}"
    return "it answered the Kafka handshake with something that is not a Kafka response"


def classify_event(event: ClientEvent, security_protocol: str = "PLAINTEXT") -> KafkaTuiError | None:
    """The user-facing error a librdkafka error_cb event stands for, or None if not decisive."""
    p = _parse_event(event.text)
    addr = p.addr or "the bootstrap server"
    detail = p.detail
    low = detail.lower()
    if event.name == "_AUTHENTICATION" or "sasl" in low and "authentication" in low:
        reason = re.sub(r"^SASL authentication error:\s*", "", detail)
        if "current sasl state" in low:  # how a Kafka listener without SASL answers SaslHandshake
            reason = re.sub(r":?\s*broker's supported mechanisms:\s*$", "", reason)
            reason += " (that listener does not do SASL: use its SASL port, or security.protocol PLAINTEXT or SSL)"
        return AuthenticationError(f"SASL authentication with {addr} failed: {reason}")
    if "alert certificate required" in low or "ssl alert number 116" in low:
        return AuthenticationError(
            f"TLS handshake with {addr} failed: the broker requires a client certificate (mTLS): "
            "set ssl.certificate.location and ssl.key.location"
        )
    if (
        "alert bad certificate" in low
        or "alert unknown ca" in low
        or "alert certificate unknown" in low  # what a Java broker sends for an expired client certificate
        or re.search(r"ssl alert number (42|46|48)\b", low)
    ):
        return AuthenticationError(f"TLS handshake with {addr} failed: {REJECTED_CLIENT_CERT}")
    if (
        event.name == "_SSL"
        or p.state == "SSL_HANDSHAKE"
        or "ssl handshake failed" in low
        or "certificate verify failed" in low
    ):
        reason = re.sub(r"^SSL handshake failed:\s*", "", detail)
        return AuthenticationError(f"TLS handshake with {addr} failed: {reason}")
    if p.state == "CONNECT" and "timed out" in low:
        return CannotConnectError(
            f"cannot connect to {addr}: connection timed out (host down, or the port is filtered)"
        )
    if "timed out" in low:
        return None  # a request went unanswered: a hung or slow server, not a refusal
    if event.name == "_RESOLVE" or "failed to resolve" in low:
        host = addr.rsplit(":", 1)[0]
        reason = detail.rsplit(": ", 1)[-1] if ": " in detail else detail
        return CannotConnectError(f"cannot resolve host name {host} ({addr}): {reason}")
    m = _RESPONSE_SIZE.search(detail)
    if m:
        return NotKafkaError(f"{addr} is not a Kafka listener: {_looks_like(int(m.group(1)))}")
    if _closed_in_handshake(p):
        return NotKafkaError(
            f"{addr} closed the connection during the Kafka handshake: not a Kafka listener, or one that "
            f"expects TLS or SASL (security protocol here: {security_protocol})"
        )
    if "connection refused" in low:
        return CannotConnectError(
            f"cannot connect to {addr}: connection refused (nothing listens there: down, or wrong port?)"
        )
    for reason in ("No route to host", "Network is unreachable", "Host is unreachable", "Address not available"):
        if reason.lower() in low:
            return CannotConnectError(f"cannot connect to {addr}: {reason.lower()}")
    if event.name == "_TRANSPORT" and p.state == "CONNECT":
        return CannotConnectError(f"cannot connect to {addr}: {detail}")
    return None


def _closed_in_handshake(p: _Parsed) -> bool:
    """The connection closed while librdkafka asked for the API versions, nothing read: a listener
    that is not Kafka's (or expects TLS or SASL), or a broker going down with the connection in flight."""
    low = p.detail.lower()
    return "apiversion" in low or (p.state == "APIVERSION_QUERY" and "disconnected" in low)


def _timed_out(event: ClientEvent) -> bool:
    return "timed out" in event.text.lower() and _parse_event(event.text).state != "CONNECT"


_PRIORITY = {AuthenticationError: 0, NotKafkaError: 1, CannotConnectError: 2}
# a connection closed in the handshake tells less than a refused one: brokers that crash together close
# the connections in flight (or accept one as they go) before their ports refuse, and "not a Kafka
# listener" for one of three crashed brokers sent the user after a security setting (seen in CI)
_CLOSED_IN_HANDSHAKE = 3


def _rank(err: KafkaTuiError, p: _Parsed) -> int:
    if isinstance(err, NotKafkaError) and _closed_in_handshake(p):
        return _CLOSED_IN_HANDSHAKE
    return _PRIORITY.get(type(err), 9)


def _best(events: Iterable[ClientEvent], security_protocol: str) -> tuple[KafkaTuiError, int] | None:
    """The most telling decisive error among `events` and how many addresses failed."""
    per_addr: dict[str, tuple[int, KafkaTuiError]] = {}
    for ev in events:
        err = classify_event(ev, security_protocol)
        if err is None:
            continue
        p = _parse_event(ev.text)
        addr = p.addr or "?"
        rank = _rank(err, p)
        old = per_addr.get(addr)
        if old is None or rank <= old[0]:
            per_addr[addr] = (rank, err)
    if not per_addr:
        return None
    return min(per_addr.values(), key=lambda r: r[0])[1], len(per_addr)


def classify_kafka_error(err: KafkaError, what: str, timeout: float | None = None) -> KafkaTuiError:
    """A KafkaError from a confluent-kafka call (not a connection event) as a KafkaTuiError."""
    code = err.code()
    if code in _AUTHZ_CODES:
        hint = _AUTHZ_HINTS.get(code)
        return AuthorizationDeniedError(
            f"{what}: not authorized ({_AUTHZ_CODES[code]}{'; needs ' + hint if hint else ''})"
        )
    if code in (KafkaError._AUTHENTICATION, KafkaError._SSL, 58):  # 58 SASL_AUTHENTICATION_FAILED
        return AuthenticationError(f"{what}: {err.str()}")
    if code in (KafkaError._TIMED_OUT, KafkaError.REQUEST_TIMED_OUT):
        within = f" within {timeout:g}s" if timeout is not None else ""
        return MetadataTimeoutError(f"{what}: no answer{within}")
    if code in (KafkaError._INVALID_ARG, KafkaError._INVALID_TYPE):
        return UsageError(f"{what}: {err.str()}")
    if code in (KafkaError._RESOLVE,):
        return CannotConnectError(f"{what}: {err.str()}")
    if code in (KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._DESTROY_BROKER):
        return CannotConnectError(f"{what}: {err.str()}")
    return KafkaTuiError(f"{what}: {err.str()} ({err.name()})")


def _probe(addr: str, timeout: float) -> KafkaTuiError | None:
    """Try a plain TCP connection: None if it connects, else the CannotConnectError it meets."""
    try:
        host, port = parse_host_port(addr)
    except UsageError as exc:
        return exc
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except socket.gaierror as exc:
        return CannotConnectError(f"cannot resolve host name {host} ({addr}): {exc.strerror or exc}")
    except ConnectionRefusedError:
        return CannotConnectError(
            f"cannot connect to {addr}: connection refused (nothing listens there: down, or wrong port?)"
        )
    except TimeoutError:
        return CannotConnectError(
            f"cannot connect to {addr}: connection timed out (host down, or the port is filtered)"
        )
    except OSError as exc:
        return CannotConnectError(f"cannot connect to {addr}: {(exc.strerror or str(exc)).lower()}")


# --------------------------------------------------------------------------- kafka-python errors
def _kp_reason(exc: BaseException, timeout: float) -> str:
    """A short reason for a kafka-python failure (problem lines)."""
    name = type(exc).__name__
    text = one_line(str(exc), 160)
    if name in ("KafkaTimeoutError", "RequestTimedOutError") or isinstance(exc, TimeoutError | cf.TimeoutError):
        return f"no answer within {timeout:.1f}s"
    if name == "ClusterAuthorizationFailedError":
        return "not authorized (CLUSTER_AUTHORIZATION_FAILED; needs DESCRIBE on the CLUSTER resource)"
    if name == "TopicAuthorizationFailedError":
        return "not authorized (TOPIC_AUTHORIZATION_FAILED; needs DESCRIBE on the topics)"
    if name == "UnknownBrokerIdError":
        return "broker not (or no longer) in the cluster metadata"
    if name == "KafkaConnectionError":
        return f"connection failed ({text})" if text else "connection failed"
    return f"{name}: {text}" if text else name


def _kafka_error_reason(err: KafkaError, timeout: float) -> str:
    code = err.code()
    if code in (KafkaError._TIMED_OUT, KafkaError.REQUEST_TIMED_OUT):
        return f"no answer within {timeout:.1f}s"
    if code in _AUTHZ_CODES:
        hint = _AUTHZ_HINTS.get(code)
        return f"not authorized ({_AUTHZ_CODES[code]}{'; needs ' + hint if hint else ''})"
    return f"{err.str()} ({err.name()})"


def _exc_kafka_error(exc: BaseException) -> KafkaError | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0]
    return None
