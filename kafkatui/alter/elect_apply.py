"""Run leader elections (ElectLeaders through `kafkatui.kafka.writes`) and verify them by re-describing.

Errors are kept as the broker sends them (``PREFERRED_LEADER_NOT_AVAILABLE: ...``), secrets scrubbed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkatui.alter import audit, journal
from kafkatui.alter.config_write import changed_meanwhile, reading
from kafkatui.alter.elect import PreferredPlan, UncleanPlan
from kafkatui.kafka.errors import UsageError
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.writes import AdminUser
from kafkatui.model.snapshot import ClusterSnapshot

Key = tuple[str, int]
VERIFY_SECONDS = 5.0
"""How long re-describing may wait for the new leaders to show."""
NOT_NEEDED = "ELECTION_NOT_NEEDED"
"""The broker's answer when the partition is already led by its preferred replica (Kafka's tool counts it a success)."""


def wait_for_leaders(
    expected: Mapping[Key, int | None], read: Callable[[], ClusterSnapshot], seconds: float = VERIFY_SECONDS
) -> tuple[ClusterSnapshot, dict[Key, int]]:
    """Re-describe until every partition has its expected leader (None: any leader), or `seconds` pass.

    Returns the last snapshot and every partition's leader in it (-1: none, or the partition is gone).
    """
    deadline = time.monotonic() + seconds
    while True:
        snap = read()
        leaders = {key: leader_of(snap, key) for key in expected}
        done = all(leaders[k] == want if want is not None else leaders[k] >= 0 for k, want in expected.items())
        if done or time.monotonic() >= deadline:
            return snap, leaders
        time.sleep(0.2)


def leader_of(snap: ClusterSnapshot, key: Key) -> int:
    """The leader of a partition in `snap` (-1: none, or no such partition)."""
    info = snap.topics.get(key[0])
    for p in info.partitions if info else ():
        if p.partition == key[1]:
            return p.leader
    return -1


@dataclass(frozen=True, slots=True)
class ElectionOutcome:
    """What an election did: per partition the error (None: elected and verified) and the leader re-described."""

    errors: dict[Key, str | None]
    leaders: dict[Key, int]
    after: ClusterSnapshot | None  # the last snapshot re-described (None: nothing was re-described)
    audit_error: str | None = None  # why the audit log could not be written (None: it was)

    @property
    def failed(self) -> list[Key]:
        return [k for k, e in self.errors.items() if e is not None]


def _finish(intent: journal.Intent, records: list[dict[str, Any]]) -> str | None:
    try:
        intent.finish(records)
    except UsageError as exc:  # the election happened: say so, and that the trail is missing
        return f"{exc} (the election was sent: its outcome is not recorded; the next kafkatui run reports it)"
    return None


def _leaders_moved(plan: PreferredPlan, now: ClusterSnapshot) -> list[str]:
    return [
        f"{m.name} leader {m.leader} in the preview, {leader_of(now, (m.topic, m.partition))} now"
        for m in plan.moves
        if leader_of(now, (m.topic, m.partition)) != m.leader
    ]


def run_preferred(
    settings: ConnectionSettings, plan: PreferredPlan, cluster_id: str | None, read: Callable[[], ClusterSnapshot]
) -> ElectionOutcome:
    """ElectLeaders PREFERRED for the plan's moves, verified by re-describing, one audit record per partition.

    The cluster is read first: when a planned partition's leader moved since the plan, nothing is sent
    (ChangedMeanwhileError); else the intent (leaders as read) is written before the request.
    A partition its preferred replica already leads when the request arrives (ELECTION_NOT_NEEDED)
    counts as done once verified, as kafka-leader-election.sh counts it.
    """
    now = read()
    moved = _leaders_moved(plan, now)
    if moved:
        raise changed_meanwhile(moved)
    intent = journal.begin(
        "elect-preferred",
        cluster_id,
        [
            journal.partition_change(m.topic, m.partition, {"leader": m.leader}, {"leader": m.preferred})
            for m in plan.moves
        ],
    )
    with journal.running(intent):
        journal.die_at("before-send")
        elector = AdminUser(settings)
        try:
            results = elector.elect(False, [(m.topic, m.partition) for m in plan.moves])
        finally:
            elector.close()
        journal.die_at("after-send")
        for key, error in results.items():
            if error is not None and error.startswith(NOT_NEEDED):
                results[key] = None  # moved meanwhile: verified below like the others
        expected = {(m.topic, m.partition): m.preferred for m in plan.moves if results[(m.topic, m.partition)] is None}
        after, leaders = wait_for_leaders(expected, reading(read))
        records, errors, now_leaders = [], {}, {}
        for m in plan.moves:
            key = (m.topic, m.partition)
            error = results[key]
            led = leaders.get(key, -1) if error is None else leader_of(after, key)
            if error is None and led != m.preferred:
                error = f"not verified: re-described leader {led}, expected {m.preferred}"
            errors[key], now_leaders[key] = error, led
            records.append(
                audit.partition_record(
                    "elect-preferred",
                    cluster_id,
                    intent.command_id,
                    m.topic,
                    m.partition,
                    {"leader": m.leader},
                    {"leader": led},
                    error,
                )
            )
        return ElectionOutcome(errors, now_leaders, after, _finish(intent, records))


def run_unclean(
    settings: ConnectionSettings, plan: UncleanPlan, cluster_id: str | None, read: Callable[[], ClusterSnapshot]
) -> ElectionOutcome:
    """ElectLeaders UNCLEAN for the plan's partition, verified (any leader), audited with the candidate and lag.

    The cluster is read first: a partition that has a leader again is not elected (ChangedMeanwhileError).
    """
    key = (plan.topic, plan.partition)
    now = read()
    if leader_of(now, key) >= 0:
        raise changed_meanwhile(
            [f"{plan.name} has a leader again (broker {leader_of(now, key)}): no unclean election needed"],
            "since the confirmation",
        )
    lag = {str(c.broker): {"offset_lag": c.offset_lag, "size": c.size} for c in plan.candidates}
    before = {"leader": -1, "isr": list(plan.last_isr)}
    intent = journal.begin(
        "elect-unclean",
        cluster_id,
        [journal.partition_change(plan.topic, plan.partition, before, {"leader": None})],
        extra={"candidate": plan.likely.broker},
    )
    with journal.running(intent):
        journal.die_at("before-send")
        elector = AdminUser(settings)
        try:
            error = elector.elect(True, [key])[key]
        finally:
            elector.close()
        journal.die_at("after-send")
        after, leaders = wait_for_leaders({key: None}, reading(read)) if error is None else (None, {})
        led = leaders.get(key, -1)
        if error is None and led < 0:
            error = "not verified: the partition still has no leader"
        record = audit.partition_record(
            "elect-unclean",
            cluster_id,
            intent.command_id,
            plan.topic,
            plan.partition,
            before,
            {"leader": led},
            error,
            extra={"candidate": plan.likely.broker, "lag": lag},
        )
        return ElectionOutcome({key: error}, {key: led}, after, _finish(intent, [record]))
