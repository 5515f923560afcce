"""Set and remove replication throttles (IncrementalAlterConfigs through `ConfigAlterer`), audited."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkatui.alter import audit
from kafkatui.alter.apply import ConfigAlterer
from kafkatui.alter.errors import PartialFailureError
from kafkatui.alter.plan import ChangePlan, label
from kafkatui.alter.reassign import ids_text
from kafkatui.alter.throttle import audit_records, clear_plan
from kafkatui.kafka.settings import ConnectionSettings


def send(settings: ConnectionSettings, plan: ChangePlan, validate_only: bool, action: str = "",
         cluster_id: str | None = None, command_id: str = "") -> list[str]:
    """Send throttle config changes; audit them (as `action`) unless validating. Returns the errors, one per resource."""
    alterer = ConfigAlterer(settings)
    try:
        results = alterer.send(plan, validate_only=validate_only)
    finally:
        alterer.close()
    if not validate_only:
        audit.append(audit_records(action, results, cluster_id, command_id))
    return [f"{label(r.kind, r.name)}: {r.error}" for r in results if not r.ok]


def remove(settings: ConnectionSettings, topics: Sequence[str], brokers: Iterable[int], cluster_id: str | None,
           command_id: str) -> str:
    """Remove every throttle from `topics` and `brokers`; the line to show, or PartialFailureError."""
    named = sorted(set(brokers))
    problems = send(settings, clear_plan(topics, named), False, "throttle-clear", cluster_id, command_id)
    if problems:
        raise PartialFailureError("removing the throttle failed (remove it with --clear-throttle): "
                                  + "; ".join(problems))
    return f"throttle removed from {', '.join(topics)} and brokers {ids_text(named)}"
