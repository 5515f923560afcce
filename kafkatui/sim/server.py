"""Kafka wire-protocol listeners for the simulated brokers (asyncio, loopback only)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import struct
import time
from collections.abc import Mapping
from typing import Any, Protocol

from kafkatui.sim import errors as E
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.protocol import (
    REQUEST_HEADER_BYTES,
    RequestContext,
    RequestRejected,
    decode_request,
    frame,
    load_handlers,
    response_header,
)
from kafkatui.sim.security import SecurityConfig, TlsStream
from kafkatui.sim.state import Broker, BrokerState

log = logging.getLogger("kafkatui.sim.server")

MAX_FRAME = 100 * 1024 * 1024
"""socket.request.max.bytes: Kafka's default limit on one request."""

IDLE_SECONDS = 600.0
"""connections.max.idle.ms: Kafka closes a connection that sent nothing for this long (also one stalled
mid-request, which would otherwise hold its socket for ever)."""

TICK_SECONDS = 0.02
TLS_HANDSHAKE_SECONDS = 10.0
FAILED_AUTHENTICATION_DELAY = 0.1
"""connections.failed.authentication.delay.ms: Kafka closes a failed SASL connection after it."""
RESOURCE_LOG_SECONDS = 10.0
"""Out of file descriptors, asyncio logs a traceback per accept attempt (~7 MB/s): one line per this."""
_ACCEPT_EXHAUSTED = "socket.accept() out of system resource"


class _Reader(Protocol):
    async def readexactly(self, n: int) -> bytes: ...


class _Writer(Protocol):
    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


class BrokerListener:
    """The TCP listener and open connections of one simulated broker."""

    def __init__(self, sim: SimServer, broker: Broker, port: int) -> None:
        self.sim = sim
        self.broker = broker
        self.port = port
        self._server: asyncio.base_events.Server | None = None
        self._conns: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def listening(self) -> bool:
        return self._server is not None

    async def open(self) -> None:
        if self._server is not None:
            return
        self._server = await asyncio.start_server(
            self._on_connect, host=self.sim.cluster.host, port=self.port, reuse_address=True
        )
        sock = self._server.sockets[0]
        self.port = sock.getsockname()[1]
        self.broker.port = self.port

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for w in list(self._conns):
            w.close()
        for t in list(self._tasks):
            t.cancel()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._conns.add(writer)
        peer = writer.get_extra_info("peername")
        try:
            conn: dict[str, object] = {"peer": peer, "security": self.sim.security}
            if self.sim.ssl_context is None:
                await self._serve(reader, writer, conn)
            else:
                tls = TlsStream(reader, writer, self.sim.ssl_context)
                await asyncio.wait_for(tls.handshake(), TLS_HANDSHAKE_SECONDS)
                conn["peercert"] = tls.peercert()
                await self._serve(tls, tls, conn)
        except ssl.SSLError as exc:
            log.info("broker %d: TLS handshake with %s failed: %s", self.broker.id, peer, exc)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError, TimeoutError):
            pass
        except Exception:  # a bug in a handler must not take the broker down
            log.exception("broker %d: connection %s failed", self.broker.id, peer)
        finally:
            self._conns.discard(writer)
            self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: _Reader, writer: _Writer, conn: dict[str, object]) -> None:
        cluster = self.sim.cluster
        while True:
            try:
                async with asyncio.timeout(self.sim.idle_seconds):
                    size_bytes = await reader.readexactly(4)
                    (size,) = struct.unpack(">i", size_bytes)
                    smallest = 0 if conn.get("raw_tokens") else REQUEST_HEADER_BYTES
                    if size < smallest or size > MAX_FRAME:
                        log.warning("broker %d: closing %s: bad frame size %d", self.broker.id, conn["peer"], size)
                        return
                    payload = await reader.readexactly(size)
                    received = time.monotonic()
            except TimeoutError:
                log.info("broker %d: closing %s: idle for %.0f s", self.broker.id, conn["peer"], self.sim.idle_seconds)
                return
            authenticated = not self.sim.security.sasl or bool(conn.get("authenticated"))
            if not authenticated and conn.get("raw_tokens"):  # after SaslHandshake v0: bare SASL tokens
                from kafkatui.sim.handlers.sasl import raw_token

                token = raw_token(conn, payload)
                if token is None:
                    log.info("broker %d: SASL authentication of %s failed", self.broker.id, conn["peer"])
                    await asyncio.sleep(FAILED_AUTHENTICATION_DELAY)
                    return
                writer.write(struct.pack(">i", len(token)) + token)
                await writer.drain()
                continue
            try:
                decoded = decode_request(payload, authenticated)
            except RequestRejected as exc:
                log.warning("broker %d: closing %s: %s", self.broker.id, conn["peer"], exc)
                return
            spec, version, correlation_id, request = (
                decoded.spec,
                decoded.version,
                decoded.correlation_id,
                decoded.request,
            )
            api_key = spec.key
            if request is None:  # ApiVersions in a version we do not speak: answer v0 so the client can retry lower
                await self._wait_serving()
                body = self.sim.unsupported_api_versions()
                writer.write(frame(struct.pack(">i", correlation_id), body))
                await writer.drain()
                continue
            await self._wait_serving()
            if self.broker.state == BrokerState.DOWN:
                return
            header = request.header
            ctx = RequestContext(
                cluster=cluster,
                broker=self.broker,
                api_key=api_key,
                version=version,
                correlation_id=correlation_id,
                client_id=getattr(header, "client_id", None),
                connection=conn,
            )
            response = await spec.handler(ctx, request)
            if response is None:
                continue
            encoded: bytes | bytearray = (
                response if isinstance(response, bytes | bytearray) else response.encode(version=version)
            )
            writer.write(frame(response_header(api_key, spec.response, version, correlation_id), bytes(encoded)))
            await writer.drain()
            if self.sim.request_log is not None:
                self.sim.request_log.append((received, time.monotonic(), self.broker.id, api_key, ctx.client_id or ""))
            if conn.get("close"):  # a failed SASL handshake or authentication
                await asyncio.sleep(FAILED_AUTHENTICATION_DELAY)
                return

    async def _wait_serving(self) -> None:
        """Hold a request while the broker is hung or paused (clients see a timeout), then its response delay."""
        while True:
            b = self.broker
            if b.state != BrokerState.HUNG and not b.paused(self.sim.cluster.now_ms):
                break
            await asyncio.sleep(TICK_SECONDS)
        if self.broker.response_delay_s > 0:
            await asyncio.sleep(self.broker.response_delay_s)


