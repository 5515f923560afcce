"""The simulated cluster's state and the small helpers every part of it uses.

:class:`ClusterState` holds brokers, topics, configs, the event log and the bookkeeping the
replication steps share (which partitions are active, acks waiting, per-step broker conditions).
The behaviour is layered on top of it, one concern a module: :mod:`kafkatui.sim.elections`
(the controller: fencing, leader elections, ISR changes), :mod:`kafkatui.sim.reassignment`,
:mod:`kafkatui.sim.replication` (followers fetching, acks), :mod:`kafkatui.sim.load` (simulated
producers) and :mod:`kafkatui.sim.cluster` (:class:`SimCluster`: brokers' faults, topics,
configs, time). Each layer subclasses the one below, so a layer calls only what lies beneath it.
No I/O, no UI imports.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from kafkatui.sim import errors as E
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.configs import ConfigStore
from kafkatui.sim.events import EventKind, EventLog, SimEvent
from kafkatui.sim.kafkaversion import caps_min_isr, parse_line
from kafkatui.sim.state import Broker, BrokerState, Partition, Topic

STEP_MS = 100
"""Largest slice of simulated time one replication step covers."""

DEFAULT_REPLICATION_RATE = 50_000.0
"""Records per simulated second a healthy follower copies from its leader."""

SYNTHETIC_MERGE_LIMIT = 1000
"""Simulated load joins the log's tail batch until it holds this many records (bounds memory)."""

TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")
INTERNAL_TOPICS = ("__consumer_offsets", "__transaction_state")

PartitionKey = tuple[str, int]


@dataclass(slots=True)
class AckWaiter:
    """An acks=all produce waiting for the high watermark to pass its last offset."""

    key: PartitionKey
    required_offset: int
    leader_epoch: int
    deadline_ms: int
    callback: Callable[[int], None]
    done: bool = False


@dataclass(slots=True)
class Load:
    """Simulated producer load on a topic (records the simulator makes up)."""

    topic: str
    rate: float  # records per simulated second, spread over the partitions
    acks: int = -1
    accepted: int = 0
    rejected: int = 0


