"""Send a `ChangePlan`: validate-only first, then IncrementalAlterConfigs, then verify by re-describing.

Only IncrementalAlterConfigs (KIP-339) is ever sent, through `kafkatui.kafka.writes`: topics together,
one request per broker resource (as librdkafka sends broker resources to that broker), and the
cluster-wide broker default through kafka-python. Broker errors are kept verbatim
(``INVALID_CONFIG: Unknown topic config name: foo.bar``), secrets scrubbed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from kafkatui.alter.plan import OVERRIDE_SOURCE, ChangePlan, ConfigChange
from kafkatui.alter.risk import current_value
from kafkatui.kafka.writes import AdminUser, alter_broker_default
from kafkatui.model.snapshot import ClusterSnapshot, ConfigValue

VERIFY_SECONDS = 5.0
"""How long re-describing may wait for the new values to show."""


@dataclass(frozen=True, slots=True)
class ResourceResult:
    """The outcome for one resource: its changes and the broker's error (None: accepted)."""

    kind: str
    name: str
    changes: tuple[ConfigChange, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class Verified:
    """One change after apply: the value and source re-described, and whether it took effect."""

    change: ConfigChange
    before: ConfigValue
    after: ConfigValue | None
    error: str | None  # None: applied and verified

    @property
    def ok(self) -> bool:
        return self.error is None


class ConfigAlterer(AdminUser):
    """Sends IncrementalAlterConfigs for a plan with the user's connection settings."""

    def send(self, plan: ChangePlan, validate_only: bool) -> list[ResourceResult]:
        """One result per resource, in plan order. Never raises for a broker's refusal."""
        groups = plan.resources()
        results: dict[tuple[str, str], ResourceResult] = {}
        topics = {k: v for k, v in groups.items() if k[0] == "topic"}
        if topics:
            results.update(self._confluent(topics, validate_only))
        for key, changes in groups.items():
            if key[0] == "broker":
                results.update(self._confluent({key: changes}, validate_only))
            elif key[0] == "broker-default":
                results[key] = self._broker_default(changes, validate_only)
        return [results[k] for k in groups]

    def _confluent(
        self, groups: dict[tuple[str, str], list[ConfigChange]], validate_only: bool
    ) -> dict[tuple[str, str], ResourceResult]:
        errors = self.alter_configs(groups, validate_only)
        return {key: ResourceResult(*key, tuple(changes), errors[key]) for key, changes in groups.items()}

    def _broker_default(self, changes: list[ConfigChange], validate_only: bool) -> ResourceResult:
        return ResourceResult(
            "broker-default", "", tuple(changes), alter_broker_default(self.settings, changes, validate_only)
        )


def verify(
    plan: ChangePlan,
    results: list[ResourceResult],
    before: ClusterSnapshot,
    read: Callable[[], ClusterSnapshot],
    seconds: float = VERIFY_SECONDS,
) -> list[Verified]:
    """Re-describe until every applied change shows (value and source), or `seconds` pass."""
    failed = {(r.kind, r.name): r.error for r in results if not r.ok}
    deadline = time.monotonic() + seconds
    while True:
        after = read()
        out = [_check(c, before, after, failed.get(c.resource)) for c in plan.changes]
        if all(v.ok or v.change.resource in failed for v in out) or time.monotonic() >= deadline:
            return out
        time.sleep(0.2)


def took_effect(change: ConfigChange, after: ConfigValue) -> bool:
    """A SET shows the new value from the override source; a DELETE shows no override."""
    own = OVERRIDE_SOURCE[change.kind]
    if change.delete:
        return after.source != own
    return after.value == change.value and after.source == own


def _check(change: ConfigChange, before: ClusterSnapshot, after: ClusterSnapshot, error: str | None) -> Verified:
    was = current_value(before, change)
    if change.kind == "topic" and change.name not in after.topics and error is None:
        return Verified(change, was, None, f"topic {change.name} not found when re-describing")
    now = current_value(after, change)
    if error is not None:
        return Verified(change, was, now, error)
    if not took_effect(change, now):
        want = "no override" if change.delete else f"{change.value} ({OVERRIDE_SOURCE[change.kind]})"
        return Verified(change, was, now, f"not verified: re-described {now.value} ({now.source}), expected {want}")
    return Verified(change, was, now, None)
