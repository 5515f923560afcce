"""Topic admin APIs: CreateTopics, DeleteTopics and CreatePartitions.

A broker forwards these to the active controller (see :mod:`kafkatui.sim.handlers.admin` for
the forwarding and the helpers the admin handlers share). Validation order and error messages
follow Kafka's ControllerApis and ReplicationControlManager (Kafka 3.x/4.x).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kafka.protocol.admin.topics import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreateTopicsRequest,
    CreateTopicsResponse,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)

from kafkatui.sim import errors as E
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.configs import ConfigEntry, ConfigError
from kafkatui.sim.handlers.admin import Failure, forward_to_controller, topic_name_error
from kafkatui.sim.protocol import RequestContext, api

TOPIC_DELETION_DISABLED = 73
"""Kafka's error code for DeleteTopics when ``delete.topic.enable=false`` (v3+)."""

MSG_UNKNOWN_TOPIC = "This server does not host this topic-partition."
MSG_UNKNOWN_TOPIC_ID = "This server does not host this topic ID."


def _failure(exc: E.SimError | ConfigError) -> Failure:
    return exc.error_code, exc.message or str(exc)


def _usable_brokers(cluster: SimCluster) -> int:
    return sum(1 for b in cluster.brokers.values() if not b.fenced)


def _check_replication_factor(cluster: SimCluster, rf: int) -> None:
    """The controller's placement refuses an RF above the number of unfenced brokers."""
    usable = _usable_brokers(cluster)
    if rf > usable:
        raise E.SimError(
            E.INVALID_REPLICATION_FACTOR,
            f"Unable to replicate the partition {rf} time(s): The target replication factor of {rf} "
            f"cannot be reached because only {usable} broker(s) are registered.",
        )


def _validate_manual_assignment(cluster: SimCluster, broker_ids: list[int], rf: int | None) -> None:
    """ReplicationControlManager.validateManualPartitionAssignment."""
    if not broker_ids:
        raise E.SimError(
            E.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty replica list."
        )
    previous: int | None = None
    for broker_id in sorted(broker_ids):
        if broker_id not in cluster.brokers:
            raise E.SimError(
                E.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes broker {broker_id}, but no such broker is registered.",
            )
        if broker_id == previous:
            raise E.SimError(
                E.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes the broker {broker_id} more than once.",
            )
        previous = broker_id
    if rf is not None and len(broker_ids) != rf:
        raise E.SimError(
            E.INVALID_REPLICA_ASSIGNMENT,
            f"The manual partition assignment includes a partition with {len(broker_ids)} replica(s), but this "
            f"is not consistent with previous partitions, which have {rf} replica(s).",
        )


def _all_fenced(cluster: SimCluster, broker_ids: list[int]) -> bool:
    return all(cluster.brokers[b].fenced for b in broker_ids)


def _broker_default(cluster: SimCluster, broker_id: int, key: str, fallback: int) -> int:
    value, _ = cluster.configs.effective_broker(broker_id, key)
    return int(value) if value else fallback


# --------------------------------------------------------------------------- CreateTopics (19)
CT = CreateTopicsResponse
CTResult = CT.CreatableTopicResult
CTConfig = CTResult.CreatableTopicConfigs


def _created_configs(entries: list[ConfigEntry]) -> list[Any]:
    return [
        CTConfig(
            name=e.name,
            value=None if e.sensitive else e.value,
            read_only=e.read_only,
            config_source=int(e.source),
            is_sensitive=e.sensitive,
        )
        for e in entries
    ]


def _preview_configs(cluster: SimCluster, name: str, overrides: dict[str, str]) -> list[ConfigEntry]:
    """The configs a validate-only CreateTopics would give the topic (nothing is kept)."""
    cluster.configs.add_topic(name, overrides)
    try:
        return cluster.configs.describe_topic(name, None, False)
    finally:
        cluster.configs.remove_topic(name)


