"""How to reach a cluster: bootstrap servers, security, librdkafka extras and the timeout.

`ConnectionSettings` is built from ``--bootstrap``, ``-X key=value``, ``--timeout`` or a profile
(see `kafkatui.kafka.profiles`) and turned into the configuration of each client library:
`to_confluent` for librdkafka, `to_kafka_python` for kafka-python. ``-X`` pairs are applied last,
as kcat does, and the kafka-python settings are derived from the merged librdkafka settings, so a
``-X security.protocol=SASL_SSL`` reaches both clients.

Passwords are held as `Secret`, whose repr and str never show the value. A secret can be read
from a file instead of given inline: ``-X sasl.password_file=PATH`` (any secret librdkafka setting
plus ``_file``: ``ssl.key.password_file``, ``sasl.oauthbearer.client.secret_file``) reads PATH
(without its final newline) into ``sasl.password``; librdkafka itself names no setting with ``_``, so the suffix
cannot clash with one of its own.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkatui.kafka.errors import UsageError
from kafkatui.safeyaml import InputError, read_text_bounded

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER")
DEFAULT_TIMEOUT = 10.0
DEFAULT_CLIENT_ID = "kafkatui"
MAX_TIMEOUT = 3600.0

_SENSITIVE_KEY = re.compile(
    r"password|secret|jaas|token(?!\.endpoint\.url$)|oauthbearer\.config|\.pem$|^ssl_key$", re.IGNORECASE
)
_HOST = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$")
# confluent-kafka's Python-level settings (callables); a string from -X would crash the client
_PYTHON_ONLY_KEYS = frozenset(
    {"error_cb", "throttle_cb", "stats_cb", "logger", "oauth_cb", "on_delivery", "on_commit", "on_assign"}
)
_RESERVED_KEYS = {"bootstrap.servers": "--bootstrap", "metadata.broker.list": "--bootstrap"}
FILE_SUFFIX = "_file"
MAX_SECRET_FILE_BYTES = 64 * 1024


class Secret:
    """A password or key: `reveal()` gives it to a client library; repr and str show ``***``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash((Secret, len(self._value)))

    def __bool__(self) -> bool:
        return bool(self._value)


def is_sensitive_key(key: str) -> bool:
    """True for librdkafka settings that hold secrets (sasl.password, ssl.key.password, ...)."""
    return bool(_SENSITIVE_KEY.search(key))


def secret_file_key(key: str) -> str | None:
    """The secret setting that ``KEY_file`` reads from a file (``sasl.password_file`` -> ``sasl.password``)."""
    if key.endswith(FILE_SUFFIX) and len(key) > len(FILE_SUFFIX):
        stem = key[: -len(FILE_SUFFIX)]
        if is_sensitive_key(stem):
            return stem
    return None


def read_secret_file(key: str, path_text: str, origin: str = "-X") -> Secret:
    """The contents of the file a ``KEY_file`` setting names, as a `Secret`; UsageError in one line."""
    from pathlib import Path

    path = Path(path_text).expanduser()
    try:
        text = read_text_bounded(path, MAX_SECRET_FILE_BYTES)
    except InputError as exc:
        raise UsageError(f"{origin}: {key} {exc}") from None
    except OSError as exc:
        raise UsageError(f"{origin}: {key} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{origin}: {key} {path}: not UTF-8 text") from None
    secret = text.rstrip("\r\n")  # as a profile's password_file: the whole file but its final newline
    if not secret:
        raise UsageError(f"{origin}: {key} {path} is empty")
    return Secret(secret)


def _reveal(value: str | Secret) -> str:
    return value.reveal() if isinstance(value, Secret) else value


