"""Consumer group APIs (classic protocol): FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups and DeleteGroups.

The state machine lives in `kafkatui.sim.groups`; these handlers translate requests and
responses and answer NOT_COORDINATOR when a group's request reaches the wrong broker.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin.groups import (
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    ListGroupsRequest,
    ListGroupsResponse,
)
from kafka.protocol.consumer.group import (
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetFetchRequest,
    OffsetFetchResponse,
    SyncGroupRequest,
    SyncGroupResponse,
)
from kafka.protocol.metadata.find_coordinator import FindCoordinatorRequest, FindCoordinatorResponse

from kafkatui.sim import errors as E
from kafkatui.sim.groups import (
    GROUP_ID_NOT_FOUND,
    CommittedOffset,
    GroupCoordinator,
    GroupState,
    JoinResult,
    coordinator_for,
)
from kafkatui.sim.protocol import RequestContext, api

GROUP_KEY, TRANSACTION_KEY = 0, 1
CLASSIC = "classic"
GROUP_OPERATIONS = {3, 6, 8}
"""AclOperation codes a group allows without an authorizer: READ, DELETE, DESCRIBE."""


def _coordinator(ctx: RequestContext) -> GroupCoordinator:
    return coordinator_for(ctx.cluster)


def _client_host(ctx: RequestContext) -> str:
    peer = ctx.connection.get("peer")
    host = peer[0] if isinstance(peer, tuple) and peer else ctx.cluster.host
    return f"/{host}"  # Kafka shows InetAddress.toString()


# ---------------------------------------------------------------------- FindCoordinator
@api(FindCoordinatorRequest, FindCoordinatorResponse)
async def handle_find_coordinator(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    key_type = req.key_type if ctx.version >= 1 else GROUP_KEY
    keys = list(req.coordinator_keys or []) if ctx.version >= 4 else [req.key]
    R = FindCoordinatorResponse
    found: list[tuple[str, int, int, str, int, str | None]] = []  # key, error, node, host, port, message
    for key in keys:
        if key_type not in (GROUP_KEY, TRANSACTION_KEY):
            found.append((key, E.INVALID_REQUEST, -1, "", -1, f"Unsupported coordinator key type {key_type}"))
            continue
        node = coord.coordinator_id(key)
        broker = ctx.cluster.brokers.get(node)
        if broker is None:
            found.append((key, E.COORDINATOR_NOT_AVAILABLE, -1, "", -1, "The coordinator is not available."))
        else:
            found.append((key, E.NONE, broker.id, broker.host, broker.port, None))
    if ctx.version >= 4:
        coordinators = [
            R.Coordinator(key=k, node_id=n, host=h, port=p, error_code=e, error_message=m) for k, e, n, h, p, m in found
        ]
        return R(version=ctx.version, throttle_time_ms=0, coordinators=coordinators)
    k, e, n, h, p, m = found[0]
    return R(version=ctx.version, throttle_time_ms=0, error_code=e, error_message=m, node_id=n, host=h, port=p)


# ---------------------------------------------------------------------- JoinGroup
def _join_response(ctx: RequestContext, result: JoinResult) -> Any:
    R = JoinGroupResponse
    members = [
        R.JoinGroupResponseMember(member_id=mid, group_instance_id=iid, metadata=meta)
        for mid, iid, meta in result.members
    ]
    nullable_name = ctx.version >= 7
    return R(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=result.error,
        generation_id=result.generation_id,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name if nullable_name or result.protocol_name is not None else "",
        leader=result.leader,
        skip_assignment=result.skip_assignment,
        member_id=result.member_id,
        members=members,
    )


@api(JoinGroupRequest, JoinGroupResponse)
async def handle_join_group(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    if not coord.is_coordinator(ctx.broker.id, req.group_id):
        return _join_response(ctx, JoinResult(E.NOT_COORDINATOR, req.member_id))
    rebalance_ms = req.rebalance_timeout_ms if ctx.version >= 1 else req.session_timeout_ms
    if rebalance_ms is None or rebalance_ms < 0:
        rebalance_ms = req.session_timeout_ms
    result = await coord.join(
        req.group_id,
        req.member_id,
        req.group_instance_id if ctx.version >= 5 else None,
        ctx.client_id or "",
        _client_host(ctx),
        req.session_timeout_ms,
        rebalance_ms,
        req.protocol_type,
        [(p.name, bytes(p.metadata)) for p in req.protocols],
        require_known_member_id=ctx.version >= 4,
        supports_skip_assignment=ctx.version >= 9,
    )
    return _join_response(ctx, result)


# ---------------------------------------------------------------------- SyncGroup
@api(SyncGroupRequest, SyncGroupResponse)
async def handle_sync_group(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    R = SyncGroupResponse
    if not coord.is_coordinator(ctx.broker.id, req.group_id):
        return R(version=ctx.version, throttle_time_ms=0, error_code=E.NOT_COORDINATOR, assignment=b"")
    v5 = ctx.version >= 5
    result = await coord.sync(
        req.group_id,
        req.generation_id,
        req.member_id,
        req.group_instance_id if ctx.version >= 3 else None,
        req.protocol_type if v5 else None,
        req.protocol_name if v5 else None,
        {a.member_id: bytes(a.assignment) for a in req.assignments},
    )
    return R(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=result.error,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name,
        assignment=result.assignment,
    )


# ---------------------------------------------------------------------- Heartbeat
@api(HeartbeatRequest, HeartbeatResponse)
async def handle_heartbeat(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    if not coord.is_coordinator(ctx.broker.id, req.group_id):
        error = E.NOT_COORDINATOR
    else:
        instance = req.group_instance_id if ctx.version >= 3 else None
        error = coord.heartbeat(req.group_id, req.generation_id, req.member_id, instance)
    return HeartbeatResponse(version=ctx.version, throttle_time_ms=0, error_code=error)


# ---------------------------------------------------------------------- LeaveGroup
@api(LeaveGroupRequest, LeaveGroupResponse)
async def handle_leave_group(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    R = LeaveGroupResponse
    leaving: list[tuple[str, str | None]] = (
        [(m.member_id, m.group_instance_id) for m in req.members] if ctx.version >= 3 else [(req.member_id, None)]
    )
    errors: list[int] = []
    if not coord.is_coordinator(ctx.broker.id, req.group_id):
        top = E.NOT_COORDINATOR
    else:
        top, errors = coord.leave(req.group_id, leaving)
    if ctx.version < 3:
        # one member, one error: the top-level code carries it
        error = top if top != E.NONE else (errors[0] if errors else E.NONE)
        return R(version=ctx.version, throttle_time_ms=0, error_code=error)
    members = [
        R.MemberResponse(member_id=mid, group_instance_id=iid, error_code=err)
        for (mid, iid), err in zip(leaving, errors, strict=False)
    ]
    return R(version=ctx.version, throttle_time_ms=0, error_code=top, members=members)


# ---------------------------------------------------------------------- OffsetCommit
@api(OffsetCommitRequest, OffsetCommitResponse)
async def handle_offset_commit(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    cluster = ctx.cluster
    by_id = ctx.version >= 10
    # (request topic, resolved name or None) in request order
    topics: list[tuple[Any, str | None]] = []
    for t in req.topics:
        if by_id:
            topic = next((x for x in cluster.topics.values() if x.topic_id == t.topic_id), None)
            topics.append((t, topic.name if topic else None))
        else:
            topics.append((t, t.name))
    offsets: dict[tuple[str, int], CommittedOffset] = {}
    for t, name in topics:
        if name is None:
            continue
        for p in t.partitions:
            offsets[(name, p.partition_index)] = CommittedOffset(
                offset=p.committed_offset,
                leader_epoch=p.committed_leader_epoch if ctx.version >= 6 else -1,
                metadata=p.committed_metadata if p.committed_metadata is not None else "",
            )
    if not coord.is_coordinator(ctx.broker.id, req.group_id):
        results = dict.fromkeys(offsets, E.NOT_COORDINATOR)
    else:
        instance = req.group_instance_id if ctx.version >= 7 else None
        results = coord.commit_offsets(
            req.group_id, req.generation_id_or_member_epoch, req.member_id, instance, offsets
        )
    R = OffsetCommitResponse
    RT = R.OffsetCommitResponseTopic
    RP = RT.OffsetCommitResponsePartition
    out = []
    for t, name in topics:
        parts = [
            RP(
                partition_index=p.partition_index,
                error_code=E.UNKNOWN_TOPIC_ID if name is None else results[(name, p.partition_index)],
            )
            for p in t.partitions
        ]
        if by_id:
            out.append(RT(topic_id=t.topic_id, partitions=parts))
        else:
            out.append(RT(name=t.name, partitions=parts))
    return R(version=ctx.version, throttle_time_ms=0, topics=out)


# ---------------------------------------------------------------------- OffsetFetch
def _fetch_group(
    ctx: RequestContext, group_id: str, req_topics: list[Any] | None, by_id: bool
) -> tuple[int, list[tuple[str | None, Any, list[tuple[int, CommittedOffset | None, int]]]]]:
    """Offsets of one group: (group error, [(name, topic id, [(partition, offset, error)])])."""
    coord = _coordinator(ctx)
    cluster = ctx.cluster
    if not coord.is_coordinator(ctx.broker.id, group_id):
        return E.NOT_COORDINATOR, []
    out: list[tuple[str | None, Any, list[tuple[int, CommittedOffset | None, int]]]] = []
    if req_topics is None:
        by_topic: dict[str, list[tuple[int, CommittedOffset | None, int]]] = {}
        for (name, index), value in coord.fetch_offsets(group_id, None).items():
            by_topic.setdefault(name, []).append((index, value, E.NONE))
        for name, parts in by_topic.items():
            topic = cluster.topics.get(name)
            out.append((name, topic.topic_id if topic else None, parts))
        return E.NONE, out
    for t in req_topics:
        if by_id:
            topic = next((x for x in cluster.topics.values() if x.topic_id == t.topic_id), None)
            if topic is None:
                out.append((None, t.topic_id, [(i, None, E.UNKNOWN_TOPIC_ID) for i in t.partition_indexes]))
                continue
            name = topic.name
        else:
            name = t.name
        found = coord.fetch_offsets(group_id, [(name, i) for i in t.partition_indexes])
        parts = [(i, found[(name, i)], E.NONE) for i in t.partition_indexes]
        out.append((name, getattr(t, "topic_id", None), parts))
    return E.NONE, out


@api(OffsetFetchRequest, OffsetFetchResponse)
async def handle_offset_fetch(ctx: RequestContext, req: Any) -> Any:
    R = OffsetFetchResponse
    if ctx.version < 8:
        RT = R.OffsetFetchResponseTopic
        RP = RT.OffsetFetchResponsePartition
        error, topics = _fetch_group(ctx, req.group_id, req.topics, by_id=False)
        out = [
            RT(
                name=name,
                partitions=[
                    RP(
                        partition_index=i,
                        committed_offset=o.offset if o else -1,
                        committed_leader_epoch=o.leader_epoch if o else -1,
                        metadata=o.metadata if o else "",
                        error_code=err if error == E.NONE else error,
                    )
                    for i, o, err in parts
                ],
            )
            for name, _, parts in topics
        ]
        if ctx.version < 2 and error != E.NONE:
            # no top-level error before v2: every requested partition carries it
            out = [
                RT(
                    name=t.name,
                    partitions=[
                        RP(partition_index=i, committed_offset=-1, metadata="", error_code=error)
                        for i in t.partition_indexes
                    ],
                )
                for t in req.topics or []
            ]
        return R(version=ctx.version, throttle_time_ms=0, topics=out, error_code=error)
    by_id = ctx.version >= 10
    RG = R.OffsetFetchResponseGroup
    RT2 = RG.OffsetFetchResponseTopics
    RP2 = RT2.OffsetFetchResponsePartitions
    groups = []
    for g in req.groups:
        error, topics = _fetch_group(ctx, g.group_id, g.topics, by_id=by_id)
        out2 = []
        for name, topic_id, parts in topics:
            partitions = [
                RP2(
                    partition_index=i,
                    committed_offset=o.offset if o else -1,
                    committed_leader_epoch=o.leader_epoch if o else -1,
                    metadata=o.metadata if o else "",
                    error_code=err,
                )
                for i, o, err in parts
            ]
            if by_id:
                if topic_id is None:
                    continue
                out2.append(RT2(topic_id=topic_id, partitions=partitions))
            else:
                out2.append(RT2(name=name, partitions=partitions))
        groups.append(RG(group_id=g.group_id, topics=out2, error_code=error))
    return R(version=ctx.version, throttle_time_ms=0, groups=groups)


# ---------------------------------------------------------------------- DescribeGroups
@api(DescribeGroupsRequest, DescribeGroupsResponse)
async def handle_describe_groups(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    R = DescribeGroupsResponse
    RG = R.DescribedGroup
    RM = RG.DescribedGroupMember
    want_ops = ctx.version >= 3 and bool(req.include_authorized_operations)
    out = []
    for group_id in req.groups:
        ops = GROUP_OPERATIONS if want_ops else None
        if not coord.is_coordinator(ctx.broker.id, group_id):
            out.append(
                RG(
                    error_code=E.NOT_COORDINATOR,
                    error_message=None,
                    group_id=group_id,
                    group_state="",
                    protocol_type="",
                    protocol_data="",
                    members=[],
                    authorized_operations=None,
                )
            )
            continue
        group = coord.groups.get(group_id)
        if group is None or group.state == GroupState.DEAD:
            if ctx.version >= 6:
                out.append(
                    RG(
                        error_code=GROUP_ID_NOT_FOUND,
                        error_message=f"Group {group_id} not found.",
                        group_id=group_id,
                        group_state=GroupState.DEAD.value,
                        protocol_type="",
                        protocol_data="",
                        members=[],
                        authorized_operations=None,
                    )
                )
            else:
                out.append(
                    RG(
                        error_code=E.NONE,
                        error_message=None,
                        group_id=group_id,
                        group_state=GroupState.DEAD.value,
                        protocol_type="",
                        protocol_data="",
                        members=[],
                        authorized_operations=ops,
                    )
                )
            continue
        stable = group.state == GroupState.STABLE
        members = [
            RM(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                member_metadata=m.metadata(group.protocol_name) if stable else b"",
                member_assignment=m.assignment if stable else b"",
            )
            for m in group.members.values()
        ]
        out.append(
            RG(
                error_code=E.NONE,
                error_message=None,
                group_id=group_id,
                group_state=group.state.value,
                protocol_type=group.protocol_type or "",
                protocol_data=(group.protocol_name or "") if stable else "",
                members=members,
                authorized_operations=ops,
            )
        )
    return R(version=ctx.version, throttle_time_ms=0, groups=out)


# ---------------------------------------------------------------------- ListGroups
@api(ListGroupsRequest, ListGroupsResponse)
async def handle_list_groups(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    states = {s.lower() for s in (req.states_filter or [])} if ctx.version >= 4 else set()
    types = {t.lower() for t in (req.types_filter or [])} if ctx.version >= 5 else set()
    R = ListGroupsResponse
    out = []
    if not types or CLASSIC in types:
        for g in sorted(coord.list_groups(ctx.broker.id), key=lambda g: g.group_id):
            if states and g.state.value.lower() not in states:
                continue
            out.append(
                R.ListedGroup(
                    group_id=g.group_id,
                    protocol_type=g.protocol_type or "",
                    group_state=g.state.value,
                    group_type=CLASSIC,
                )
            )
    return R(version=ctx.version, throttle_time_ms=0, error_code=E.NONE, groups=out)


# ---------------------------------------------------------------------- DeleteGroups
@api(DeleteGroupsRequest, DeleteGroupsResponse)
async def handle_delete_groups(ctx: RequestContext, req: Any) -> Any:
    coord = _coordinator(ctx)
    R = DeleteGroupsResponse
    results = []
    for group_id in req.groups_names:
        # a deleted group's committed offsets go with it
        error = E.NOT_COORDINATOR if not coord.is_coordinator(ctx.broker.id, group_id) else coord.delete_group(group_id)
        results.append(R.DeletableGroupResult(group_id=group_id, error_code=error))
    return R(version=ctx.version, throttle_time_ms=0, results=results)
