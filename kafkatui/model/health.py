"""Replication health of every partition, topic and broker, computed once from a snapshot.

`assess(snapshot)` classifies each partition into one `Health` class, worst first:

OFFLINE
    No leader: metadata reports leader -1, or (when the snapshot lists brokers) a leader that is not
    among the listed brokers.
UNDER_MIN_ISR
    A leader exists and ``len(isr) < minISR``: acks=all produces fail now (NOT_ENOUGH_REPLICAS).
AT_MIN_ISR
    ``len(isr) == minISR``: one more ISR loss stops acks=all writes. This follows Kafka's own
    AtMinIsrPartitionCount metric to the letter, so it *includes* partitions whose minISR equals
    their RF with a full ISR, RF 1 / minISR 1 among them: for those, every healthy partition is
    "at minISR" (it is true: any one broker loss stops their writes). The remedy there is a config
    change, not a broker, so the audit reports them (`rf-one`, `min-isr-equals-rf`) and the
    `at-min-isr` finding lists only partitions that actually lost an in-sync replica.
UNDER_REPLICATED
    ISR smaller than the replica list, above minISR.
NON_PREFERRED_LEADER
    Fully in sync, led by a broker other than the first replica.
HEALTHY
    Everything else.

The configured minISR is the topic's ``min.insync.replicas`` as `ClusterSnapshot.topic_config` reports
it (topic override, dynamic broker, dynamic default, static, Kafka default, or ASSUMED_DEFAULT when
configs could not be read); an unparsable value counts as Kafka's default 1 with source
ASSUMED_DEFAULT. The classes, headroom and tolerances use the *effective* minISR the brokers enforce
(`kafkatui.model.rules`): ``min(minISR, RF)`` on 3.7+ brokers, the configured value before 3.7 or
when the version is unknown (`ClusterSnapshot.kafka`). The class rule itself is the table
`kafkatui.model.rules.CLASS_RULES`. Headroom = ``len(isr) - effective minISR``; an offline partition
has no writable ISR, so its headroom is ``-effective minISR``.

Durability, per topic (computed on the topic's weakest partition, ``min_rf``):

- ``write_tolerance`` = ``min_rf - effective minISR`` broker failures while acks=all writes continue;
  when it would be negative (minISR > RF on a broker that does not cap it: before 3.7) it is clamped
  to 0 and ``writes_blocked`` is set: no acks=all write can ever succeed.
- ``loss_tolerance``: broker failures an acknowledged acks=all write survives. An acknowledged write
  sits on every replica that was in the ISR when it was acknowledged, at least
  ``min(RF, minISR)`` of them. With unclean election off only ISR members lead, so the write
  survives ``min(RF, minISR) - 1`` failures; beyond that the partition goes offline and the data
  is lost only if those brokers' disks are. With unclean election on Kafka elects an out-of-sync
  replica as soon as every ISR member is unavailable and truncates, so the *current* ISR bounds it
  too: ``min(min(RF, minISR), smallest ISR of the topic) - 1`` (an offline partition counts as ISR
  0), and exceeding it loses data even when the brokers come back.

Memory: one byte per partition (its class) plus the snapshot the report references; the detailed
`PartitionHealth` view is built on demand.

The computation itself, state by state, then topic by topic, then broker by broker, is
`kafkatui.model.health_passes`; this module holds the types, the report and `assess`, which runs the passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum

from kafkatui.model import rules
from kafkatui.model.snapshot import (
    ASSUMED_DEFAULT,
    KAFKA_DEFAULTS,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
    Partitions,
    StateTable,
    TopicInfo,
    columns,
)

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})


class Health(IntEnum):
    """A partition's replication health class, worst first (compare with <: smaller is worse)."""

    OFFLINE = 0
    UNDER_MIN_ISR = 1
    AT_MIN_ISR = 2
    UNDER_REPLICATED = 3
    NON_PREFERRED_LEADER = 4
    HEALTHY = 5

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def symbol(self) -> str:
        """A text symbol distinct per class, so meaning never rests on colour alone."""
        return _SYMBOLS[self]


