"""What the Kafka clients answered, turned into a snapshot's parts: ELR added to the partitions' columns
(`_add_elr`; the columns themselves: `kafkatui.kafka.metadata_wire`), config entries (`_config_values`), the
outcome of a future, and the broker configs sent early (`_EarlyBrokerConfigs`). Used by
`kafkatui.kafka.source`, which owns the clients, the timing and the problems.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatui.kafka.diagnose import _exc_kafka_error, _kafka_error_reason
from kafkatui.kafka.errors import one_line
from kafkatui.model.snapshot import (
    DEFAULT_CONFIG,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
    STATIC_BROKER_CONFIG,
    BrokerInfo,
    ConfigValue,
    PartitionExtra,
    Partitions,
    ReplicaLog,
    TopicInfo,
)

MIN_PHASE_SECONDS = 0.5
"""Time configs and log dirs get even when the metadata used up the timeout."""

POLL_SECONDS = 0.05

_SOURCES = {
    1: DYNAMIC_TOPIC_CONFIG,
    2: DYNAMIC_BROKER_CONFIG,
    3: DYNAMIC_DEFAULT_BROKER_CONFIG,
    4: STATIC_BROKER_CONFIG,
    5: DEFAULT_CONFIG,
}


Nodes = Sequence[tuple[int, str, int]]
"""(id, host, port) of brokers, as DescribeCluster or a metadata answer names them."""
BrokerConfigSender = Callable[[Nodes, float], Mapping[int, cf.Future[Any]]]
"""Sends the config requests of the brokers among `Nodes` it can, within the seconds given: a future per broker."""


class _EarlyBrokerConfigs:
    """Broker DescribeConfigs sent as soon as DescribeCluster (or a hint) names the brokers, while the metadata of
    every topic is still on its way: a request to, and often a first connection with, each broker
    off the critical path. `run` goes on a pool thread (not DescribeCluster's done-callback: that runs
    on a librdkafka thread); `take` ends it."""

    def __init__(
        self,
        admin: AdminClient,
        deadline: float,
        send: BrokerConfigSender | None = None,
    ) -> None:
        self.admin = admin
        self.send = send
        """Sends the requests of the brokers it can (`kafkatui.kafka.brokerconfigs` through kafka-python);
        the rest go through `admin`."""
        self._deadline = deadline
        self._lock = threading.Lock()
        self._futures: dict[int, cf.Future[Any]] = {}
        self._hosts: dict[int, tuple[str, int]] = {}
        self._taken = threading.Event()
        self._not_admins: set[int] = set()  # brokers whose request `send` sent (not through `admin`)
        self.answered_at: dict[int, float] = {}
        """When each broker's request answered (monotonic seconds)."""

    def run(self, described: cf.Future[Any], hint: Callable[[], Sequence[tuple[int, str, int]]] | None = None) -> None:
        """Send once the brokers are known: from DescribeCluster, or from `hint` ((id, host, port) of the
        brokers another client's Metadata answer named, empty while unknown), whichever comes first. With
        librdkafka 2.10+ DescribeCluster waits for a connection to a learnt broker (the bootstrap
        connection is dropped after the first Metadata): 2-3 round trips after kafka-python's bootstrap
        Metadata named the same brokers."""
        nodes: Sequence[tuple[int, str, int]] = ()
        while not described.done():
            nodes = hint() if hint is not None else ()
            if nodes:
                break
            if self._taken.wait(POLL_SECONDS / 2) or time.monotonic() >= self._deadline:
                return
        if not nodes:
            if described.cancelled() or described.exception() is not None:
                return
            nodes = [(n.id, n.host, n.port) for n in getattr(described.result(), "nodes", None) or ()]
        sent: Mapping[int, cf.Future[Any]] = {}
        hosts = {bid: (host, port) for bid, host, port in nodes}
        if self.send is not None:
            with self._lock:
                if self._taken.is_set():
                    return
                sent = self.send(nodes, max(MIN_PHASE_SECONDS, self._deadline - time.monotonic()))
                # kept at once: a `take` before the loop below got them would have them sent twice (the
                # lab, at load: each broker's request twice on connections of our own)
                self._futures.update(sent)
                self._hosts.update({bid: hosts[bid] for bid in sent if bid in hosts})
                self._not_admins.update(sent)
        # stamped into the dict alone: a callback holding `self` would tie the future, this object and its
        # client in a cycle, and keep librdkafka's threads alive after `close()` until a full collection
        for bid, fut in sent.items():
            fut.add_done_callback(functools.partial(_stamp, self.answered_at, bid))
        for bid, host, port in nodes:
            if bid in sent:
                continue
            with self._lock:
                if self._taken.is_set():
                    return
                res = ConfigResource(ResourceType.BROKER, str(bid))
                timeout = max(MIN_PHASE_SECONDS, self._deadline - time.monotonic())
                fut = self.admin.describe_configs([res], request_timeout=timeout)[res]
                self._futures[bid] = fut
                self._hosts[bid] = (host, port)
            fut.add_done_callback(functools.partial(_stamp, self.answered_at, bid))

    def answered(self, wait: float) -> list[tuple[str, int]]:
        """(host, port) of the brokers whose config request answered, waiting up to `wait` for a first one:
        brokers known to be neither dead nor hung."""
        deadline = time.monotonic() + wait
        while True:
            with self._lock:
                items = sorted(self._futures.items())
                hosts = dict(self._hosts)
            found = [hosts[b] for b, f in items if f.done() and not f.cancelled() and f.exception() is None]
            left = deadline - time.monotonic()
            if found or left <= 0:
                return found
            pending = [f for _, f in items if not f.done()]
            if pending:
                cf.wait(pending, timeout=min(POLL_SECONDS, left), return_when=cf.FIRST_COMPLETED)
            elif self._taken.wait(min(POLL_SECONDS, left)):  # none sent yet: DescribeCluster unanswered
                return []

    def take(self, admin: AdminClient | None) -> dict[int, cf.Future[Any]]:
        """The requests sent so far: through `admin` if it is the client that got the metadata, and those
        sent another way (`send`); none after."""
        with self._lock:
            self._taken.set()
            if admin is self.admin:
                return dict(self._futures)
            return {bid: fut for bid, fut in self._futures.items() if bid in self._not_admins}