# --------------------------------------------------------------------------- bootstrap
def parse_host_port(text: str) -> tuple[str, int]:
    """``host:port`` or ``[ipv6]:port`` as (host, port); raises UsageError with a one-line reason."""
    s = text.strip()
    what = f"bad bootstrap server {s!r}:"
    if not s:
        raise UsageError("empty bootstrap server: give host:port, e.g. kafka-1:9092")
    if "://" in s:
        scheme = s.split("://", 1)[0]
        raise UsageError(f"{what} give host:port without the {scheme}:// prefix")
    if s.startswith("["):
        close = s.find("]")
        if close < 0:
            raise UsageError(f"{what} unclosed '[' (IPv6 addresses look like [::1]:9092)")
        host, rest = s[1:close], s[close + 1 :]
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            raise UsageError(f"{what} {host!r} is not an IPv6 address") from None
        if not rest.startswith(":") or rest == ":":
            raise UsageError(f"{what} no port (expected host:port, e.g. [{host}]:9092)")
        port_text = rest[1:]
    else:
        colons = s.count(":")
        if colons == 0:
            raise UsageError(f"{what} no port (expected host:port, e.g. {s}:9092)")
        if colons > 1:
            raise UsageError(f"{what} IPv6 addresses need brackets, e.g. [::1]:9092")
        host, port_text = s.split(":")
        if not host and not port_text:
            raise UsageError(f"{what} expected host:port, e.g. kafka-1:9092")
        if not host:
            raise UsageError(f"{what} no host (expected host:port, e.g. kafka-1:{port_text})")
        if not port_text:
            raise UsageError(f"{what} no port (expected host:port, e.g. {host}:9092)")
        if not _HOST.match(host):
            raise UsageError(f"{what} {host!r} is not a valid host name")
    if not port_text.isascii() or not port_text.isdigit():
        raise UsageError(f"{what} port {port_text!r} is not a number")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise UsageError(f"{what} port {port} is out of range (1-65535)")
    return host, port


def format_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_bootstrap(value: str | Iterable[str]) -> tuple[str, ...]:
    """Bootstrap servers from ``--bootstrap`` values, each possibly comma-separated.

    Every server must be ``host:port`` (``[v6addr]:port`` for IPv6), as Kafka's own tools
    require; duplicates are dropped, order is kept.
    """
    chunks = [value] if isinstance(value, str) else list(value)
    servers: list[str] = []
    for chunk in chunks:
        for part in chunk.split(","):
            if part.strip():
                servers.append(format_host_port(*parse_host_port(part)))
    if not servers:
        raise UsageError("no bootstrap server given: use --bootstrap host:port[,host:port...]")
    return tuple(dict.fromkeys(servers))


# --------------------------------------------------------------------------- -X key=value
def parse_x_options(values: Iterable[str]) -> dict[str, str | Secret]:
    """librdkafka settings from ``-X key=value`` arguments (later ones win, as in kcat)."""
    out: dict[str, str | Secret] = {}
    for raw in values:
        key, sep, val = raw.partition("=")
        key = key.strip()
        if not sep or not key:
            shown = "key=***" if sep else raw
            raise UsageError(f"-X expects key=value (e.g. -X socket.timeout.ms=10000), got {shown!r}")
        out.update(check_extra({key: val}, "-X"))
    return out


def check_extra(extra: Mapping[str, Any], origin: str = "-X") -> dict[str, str | Secret]:
    """Validate librdkafka settings; values become strings, sensitive ones `Secret`."""
    out: dict[str, str | Secret] = {}
    for key, value in extra.items():
        if not isinstance(key, str) or not key or any(c.isspace() for c in key):
            raise UsageError(f"{origin}: bad librdkafka setting name {_shown(key)}")
        if _text_problem(key) or not key.isascii():
            raise UsageError(
                f"{origin}: bad librdkafka setting name {_shown(key)}: setting names are plain "
                "ASCII (e.g. socket.timeout.ms)"
            )
        if key in _PYTHON_ONLY_KEYS:
            raise UsageError(f"{origin}: {key} cannot be set here (it is a Python callback, not a librdkafka setting)")
        if key in _RESERVED_KEYS:
            raise UsageError(f"{origin}: set {key} with {_RESERVED_KEYS[key]}, not {origin}")
        if isinstance(value, Secret):
            out[key] = value
            continue
        stem = secret_file_key(key)
        if stem is not None:
            if not isinstance(value, str) or not value.strip():
                raise UsageError(f"{origin}: {key} takes the path of a file holding the {stem}")
            out[stem] = read_secret_file(key, value.strip(), origin)
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int | float | str):
            text = str(value)
        else:
            raise UsageError(f"{origin}: {key} must be a string, number or boolean")
        problem = _text_problem(text)
        if problem:
            shown = "the value" if is_sensitive_key(key) else f"the value {_shown(text)}"
            raise UsageError(
                f"{origin}: {key}: {shown} {problem} (librdkafka takes UTF-8 text without control characters)"
            )
        out[key] = Secret(text) if is_sensitive_key(key) else text
    return out


