"""Consumer groups against the simulated cluster: the raw protocol at every advertised version,
then real clients (confluent-kafka, kafka-python, kcat) subscribing, rebalancing, committing
and resuming, also across a crash of the group's coordinator broker."""

from __future__ import annotations

import itertools
import socket
import struct
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from confluent_kafka import (
    Consumer,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient
from kafka import KafkaAdminClient, KafkaConsumer
from kafka import TopicPartition as KTopicPartition
from kafka import errors as kafka_errors
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
from kafka.structs import OffsetAndMetadata

from kafkatui.sim import errors as E
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.groups import (
    FENCED_INSTANCE_ID,
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    GroupState,
    coordinator_for,
)
from kafkatui.sim.runner import SimRunner
from tests.conftest import kcat_path

FAST = {"broker.session.timeout.ms": "1000", "replica.lag.time.max.ms": "2000"}
"""Fence a crashed broker after 1 s (simulated) so that partition leadership moves quickly."""

SESSION = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 300}
QUIET = {"log.connection.close": False}

RESPONSES = {
    FindCoordinatorRequest: FindCoordinatorResponse,
    JoinGroupRequest: JoinGroupResponse,
    SyncGroupRequest: SyncGroupResponse,
    HeartbeatRequest: HeartbeatResponse,
    LeaveGroupRequest: LeaveGroupResponse,
    OffsetCommitRequest: OffsetCommitResponse,
    OffsetFetchRequest: OffsetFetchResponse,
    DescribeGroupsRequest: DescribeGroupsResponse,
    ListGroupsRequest: ListGroupsResponse,
    DeleteGroupsRequest: DeleteGroupsResponse,
}


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimRunner]]:
    """Start SimRunners on 127.0.0.1 (free ports); every one is stopped at the end of the test."""
    started: list[SimRunner] = []

    def make(brokers: int = 3, configs: dict[str, str] | None = None, **kwargs: Any) -> SimRunner:
        runner = SimRunner(brokers=brokers, static_configs={**FAST, **(configs or {})}, **kwargs)
        started.append(runner)
        runner.start()
        runner.call(lambda c: c.create_topic("t", 3, 3))
        return runner

    yield make
    for runner in started:
        runner.stop()


@pytest.fixture
def sim(make_sim: Callable[..., SimRunner]) -> SimRunner:
    """Three brokers and topic `t` (3 partitions, RF 3)."""
    return make_sim()


# ---------------------------------------------------------------------- raw protocol helpers
class Raw:
    """One client connection speaking the Kafka protocol through kafka-python's classes."""

    def __init__(self, sim: SimRunner, broker_id: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", sim.port_of(broker_id)), timeout=15)
        self.ids = itertools.count(1)

    def send(self, req: Any, version: int) -> Any:
        req.API_VERSION = version
        req.with_header(correlation_id=next(self.ids), client_id="raw")
        self.sock.sendall(bytes(req.encode(header=True, framed=True)))
        (size,) = struct.unpack(">i", self._read(4))
        return RESPONSES[type(req)].decode(self._read(size), version=version, header=True)

    def _read(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("connection closed by the broker")
            buf += chunk
        return buf

    def close(self) -> None:
        self.sock.close()


def coordinator_of(sim: SimRunner, group: str) -> int:
    return sim.call(lambda c: coordinator_for(c).coordinator_id(group))


def join_request(group: str, member_id: str, session_ms: int = 6000, instance: str | None = None) -> Any:
    return JoinGroupRequest(
        group_id=group,
        session_timeout_ms=session_ms,
        rebalance_timeout_ms=10000,
        member_id=member_id,
        group_instance_id=instance,
        protocol_type="consumer",
        protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"subscription")],
    )


def join(conn: Raw, group: str, version: int = 5, **kwargs: Any) -> Any:
    """JoinGroup, answering MEMBER_ID_REQUIRED as clients do."""
    resp = conn.send(join_request(group, "", **kwargs), version)
    if resp.error_code == E.MEMBER_ID_REQUIRED:
        resp = conn.send(join_request(group, resp.member_id, **kwargs), version)
    return resp


