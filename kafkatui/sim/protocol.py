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
REQUEST_HEADER_BYTES = 8
"""api key (int16), api version (int16), correlation id (int32): the fixed start of every request."""

SASL_API_KEYS = frozenset({17, 18, 36})
"""What a SASL listener serves before authentication: SaslHandshake, ApiVersions, SaslAuthenticate."""


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


def api(
    request_cls: Any, response_cls: Any, min_version: int | None = None, max_version: int | None = None
) -> Callable[[Handler], Handler]:
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


class RequestRejected(Exception):
    """A request frame the broker will not serve: the connection is closed, with this reason logged."""


@dataclass(frozen=True, slots=True)
class DecodedRequest:
    """One request frame, decoded. `request` is None for an ApiVersions version the broker does not
    speak: it is answered with UNSUPPORTED_VERSION (v0) so the client can retry lower (KIP-511)."""

    spec: ApiSpec
    version: int
    correlation_id: int
    request: Any


def decode_request(payload: bytes, authenticated: bool = True) -> DecodedRequest:
    """Decode the payload of one request frame (after the size prefix); raises `RequestRejected`.

    Rejected: shorter than a request header, an unknown API key or version, a non-SASL request
    before SASL authentication (`authenticated` False; Kafka would read it as a GSSAPI token), or
    bytes that do not decode. Decoding allocates in proportion to the bytes received, never to an
    array count the frame claims: kafka-python's decoders read element by element and stop at the
    end of the buffer.
    """
    if len(payload) < REQUEST_HEADER_BYTES:
        raise RequestRejected(f"frame of {len(payload)} bytes is shorter than a request header")
    api_key, version, correlation_id = struct.unpack_from(">hhi", payload, 0)
    spec = REGISTRY.get(api_key)
    if spec is None:
        raise RequestRejected(f"unknown api key {api_key}")
    if not authenticated and api_key not in SASL_API_KEYS:
        raise RequestRejected(f"api key {api_key} before SASL authentication")
    if not spec.min_version <= version <= spec.max_version:
        if api_key == API_VERSIONS_KEY:
            return DecodedRequest(spec, version, correlation_id, None)
        raise RequestRejected(f"{spec.request.name} v{version} not supported")
    try:
        request = spec.request.decode(payload, version=version, header=True)
    except Exception as exc:  # any malformed input: struct.error, ValueError, UnicodeDecodeError, ...
        raise RequestRejected(f"undecodable {spec.request.name} v{version}: {type(exc).__name__}: {exc}") from None
    null = _null_field(spec.request._struct, request, version)
    if null is not None:
        # as Kafka's own parser: "non-nullable field topics was serialized as null"
        raise RequestRejected(
            f"undecodable {spec.request.name} v{version}: non-nullable field {null} was serialized as null"
        )
    return DecodedRequest(spec, version, correlation_id, request)


_NULLABLE_KINDS = ("string", "bytes", "records")


def _null_field(struct: Any, obj: Any, version: int, path: str = "") -> str | None:
    """The dotted name of the first field of `obj` that is null where the schema does not allow it.

    kafka-python decodes a null (length -1) array, string or struct whatever the schema says;
    Kafka refuses such a request, and handlers can count on the schema, so this refuses it too.
    """
    for f in struct.untagged_fields(version):
        value = getattr(obj, f.name, None)
        name = f"{path}{f.name}"
        if value is None:
            nullable_kind = f.is_array() or f.is_struct() or f.type_str in _NULLABLE_KINDS
            if nullable_kind and not f.nullable_for_version_q(version):
                return name
            continue
        if f.is_struct_array():
            for item in value:
                found = _null_field(f.array_of, item, version, name + "[].")
                if found is not None:
                    return found
        elif f.is_array() and f.array_of.type_str in _NULLABLE_KINDS and any(v is None for v in value):
            return name + "[]"
        elif f.is_struct():
            found = _null_field(f, value, version, name + ".")
            if found is not None:
                return found
    return None


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
