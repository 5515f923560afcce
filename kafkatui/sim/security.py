"""Listener security for the simulated brokers: TLS contexts and the server side of SASL.

SASL mechanisms: PLAIN (RFC 4616) and SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802 / RFC 7677).
Users are configured with plaintext passwords; SCRAM credentials (salt, StoredKey, ServerKey)
are derived from them per mechanism when the config is built, as a broker would store them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import secrets
import ssl
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
SCRAM_ITERATIONS = 4096  # Kafka's minimum for SCRAM credentials
_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}


class SaslFailure(Exception):
    """An authentication exchange that failed: the broker answers SASL_AUTHENTICATION_FAILED and closes."""


@dataclass(frozen=True, slots=True)
class ScramCredential:
    """What a broker stores for one SCRAM user and mechanism (never the password)."""

    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes

    @classmethod
    def derive(cls, password: str, hash_name: str, iterations: int = SCRAM_ITERATIONS) -> ScramCredential:
        salt = secrets.token_bytes(16)
        salted = hashlib.pbkdf2_hmac(hash_name, password.encode(), salt, iterations)
        client_key = hmac.digest(salted, b"Client Key", hash_name)
        return cls(
            salt=salt,
            iterations=iterations,
            stored_key=hashlib.new(hash_name, client_key).digest(),
            server_key=hmac.digest(salted, b"Server Key", hash_name),
        )


@dataclass(frozen=True)
class SecurityConfig:
    """The security of every broker listener of a simulated cluster.

    `protocol`: PLAINTEXT (default), SSL, SASL_PLAINTEXT or SASL_SSL. SASL protocols need
    `users` (name -> password) and enable `mechanisms` (default: all of PLAIN, SCRAM-SHA-256,
    SCRAM-SHA-512). SSL protocols need `certfile` and `keyfile` (PEM); `require_client_cert`
    (mTLS) needs `cafile`, the CA that signs client certificates.
    """

    protocol: str = "PLAINTEXT"
    users: Mapping[str, str] = field(default_factory=dict)
    mechanisms: Sequence[str] = MECHANISMS
    certfile: str | None = None
    keyfile: str | None = None
    cafile: str | None = None
    require_client_cert: bool = False
    scram: Mapping[tuple[str, str], ScramCredential] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        protocol = self.protocol.upper()
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown security protocol {self.protocol!r} (use one of {', '.join(PROTOCOLS)})")
        object.__setattr__(self, "protocol", protocol)
        mechanisms = tuple(m.upper() for m in self.mechanisms)
        unknown = [m for m in mechanisms if m not in MECHANISMS]
        if unknown:
            raise ValueError(f"unsupported SASL mechanism(s) {', '.join(unknown)} (use {', '.join(MECHANISMS)})")
        object.__setattr__(self, "mechanisms", mechanisms)
        object.__setattr__(self, "users", dict(self.users))
        if self.sasl and not (self.users and mechanisms):
            raise ValueError(f"{protocol} needs at least one user and one mechanism")
        if self.tls and not (self.certfile and self.keyfile):
            raise ValueError(f"{protocol} needs certfile and keyfile")
        if self.require_client_cert and not (self.tls and self.cafile):
            raise ValueError("require_client_cert needs a TLS protocol and cafile")
        scram = {
            (mech, user): ScramCredential.derive(password, _HASHES[mech])
            for mech in mechanisms
            if mech in _HASHES
            for user, password in self.users.items()
        }
        object.__setattr__(self, "scram", scram)

    @classmethod
    def of(cls, value: SecurityConfig | Mapping[str, Any] | None) -> SecurityConfig:
        """A config from a mapping of this class's fields (None: PLAINTEXT)."""
        if value is None:
            return cls()
        if isinstance(value, SecurityConfig):
            return value
        return cls(**value)

    @property
    def tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    def ssl_context(self) -> ssl.SSLContext | None:
        """The server-side TLS context, or None for a plaintext listener."""
        if not self.tls:
            return None
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        assert self.certfile is not None
        ctx.load_cert_chain(self.certfile, self.keyfile)
        if self.cafile:
            ctx.load_verify_locations(self.cafile)
        ctx.verify_mode = ssl.CERT_REQUIRED if self.require_client_cert else ssl.CERT_NONE
        return ctx

    def authenticator(self, mechanism: str) -> Authenticator:
        """A fresh server-side exchange for an enabled `mechanism`."""
        if mechanism == "PLAIN":
            return PlainAuthenticator(self)
        return ScramAuthenticator(self, mechanism)