def sync(conn: Raw, group: str, gen: int, member: str, assignments: dict[str, bytes], version: int = 3) -> Any:
    items = [SyncGroupRequest.SyncGroupRequestAssignment(member_id=m, assignment=a) for m, a in assignments.items()]
    req = SyncGroupRequest(
        group_id=group,
        generation_id=gen,
        member_id=member,
        protocol_type="consumer",
        protocol_name="range",
        assignments=items,
    )
    return conn.send(req, version)


def heartbeat(conn: Raw, group: str, gen: int, member: str, version: int = 3, instance: str | None = None) -> int:
    req = HeartbeatRequest(group_id=group, generation_id=gen, member_id=member, group_instance_id=instance)
    return int(conn.send(req, version).error_code)


# ---------------------------------------------------------------------- raw protocol tests
@pytest.mark.parametrize("jv", range(10))
def test_group_lifecycle_at_every_version(sim: SimRunner, jv: int) -> None:
    """One member through find/join/sync/heartbeat/commit/fetch/describe/list/leave, covering every
    advertised version of each API in classic and flexible encodings."""
    fc_v, sync_v, hb_v, leave_v = min(jv, 6), min(jv, 5), min(jv, 4), min(jv, 5)
    commit_v, fetch_v, describe_v, list_v = max(2, min(jv + 1, 10)), min(jv + 1, 10), min(jv, 6), min(jv, 5)
    group = f"raw-{jv}"
    boot = Raw(sim, 1)
    if fc_v >= 4:
        found = boot.send(FindCoordinatorRequest(key_type=0, coordinator_keys=[group]), fc_v).coordinators[0]
    else:
        found = boot.send(FindCoordinatorRequest(key=group, key_type=0), fc_v)
    assert found.error_code == E.NONE
    assert found.node_id == coordinator_of(sim, group)
    assert found.port == sim.port_of(found.node_id) and found.host == "127.0.0.1"

    other = Raw(sim, next(b for b in (1, 2, 3) if b != found.node_id))
    assert other.send(join_request(group, ""), jv).error_code == E.NOT_COORDINATOR
    conn = Raw(sim, found.node_id)

    # JoinGroup: v4+ asks for a member id first; the first rebalance waits the (capped) initial delay
    started = time.monotonic()
    first = conn.send(join_request(group, ""), jv)
    if jv >= 4:
        assert first.error_code == E.MEMBER_ID_REQUIRED
        assert first.member_id.startswith("raw-")
        started = time.monotonic()
        joined = conn.send(join_request(group, first.member_id), jv)
    else:
        joined = first
    assert 0.2 < time.monotonic() - started < 3
    me = joined.member_id
    assert joined.error_code == E.NONE and joined.generation_id == 1 and joined.leader == me
    assert joined.protocol_name == "range"
    assert [(m.member_id, m.metadata) for m in joined.members] == [(me, b"subscription")]

    synced = sync(conn, group, 1, me, {me: b"assignment"}, version=sync_v)
    assert synced.error_code == E.NONE and synced.assignment == b"assignment"

    assert heartbeat(conn, group, 1, me, hb_v) == E.NONE
    assert heartbeat(conn, group, 7, me, hb_v) == E.ILLEGAL_GENERATION
    assert heartbeat(conn, group, 1, "stranger", hb_v) == E.UNKNOWN_MEMBER_ID
    assert heartbeat(other, group, 1, me, hb_v) == E.NOT_COORDINATOR

    # OffsetCommit, with unknown topics and partitions rejected per partition
    T = OffsetCommitRequest.OffsetCommitRequestTopic
    P = T.OffsetCommitRequestPartition
    topic_id = sim.call(lambda c: c.topic("t").topic_id)
    by_id = commit_v >= 10
    good = T(topic_id=topic_id, partitions=[]) if by_id else T(name="t", partitions=[])
    good.partitions = [
        P(partition_index=0, committed_offset=42, committed_leader_epoch=-1, committed_metadata="m"),
        P(partition_index=7, committed_offset=1, committed_leader_epoch=-1, committed_metadata=None),
    ]
    topics = [good]
    if not by_id:
        topics.append(T(name="nope", partitions=[P(partition_index=0, committed_offset=1, committed_metadata="")]))
    commit = OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=1, member_id=me, topics=topics)
    result = conn.send(commit, commit_v)
    errors = [[p.error_code for p in t.partitions] for t in result.topics]
    expected = [[E.NONE, E.UNKNOWN_TOPIC_OR_PARTITION]] + ([] if by_id else [[E.UNKNOWN_TOPIC_OR_PARTITION]])
    assert errors == expected
    stale = OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=0, member_id=me, topics=[good])
    assert conn.send(stale, commit_v).topics[0].partitions[0].error_code == E.ILLEGAL_GENERATION

    # OffsetFetch: requested partitions (-1 when nothing committed) and, from v2, all (topics=None)
    def fetched(topics: list[tuple[Any, list[int]]] | None) -> dict[tuple[Any, int], tuple[int, str | None]]:
        if fetch_v >= 8:
            G = OffsetFetchRequest.OffsetFetchRequestGroup
            GT = G.OffsetFetchRequestTopics
            wanted = (
                None
                if topics is None
                else [
                    GT(topic_id=k, partition_indexes=ps) if fetch_v >= 10 else GT(name=k, partition_indexes=ps)
                    for k, ps in topics
                ]
            )
            resp = conn.send(OffsetFetchRequest(groups=[G(group_id=group, topics=wanted)]), fetch_v)
            assert resp.groups[0].error_code == E.NONE
            rtopics = resp.groups[0].topics
        else:
            RT = OffsetFetchRequest.OffsetFetchRequestTopic
            wanted = None if topics is None else [RT(name=k, partition_indexes=ps) for k, ps in topics]
            resp = conn.send(OffsetFetchRequest(group_id=group, topics=wanted), fetch_v)
            rtopics = resp.topics
        return {
            (t.topic_id if fetch_v >= 10 else t.name, p.partition_index): (p.committed_offset, p.metadata)
            for t in rtopics
            for p in t.partitions
            if p.error_code == E.NONE
        }

    key = topic_id if fetch_v >= 10 else "t"
    assert fetched([(key, [0, 1])]) == {(key, 0): (42, "m"), (key, 1): (-1, "")}
    if fetch_v >= 2:
        assert fetched(None) == {(key, 0): (42, "m")}

    # DescribeGroups and ListGroups (each broker lists the groups it coordinates)
    described = conn.send(DescribeGroupsRequest(groups=[group], include_authorized_operations=True), describe_v).groups[
        0
    ]
    assert (described.error_code, described.group_state, described.protocol_type) == (E.NONE, "Stable", "consumer")
    assert described.protocol_data == "range"
    assert [(m.member_id, m.client_id, m.client_host, m.member_assignment) for m in described.members] == [
        (me, "raw", "/127.0.0.1", b"assignment")
    ]
    wrong = other.send(DescribeGroupsRequest(groups=[group], include_authorized_operations=False), describe_v)
    assert wrong.groups[0].error_code == E.NOT_COORDINATOR
    listed = conn.send(ListGroupsRequest(states_filter=[], types_filter=[]), list_v)
    assert (group, "consumer") in [(g.group_id, g.protocol_type) for g in listed.groups]
    assert group not in [g.group_id for g in other.send(ListGroupsRequest(), list_v).groups]

    # LeaveGroup empties the group; its offsets stay
    if leave_v >= 3:
        M = LeaveGroupRequest.MemberIdentity
        left = conn.send(LeaveGroupRequest(group_id=group, members=[M(member_id=me), M(member_id="ghost")]), leave_v)
        assert left.error_code == E.NONE
        assert [(m.member_id, m.error_code) for m in left.members] == [(me, E.NONE), ("ghost", E.UNKNOWN_MEMBER_ID)]
    else:
        assert conn.send(LeaveGroupRequest(group_id=group, member_id=me), leave_v).error_code == E.NONE
        assert conn.send(LeaveGroupRequest(group_id=group, member_id=me), leave_v).error_code == E.UNKNOWN_MEMBER_ID
    assert sim.call(lambda c: coordinator_for(c).groups[group].state) == GroupState.EMPTY
    described = conn.send(DescribeGroupsRequest(groups=[group]), describe_v).groups[0]
    assert (described.group_state, described.members) == ("Empty", [])
    assert fetched([(key, [0])]) == {(key, 0): (42, "m")}

    # DeleteGroups (versions 0-2) removes the empty group and its offsets
    delete_v = jv % 3
    ghost = next(g for g in (f"ghost-{i}" for i in range(100)) if coordinator_of(sim, g) == found.node_id)
    deleted = conn.send(DeleteGroupsRequest(groups_names=[group, ghost]), delete_v).results
    assert [(r.group_id, r.error_code) for r in deleted] == [(group, E.NONE), (ghost, GROUP_ID_NOT_FOUND)]
    assert fetched([(key, [0])]) == {(key, 0): (-1, "")}
    for c in (boot, other, conn):
        c.close()