def _create_topic(ctx: RequestContext, t: Any, validate_only: bool) -> Any:
    """Create (or validate) one CreatableTopic; raises SimError / ConfigError."""
    cluster = ctx.cluster
    name: str = t.name
    problem = topic_name_error(name)
    if problem:
        raise E.SimError(E.INVALID_TOPIC_EXCEPTION, problem)
    if name in cluster.topics:
        raise E.SimError(E.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
    folded = name.replace(".", "_")
    for existing in cluster.topics:
        if existing.replace(".", "_") == folded:
            raise E.SimError(E.INVALID_TOPIC_EXCEPTION, f"Topic '{name}' collides with existing topic: {existing}")
    overrides: dict[str, str] = {}
    for c in t.configs or ():
        if c.value is not None:
            overrides[c.name] = c.value
        else:
            overrides.pop(c.name, None)
    cluster.configs.add_topic(name, overrides, validate_only=True)

    if t.assignments:
        if t.replication_factor != -1:
            raise E.SimError(
                E.INVALID_REQUEST,
                "A manual partition assignment was specified, but replication factor was not set to -1.",
            )
        if t.num_partitions != -1:
            raise E.SimError(
                E.INVALID_REQUEST, "A manual partition assignment was specified, but numPartitions was not set to -1."
            )
        assignment: dict[int, list[int]] = {}
        rf: int | None = None
        for a in t.assignments:
            if a.partition_index in assignment:
                raise E.SimError(
                    E.INVALID_REPLICA_ASSIGNMENT,
                    f"Found multiple manual partition assignments for partition {a.partition_index}",
                )
            replicas = list(a.broker_ids)
            _validate_manual_assignment(cluster, replicas, rf)
            if _all_fenced(cluster, replicas):
                raise E.SimError(
                    E.INVALID_REPLICA_ASSIGNMENT,
                    f"All brokers specified in the manual partition assignment for partition {a.partition_index} "
                    "are fenced or in controlled shutdown.",
                )
            rf = len(replicas)
            assignment[a.partition_index] = replicas
        if sorted(assignment) != list(range(len(assignment))):
            raise E.SimError(
                E.INVALID_REPLICA_ASSIGNMENT, "partitions should be a consecutive 0-based integer sequence"
            )
        num_partitions, replication_factor = len(assignment), rf or 0
        topic = cluster.create_topic(
            name, num_partitions, assignment=assignment, configs=overrides, validate_only=validate_only
        )
    else:
        if t.replication_factor < -1 or t.replication_factor == 0:
            raise E.SimError(
                E.INVALID_REPLICATION_FACTOR, "Replication factor was set to an invalid non-positive value."
            )
        if t.num_partitions < -1 or t.num_partitions == 0:
            raise E.SimError(E.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.")
        num_partitions = t.num_partitions
        if num_partitions == -1:
            num_partitions = _broker_default(cluster, ctx.broker.id, "num.partitions", 1)
        replication_factor = t.replication_factor
        if replication_factor == -1:
            replication_factor = _broker_default(cluster, ctx.broker.id, "default.replication.factor", 1)
        _check_replication_factor(cluster, replication_factor)
        topic = cluster.create_topic(
            name, num_partitions, replication_factor, configs=overrides, validate_only=validate_only
        )
    if topic is None:
        entries = _preview_configs(cluster, name, overrides)
        topic_id = None
    else:
        entries = cluster.configs.describe_topic(name, None, False)
        topic_id = topic.topic_id
    return CTResult(
        name=name,
        topic_id=topic_id,
        error_code=E.NONE,
        error_message=None,
        num_partitions=num_partitions,
        replication_factor=replication_factor,
        configs=_created_configs(entries),
    )


def _create_error(name: str, code: int, message: str | None) -> Any:
    return CTResult(
        name=name,
        topic_id=None,
        error_code=code,
        error_message=message,
        num_partitions=-1,
        replication_factor=-1,
        configs=[],
    )


@api(CreateTopicsRequest, CreateTopicsResponse)
async def handle_create_topics(ctx: RequestContext, req: Any) -> Any:
    """CreateTopics: defaults for -1, manual assignments, configs, validate_only, per-topic errors."""
    failure = await forward_to_controller(ctx, req.timeout_ms)
    counts = Counter(t.name for t in req.topics)
    results: list[Any] = []
    reported: set[str] = set()
    validate_only = bool(req.validate_only)
    for t in req.topics:
        if counts[t.name] > 1:
            if t.name not in reported:
                reported.add(t.name)
                results.append(_create_error(t.name, E.INVALID_REQUEST, "Duplicate topic name."))
            continue
        if failure is not None:
            results.append(_create_error(t.name, *failure))
            continue
        try:
            results.append(_create_topic(ctx, t, validate_only))
        except (E.SimError, ConfigError) as exc:
            results.append(_create_error(t.name, *_failure(exc)))
    return CT(version=ctx.version, throttle_time_ms=0, topics=results)


# --------------------------------------------------------------------------- DeleteTopics (20)
DT = DeleteTopicsResponse
DTResult = DT.DeletableTopicResult


@api(DeleteTopicsRequest, DeleteTopicsResponse)
async def handle_delete_topics(ctx: RequestContext, req: Any) -> Any:
    """DeleteTopics by name (v1-v6) or by topic id (v6)."""
    cluster = ctx.cluster
    results: list[Any] = []

    def answer(name: str | None, topic_id: Any, code: int, message: str | None) -> None:
        results.append(DTResult(name=name, topic_id=topic_id, error_code=code, error_message=message))

    names: list[str] = []
    dup_names: list[str] = []
    ids: list[Any] = []
    dup_ids: list[Any] = []

    def add(items: list[Any], dups: list[Any], item: Any) -> None:
        if item in dups:
            return
        if item in items:
            items.remove(item)
            dups.append(item)
        else:
            items.append(item)

    if ctx.version <= 5:
        for name in req.topic_names or ():
            add(names, dup_names, name)
    else:
        for t in req.topics or ():
            if t.name is None:
                if t.topic_id is None:
                    answer(None, None, E.INVALID_REQUEST, "Neither topic name nor id were specified.")
                else:
                    add(ids, dup_ids, t.topic_id)
            elif t.topic_id is None:
                add(names, dup_names, t.name)
            else:
                answer(t.name, t.topic_id, E.INVALID_REQUEST, "You may not specify both topic name and topic id.")
    for name in dup_names:
        answer(name, None, E.INVALID_REQUEST, "Duplicate topic name.")
    for topic_id in dup_ids:
        answer(None, topic_id, E.INVALID_REQUEST, "Duplicate topic id.")

    failure = await forward_to_controller(ctx, req.timeout_ms)
    if failure is None:
        enabled, _ = cluster.configs.effective_broker(ctx.broker.id, "delete.topic.enable")
        if enabled == "false":
            code = E.INVALID_REQUEST if ctx.version < 3 else TOPIC_DELETION_DISABLED
            failure = code, "Topic deletion is disabled."
    if failure is not None:
        for name in names:
            answer(name, None, *failure)
        for topic_id in ids:
            answer(None, topic_id, *failure)
        return DT(version=ctx.version, throttle_time_ms=0, responses=results)

    targets: dict[str, Any] = {}  # name -> topic id, each topic once
    for name in names:
        topic = cluster.topics.get(name)
        if topic is None:
            answer(name, None, E.UNKNOWN_TOPIC_OR_PARTITION, MSG_UNKNOWN_TOPIC)
        else:
            targets.setdefault(name, topic.topic_id)
    for topic_id in ids:
        try:
            topic = cluster.topic_by_id(topic_id)
        except E.SimError:
            answer(None, topic_id, E.UNKNOWN_TOPIC_ID, MSG_UNKNOWN_TOPIC_ID)
        else:
            targets.setdefault(topic.name, topic.topic_id)
    for name, topic_id in targets.items():
        try:
            cluster.delete_topic(name)
        except E.SimError as exc:
            answer(name, topic_id, *_failure(exc))
        else:
            answer(name, topic_id, E.NONE, None)
    return DT(version=ctx.version, throttle_time_ms=0, responses=results)


# --------------------------------------------------------------------------- CreatePartitions (37)
CP = CreatePartitionsResponse
CPResult = CP.CreatePartitionsTopicResult


def _create_partitions(ctx: RequestContext, t: Any, validate_only: bool) -> None:
    """ReplicationControlManager.createPartitions for one topic; raises SimError."""
    cluster = ctx.cluster
    topic = cluster.topics.get(t.name)
    if topic is None:
        raise E.SimError(E.UNKNOWN_TOPIC_OR_PARTITION, MSG_UNKNOWN_TOPIC)
    current = len(topic.partitions)
    if t.count == current:
        raise E.SimError(E.INVALID_PARTITIONS, f"Topic already has {current} partition(s).")
    if t.count < current:
        raise E.SimError(
            E.INVALID_PARTITIONS,
            f"The topic {t.name} currently has {current} partition(s); {t.count} would not be an increase.",
        )
    additional = t.count - current
    rf = len(topic.partitions[0].replicas) - len(topic.partitions[0].adding)
    plan: list[list[int]] | None = None
    if t.assignments is not None:
        if len(t.assignments) != additional:
            raise E.SimError(
                E.INVALID_REPLICA_ASSIGNMENT,
                f"Attempted to add {additional} additional partition(s), but only {len(t.assignments)} "
                "assignment(s) were specified.",
            )
        plan = []
        for offset, a in enumerate(t.assignments):
            replicas = list(a.broker_ids)
            _validate_manual_assignment(cluster, replicas, rf)
            if _all_fenced(cluster, replicas):
                raise E.SimError(
                    E.INVALID_REPLICA_ASSIGNMENT,
                    f"All brokers specified in the manual partition assignment for partition {current + offset} "
                    "are fenced or in controlled shutdown.",
                )
            plan.append(replicas)
    else:
        _check_replication_factor(cluster, rf)
    cluster.create_partitions(t.name, t.count, plan, validate_only)


@api(CreatePartitionsRequest, CreatePartitionsResponse)
async def handle_create_partitions(ctx: RequestContext, req: Any) -> Any:
    """CreatePartitions: grow topics, with optional manual assignments of the new partitions."""
    failure = await forward_to_controller(ctx, req.timeout_ms)
    counts = Counter(t.name for t in req.topics)
    results: list[Any] = []
    reported: set[str] = set()
    for t in req.topics:
        if counts[t.name] > 1:
            if t.name not in reported:
                reported.add(t.name)
                results.append(
                    CPResult(name=t.name, error_code=E.INVALID_REQUEST, error_message="Duplicate topic name.")
                )
            continue
        code, message = failure or (E.NONE, None)
        if failure is None:
            try:
                _create_partitions(ctx, t, bool(req.validate_only))
            except E.SimError as exc:
                code, message = _failure(exc)
        results.append(CPResult(name=t.name, error_code=code, error_message=message))
    return CP(version=ctx.version, throttle_time_ms=0, results=results)
