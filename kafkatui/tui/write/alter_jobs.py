"""The blocking steps of a config change, run by the TUI's worker threads (no Textual here).

They are the headless ``kafkatui alter`` steps in the same order, with the same calls: a fresh
snapshot, the validate-only request (`ConfigAlterer.send`), then `apply_plan` (re-read, intent,
IncrementalAlterConfigs, verify, outcome records).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kafkatui.alter.apply import ConfigAlterer, ResourceResult
from kafkatui.alter.config_write import Applied, apply_plan
from kafkatui.alter.plan import ChangePlan, label
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot


@dataclass(frozen=True, slots=True)
class Validated:
    """The snapshot taken just before the validate-only request, and the brokers' answer per resource."""

    snapshot: ClusterSnapshot
    results: tuple[ResourceResult, ...]

    @property
    def refusals(self) -> list[str]:
        """One line per refused resource, the broker's error verbatim."""
        return refusals(self.results)


def refusals(results: Sequence[ResourceResult]) -> list[str]:
    return [f"{label(r.kind, r.name)}: {r.error}" for r in results if not r.ok]


def _source(settings: ConnectionSettings) -> KafkaClusterSource:
    return KafkaClusterSource(settings, log_dirs="none", elr=False)


def validate(settings: ConnectionSettings, plan: ChangePlan) -> Validated:
    """Snapshot the cluster, then send the plan with validate_only: nothing changes."""
    with _source(settings) as source:
        snapshot = source.snapshot()
    alterer = ConfigAlterer(settings)
    try:
        results = alterer.send(plan, validate_only=True)
    finally:
        alterer.close()
    return Validated(snapshot, tuple(results))


__all__ = ["Applied", "Validated", "apply", "refusals", "validate"]


def apply(
    settings: ConnectionSettings, plan: ChangePlan, seen: ClusterSnapshot, extra: Mapping[str, Any] | None = None
) -> Applied:
    """`apply_plan` as ``kafkatui alter`` runs it: re-read (nothing sent when the plan's values changed since
    `seen`: ChangedMeanwhileError), intent, IncrementalAlterConfigs, verify, one outcome record per change."""
    with _source(settings) as source:
        return apply_plan(settings, plan, source.snapshot, seen, extra)