def test_rebalance_and_session_expiry_in_real_time(make_sim: Callable[..., SimRunner]) -> None:
    """A second member makes the first rejoin (REBALANCE_IN_PROGRESS), followers wait for the
    leader's SyncGroup, stale generations are refused, and a silent member is dropped after its
    session timeout measured in real seconds although simulated time runs 50x faster."""
    sim = make_sim(configs={"group.min.session.timeout.ms": "500"}, clock=VirtualClock(speed=50))
    group = "rebalance"
    cid = coordinator_of(sim, group)
    a, b, b2 = Raw(sim, cid), Raw(sim, cid), Raw(sim, cid)
    ja = join(a, group)
    assert ja.generation_id == 1 and ja.leader == ja.member_id
    assert sync(a, group, 1, ja.member_id, {ja.member_id: b"all"}).assignment == b"all"

    with ThreadPoolExecutor(2) as pool:
        fb = pool.submit(join, b, group, session_ms=1000)
        deadline = time.monotonic() + 5
        while heartbeat(a, group, 1, ja.member_id) != E.REBALANCE_IN_PROGRESS:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert not fb.done()  # b waits until a rejoins
        ja2 = a.send(join_request(group, ja.member_id), 5)
        jb = fb.result(5)
        assert ja2.generation_id == jb.generation_id == 2
        assert ja2.leader == jb.leader == ja.member_id
        assert sorted(m.member_id for m in ja2.members) == sorted([ja.member_id, jb.member_id])
        assert jb.members == []
        # the follower's SyncGroup waits for the leader's
        fsync = pool.submit(sync, b, group, 2, jb.member_id, {})
        time.sleep(0.2)
        assert not fsync.done()
        assert heartbeat(b2, group, 1, jb.member_id) == E.ILLEGAL_GENERATION
        assigned = sync(a, group, 2, ja.member_id, {ja.member_id: b"p0,p1", jb.member_id: b"p2"})
        assert assigned.assignment == b"p0,p1"
        assert fsync.result(5).assignment == b"p2"

    # b goes silent: 0.5 s later (25 s of simulated time) it is still a member ...
    started = time.monotonic()
    while time.monotonic() - started < 0.5:
        assert heartbeat(a, group, 2, ja.member_id) == E.NONE
        time.sleep(0.1)
    # ... and after its 1 s session timeout the coordinator drops it and a has to rejoin alone
    deadline = time.monotonic() + 5
    while heartbeat(a, group, 2, ja.member_id) != E.REBALANCE_IN_PROGRESS:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert 0.9 < time.monotonic() - started < 3
    ja3 = a.send(join_request(group, ja.member_id), 5)
    assert ja3.generation_id == 3 and [m.member_id for m in ja3.members] == [ja.member_id]
    assert heartbeat(b2, group, 2, jb.member_id) == E.UNKNOWN_MEMBER_ID
    for c in (a, b, b2):
        c.close()


