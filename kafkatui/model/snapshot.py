"""One observation of a cluster: what the Kafka source read, before any judgement.

Plain frozen dataclasses with tuples, so a snapshot can be shared between threads. No textual, no
network. A topic's partitions are a `Sequence[PartitionInfo]`: either a tuple of `PartitionInfo`
(tests, the in-process simulator, replay) or `Partitions`, the columnar form a Kafka source builds
(partition ids and one state id per partition, indexing a shared `StateTable` of distinct
(leader, replicas, ISR) states), whose `PartitionInfo` views are built only when read. On a
100,000-partition cluster a few hundred distinct states stand for every partition, so the model
judges each state once and reads topics as arrays (see `kafkatui.model.health`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from kafkatui.model.rules import UNKNOWN, KafkaVersion

# DescribeConfigs sources, by the names Kafka's tools print
DYNAMIC_TOPIC_CONFIG = "DYNAMIC_TOPIC_CONFIG"
DYNAMIC_BROKER_CONFIG = "DYNAMIC_BROKER_CONFIG"
DYNAMIC_DEFAULT_BROKER_CONFIG = "DYNAMIC_DEFAULT_BROKER_CONFIG"
STATIC_BROKER_CONFIG = "STATIC_BROKER_CONFIG"
DEFAULT_CONFIG = "DEFAULT_CONFIG"
ASSUMED_DEFAULT = "ASSUMED_DEFAULT"  # configs could not be read: Kafka's default is assumed

KAFKA_DEFAULTS = {
    "min.insync.replicas": "1",
    "unclean.leader.election.enable": "false",
    "replica.lag.time.max.ms": "30000",
    "default.replication.factor": "1",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
}


@dataclass(frozen=True, slots=True)
class ConfigValue:
    """A config's effective value and where it comes from."""

    value: str | None
    source: str = DEFAULT_CONFIG
    sensitive: bool = False
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class BrokerInfo:
    """A broker the cluster's metadata lists (alive and registered)."""

    id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    """Leader, replicas and ISR of one partition as the metadata reports them."""

    topic: str
    partition: int
    leader: int  # -1: no leader (offline)
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    leader_epoch: int = -1
    elr: tuple[int, ...] | None = None  # eligible leader replicas (KIP-966); None when unknown
    last_known_elr: tuple[int, ...] | None = None
    error_code: int = 0

    @property
    def preferred_leader(self) -> int:
        return self.replicas[0] if self.replicas else -1


State = tuple[int, tuple[int, ...], tuple[int, ...]]
"""A partition's (leader, replicas, ISR)."""


class StateTable:
    """Distinct partition states, numbered in the order first seen (append-only, so an id means the same
    state for as long as the table lives: a source keeps one across its snapshots, and equal state
    arrays of two snapshots mean equal leaders, replicas and ISRs). Replica lists are interned."""

    __slots__ = ("states", "index", "memo", "_lists")

    def __init__(self) -> None:
        self.states: list[State] = []
        self.index: dict[State, int] = {}  # state -> id; read it in hot loops, add through `id_of`
        self.memo: dict[object, dict[bytes, int]] = {}  # a reader's own keys of states (wire bytes) -> id
        self._lists: dict[tuple[int, ...], tuple[int, ...]] = {}

    def __len__(self) -> int:
        return len(self.states)

    def id_of(self, leader: int, replicas: Sequence[int], isr: Sequence[int]) -> int:
        """The id of a state, added when new."""
        key = (leader, tuple(replicas), tuple(isr))
        sid = self.index.get(key)
        if sid is None:
            lists = self._lists
            reps = lists.setdefault(key[1], key[1])
            key = (leader, reps, lists.setdefault(key[2], key[2]))
            sid = self.index[key] = len(self.states)
            self.states.append(key)
        return sid


@dataclass(frozen=True, slots=True)
class PartitionExtra:
    """What a few partitions carry beyond their state: an error, ELR (KIP-966), offline replicas
    DescribeTopicPartitions named besides those on brokers absent from metadata."""

    error_code: int = 0
    leader_epoch: int = -1
    elr: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None
    offline_replicas: tuple[int, ...] = ()


