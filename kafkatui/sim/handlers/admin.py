"""Admin APIs: leader elections, log dirs, reassignments, ELR, and the forwarding they share.

The simulated cluster is a KRaft cluster: a broker forwards CreateTopics, DeleteTopics,
CreatePartitions, ElectLeaders and the reassignment APIs to the active controller, so every
broker accepts them and none answers NOT_CONTROLLER (41). A broker that cannot reach the
controller (isolated, or no controller elected) holds the request and answers
REQUEST_TIMED_OUT when the forwarding times out, as Kafka's ForwardingManager does.
DescribeLogDirs and DescribeTopicPartitions are answered by the broker itself.

Validation order and error messages follow Kafka's ControllerApis, ReplicationControlManager
and DescribeTopicPartitionsRequestHandler (Kafka 3.x/4.x). The topic APIs (CreateTopics,
DeleteTopics, CreatePartitions) live in :mod:`kafkatui.sim.handlers.topics` and use the
forwarding and name checks defined here.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from typing import Any

from kafka.protocol.admin.cluster import DescribeLogDirsRequest, DescribeLogDirsResponse
from kafka.protocol.admin.topics import (
    AlterPartitionReassignmentsRequest,
    AlterPartitionReassignmentsResponse,
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsResponse,
    ElectLeadersRequest,
    ElectLeadersResponse,
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsResponse,
)

from kafkatui.sim import errors as E
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.handlers.logdirs_wire import encode_answer
from kafkatui.sim.protocol import RequestContext, api
from kafkatui.sim.state import BrokerState, Partition

FORWARD_TIMEOUT_MS = 30_000
"""How long a broker waits for the controller before answering REQUEST_TIMED_OUT."""

POLL_SECONDS = 0.02

LOG_DIR_TOTAL_BYTES = 1 << 40
"""Capacity the simulator reports for every broker's single log dir (1 TiB)."""

MAX_PARTITIONS_PER_DESCRIBE = 2000
"""Kafka's ``max.request.partition.size.limit`` default (DescribeTopicPartitions)."""

MAX_TOPIC_NAME = 249
_LEGAL_TOPIC_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")

MSG_TIMED_OUT = "The request timed out."

PartitionKey = tuple[str, int]
Failure = tuple[int, str]


# --------------------------------------------------------------------------- shared helpers
def topic_name_error(name: str) -> str | None:
    """Kafka's ``Topic.validate`` message for an illegal topic name, else None."""
    if not name:
        return "Topic name is illegal, it can't be empty"
    if name in (".", ".."):
        return 'Topic name cannot be "." or ".."'
    if len(name) > MAX_TOPIC_NAME:
        return f"Topic name is illegal, it can't be longer than {MAX_TOPIC_NAME} characters, Topic name: {name}"
    if not _LEGAL_TOPIC_CHARS.match(name):
        return (
            f'Topic name "{name}" is illegal, it contains a character other than '
            "ASCII alphanumerics, '.', '_' and '-'"
        )
    return None


def controller_reachable(ctx: RequestContext) -> bool:
    """Whether the receiving broker can forward a request to the active controller."""
    return ctx.cluster.controller_id != -1 and ctx.broker.state != BrokerState.ISOLATED


async def forward_to_controller(ctx: RequestContext, timeout_ms: int | None) -> Failure | None:
    """Wait until the controller is reachable; the error to answer if it never was.

    Kafka brokers retry forwarding until the request's timeout (capped at the broker's own
    ``request.timeout.ms``), then answer REQUEST_TIMED_OUT.
    """
    if controller_reachable(ctx):
        return None
    wait_ms = FORWARD_TIMEOUT_MS if not timeout_ms or timeout_ms <= 0 else min(timeout_ms, FORWARD_TIMEOUT_MS)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_ms / 1000.0
    while loop.time() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        if controller_reachable(ctx):
            return None
    return E.REQUEST_TIMED_OUT, MSG_TIMED_OUT


