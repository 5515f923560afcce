"""Named cluster profiles from a YAML file, and the one place command-line options become settings.

The file is ``$KAFKATUI_PROFILES`` if set, else ``$XDG_CONFIG_HOME/kafkatui/clusters.yaml``
(``~/.config/kafkatui/clusters.yaml`` without XDG_CONFIG_HOME)::

    profiles:
      prod-eu:
        bootstrap: kafka-1.prod:9093,kafka-2.prod:9093   # or a YAML list
        security_protocol: SASL_SSL
        sasl_mechanism: SCRAM-SHA-512
        sasl_username: ops
        password_env: KAFKA_PROD_PASSWORD     # or password_file: ~/.secrets/kafka
        ssl_ca: /etc/kafka/ca.pem             # ssl_cert, ssl_key; ssl_key_password_env / _file
        writes: false                         # may kafkatui change this cluster (configs, elections)?
        timeout: 10                           # seconds
        config: {socket.timeout.ms: "10000"}  # librdkafka settings, as -X key=value
        # a secret librdkafka setting from a file: KEY_file, e.g. sasl.oauthbearer.client.secret_file: PATH
        replay:                               # where the dashboard's replay launcher runs the job
          master: spark://spark-master:7077   # default local[2]
          conf: {spark.executor.memory: 2g}   # Spark settings for the job's session

Passwords never live in this file: a ``password`` key (or a password-like librdkafka setting
under ``config``) is an error that says where to put it. Relative paths are relative to the
profiles file's directory; ``~`` is expanded. Errors are `ProfileError` (exit 4), one line
naming the file and, where YAML tells, the line.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

import yaml

from kafkatui import safeyaml
from kafkatui.kafka.errors import ProfileError, UsageError
from kafkatui.kafka.settings import (
    DEFAULT_CLIENT_ID,
    DEFAULT_TIMEOUT,
    SASL_MECHANISMS,
    SECURITY_PROTOCOLS,
    ConnectionSettings,
    Secret,
    check_extra,
    is_sensitive_key,
    parse_bootstrap,
    parse_x_options,
    secret_file_key,
)
from kafkatui.safeyaml import InputError, read_text_bounded

__all__ = [
    "PROFILES_ENV",
    "Profile",
    "ProfileError",
    "ReplayTarget",
    "ResolvedConnection",
    "list_profiles",
    "load_profile",
    "profiles_path",
    "resolve_connection",
]

PROFILES_ENV = "KAFKATUI_PROFILES"
MAX_PROFILES_BYTES = 1024 * 1024
MAX_SECRET_BYTES = 64 * 1024

_STR_KEYS = (
    "security_protocol",
    "sasl_mechanism",
    "sasl_username",
    "password_env",
    "password_file",
    "ssl_ca",
    "ssl_cert",
    "ssl_key",
    "ssl_key_password_env",
    "ssl_key_password_file",
    "client_id",
)
_PATH_KEYS = ("password_file", "ssl_ca", "ssl_cert", "ssl_key", "ssl_key_password_file")
KNOWN_KEYS = ("bootstrap", *_STR_KEYS, "writes", "timeout", "config", "replay")
_FORBIDDEN = {
    "password": "password_env: VAR or password_file: PATH",
    "sasl_password": "password_env: VAR or password_file: PATH",
    "sasl.password": "password_env: VAR or password_file: PATH",
    "ssl_key_password": "ssl_key_password_env: VAR or ssl_key_password_file: PATH",
    "ssl.key.password": "ssl_key_password_env: VAR or ssl_key_password_file: PATH",
}


@dataclass(frozen=True)
class ReplayTarget:
    """Where a profile's replay job runs: a Spark master (None: local) and Spark settings."""

    master: str | None = None
    conf: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Profile:
    """One profile, its secrets read: ready to connect."""

    name: str
    settings: ConnectionSettings
    writes: bool = False
    path: Path | None = None
    replay: ReplayTarget = field(default_factory=ReplayTarget)


@dataclass(frozen=True)
class ResolvedConnection:
    """Settings for a command, plus what the profile said about writes and any warnings."""

    settings: ConnectionSettings
    profile: str | None = None
    writes: bool | None = None  # None: no profile, the command decides
    warnings: tuple[str, ...] = field(default_factory=tuple)
    replay: ReplayTarget = field(default_factory=ReplayTarget)