class Partitions(Sequence[PartitionInfo]):
    """A topic's partitions as columns: ids (snapshot order) and state ids into a shared `StateTable`.

    Reads like a tuple of `PartitionInfo`; the views are built, all at once for the topic, on first
    access, or one by one (and kept) through `view`. `live` (the brokers metadata lists) gives each view
    its offline replicas; `elr_known` says the ELR of every partition is known (empty unless `extras`
    names it).
    """

    __slots__ = ("topic", "ids", "states", "table", "live", "elr_known", "extras", "_views", "_some")

    def __init__(
        self,
        topic: str,
        ids: Sequence[int],
        states: array[int],
        table: StateTable,
        live: frozenset[int],
        *,
        elr_known: bool = False,
        extras: dict[int, PartitionExtra] | None = None,
    ) -> None:
        self.topic = topic
        self.ids = ids  # range(n) when the partitions are 0..n-1
        self.states = states
        self.table = table
        self.live = live
        self.elr_known = elr_known
        self.extras = extras or {}
        self._views: tuple[PartitionInfo, ...] | None = None
        self._some: dict[int, PartitionInfo] | None = None  # views built one by one, by index

    def __len__(self) -> int:
        return len(self.states)

    @overload
    def __getitem__(self, i: int) -> PartitionInfo: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[PartitionInfo, ...]: ...
    def __getitem__(self, i: int | slice) -> PartitionInfo | tuple[PartitionInfo, ...]:
        return self.views()[i]

    def __iter__(self) -> Iterator[PartitionInfo]:
        return iter(self.views())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Partitions) and other.table is self.table:
            return (
                self.topic == other.topic
                and self.ids == other.ids
                and self.states == other.states
                and self.live == other.live
                and self.elr_known == other.elr_known
                and self.extras == other.extras
            )
        if isinstance(other, Sequence):
            return self.views() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Partitions({self.topic!r}, {len(self)} partitions)"

    def same_states(self, other: Sequence[PartitionInfo]) -> bool:
        """True when `other` is known, cheaply, to have the same ids, leaders, replicas and ISRs."""
        return (
            isinstance(other, Partitions)
            and other.table is self.table
            and other.ids == self.ids
            and other.states == self.states
        )

    def views(self) -> tuple[PartitionInfo, ...]:
        """Every partition as a `PartitionInfo` (built once; those `view` built are kept)."""
        views = self._views
        if views is None:
            some = self._some
            built = tuple(self._build())
            if some:
                built = tuple(some.get(i, p) for i, p in enumerate(built))
            views = self._views = built
            self._some = None
        return views

    def view(self, i: int) -> PartitionInfo:
        """The partition at index `i`, built alone (and kept) when the topic's views are not: cheap for
        a few partitions of a big cluster, as the findings and a broker's screen read them."""
        if self._views is not None:
            return self._views[i]
        some = self._some
        if some is None:
            some = self._some = {}
        else:
            got = some.get(i)
            if got is not None:
                return got
        some[i] = made = self._view(i)
        return made

    def _view(self, i: int) -> PartitionInfo:
        leader, reps, isr = self.table.states[self.states[i]]
        live = self.live
        offline = () if live.issuperset(reps) else tuple(r for r in reps if r not in live)
        known = () if self.elr_known else None
        x = self.extras.get(i)
        if x is None:
            return PartitionInfo(self.topic, self.ids[i], leader, reps, isr, offline, -1, known, known, 0)
        return self._with_extras(self.ids[i], leader, reps, isr, offline, x, known)

    def _with_extras(
        self,
        pid: int,
        leader: int,
        reps: tuple[int, ...],
        isr: tuple[int, ...],
        offline: tuple[int, ...],
        x: PartitionExtra,
        known: tuple[int, ...] | None,
    ) -> PartitionInfo:
        """A partition whose metadata carried more than leader / replicas / ISR (epoch, ELR, an error)."""
        more = tuple(r for r in x.offline_replicas if r not in offline)
        return PartitionInfo(
            self.topic,
            pid,
            leader,
            reps,
            isr,
            offline + more,
            x.leader_epoch,
            x.elr if x.elr is not None else known,
            x.last_known_elr if x.last_known_elr is not None else known,
            x.error_code,
        )

    def _build(self) -> Iterable[PartitionInfo]:
        topic, live, extras = self.topic, self.live, self.extras
        states = self.table.states
        known = () if self.elr_known else None
        for i, (pid, sid) in enumerate(zip(self.ids, self.states, strict=True)):
            leader, reps, isr = states[sid]
            offline = () if live.issuperset(reps) else tuple(r for r in reps if r not in live)
            x = extras.get(i)
            if x is None:
                yield PartitionInfo(topic, pid, leader, reps, isr, offline, -1, known, known, 0)
            else:
                yield self._with_extras(pid, leader, reps, isr, offline, x, known)


def partition_at(parts: Sequence[PartitionInfo]) -> Callable[[int], PartitionInfo]:
    """`parts[i]` as a function of `i`, without building every view of `Partitions` to read a few."""
    return parts.view if isinstance(parts, Partitions) else parts.__getitem__


def columns(topic: str, parts: Sequence[PartitionInfo], table: StateTable, live: frozenset[int]) -> Partitions:
    """A topic's `parts` as columns in `table` (the same object when they already are); the views stay
    the objects they were built from."""
    if isinstance(parts, Partitions) and parts.table is table:
        return parts
    if isinstance(parts, Partitions):
        old = parts.table.states
        ids_of = table.index
        out = array("i")
        for sid in parts.states:
            key = old[sid]
            new = ids_of.get(key)
            out.append(new if new is not None else table.id_of(*key))
        moved = Partitions(topic, parts.ids, out, table, parts.live, elr_known=parts.elr_known, extras=parts.extras)
        moved._views = parts._views
        return moved
    infos = tuple(parts)
    id_of = table.id_of
    st = array("i", [id_of(p.leader, p.replicas, p.isr) for p in infos])
    ids = [p.partition for p in infos]
    cols = Partitions(topic, range(len(ids)) if ids == list(range(len(ids))) else tuple(ids), st, table, live)
    cols._views = infos
    return cols