def _lookup(cluster: SimCluster, topic: str, index: int) -> Partition | None:
    t = cluster.topics.get(topic)
    if t is None or not 0 <= index < len(t.partitions):
        return None
    return t.partitions[index]


def _group(keys: Iterable[PartitionKey]) -> dict[str, list[int]]:
    """Partition keys grouped by topic, in first-seen topic order."""
    grouped: dict[str, list[int]] = {}
    for topic, index in keys:
        grouped.setdefault(topic, []).append(index)
    return grouped


# --------------------------------------------------------------------------- ElectLeaders (43)
EL = ElectLeadersResponse
ELTopic = EL.ReplicaElectionResult
ELPartition = ELTopic.PartitionResult


def _election_results(version: int, top: int, results: dict[PartitionKey, Failure]) -> Any:
    grouped: dict[str, list[Any]] = {}
    for (topic, index), (code, message) in results.items():
        grouped.setdefault(topic, []).append(
            ELPartition(partition_id=index, error_code=code, error_message=message or None)
        )
    return EL(
        version=version,
        throttle_time_ms=0,
        error_code=top,
        replica_election_results=[ELTopic(topic=t, partition_result=parts) for t, parts in grouped.items()],
    )


@api(ElectLeadersRequest, ElectLeadersResponse)
async def handle_elect_leaders(ctx: RequestContext, req: Any) -> Any:
    """ElectLeaders: PREFERRED (0) or UNCLEAN (1); no topic_partitions means every partition."""
    election_type = int(req.election_type) if ctx.version >= 1 else 0
    targets: list[PartitionKey] | None = None
    if req.topic_partitions is not None:
        targets = list(dict.fromkeys((t.topic, int(p)) for t in req.topic_partitions for p in t.partitions))
    failure = await forward_to_controller(ctx, req.timeout_ms)
    if failure is None and election_type not in (0, 1):
        failure = E.INVALID_REQUEST, f"Unknown election type {election_type}"
    if failure is not None:
        # an error for the whole request: top-level code (v1+) and every requested partition
        return _election_results(ctx.version, failure[0], {k: failure for k in targets or ()})
    results = ctx.cluster.elect_leaders(election_type, targets)
    return _election_results(ctx.version, E.NONE, dict(results))


# --------------------------------------------------------------------------- DescribeLogDirs (35)


@api(DescribeLogDirsRequest, DescribeLogDirsResponse)
async def handle_describe_log_dirs(ctx: RequestContext, req: Any) -> Any:
    """DescribeLogDirs: the receiving broker's log dir and the replicas it hosts (size, lag)."""
    cluster = ctx.cluster
    broker = ctx.broker
    hosted = cluster.hosted(broker.id)
    if req.topics is None:
        keys = sorted(hosted)
    else:
        wanted = {(t.topic, int(p)) for t in req.topics for p in t.partitions}
        keys = sorted(wanted & hosted)
    # an answer is cached until a leader, an ISR or any replica's log end moves
    logs, used = _log_walk(cluster, broker.id, hosted)
    fingerprint = (cluster.metadata_version, logs, hash(tuple(keys)))
    cached = _LOG_DIRS_CACHE.get((id(cluster), broker.id, ctx.version))
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    rows: list[tuple[str, list[tuple[int, int, int]]]] = []
    for name, indexes in _group(keys).items():
        parts: list[tuple[int, int, int]] = []
        for index in indexes:
            p = _lookup(cluster, name, index)
            if p is None:
                continue
            leo = p.leo.get(broker.id, 0)
            lag = 0 if p.leader == broker.id else max(0, p.log.end_offset - leo)
            parts.append((index, p.log.size_below(leo), lag))
        if parts:
            rows.append((name, parts))
    usable = max(0, LOG_DIR_TOTAL_BYTES - used)
    # written in one pass (sim/handlers/logdirs_wire.py): kafka-python's bytes, without an object per replica
    body = encode_answer(ctx.version, broker.log_dir, rows, LOG_DIR_TOTAL_BYTES, usable)
    _LOG_DIRS_CACHE[(id(cluster), broker.id, ctx.version)] = (fingerprint, body)
    return body


