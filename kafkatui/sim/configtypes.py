"""The types of Kafka's config catalog: sources, types, definitions, and the value parsing and
validators they use, as Kafka's ``ConfigDef`` does them.

The catalog itself (one `ConfigDef` per Kafka config) is :mod:`kafkatui.sim.configdefs`; the store
that resolves and alters values is :mod:`kafkatui.sim.configs`. Pure Python: no network, no UI.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import IntEnum
from typing import TypeAlias

# Kafka error codes this module raises (same numbers as kafkatui.sim.errors).
UNKNOWN_TOPIC_OR_PARTITION = 3
TOPIC_ALREADY_EXISTS = 36
INVALID_CONFIG = 40
INVALID_REQUEST = 42

# IncrementalAlterConfigs operation codes.
OP_SET = 0
OP_DELETE = 1
OP_APPEND = 2
OP_SUBTRACT = 3
OP_NAMES = {OP_SET: "SET", OP_DELETE: "DELETE", OP_APPEND: "APPEND", OP_SUBTRACT: "SUBTRACT"}

LONG_MAX = "9223372036854775807"


class ConfigSource(IntEnum):
    """DescribeConfigs ``config_source`` codes (the simulator never emits 6 or 7)."""

    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5


class ConfigType(IntEnum):
    """DescribeConfigs v3+ ``config_type`` codes."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


Validator: TypeAlias = Callable[[str], str | None]


def _accept_any(value: str) -> str | None:
    """A validator that accepts every value."""
    return None


@dataclass(frozen=True, slots=True)
class ConfigDef:
    """One config key: Kafka's type, default (as DescribeConfigs renders it) and rules.

    ``validator`` returns Kafka's full error message (``Invalid value x for configuration
    y: ...``) or None. ``per_broker`` marks dynamic broker configs Kafka only accepts with a
    broker id (its ``PER_BROKER_CONFIGS``), never at the cluster-wide default.
    """

    name: str
    type: ConfigType
    default: str | None
    doc: str
    broker_synonym: str | None
    dynamic: bool
    sensitive: bool = False
    validator: Validator = _accept_any
    per_broker: bool = False


@dataclass(frozen=True, slots=True)
class Synonym:
    """One source a config's value could come from, as DescribeConfigs lists it."""

    name: str
    value: str | None
    source: ConfigSource


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    """One DescribeConfigs result entry."""

    name: str
    value: str | None
    source: ConfigSource
    read_only: bool
    is_default: bool
    sensitive: bool
    type: ConfigType
    doc: str
    synonyms: tuple[Synonym, ...]


class ConfigError(Exception):
    """A config request Kafka would refuse, with the error code and message it answers."""

    def __init__(self, error_code: int, message: str) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.message = message

    def __repr__(self) -> str:
        return f"ConfigError({self.error_code}, {self.message!r})"


# --------------------------------------------------------------------------- parsing
# Kafka's ConfigDef.parseType trims strings, then parses with Java's rules.

_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_DOUBLE = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?$|^[+-]?(?:NaN|Infinity)$")
_COMMA = re.compile(r"\s*,\s*")
_INT_BITS = {ConfigType.SHORT: 16, ConfigType.INT: 32, ConfigType.LONG: 64}


def _invalid(name: str, value: object, message: str | None = None) -> str:
    """Kafka's ConfigException text."""
    return f"Invalid value {value} for configuration {name}" + (f": {message}" if message else "")


def _parse_int(value: str, ctype: ConfigType) -> int | None:
    trimmed = value.strip()
    if not _INTEGER.match(trimmed):
        return None
    n = int(trimmed)
    bits = _INT_BITS[ctype]
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        return None
    return n


def _parse_double(value: str) -> float | None:
    trimmed = value.strip()
    if not _DOUBLE.match(trimmed):
        return None
    return float(trimmed.rstrip("fFdD"))


def _parse_list(value: str) -> list[str]:
    """Kafka's LIST parsing: trimmed, split on commas with surrounding whitespace; "" is []."""
    trimmed = value.strip()
    return [] if not trimmed else _COMMA.split(trimmed)


