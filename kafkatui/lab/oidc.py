"""A minimal OpenID-style token issuer on 127.0.0.1 for the lab's OAUTHBEARER listener.

It serves ``GET /jwks`` (the RSA public key, as Kafka's `OAuthBearerValidatorCallbackHandler` fetches
it from ``sasl.oauthbearer.jwks.endpoint.url``) and ``POST /token`` (the OAuth 2 client-credentials
grant librdkafka's ``sasl.oauthbearer.method=oidc`` and kafkatui's kafka-python token provider use):
a client id and secret, by HTTP Basic authentication or in the form, give an RS256 JWT whose ``sub``
is the client id. The key is made and the tokens signed by the openssl command; nothing is logged.
"""

from __future__ import annotations

import base64
import hmac
import json
import subprocess
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kafkatui.lab.errors import StartFailed

TOKEN_SECONDS = 3600
KEY_ID = "kafkatui-lab-1"


def b64url(data: bytes) -> str:
    """Base64url without padding, as JWTs write it."""
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class Issuer:
    """Signs tokens for the lab's clients; `start` serves it on a free port of 127.0.0.1."""

    def __init__(self, home: Path, clients: Mapping[str, str], audience: str) -> None:
        self.key = home / "oidc-issuer.key"
        self.clients = dict(clients)
        self.audience = audience
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.issued: deque[str] = deque(maxlen=1000)  # in memory only: what a secret scan must not find
        proc = subprocess.run(
            ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(self.key)],
            capture_output=True,
            timeout=60,
        )
        if proc.returncode != 0:
            raise StartFailed("openssl could not make the lab's OIDC signing key")
        self.key.chmod(0o600)
        out = subprocess.run(
            ["openssl", "rsa", "-in", str(self.key), "-noout", "-modulus"], capture_output=True, text=True, timeout=60
        ).stdout
        self.modulus = bytes.fromhex(out.strip().split("=", 1)[1])

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def jwks_url(self) -> str:
        return f"{self.issuer}/jwks"

    @property
    def token_url(self) -> str:
        return f"{self.issuer}/token"

    def jwks(self) -> dict[str, Any]:
        return {
            "keys": [
                {"kty": "RSA", "kid": KEY_ID, "use": "sig", "alg": "RS256", "n": b64url(self.modulus), "e": "AQAB"}
            ]
        }

    def token(self, subject: str, now: float | None = None) -> str:
        """An RS256 JWT for `subject`, valid for TOKEN_SECONDS."""
        issued = int(time.time() if now is None else now)
        header = {"alg": "RS256", "typ": "JWT", "kid": KEY_ID}
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": self.audience,
            "iat": issued,
            "nbf": issued,
            "exp": issued + TOKEN_SECONDS,
            "scope": "kafka",
        }
        signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
        signature = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", str(self.key)],
            input=signing_input.encode(),
            capture_output=True,
            timeout=30,
            check=True,
        ).stdout
        token = f"{signing_input}.{b64url(signature)}"
        self.issued.append(token)
        return token

    def authenticate(self, headers: Any, form: Mapping[str, list[str]]) -> str | None:
        """The client id when the request carries that client's secret (Basic auth or form fields)."""
        client: str | None = None
        secret: str | None = None
        auth = headers.get("Authorization", "")
        if auth.lower().startswith("basic "):
            try:
                decoded = base64.b64decode(auth[6:].strip()).decode()
            except (ValueError, UnicodeDecodeError):
                return None
            client, _, secret = decoded.partition(":")
            client, secret = urllib.parse.unquote(client), urllib.parse.unquote(secret)
        else:
            client = (form.get("client_id") or [""])[0] or None
            secret = (form.get("client_secret") or [""])[0] or None
        expected = self.clients.get(client or "")
        if expected is None or secret is None or not hmac.compare_digest(expected.encode(), secret.encode()):
            return None
        return client

    def start(self) -> None:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - nothing is logged
                return

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path.split("?")[0] == "/jwks":
                    self._send(200, issuer.jwks())
                else:
                    self._send(404, {"error": "not_found"})

            def do_POST(self) -> None:  # noqa: N802
                length = min(int(self.headers.get("Content-Length") or 0), 65536)
                form = urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
                if self.path.split("?")[0] != "/token":
                    self._send(404, {"error": "not_found"})
                    return
                if (form.get("grant_type") or [""])[0] != "client_credentials":
                    self._send(400, {"error": "unsupported_grant_type"})
                    return
                client = issuer.authenticate(self.headers, form)
                if client is None:
                    self._send(401, {"error": "invalid_client"})
                    return
                self._send(
                    200,
                    {"access_token": issuer.token(client), "token_type": "Bearer", "expires_in": TOKEN_SECONDS},
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="kafkatui-lab-oidc", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
