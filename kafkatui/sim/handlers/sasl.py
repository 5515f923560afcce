"""SaslHandshake (v0, v1) and SaslAuthenticate: SASL PLAIN and SCRAM on SASL listeners.

The listener (kafkatui.sim.server) keeps the per-connection state in ``ctx.connection``:
``security`` (the listener's SecurityConfig), ``sasl`` (the exchange under way),
``authenticated`` (the user, once authenticated) and ``close`` (set by a handler to close the
connection after its response, as Kafka does after a failed handshake or authentication).

SaslHandshake v0 is advertised and served, as Kafka does: librdkafka up to at least 2.0.2 (Debian's
kcat) refuses SASL unless the broker's SaslHandshake range includes v0, then sends v1 anyway. After
a v0 handshake the client sends raw SASL tokens, each in a size-prefixed frame without a Kafka
header; ``raw_tokens`` in the connection state tells the listener to read them so.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.sasl import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)

from kafkatui.sim import errors as E
from kafkatui.sim.protocol import RequestContext, api
from kafkatui.sim.security import SaslFailure, SecurityConfig

UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
SASL_AUTHENTICATION_FAILED = 58


def _security(ctx: RequestContext) -> SecurityConfig:
    sec = ctx.connection.get("security")
    return sec if isinstance(sec, SecurityConfig) else SecurityConfig()


@api(SaslHandshakeRequest, SaslHandshakeResponse, min_version=0)
async def handle_sasl_handshake(ctx: RequestContext, req: Any) -> Any:
    sec = _security(ctx)
    conn = ctx.connection
    if not sec.sasl or "sasl" in conn or conn.get("authenticated"):
        conn["close"] = True
        return SaslHandshakeResponse(version=ctx.version, error_code=ILLEGAL_SASL_STATE, mechanisms=[])
    mechanisms = list(sec.mechanisms)
    mechanism = (req.mechanism or "").upper()
    if mechanism not in mechanisms:
        conn["close"] = True
        return SaslHandshakeResponse(version=ctx.version, error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=mechanisms)
    conn["sasl"] = sec.authenticator(mechanism)
    if ctx.version == 0:
        conn["raw_tokens"] = True
    return SaslHandshakeResponse(version=ctx.version, error_code=E.NONE, mechanisms=mechanisms)


@api(SaslAuthenticateRequest, SaslAuthenticateResponse)
async def handle_sasl_authenticate(ctx: RequestContext, req: Any) -> Any:
    conn = ctx.connection
    auth = conn.get("sasl")

    def answer(error_code: int, message: str | None, token: bytes = b"") -> Any:
        return SaslAuthenticateResponse(
            version=ctx.version, error_code=error_code, error_message=message, auth_bytes=token, session_lifetime_ms=0
        )

    if auth is None or conn.get("authenticated"):
        conn["close"] = True
        return answer(ILLEGAL_SASL_STATE, "SaslAuthenticate without a SaslHandshake, or after authentication")
    try:
        token = auth.step(bytes(req.auth_bytes or b""))
    except SaslFailure as exc:
        conn["close"] = True
        return answer(SASL_AUTHENTICATION_FAILED, str(exc))
    if auth.done:
        conn["authenticated"] = auth.user
    return answer(E.NONE, None, token)


def raw_token(conn: dict[str, object], token: bytes) -> bytes | None:
    """One step of a SASL exchange after a v0 handshake: the server's raw token, or None when
    authentication failed (Kafka then closes the connection)."""
    auth = conn.get("sasl")
    if auth is None or conn.get("authenticated"):
        return None
    try:
        answer: bytes = auth.step(token)  # type: ignore[attr-defined]
    except SaslFailure:
        return None
    if auth.done:  # type: ignore[attr-defined]
        conn["authenticated"] = auth.user  # type: ignore[attr-defined]
        conn.pop("raw_tokens", None)
    return answer
