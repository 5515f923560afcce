"""OAUTHBEARER tokens for kafka-python, from the same librdkafka settings confluent-kafka gets.

librdkafka fetches its own tokens (``sasl.oauthbearer.method=oidc``: the client-credentials grant at
``sasl.oauthbearer.token.endpoint.url``) or makes an unsecured one
(``enable.sasl.oauthbearer.unsecure.jwt=true`` with ``sasl.oauthbearer.config=principal=NAME``).
kafka-python does neither: it needs a ``sasl_oauth_token_provider`` object. `token_provider` builds
one that does what librdkafka does with the same settings, so log dirs, ELR, reassignments and the
keyed topic configs (read through kafka-python) reach an OAUTHBEARER cluster too.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

REFRESH_MARGIN = 0.8  # a token is fetched again after 80% of its lifetime, as librdkafka does


class TokenError(Exception):
    """The token endpoint refused or could not be reached; str() is one line without the secret."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _config_pairs(text: str) -> dict[str, str]:
    """librdkafka's ``sasl.oauthbearer.config`` / ``.extensions``: ``k=v`` pairs separated by spaces or commas."""
    out: dict[str, str] = {}
    for word in text.replace(",", " ").split():
        key, _, value = word.partition("=")
        if key:
            out[key] = value
    return out


class _Provider(ABC):
    """The token cache both providers share: one token until REFRESH_MARGIN of its lifetime has passed."""

    def __init__(self, extensions: Mapping[str, str]) -> None:
        self._extensions = dict(extensions)
        self._lock = threading.Lock()
        self._token: str | None = None
        self._refresh_at = 0.0

    def token(self) -> str:
        with self._lock:
            if self._token is None or time.monotonic() >= self._refresh_at:
                token, lifetime = self._fetch()
                self._token, self._refresh_at = token, time.monotonic() + REFRESH_MARGIN * lifetime
            return self._token

    def extensions(self) -> dict[str, str]:
        return dict(self._extensions)

    @abstractmethod
    def _fetch(self) -> tuple[str, float]:
        """A new token and its lifetime in seconds."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(***)"


class OidcTokenProvider(_Provider):
    """The OAuth 2 client-credentials grant, as librdkafka's ``sasl.oauthbearer.method=oidc`` sends it."""

    def __init__(
        self,
        url: str,
        client_id: str,
        client_secret: str,
        scope: str | None,
        extensions: Mapping[str, str],
        timeout: float,
    ) -> None:
        super().__init__(extensions)
        self._url, self._client_id, self._secret = url, client_id, client_secret
        self._scope, self._timeout = scope, timeout

    def _fetch(self) -> tuple[str, float]:
        form = {"grant_type": "client_credentials"}
        if self._scope:
            form["scope"] = self._scope
        basic = base64.b64encode(
            f"{urllib.parse.quote(self._client_id)}:{urllib.parse.quote(self._secret)}".encode()
        ).decode()
        request = urllib.request.Request(
            self._url,
            data=urllib.parse.urlencode(form).encode(),
            headers={
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310 - the user's URL
                body = json.loads(response.read(1 << 20))
        except urllib.error.HTTPError as exc:
            raise TokenError(f"the token endpoint {self._url} answered HTTP {exc.code}") from None
        except (OSError, ValueError) as exc:
            raise TokenError(f"no token from {self._url}: {getattr(exc, 'reason', exc)}") from None
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise TokenError(f"the token endpoint {self._url} sent no access_token")
        lifetime = body.get("expires_in")
        return token, float(lifetime) if isinstance(lifetime, int | float) and lifetime > 0 else 300.0


class UnsecuredTokenProvider(_Provider):
    """An unsigned JWT (``alg: none``), as librdkafka's ``enable.sasl.oauthbearer.unsecure.jwt`` makes it."""

    def __init__(self, config: str, extensions: Mapping[str, str]) -> None:
        super().__init__(extensions)
        pairs = _config_pairs(config)
        self._principal = pairs.get("principal", "")
        self._claim = pairs.get("principalClaimName", "sub")
        self._lifetime = float(pairs.get("lifeSeconds", "3600") or 3600)
        self._scope = pairs.get("scope")

    def _fetch(self) -> tuple[str, float]:
        now = int(time.time())
        claims: dict[str, Any] = {self._claim: self._principal, "iat": now, "exp": now + int(self._lifetime)}
        if self._scope:
            claims["scope"] = self._scope.split(",")
        header = _b64url(json.dumps({"alg": "none"}).encode())
        return f"{header}.{_b64url(json.dumps(claims).encode())}.", self._lifetime


def token_provider(conf: Mapping[str, str], timeout: float) -> Any:
    """A kafka-python ``AbstractTokenProvider`` for these librdkafka settings (OAUTHBEARER)."""
    from kafka.net.sasl.oauth import AbstractTokenProvider

    extensions = _config_pairs(conf.get("sasl.oauthbearer.extensions", ""))
    provider: _Provider
    if conf.get("sasl.oauthbearer.method", "default").strip().lower() == "oidc":
        provider = OidcTokenProvider(
            conf["sasl.oauthbearer.token.endpoint.url"],
            conf.get("sasl.oauthbearer.client.id", ""),
            conf.get("sasl.oauthbearer.client.secret", ""),
            conf.get("sasl.oauthbearer.scope"),
            extensions,
            timeout,
        )
    else:
        provider = UnsecuredTokenProvider(conf.get("sasl.oauthbearer.config", ""), extensions)

    class Provider(AbstractTokenProvider):
        def token(self) -> str:
            return provider.token()

        def extensions(self) -> dict[str, str]:
            return provider.extensions()

        def __repr__(self) -> str:
            return repr(provider)

    return Provider()