class Authenticator(ABC):
    """One connection's server side of a SASL exchange."""

    mechanism: str
    user: str | None = None
    done: bool = False

    @abstractmethod
    def step(self, token: bytes) -> bytes:
        """Consume a client token and return the server's answer; raise SaslFailure when refused."""

    def failed(self) -> SaslFailure:
        return SaslFailure(
            "Authentication failed during authentication due to invalid credentials with SASL mechanism "
            f"{self.mechanism}"
        )


class PlainAuthenticator(Authenticator):
    """PLAIN: ``authzid NUL user NUL password`` in one token."""

    def __init__(self, config: SecurityConfig) -> None:
        self.config = config
        self.mechanism = "PLAIN"

    def step(self, token: bytes) -> bytes:
        parts = token.split(b"\0")
        if len(parts) != 3:
            raise SaslFailure("Invalid SASL/PLAIN response: expected 3 tokens")
        authzid, user, password = (p.decode("utf-8", "replace") for p in parts)
        expected = self.config.users.get(user)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslFailure("Authentication failed: Invalid username or password")
        if authzid and authzid != user:
            raise SaslFailure(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        self.user, self.done = user, True
        return b""


def _attrs(message: bytes) -> dict[str, str]:
    """A SCRAM message's ``k=v`` attributes (values may contain '=')."""
    out: dict[str, str] = {}
    for part in message.decode("utf-8").split(","):
        if len(part) >= 2 and part[1] == "=":
            out.setdefault(part[0], part[2:])
    return out


def _saslname(name: str) -> str:
    return name.replace("=2C", ",").replace("=3D", "=")


class ScramAuthenticator(Authenticator):
    """SCRAM-SHA-256/512: client-first, server-first, client-final, server-final."""

    def __init__(self, config: SecurityConfig, mechanism: str) -> None:
        self.config = config
        self.mechanism = mechanism
        self.hash_name = _HASHES[mechanism]
        self._client_first_bare = ""
        self._server_first = ""
        self._nonce = ""
        self._client_nonce = ""
        self._credential: ScramCredential | None = None

    def step(self, token: bytes) -> bytes:
        try:
            if not self._server_first:
                return self._first(token)
            return self._final(token)
        except (UnicodeDecodeError, ValueError, KeyError):
            raise SaslFailure(f"Invalid {self.mechanism} message from the client") from None

    def _first(self, token: bytes) -> bytes:
        text = token.decode("utf-8")
        gs2, _, rest = text.partition(",")
        if gs2 not in ("n", "y"):
            raise SaslFailure(f"{self.mechanism}: channel binding is not supported")
        _, _, bare = rest.partition(",")  # drop the authzid field
        attrs = _attrs(bare.encode())
        user = _saslname(attrs["n"])
        client_nonce = attrs["r"]
        credential = self.config.scram.get((self.mechanism, user))
        if credential is None:
            raise self.failed()
        self.user, self._credential = user, credential
        self._client_first_bare = bare
        self._client_nonce = client_nonce
        self._nonce = client_nonce + base64.b64encode(secrets.token_bytes(18)).decode()
        salt = base64.b64encode(credential.salt).decode()
        self._server_first = f"r={self._nonce},s={salt},i={credential.iterations}"
        return self._server_first.encode()

    def _final(self, token: bytes) -> bytes:
        if self.done or self._credential is None:
            raise SaslFailure(f"{self.mechanism}: unexpected message after the exchange")
        text = token.decode("utf-8")
        without_proof, sep, proof_b64 = text.rpartition(",p=")
        if not sep:
            raise SaslFailure(f"{self.mechanism}: client-final message without a proof")
        attrs = _attrs(without_proof.encode())
        # librdkafka before 2.6.1 (Debian's kcat: 2.0.2) sends the client nonce twice (librdkafka#4895);
        # Kafka 3.8.1+ accepts a final nonce that ends with the server's one, so this does for that form
        if attrs.get("r") not in (self._nonce, self._client_nonce + self._nonce):
            raise SaslFailure(f"{self.mechanism}: invalid nonce in the client-final message")
        auth_message = f"{self._client_first_bare},{self._server_first},{without_proof}".encode()
        cred = self._credential
        signature = hmac.digest(cred.stored_key, auth_message, self.hash_name)
        proof = base64.b64decode(proof_b64, validate=True)
        if len(proof) != len(signature):
            raise self.failed()
        client_key = bytes(a ^ b for a, b in zip(proof, signature, strict=True))
        if not hmac.compare_digest(hashlib.new(self.hash_name, client_key).digest(), cred.stored_key):
            raise self.failed()
        self.done = True
        server_signature = hmac.digest(cred.server_key, auth_message, self.hash_name)
        return b"v=" + base64.b64encode(server_signature)


UNEXPECTED_MESSAGE_ALERT = bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0A])
"""A TLS 1.2 record: fatal alert, unexpected_message."""