def test_static_member_restart_keeps_its_assignment(sim: SimRunner) -> None:
    """KIP-345: a static member rejoining with a new member id takes over without a rebalance;
    its old member id is fenced."""
    group = "static"
    conn = Raw(sim, coordinator_of(sim, group))
    j1 = join(conn, group, instance="i-1")
    assert j1.error_code == E.NONE and j1.member_id.startswith("i-1-")
    assert sync(conn, group, 1, j1.member_id, {j1.member_id: b"mine"}).assignment == b"mine"
    j2 = join(conn, group, instance="i-1")  # restarted: no member id, same instance id
    assert j2.error_code == E.NONE and j2.member_id != j1.member_id and j2.generation_id == 1
    assert sync(conn, group, 1, j2.member_id, {}).assignment == b"mine"
    assert heartbeat(conn, group, 1, j1.member_id, instance="i-1") == FENCED_INSTANCE_ID
    assert heartbeat(conn, group, 1, j2.member_id, instance="i-1") == E.NONE
    deleted = conn.send(DeleteGroupsRequest(groups_names=[group]), 2).results
    assert deleted[0].error_code == NON_EMPTY_GROUP
    conn.close()


def test_find_coordinator_fails_over_and_offsets_survive(make_sim: Callable[..., SimRunner]) -> None:
    sim = make_sim()
    groups = [f"g{i}" for i in range(12)]
    before = {g: coordinator_of(sim, g) for g in groups}
    assert set(before.values()) == {1, 2, 3}  # groups spread over the brokers
    victim = before["g0"]
    admin = KafkaAdminClient(bootstrap_servers=sim.bootstrap, request_timeout_ms=5000)
    assert admin.alter_group_offsets("g0", {KTopicPartition("t", 1): OffsetAndMetadata(17, "x", -1)}) == {
        KTopicPartition("t", 1): kafka_errors.NoError
    }
    admin.close()
    sim.crash(victim)
    after = {g: coordinator_of(sim, g) for g in groups}
    assert all(after[g] == before[g] for g in groups if before[g] != victim)  # stable while alive
    assert all(after[g] != victim and after[g] != -1 for g in groups)
    survivor = next(b for b in (1, 2, 3) if b != victim)
    conn = Raw(sim, survivor)
    found = conn.send(FindCoordinatorRequest(key="g0", key_type=0), 2)
    assert (found.error_code, found.node_id) == (E.NONE, after["g0"])
    coord = Raw(sim, after["g0"])
    T = OffsetFetchRequest.OffsetFetchRequestTopic
    resp = coord.send(OffsetFetchRequest(group_id="g0", topics=[T(name="t", partition_indexes=[1])]), 7)
    assert resp.topics[0].partitions[0].committed_offset == 17
    for b in (1, 2, 3):
        if b != victim:
            sim.crash(b)
    assert coordinator_of(sim, "g0") == -1
    conn.close()
    coord.close()


