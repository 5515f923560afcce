"""The blocking steps of the guided actions (elections, RF reassignment), run by the TUI's worker threads.

No Textual here. Each step is the headless command's (``kafkatui elect`` / ``kafkatui reassign``)
shared function: `run_preferred`, `run_unclean`, `start_audited`, `progress`, `cancel_running`, so the
dashboard elects, moves, verifies and audits exactly as the command line does.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from kafkatui.alter import throttle_apply
from kafkatui.alter.elect import PreferredPlan, UncleanPlan
from kafkatui.alter.elect_apply import ElectionOutcome, run_preferred, run_unclean
from kafkatui.alter.errors import NotApplicableError, PartialFailureError, ValidationRefusedError
from kafkatui.alter.reassign import PartitionMove, Progress, progress
from kafkatui.alter.reassign_apply import Reassigner, start_audited
from kafkatui.alter.reassign_cancel import Cancelled, cancel_running
from kafkatui.alter.throttle import throttle_plan
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot


def _source(settings: ConnectionSettings) -> KafkaClusterSource:
    return KafkaClusterSource(settings, log_dirs="none", elr=False)


def elect_preferred(settings: ConnectionSettings, plan: PreferredPlan, cluster_id: str | None) -> ElectionOutcome:
    """ElectLeaders PREFERRED for the plan's moves, verified and audited."""
    with _source(settings) as source:
        return run_preferred(settings, plan, cluster_id, source.snapshot)


def elect_unclean(settings: ConnectionSettings, plan: UncleanPlan, cluster_id: str | None) -> ElectionOutcome:
    """ElectLeaders UNCLEAN for the plan's partition, verified and audited."""
    with _source(settings) as source:
        return run_unclean(settings, plan, cluster_id, source.snapshot)


@dataclass(frozen=True, slots=True)
class Started:
    """The moves the controller accepted, and the refusals per partition (the broker's words)."""

    started: tuple[PartitionMove, ...]
    refused: tuple[tuple[PartitionMove, str], ...]
    command_id: str
    throttle_line: str = ""  # what became of the throttle (set, or removed again when nothing started)


def moved_brokers(moves: Sequence[PartitionMove]) -> list[int]:
    """Every broker the moves name (where `--throttle` sets its rates)."""
    return sorted({b for m in moves for b in (*m.old, *m.new)})


def start_reassignment(
    reassigner: Reassigner,
    moves: Sequence[PartitionMove],
    cluster_id: str | None,
    settings: ConnectionSettings | None = None,
    rate: int | None = None,
) -> Started:
    """Refuse when the topics already have a reassignment in flight; else start the moves the write-ahead way
    (with `settings`: re-read first, refused when a partition's replicas changed since the plan).

    With `rate` (bytes per second), as ``kafkatui reassign --throttle``: the throttle is checked by a
    validate-only request, set (audited) before the moves, and removed again when none started.
    """
    running = reassigner.ongoing({m.topic for m in moves})
    if running:
        names = ", ".join(f"{t}-{p}" for t, p in sorted(running))
        raise NotApplicableError(
            f"a reassignment is already in progress for {names}: wait for it or cancel it; nothing changed"
        )
    command_id = str(uuid.uuid4())
    line = ""
    if rate and settings is not None:
        plan = throttle_plan(moves, rate)
        problems = throttle_apply.send(settings, plan, validate_only=True)
        if problems:
            raise ValidationRefusedError(
                f"the brokers refused the throttle in the validate-only request: nothing changed ({problems[0]})"
            )
        with _source(settings) as source:  # the values before, for the throttle's write-ahead intent
            before = source.snapshot()
        problems = throttle_apply.send(settings, plan, False, "throttle", cluster_id, command_id, before)
        if problems:
            raise PartialFailureError("setting the throttle failed, no partition was moved: " + "; ".join(problems))
        line = f"throttle: {rate:,} bytes/s on brokers {', '.join(map(str, moved_brokers(moves)))}"
    if settings is None:
        results = start_audited(reassigner, moves, cluster_id, command_id)
    else:
        with _source(settings) as source:
            results = start_audited(reassigner, moves, cluster_id, command_id, read=source.snapshot)
    started = tuple(m for m in moves if results[(m.topic, m.partition)] is None)
    refused = tuple((m, str(results[(m.topic, m.partition)])) for m in moves if m not in started)
    if line and not started and settings is not None:
        line = remove_throttle(settings, moves, cluster_id, command_id)
    return Started(started, refused, command_id, line)


def remove_throttle(
    settings: ConnectionSettings, moves: Sequence[PartitionMove], cluster_id: str | None, command_id: str
) -> str:
    """Remove the throttle of the moves' topics and brokers (audited): the line to show."""
    topics = list(dict.fromkeys(m.topic for m in moves))
    return throttle_apply.remove(settings, topics, moved_brokers(moves), cluster_id, command_id)


def reassignment_progress(
    reassigner: Reassigner, moves: Sequence[PartitionMove], snapshot: ClusterSnapshot
) -> Progress:
    """How far the moves are in `snapshot` (the dashboard's latest), with the reassignments still listed."""
    return progress(moves, snapshot, reassigner.ongoing({m.topic for m in moves}))


def cancel_reassignment(
    settings: ConnectionSettings, reassigner: Reassigner, topic: str, snapshot: ClusterSnapshot
) -> Cancelled:
    """Cancel the topic's reassignment in flight (back to the replicas before it), audited; its throttle removed."""
    running = reassigner.ongoing([topic])
    if not running:
        raise NotApplicableError(f"no reassignment in progress for {topic}: nothing to cancel")
    with _source(settings) as source:
        return cancel_running(settings, topic, running, snapshot, source.snapshot, reassigner)
