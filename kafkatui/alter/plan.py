"""What to change: a `ChangePlan` of `ConfigChange`s, validated before any network call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafkatui.kafka.errors import UsageError
from kafkatui.model.snapshot import (
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
)

KINDS = ("topic", "broker", "broker-default")
ALTERABLE: dict[str, str] = {"min.insync.replicas": "int", "unclean.leader.election.enable": "bool"}
"""Keys kafkatui alters, for every kind, and their value type."""

STATIC_KEYS: dict[str, str] = {
    "replica.lag.time.max.ms": (
        "replica.lag.time.max.ms is a static broker config: Kafka cannot change it dynamically "
        "(IncrementalAlterConfigs answers 'Cannot update these configs dynamically'); set it in "
        "server.properties and restart the brokers one at a time"
    ),
}

OVERRIDE_SOURCE = {
    "topic": DYNAMIC_TOPIC_CONFIG,
    "broker": DYNAMIC_BROKER_CONFIG,
    "broker-default": DYNAMIC_DEFAULT_BROKER_CONFIG,
}
"""The config source a change of each kind creates (and DELETE removes)."""


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """Set `key` on one resource to `value`; None deletes the override (back to the default)."""

    kind: str  # "topic" | "broker" | "broker-default"
    name: str  # topic name, broker id, "" for broker-default
    key: str
    value: str | None

    @property
    def delete(self) -> bool:
        return self.value is None

    @property
    def resource(self) -> tuple[str, str]:
        return (self.kind, self.name)

    @property
    def label(self) -> str:
        """How the resource is shown: ``topic orders``, ``broker 3``, ``broker default``."""
        return label(self.kind, self.name)

    @property
    def shown_value(self) -> str:
        return "(delete override)" if self.value is None else self.value


def label(kind: str, name: str) -> str:
    return "broker default" if kind == "broker-default" else f"{kind} {name}"


@dataclass(frozen=True, slots=True)
class ChangePlan:
    """Changes grouped per resource, in the order given."""

    changes: tuple[ConfigChange, ...]

    def resources(self) -> dict[tuple[str, str], list[ConfigChange]]:
        out: dict[tuple[str, str], list[ConfigChange]] = {}
        for c in self.changes:
            out.setdefault(c.resource, []).append(c)
        return out

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(c.name for c in self.changes if c.kind == "topic"))

    def __bool__(self) -> bool:
        return bool(self.changes)


def check_key(key: str) -> None:
    """UsageError unless kafkatui alters `key`."""
    if key in STATIC_KEYS:
        raise UsageError(STATIC_KEYS[key])
    if key not in ALTERABLE:
        raise UsageError(f"kafkatui does not alter {key!r} (alterable: {', '.join(ALTERABLE)})")


INT32_MAX = 2**31 - 1


def normalize_value(key: str, value: str) -> str:
    """The value as Kafka expects it; UsageError for a bad one (int >= 1, or true/false)."""
    check_key(key)
    text = value.strip()
    if ALTERABLE[key] == "int":
        if not text.isascii() or not text.lstrip("+").isdigit():
            raise UsageError(f"{key} must be a whole number >= 1, got {value!r}")
        number = int(text)
        if number < 1:
            raise UsageError(f"{key} must be >= 1, got {number}")
        if number > INT32_MAX:  # Kafka's INT config type: the brokers would refuse it
            raise UsageError(f"{key} must be at most {INT32_MAX} (a Kafka INT), got {text}")
        return str(number)
    low = text.lower()
    if low not in ("true", "false"):
        raise UsageError(f"{key} must be true or false, got {value!r}")
    return low


def parse_assignment(text: str) -> tuple[str, str]:
    """``key=value`` from ``--set``, validated."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UsageError(f"--set expects KEY=VALUE (e.g. --set min.insync.replicas=2), got {text!r}")
    return key, normalize_value(key, value)


def targets(topics: Sequence[str], brokers: Sequence[int], broker_default: bool) -> list[tuple[str, str]]:
    """The (kind, name) resources the options name; UsageError when none or a bad name."""
    out: list[tuple[str, str]] = []
    for t in topics:
        if not t or not t.strip() or any(c.isspace() for c in t):
            raise UsageError(f"bad topic name {t!r}")
        out.append(("topic", t))
    for b in brokers:
        if b < 0:
            raise UsageError(f"bad broker id {b}")
        out.append(("broker", str(b)))
    if broker_default:
        out.append(("broker-default", ""))
    if not out:
        raise UsageError("nothing to change: give --topic T, --broker ID or --broker-default")
    return list(dict.fromkeys(out))


def build_plan(
    resources: Iterable[tuple[str, str]], sets: Sequence[str] = (), unsets: Sequence[str] = ()
) -> ChangePlan:
    """A plan setting each ``--set KEY=VALUE`` and deleting each ``--unset KEY`` on every resource."""
    pairs = [parse_assignment(s) for s in sets]
    for key in unsets:
        check_key(key.strip())
    keys = [k for k, _ in pairs] + [k.strip() for k in unsets]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise UsageError(f"{', '.join(dup)} given more than once")
    if not keys:
        raise UsageError("nothing to change: give --set KEY=VALUE or --unset KEY")
    changes = []
    for kind, name in resources:
        if kind not in KINDS:
            raise UsageError(f"unknown resource kind {kind!r}")
        changes += [ConfigChange(kind, name, k, v) for k, v in pairs]
        changes += [ConfigChange(kind, name, k.strip(), None) for k in unsets]
    return ChangePlan(tuple(changes))
