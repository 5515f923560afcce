"""Send a `ChangePlan`: validate-only first, then IncrementalAlterConfigs, then verify by re-describing.

Only IncrementalAlterConfigs (KIP-339) is ever sent: legacy AlterConfigs replaces a resource's whole
override set. Topics and single brokers go through confluent-kafka's ``incremental_alter_configs``
(one request per broker resource, as librdkafka sends broker resources to that broker);
the cluster-wide broker default (resource name "") through kafka-python's ``alter_configs`` with
``incremental=True``, since librdkafka refuses a BROKER resource with an empty name.
Broker errors are kept verbatim (``INVALID_CONFIG: Unknown topic config name: foo.bar``),
secrets scrubbed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from kafkatui.alter.plan import OVERRIDE_SOURCE, ChangePlan, ConfigChange
from kafkatui.alter.risk import current_value
from kafkatui.kafka.writes import AdminUser
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
        resources: dict[tuple[str, str], ConfigResource] = {}
        for (kind, name), changes in groups.items():
            entries = [
                ConfigEntry(
                    c.key,
                    c.value,
                    incremental_operation=AlterConfigOpType.DELETE if c.delete else AlterConfigOpType.SET,
                )
                for c in changes
            ]
            rtype = ResourceType.TOPIC if kind == "topic" else ResourceType.BROKER
            resources[(kind, name)] = ConfigResource(rtype, name, incremental_configs=entries)
        out: dict[tuple[str, str], ResourceResult] = {}
        try:
            futures = self._admin.incremental_alter_configs(
                list(resources.values()), validate_only=validate_only, request_timeout=self.settings.timeout
            )
        except (KafkaException, TypeError, ValueError) as exc:
            for key, changes in groups.items():
                out[key] = ResourceResult(*key, tuple(changes), self._text(str(exc)))
            return out
        by_resource = {(r.restype, r.name): f for r, f in futures.items()}
        for key, res in resources.items():
            fut = by_resource[(res.restype, res.name)]
            error: str | None = None
            try:
                fut.result(timeout=self.settings.timeout + 5)
            except KafkaException as exc:
                err: Any = exc.args[0] if exc.args else None
                error = self._text(f"{err.name()}: {err.str()}" if isinstance(err, KafkaError) else str(exc))
            except Exception as exc:  # a timeout of the future, or anything the client raises
                error = self._text(f"{type(exc).__name__}: {exc}")
            out[key] = ResourceResult(*key, tuple(groups[key]), error)
        return out

    def _broker_default(self, changes: list[ConfigChange], validate_only: bool) -> ResourceResult:
        from kafka.admin import AlterConfigOp, ConfigResourceType
        from kafka.admin import ConfigResource as KPResource

        from kafkatui.kafka.source import _new_kafka_python_admin

        configs = {c.key: (AlterConfigOp.DELETE, None) if c.delete else (AlterConfigOp.SET, c.value) for c in changes}
        error: str | None = None
        kadmin = None
        try:
            kadmin = _new_kafka_python_admin(self.settings.to_kafka_python())
            # alter_configs() insists on a numeric broker name, so send the request it would build
            request = kadmin._alter_configs_request(
                [KPResource(ConfigResourceType.BROKER, "", configs)], validate_only, incremental=True
            )

            async def send() -> Any:
                response = await kadmin._manager.send(request)
                return kadmin._alter_configs_process_responses(response.responses)

            answer = kadmin._manager.run(send)
            result = answer.get("broker", {}).get("", "no answer for the broker default")
            if result != "OK":
                error = self._text(str(result))
        except Exception as exc:  # kafka-python raises many kinds; the user gets one line
            error = self._text(f"{type(exc).__name__}: {exc}")
        finally:
            if kadmin is not None:
                with contextlib.suppress(Exception):
                    kadmin.close()
        return ResourceResult("broker-default", "", tuple(changes), error)

    def close(self) -> None:
        del self._admin


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