_LOG_DIRS_CACHE: dict[tuple[int, int, int], tuple[tuple[int, int, int], bytes]] = {}


def _log_walk(cluster: SimCluster, broker_id: int, hosted: set[tuple[str, int]]) -> tuple[int, int]:
    """One pass over a broker's replicas: the sum of their log ends and their leaders' log ends (it moves
    whenever a size or lag does: the answer's cache key), and the bytes they use."""
    total = used = 0
    topics = cluster.topics
    for topic, index in hosted:
        t = topics.get(topic)
        if t is None or not 0 <= index < len(t.partitions):
            continue
        p = t.partitions[index]
        leo = p.leo.get(broker_id, 0)
        log = p.log
        total += leo + log.end_offset
        used += log.size_below(leo)
    return total, used


# --------------------------------------------------------------------------- ListPartitionReassignments (46)
LR = ListPartitionReassignmentsResponse
LRTopic = LR.OngoingTopicReassignment
LRPartition = LRTopic.OngoingPartitionReassignment


@api(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse)
async def handle_list_partition_reassignments(ctx: RequestContext, req: Any) -> Any:
    """ListPartitionReassignments: ongoing reassignments, all or for the named partitions."""
    cluster = ctx.cluster
    failure = await forward_to_controller(ctx, req.timeout_ms)
    if failure is not None:
        return LR(version=ctx.version, throttle_time_ms=0, error_code=failure[0], error_message=failure[1], topics=[])
    ongoing: list[Partition] = []
    if req.topics is None:
        ongoing = cluster.reassignments()
    else:
        for t in req.topics:
            for index in dict.fromkeys(t.partition_indexes):
                p = _lookup(cluster, t.name, int(index))
                if p is not None and (p.adding or p.removing):
                    ongoing.append(p)
    grouped: dict[str, list[Any]] = {}
    for p in ongoing:
        grouped.setdefault(p.topic, []).append(
            LRPartition(
                partition_index=p.index,
                replicas=list(p.replicas),
                adding_replicas=list(p.adding),
                removing_replicas=list(p.removing),
            )
        )
    topics = [LRTopic(name=name, partitions=parts) for name, parts in grouped.items()]
    return LR(version=ctx.version, throttle_time_ms=0, error_code=E.NONE, error_message=None, topics=topics)


# --------------------------------------------------------------------------- AlterPartitionReassignments (45)
AR = AlterPartitionReassignmentsResponse
ARTopic = AR.ReassignableTopicResponse
ARPartition = ARTopic.ReassignablePartitionResponse


def _reassign(
    cluster: SimCluster, topic: str, index: int, replicas: list[int] | None, allow_rf_change: bool
) -> Failure:
    if replicas is not None and not allow_rf_change:
        p = _lookup(cluster, topic, index)
        if p is not None:
            current = len(p.replicas) - len(p.adding)
            if len(replicas) != current:
                return (
                    E.INVALID_REPLICATION_FACTOR,
                    f"The replication factor is changed from {current} to {len(replicas)}",
                )
    return cluster.reassign(topic, index, replicas)


@api(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse)
async def handle_alter_partition_reassignments(ctx: RequestContext, req: Any) -> Any:
    """AlterPartitionReassignments: start (replicas) or cancel (replicas None) per partition."""
    cluster = ctx.cluster
    allow_rf_change = bool(req.allow_replication_factor_change) if ctx.version >= 1 else True
    failure = await forward_to_controller(ctx, req.timeout_ms)
    responses: list[Any] = []
    for t in req.topics:
        parts: list[Any] = []
        for rp in t.partitions:
            replicas = None if rp.replicas is None else [int(r) for r in rp.replicas]
            code, message = failure or _reassign(cluster, t.name, int(rp.partition_index), replicas, allow_rf_change)
            parts.append(
                ARPartition(partition_index=rp.partition_index, error_code=code, error_message=message or None)
            )
        responses.append(ARTopic(name=t.name, partitions=parts))
    return AR(
        version=ctx.version,
        throttle_time_ms=0,
        allow_replication_factor_change=allow_rf_change,
        error_code=E.NONE,
        error_message=None,
        responses=responses,
    )