def _stamp(answered_at: dict[int, float], bid: int, fut: cf.Future[Any]) -> None:
    """Done-callback of a broker's config request: when it answered, if it did."""
    if not fut.cancelled() and fut.exception() is None:
        answered_at[bid] = time.monotonic()


@dataclass(slots=True)
class _Details:
    brokers: tuple[BrokerInfo, ...]
    topics: dict[str, TopicInfo]
    broker_configs: dict[int, dict[str, ConfigValue]]
    log_dirs: dict[tuple[str, int, int], ReplicaLog] | None
    problems: list[str]
    refused: frozenset[int]
    unresponsive: frozenset[int] = frozenset()


def _kp_send(kadmin: Any, requests: list[Any], node: int | None, timeout: float) -> list[Any]:
    """Send every request at once to broker `node` (None: kafka-python's least loaded) through
    kafka-python's connection manager; their responses in order. Raises what kafka-python raises
    (a timeout, a connection failure). kafka-python's own admin methods neither name the broker nor
    skip building a dict per entry."""
    manager = kadmin._manager
    timeout_ms = max(1, int(timeout * 1000))

    async def send_all() -> list[Any]:
        sent = [manager.send(r, node_id=node, request_timeout_ms=timeout_ms) for r in requests]
        return [await manager.wait_for(f, timeout_ms) for f in sent]

    result: list[Any] = manager.run(send_all)
    return result