def test_find_coordinator_without_live_brokers_answers_not_available(sim: SimRunner) -> None:
    """An isolated broker, fenced by the controller, is the only one left: it still answers
    clients, but no broker can coordinate a group."""
    sim.isolate(1)
    assert sim.wait_for(lambda c: c.brokers[1].fenced, 10)
    sim.crash(2)
    sim.crash(3)
    conn = Raw(sim, 1)
    old = conn.send(FindCoordinatorRequest(key="g", key_type=0), 3)
    assert (old.error_code, old.node_id, old.port) == (E.COORDINATOR_NOT_AVAILABLE, -1, -1)
    batched = conn.send(FindCoordinatorRequest(key_type=0, coordinator_keys=["g", "h"]), 4).coordinators
    assert [(c.key, c.error_code) for c in batched] == [
        ("g", E.COORDINATOR_NOT_AVAILABLE),
        ("h", E.COORDINATOR_NOT_AVAILABLE),
    ]
    share = conn.send(FindCoordinatorRequest(key_type=2, coordinator_keys=["g:t:0"]), 6).coordinators
    assert share[0].error_code == E.INVALID_REQUEST
    assert conn.send(join_request("g", ""), 5).error_code == E.NOT_COORDINATOR
    conn.close()


# ---------------------------------------------------------------------- real clients
def produce(sim: SimRunner, per_partition: int, start: int = 0) -> None:
    p = Producer({"bootstrap.servers": sim.bootstrap, "linger.ms": 1, **QUIET})
    for i in range(start, start + per_partition):
        for part in range(3):
            p.produce("t", value=f"p{part}-{i}".encode(), partition=part)
    assert p.flush(15) == 0


