"""Partition reassignment in the simulated cluster (AlterPartitionReassignments).

:class:`Reassignment` is the layer of :class:`~kafkatui.sim.cluster.SimCluster` that starts,
cancels and completes reassignments; the replication step calls ``_complete_reassignment`` once
every adding replica is in sync. No I/O, no UI imports.
"""

from __future__ import annotations

from kafkatui.sim import errors as E
from kafkatui.sim.elections import Elections
from kafkatui.sim.events import EventKind
from kafkatui.sim.state import Partition


class Reassignment(Elections):
    """Partition reassignment in the simulated cluster (AlterPartitionReassignments)."""

    def reassign(self, topic: str, index: int, target: list[int] | None) -> tuple[int, str]:
        """AlterPartitionReassignments for one partition; `None` cancels a running one."""
        p = self._lookup((topic, index))
        if p is None:
            return E.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
        if target is None:
            if not p.adding and not p.removing:
                return E.NO_REASSIGNMENT_IN_PROGRESS, f"No ongoing reassignment for {p.name}"
            for r in p.adding:
                self._hosted[r].discard((topic, index))
                p.leo.pop(r, None)
            p.isr = [r for r in p.isr if r not in p.adding]
            p.replicas = list(p.reassign_from) or [r for r in p.replicas if r not in p.adding]
            p.adding, p.removing, p.reassign_from = [], [], []
            if p.leader not in p.replicas:
                self._elect(p, reason="reassignment_cancelled")
            self._bump()
            return E.NONE, ""
        if not target or len(set(target)) != len(target) or any(r not in self.brokers for r in target):
            return E.INVALID_REPLICA_ASSIGNMENT, f"Invalid target replicas {target}"
        adding = [r for r in target if r not in p.replicas]
        removing = [r for r in p.replicas if r not in target]
        if not p.adding and not p.removing:
            p.reassign_from = list(p.replicas)
        p.adding, p.removing = adding, removing
        p.replicas = list(target) + [r for r in p.replicas if r not in target]
        for r in adding:
            p.leo[r] = 0
            p.last_caught_up_ms[r] = self._now
            self._hosted[r].add((topic, index))
        self._emit(
            EventKind.REASSIGNMENT_STARTED,
            topic,
            index,
            detail={"target": list(target), "adding": adding, "removing": removing},
        )
        if p.leader != p.preferred_leader:
            self._schedule_rebalance()
        self._active.add((topic, index))
        self._bump()
        if not adding:
            self._complete_reassignment(p)
        return E.NONE, ""

    def _complete_reassignment(self, p: Partition) -> None:
        target = [r for r in p.replicas if r not in p.removing]
        for r in p.removing:
            self._hosted[r].discard((p.topic, p.index))
            p.leo.pop(r, None)
        p.replicas = target
        p.isr = [r for r in target if r in p.isr]
        p.adding, p.removing, p.reassign_from = [], [], []
        if p.leader not in target:
            self._elect(p, reason="reassignment")
        self._emit(EventKind.REASSIGNMENT_DONE, p.topic, p.index, detail={"replicas": list(target), "isr": list(p.isr)})
        self._bump()

    def reassignments(self) -> list[Partition]:
        return [p for p in self.partitions() if p.adding or p.removing]
