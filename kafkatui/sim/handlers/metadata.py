"""Metadata and DescribeCluster: brokers, controller, leaders, replicas and ISRs."""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin.cluster import DescribeClusterRequest, DescribeClusterResponse
from kafka.protocol.metadata.metadata import MetadataRequest, MetadataResponse

from kafkatui.sim import errors as E
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.handlers.metadata_wire import encode_metadata
from kafkatui.sim.protocol import RequestContext, api
from kafkatui.sim.state import Topic

R = MetadataResponse
RTopic = R.MetadataResponseTopic
RPartition = RTopic.MetadataResponsePartition


class MetadataCache:
    """Encoded all-topics Metadata bodies per version, rebuilt only when the cluster changed (`metadata_wire`)."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._bodies: dict[int, bytes] = {}

    def get(self, cluster: SimCluster, version: int) -> bytes:
        key = (id(cluster), cluster.metadata_version)
        if key != self._key:
            self._key = key
            self._bodies = {}
        body = self._bodies.get(version)
        if body is None:
            body = self._bodies[version] = encode_metadata(
                version,
                [(b.id, b.host, b.port, b.rack) for b in _listed(cluster)],
                cluster.cluster_id,
                reported_controller(cluster),
                [(t.name, t.topic_id, t.internal, t.partitions) for t in cluster.topics.values()],
                cluster.offline_brokers(),
            )
        return body


CACHE = MetadataCache()


def _topic_entry(cluster: SimCluster, topic: Topic) -> Any:
    parts = []
    for p in topic.partitions:
        leader = p.leader
        parts.append(
            RPartition(
                error_code=E.LEADER_NOT_AVAILABLE if leader == -1 else E.NONE,
                partition_index=p.index,
                leader_id=leader,
                leader_epoch=p.leader_epoch,
                replica_nodes=list(p.replicas),
                isr_nodes=list(p.isr),
                offline_replicas=cluster.offline_replicas(p),
            )
        )
    return RTopic(
        error_code=E.NONE,
        name=topic.name,
        topic_id=topic.topic_id,
        is_internal=topic.internal,
        partitions=parts,
        authorized_operations=None,
    )


def _listed(cluster: SimCluster) -> list[Any]:
    """The brokers a Metadata answer lists, by id."""
    return sorted(cluster.live_brokers(), key=lambda b: b.id)


def reported_controller(cluster: SimCluster) -> int:
    """The controller id brokers report: a live broker, never one that just died.

    KRaft brokers forward admin requests to the quorum, so clients only need a live broker here.
    """
    live = sorted(b.id for b in cluster.live_brokers() if b.serving_clients())
    if cluster.controller_id in live:
        return cluster.controller_id
    return live[0] if live else -1


def build_metadata(
    cluster: SimCluster, topics: list[Topic], missing: list[tuple[str | None, Any]], version: int
) -> Any:
    brokers = [R.MetadataResponseBroker(node_id=b.id, host=b.host, port=b.port, rack=b.rack) for b in _listed(cluster)]
    entries = [_topic_entry(cluster, t) for t in topics]
    for name, topic_id in missing:
        entries.append(
            RTopic(
                error_code=E.UNKNOWN_TOPIC_ID if name is None else E.UNKNOWN_TOPIC_OR_PARTITION,
                name=name,
                topic_id=topic_id,
                is_internal=False,
                partitions=[],
                authorized_operations=None,
            )
        )
    return R(
        version=version,
        throttle_time_ms=0,
        brokers=brokers,
        cluster_id=cluster.cluster_id,
        controller_id=reported_controller(cluster),
        topics=entries,
        authorized_operations=None,
        error_code=E.NONE,
    )


@api(MetadataRequest, MetadataResponse)
async def handle_metadata(ctx: RequestContext, req: Any) -> Any:
    cluster = ctx.cluster
    requested = req.topics
    if requested is None or (ctx.version == 0 and not requested):
        return CACHE.get(cluster, ctx.version)
    auto = bool(getattr(req, "allow_auto_topic_creation", True)) if ctx.version >= 4 else True
    auto = auto and cluster.configs.effective_broker(ctx.broker.id, "auto.create.topics.enable")[0] == "true"
    found: list[Topic] = []
    missing: list[tuple[str | None, Any]] = []
    for t in requested:
        name = t.name
        topic_id = getattr(t, "topic_id", None)
        topic = cluster.topics.get(name) if name else None
        if topic is None and name is None and topic_id is not None:
            try:
                topic = cluster.topic_by_id(topic_id)
            except E.SimError:
                topic = None
        if topic is None and name and auto:
            try:
                topic = cluster.create_topic(name, _default_partitions(cluster, ctx.broker.id))
            except E.SimError:
                topic = None
        if topic is None:
            missing.append((name, topic_id))
        else:
            found.append(topic)
    return build_metadata(cluster, found, missing, ctx.version)


def _default_partitions(cluster: SimCluster, broker_id: int) -> int:
    value, _ = cluster.configs.effective_broker(broker_id, "num.partitions")
    return int(value or 1)


@api(DescribeClusterRequest, DescribeClusterResponse)
async def handle_describe_cluster(ctx: RequestContext, req: Any) -> Any:
    cluster = ctx.cluster
    R2 = DescribeClusterResponse
    brokers = [
        R2.DescribeClusterBroker(broker_id=b.id, host=b.host, port=b.port, rack=b.rack, is_fenced=b.fenced)
        for b in sorted(cluster.brokers.values(), key=lambda b: b.id)
        if not b.fenced or getattr(req, "include_fenced_brokers", False)
    ]
    return R2(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=E.NONE,
        error_message=None,
        endpoint_type=1,
        cluster_id=cluster.cluster_id,
        controller_id=reported_controller(cluster),
        brokers=brokers,
        authorized_operations=None,
    )
