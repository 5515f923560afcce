"""Apply a config `ChangePlan` the write-ahead way: re-read, compare, intent, send, verify, outcome.

Shared by ``kafkatui alter`` and the dashboard (`kafkatui.tui.write.alter_jobs`): the cluster is read again
just before sending; when what the user saw (`seen`) differs, nothing is sent (`ChangedMeanwhileError`,
exit 23). Otherwise the intent, with the before-values of that read, is on disk before the request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kafkatui.alter import audit, journal
from kafkatui.alter.apply import ConfigAlterer, Verified, verify
from kafkatui.alter.errors import ChangedMeanwhileError
from kafkatui.alter.plan import ChangePlan
from kafkatui.alter.risk import current_value
from kafkatui.kafka.errors import UsageError
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.model.snapshot import ClusterSnapshot


def conflicts(plan: ChangePlan, seen: ClusterSnapshot, now: ClusterSnapshot) -> list[str]:
    """One line per change whose current value (or source) differs between `seen` and `now`."""
    out = []
    for c in plan.changes:
        if c.kind == "topic" and c.name in seen.topics and c.name not in now.topics:
            out.append(f"{c.label} was deleted")
            continue
        was, cur = current_value(seen, c), current_value(now, c)
        if (was.value, was.source) != (cur.value, cur.source):
            out.append(f"{c.label} {c.key}: {was.value} ({was.source}) in the preview, {cur.value} ({cur.source}) now")
    return out


def changed_meanwhile(
    lines: Sequence[str], when: str = "since the preview", snapshot: ClusterSnapshot | None = None
) -> ChangedMeanwhileError:
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    return ChangedMeanwhileError(
        f"the cluster changed {when}: {lines[0]}{more}; nothing changed: look at the new values and start again",
        lines,
        snapshot,
    )


def reading(read: Callable[[], ClusterSnapshot]) -> Callable[[], ClusterSnapshot]:
    """`read`, with the test hook `verify` after each re-describe."""

    def wrapped() -> ClusterSnapshot:
        snap = read()
        journal.die_at("verify")
        return snap

    return wrapped


@dataclass(frozen=True, slots=True)
class Applied:
    """Every change re-described after apply, and why the outcome could not be recorded (None: it was)."""

    verified: tuple[Verified, ...]
    audit_error: str | None = None


def apply_plan(
    settings: ConnectionSettings,
    plan: ChangePlan,
    read: Callable[[], ClusterSnapshot],
    seen: ClusterSnapshot | None,
    extra: Mapping[str, Any] | None = None,
) -> Applied:
    """Re-read, refuse if the plan's values changed since `seen`, write the intent, send, verify, append outcomes.

    Raises UsageError when the intent cannot be written (nothing is sent). When the outcome cannot be
    written, the change stands and `Applied.audit_error` says the outcome is missing.
    """
    now = read()
    if seen is not None:
        diffs = conflicts(plan, seen, now)
        if diffs:
            raise changed_meanwhile(diffs, snapshot=now)
    intent = journal.begin("alter", now.cluster_id, [journal.config_change(c, now) for c in plan.changes], extra=extra)
    with journal.running(intent):
        journal.die_at("before-send")
        alterer = ConfigAlterer(settings)
        try:
            results = alterer.send(plan, validate_only=False)
        finally:
            alterer.close()
        journal.die_at("after-send")
        verified = verify(plan, results, now, reading(read))
        refused = [(r.kind, r.name) for r in results if not r.ok]
        records = audit.make_records(verified, now.cluster_id, intent.command_id, extra=extra, refused=refused)
        try:
            intent.finish(records)
        except UsageError as exc:
            return Applied(
                tuple(verified),
                f"{exc} (the change was sent: its outcome is not recorded; the next kafkatui run reports it)",
            )
    return Applied(tuple(verified))


__all__ = ["Applied", "apply_plan", "changed_meanwhile", "conflicts", "reading"]