class SimServer:
    """Runs a SimCluster: one listener per broker plus the replication clock."""

    def __init__(
        self, cluster: SimCluster, base_port: int = 0, security: SecurityConfig | Mapping[str, Any] | None = None
    ) -> None:
        """`security`: every listener's protocol, SASL users and TLS files (default PLAINTEXT)."""
        load_handlers()
        self.cluster = cluster
        self.base_port = base_port
        self.security = SecurityConfig.of(security)
        self.ssl_context = self.security.ssl_context()
        self.listeners: dict[int, BrokerListener] = {}
        self._tick_task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self.tick_hooks: list[object] = []
        self.request_log: list[tuple[float, float, int, int, str]] | None = None
        """When a list: (received, answered, broker id, API key, client id) of every answered request, monotonic
        seconds (benches count the requests a client sends in sequence: `requests_in_sequence`)."""
        self.idle_seconds = IDLE_SECONDS
        self._exhausted_logged_at: float | None = None
        self._exhausted_since_log = 0

    @property
    def bootstrap(self) -> str:
        return ",".join(f"{self.cluster.host}:{listener.port}" for listener in self.listeners.values())

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        loop.set_exception_handler(lambda lp, context: self._on_loop_error(lp, context, previous))
        for i, broker in enumerate(sorted(self.cluster.brokers.values(), key=lambda b: b.id)):
            port = self.base_port + i if self.base_port else 0
            listener = BrokerListener(self, broker, port)
            self.listeners[broker.id] = listener
            await listener.open()  # reserve its port even when it starts down, so it can come back there
            if broker.state == BrokerState.DOWN:
                await listener.close()
        self.cluster.on_broker_change(self._on_broker_change)
        self._tick_task = asyncio.create_task(self._tick_loop())

    async def stop(self) -> None:
        if self._tick_task is not None:
            self._tick_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._tick_task
        for listener in self.listeners.values():
            await listener.close()

    async def _tick_loop(self) -> None:
        while True:
            try:
                self.cluster.tick()
                for hook in list(self.tick_hooks):
                    hook()  # type: ignore[operator]
            except Exception:
                log.exception("simulation step failed")
            await asyncio.sleep(TICK_SECONDS)

    def _on_broker_change(self, broker: Broker) -> None:
        listener = self.listeners.get(broker.id)
        if listener is None:
            return
        if broker.state == BrokerState.DOWN:
            task = asyncio.ensure_future(listener.close())
        elif not listener.listening:
            task = asyncio.ensure_future(listener.open())
        else:
            return
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _on_loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any], previous: Any) -> None:
        """asyncio's errors, but out of file descriptors (EMFILE, ENFILE, ENOBUFS) as one line every
        RESOURCE_LOG_SECONDS: asyncio pauses accepting for a second and retries; open connections are
        served all along."""
        if context.get("message") == _ACCEPT_EXHAUSTED:
            now = loop.time()
            self._exhausted_since_log += 1
            if self._exhausted_logged_at is None or now - self._exhausted_logged_at >= RESOURCE_LOG_SECONDS:
                exc = context.get("exception")
                why = getattr(exc, "strerror", None) or str(exc)
                log.error(
                    "cannot accept new connections: %s (%d refused accept(s) since the last message; "
                    "open connections are still served; raise the limit with ulimit -n)",
                    why,
                    self._exhausted_since_log,
                )
                self._exhausted_logged_at = now
                self._exhausted_since_log = 0
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    def unsupported_api_versions(self) -> bytes:
        """ApiVersions v0 body with UNSUPPORTED_VERSION and our ranges (KIP-511 fallback)."""
        from kafkatui.sim.handlers.versions import api_versions_body

        return api_versions_body(E.UNSUPPORTED_VERSION, 0, self.cluster.kafka_line)


def requests_in_sequence(log: list[tuple[float, float, int, int, str]]) -> int:
    """The most requests of `log` that ran one after another (each received after the one before was
    answered): the round trips a client waited for in sequence. A connection serves one request at a time,
    so two requests pipelined on one connection count as two."""
    count, free_at = 0, float("-inf")
    for received, answered, *_ in sorted(log, key=lambda r: r[1]):
        if received >= free_at:
            count += 1
            free_at = answered
    return count