def ck_consumer(sim: SimRunner, group: str, **conf: Any) -> Consumer:
    return Consumer(
        {
            "bootstrap.servers": sim.bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            **SESSION,
            **QUIET,
            **conf,
        }
    )


def poll_until(
    consumers: list[Consumer], done: Callable[[], bool], timeout: float = 15, sink: list[Any] | None = None
) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for c in consumers:
            m = c.poll(0.05)
            if m is not None and m.error() is None and sink is not None:
                sink.append((m.partition(), m.offset(), m.value()))
        if done():
            return True
    return False


def parts(c: Consumer) -> set[int]:
    return {tp.partition for tp in c.assignment()}


def test_confluent_consumer_gets_all_partitions(sim: SimRunner) -> None:
    c = ck_consumer(sim, "solo")
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: parts(c) == {0, 1, 2})
        group = sim.call(lambda cl: coordinator_for(cl).groups["solo"])
        assert group.state == GroupState.STABLE and group.generation_id == 1 and group.protocol_name == "range"
        admin = KafkaAdminClient(bootstrap_servers=sim.bootstrap)
        try:
            assert {
                "group_id": "solo",
                "protocol_type": "consumer",
                "group_state": "Stable",
                "group_type": "classic",
            } in admin.list_groups()
            desc = admin.describe_groups(["solo"])["solo"]
            assert desc["group_state"] == "Stable" and len(desc["members"]) == 1
            assigned = desc["members"][0]["member_assignment"]["assigned_partitions"]
            assert assigned == [{"topic": "t", "partitions": [0, 1, 2]}]
        finally:
            admin.close()
    finally:
        c.close()
    assert sim.call(lambda cl: coordinator_for(cl).groups["solo"].state) == GroupState.EMPTY


def test_two_confluent_consumers_split_the_partitions(sim: SimRunner) -> None:
    c1, c2 = ck_consumer(sim, "pair"), ck_consumer(sim, "pair")
    try:
        c1.subscribe(["t"])
        assert poll_until([c1], lambda: parts(c1) == {0, 1, 2})
        c2.subscribe(["t"])

        def split() -> bool:
            a, b = parts(c1), parts(c2)
            return bool(a) and bool(b) and not a & b and a | b == {0, 1, 2}

        assert poll_until([c1, c2], split)
        group = sim.call(lambda cl: coordinator_for(cl).groups["pair"])
        assert group.generation_id == 2 and len(group.members) == 2
        c2.close()  # LeaveGroup: c1 takes everything back
        assert poll_until([c1], lambda: parts(c1) == {0, 1, 2})
        assert sim.call(lambda cl: coordinator_for(cl).groups["pair"].generation_id) == 3
    finally:
        c1.close()


def test_cooperative_sticky_consumers_rebalance_incrementally(sim: SimRunner) -> None:
    c1 = ck_consumer(sim, "coop", **{"partition.assignment.strategy": "cooperative-sticky"})
    c2 = ck_consumer(sim, "coop", **{"partition.assignment.strategy": "cooperative-sticky"})
    try:
        c1.subscribe(["t"])
        assert poll_until([c1], lambda: parts(c1) == {0, 1, 2})
        c2.subscribe(["t"])
        assert poll_until([c1, c2], lambda: len(parts(c2)) == 1 and parts(c1) | parts(c2) == {0, 1, 2})
        group = sim.call(lambda cl: coordinator_for(cl).groups["coop"])
        assert group.protocol_name == "cooperative-sticky" and group.state == GroupState.STABLE
        assert not parts(c1) & parts(c2)
    finally:
        c2.close()
        c1.close()