class ClusterState:
    """Brokers, topics, configs and events of one simulated cluster, and helpers over them."""

    def __init__(
        self,
        *,
        clock: VirtualClock | None,
        host: str,
        cluster_id: str | None,
        replication_rate: float,
        elr: bool,
        idle_followers_shrink: bool,
        seed: int | None,
        kafka_version: str | None = None,
    ) -> None:
        self.clock = clock or VirtualClock()
        # the Kafka release line the simulator answers as (None: its newest ranges): `kafkaversion`
        self.kafka_line = parse_line(kafka_version)
        self.caps_min_isr = caps_min_isr(self.kafka_line)
        # every cluster its own id (audit history is kept per cluster id); fixed only when asked for
        self.cluster_id = cluster_id or (_cluster_id(seed) if seed is not None else _cluster_id(None))
        self.host = host
        self.replication_rate = replication_rate
        self.elr_enabled = elr
        # False is Kafka: a follower whose log end equals the leader's stays in the ISR however long
        # it is silent. True keeps the simulator's older model (a silent follower leaves after
        # replica.lag.time.max.ms even on an idle partition), which the synthetic replay day relies on.
        self.idle_followers_shrink = idle_followers_shrink
        self.rng = random.Random(0 if seed is None else seed)
        self.events = EventLog()
        self.brokers: dict[int, Broker] = {}
        self.topics: dict[str, Topic] = {}
        self.configs = ConfigStore([])
        self.loads: dict[str, Load] = {}
        self.controller_id = -1
        self.metadata_version = 0
        self.lost_acked_records = 0
        self.lost_records = 0
        self._now = self.clock.now_ms()
        self._hosted: dict[int, set[PartitionKey]] = {}
        self._active: set[PartitionKey] = set()
        self._waiters: list[AckWaiter] = []
        self._broker_listeners: list[Callable[[Broker], None]] = []
        self._next_producer_id = 1000
        self._rebalance_due_ms: int | None = None  # next automatic preferred-leader election
        self._fetching: dict[int, bool] = {}  # per step: broker replicates (up, unfenced, not paused, speed > 0)
        self._isr_changes: dict[int, bool] = {}  # per step: broker can change ISRs (heartbeating, unfenced)

    def on_broker_change(self, listener: Callable[[Broker], None]) -> None:
        """Call `listener` when a broker's process state changes (the server opens/closes listeners)."""
        self._broker_listeners.append(listener)

    def live_brokers(self) -> list[Broker]:
        """Brokers a Metadata response lists: registered and not fenced by the controller.

        A crashed broker stays listed until the controller fences it (broker.session.timeout.ms),
        as in a KRaft cluster.
        """
        return [b for b in self.brokers.values() if not b.fenced]

    def offline_replicas(self, p: Partition) -> list[int]:
        return [r for r in p.replicas if self.brokers[r].fenced or self.brokers[r].state == BrokerState.DOWN]

    def offline_brokers(self) -> frozenset[int]:
        """The brokers whose replicas `offline_replicas` names: fenced or down."""
        return frozenset(b.id for b in self.brokers.values() if b.fenced or b.state == BrokerState.DOWN)

    def _broker(self, broker_id: int) -> Broker:
        try:
            return self.brokers[broker_id]
        except KeyError:
            raise E.SimError(E.INVALID_REQUEST, f"no broker {broker_id}") from None

    def topic(self, name: str) -> Topic:
        try:
            return self.topics[name]
        except KeyError:
            raise E.SimError(E.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist") from None

    def partition(self, topic: str, index: int) -> Partition:
        t = self.topic(topic)
        if not 0 <= index < len(t.partitions):
            raise E.SimError(E.UNKNOWN_TOPIC_OR_PARTITION, f"{topic}-{index} does not exist")
        return t.partitions[index]

    def topic_by_id(self, topic_id: uuid.UUID) -> Topic:
        for t in self.topics.values():
            if t.topic_id == topic_id:
                return t
        raise E.SimError(E.UNKNOWN_TOPIC_ID, f"no topic with id {topic_id}")

    def partitions(self) -> Iterator[Partition]:
        for t in self.topics.values():
            yield from t.partitions

    def _lookup(self, key: PartitionKey) -> Partition | None:
        t = self.topics.get(key[0])
        if t is None or key[1] >= len(t.partitions):
            return None
        return t.partitions[key[1]]

    def _all_keys(self) -> Iterable[PartitionKey]:
        return ((p.topic, p.index) for p in self.partitions())

    def _topic_keys(self, name: str) -> Iterable[PartitionKey]:
        t = self.topics.get(name)
        return ((name, p.index) for p in t.partitions) if t else ()

    @property
    def now_ms(self) -> int:
        return self._now

    def _session_timeout(self, broker_id: int) -> int:
        value, _ = self.configs.effective_broker(broker_id, "broker.session.timeout.ms")
        return int(value or 9000)

    def _rebalance_interval_ms(self) -> int | None:
        """leader.imbalance.check.interval.seconds in ms, or None when auto.leader.rebalance.enable=false."""
        broker = self.controller_id if self.controller_id in self.brokers else min(self.brokers)
        enabled, _ = self.configs.effective_broker(broker, "auto.leader.rebalance.enable")
        if enabled == "false":
            return None
        seconds, _ = self.configs.effective_broker(broker, "leader.imbalance.check.interval.seconds")
        return int(seconds or 300) * 1000

    def _schedule_rebalance(self) -> None:
        """A leader is off its preferred replica: balance later, as KRaft's controller does.

        QuorumController schedules maybeBalancePartitionLeaders leader.imbalance.check.interval.seconds
        after it first sees an imbalance (KRaft does not use leader.imbalance.per.broker.percentage).
        """
        if self._rebalance_due_ms is not None:
            return
        interval = self._rebalance_interval_ms()
        if interval is not None:
            self._rebalance_due_ms = self._now + interval

    def _eligible(self, broker_id: int) -> bool:
        b = self.brokers[broker_id]
        return not b.fenced and b.heartbeating(self._now)

    def _truncate(self, p: Partition, end: int) -> None:
        end = p.log.cut_at(end)
        p.log.truncate(end)
        for r in p.leo:
            if p.leo[r] > end:
                p.leo[r] = end
        p.hw = min(p.hw, end)

    def _activate_broker(self, broker_id: int) -> None:
        """Wake the partitions `broker_id` hosts after its state changed.

        A settled partition is not stepped, so its followers' lastCaughtUpTime stood still; they
        were in fact caught up until now (settled means every in-sync follower fetched the whole
        log). Without this a follower of an idle partition would leave the ISR at the next step
        after a crash or pause instead of replica.lag.time.max.ms later.
        """
        now = self._now
        for key in self._hosted.get(broker_id, ()):
            if key in self._active:
                continue
            p = self._lookup(key)
            if p is not None:
                end = p.log.end_offset
                for r in p.isr:
                    if p.leo.get(r, 0) >= end:
                        p.last_caught_up_ms[r] = now
            self._active.add(key)

    def _emit(
        self,
        kind: EventKind,
        topic: str | None = None,
        partition: int | None = None,
        broker: int | None = None,
        detail: dict[str, object] | None = None,
    ) -> None:
        self.events.emit(SimEvent(self._now, kind, topic, partition, broker, dict(detail or {})))

    def _bump(self) -> None:
        self.metadata_version += 1

    def hosted(self, broker_id: int) -> set[PartitionKey]:
        return set(self._hosted.get(broker_id, ()))

    def effective_min_isr(self, p: Partition) -> int:
        """The min ISR `p`'s leader holds acks=all to: min(min.insync.replicas, RF) when the simulated
        release caps it (3.7+, KAFKA-15583), else min.insync.replicas."""
        value = self.configs.min_insync_replicas(p.topic)
        if self.caps_min_isr and p.replicas:
            return min(value, len(p.replicas))
        return value

    def hw_stalled(self, p: Partition) -> bool:
        """Whether `p`'s leader holds its high watermark: since 3.7 (KAFKA-15583) a partition under
        its effective min ISR does not advance it ("Not increasing HWM because partition is under min
        ISR"), so acks=1 writes stay invisible to consumers and acks=all waiters time out."""
        return self.caps_min_isr and len(p.isr) < self.effective_min_isr(p)

    def summary(self) -> dict[str, int]:
        """Counts an operator looks at first (what the simulator itself believes)."""
        counts = {"partitions": 0, "offline": 0, "under_min_isr": 0, "at_min_isr": 0, "under_replicated": 0}
        for t in self.topics.values():
            for p in t.partitions:
                min_isr = self.effective_min_isr(p)
                counts["partitions"] += 1
                if p.leader == -1:
                    counts["offline"] += 1
                    continue
                if len(p.isr) < min_isr:
                    counts["under_min_isr"] += 1
                elif len(p.isr) == min_isr:
                    counts["at_min_isr"] += 1
                if len(p.isr) < len(p.replicas):
                    counts["under_replicated"] += 1
        return counts


def _cluster_id(seed: int | None) -> str:
    """A Kafka-style cluster id (22 chars of URL-safe base64 of a UUID): from `seed`, or random (None)."""
    import base64

    raw = uuid.uuid4().bytes if seed is None else uuid.UUID(int=random.Random(seed).getrandbits(128)).bytes
    return base64.urlsafe_b64encode(raw).decode()[:22]