@dataclass(frozen=True, slots=True)
class TopicInfo:
    """A topic, its partitions and its effective configs (value + source)."""

    name: str
    partitions: Sequence[PartitionInfo]  # a tuple, or `Partitions` (columns) from a Kafka source
    internal: bool = False
    configs: dict[str, ConfigValue] = field(default_factory=dict)
    error_code: int = 0


@dataclass(frozen=True, slots=True)
class ReplicaLog:
    """Size and lag of one replica's log, from DescribeLogDirs."""

    size: int
    offset_lag: int
    log_dir: str = ""


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """Everything kafkatui knows about a cluster at `taken_at`.

    `partial` is true when some part could not be read (a broker down mid-fetch, DescribeConfigs
    denied, log dirs unavailable); `problems` says what, one line each.
    """

    cluster_id: str | None
    controller_id: int
    brokers: tuple[BrokerInfo, ...]
    topics: dict[str, TopicInfo]
    broker_configs: dict[int, dict[str, ConfigValue]] = field(default_factory=dict)
    log_dirs: dict[tuple[str, int, int], ReplicaLog] | None = None  # (topic, partition, broker)
    taken_at: float = 0.0  # epoch seconds
    fetch_seconds: float = 0.0
    partial: bool = False
    problems: tuple[str, ...] = ()
    bootstrap: str = ""
    refused: frozenset[int] = frozenset()
    """Listed brokers whose port refused a TCP connection during this read: down, not yet fenced."""
    unresponsive: frozenset[int] = frozenset()
    """Brokers whose port accepts TCP connections but that left a request unanswered (listed, not answering)
    or are absent from the metadata (fenced for not answering): frozen (SIGSTOP, a GC pause, a stuck disk),
    not crashed. Their answers were not waited for."""
    kafka: KafkaVersion = UNKNOWN
    """The brokers' Kafka version range and mode (`kafkatui.model.rules`): which min ISR rule applies."""

    @property
    def broker_ids(self) -> frozenset[int]:
        return frozenset(b.id for b in self.brokers)

    def referenced_brokers(self) -> frozenset[int]:
        """Every broker id any replica list names (brokers absent from metadata included)."""
        ids: set[int] = set()
        seen: dict[int, set[int]] = {}  # per state table: the states already read
        for t in self.topics.values():
            parts = t.partitions
            if isinstance(parts, Partitions):
                done = seen.setdefault(id(parts.table), set())
                states = parts.table.states
                for sid in set(parts.states) - done:
                    ids.update(states[sid][1])
                done.update(parts.states)
            else:
                for p in parts:
                    ids.update(p.replicas)
        return frozenset(ids)

    def partitions_where(
        self, test: Callable[[int, tuple[int, ...], tuple[int, ...]], bool]
    ) -> Iterator[PartitionInfo]:
        """The partitions, topic by topic in name order, whose (leader, replicas, ISR) pass `test`.

        Columns are tested once per distinct state, and only topics with a match build their views.
        """
        tested: dict[int, tuple[set[int], set[int]]] = {}  # per state table: (states tested, those passing)
        for name in sorted(self.topics):
            parts = self.topics[name].partitions
            if not isinstance(parts, Partitions):
                yield from (p for p in parts if test(p.leader, p.replicas, p.isr))
                continue
            seen, passing = tested.setdefault(id(parts.table), (set(), set()))
            here = set(parts.states)
            fresh = here - seen
            if fresh:
                states = parts.table.states
                passing.update(sid for sid in fresh if test(*states[sid]))
                seen |= fresh
            ok = here & passing
            if ok:
                at = partition_at(parts)
                yield from (at(i) for i, sid in enumerate(parts.states) if sid in ok)

    def partition_count(self) -> int:
        return sum(len(t.partitions) for t in self.topics.values())

    def broker_config(self, key: str) -> ConfigValue:
        """A broker-level config as the lowest-numbered broker that answered reports it."""
        for bid in sorted(self.broker_configs):
            cv = self.broker_configs[bid].get(key)
            if cv is not None:
                return cv
        return ConfigValue(KAFKA_DEFAULTS.get(key), ASSUMED_DEFAULT)

    def topic_config(self, topic: str, key: str) -> ConfigValue:
        """A topic's effective config, falling back to the broker config, then Kafka's default."""
        t = self.topics.get(topic)
        if t is not None and key in t.configs:
            return t.configs[key]
        cv = self.broker_config(key)
        return cv