def test_static_confluent_consumer_restarts_without_rebalance(sim: SimRunner) -> None:
    conf = {"group.instance.id": "instance-1"}
    c = ck_consumer(sim, "static-ck", **conf)
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: parts(c) == {0, 1, 2})
    finally:
        c.close()  # a static member does not leave: the group keeps it until its session ends
    group = sim.call(lambda cl: coordinator_for(cl).groups["static-ck"])
    assert group.state == GroupState.STABLE and list(group.static_members) == ["instance-1"]
    c = ck_consumer(sim, "static-ck", **conf)
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: parts(c) == {0, 1, 2})
        assert group.generation_id == 1 and len(group.members) == 1
    finally:
        c.close()


def test_confluent_admin_group_operations(sim: SimRunner) -> None:
    admin = AdminClient({"bootstrap.servers": sim.bootstrap, **QUIET})
    c = ck_consumer(sim, "ck-admin")
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: parts(c) == {0, 1, 2})
        listed = admin.list_consumer_groups(request_timeout=10).result()
        assert [(g.group_id, g.state) for g in listed.valid] == [("ck-admin", ConsumerGroupState.STABLE)]
        desc = admin.describe_consumer_groups(["ck-admin"])["ck-admin"].result(10)
        assert desc.state == ConsumerGroupState.STABLE and desc.partition_assignor == "range"
        assert desc.coordinator.id == coordinator_of(sim, "ck-admin")
        [member] = desc.members
        assert (member.host, sorted(tp.partition for tp in member.assignment.topic_partitions)) == (
            "/127.0.0.1",
            [0, 1, 2],
        )
    finally:
        c.close()
    # the group is empty now: offsets can be altered and the group deleted
    request = [ConsumerGroupTopicPartitions("ck-admin", [TopicPartition("t", 0, 5)])]
    admin.alter_consumer_group_offsets(request)["ck-admin"].result(10)
    request = [ConsumerGroupTopicPartitions("ck-admin", [TopicPartition("t", 0), TopicPartition("t", 1)])]
    got = admin.list_consumer_group_offsets(request)["ck-admin"].result(10).topic_partitions
    assert [(tp.partition, tp.offset) for tp in got] == [(0, 5), (1, -1001)]  # -1001: nothing committed
    admin.delete_consumer_groups(["ck-admin"])["ck-admin"].result(10)
    assert sim.call(lambda cl: "ck-admin" not in coordinator_for(cl).groups)


def test_commit_then_new_consumer_resumes_from_committed_offsets(sim: SimRunner) -> None:
    produce(sim, 10)
    c = ck_consumer(sim, "resume")
    seen: list[Any] = []
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: len(seen) >= 30, sink=seen)
        c.commit(
            offsets=[TopicPartition("t", 0, 4), TopicPartition("t", 1, 7), TopicPartition("t", 2, 10)],
            asynchronous=False,
        )
    finally:
        c.close()
    produce(sim, 5, start=10)
    c = ck_consumer(sim, "resume")
    seen = []
    try:
        c.subscribe(["t"])
        # offsets 4..14, 7..14 and 10..14
        assert poll_until([c], lambda: len(seen) >= 11 + 8 + 5 and {p for p, _, _ in seen} == {0, 1, 2}, sink=seen)
        first = {p: min(o for q, o, _ in seen if q == p) for p in range(3)}
        assert first == {0: 4, 1: 7, 2: 10}
        committed = c.committed([TopicPartition("t", i) for i in range(3)], timeout=10)
        assert [tp.offset for tp in committed] == [4, 7, 10]
    finally:
        c.close()


def test_committed_offsets_survive_coordinator_crash(sim: SimRunner) -> None:
    produce(sim, 10)
    group = "survivor"
    c = ck_consumer(sim, group)
    seen: list[Any] = []
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: len(seen) >= 30, sink=seen)
        c.commit(offsets=[TopicPartition("t", i, 3 + i) for i in range(3)], asynchronous=False)
    finally:
        c.close()
    old = coordinator_of(sim, group)
    sim.crash(old)
    assert sim.wait_for(lambda cl: cl.brokers[old].fenced, 10)  # partition leaders moved too
    new = coordinator_of(sim, group)
    assert new not in (old, -1)
    c = ck_consumer(sim, group)
    seen = []
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: {p for p, _, _ in seen} == {0, 1, 2}, sink=seen)
        first = {p: min(o for q, o, _ in seen if q == p) for p in range(3)}
        assert first == {0: 3, 1: 4, 2: 5}
        committed = c.committed([TopicPartition("t", i) for i in range(3)], timeout=10)
        assert [tp.offset for tp in committed] == [3, 4, 5]
    finally:
        c.close()
    assert sim.call(lambda cl: coordinator_for(cl).groups[group].coordinator) == new


