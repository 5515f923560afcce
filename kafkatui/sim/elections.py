"""The simulated controller: fencing, leader elections and the ISR changes it writes.

:class:`Elections` is the layer of :class:`~kafkatui.sim.cluster.SimCluster` that decides who
leads: the controller's per-step heartbeat check, fencing and unfencing, clean and unclean
elections, the automatic preferred-leader rebalance, ISR shrink and expand, and the admin
elections (ElectLeaders, a forced leader move). No I/O, no UI imports.
"""

from __future__ import annotations

from kafkatui.sim import errors as E
from kafkatui.sim.clusterstate import ClusterState, PartitionKey
from kafkatui.sim.events import EventKind
from kafkatui.sim.state import Broker, Partition


class Elections(ClusterState):
    """The simulated controller: fencing, leader elections and the ISR changes it writes."""

    # ------------------------------------------------------------------ controller
    def _controller_step(self, now: int) -> None:
        for b in self.brokers.values():
            if b.paused_until_ms and now >= b.paused_until_ms:
                # the pause is over: wake its partitions, settled ones would never see it rejoin
                b.paused_until_ms = 0
                self._activate_broker(b.id)
            if b.heartbeating(now):
                b.last_heartbeat_ms = now
                if b.fenced and self.controller_id != -1:
                    self._unfence(b)
            elif (
                not b.fenced
                and now - b.last_heartbeat_ms > self._session_timeout(b.id)
                and self.controller_id not in (-1, b.id)
            ):
                self._fence(b)
        ctrl = self.brokers.get(self.controller_id)
        if ctrl is None or not ctrl.heartbeating(now):
            self._elect_controller()
        if self._rebalance_due_ms is not None and now >= self._rebalance_due_ms and self.controller_id != -1:
            self._balance_leaders()

    def _balance_leaders(self) -> None:
        """Automatic preferred leader election where the preferred replica is in the ISR and unfenced."""
        self._rebalance_due_ms = None
        if self._rebalance_interval_ms() is None:
            return
        imbalanced = False
        for p in list(self.partitions()):
            pref = p.preferred_leader
            if p.leader == pref:
                continue
            if pref in p.isr and self._eligible(pref):
                self._set_leader(p, pref, reason="auto_rebalance")
            else:
                imbalanced = True
        if imbalanced:
            self._schedule_rebalance()

    def _elect_controller(self) -> None:
        candidates = sorted(b.id for b in self.brokers.values() if b.heartbeating(self._now))
        new = candidates[0] if candidates else -1
        if new != self.controller_id:
            old = self.controller_id
            self.controller_id = new
            self._emit(EventKind.CONTROLLER_CHANGE, broker=new, detail={"was": old})
            self._bump()
            # a new controller fences whoever it has not heard from
            if new != -1:
                for b in self.brokers.values():
                    if (
                        not b.heartbeating(self._now)
                        and not b.fenced
                        and self._now - b.last_heartbeat_ms > self._session_timeout(b.id)
                    ):
                        self._fence(b)

    def _fence(self, broker: Broker, controlled: bool = False) -> None:
        """The controller stops counting on `broker`: out of the ISRs, leadership moved."""
        if broker.fenced:
            return
        broker.fenced = True
        self._emit(EventKind.BROKER_FENCED, broker=broker.id, detail={"controlled": controlled})
        for key in sorted(self._hosted[broker.id]):
            p = self._lookup(key)
            if p is None:
                continue
            # without ELR the controller keeps the last ISR member (the partition goes offline with
            # it); with ELR (KIP-966, on by default from Kafka 4.1) it leaves the ISR for the ELR
            if broker.id in p.isr and (len(p.isr) > 1 or self.elr_enabled):
                self._remove_from_isr(p, [broker.id], reason="fenced")
            if p.leader == broker.id:
                self._elect(p, reason="controlled_shutdown" if controlled else "leader_fenced")
            self._active.add(key)
        self._bump()

    def _unfence(self, broker: Broker) -> None:
        broker.fenced = False
        self._emit(EventKind.BROKER_UNFENCED, broker=broker.id)
        for key in sorted(self._hosted[broker.id]):
            p = self._lookup(key)
            if p is None:
                continue
            if p.leader == -1:
                self._elect(p, reason="broker_returned")
            self._active.add(key)
        self._bump()

    def _elect(self, p: Partition, reason: str, unclean_ok: bool | None = None) -> bool:
        """Elect a leader for `p` from its live ISR (or ELR, or unclean if allowed)."""
        candidates = [r for r in p.replicas if r in p.isr and self._eligible(r)]
        if not candidates and p.elr:
            candidates = [r for r in p.replicas if r in p.elr and self._eligible(r)]
            if candidates:
                p.isr = [candidates[0]]
                p.elr = [r for r in p.elr if r != candidates[0]]
        if candidates:
            self._set_leader(p, candidates[0], reason)
            return True
        allow_unclean = self.configs.unclean_enabled(p.topic) if unclean_ok is None else unclean_ok
        live = [r for r in p.replicas if self._eligible(r)]
        if allow_unclean and live:
            self._unclean(p, max(live, key=lambda r: p.leo.get(r, 0)))
            return True
        if p.leader != -1:
            old = p.leader
            p.leader = -1
            p.leader_epoch += 1
            p.partition_epoch += 1
            self._emit(
                EventKind.OFFLINE, p.topic, p.index, detail={"was_leader": old, "isr": list(p.isr), "reason": reason}
            )
            self._schedule_rebalance()
        return False

    def _set_leader(self, p: Partition, leader: int, reason: str) -> None:
        old = p.leader
        p.leader = leader
        p.leader_epoch += 1
        p.partition_epoch += 1
        # replicas ahead of the new leader truncate to its log
        end = p.leo.get(leader, 0)
        if p.log.end_offset > end:
            self._truncate(p, end)
        # a new leader epoch starts every in-sync follower's lag clock afresh (Replica.resetReplicaState)
        for r in p.isr:
            p.last_caught_up_ms[r] = self._now
        self._emit(
            EventKind.LEADER_CHANGE,
            p.topic,
            p.index,
            broker=leader,
            detail={"leader": leader, "was": old, "epoch": p.leader_epoch, "isr": list(p.isr), "reason": reason},
        )
        self._active.add((p.topic, p.index))
        self._bump()
        if leader != p.preferred_leader:
            self._schedule_rebalance()

    def _unclean(self, p: Partition, leader: int) -> None:
        end = p.log.cut_at(p.leo.get(leader, 0))
        lost = max(0, p.log.end_offset - end)
        lost_acked = max(0, p.acked_end - end)
        self.lost_records += lost
        self.lost_acked_records += lost_acked
        p.isr = [leader]
        p.elr = []
        old = p.leader
        p.leader = -1
        self._truncate(p, end)
        p.hw = min(p.hw, end)
        p.acked_end = min(p.acked_end, end)
        self._emit(
            EventKind.UNCLEAN_ELECTION,
            p.topic,
            p.index,
            broker=leader,
            detail={"leader": leader, "was": old, "lost_records": lost, "lost_acked_records": lost_acked},
        )
        self._set_leader(p, leader, reason="unclean")

    def _remove_from_isr(self, p: Partition, out: list[int], reason: str) -> None:
        before = list(p.isr)
        p.isr = [r for r in p.isr if r not in out]
        p.partition_epoch += 1
        min_isr = self.effective_min_isr(p)
        if self.elr_enabled and len(p.isr) < min_isr:
            p.elr = sorted(set(p.elr) | {r for r in out if p.leo.get(r, 0) >= p.hw})
            p.last_known_elr = list(p.elr)
        self._emit(
            EventKind.ISR_SHRINK,
            p.topic,
            p.index,
            detail={
                "old_isr": before,
                "new_isr": list(p.isr),
                "out": out,
                "leader": p.leader,
                "hw": p.hw,
                "leo": p.log.end_offset,
                "min_isr": min_isr,
                "reason": reason,
                "lag": {r: p.log.end_offset - p.leo.get(r, 0) for r in out},
                "last_caught_up_ms": {r: p.last_caught_up_ms.get(r, 0) for r in out},
            },
        )
        self._bump()

    def _add_to_isr(self, p: Partition, replica: int) -> None:
        before = list(p.isr)
        p.isr = [r for r in p.replicas if r in p.isr or r == replica]  # replicas include any being added
        p.partition_epoch += 1
        min_isr = self.effective_min_isr(p)
        if len(p.isr) >= min_isr:
            p.elr = []
        else:
            p.elr = [r for r in p.elr if r != replica]
        self._emit(
            EventKind.ISR_EXPAND,
            p.topic,
            p.index,
            detail={"old_isr": before, "new_isr": list(p.isr), "in": [replica], "leader": p.leader, "min_isr": min_isr},
        )
        self._bump()

    # ------------------------------------------------------------------ admin elections
    def elect_leaders(
        self, election_type: int, targets: list[PartitionKey] | None
    ) -> dict[PartitionKey, tuple[int, str]]:
        """ElectLeaders: 0 PREFERRED, 1 UNCLEAN. Returns per partition (error_code, message)."""
        keys = targets if targets is not None else [(p.topic, p.index) for p in self.partitions()]
        results: dict[PartitionKey, tuple[int, str]] = {}
        for key in keys:
            p = self._lookup(key)
            if p is None:
                results[key] = (E.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.")
                continue
            if election_type == 0:
                results[key] = self._preferred(p)
            elif election_type == 1:
                results[key] = self._unclean_request(p)
            else:
                results[key] = (E.INVALID_REQUEST, f"unknown election type {election_type}")
        if targets is None:
            results = {k: v for k, v in results.items() if v[0] != E.ELECTION_NOT_NEEDED}
        return results

    def move_leader(self, topic: str, index: int, leader: int) -> None:
        """Hand leadership of a partition to another live in-sync replica (leadership churn in tests)."""
        p = self.partition(topic, index)
        if leader not in p.isr or not self._eligible(leader):
            raise E.SimError(E.INVALID_REQUEST, f"broker {leader} is not a live in-sync replica of {p.name}")
        if p.leader != leader:
            self._set_leader(p, leader, reason="moved")

    def _preferred(self, p: Partition) -> tuple[int, str]:
        pref = p.preferred_leader
        if p.leader == pref:
            return E.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."
        if pref not in p.isr or not self._eligible(pref):
            return (
                E.PREFERRED_LEADER_NOT_AVAILABLE,
                f"Failed to elect leader for partition {p.name} under strategy "
                "PreferredReplicaPartitionLeaderElectionStrategy",
            )
        self._set_leader(p, pref, reason="preferred")
        return E.NONE, ""

    def _unclean_request(self, p: Partition) -> tuple[int, str]:
        if p.leader != -1:
            return E.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."
        if self._elect(p, reason="unclean_request", unclean_ok=True):
            return E.NONE, ""
        return (
            E.ELIGIBLE_LEADERS_NOT_AVAILABLE,
            f"Failed to elect leader for partition {p.name} under strategy UncleanLeaderElectionStrategy",
        )