_LABELS = {
    Health.OFFLINE: "offline",
    Health.UNDER_MIN_ISR: "under minISR",
    Health.AT_MIN_ISR: "at minISR",
    Health.UNDER_REPLICATED: "under-replicated",
    Health.NON_PREFERRED_LEADER: "non-preferred leader",
    Health.HEALTHY: "healthy",
}
_SYMBOLS = {
    Health.OFFLINE: "✖",
    Health.UNDER_MIN_ISR: "▼",
    Health.AT_MIN_ISR: "●",
    Health.UNDER_REPLICATED: "◐",
    Health.NON_PREFERRED_LEADER: "↺",
    Health.HEALTHY: "✓",
}
_ALL = tuple(Health)
assert tuple(h.name for h in _ALL) == rules.CLASS_NAMES, "Health follows the class table's order"


def is_internal(topic: TopicInfo) -> bool:
    """Kafka's internal topics: flagged by metadata, or named like them."""
    return topic.internal or topic.name in INTERNAL_TOPICS


def effective_min_isr(snapshot: ClusterSnapshot, topic: str) -> tuple[int, str]:
    """The topic's configured min.insync.replicas in effect (topic, broker or default) and its source.

    What a partition's leader enforces may be lower: see `partition_min_isr`."""
    return _min_isr(snapshot.topic_config(topic, "min.insync.replicas"))


def partition_min_isr(snapshot: ClusterSnapshot, topic: str, replicas: int) -> int:
    """The min ISR a partition of `topic` with `replicas` replicas is held to by its leader (the
    3.7+ cap applied when the brokers are known to cap it)."""
    return rules.effective_min_isr(effective_min_isr(snapshot, topic)[0], replicas, snapshot.kafka.capped)


def effective_unclean(snapshot: ClusterSnapshot, topic: str) -> tuple[bool, str]:
    """Whether unclean leader election is enabled for the topic, and the source of that value."""
    return _unclean(snapshot.topic_config(topic, "unclean.leader.election.enable"))


def _min_isr(cv: ConfigValue) -> tuple[int, str]:
    try:
        value = int(cv.value) if cv.value is not None else None
    except ValueError:
        value = None
    if value is None or value < 1:
        return int(KAFKA_DEFAULTS["min.insync.replicas"]), ASSUMED_DEFAULT
    return value, cv.source


def _unclean(cv: ConfigValue) -> tuple[bool, str]:
    if cv.value is None:
        return False, ASSUMED_DEFAULT
    return cv.value.strip().lower() == "true", cv.source


@dataclass(frozen=True, slots=True)
class OutOfSyncReplica:
    """A replica missing from its partition's ISR, with its lag when log dirs are known."""

    broker: int
    up: bool  # listed in metadata and not refusing connections
    byte_lag: int | None  # leader's log size - this replica's, None when unknown
    offset_lag: int | None  # as DescribeLogDirs reports it, None when unknown


@dataclass(frozen=True, slots=True)
class PartitionHealth:
    """The detailed view of one partition (built on demand, not stored)."""

    topic: str
    partition: int
    health: Health
    leader: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    min_isr: int  # configured
    min_isr_source: str
    headroom: int  # ISR size - effective min ISR (offline: -effective min ISR)
    out_of_sync: tuple[OutOfSyncReplica, ...]
    effective_min_isr: int = -1  # what the leader enforces (`kafkatui.model.rules`); -1: not computed

    @property
    def name(self) -> str:
        """`topic-N`, as Kafka's tools print it."""
        return f"{self.topic}-{self.partition}"

    @property
    def preferred_leader(self) -> int:
        return self.replicas[0] if self.replicas else -1

    @property
    def non_preferred(self) -> bool:
        return self.leader >= 0 and self.leader != self.preferred_leader


