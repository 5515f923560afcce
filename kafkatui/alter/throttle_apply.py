"""Set and remove replication throttles (IncrementalAlterConfigs through `ConfigAlterer`), audited write-ahead."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from kafkatui.alter import journal
from kafkatui.alter.apply import ConfigAlterer, ResourceResult
from kafkatui.alter.errors import PartialFailureError
from kafkatui.alter.plan import OVERRIDE_SOURCE, ChangePlan, ConfigChange, label
from kafkatui.alter.reassign import ids_text
from kafkatui.alter.throttle import audit_records, clear_plan
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.model.snapshot import ClusterSnapshot


def send(
    settings: ConnectionSettings,
    plan: ChangePlan,
    validate_only: bool,
    action: str = "",
    cluster_id: str | None = None,
    command_id: str = "",
    snapshot: ClusterSnapshot | None = None,
) -> list[str]:
    """Send throttle config changes; returns the errors, one per resource.

    Unless validating, the write-ahead way: an intent (before: as `snapshot` shows it) is in the audit log
    before the request leaves, its outcomes (as `action`) after, under the id ``<command_id>/<action>``
    (its own, so that the reassignment's records never settle a throttle that a killed run left behind).
    """
    if validate_only:
        return _problems(_send(settings, plan, True))
    intent = journal.begin(
        action,
        cluster_id,
        [_change(c, snapshot) for c in plan.changes],
        command_id=f"{command_id or uuid.uuid4()}/{action}",
    )
    with journal.running(intent):
        journal.die_at("throttle-before-send")
        results = _send(settings, plan, False)
        journal.die_at("throttle-after-send")
        intent.finish(audit_records(action, results, cluster_id, intent.command_id))
    return _problems(results)


def _send(settings: ConnectionSettings, plan: ChangePlan, validate_only: bool) -> list[ResourceResult]:
    alterer = ConfigAlterer(settings)
    try:
        return alterer.send(plan, validate_only=validate_only)
    finally:
        alterer.close()


def _problems(results: Sequence[ResourceResult]) -> list[str]:
    return [f"{label(r.kind, r.name)}: {r.error}" for r in results if not r.ok]


def _change(change: ConfigChange, snapshot: ClusterSnapshot | None) -> dict[str, Any]:
    """The intent's entry for one change; without a snapshot the value before is not known."""
    if snapshot is not None:
        return journal.config_change(change, snapshot)
    after: dict[str, Any] = (
        {"delete": True} if change.delete else {"value": change.value, "source": OVERRIDE_SOURCE[change.kind]}
    )
    return {
        "resource": {"kind": change.kind, "name": change.name},
        "key": change.key,
        "before": {"value": None, "source": "UNKNOWN"},
        "after": after,
    }


def remove(
    settings: ConnectionSettings,
    topics: Sequence[str],
    brokers: Iterable[int],
    cluster_id: str | None,
    command_id: str,
    snapshot: ClusterSnapshot | None = None,
) -> str:
    """Remove every throttle from `topics` and `brokers`; the line to show, or PartialFailureError."""
    named = sorted(set(brokers))
    problems = send(settings, clear_plan(topics, named), False, "throttle-clear", cluster_id, command_id, snapshot)
    if problems:
        raise PartialFailureError(
            "removing the throttle failed (remove it with --clear-throttle): " + "; ".join(problems)
        )
    return f"throttle removed from {', '.join(topics)} and brokers {ids_text(named)}"