class TlsStream:
    """Server-side TLS over an accepted plain connection, with `ssl.SSLObject` and memory BIOs.

    asyncio's own TLS transport drops the alert OpenSSL writes when a handshake fails; a Kafka
    broker sends it (a plaintext client then reads the alert's bytes as a huge response size,
    and a client whose certificate is refused learns why). This stream sends it, then fails.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, context: ssl.SSLContext) -> None:
        self._reader = reader
        self._writer = writer
        self._in = ssl.MemoryBIO()
        self._out = ssl.MemoryBIO()
        self._obj = context.wrap_bio(self._in, self._out, server_side=True)
        self._buf = bytearray()

    def _flush(self) -> None:
        data = self._out.read()
        if data:
            self._writer.write(data)

    async def _fill(self) -> None:
        await self._writer.drain()
        data = await self._reader.read(65536)
        if not data:
            raise asyncio.IncompleteReadError(bytes(self._buf), None)
        self._in.write(data)

    async def handshake(self) -> None:
        """Complete the TLS handshake; raises ssl.SSLError (after sending the alert) when it fails."""
        while True:
            try:
                self._obj.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._flush()
                await self._fill()
            except ssl.SSLError:
                if not self._out.pending:
                    # OpenSSL writes no alert for bytes that are not TLS at all; Java's TLS
                    # engine (so Kafka) answers them with a fatal alert: send one too
                    self._out.write(UNEXPECTED_MESSAGE_ALERT)
                self._flush()
                with contextlib.suppress(ConnectionError):
                    await self._writer.drain()
                raise
        self._flush()
        await self._writer.drain()

    async def readexactly(self, n: int) -> bytes:
        while len(self._buf) < n:
            try:
                chunk = self._obj.read(max(65536, n - len(self._buf)))
            except ssl.SSLWantReadError:
                self._flush()
                await self._fill()
                continue
            except ssl.SSLZeroReturnError:
                chunk = b""
            if not chunk:  # close_notify from the client
                raise asyncio.IncompleteReadError(bytes(self._buf), n)
            self._buf += chunk
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def write(self, data: bytes) -> None:
        self._obj.write(data)
        self._flush()

    async def drain(self) -> None:
        await self._writer.drain()

    def peercert(self) -> dict[str, Any] | None:
        return self._obj.getpeercert()