@dataclass(frozen=True, slots=True)
class TopicHealth:
    """One topic's verdict: worst class, counts per class, config and durability."""

    name: str
    internal: bool
    partitions: int
    worst: Health
    counts: tuple[int, ...]  # indexed by Health
    rf: int  # largest replica list
    min_rf: int  # smallest replica list (the weakest partition)
    min_isr: int  # configured (min.insync.replicas in effect for the topic)
    min_isr_source: str
    min_headroom: int  # smallest ISR size - effective minISR over the partitions (offline: -effective)
    smallest_isr: int  # smallest ISR over the partitions (offline: 0)
    unclean: bool
    unclean_source: str
    loss_tolerance: int  # broker failures survived without losing acknowledged writes
    write_tolerance: int  # broker failures survived while acks=all writes continue (clamped >= 0)
    writes_blocked: bool  # minISR > RF on brokers before 3.7: no acks=all write can succeed
    under_replicated_total: int  # Kafka's URP: led partitions with ISR < replicas, any class
    non_preferred_total: int  # led partitions whose leader is not the preferred one, any class
    effective_min_isr: int = -1  # min ISR the leaders enforce on the weakest partition (rules)

    def count(self, health: Health) -> int:
        return self.counts[health]

    @property
    def affected(self) -> int:
        """Partitions in any class but HEALTHY."""
        return self.partitions - self.counts[Health.HEALTHY]


@dataclass(frozen=True, slots=True)
class BrokerHealth:
    """One broker id: listed in metadata or only named by replica lists, and what it carries."""

    id: int
    up: bool  # listed in metadata
    host: str | None
    port: int | None
    rack: str | None
    controller: bool
    hosted: int  # replicas it holds
    led: int
    preferred: int  # partitions whose preferred leader it is
    preferred_led: int  # ... and which it leads
    out_of_isr: int  # replicas it holds that are not in their ISR
    hosted_online: int  # replicas it holds in partitions with a leader
    out_of_isr_online: int
    missing_from_all_isrs: bool  # hosts >= 1 led partition and is in none of their ISRs
    missing_from_most_isrs: bool  # missing from more than half (but not all) of them
    restart_safe: bool  # taking it down keeps every partition at or above minISR and online (restart_rule)
    restart_under_min_isr: int  # partitions a restart would put or keep under minISR
    restart_offline: int  # partitions a restart would take offline
    restart_topics: int  # topics those partitions belong to
    refused: bool = False  # listed, but its port refused connections: down, not yet fenced
    unresponsive: bool = False  # accepts connections but does not answer: frozen, not crashed

    @property
    def serving(self) -> bool:
        """Listed and taking connections: neither absent nor refusing."""
        return self.up and not self.refused

    @property
    def absent(self) -> bool:
        return not self.up


@dataclass(frozen=True, slots=True)
class ClusterCounts:
    """Cluster-wide totals. The per-class counts are exclusive (each partition in its worst class)."""

    brokers_up: int  # listed and not refusing connections
    brokers_total: int  # listed + absent-but-referenced
    brokers_absent: tuple[int, ...]
    controller_id: int
    topics: int
    partitions: int
    offline: int
    under_min_isr: int
    at_min_isr: int
    under_replicated: int
    non_preferred_leader: int
    healthy: int
    under_replicated_total: int  # Kafka's UnderReplicatedPartitions: led and ISR < replicas, any class
    non_preferred_total: int
    brokers_refused: tuple[int, ...] = ()  # listed, but refusing connections: down, not yet fenced
    leader_refused: int = 0  # led partitions whose leader refuses connections: writes fail until it is moved

    @property
    def brokers_down(self) -> tuple[int, ...]:
        """Absent from metadata or refusing connections."""
        return tuple(sorted((*self.brokers_absent, *self.brokers_refused)))

    def count(self, health: Health) -> int:
        return (
            self.offline,
            self.under_min_isr,
            self.at_min_isr,
            self.under_replicated,
            self.non_preferred_leader,
            self.healthy,
        )[health]

    @property
    def worst(self) -> Health:
        for h in _ALL:
            if self.count(h):
                return h
        return Health.HEALTHY


def topic_sort_key(th: TopicHealth) -> tuple[int, int, int, str]:
    """Worst class, then most partitions in that class, then most affected partitions, then name."""
    in_worst = th.counts[th.worst] if th.worst != Health.HEALTHY else 0
    return (int(th.worst), -in_worst, -th.affected, th.name)


def sort_topics_worst_first(topics: Iterable[TopicHealth]) -> list[TopicHealth]:
    return sorted(topics, key=topic_sort_key)


