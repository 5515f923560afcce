"""Replication in the simulated cluster: followers fetching, high watermark, acks=all.

:class:`Replication` is the layer of :class:`~kafkatui.sim.cluster.SimCluster` that moves data:
one replication step per active partition (followers copy from the leader at their speed, join or
leave the ISR, the high watermark moves), produce appends at the leader and the acks=all waiters
they resolve. No I/O, no UI imports.
"""

from __future__ import annotations

from collections.abc import Callable

from kafkatui.sim import errors as E
from kafkatui.sim.clusterstate import AckWaiter
from kafkatui.sim.reassignment import Reassignment
from kafkatui.sim.state import Partition


class Replication(Reassignment):
    """Replication in the simulated cluster: followers fetching, high watermark, acks=all."""

    # ------------------------------------------------------------------ replication
    def _replicate(self, p: Partition, now: int, dt: int) -> bool:
        """One replication step for `p`; returns True when nothing is left to do for it."""
        leader = p.leader
        if leader == -1:
            return True
        brokers = self.brokers
        fetching = self._fetching
        lb = brokers[leader]
        log = p.log
        leader_end = log.end_offset
        leo = p.leo
        caught_up = p.last_caught_up_ms
        isr = p.isr
        leo[leader] = leader_end
        caught_up[leader] = now
        # a follower copies from the leader only while both replicate at a speed above zero
        leader_serves = fetching[leader]
        members = p.replicas  # a reassignment's adding replicas are already listed
        settled = True
        for r in members:
            if r == leader:
                continue
            if leader_serves and fetching[r]:
                f_leo = leo.get(r, 0)
                if f_leo < leader_end:
                    budget = self.replication_rate * brokers[r].slow_factor * min(1.0, lb.slow_factor) * dt / 1000.0
                    step = int(budget) if budget >= 1 else (1 if self.rng.random() < budget else 0)
                    f_leo = min(leader_end, f_leo + step)
                    leo[r] = f_leo
                if f_leo >= leader_end:
                    caught_up[r] = now
                else:
                    settled = False
            elif r in isr:
                settled = False
        if not self._isr_changes[leader]:
            # a leader that cannot reach the controller cannot change the ISR
            return settled and len(isr) <= 1
        lag_max = self.configs.replica_lag_time_max_ms(leader)
        # a follower whose log end equals the leader's is caught up however long ago it fetched
        # (Kafka's Replica.isCaughtUp): a leader never shrinks a stopped follower of an idle
        # partition out of the ISR; only the controller's fencing does
        idle_ok = not self.idle_followers_shrink
        out = [
            r
            for r in isr
            if r != leader and now - caught_up.get(r, 0) > lag_max and not (idle_ok and leo.get(r, 0) >= leader_end)
        ]
        if out:
            self._remove_from_isr(p, out, reason="lag")
        for r in members:
            if r == leader or r in p.isr:
                continue
            if leader_serves and fetching[r]:
                if leo.get(r, 0) >= max(p.hw, leader_end):
                    self._add_to_isr(p, r)
                else:
                    settled = False
        isr = p.isr
        if isr and not self.hw_stalled(p):
            new_hw = min([leo.get(r, 0) for r in isr])
            if new_hw > p.hw:
                # replicas hold whole batches: the high watermark stays on a batch boundary (a
                # generated batch is split there), so a consumer, served whole batches, never reads
                # past it and a clean election, truncating to whole batches, never cuts below it
                if new_hw < leader_end:
                    new_hw = log.cut_at(new_hw)
                if new_hw > p.hw:
                    p.hw = new_hw
        if p.adding and all(r in p.isr for r in p.adding):
            self._complete_reassignment(p)
        if p.adding or p.removing:
            settled = False
        return settled and p.hw >= leader_end

    def _resolve_waiters(self, now: int) -> None:
        remaining: list[AckWaiter] = []
        for w in self._waiters:
            p = self._lookup(w.key)
            if p is None:
                w.callback(E.UNKNOWN_TOPIC_OR_PARTITION)
            elif p.leader_epoch != w.leader_epoch or p.leader == -1:
                w.callback(E.NOT_LEADER_OR_FOLLOWER)
            elif p.hw >= w.required_offset:
                if len(p.isr) < self.effective_min_isr(p):
                    w.callback(E.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
                else:
                    p.acked_end = max(p.acked_end, w.required_offset)
                    w.callback(E.NONE)
            elif now >= w.deadline_ms:
                w.callback(E.REQUEST_TIMED_OUT)
            else:
                remaining.append(w)
                continue
            w.done = True
        self._waiters = remaining

    # ------------------------------------------------------------------ data plane
    def append(
        self,
        broker_id: int,
        topic: str,
        index: int,
        payload: bytes | None,
        record_count: int,
        acks: int,
        timeout_ms: int,
        callback: Callable[[int], None] | None = None,
        max_timestamp: int = -1,
    ) -> tuple[int, int]:
        """Append at the leader. Returns (error_code, base_offset).

        For acks=all and no error the result comes later through `callback` (when the high
        watermark passes the appended records or the timeout expires); the immediate return
        then carries the base offset.
        """
        p = self.partition(topic, index)
        if p.leader != broker_id or self.brokers[broker_id].fenced:
            return E.NOT_LEADER_OR_FOLLOWER, -1
        if acks not in (-1, 0, 1):
            return E.INVALID_REQUIRED_ACKS, -1
        if acks == -1 and len(p.isr) < self.effective_min_isr(p):
            return E.NOT_ENOUGH_REPLICAS, -1
        base = p.log.end_offset
        p.log.append(base, base + record_count - 1, payload, max_timestamp if max_timestamp >= 0 else self._now)
        p.leo[p.leader] = p.log.end_offset
        self._active.add((topic, index))
        if len(p.isr) == 1 and p.isr == [p.leader] and not self.hw_stalled(p):
            p.hw = p.log.end_offset
        if acks == -1 and callback is not None:
            waiter = AckWaiter((topic, index), p.log.end_offset, p.leader_epoch, self._now + timeout_ms, callback)
            if p.hw >= waiter.required_offset:
                p.acked_end = max(p.acked_end, waiter.required_offset)
                callback(E.NONE)
            else:
                self._waiters.append(waiter)
        return E.NONE, base

    def next_producer_id(self) -> int:
        self._next_producer_id += 1
        return self._next_producer_id
