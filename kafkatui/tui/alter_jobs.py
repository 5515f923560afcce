"""The blocking steps of a config change, run by the TUI's worker threads (no Textual here).

They are the headless ``kafkatui alter`` steps in the same order, with the same calls: a fresh
snapshot, the validate-only request (`ConfigAlterer.send`), then IncrementalAlterConfigs, `verify`
by re-describing, and the audit records of `kafkatui.alter.audit`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from kafkatui.alter import audit
from kafkatui.alter.apply import ConfigAlterer, ResourceResult, Verified, verify
from kafkatui.alter.plan import ChangePlan, label
from kafkatui.kafka.errors import UsageError
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


@dataclass(frozen=True, slots=True)
class Applied:
    """Every change re-described after apply, and why the audit log could not be written (None: it was)."""

    verified: tuple[Verified, ...]
    audit_error: str | None = None


def apply(settings: ConnectionSettings, plan: ChangePlan, before: ClusterSnapshot) -> Applied:
    """Apply with IncrementalAlterConfigs, verify by re-describing, and append the audit records.

    One record per change, whatever its result, exactly as ``kafkatui alter`` writes them.
    """
    alterer = ConfigAlterer(settings)
    try:
        results = alterer.send(plan, validate_only=False)
    finally:
        alterer.close()
    with _source(settings) as source:
        verified = verify(plan, results, before, source.snapshot)
    try:
        audit.append(audit.make_records(verified, before.cluster_id, str(uuid.uuid4())))
    except UsageError as exc:  # the change is made: say so, and that the trail is missing
        return Applied(tuple(verified), str(exc))
    return Applied(tuple(verified))