def profiles_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the profiles file is: $KAFKATUI_PROFILES, else the XDG config dir."""
    env = os.environ if environ is None else environ
    explicit = env.get(PROFILES_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = env.get("XDG_CONFIG_HOME")
    base = (
        Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path(env.get("HOME") or Path.home()) / ".config"
    )
    return base / "kafkatui" / "clusters.yaml"


# --------------------------------------------------------------------------- reading the file
class _File:
    """The parsed profiles file: YAML nodes, so every error can name its line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        self._loader = yaml.SafeLoader("")
        try:
            text = read_text_bounded(path, MAX_PROFILES_BYTES)
        except FileNotFoundError:
            raise ProfileError(
                f"profiles file {path} does not exist (create it, or point {PROFILES_ENV} at one)"
            ) from None
        except InputError as exc:
            raise ProfileError(f"profiles file {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfileError(f"cannot read profiles file {path}: {_reason(exc)}") from None
        _warn_if_readable(path, "profiles file", self.warnings, group=False)
        try:
            root = safeyaml.compose(text)
        except safeyaml.LimitError as exc:
            number, problem = safeyaml.yaml_problem(exc)
            raise ProfileError(f"{path}:{number}: {problem}") from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = f":{mark.line + 1}" if mark is not None else ""
            raise ProfileError(f"{path}{line}: YAML syntax error: {exc.problem or exc.context}") from None
        except yaml.YAMLError as exc:
            raise ProfileError(f"{path}: YAML error: {exc}") from None
        self.profiles: dict[str, yaml.MappingNode] = {}
        self.lines: dict[str, int] = {}
        if root is None:
            return
        top = self._mapping(root, "the file")
        for key_node, value_node in top:
            key = self._key(key_node)
            if key != "profiles":
                self.fail(key_node, f"unknown top-level key {key!r} (expected 'profiles')")
            if _is_null(value_node):
                continue
            for name_node, body in self._mapping(value_node, "'profiles'"):
                name = self._key(name_node)
                if name in self.profiles:
                    self.fail(name_node, f"profile {name!r} is defined twice")
                if not isinstance(body, yaml.MappingNode):
                    self.fail(body, f"profile {name!r} must be a mapping of settings")
                self.profiles[name] = body
                self.lines[name] = name_node.start_mark.line + 1

    # helpers ---------------------------------------------------------------
    def fail(self, node: yaml.Node | None, message: str) -> NoReturn:
        line = f":{node.start_mark.line + 1}" if node is not None and node.start_mark is not None else ""
        raise ProfileError(f"{self.path}{line}: {message}")

    def _mapping(self, node: yaml.Node, what: str) -> list[tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{what} must be a mapping, not {_node_type(node)}")
        return list(node.value)

    def _key(self, node: yaml.Node) -> str:
        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
            self.fail(node, f"keys must be strings, not {_node_type(node)}")
        return str(node.value)

    def scalar(self, node: yaml.Node, what: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            self.fail(node, f"{what} must be a single value, not {_node_type(node)}")
        return self._loader.construct_object(node)

    # one profile -------------------------------------------------------------
    def profile(self, name: str, environ: Mapping[str, str]) -> Profile:
        body = self.profiles[name]
        values: dict[str, Any] = {}
        nodes: dict[str, yaml.Node] = {}
        where = f"profile {name!r}"
        for key_node, value_node in self._mapping(body, where):
            key = self._key(key_node)
            if key in _FORBIDDEN:
                self.fail(key_node, f"{where}: passwords do not belong in the profiles file: use {_FORBIDDEN[key]}")
            if key not in KNOWN_KEYS:
                self.fail(key_node, f"{where}: unknown key {key!r} (known keys: {', '.join(KNOWN_KEYS)})")
            if key in values:
                self.fail(key_node, f"{where}: key {key!r} given twice")
            nodes[key] = value_node
            values[key] = self._value(key, value_node, where)
        if "bootstrap" not in values:
            self.fail(body, f"{where}: no bootstrap (add bootstrap: host:port[,host:port...])")
        for a, b in (("password_env", "password_file"), ("ssl_key_password_env", "ssl_key_password_file")):
            if a in values and b in values:
                self.fail(nodes[b], f"{where}: give {a} or {b}, not both")
        base = self.path.parent
        for key in _PATH_KEYS:
            if key in values:
                values[key] = str((base / Path(values[key]).expanduser()).resolve())
        password = self._secret(values, nodes, "password_env", "password_file", name, environ)
        key_password = self._secret(values, nodes, "ssl_key_password_env", "ssl_key_password_file", name, environ)
        try:
            settings = ConnectionSettings(
                bootstrap=values["bootstrap"],
                security_protocol=values.get("security_protocol") or "PLAINTEXT",
                sasl_mechanism=values.get("sasl_mechanism"),
                sasl_username=values.get("sasl_username"),
                sasl_password=password,
                ssl_ca=values.get("ssl_ca"),
                ssl_cert=values.get("ssl_cert"),
                ssl_key=values.get("ssl_key"),
                ssl_key_password=key_password,
                extra=values.get("config") or {},
                timeout=values.get("timeout", DEFAULT_TIMEOUT),
                client_id=values.get("client_id") or DEFAULT_CLIENT_ID,
            )
        except UsageError as exc:
            self.fail(body, f"{where}: {exc.message}")
        return Profile(
            name=name,
            settings=settings,
            writes=bool(values.get("writes", False)),
            path=self.path,
            replay=values.get("replay") or ReplayTarget(),
        )

    def _replay(self, node: yaml.Node, where: str) -> ReplayTarget:
        """``replay: {master: URL, conf: {key: value}}``."""
        if _is_null(node):
            return ReplayTarget()
        master: str | None = None
        conf: list[tuple[str, str]] = []
        for k_node, v_node in self._mapping(node, f"{where}: replay"):
            k = self._key(k_node)
            if k == "master":
                value = self.scalar(v_node, "replay master")
                if not isinstance(value, str) or not value.strip():
                    self.fail(v_node, f"{where}: replay master must be a Spark master URL, e.g. spark://host:7077")
                master = value.strip()
            elif k == "conf":
                if _is_null(v_node):
                    continue
                for c_node, cv_node in self._mapping(v_node, f"{where}: replay conf"):
                    ck = self._key(c_node)
                    cv = self.scalar(cv_node, f"replay conf {ck}")
                    if cv is None or not isinstance(cv, str | int | float | bool):
                        self.fail(cv_node, f"{where}: replay conf {ck} must be a string, number or boolean")
                    conf.append((ck, str(cv).lower() if isinstance(cv, bool) else str(cv)))
            else:
                self.fail(k_node, f"{where}: unknown replay key {k!r} (known: master, conf)")
        return ReplayTarget(master, tuple(conf))

    def _value(self, key: str, node: yaml.Node, where: str) -> Any:
        if key == "replay":
            return self._replay(node, where)
        if key == "bootstrap":
            if isinstance(node, yaml.SequenceNode):
                items = [self.scalar(item, "a bootstrap entry") for item in node.value]
                if not all(isinstance(i, str) for i in items):
                    self.fail(node, f"{where}: bootstrap entries must be host:port strings")
                raw: Any = items
            else:
                raw = self.scalar(node, "bootstrap")
                if not isinstance(raw, str):
                    self.fail(node, f"{where}: bootstrap must be host:port[,host:port...], not {_type(raw)}")
            try:
                return parse_bootstrap(raw)
            except UsageError as exc:
                self.fail(node, f"{where}: {exc.message}")
        if key == "config":
            if _is_null(node):
                return {}
            out: dict[str, Any] = {}
            for k_node, v_node in self._mapping(node, f"{where}: config"):
                k = self._key(k_node)
                if is_sensitive_key(k) and secret_file_key(k) is None:
                    hint = _FORBIDDEN.get(k, f"{k}_file: PATH (a file holding it), or -X on the command line")
                    self.fail(k_node, f"{where}: {k} is a secret and does not belong in the profiles file: use {hint}")
                v = self.scalar(v_node, f"config {k}")
                if v is None or not isinstance(v, str | int | float | bool):
                    self.fail(v_node, f"{where}: config {k} must be a string, number or boolean")
                if secret_file_key(k) is not None and isinstance(v, str) and v.strip():
                    v = str((self.path.parent / Path(v.strip()).expanduser()).resolve())
                out[k] = v
            try:
                return check_extra(out, f"{where}: config")
            except UsageError as exc:
                self.fail(node, exc.message)
        value = self.scalar(node, key)
        if key == "writes":
            if not isinstance(value, bool):
                self.fail(node, f"{where}: writes must be true or false, not {_type(value)}")
            return value
        if key == "timeout":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                self.fail(node, f"{where}: timeout must be a positive number of seconds")
            return float(value)
        if not isinstance(value, str) or not value.strip():
            self.fail(node, f"{where}: {key} must be a non-empty string, not {_type(value)}")
        value = value.strip()
        choices = {"security_protocol": SECURITY_PROTOCOLS, "sasl_mechanism": SASL_MECHANISMS}.get(key)
        if choices and value.upper() not in choices:
            self.fail(node, f"{where}: unknown {key} {value!r} (use one of {', '.join(choices)})")
        return value

    def _secret(
        self,
        values: Mapping[str, Any],
        nodes: Mapping[str, yaml.Node],
        env_key: str,
        file_key: str,
        name: str,
        environ: Mapping[str, str],
    ) -> Secret | None:
        where = f"profile {name!r}"
        if env_key in values:
            var = values[env_key]
            secret = environ.get(var)
            if secret is None:
                self.fail(nodes[env_key], f"{where}: environment variable {var} ({env_key}) is not set")
            if not secret:
                self.fail(nodes[env_key], f"{where}: environment variable {var} ({env_key}) is empty")
            return Secret(secret)
        if file_key in values:
            path = Path(values[file_key])
            try:
                text = read_text_bounded(path, MAX_SECRET_BYTES)
            except InputError as exc:
                self.fail(nodes[file_key], f"{where}: {file_key} {exc}")
            except (OSError, UnicodeDecodeError) as exc:
                self.fail(nodes[file_key], f"{where}: cannot read {file_key} {path}: {_reason(exc)}")
            _warn_if_readable(path, f"{file_key} of profile {name!r}", self.warnings, group=True)
            secret = text.rstrip("\r\n")
            if not secret:
                self.fail(nodes[file_key], f"{where}: {file_key} {path} is empty")
            return Secret(secret)
        return None


def _warn_if_readable(path: Path, what: str, warnings: list[str], group: bool) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    mask = stat.S_IROTH | (stat.S_IRGRP if group else 0)
    if mode & mask:
        who = (
            "group and other users"
            if group and mode & stat.S_IRGRP and mode & stat.S_IROTH
            else ("other users" if mode & stat.S_IROTH else "its group")
        )
        warnings.append(f"{what} {path} is readable by {who} (chmod 600 {path})")


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _node_type(node: yaml.Node | None) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node is None or _is_null(node):
        return "empty"
    return "a single value"


def _type(value: Any) -> str:
    if value is None:
        return "empty"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }.get(type(value), type(value).__name__)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


# --------------------------------------------------------------------------- public API
def list_profiles(path: Path | None = None) -> list[str]:
    """Names of the profiles in the file (ProfileError if it is unusable)."""
    return sorted(_File(path or profiles_path()).profiles)


def load_profile(
    name: str, *, path: Path | None = None, environ: Mapping[str, str] | None = None
) -> tuple[Profile, list[str]]:
    """The named profile with its password read, and warnings (one line each) for stderr."""
    pf = _File(path or profiles_path(environ))
    if name not in pf.profiles:
        known = ", ".join(sorted(pf.profiles)) or "none defined"
        raise ProfileError(f"no profile {name!r} in {pf.path} (known profiles: {known})")
    profile = pf.profile(name, os.environ if environ is None else environ)
    return profile, pf.warnings


def resolve_connection(
    *,
    bootstrap: str | Sequence[str] | None = None,
    profile: str | None = None,
    x_options: Sequence[str] = (),
    timeout: float | None = None,
    client_id: str | None = None,
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> ResolvedConnection:
    """Settings from the shared options: ``--profile``, ``--bootstrap``, ``-X``, ``--timeout``.

    ``--bootstrap`` overrides the profile's servers, ``-X`` pairs go on top of the profile's
    ``config``, ``--timeout`` overrides its timeout. Raises UsageError or ProfileError.
    """
    extra = parse_x_options(x_options)
    overrides: dict[str, Any] = {}
    if bootstrap is not None:
        overrides["bootstrap"] = parse_bootstrap(bootstrap)
    if timeout is not None:
        overrides["timeout"] = timeout
    if client_id is not None:
        overrides["client_id"] = client_id
    if profile is not None:
        loaded, warnings = load_profile(profile, path=path, environ=environ)
        settings = replace(loaded.settings, extra={**loaded.settings.extra, **extra}, **overrides)
        return ResolvedConnection(
            settings, profile, loaded.writes, (*warnings, *trust_warnings(settings)), loaded.replay
        )
    if bootstrap is None:
        raise UsageError("no cluster given: use --bootstrap host:port or --profile NAME")
    settings = ConnectionSettings(extra=extra, **overrides)
    return ResolvedConnection(settings, warnings=trust_warnings(settings))


def trust_warnings(settings: ConnectionSettings) -> tuple[str, ...]:
    """A warning for each TLS check the settings turn off (the user asked for it; they should see it)."""
    if (
        not settings.security_protocol.endswith("SSL")
        and "SSL" not in str(settings.extra.get("security.protocol", "")).upper()
    ):
        return ()
    out = []
    if str(settings.extra.get("ssl.endpoint.identification.algorithm", "https")).strip().lower() == "none":
        out.append(
            "ssl.endpoint.identification.algorithm=none: the brokers' host names are not checked "
            "against their certificates (any certificate from a trusted CA is accepted for any broker)"
        )
    if str(settings.extra.get("enable.ssl.certificate.verification", "true")).strip().lower() in ("false", "0"):
        out.append(
            "enable.ssl.certificate.verification=false: the brokers' certificates are not verified "
            "at all (anyone on the path can pose as the cluster)"
        )
    return tuple(out)