def _text_problem(s: str) -> str | None:
    """Why librdkafka cannot take `s`: bytes that are not UTF-8 (a non-UTF-8 command line arrives as lone
    surrogates; confluent-kafka crashes on them), or a NUL or control character its C strings would cut."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    if any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in s):
        return "holds a control character"
    return None


def _shown(s: object) -> str:
    """`s` quoted as the user typed it: undecodable bytes as \\xNN, control characters escaped."""
    if not isinstance(s, str):
        return repr(s)
    out = []
    for c in s:
        if 0xDC80 <= ord(c) <= 0xDCFF:
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif c.isprintable():
            out.append(c)
        else:
            out.append(repr(c)[1:-1])
    return "'" + "".join(out) + "'"


def _check_oauthbearer(conf: Mapping[str, str | Secret]) -> None:
    """OAUTHBEARER needs a token source librdkafka can use without a Python callback; without one it
    never sends a request and the failure looked like a broker that does not answer."""
    method = _reveal(conf.get("sasl.oauthbearer.method", "default")).strip().lower()
    if method == "oidc":
        missing = [k for k in ("sasl.oauthbearer.client.id", "sasl.oauthbearer.token.endpoint.url") if not conf.get(k)]
        if missing:
            raise UsageError(f"SASL OAUTHBEARER with sasl.oauthbearer.method=oidc needs {' and '.join(missing)}")
        return
    if method != "default":
        raise UsageError(f"sasl.oauthbearer.method must be default or oidc, got {method!r}")
    unsecured = _reveal(conf.get("enable.sasl.oauthbearer.unsecure.jwt", "false")).strip().lower() == "true"
    if not unsecured or "principal=" not in _reveal(conf.get("sasl.oauthbearer.config", "")):
        raise UsageError(
            "SASL OAUTHBEARER needs a token source: -X sasl.oauthbearer.method=oidc with "
            "sasl.oauthbearer.client.id, sasl.oauthbearer.client.secret and sasl.oauthbearer.token.endpoint.url "
            "(or, for an unsecured test token, -X enable.sasl.oauthbearer.unsecure.jwt=true and "
            "-X sasl.oauthbearer.config=principal=NAME)"
        )


# --------------------------------------------------------------------------- settings
@dataclass(frozen=True, init=False)
class ConnectionSettings:
    """Everything needed to connect to one cluster. Validated on construction (UsageError).

    The constructor takes the bootstrap servers as ``"h1:9092,h2:9092"`` or a list, passwords
    as str or `Secret`; the attributes hold them normalised (a tuple, `Secret`).
    """

    bootstrap: tuple[str, ...]
    security_protocol: str
    sasl_mechanism: str | None
    sasl_username: str | None
    sasl_password: Secret | None
    ssl_ca: str | None
    ssl_cert: str | None
    ssl_key: str | None
    ssl_key_password: Secret | None
    extra: Mapping[str, str | Secret]
    timeout: float
    client_id: str

    def __init__(
        self,
        bootstrap: str | Iterable[str],
        security_protocol: str = "PLAINTEXT",
        sasl_mechanism: str | None = None,
        sasl_username: str | None = None,
        sasl_password: str | Secret | None = None,
        ssl_ca: str | None = None,
        ssl_cert: str | None = None,
        ssl_key: str | None = None,
        ssl_key_password: str | Secret | None = None,
        extra: Mapping[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        client_id: str = DEFAULT_CLIENT_ID,
    ) -> None:
        setter = object.__setattr__
        setter(self, "bootstrap", parse_bootstrap(bootstrap))
        protocol = (security_protocol or "PLAINTEXT").strip().upper()
        if protocol not in SECURITY_PROTOCOLS:
            raise UsageError(
                f"unknown security protocol {security_protocol!r} (use one of {', '.join(SECURITY_PROTOCOLS)})"
            )
        setter(self, "security_protocol", protocol)
        if sasl_mechanism is not None:
            mechanism = sasl_mechanism.strip().upper()
            if mechanism not in SASL_MECHANISMS:
                raise UsageError(f"unknown SASL mechanism {sasl_mechanism!r} (use one of {', '.join(SASL_MECHANISMS)})")
            if not protocol.startswith("SASL_"):
                raise UsageError(
                    f"a SASL mechanism is set but the security protocol is {protocol}: use SASL_SSL or SASL_PLAINTEXT"
                )
            sasl_mechanism = mechanism
        setter(self, "sasl_mechanism", sasl_mechanism)
        setter(self, "sasl_username", sasl_username)
        setter(self, "sasl_password", Secret(sasl_password) if isinstance(sasl_password, str) else sasl_password)
        setter(self, "ssl_ca", ssl_ca)
        setter(self, "ssl_cert", ssl_cert)
        setter(self, "ssl_key", ssl_key)
        setter(
            self,
            "ssl_key_password",
            Secret(ssl_key_password) if isinstance(ssl_key_password, str) else ssl_key_password,
        )
        setter(self, "extra", check_extra(extra or {}))
        try:
            seconds = float(timeout)
        except (TypeError, ValueError):
            raise UsageError(f"timeout must be a number of seconds, got {timeout!r}") from None
        if not 0 < seconds <= MAX_TIMEOUT:
            raise UsageError(f"timeout must be between 0 and {MAX_TIMEOUT:g} seconds, got {seconds:g}")
        setter(self, "timeout", seconds)
        if not client_id or not client_id.strip():
            raise UsageError("client id must not be empty")
        setter(self, "client_id", client_id)
        merged = self._merged()
        for key, value in merged.items():  # sasl_username etc. from a profile's "\\udcff" escapes
            problem = _text_problem(_reveal(value))
            if problem:
                raise UsageError(f"{key}: the value {problem} (librdkafka takes UTF-8 text without control characters)")
        self._check_sasl(merged)

    # ------------------------------------------------------------------ views
    def _merged(self) -> dict[str, str | Secret]:
        conf: dict[str, str | Secret] = {
            "bootstrap.servers": ",".join(self.bootstrap),
            "client.id": self.client_id,
            "security.protocol": self.security_protocol,
        }
        optional: dict[str, str | Secret | None] = {
            "sasl.mechanism": self.sasl_mechanism,
            "sasl.username": self.sasl_username,
            "sasl.password": self.sasl_password,
            "ssl.ca.location": self.ssl_ca,
            "ssl.certificate.location": self.ssl_cert,
            "ssl.key.location": self.ssl_key,
            "ssl.key.password": self.ssl_key_password,
        }
        conf.update({k: v for k, v in optional.items() if v is not None})
        for key, value in self.extra.items():
            if key == "sasl.mechanisms":  # librdkafka's alias: keep one spelling
                conf.pop("sasl.mechanism", None)
            if key == "sasl.mechanism":
                conf.pop("sasl.mechanisms", None)
            conf[key] = value
        for key in ("sasl.mechanism", "sasl.mechanisms"):  # librdkafka knows SCRAM-SHA-512, not scram-sha-512
            if key in conf and not isinstance(conf[key], Secret):
                conf[key] = str(conf[key]).strip().upper()
        return conf

    @staticmethod
    def _check_sasl(conf: Mapping[str, str | Secret]) -> None:
        protocol = _reveal(conf.get("security.protocol", "PLAINTEXT")).upper()
        if not protocol.startswith("SASL_"):
            return
        mechanism = _reveal(conf.get("sasl.mechanism") or conf.get("sasl.mechanisms") or "")
        if not mechanism:
            raise UsageError(f"security protocol {protocol} needs a SASL mechanism ({', '.join(SASL_MECHANISMS)})")
        if mechanism.upper() in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
            if not conf.get("sasl.username"):
                raise UsageError(f"SASL {mechanism.upper()} needs a user name (sasl_username, or -X sasl.username=...)")
            if not conf.get("sasl.password"):
                raise UsageError(
                    f"SASL {mechanism.upper()} needs a password (password_env or password_file in the profile)"
                )
        if mechanism.upper() == "OAUTHBEARER":
            _check_oauthbearer(conf)

    def secrets(self) -> list[str]:
        """The secret values, for scrubbing them from any text a client library produces."""
        return [v.reveal() for v in self._merged().values() if isinstance(v, Secret) and v.reveal()]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(self.bootstrap)

    def to_confluent(self) -> dict[str, str]:
        """librdkafka settings for confluent-kafka. Holds passwords in clear: never log it."""
        return {k: _reveal(v) for k, v in self._merged().items()}

    def to_kafka_python(self) -> dict[str, Any]:
        """KafkaAdminClient keyword arguments, derived from the merged librdkafka settings.

        Maps security.protocol, sasl.mechanism(s), sasl.username/password, ssl.ca.location (a file or,
        through an SSLContext, a directory), ssl.ca.pem, ssl.certificate.location, ssl.key.location,
        ssl.key.password, client.id, ssl.endpoint.identification.algorithm=none,
        enable.ssl.certificate.verification=false, and for OAUTHBEARER a token provider doing what
        librdkafka does with sasl.oauthbearer.* (`kafkatui.kafka.oauth`). Holds passwords in clear:
        never log it.
        """
        conf = self.to_confluent()
        kwargs: dict[str, Any] = {
            "bootstrap_servers": list(self.bootstrap),
            "client_id": conf.get("client.id", self.client_id),
            "security_protocol": conf.get("security.protocol", "PLAINTEXT").upper(),
            "request_timeout_ms": max(1000, int(self.timeout * 1000)),
            "bootstrap_timeout_ms": max(1000, int(self.timeout * 1000)),
        }
        mechanism = conf.get("sasl.mechanism") or conf.get("sasl.mechanisms")
        if mechanism:
            kwargs["sasl_mechanism"] = mechanism.upper()
        simple = {
            "sasl.username": "sasl_plain_username",
            "sasl.password": "sasl_plain_password",
            "ssl.ca.location": "ssl_cafile",
            "ssl.certificate.location": "ssl_certfile",
            "ssl.key.location": "ssl_keyfile",
            "ssl.key.password": "ssl_password",
            "sasl.kerberos.service.name": "sasl_kerberos_service_name",
        }
        for key, kw in simple.items():
            if conf.get(key):
                kwargs[kw] = conf[key]
        if conf.get("ssl.endpoint.identification.algorithm", "https").lower() == "none":
            kwargs["ssl_check_hostname"] = False
        if conf.get("enable.ssl.certificate.verification", "true").lower() in ("false", "0"):
            kwargs["ssl_context"] = _unverified_context(kwargs)
        elif conf.get("ssl.ca.pem") or os.path.isdir(conf.get("ssl.ca.location", "")):
            # kafka-python's ssl_cafile takes one file: a CA directory or inline PEM needs a context
            kwargs["ssl_context"] = _verifying_context(kwargs, conf)
        if kwargs.get("sasl_mechanism") == "OAUTHBEARER":
            from kafkatui.kafka.oauth import token_provider

            kwargs["sasl_oauth_token_provider"] = token_provider(conf, self.timeout)
        return kwargs

    def __repr__(self) -> str:
        extra = {k: (Secret(_reveal(v)) if is_sensitive_key(k) else v) for k, v in self.extra.items()}
        return (
            f"ConnectionSettings(bootstrap={self.bootstrap!r}, security_protocol={self.security_protocol!r}, "
            f"sasl_mechanism={self.sasl_mechanism!r}, sasl_username={self.sasl_username!r}, "
            f"sasl_password={self.sasl_password!r}, ssl_ca={self.ssl_ca!r}, ssl_cert={self.ssl_cert!r}, "
            f"ssl_key={self.ssl_key!r}, ssl_key_password={self.ssl_key_password!r}, extra={extra!r}, "
            f"timeout={self.timeout!r}, client_id={self.client_id!r})"
        )

    __str__ = __repr__


def _verifying_context(kwargs: Mapping[str, Any], conf: Mapping[str, str]) -> ssl.SSLContext:
    """An SSLContext that verifies against ssl.ca.pem or a CA directory (ssl.ca.location), as librdkafka does."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = kwargs.get("ssl_check_hostname", True)
    if conf.get("ssl.ca.pem"):
        ctx.load_verify_locations(cadata=conf["ssl.ca.pem"])
    else:
        ctx.load_verify_locations(capath=conf["ssl.ca.location"])
    if kwargs.get("ssl_certfile"):
        ctx.load_cert_chain(kwargs["ssl_certfile"], kwargs.get("ssl_keyfile"), kwargs.get("ssl_password"))
    return ctx


def _unverified_context(kwargs: Mapping[str, Any]) -> ssl.SSLContext:
    """An SSLContext that skips certificate checks (enable.ssl.certificate.verification=false)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if kwargs.get("ssl_certfile"):
        ctx.load_cert_chain(kwargs["ssl_certfile"], kwargs.get("ssl_keyfile"), kwargs.get("ssl_password"))
    return ctx