def test_live_consumer_follows_its_coordinator_to_another_broker(sim: SimRunner) -> None:
    """A consumer keeps its membership and can still commit when its coordinator crashes."""
    produce(sim, 5)
    group = "follow"
    c = ck_consumer(sim, group)
    seen: list[Any] = []
    try:
        c.subscribe(["t"])
        assert poll_until([c], lambda: len(seen) >= 15, sink=seen)
        member = sim.call(lambda cl: list(coordinator_for(cl).groups[group].members))
        old = coordinator_of(sim, group)
        sim.crash(old)
        c.commit(offsets=[TopicPartition("t", 0, 2)], asynchronous=False)
        assert poll_until([c], lambda: False, timeout=1.5) is False
        state = sim.call(lambda cl: coordinator_for(cl).groups[group])
        assert list(state.members) == member and state.state == GroupState.STABLE
        assert state.offsets[("t", 0)].offset == 2
    finally:
        c.close()


def test_kafka_python_consumer_group(sim: SimRunner) -> None:
    produce(sim, 4)
    kw: dict[str, Any] = {
        "bootstrap_servers": sim.bootstrap,
        "group_id": "kp",
        "auto_offset_reset": "earliest",
        "enable_auto_commit": False,
        "session_timeout_ms": 6000,
        "heartbeat_interval_ms": 300,
    }
    c = KafkaConsumer(**kw)
    try:
        c.subscribe(["t"])
        got: list[Any] = []
        deadline = time.monotonic() + 15
        while len(got) < 12 and time.monotonic() < deadline:
            for records in c.poll(200).values():
                got.extend(records)
        assert sorted((r.partition, r.offset) for r in got) == [(p, o) for p in range(3) for o in range(4)]
        assert c.assignment() == {KTopicPartition("t", i) for i in range(3)}
        c.commit()
        assert [c.committed(KTopicPartition("t", i)) for i in range(3)] == [4, 4, 4]
    finally:
        c.close()
    # a second kafka-python consumer resumes after the commit
    produce(sim, 1, start=4)
    c = KafkaConsumer(**kw)
    try:
        c.subscribe(["t"])
        got = []
        deadline = time.monotonic() + 15
        while len(got) < 3 and time.monotonic() < deadline:
            for records in c.poll(200).values():
                got.extend(records)
        assert sorted((r.partition, r.offset) for r in got) == [(0, 4), (1, 4), (2, 4)]
    finally:
        c.close()
    admin = KafkaAdminClient(bootstrap_servers=sim.bootstrap)
    try:
        offsets = admin.list_group_offsets("kp")["kp"]
        assert {tp.partition: o.offset for tp, o in offsets.items()} == {0: 4, 1: 4, 2: 4}
    finally:
        admin.close()


@pytest.mark.kcat
def test_kcat_balanced_consumer(sim: SimRunner) -> None:
    kcat = kcat_path()
    produce(sim, 3)
    out = subprocess.run(
        [
            kcat,
            "-b",
            sim.bootstrap,
            "-G",
            "kc",
            "-X",
            "session.timeout.ms=6000",
            "-X",
            "auto.offset.reset=earliest",
            "-c",
            "9",
            "-f",
            "%p:%o\n",
            "-q",
            "t",
        ],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert out.returncode == 0, out.stderr
    assert sorted(out.stdout.split()) == sorted(f"{p}:{o}" for p in range(3) for o in range(3))
    # kcat's consumer committed what it read (auto commit on close)
    offsets = sim.call(lambda cl: {k: v.offset for k, v in coordinator_for(cl).committed("kc").items()})
    assert offsets == {("t", 0): 3, ("t", 1): 3, ("t", 2): 3}