# --------------------------------------------------------------------------- DescribeTopicPartitions (75)
DTP = DescribeTopicPartitionsResponse
DTPTopic = DTP.DescribeTopicPartitionsResponseTopic
DTPPartition = DTPTopic.DescribeTopicPartitionsResponsePartition


def _dtp_partition(cluster: SimCluster, p: Partition) -> Any:
    return DTPPartition(
        error_code=E.LEADER_NOT_AVAILABLE if p.leader == -1 else E.NONE,
        partition_index=p.index,
        leader_id=p.leader,
        leader_epoch=p.leader_epoch,
        replica_nodes=list(p.replicas),
        isr_nodes=list(p.isr),
        eligible_leader_replicas=list(p.elr),
        last_known_elr=list(p.last_known_elr),
        offline_replicas=cluster.offline_replicas(p),
    )


def _dtp_missing(name: str, code: int) -> Any:
    return DTPTopic(error_code=code, name=name, topic_id=None, is_internal=False, partitions=[])


@api(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse)
async def handle_describe_topic_partitions(ctx: RequestContext, req: Any) -> Any:
    """DescribeTopicPartitions (KIP-966): partitions with ELR, paged by a cursor.

    Topics are served in name order; at most ``response_partition_limit`` partitions (capped at
    Kafka's 2000) per response, and ``next_cursor`` names where the next page starts. An empty
    topic list means every topic (unknown names are then impossible, so none are reported).
    """
    cluster = ctx.cluster
    requested = [t.name for t in req.topics]
    fetch_all = not requested
    cursor = req.cursor
    if cursor is not None and not fetch_all and cursor.topic_name not in requested:
        # "DescribeTopicPartitionsRequest topic list should contain the cursor topic": a
        # request-level InvalidRequestException, which Kafka reports on every requested topic
        return DTP(
            version=ctx.version,
            throttle_time_ms=0,
            topics=[_dtp_missing(name, E.INVALID_REQUEST) for name in requested],
            next_cursor=None,
        )
    names = sorted(cluster.topics) if fetch_all else sorted(set(requested))
    start_name = cursor.topic_name if cursor is not None else ""
    names = [n for n in names if n >= start_name]
    remaining = max(1, min(MAX_PARTITIONS_PER_DESCRIBE, int(req.response_partition_limit)))
    topics: list[Any] = []
    next_cursor: Any = None
    for name in names:
        if remaining <= 0:
            next_cursor = DTP.Cursor(topic_name=name, partition_index=0)
            break
        topic = cluster.topics.get(name)
        if topic is None:
            if not fetch_all:
                code = E.INVALID_TOPIC_EXCEPTION if topic_name_error(name) else E.UNKNOWN_TOPIC_OR_PARTITION
                topics.append(_dtp_missing(name, code))
            continue
        first = max(0, cursor.partition_index) if cursor is not None and name == cursor.topic_name else 0
        upper = min(len(topic.partitions), first + remaining)
        parts = [_dtp_partition(cluster, topic.partitions[i]) for i in range(first, upper)]
        topics.append(
            DTPTopic(
                error_code=E.NONE,
                name=name,
                topic_id=topic.topic_id,
                is_internal=topic.internal,
                partitions=parts,
            )
        )
        if upper < len(topic.partitions):
            next_cursor = DTP.Cursor(topic_name=name, partition_index=upper)
            break
        remaining -= len(parts)
    return DTP(version=ctx.version, throttle_time_ms=0, topics=topics, next_cursor=next_cursor)
