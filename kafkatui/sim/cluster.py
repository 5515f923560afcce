"""The simulated cluster: brokers, topics and Kafka's replication semantics under a virtual clock.

Everything here runs on one thread (the simulator's event loop); the network server, the
scenario runner and the control API call into it from there. It has no I/O of its own.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from kafkatui.sim import errors as E
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.configs import OP_SET, ConfigStore
from kafkatui.sim.events import EventKind, EventLog, SimEvent
from kafkatui.sim.state import SYNTHETIC_RECORD_BYTES, Broker, BrokerState, Partition, Topic

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


class SimCluster:
    """A Kafka cluster's replication state machine (KRaft-style controller, combined mode)."""

    def __init__(
        self,
        brokers: int = 3,
        *,
        racks: list[str] | None = None,
        clock: VirtualClock | None = None,
        host: str = "127.0.0.1",
        cluster_id: str | None = None,
        static_configs: dict[str, str] | None = None,
        replication_rate: float = DEFAULT_REPLICATION_RATE,
        elr: bool = False,
        controller_configs: dict[str, str] | None = None,
        idle_followers_shrink: bool = False,
        seed: int | None = None,
    ) -> None:
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        self.clock = clock or VirtualClock()
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
        static = dict(static_configs or {})
        for i in range(1, brokers + 1):
            rack = racks[(i - 1) % len(racks)] if racks else None
            self.add_broker(i, rack=rack, static=static)
        if elr:
            # Enabling ELR (KIP-966; Kafka 4.1 does on a new cluster) makes the controller write a
            # cluster-level min.insync.replicas from its own static config: that dynamic default then
            # overrides every broker's server.properties value. `controller_configs` is a dedicated
            # controller's server.properties (default: the brokers', as in combined mode).
            own = static if controller_configs is None else controller_configs
            self.configs.incremental_alter(("broker", ""), [("min.insync.replicas", OP_SET, own.get("min.insync.replicas", "1"))],
                                           False)
        self._elect_controller()

    # ------------------------------------------------------------------ brokers
    def add_broker(self, broker_id: int, *, rack: str | None = None, static: dict[str, str] | None = None) -> Broker:
        """Register a broker (its port is set when a listener binds)."""
        if broker_id in self.brokers:
            raise E.SimError(E.INVALID_REQUEST, f"broker {broker_id} exists")
        props = dict(static or {})
        if rack:
            props["broker.rack"] = rack
        broker = Broker(id=broker_id, host=self.host, port=0, rack=rack, last_heartbeat_ms=self._now)
        broker.log_dir = f"/var/lib/kafka/data-{broker_id}"
        self.brokers[broker_id] = broker
        self.configs.add_broker(broker_id, props)
        self._hosted[broker_id] = set()
        self._bump()
        return broker

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

    def _broker(self, broker_id: int) -> Broker:
        try:
            return self.brokers[broker_id]
        except KeyError:
            raise E.SimError(E.INVALID_REQUEST, f"no broker {broker_id}") from None

    def _set_state(self, broker: Broker, state: BrokerState) -> None:
        if broker.state == state:
            return
        old = broker.state
        broker.state = state
        kind = EventKind.BROKER_DOWN if state == BrokerState.DOWN else EventKind.FAULT
        if state == BrokerState.UP:
            kind = EventKind.BROKER_UP
        self._emit(kind, broker=broker.id, detail={"state": state.value, "was": old.value})
        self._activate_broker(broker.id)
        self._bump()
        if broker.id == self.controller_id and not broker.heartbeating(self._now):
            self._elect_controller()  # the quorum moves on at once; clients never see a dead controller
        for listener in list(self._broker_listeners):
            listener(broker)

    def crash(self, broker_id: int) -> None:
        """Kill a broker: its listener goes, the controller fences it after the session timeout."""
        self._set_state(self._broker(broker_id), BrokerState.DOWN)

    def shutdown(self, broker_id: int) -> None:
        """Controlled shutdown: leadership moves away first, then the broker stops."""
        broker = self._broker(broker_id)
        if broker.state == BrokerState.DOWN:
            return
        self._fence(broker, controlled=True)
        self._set_state(broker, BrokerState.DOWN)

    def restart(self, broker_id: int) -> None:
        """Start a stopped broker (or clear a hang/isolation); it rejoins and catches up."""
        broker = self._broker(broker_id)
        broker.paused_until_ms = 0
        self._set_state(broker, BrokerState.UP)

    def restore(self, broker_id: int) -> None:
        """Clear every fault on a broker."""
        broker = self._broker(broker_id)
        if broker.slow_factor != 1.0 or broker.paused(self._now) or broker.response_delay_s:
            self._emit(EventKind.FAULT, broker=broker_id, detail={"restored": True})
        broker.slow_factor = 1.0
        broker.response_delay_s = 0.0
        self.restart(broker_id)
        self._activate_broker(broker_id)

    def hang(self, broker_id: int) -> None:
        """The broker accepts connections but answers nothing and replicates nothing."""
        self._set_state(self._broker(broker_id), BrokerState.HUNG)

    def isolate(self, broker_id: int) -> None:
        """Cut the broker off from the other brokers and the controller; clients still reach it."""
        self._set_state(self._broker(broker_id), BrokerState.ISOLATED)

    def slow(self, broker_id: int, factor: float) -> None:
        """Slow a broker's disk or network: replication to and from it runs at `factor` speed."""
        broker = self._broker(broker_id)
        broker.slow_factor = max(0.0, factor)
        self._emit(EventKind.FAULT, broker=broker_id, detail={"slow": factor})
        self._activate_broker(broker_id)

    def delay_responses(self, broker_id: int, seconds: float) -> None:
        """An overloaded broker: it answers every client request `seconds` late (real time, not simulated)."""
        broker = self._broker(broker_id)
        broker.response_delay_s = max(0.0, seconds)
        self._emit(EventKind.FAULT, broker=broker_id, detail={"response_delay_s": broker.response_delay_s})

    def pause(self, broker_id: int, duration_ms: int) -> None:
        """A stop-the-world pause (long GC): the broker does nothing for `duration_ms`."""
        broker = self._broker(broker_id)
        broker.paused_until_ms = self._now + duration_ms
        self._emit(EventKind.FAULT, broker=broker_id, detail={"pause_ms": duration_ms})
        self._activate_broker(broker_id)

    # ------------------------------------------------------------------ topics
    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int | None = None,
        *,
        assignment: dict[int, list[int]] | None = None,
        configs: dict[str, str] | None = None,
        internal: bool = False,
        validate_only: bool = False,
    ) -> Topic | None:
        """Create a topic as Kafka's controller does (rack-aware spread unless `assignment`)."""
        if not TOPIC_NAME.match(name) or name in (".", ".."):
            raise E.SimError(E.INVALID_TOPIC_EXCEPTION, f"Topic name '{name}' is illegal")
        if name in self.topics:
            raise E.SimError(E.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        if assignment:
            if sorted(assignment) != list(range(len(assignment))):
                raise E.SimError(E.INVALID_REPLICA_ASSIGNMENT, "partitions must be numbered 0..n-1")
            plan = [list(assignment[i]) for i in range(len(assignment))]
            for replicas in plan:
                if len(set(replicas)) != len(replicas) or not replicas:
                    raise E.SimError(E.INVALID_REPLICA_ASSIGNMENT, f"invalid replica list {replicas}")
                unknown = [r for r in replicas if r not in self.brokers]
                if unknown:
                    raise E.SimError(E.INVALID_REPLICA_ASSIGNMENT, f"Unknown broker(s) {unknown}")
        else:
            if partitions < 1:
                raise E.SimError(E.INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
            rf = replication_factor if replication_factor not in (None, -1) else self._default_rf()
            assert rf is not None
            if rf < 1:
                raise E.SimError(E.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.")
            usable = [b for b in self.brokers.values() if not b.fenced]
            if rf > len(usable):
                raise E.SimError(
                    E.INVALID_REPLICATION_FACTOR,
                    f"Unable to replicate the partition {rf} time(s): The target replication factor of {rf} "
                    f"cannot be reached because only {len(usable)} broker(s) are registered.",
                )
            plan = self.assign_replicas(partitions, rf, start=len(self.topics))
        self.configs.add_topic(name, dict(configs or {}), validate_only=True)
        if validate_only:
            return None
        self.configs.add_topic(name, dict(configs or {}))
        topic = Topic(name=name, partitions=[], internal=internal or name in INTERNAL_TOPICS)
        self.topics[name] = topic
        self._add_partitions(topic, plan)
        self._emit(EventKind.TOPIC_CREATED, topic=name, detail={"partitions": len(plan), "rf": len(plan[0])})
        self._bump()
        return topic

    def _default_rf(self) -> int:
        value, _ = self.configs.effective_broker(min(self.brokers), "default.replication.factor")
        return int(value or 1)

    def assign_replicas(self, partitions: int, rf: int, start: int = 0, first_partition: int = 0) -> list[list[int]]:
        """Kafka's rack-aware round-robin spread over the unfenced brokers."""
        ids = sorted(b.id for b in self.brokers.values() if not b.fenced) or sorted(self.brokers)
        racks = {b: self.brokers[b].rack for b in ids}
        if any(racks.values()):
            # interleave brokers by rack (a, b, c, a, b, c ...) as Kafka's rack-aware assignment does
            by_rack: dict[str, list[int]] = {}
            for b in ids:
                by_rack.setdefault(racks[b] or "", []).append(b)
            order: list[int] = []
            lists = [by_rack[k] for k in sorted(by_rack)]
            for i in range(max(len(x) for x in lists)):
                order.extend(x[i] for x in lists if i < len(x))
            ids = order
        n = len(ids)
        plan: list[list[int]] = []
        for p in range(first_partition, first_partition + partitions):
            first = (start + p) % n
            shift = 1 + (p // n) % max(1, n - 1) if n > 1 else 0
            replicas = [ids[first]]
            for j in range(1, rf):
                replicas.append(ids[(first + shift * j) % n] if n > 1 else ids[0])
            if len(set(replicas)) != len(replicas):
                replicas = [ids[(first + j) % n] for j in range(rf)]
            plan.append(replicas)
        return plan

    def _add_partitions(self, topic: Topic, plan: list[list[int]]) -> None:
        base = len(topic.partitions)
        for offset, replicas in enumerate(plan):
            index = base + offset
            live = [r for r in replicas if not self.brokers[r].fenced and self.brokers[r].serving_clients()]
            isr = live or replicas[:1]
            leader = live[0] if live else -1
            p = Partition(
                topic=topic.name,
                index=index,
                replicas=list(replicas),
                isr=list(isr),
                leader=leader,
                leo={r: 0 for r in replicas},
                last_caught_up_ms={r: self._now for r in replicas},
            )
            topic.partitions.append(p)
            for r in replicas:
                self._hosted[r].add((topic.name, index))
            self._active.add((topic.name, index))
            if leader != replicas[0]:
                self._schedule_rebalance()

    def create_partitions(
        self, name: str, total: int, assignment: list[list[int]] | None = None, validate_only: bool = False
    ) -> None:
        """Grow a topic to `total` partitions."""
        topic = self.topic(name)
        current = len(topic.partitions)
        if total <= current:
            raise E.SimError(
                E.INVALID_PARTITIONS, f"Topic currently has {current} partitions, which is higher than the requested {total}."
            )
        rf = len(topic.partitions[0].replicas)
        usable = sum(1 for b in self.brokers.values() if not b.fenced)
        if assignment is None and rf > usable:
            raise E.SimError(
                E.INVALID_REPLICATION_FACTOR,
                f"Unable to replicate the partition {rf} time(s): only {usable} broker(s) are registered.",
            )
        plan = assignment or self.assign_replicas(total - current, rf, start=len(self.topics), first_partition=current)
        if len(plan) != total - current or any(r not in self.brokers for reps in plan for r in reps):
            raise E.SimError(E.INVALID_REPLICA_ASSIGNMENT, "invalid assignment for new partitions")
        if validate_only:
            return
        self._add_partitions(topic, plan)
        self._emit(EventKind.PARTITIONS_CREATED, topic=name, detail={"total": total})
        self._bump()

    def delete_topic(self, name: str) -> None:
        topic = self.topic(name)
        for p in topic.partitions:
            for r in set(p.replicas) | set(p.adding):
                self._hosted[r].discard((name, p.index))
            self._active.discard((name, p.index))
        del self.topics[name]
        self.configs.remove_topic(name)
        self.loads.pop(name, None)
        self._emit(EventKind.TOPIC_DELETED, topic=name)
        self._bump()

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

    # ------------------------------------------------------------------ configs
    def alter_configs(self, resource: tuple[str, str], ops: list[tuple[str, int, str | None]], validate_only: bool) -> None:
        """IncrementalAlterConfigs on a topic or broker resource."""
        if resource[0] == "topic":
            self.topic(resource[1])
        self.configs.incremental_alter(resource, ops, validate_only)  # type: ignore[arg-type]
        if not validate_only:
            self._config_changed(resource, {k: v for k, _, v in ops})

    def alter_configs_legacy(self, resource: tuple[str, str], entries: dict[str, str | None], validate_only: bool) -> None:
        """Legacy AlterConfigs: replaces the resource's whole override set, as Kafka does."""
        if resource[0] == "topic":
            self.topic(resource[1])
        self.configs.alter_legacy(resource, entries, validate_only)  # type: ignore[arg-type]
        if not validate_only:
            self._config_changed(resource, dict(entries))

    def _config_changed(self, resource: tuple[str, str], changes: dict[str, str | None]) -> None:
        self._emit(
            EventKind.CONFIG_CHANGE,
            topic=resource[1] if resource[0] == "topic" else None,
            broker=int(resource[1]) if resource[0] == "broker" and resource[1] else None,
            detail={"resource": f"{resource[0]}:{resource[1]}", "changes": changes},
        )
        # minISR, unclean and lag settings change what every partition should do next
        self._active.update(self._all_keys() if resource[0] == "broker" else self._topic_keys(resource[1]))
        self._bump()

    def _all_keys(self) -> Iterable[PartitionKey]:
        return ((p.topic, p.index) for p in self.partitions())

    def _topic_keys(self, name: str) -> Iterable[PartitionKey]:
        t = self.topics.get(name)
        return ((name, p.index) for p in t.partitions) if t else ()

    # ------------------------------------------------------------------ time
    @property
    def now_ms(self) -> int:
        return self._now

    def tick(self) -> None:
        """Advance the simulation to the clock's current time."""
        self.advance_to(self.clock.now_ms())

    def advance_to(self, target_ms: int) -> None:
        while self._now < target_ms:
            quiet = self.quiet_until(target_ms)
            if quiet > self._now:  # nothing can happen until then: skip the empty steps
                for b in self.brokers.values():
                    if b.heartbeating(quiet):
                        b.last_heartbeat_ms = quiet
                self._now = quiet
                continue
            step_end = min(target_ms, self._now + STEP_MS)
            dt = step_end - self._now
            self._now = step_end
            self._step(dt)

    def quiet_until(self, target_ms: int) -> int:
        """The last step boundary at or before `target_ms` up to which no step would change anything.

        `now_ms` when a step might: a partition still replicating, producer load or acks waiting, a
        broker paused, one the controller has yet to fence or unfence, no live controller. Otherwise
        only the automatic leader rebalance can act, so the stretch ends before it is due.
        """
        now = self._now
        if self._active or self.loads or self._waiters:
            return now
        ctrl = self.brokers.get(self.controller_id)
        if ctrl is None or not ctrl.heartbeating(now):
            return now
        for b in self.brokers.values():
            if b.paused_until_ms or b.heartbeating(now) == b.fenced:
                return now
        limit = target_ms if self._rebalance_due_ms is None else min(target_ms, self._rebalance_due_ms - 1)
        return now + max(0, limit - now) // STEP_MS * STEP_MS

    def run_for(self, ms: int) -> None:
        """Advance a manual clock by `ms` and run the simulation up to it (tests)."""
        self.clock.advance(ms)
        self.tick()

    def _step(self, dt: int) -> None:
        now = self._now
        self._controller_step(now)
        # broker conditions hold for the whole step: work them out once, not per partition
        self._fetching = {b.id: b.replicating(now) and b.slow_factor > 0 for b in self.brokers.values()}
        self._isr_changes = {b.id: b.heartbeating(now) and not b.fenced for b in self.brokers.values()}
        if self.loads:
            self._load_step(dt)
        settled: list[PartitionKey] = []
        for key in list(self._active):
            p = self._lookup(key)
            if p is None:
                settled.append(key)
                continue
            if self._replicate(p, now, dt):
                settled.append(key)
        self._active.difference_update(settled)
        if self._waiters:
            self._resolve_waiters(now)

    def _lookup(self, key: PartitionKey) -> Partition | None:
        t = self.topics.get(key[0])
        if t is None or key[1] >= len(t.partitions):
            return None
        return t.partitions[key[1]]

    # ------------------------------------------------------------------ controller
    def _session_timeout(self, broker_id: int) -> int:
        value, _ = self.configs.effective_broker(broker_id, "broker.session.timeout.ms")
        return int(value or 9000)

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
                    if not b.heartbeating(self._now) and not b.fenced and self._now - b.last_heartbeat_ms > self._session_timeout(b.id):
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

    def _eligible(self, broker_id: int) -> bool:
        b = self.brokers[broker_id]
        return not b.fenced and b.heartbeating(self._now)

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
            self._emit(EventKind.OFFLINE, p.topic, p.index, detail={"was_leader": old, "isr": list(p.isr), "reason": reason})
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

    def _truncate(self, p: Partition, end: int) -> None:
        end = p.log.cut_at(end)
        p.log.truncate(end)
        for r in p.leo:
            if p.leo[r] > end:
                p.leo[r] = end
        p.hw = min(p.hw, end)

    def _remove_from_isr(self, p: Partition, out: list[int], reason: str) -> None:
        before = list(p.isr)
        p.isr = [r for r in p.isr if r not in out]
        p.partition_epoch += 1
        min_isr = self.configs.min_insync_replicas(p.topic)
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
        min_isr = self.configs.min_insync_replicas(p.topic)
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
        out = [r for r in isr if r != leader and now - caught_up.get(r, 0) > lag_max
               and not (idle_ok and leo.get(r, 0) >= leader_end)]
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
        if isr:
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
                if len(p.isr) < self.configs.min_insync_replicas(p.topic):
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
        if acks == -1 and len(p.isr) < self.configs.min_insync_replicas(topic):
            return E.NOT_ENOUGH_REPLICAS, -1
        base = p.log.end_offset
        p.log.append(base, base + record_count - 1, payload, max_timestamp if max_timestamp >= 0 else self._now)
        p.leo[p.leader] = p.log.end_offset
        self._active.add((topic, index))
        if len(p.isr) == 1 and p.isr == [p.leader]:
            p.hw = p.log.end_offset
        if acks == -1 and callback is not None:
            waiter = AckWaiter((topic, index), p.log.end_offset, p.leader_epoch, self._now + timeout_ms, callback)
            if p.hw >= waiter.required_offset:
                p.acked_end = max(p.acked_end, waiter.required_offset)
                callback(E.NONE)
            else:
                self._waiters.append(waiter)
        return E.NONE, base

    def cancel_waiters(self, callback: Callable[[int], None]) -> None:
        for w in self._waiters:
            if w.callback is callback:
                w.done = True
        self._waiters = [w for w in self._waiters if not w.done]

    def next_producer_id(self) -> int:
        self._next_producer_id += 1
        return self._next_producer_id

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
            min_isr = self.configs.min_insync_replicas(t.name) if load.acks == -1 else 0
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
                if len(isr) < min_isr:
                    rejected += n  # acks=all: NOT_ENOUGH_REPLICAS
                    continue
                key = (p.topic, p.index)
                replicas = p.replicas
                # Will this step's replication bring every in-sync follower to the new log end (so
                # HW becomes the end)? Only if the leader can change the ISR and serve fetches and
                # each in-sync follower copies n records within the step.
                commits = isr_changes[leader] and fetching[leader]
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
                alone = len(isr) == 1 and isr[0] == leader
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

    # ------------------------------------------------------------------ admin actions
    def elect_leaders(self, election_type: int, targets: list[PartitionKey] | None) -> dict[PartitionKey, tuple[int, str]]:
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
            return E.PREFERRED_LEADER_NOT_AVAILABLE, f"Failed to elect leader for partition {p.name} under strategy PreferredReplicaPartitionLeaderElectionStrategy"
        self._set_leader(p, pref, reason="preferred")
        return E.NONE, ""

    def _unclean_request(self, p: Partition) -> tuple[int, str]:
        if p.leader != -1:
            return E.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."
        if self._elect(p, reason="unclean_request", unclean_ok=True):
            return E.NONE, ""
        return E.ELIGIBLE_LEADERS_NOT_AVAILABLE, f"Failed to elect leader for partition {p.name} under strategy UncleanLeaderElectionStrategy"

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
        self._emit(EventKind.REASSIGNMENT_STARTED, topic, index, detail={"target": list(target), "adding": adding, "removing": removing})
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

    # ------------------------------------------------------------------ helpers
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

    def summary(self) -> dict[str, int]:
        """Counts an operator looks at first (what the simulator itself believes)."""
        counts = {"partitions": 0, "offline": 0, "under_min_isr": 0, "at_min_isr": 0, "under_replicated": 0}
        for t in self.topics.values():
            min_isr = self.configs.min_insync_replicas(t.name)
            for p in t.partitions:
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
