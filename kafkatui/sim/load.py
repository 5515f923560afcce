"""Simulated producer load: records the simulator makes up at a steady rate.

:class:`LoadGen` is the layer of :class:`~kafkatui.sim.cluster.SimCluster` that appends each
step's records for every topic with a load (``set_load``), on the hot path of a busy cluster.
No I/O, no UI imports.
"""

from __future__ import annotations

from kafkatui.sim.clusterstate import SYNTHETIC_MERGE_LIMIT, Load
from kafkatui.sim.replication import Replication
from kafkatui.sim.state import SYNTHETIC_RECORD_BYTES


class LoadGen(Replication):
    """Simulated producer load: records the simulator makes up at a steady rate."""

    def set_load(self, topic: str, rate: float, acks: int = -1) -> None:
        """Simulated producers writing `rate` records per simulated second to `topic`."""
        self.topic(topic)
        if rate <= 0:
            self.loads.pop(topic, None)
            return
        load = self.loads.get(topic) or Load(topic, rate, acks)
        load.rate, load.acks = rate, acks
        self.loads[topic] = load

    def _load_step(self, dt: int) -> None:
        """Simulated producers append this step's records (hot path: one pass per loaded partition)."""
        now = self._now
        active = self._active
        fetching = self._fetching
        isr_changes = self._isr_changes
        brokers = self.brokers
        # a leader takes produce requests while registered, unfenced, reachable and not paused
        writable = {b.id: not b.fenced and b.serving_clients() and not b.paused(now) for b in brokers.values()}
        # records a follower on each broker copies from a full-speed leader in this step
        copy = {
            b.id: int(self.replication_rate * b.slow_factor * 1.0 * dt / 1000.0) if fetching[b.id] else -1
            for b in brokers.values()
        }
        for load in list(self.loads.values()):
            t = self.topics.get(load.topic)
            if t is None:
                continue
            per_partition = load.rate * dt / 1000.0 / len(t.partitions)
            configured = self.configs.min_insync_replicas(t.name)
            acks_all = load.acks == -1
            caps = self.caps_min_isr
            accepted = rejected = 0
            for p in t.partitions:
                credit = p.load_credit + per_partition
                n = int(credit)
                if n <= 0:
                    p.load_credit = credit
                    continue
                p.load_credit = credit - n
                leader = p.leader
                if not writable.get(leader, False):
                    rejected += n
                    continue
                isr = p.isr
                # the effective min ISR, as ClusterState.effective_min_isr (inlined: the hot path)
                under = len(isr) < (min(configured, len(p.replicas)) if caps else configured)
                if acks_all and under:
                    rejected += n  # acks=all: NOT_ENOUGH_REPLICAS
                    continue
                # 3.7+: under its effective min ISR the leader holds the high watermark (hw_stalled)
                stalled = caps and under
                key = (p.topic, p.index)
                replicas = p.replicas
                # Will this step's replication bring every in-sync follower to the new log end (so
                # HW becomes the end)? Only if the leader can change the ISR and serve fetches and
                # each in-sync follower copies n records within the step.
                commits = isr_changes[leader] and fetching[leader] and not stalled
                if commits:
                    lead_slow = brokers[leader].slow_factor
                    for r in isr:
                        if r == leader:
                            continue
                        if lead_slow >= 1.0:
                            fits = copy[r] >= n
                        else:
                            rate = self.replication_rate * brokers[r].slow_factor * lead_slow * dt / 1000.0
                            fits = fetching[r] and int(rate) >= n
                        if not fits:
                            commits = False
                            break
                # Steady state, done here instead of in _replicate: the partition was settled (every
                # follower had the whole log), all replicas are in sync and all copy these n records
                # within the step, so all reach the log end, the ISR stays and HW is the end.
                steady = commits and key not in active and len(isr) == len(replicas) and not p.adding
                alone = len(isr) == 1 and isr[0] == leader and not stalled
                log = p.log
                lasts = log.lasts
                # Records join the tail batch while it is generated, unfetched (payload None) and
                # below SYNTHETIC_MERGE_LIMIT: one batch per step would cost ~70 bytes each, hundreds
                # of MB per demo hour. Not when that would put uncommitted records in a batch that
                # holds committed ones, unless HW moves to the new end within this step anyway.
                if (
                    lasts
                    and log.payloads[-1] is None
                    and lasts[-1] - log.bases[-1] < SYNTHETIC_MERGE_LIMIT - 1
                    and (commits or alone or log.bases[-1] >= p.hw)
                ):
                    lasts[-1] += n
                    log.times[-1] = now
                    log.size_bytes += n * SYNTHETIC_RECORD_BYTES
                else:
                    log.append(log.end_offset, log.end_offset + n - 1, None, now)
                end = lasts[-1] + 1
                accepted += n
                if steady:
                    leo = p.leo
                    caught_up = p.last_caught_up_ms
                    for r in replicas:
                        leo[r] = end
                        caught_up[r] = now
                    p.hw = end
                    continue
                p.leo[leader] = end
                if alone:
                    p.hw = end
                active.add(key)
            load.accepted += accepted
            load.rejected += rejected