def _describe_topic_partitions(
    kadmin: Any, topics: list[str], deadline: float, node: int | None
) -> dict[tuple[str, int], dict[str, Any]]:
    """Every partition of `topics` from DescribeTopicPartitions, following the cursor, asked of broker
    `node` (None: kafka-python's choice). kafka-python's own `describe_topic_partitions` picks a node
    from its broker list, refreshed every 30 s, which can still hold a broker that just died (seen in
    the demo: "ELR of 6 topic(s) under minISR (the broker refused the connection)")."""
    from kafka.protocol.admin import DescribeTopicPartitionsRequest as Request

    out: dict[tuple[str, int], dict[str, Any]] = {}
    cursor = None
    while True:
        request = Request(
            topics=[Request.TopicRequest(name=t) for t in topics], response_partition_limit=2000, cursor=cursor
        )
        (response,) = _kp_send(kadmin, [request], node, deadline - time.monotonic())
        for t in response.topics:
            if t.error_code:
                continue
            for p in t.partitions:
                out[(t.name, int(p.partition_index))] = {
                    "leader_epoch": p.leader_epoch,
                    "eligible_leader_replicas": list(p.eligible_leader_replicas or ()),
                    "last_known_elr": list(p.last_known_elr or ()),
                    "offline_replicas": list(p.offline_replicas or ()),
                }
        if response.next_cursor is None:
            return out
        cursor = Request.Cursor(
            topic_name=response.next_cursor.topic_name, partition_index=response.next_cursor.partition_index
        )
        if time.monotonic() >= deadline:
            raise TimeoutError("DescribeTopicPartitions paging ran out of time")


def _add_elr(parts: Mapping[str, Partitions], elr: Mapping[tuple[str, int], Mapping[str, Any]]) -> None:
    """With an ELR answer every partition's ELR is known: empty, unless DescribeTopicPartitions named it."""
    for each in parts.values():
        each.elr_known = True
    where: dict[str, dict[int, int]] = {}
    for (topic, pid), dtp in elr.items():
        found = parts.get(topic)
        if found is None:
            continue
        cols = found
        if isinstance(cols.ids, range):
            if pid not in cols.ids:
                continue
            i = pid
        else:
            pos = where.setdefault(topic, {p: j for j, p in enumerate(cols.ids)})
            if pid not in pos:
                continue
            i = pos[pid]
        before = cols.extras.get(i)
        cols.extras[i] = PartitionExtra(
            error_code=before.error_code if before is not None else 0,
            leader_epoch=int(dtp.get("leader_epoch", -1)),
            elr=tuple(dtp.get("eligible_leader_replicas") or ()),
            last_known_elr=tuple(dtp.get("last_known_elr") or ()),
            offline_replicas=tuple(dtp.get("offline_replicas") or ()),
        )


def _outcome(fut: cf.Future[Any], budget: float) -> tuple[Any, str | None]:
    """(result, None) or (None, reason) for a confluent-kafka future."""
    if not fut.done():
        return None, f"no answer within {budget:.1f}s"
    exc = fut.exception()
    if exc is None:
        return fut.result(), None
    err = _exc_kafka_error(exc)
    if err is not None:
        return None, _kafka_error_reason(err, budget)
    return None, one_line(f"{type(exc).__name__}: {exc}", 200)


def _config_values(
    entries: Mapping[str, Any], keys: frozenset[str], seen: dict[tuple[Any, ...], ConfigValue] | None = None
) -> dict[str, ConfigValue]:
    """The `keys` among a DescribeConfigs answer; equal values share one ConfigValue (`seen`)."""
    out: dict[str, ConfigValue] = {}
    if seen is None:
        seen = {}
    for name in [n for n in entries if n in keys]:
        e = entries[name]
        key = (name, e.value, e.source, e.is_sensitive, e.is_read_only)
        cv = seen.get(key)
        if cv is None:
            source = getattr(e.source, "value", e.source)
            cv = seen[key] = ConfigValue(
                value=None if e.is_sensitive else e.value,
                source=_SOURCES.get(int(source), "UNKNOWN"),
                sensitive=bool(e.is_sensitive),
                read_only=bool(e.is_read_only),
            )
        out[name] = cv
    return out


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _storage(code: int) -> str:
    return ": KAFKA_STORAGE_ERROR, the disk failed or is offline" if code == 56 else ""