def _java_list(items: list[str]) -> str:
    """How Java prints a List (Kafka puts that in some messages)."""
    return "[" + ", ".join(items) + "]"


def _java_double(x: float) -> str:
    """Java's Double.toString, which Kafka uses to render DOUBLE configs."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if 1e-3 <= abs(x) < 1e7:
        text = repr(x)
        return text if "." in text else text + ".0"
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    assert isinstance(exp, int)
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    exponent = exp + len(digits) - 1
    return f"{'-' if sign else ''}{ds[0]}.{ds[1:] or '0'}E{exponent}"


def canonical(ctype: ConfigType, value: str) -> str:
    """The value as Kafka renders it after parsing (only call on valid values)."""
    if ctype in _INT_BITS:
        return str(int(value.strip()))
    if ctype is ConfigType.BOOLEAN:
        return value.strip().lower()
    if ctype is ConfigType.DOUBLE:
        parsed = _parse_double(value)
        return _java_double(parsed) if parsed is not None else value.strip()
    if ctype is ConfigType.LIST:
        return ",".join(_parse_list(value))
    if ctype is ConfigType.UNKNOWN:
        return value
    return value.strip()


# --------------------------------------------------------------------------- validators


def _type_check(name: str, ctype: ConfigType, value: str) -> str | None:
    """Kafka's parseType errors."""
    if ctype in _INT_BITS and _parse_int(value, ctype) is None:
        return _invalid(name, value, f"Not a number of type {ctype.name}")
    if ctype is ConfigType.DOUBLE and _parse_double(value) is None:
        return _invalid(name, value, "Not a number of type DOUBLE")
    if ctype is ConfigType.BOOLEAN and value.strip().lower() not in ("true", "false"):
        return _invalid(name, value, "Expected value to be either true or false")
    return None


def make_validator(
    name: str,
    ctype: ConfigType,
    *,
    at_least: float | None = None,
    at_most: float | None = None,
    one_of: tuple[str, ...] | None = None,
    list_of: tuple[str, ...] | None = None,
    extra: Callable[[str], str | None] | None = None,
) -> Validator:
    """Build a validator the way Kafka's ConfigDef.define(type, validator) checks a value."""

    def validate(value: str) -> str | None:
        error = _type_check(name, ctype, value)
        if error:
            return error
        if at_least is not None or at_most is not None:
            num: float
            if ctype is ConfigType.DOUBLE:
                parsed = _parse_double(value)
                assert parsed is not None
                num = parsed
            else:
                num = int(value.strip())
            if at_least is not None and num < at_least:
                return _invalid(name, value.strip(), f"Value must be at least {_num(at_least)}")
            if at_most is not None and num > at_most:
                return _invalid(name, value.strip(), f"Value must be no more than {_num(at_most)}")
        if one_of is not None and value.strip() not in one_of:
            return _invalid(name, value.strip(), "String must be one of: " + ", ".join(one_of))
        if list_of is not None:
            items = _parse_list(value)
            if not items:
                return _invalid(name, value.strip(), f"Configuration '{name}' must not be empty")
            for item in items:
                if item not in list_of:
                    return _invalid(name, item, "String must be one of: " + ", ".join(list_of))
        if extra is not None:
            return extra(value)
        return None

    return validate


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else repr(n)


_REPLICA_ENTRY = re.compile(r"^([0-9]+:[0-9]+)?$")


def throttled_replicas(name: str) -> Callable[[str], str | None]:
    """Kafka's ThrottledReplicaListValidator: '*' or partition:broker pairs."""

    def check(value: str) -> str | None:
        items = [item.strip() for item in _parse_list(value)]
        if all(_REPLICA_ENTRY.match(item) for item in items) or "".join(items) == "*":
            return None
        return _invalid(
            name,
            _java_list(items),
            f"{name} must be the literal '*' or a list of replicas in the following format: "
            "[partitionId]:[brokerId],[partitionId]:[brokerId],...",
        )

    return check
