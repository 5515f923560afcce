"""Topic configs read through kafka-python, naming only the keys a snapshot keeps.

confluent-kafka's ``describe_configs`` cannot name keys (DescribeConfigs' ``configuration_keys``):
it asks for every config of every topic with its synonyms and builds a Python ``ConfigEntry`` for
each, holding the GIL. On 2,000 topics that is about 30 configs and 60 synonyms per topic, and it
cost `kafkatui check` 0.4-0.9 s of its 1.2-1.6 s (measured against the 100,000-partition bench
cluster: the same run without topic configs took 0.6-0.8 s). Asking for the 7 kept keys without
synonyms makes the answer about 15 times smaller; `kafkatui.kafka.configs_wire` writes and reads it
(kafka-python only frames it: `kafkatui.kafka.kpreads._describe_topic_configs`). The answer becomes the same
``ConfigValue`` entries and the same problem reasons as the confluent-kafka path
(`kafkatui.kafka.answers`), which stays the fallback when kafka-python cannot connect.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaError

from kafkatui.kafka.answers import _SOURCES
from kafkatui.kafka.diagnose import _kafka_error_reason
from kafkatui.model.snapshot import DEFAULT_CONFIG, DYNAMIC_TOPIC_CONFIG, ConfigValue

TOPIC_RESOURCE = 2
"""DescribeConfigs resource type of a topic."""

UNKNOWN_TOPIC_OR_PARTITION = 3


@dataclass(slots=True)
class TopicConfigs:
    """What DescribeConfigs said of each topic: its kept configs, or why they are unknown."""

    configs: dict[str, dict[str, ConfigValue]] = field(default_factory=dict)
    failed: dict[str, list[str]] = field(default_factory=dict)
    """reason -> topics whose configs could not be read for that reason"""
    deleted: list[str] = field(default_factory=list)
    """topics deleted since the metadata named them (UNKNOWN_TOPIC_OR_PARTITION)"""


def describe_requests(names: Sequence[str], keys: Iterable[str], per_request: int) -> list[Any]:
    """DescribeConfigs requests for `names`, `per_request` topics each, asking only for `keys`."""
    from kafka.protocol.admin import DescribeConfigsRequest

    wanted = sorted(keys)
    return [
        DescribeConfigsRequest(
            resources=[(TOPIC_RESOURCE, n, wanted) for n in names[i : i + per_request]], include_synonyms=False
        )
        for i in range(0, len(names), per_request)
    ]


def read_responses(
    responses: Iterable[Any], keys: frozenset[str], timeout: float, set_here: str = DYNAMIC_TOPIC_CONFIG
) -> TopicConfigs:
    """The resources' `keys` from kafka-python's DescribeConfigs responses (by resource name); equal entries
    share one ConfigValue. `set_here`: the source of a value that is not Kafka's default in a v0 answer."""
    return read_results(
        (
            (result.resource_name, int(result.error_code or 0), result.error_message, _entries(result.configs))
            for response in responses
            for result in response.results
        ),
        keys,
        timeout,
        set_here,
    )


def _entries(configs: Iterable[Any]) -> list[Entry]:
    """A result's entries, each field read as the answer's version has it: a v0 entry has no source (None),
    a later one no "is default" (None). Asking kafka-python for a field its version lacks goes through its
    fallback for unset fields, which took a third of this read; and for v0 that fallback gave the source's
    schema default, -1, which read as an unknown source instead of "default or set here"."""
    out: list[Entry] = []
    for e in configs:
        version = getattr(e, "version", None)
        if version is None:  # not decoded with a version: every field by name
            out.append(
                (
                    e.name,
                    e.value,
                    getattr(e, "config_source", None),
                    e.is_sensitive,
                    e.read_only,
                    getattr(e, "is_default", None),
                )
            )
        elif version == 0:
            out.append((e.name, e.value, None, e.is_sensitive, e.read_only, e.is_default))
        else:
            out.append((e.name, e.value, e.config_source, e.is_sensitive, e.read_only, None))
    return out


Entry = tuple[str, str | None, int | None, bool, bool, bool | None]
"""A config entry of an answer: (name, value, source (None in v0), sensitive, read only, is default (v0))."""


def read_results(
    results: Iterable[tuple[str, int, str | None, Iterable[Entry]]],
    keys: frozenset[str],
    timeout: float,
    set_here: str = DYNAMIC_TOPIC_CONFIG,
) -> TopicConfigs:
    """DescribeConfigs results as (resource name, error code, error message, entries), however decoded."""
    out = TopicConfigs()
    seen: dict[tuple[Any, ...], ConfigValue] = {}
    for name, code, message, entries in results:
        if not noted_failure(out, name, code, message, timeout):
            out.configs[name] = entry_values(entries, keys, seen, set_here)
    return out


def noted_failure(out: TopicConfigs, name: str, code: int, message: str | None, timeout: float) -> bool:
    """Whether a result has an error code: if so it is noted in `out` (deleted, or why it failed)."""
    if code == UNKNOWN_TOPIC_OR_PARTITION:
        out.deleted.append(name)
    elif code:
        reason = _kafka_error_reason(KafkaError(code, message or None), timeout)
        out.failed.setdefault(reason, []).append(name)
    return bool(code)


def entry_values(
    entries: Iterable[Entry], keys: frozenset[str], seen: dict[tuple[Any, ...], ConfigValue], set_here: str
) -> dict[str, ConfigValue]:
    """A result's `keys` as ConfigValues; entries equal to one in `seen` share its ConfigValue."""
    values: dict[str, ConfigValue] = {}
    for signature in entries:
        key, value, source, sensitive, read_only, is_default = signature
        if key not in keys:
            continue
        cv = seen.get(signature)
        if cv is None:
            if source is None:  # v0 has no source, only whether the value is Kafka's default
                where = DEFAULT_CONFIG if is_default else set_here
            else:
                where = _SOURCES.get(int(source), "UNKNOWN")
            cv = seen[signature] = ConfigValue(
                value=None if sensitive else value,
                source=where,
                sensitive=bool(sensitive),
                read_only=bool(read_only),
            )
        values[key] = cv
    return values


__all__ = [
    "Entry",
    "TopicConfigs",
    "describe_requests",
    "entry_values",
    "noted_failure",
    "read_responses",
    "read_results",
]
