"""Which Kafka APIs the simulator answers, and how a request reaches its handler.

The wire format is kafka-python's `kafka.protocol` classes, generated from Kafka's own JSON
message schemas: nothing here encodes a field by hand except the 4/5-byte response header.
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafkatui.sim.cluster import SimCluster
    from kafkatui.sim.state import Broker

API_VERSIONS_KEY = 18


@dataclass(slots=True)
class RequestContext:
    """What a handler knows about the request it serves."""

    cluster: SimCluster
    broker: Broker
    api_key: int
    version: int
    correlation_id: int
    client_id: str | None
    connection: dict[str, Any] = field(default_factory=dict)  # per-connection state (SASL, ...)


Response = Any  # a kafka.protocol response object, pre-encoded body bytes, or None for no response
Handler = Callable[[RequestContext, Any], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class ApiSpec:
    """One API the simulator serves, with the versions it advertises."""

    key: int
    request: Any
    response: Any
    min_version: int
    max_version: int
    handler: Handler


REGISTRY: dict[int, ApiSpec] = {}


def api(request_cls: Any, response_cls: Any, min_version: int | None = None, max_version: int | None = None) -> Callable[[Handler], Handler]:
    """Register an async handler for `request_cls` (versions default to the schema's valid range)."""

    def register(fn: Handler) -> Handler:
        lo, hi = request_cls.valid_versions
        spec = ApiSpec(
            key=request_cls.API_KEY,
            request=request_cls,
            response=response_cls,
            min_version=lo if min_version is None else min_version,
            max_version=hi if max_version is None else max_version,
            handler=fn,
        )
        REGISTRY[spec.key] = spec
        return fn

    return register


def response_header(api_key: int, response_cls: Any, version: int, correlation_id: int) -> bytes:
    """Response header v0 (correlation id) or v1 (plus empty tagged fields).

    ApiVersions answers always use header v0, even in flexible versions (KIP-511).
    """
    if api_key != API_VERSIONS_KEY and response_cls.flexible_version_q(version):
        return struct.pack(">ib", correlation_id, 0)
    return struct.pack(">i", correlation_id)


def frame(header: bytes, body: bytes) -> bytes:
    return struct.pack(">i", len(header) + len(body)) + header + body


def load_handlers() -> None:
    """Import every handler module so that it registers its APIs."""
    from kafkatui.sim.handlers import register_all

    register_all()
