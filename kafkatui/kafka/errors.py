"""Errors a user meets when connecting to a cluster: one line each, with a distinct exit code.

Exit codes of every kafkatui command:

====  ==========================  =====================================================================
code  class                       meaning
====  ==========================  =====================================================================
0     -                           success (``check``: healthy)
1     -                           ``check``: warnings
2     -                           ``check``: critical (a partition offline or under min ISR)
3     UsageError                  bad input: malformed ``--bootstrap``, ``-X``, ``--timeout``, settings
4     ProfileError                profiles file problem: missing, YAML error, unknown key or profile,
                                  password env var or file missing
5     CannotConnectError          no TCP connection: unreachable host, DNS failure, connection refused,
                                  wrong port, connect timeout
6     NotKafkaError               TCP connects but the Kafka handshake fails (an HTTP server, a TLS or
                                  SASL listener spoken to in plaintext, ...)
7     AuthenticationError         TLS handshake or SASL authentication failed
8     MetadataTimeoutError        connected, but the cluster metadata did not arrive within the timeout
9     AuthorizationDeniedError    the cluster refused a request for lack of ACLs
10    KafkaTuiError               any other Kafka client error
====  ==========================  =====================================================================

Messages never contain a password: callers pass secrets through `scrub` when a message quotes
text from a client library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

EXIT_HEALTHY = 0
EXIT_WARNINGS = 1
EXIT_CRITICAL = 2

_SPACES = re.compile(r"\s+")
MAX_MESSAGE = 400


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """Collapse whitespace (newlines included) and cap the length."""
    flat = _SPACES.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


SHORT_SECRET = 6  # shorter secrets are replaced as whole tokens only, or "p" would mangle every word


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Replace each secret in `text` with ``***``, the longest first.

    A secret of `SHORT_SECRET` characters or more is replaced wherever it occurs. A shorter one is
    replaced where it stands as a token (not inside a longer run of letters and digits): a password
    "p" leaves "supported" alone but still hides "password=p" and "ops:p".
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        if len(secret) >= SHORT_SECRET:
            text = text.replace(secret, "***")
        else:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", "***", text)
    return text


class KafkaTuiError(Exception):
    """A failure to show the user as one line, ending the command with `exit_code`."""

    exit_code: ClassVar[int] = 10
    kind: ClassVar[str] = "Kafka client error"

    def __init__(self, message: str) -> None:
        self.message = one_line(message)
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class UsageError(KafkaTuiError):
    """Bad command-line input or connection settings (exit 3)."""

    exit_code: ClassVar[int] = 3
    kind: ClassVar[str] = "bad input"


class ProfileError(KafkaTuiError):
    """The profiles file or a profile in it is unusable (exit 4)."""

    exit_code: ClassVar[int] = 4
    kind: ClassVar[str] = "profile error"


class CannotConnectError(KafkaTuiError):
    """No TCP connection to any bootstrap server (exit 5)."""

    exit_code: ClassVar[int] = 5
    kind: ClassVar[str] = "cannot connect"


class NotKafkaError(KafkaTuiError):
    """The port accepts TCP connections but does not speak Kafka's protocol as configured (exit 6)."""

    exit_code: ClassVar[int] = 6
    kind: ClassVar[str] = "not a Kafka listener"


class AuthenticationError(KafkaTuiError):
    """TLS handshake or SASL authentication failed (exit 7)."""

    exit_code: ClassVar[int] = 7
    kind: ClassVar[str] = "authentication failed"


class MetadataTimeoutError(KafkaTuiError):
    """Connected, but no cluster metadata within the timeout (exit 8)."""

    exit_code: ClassVar[int] = 8
    kind: ClassVar[str] = "metadata timeout"


class AuthorizationDeniedError(KafkaTuiError):
    """The cluster denied a request (ACLs) that the command cannot do without (exit 9)."""

    exit_code: ClassVar[int] = 9
    kind: ClassVar[str] = "not authorized"


EXIT_CODES: dict[int, str] = {
    EXIT_HEALTHY: "healthy / success",
    EXIT_WARNINGS: "check: warnings",
    EXIT_CRITICAL: "check: critical",
    **{
        cls.exit_code: cls.kind
        for cls in (
            UsageError,
            ProfileError,
            CannotConnectError,
            NotKafkaError,
            AuthenticationError,
            MetadataTimeoutError,
            AuthorizationDeniedError,
            KafkaTuiError,
        )
    },
}
"""Every exit code and what it means (for --help texts and the README)."""