def broker_sort_key(bh: BrokerHealth) -> tuple[int, int, int, int]:
    """Absent or refusing connections first, then missing from all ISRs, then most out-of-ISR replicas, then id."""
    return (int(bh.serving), int(not bh.missing_from_all_isrs), -bh.out_of_isr, bh.id)


class HealthReport:
    """Everything `assess` computed: per-topic and per-broker verdicts, cluster counts, and the
    class of every partition (one byte each) with on-demand detail."""

    __slots__ = ("snapshot", "topics", "brokers", "counts", "live", "_classes", "_cols", "_pindex", "_where")

    def __init__(
        self,
        snapshot: ClusterSnapshot,
        topics: dict[str, TopicHealth],
        brokers: dict[int, BrokerHealth],
        counts: ClusterCounts,
        live: frozenset[int],
        classes: dict[str, bytearray],
        cols: dict[str, Partitions] | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.topics = topics
        self.brokers = brokers
        self.counts = counts
        self.live = live
        self._classes = classes
        self._cols = cols or {}
        self._pindex: dict[str, dict[int, int]] = {}
        self._where: dict[int, tuple[Callable[[tuple[int, ...]], object], frozenset[int]]] = {}

    def _ids(self, topic: str) -> Sequence[int]:
        cols = self._cols.get(topic)
        if cols is not None:
            return cols.ids
        return [p.partition for p in self.snapshot.topics[topic].partitions]

    def _index(self, topic: str, partition: int) -> int:
        ids = self._ids(topic)
        if 0 <= partition < len(ids) and ids[partition] == partition:
            return partition
        idx = self._pindex.get(topic)
        if idx is None:
            idx = self._pindex[topic] = {pid: i for i, pid in enumerate(ids)}
        return idx[partition]

    def class_codes(self, topic: str) -> memoryview:
        """The class (a `Health` value) of each partition of `topic`, in snapshot order; read-only."""
        return memoryview(self._classes[topic]).toreadonly()

    def replica_lists(self, topic: str) -> Iterator[tuple[int, tuple[int, ...]]]:
        """(partition id, replicas) of every partition of `topic`, in snapshot order (no views built)."""
        cols = self._cols.get(topic)
        if cols is None:
            for p in self.snapshot.topics[topic].partitions:
                yield p.partition, p.replicas
            return
        states = cols.table.states
        for pid, sid in zip(cols.ids, cols.states, strict=True):
            yield pid, states[sid][1]

    def replica_lists_where(
        self, topic: str, test: Callable[[tuple[int, ...]], object]
    ) -> Iterator[tuple[int, tuple[int, ...]]]:
        """(partition id, replicas) of the partitions of `topic` whose replicas pass `test`, a pure
        function of a replica list: the report asks it once per distinct state (for the same `test`
        object across topics), so a topic without a match costs one set operation."""
        cols = self._cols.get(topic)
        if cols is None:
            yield from ((pid, reps) for pid, reps in self.replica_lists(topic) if test(reps))
            return
        states = cols.table.states
        memo = self._where.get(id(test))
        if memo is None or memo[0] is not test:
            used: set[int] = set()
            for c in self._cols.values():
                used.update(c.states)
            memo = self._where[id(test)] = (test, frozenset(sid for sid in used if test(states[sid][1])))
        hits = memo[1].intersection(cols.states)
        if hits:
            for pid, sid in zip(cols.ids, cols.states, strict=True):
                if sid in hits:
                    yield pid, states[sid][1]

    def health(self, topic: str, partition: int) -> Health:
        """The class of one partition (KeyError when unknown)."""
        return _ALL[self._classes[topic][self._index(topic, partition)]]

    def partition(self, topic: str, partition: int) -> PartitionHealth:
        """The detailed view of one partition (KeyError when unknown)."""
        i = self._index(topic, partition)
        return self._detail(topic, self.snapshot.topics[topic].partitions[i], self._classes[topic][i])

    def partitions(
        self, topic: str | None = None, classes: Iterable[Health] | None = None
    ) -> Iterator[PartitionHealth]:
        """Detailed views, topic by topic in name order, optionally of some classes only."""
        wanted = None if classes is None else frozenset(int(c) for c in classes)
        names = [topic] if topic is not None else sorted(self._classes)
        for name in names:
            cls = self._classes[name]
            if wanted is not None and not any(cls.count(c) for c in wanted):
                continue
            parts = self.snapshot.topics[name].partitions
            for i, c in enumerate(cls):
                if wanted is None or c in wanted:
                    yield self._detail(name, parts[i], c)

    def partition_infos(self, topic: str, health: Health) -> Iterator[PartitionInfo]:
        """The raw partitions of one topic in one class (cheap: no detail built)."""
        cls = self._classes[topic]
        want = int(health)
        if want not in cls:
            return
        parts = self.snapshot.topics[topic].partitions
        for i, c in enumerate(cls):
            if c == want:
                yield parts[i]

    def topics_worst_first(self) -> list[TopicHealth]:
        return sort_topics_worst_first(self.topics.values())

    def brokers_worst_first(self) -> list[BrokerHealth]:
        return sorted(self.brokers.values(), key=broker_sort_key)

    def out_of_sync(self, p: PartitionInfo) -> tuple[OutOfSyncReplica, ...]:
        """Replicas of `p` not in its ISR, with byte and offset lag from the log dirs when known."""
        isr = p.isr
        missing = [r for r in p.replicas if r not in isr]
        if not missing:
            return ()
        logs = self.snapshot.log_dirs
        leader_log = logs.get((p.topic, p.partition, p.leader)) if logs and p.leader >= 0 else None
        out = []
        refused = self.snapshot.refused
        for r in missing:
            rl = logs.get((p.topic, p.partition, r)) if logs else None
            byte_lag = max(0, leader_log.size - rl.size) if rl is not None and leader_log is not None else None
            up = r in self.live and r not in refused
            out.append(OutOfSyncReplica(r, up, byte_lag, rl.offset_lag if rl is not None else None))
        return tuple(out)

    def _detail(self, topic: str, p: PartitionInfo, c: int) -> PartitionHealth:
        th = self.topics[topic]
        h = _ALL[c]
        eff = rules.effective_min_isr(th.min_isr, len(p.replicas), self.snapshot.kafka.capped)
        headroom = -eff if h == Health.OFFLINE else len(p.isr) - eff
        return PartitionHealth(
            topic,
            p.partition,
            h,
            p.leader,
            p.replicas,
            p.isr,
            th.min_isr,
            th.min_isr_source,
            headroom,
            self.out_of_sync(p),
            eff,
        )


def _columns(snapshot: ClusterSnapshot, live: frozenset[int]) -> tuple[dict[str, Partitions], StateTable]:
    """Every topic's partitions as columns of one state table, in name order: the source's own table
    when every topic already uses it (read only: the source may be adding to it for its next snapshot),
    else a new one."""
    topics = snapshot.topics
    names = sorted(topics)
    tables = {
        id(t.partitions.table): t.partitions.table for t in topics.values() if isinstance(t.partitions, Partitions)
    }
    if len(tables) == 1 and all(isinstance(t.partitions, Partitions) for t in topics.values()):
        (table,) = tables.values()
        return {n: topics[n].partitions for n in names}, table  # type: ignore[misc]
    table = StateTable()
    return {n: columns(n, topics[n].partitions, table, live) for n in names}, table


def assess(snapshot: ClusterSnapshot) -> HealthReport:
    """Classify every partition and summarise topics, brokers and the cluster.

    Partitions are judged per distinct (leader, replicas, ISR) state and per topic through arrays of
    state ids, in three passes (`kafkatui.model.health_passes`): each state's facts once, with the
    per-broker counts from each state's multiplicity; each topic's class codes from a table of every
    state's class under the topic's min ISR; then each broker.
    """
    from kafkatui.model import health_passes as passes  # the passes build this module's types

    listed = {b.id: b for b in snapshot.brokers}
    live = frozenset(listed)
    cols, table = _columns(snapshot, live)
    facts = passes.state_pass(snapshot, cols, table.states, live)
    per_topic = passes.topic_pass(snapshot, cols, facts)
    brokers = passes.broker_pass(snapshot, listed, facts, per_topic)
    counts = passes.cluster_counts(snapshot, live, facts, per_topic)
    return HealthReport(snapshot, per_topic.topics, brokers, counts, live, per_topic.classes, cols)
