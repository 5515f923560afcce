"""The simulated cluster: brokers, topics and Kafka's replication semantics under a virtual clock.

Everything here runs on one thread (the simulator's event loop); the network server, the
scenario runner and the control API call into it from there. It has no I/O of its own.

:class:`SimCluster` is the top of a stack of layers, one concern a module (see
:mod:`kafkatui.sim.clusterstate`); this module owns the brokers' faults, topics, configs and
simulated time, and keeps the public API the server, scenarios and tests use.
"""

from __future__ import annotations

from kafkatui.sim import errors as E
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.clusterstate import (
    DEFAULT_REPLICATION_RATE,
    INTERNAL_TOPICS,
    STEP_MS,
    SYNTHETIC_MERGE_LIMIT,
    TOPIC_NAME,
    AckWaiter,
    Load,
    PartitionKey,
)
from kafkatui.sim.configs import OP_SET
from kafkatui.sim.events import EventKind
from kafkatui.sim.load import LoadGen
from kafkatui.sim.state import Broker, BrokerState, Partition, Topic

__all__ = [
    "DEFAULT_REPLICATION_RATE",
    "INTERNAL_TOPICS",
    "STEP_MS",
    "SYNTHETIC_MERGE_LIMIT",
    "TOPIC_NAME",
    "AckWaiter",
    "Load",
    "PartitionKey",
    "SimCluster",
]


class SimCluster(LoadGen):
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
        kafka_version: str | None = None,
    ) -> None:
        """`kafka_version`: the release line ("3.6", "4.1", ...) the simulator answers and behaves as
        (`kafkatui.sim.kafkaversion`); None: its newest ranges, a 4.x broker."""
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        super().__init__(
            clock=clock,
            host=host,
            cluster_id=cluster_id,
            replication_rate=replication_rate,
            elr=elr,
            idle_followers_shrink=idle_followers_shrink,
            seed=seed,
            kafka_version=kafka_version,
        )
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
            self.configs.incremental_alter(
                ("broker", ""), [("min.insync.replicas", OP_SET, own.get("min.insync.replicas", "1"))], False
            )
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
                E.INVALID_PARTITIONS,
                f"Topic currently has {current} partitions, which is higher than the requested {total}.",
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

    # ------------------------------------------------------------------ configs
    def alter_configs(
        self, resource: tuple[str, str], ops: list[tuple[str, int, str | None]], validate_only: bool
    ) -> None:
        """IncrementalAlterConfigs on a topic or broker resource."""
        if resource[0] == "topic":
            self.topic(resource[1])
        self.configs.incremental_alter(resource, ops, validate_only)
        if not validate_only:
            self._config_changed(resource, {k: v for k, _, v in ops})

    def alter_configs_legacy(
        self, resource: tuple[str, str], entries: dict[str, str | None], validate_only: bool
    ) -> None:
        """Legacy AlterConfigs: replaces the resource's whole override set, as Kafka does."""
        if resource[0] == "topic":
            self.topic(resource[1])
        self.configs.alter_legacy(resource, entries, validate_only)
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

    # ------------------------------------------------------------------ time
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
