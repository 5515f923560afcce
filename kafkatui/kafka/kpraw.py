"""Requests sent on kafka-python's connections whose answers are kept as raw bytes, and optionally whose
bodies are written by kafkatui: for the answers too big for kafka-python's decoders to be cheap.

kafka-python's decoder builds a container per entry (a Metadata answer: one per partition, seconds at
100,000 partitions; a DescribeLogDirs answer: one per replica), and its encoder is slow for requests naming
thousands of partitions. Here its IO thread only frames the answer, and the thread waiting for it reads the
bytes (`kafkatui.kafka.metadata_wire`, `kafkatui.kafka.logdirs_wire`). Works on every listener kafka-python
connects to (SSL, SASL): the connection, its version choice and the header are kafka-python's own.
"""

from __future__ import annotations

import concurrent.futures as cf
import io
import struct
from collections.abc import Callable
from typing import Any


class _RawAnswer:
    """Stands in for kafka-python's response class of one version: the header parsed as kafka-python
    does, the body returned as (version, bytes)."""

    def __init__(self, real: Any, version: int) -> None:
        self.version = version
        self._real = real

    def parse_header(self, data: io.BytesIO) -> Any:
        return self._real.parse_header(data)

    def decode(self, data: io.BytesIO) -> tuple[int, bytes]:
        return self.version, data.read()


class _Header:
    """kafka-python's request header, answering `get_response_class` with `_RawAnswer`."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def get_response_class(self) -> _RawAnswer:
        return _RawAnswer(self._inner.get_response_class(), int(self._inner.request_api_version))


class RawRequest:
    """A kafka-python request answered as (version, body bytes). `body`, given the version kafka-python
    chose, writes the request's body instead of kafka-python's encoder. A wrapper, not a subclass:
    kafka-python builds its message classes from schema files named after the class."""

    __slots__ = ("_inner", "_body")

    def __init__(self, inner: Any, body: Callable[[int], bytes] | None = None) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_body", body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)

    def __repr__(self) -> str:
        return f"RawRequest({type(self._inner).__name__} v{self._inner.API_VERSION})"

    @property
    def header(self) -> _Header:
        return _Header(self._inner.header)

    def encode(self, version: int | None = None, header: bool = False, framed: bool = False) -> bytes:
        inner = self._inner
        if self._body is None:
            return bytes(inner.encode(version=version, header=header, framed=framed))
        if version is not None:
            inner.API_VERSION = version
        v = int(inner.API_VERSION)
        data = (bytes(inner.encode_header(flexible=inner.flexible_version_q(v))) if header else b"") + self._body(v)
        return struct.pack(">i", len(data)) + data if framed else data


def send(kadmin: Any, request: RawRequest, node: int | None, timeout: float) -> cf.Future[tuple[int, bytes]]:
    """Send `request` to broker `node` (None: kafka-python's least loaded) on kafka-python's IO thread; a
    future of (version, body), failing with what kafka-python raises (not connected, timed out)."""
    manager = kadmin._manager
    timeout_ms = max(1, int(timeout * 1000))
    out: cf.Future[tuple[int, bytes]] = cf.Future()

    async def send_one() -> None:  # kafka-python's connections are used from its IO thread
        try:
            sent = manager.send(request, node_id=node, request_timeout_ms=timeout_ms)
        except Exception as exc:
            settle(out, None, exc)
            return
        sent.add_callback(lambda answer: settle(out, answer, None))
        sent.add_errback(lambda exc: settle(out, None, exc))

    try:
        manager.run(send_one)
    except Exception as exc:
        settle(out, None, exc)
    return out


def settle(fut: cf.Future[Any], result: Any, exc: BaseException | None) -> None:
    """Complete `fut` once, from kafka-python's callbacks (a late callback after a failure is ignored)."""
    try:
        if exc is None:
            fut.set_result(result)
        else:
            fut.set_exception(exc)
    except cf.InvalidStateError:
        pass


def metadata_request() -> RawRequest:
    """Metadata of every topic (kafka-python picks the version; `metadata_wire.decode` reads 1-13)."""
    from kafka.protocol.metadata import MetadataRequest

    return RawRequest(MetadataRequest(topics=None, allow_auto_topic_creation=False))


__all__ = ["RawRequest", "metadata_request", "send", "settle"]
