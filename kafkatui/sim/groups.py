"""Classic-protocol consumer group coordinator of the simulated cluster.

A port of the parts of Kafka's GroupCoordinator (the "classic" rebalance protocol, KIP-394
member ids, KIP-345 static members, KIP-814 skip-assignment) that real clients exercise:

* Groups move through Empty -> PreparingRebalance -> CompletingRebalance -> Stable (Dead once
  deleted). JoinGroup v4+ with an empty member id gets MEMBER_ID_REQUIRED and a generated id;
  the join phase ends when every known member has rejoined (or the rebalance timeout passes),
  and the first rebalance of an empty group waits ``group.initial.rebalance.delay.ms``, capped
  at ``INITIAL_DELAY_CAP_MS`` of real time so that tests stay fast (every later member extends
  the wait by the same delay, as Kafka's InitialDelayedJoin does).
* The leader gets every member's protocol metadata; its SyncGroup distributes the
  assignments, followers wait for it.
* Sessions, rebalance and sync timeouts run on real (asyncio loop) seconds, not simulated
  time, which may run faster than the wall clock: a client's session.timeout.ms means what it
  means against a real broker.

Offsets and group state live on one coordinator object owned by the SimCluster (in Kafka they
are replicated in ``__consumer_offsets``), so they survive the crash of the coordinator broker;
only the coordinator placement moves (see `GroupCoordinator.coordinator_id`). Everything runs
on the simulator's event loop thread; waiting JoinGroup/SyncGroup requests are asyncio futures.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from kafkatui.sim import errors as E
from kafkatui.sim.state import BrokerState

if TYPE_CHECKING:
    from kafkatui.sim.cluster import SimCluster

log = logging.getLogger("kafkatui.sim.groups")

# Error codes of the group APIs that kafkatui.sim.errors does not define.
OFFSET_METADATA_TOO_LARGE = 12
INVALID_GROUP_ID = 24
INVALID_SESSION_TIMEOUT = 26
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
FENCED_INSTANCE_ID = 82

INITIAL_DELAY_CAP_MS = 300
"""Upper bound (real milliseconds) on group.initial.rebalance.delay.ms, to keep tests fast."""

NEW_MEMBER_JOIN_TIMEOUT_S = 300.0
"""Kafka's NewMemberJoinTimeoutMs: how long a new member may wait in a join phase."""

SWEEP_SECONDS = 0.05
"""Period of the timer that expires sessions and ends join/sync phases."""

DEFAULTS = {
    "group.initial.rebalance.delay.ms": 3000,
    "group.min.session.timeout.ms": 6000,
    "group.max.session.timeout.ms": 1800000,
    "offsets.topic.num.partitions": 50,
    "offset.metadata.max.bytes": 4096,
}

PartitionKey = tuple[str, int]


class GroupState(StrEnum):
    """States of a classic group, spelled as Kafka's DescribeGroups/ListGroups spell them."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(slots=True)
class JoinResult:
    """What a JoinGroup request is answered with."""

    error: int
    member_id: str
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    skip_assignment: bool = False
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)  # (id, instance id, metadata)


@dataclass(slots=True)
class SyncResult:
    """What a SyncGroup request is answered with."""

    error: int
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass(slots=True)
class CommittedOffset:
    """One committed offset of a group."""

    offset: int
    leader_epoch: int = -1
    metadata: str = ""
    commit_timestamp_ms: int = 0
    topic_id: uuid.UUID | None = None  # the topic incarnation it was committed for


@dataclass(slots=True)
class Member:
    """One member of a classic group."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    assignment: bytes = b""
    last_heartbeat: float = 0.0
    is_new: bool = False
    join_waiter: asyncio.Future[JoinResult] | None = None
    sync_waiter: asyncio.Future[SyncResult] | None = None
    supports_skip_assignment: bool = False

    @property
    def awaiting_join(self) -> bool:
        return self.join_waiter is not None

    @property
    def awaiting_sync(self) -> bool:
        return self.sync_waiter is not None

    def metadata(self, protocol: str | None) -> bytes:
        for name, data in self.protocols:
            if name == protocol:
                return data
        return b""

    def matches(self, protocols: list[tuple[str, bytes]]) -> bool:
        return self.protocols == protocols

    def vote(self, candidates: set[str]) -> str:
        """This member's most preferred protocol among `candidates` (its first one if none)."""
        return next((name for name, _ in self.protocols if name in candidates), self.protocols[0][0])

    def keep_alive(self, now: float) -> bool:
        """Kafka's MemberMetadata.shouldKeepAlive: is this member's session still valid?"""
        if self.awaiting_join:
            return not self.is_new or self.last_heartbeat + NEW_MEMBER_JOIN_TIMEOUT_S > now
        if self.awaiting_sync:
            return True
        return self.last_heartbeat + self.session_timeout_ms / 1000.0 > now


@dataclass(slots=True)
class Group:
    """A classic consumer group and its committed offsets."""

    group_id: str
    state: GroupState = GroupState.EMPTY
    generation_id: int = 0
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str | None = None
    members: dict[str, Member] = field(default_factory=dict)
    pending_members: dict[str, float] = field(default_factory=dict)  # member id -> expiry (loop time)
    static_members: dict[str, str] = field(default_factory=dict)  # group instance id -> member id
    pending_sync: set[str] = field(default_factory=set)
    offsets: dict[PartitionKey, CommittedOffset] = field(default_factory=dict)
    # join phase timer: initial delayed join (empty group) or delayed join (rebalance timeout)
    join_deadline: float | None = None
    initial_join: bool = False
    initial_delay_s: float = 0.0
    initial_remaining_s: float = 0.0
    new_member_added: bool = False
    sync_deadline: float | None = None
    coordinator: int = -1  # the broker last seen serving it

    # ------------------------------------------------------------------ queries
    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def has_all_members_joined(self) -> bool:
        return all(m.awaiting_join for m in self.members.values()) and not self.pending_members

    def rebalance_timeout_s(self) -> float:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0) / 1000.0

    def candidate_protocols(self) -> set[str]:
        sets = [{name for name, _ in m.protocols} for m in self.members.values()]
        return set.intersection(*sets) if sets else set()

    def select_protocol(self) -> str:
        """The protocol every member supports that most members prefer (Kafka's vote)."""
        candidates = self.candidate_protocols()
        votes: dict[str, int] = {}
        for m in self.members.values():
            choice = m.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        return max(votes, key=lambda name: votes[name])  # ties: the first member's choice

    def supports_protocols(self, protocol_type: str, protocols: list[tuple[str, bytes]]) -> bool:
        names = {name for name, _ in protocols}
        if self.state == GroupState.EMPTY or not self.members:
            return bool(protocol_type) and bool(names)
        return self.protocol_type == protocol_type and bool(names & self.candidate_protocols())

    def static_member_fenced(self, group_instance_id: str | None, member_id: str) -> bool:
        if group_instance_id is None:
            return False
        current = self.static_members.get(group_instance_id)
        return current is not None and current != member_id

    def current_member_metadata(self) -> list[tuple[str, str | None, bytes]]:
        return [(m.member_id, m.group_instance_id, m.metadata(self.protocol_name)) for m in self.members.values()]

    # ------------------------------------------------------------------ membership
    def add(self, member: Member) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        self.members[member.member_id] = member
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        if self.leader_id is None:
            self.leader_id = member.member_id

    def remove(self, member_id: str) -> Member | None:
        member = self.members.pop(member_id, None)
        instance_id = member.group_instance_id if member is not None else None
        if instance_id is not None and self.static_members.get(instance_id) == member_id:
            del self.static_members[instance_id]
        self.pending_sync.discard(member_id)
        if self.leader_id == member_id:
            self.leader_id = next(iter(self.members), None)
        return member

    def elect_joined_leader(self) -> bool:
        """Kafka's maybeElectNewJoinedLeader: the leader must be a member that rejoined."""
        if self.leader_id is None:
            return False
        leader = self.members.get(self.leader_id)
        if leader is not None and leader.awaiting_join:
            return True
        for m in self.members.values():
            if m.awaiting_join:
                self.leader_id = m.member_id
                return True
        return False


def _resolve(waiter: asyncio.Future[JoinResult] | asyncio.Future[SyncResult] | None, result: object) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(result)  # type: ignore[arg-type]


def java_string_hash(s: str) -> int:
    """Java's String.hashCode (over UTF-16 code units), as Kafka's partitionFor uses it."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


class GroupCoordinator:
    """The cluster's classic group coordinator: groups, rebalances and committed offsets."""

    def __init__(self, cluster: SimCluster) -> None:
        self.cluster = cluster
        self.groups: dict[str, Group] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ configuration and time
    def _config(self, key: str) -> int:
        brokers = self.cluster.brokers
        if brokers:
            value, _ = self.cluster.configs.effective_broker(min(brokers), key)
            if value is not None:
                with contextlib.suppress(ValueError):
                    return int(value)
        return DEFAULTS[key]

    def initial_delay_s(self) -> float:
        """group.initial.rebalance.delay.ms, capped at INITIAL_DELAY_CAP_MS, in seconds."""
        return max(0, min(self._config("group.initial.rebalance.delay.ms"), INITIAL_DELAY_CAP_MS)) / 1000.0

    def session_timeout_range(self) -> tuple[int, int]:
        return self._config("group.min.session.timeout.ms"), self._config("group.max.session.timeout.ms")

    def offset_metadata_max_bytes(self) -> int:
        return self._config("offset.metadata.max.bytes")

    def now(self) -> float:
        """Real seconds (the asyncio loop's clock when one runs here)."""
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return time.monotonic()

    def _ensure_ticker(self) -> None:
        """Start the timer task on the running loop (again, if the simulator was restarted)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._ticker is not None and not self._ticker.done() and self._loop is loop:
            return
        if self._loop is not loop:
            self._forget_waiters()
        self._loop = loop
        self._ticker = loop.create_task(self._tick_loop(), name="kafkatui-sim-groups")

    def _forget_waiters(self) -> None:
        """Drop futures that belong to another (stopped) event loop."""
        for g in self.groups.values():
            for m in g.members.values():
                m.join_waiter = None
                m.sync_waiter = None

    async def _tick_loop(self) -> None:
        while True:
            try:
                self.sweep()
            except Exception:  # a bug here must not stop session expiry for good
                log.exception("group coordinator sweep failed")
            await asyncio.sleep(SWEEP_SECONDS)

    # ------------------------------------------------------------------ placement
    def partition_for(self, key: str) -> int:
        """The __consumer_offsets partition of a group, as Kafka computes it."""
        return (java_string_hash(key) & 0x7FFFFFFF) % max(1, self._config("offsets.topic.num.partitions"))

    def coordinator_id(self, key: str) -> int:
        """The broker that coordinates `key`, or -1 when no broker can.

        Brokers stand in for the leaders of __consumer_offsets partitions: partition p prefers
        the p-th broker (by id, round robin) and fails over to the next live, unfenced one, so
        a group keeps its coordinator as long as that broker lives and comes back to it when
        the preferred broker returns (a preferred leader election). Adding brokers changes
        the rotation and may move groups.
        """
        ids = sorted(self.cluster.brokers)
        if not ids:
            return -1
        start = self.partition_for(key) % len(ids)
        for i in range(len(ids)):
            b = self.cluster.brokers[ids[(start + i) % len(ids)]]
            if not b.fenced and b.state != BrokerState.DOWN:
                return b.id
        return -1

    def is_coordinator(self, broker_id: int, group_id: str) -> bool:
        return self.coordinator_id(group_id) == broker_id

    def _serve(self, group: Group) -> None:
        """Note which broker serves the group; a new coordinator gives every member a fresh
        session, as Kafka's coordinator does when it loads a group it just took over."""
        cid = self.coordinator_id(group.group_id)
        if cid != group.coordinator:
            group.coordinator = cid
            now = self.now()
            for m in group.members.values():
                m.last_heartbeat = now

    # ------------------------------------------------------------------ JoinGroup
    async def join(
        self,
        group_id: str,
        member_id: str,
        group_instance_id: str | None,
        client_id: str,
        client_host: str,
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
        protocol_type: str,
        protocols: list[tuple[str, bytes]],
        *,
        require_known_member_id: bool = True,
        supports_skip_assignment: bool = False,
    ) -> JoinResult:
        """JoinGroup: returns at once (errors, MEMBER_ID_REQUIRED, current generation) or when
        the join phase of the rebalance ends."""
        self._ensure_ticker()
        if not group_id:
            return JoinResult(INVALID_GROUP_ID, member_id)
        lo, hi = self.session_timeout_range()
        if not lo <= session_timeout_ms <= hi:
            return JoinResult(INVALID_SESSION_TIMEOUT, member_id)
        unknown = member_id == ""
        group = self.groups.get(group_id)
        if group is None:
            if not unknown:
                return JoinResult(E.UNKNOWN_MEMBER_ID, member_id)
            group = self.groups[group_id] = Group(group_id)
        self._serve(group)
        if group.state == GroupState.DEAD:
            return JoinResult(E.COORDINATOR_NOT_AVAILABLE, member_id)
        if not group.supports_protocols(protocol_type, protocols):
            return JoinResult(E.INCONSISTENT_GROUP_PROTOCOL, member_id)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[JoinResult] = loop.create_future()
        args = (client_id, client_host, session_timeout_ms, rebalance_timeout_ms, protocol_type, protocols)
        if unknown:
            new_id = f"{group_instance_id or client_id}-{uuid.uuid4()}"
            if group_instance_id is not None and group_instance_id in group.static_members:
                self._update_static_member(group, new_id, group_instance_id, args, fut, supports_skip_assignment)
            elif group_instance_id is None and require_known_member_id:
                group.pending_members[new_id] = self.now() + session_timeout_ms / 1000.0
                return JoinResult(E.MEMBER_ID_REQUIRED, new_id)
            else:
                self._add_member(group, new_id, group_instance_id, args, fut, supports_skip_assignment)
        else:
            early = self._join_known(group, member_id, group_instance_id, args, fut, supports_skip_assignment)
            if early is not None:
                return early
        return await fut

    def _join_known(
        self,
        group: Group,
        member_id: str,
        group_instance_id: str | None,
        args: tuple[str, str, int, int, str, list[tuple[str, bytes]]],
        fut: asyncio.Future[JoinResult],
        supports_skip_assignment: bool,
    ) -> JoinResult | None:
        """A join with a member id; returns the answer when it is not to wait."""
        protocols = args[5]
        if member_id in group.pending_members:
            if group_instance_id is not None:
                return JoinResult(E.UNKNOWN_MEMBER_ID, member_id)
            del group.pending_members[member_id]
            self._add_member(group, member_id, None, args, fut, supports_skip_assignment)
            return None
        if group.static_member_fenced(group_instance_id, member_id):
            return JoinResult(FENCED_INSTANCE_ID, member_id)
        member = group.members.get(member_id)
        if member is None or group.state == GroupState.EMPTY:
            return JoinResult(E.UNKNOWN_MEMBER_ID, member_id)
        if group_instance_id is not None and member.group_instance_id != group_instance_id:
            return JoinResult(FENCED_INSTANCE_ID, member_id)
        member.client_id, member.client_host = args[0], args[1]
        member.supports_skip_assignment = supports_skip_assignment
        if group.state == GroupState.COMPLETING_REBALANCE and member.matches(protocols):
            # it probably missed the join response: hand it the current generation again
            return self._generation_result(group, member_id, with_members=group.is_leader(member_id))
        if group.state == GroupState.STABLE and not group.is_leader(member_id) and member.matches(protocols):
            return self._generation_result(group, member_id, with_members=False)
        self._update_member(group, member, args, fut)
        self._maybe_prepare_rebalance(group)
        self._try_complete_join(group)
        return None

    def _generation_result(self, group: Group, member_id: str, *, with_members: bool, skip: bool = False) -> JoinResult:
        return JoinResult(
            E.NONE,
            member_id,
            generation_id=group.generation_id,
            protocol_type=group.protocol_type,
            protocol_name=group.protocol_name,
            leader=group.leader_id or "",
            skip_assignment=skip,
            members=group.current_member_metadata() if with_members else [],
        )

    def _add_member(
        self,
        group: Group,
        member_id: str,
        group_instance_id: str | None,
        args: tuple[str, str, int, int, str, list[tuple[str, bytes]]],
        fut: asyncio.Future[JoinResult],
        supports_skip_assignment: bool,
    ) -> None:
        client_id, host, session_ms, rebalance_ms, ptype, protocols = args
        member = Member(
            member_id=member_id,
            group_instance_id=group_instance_id,
            client_id=client_id,
            client_host=host,
            session_timeout_ms=session_ms,
            rebalance_timeout_ms=rebalance_ms,
            protocol_type=ptype,
            protocols=list(protocols),
            last_heartbeat=self.now(),
            is_new=True,
            join_waiter=fut,
            supports_skip_assignment=supports_skip_assignment,
        )
        if group.state == GroupState.PREPARING_REBALANCE and group.generation_id == 0:
            group.new_member_added = True
        group.add(member)
        self._maybe_prepare_rebalance(group)
        self._try_complete_join(group)

    def _update_member(
        self,
        group: Group,
        member: Member,
        args: tuple[str, str, int, int, str, list[tuple[str, bytes]]],
        fut: asyncio.Future[JoinResult],
    ) -> None:
        _, _, session_ms, rebalance_ms, _, protocols = args
        member.protocols = list(protocols)
        member.session_timeout_ms = session_ms
        member.rebalance_timeout_ms = rebalance_ms
        # a second join while one waits (a retry on a new connection) replaces the first
        _resolve(member.join_waiter, JoinResult(E.REBALANCE_IN_PROGRESS, member.member_id))
        member.join_waiter = fut

    def _update_static_member(
        self,
        group: Group,
        new_id: str,
        instance_id: str,
        args: tuple[str, str, int, int, str, list[tuple[str, bytes]]],
        fut: asyncio.Future[JoinResult],
        supports_skip_assignment: bool,
    ) -> None:
        """A known static member restarted: it takes over its old identity (KIP-345)."""
        old_id = group.static_members[instance_id]
        current_leader = group.leader_id
        member = group.members.pop(old_id)
        _resolve(member.join_waiter, JoinResult(FENCED_INSTANCE_ID, old_id))
        _resolve(member.sync_waiter, SyncResult(FENCED_INSTANCE_ID))
        member.join_waiter = member.sync_waiter = None
        member.member_id = new_id
        member.client_id, member.client_host = args[0], args[1]
        member.supports_skip_assignment = supports_skip_assignment
        group.members[new_id] = member
        group.static_members[instance_id] = new_id
        if group.leader_id == old_id:
            group.leader_id = new_id
        if old_id in group.pending_sync:
            group.pending_sync.discard(old_id)
            group.pending_sync.add(new_id)
        old_protocol = group.protocol_name
        self._update_member(group, member, args, fut)
        member.last_heartbeat = self.now()
        if group.state == GroupState.STABLE:
            if old_protocol == group.select_protocol():
                member.join_waiter = None
                if supports_skip_assignment:
                    leader = group.is_leader(new_id)
                    result = self._generation_result(group, new_id, with_members=leader, skip=leader)
                else:
                    result = self._generation_result(group, new_id, with_members=False)
                    result.leader = current_leader or ""
                fut.set_result(result)
            else:
                self._maybe_prepare_rebalance(group)
        elif group.state == GroupState.COMPLETING_REBALANCE:
            # the leader may already have assigned to the old member id: start over
            self._prepare_rebalance(group)
        self._try_complete_join(group)

    # ------------------------------------------------------------------ rebalance phases
    def _maybe_prepare_rebalance(self, group: Group) -> None:
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY):
            self._prepare_rebalance(group)

    def _prepare_rebalance(self, group: Group) -> None:
        if group.state == GroupState.COMPLETING_REBALANCE:
            self._reset_and_propagate(group, E.REBALANCE_IN_PROGRESS)
        group.sync_deadline = None
        group.pending_sync.clear()
        now = self.now()
        if group.state == GroupState.EMPTY:
            delay = self.initial_delay_s()
            group.initial_join = True
            group.initial_delay_s = delay
            group.initial_remaining_s = max(group.rebalance_timeout_s() - delay, 0.0)
            group.join_deadline = now + delay
        else:
            group.initial_join = False
            group.join_deadline = now + group.rebalance_timeout_s()
        group.state = GroupState.PREPARING_REBALANCE

    def _try_complete_join(self, group: Group) -> None:
        """End the join phase once every member rejoined (never early for the initial delay)."""
        if group.state != GroupState.PREPARING_REBALANCE:
            return
        now = self.now()
        deadline = group.join_deadline if group.join_deadline is not None else now
        if group.initial_join:
            if now < deadline:
                return
            if group.new_member_added and group.initial_remaining_s > 0:
                group.new_member_added = False
                delay = min(group.initial_delay_s, group.initial_remaining_s)
                group.initial_remaining_s = max(group.initial_remaining_s - delay, 0.0)
                group.join_deadline = now + delay
                return
        elif not group.has_all_members_joined() and now < deadline:
            return
        self._complete_join(group)

    def _complete_join(self, group: Group) -> None:
        """Kafka's onCompleteJoin: drop who did not rejoin, start the next generation."""
        for m in [m for m in group.members.values() if not m.awaiting_join and m.group_instance_id is None]:
            self._remove_member(group, m, notify=E.UNKNOWN_MEMBER_ID, rebalance=False)
        if group.state == GroupState.DEAD:
            return
        if not group.elect_joined_leader() and group.members:
            # nobody rejoined (only static members left): wait another rebalance timeout
            group.initial_join = False
            group.join_deadline = self.now() + group.rebalance_timeout_s()
            return
        group.generation_id += 1
        group.join_deadline = None
        group.initial_join = False
        group.new_member_added = False
        if not group.members:
            group.protocol_name = None
            group.leader_id = None
            group.state = GroupState.EMPTY
            return
        group.protocol_name = group.select_protocol()
        group.state = GroupState.COMPLETING_REBALANCE
        now = self.now()
        for m in group.members.values():
            waiter, m.join_waiter = m.join_waiter, None
            _resolve(waiter, self._generation_result(group, m.member_id, with_members=group.is_leader(m.member_id)))
            m.last_heartbeat = now
            m.is_new = False
        group.pending_sync = set(group.members)
        group.sync_deadline = now + group.rebalance_timeout_s()

    def _reset_and_propagate(self, group: Group, error: int) -> None:
        for m in group.members.values():
            m.assignment = b""
        self._propagate(group, error)

    def _propagate(self, group: Group, error: int) -> None:
        now = self.now()
        for m in group.members.values():
            waiter, m.sync_waiter = m.sync_waiter, None
            if waiter is not None:
                result = SyncResult(error, group.protocol_type, group.protocol_name, m.assignment if error == E.NONE else b"")
                _resolve(waiter, result)
                m.last_heartbeat = now

    # ------------------------------------------------------------------ SyncGroup
    async def sync(
        self,
        group_id: str,
        generation_id: int,
        member_id: str,
        group_instance_id: str | None,
        protocol_type: str | None,
        protocol_name: str | None,
        assignments: dict[str, bytes],
    ) -> SyncResult:
        """SyncGroup: the leader hands in the assignment; everyone gets their own share."""
        self._ensure_ticker()
        group = self.groups.get(group_id)
        if group is None:
            return SyncResult(E.UNKNOWN_MEMBER_ID)
        self._serve(group)
        if group.state == GroupState.DEAD:
            return SyncResult(E.COORDINATOR_NOT_AVAILABLE)
        if group.static_member_fenced(group_instance_id, member_id):
            return SyncResult(FENCED_INSTANCE_ID)
        member = group.members.get(member_id)
        if member is None:
            return SyncResult(E.UNKNOWN_MEMBER_ID)
        if generation_id != group.generation_id:
            return SyncResult(E.ILLEGAL_GENERATION)
        if (protocol_type is not None and protocol_type != group.protocol_type) or (
            protocol_name is not None and protocol_name != group.protocol_name
        ):
            return SyncResult(E.INCONSISTENT_GROUP_PROTOCOL)
        if group.state == GroupState.PREPARING_REBALANCE:
            return SyncResult(E.REBALANCE_IN_PROGRESS)
        if group.state == GroupState.STABLE:
            self._synced(group, member_id)
            member.last_heartbeat = self.now()
            return SyncResult(E.NONE, group.protocol_type, group.protocol_name, member.assignment)
        if group.state != GroupState.COMPLETING_REBALANCE:
            return SyncResult(E.UNKNOWN_MEMBER_ID)
        fut: asyncio.Future[SyncResult] = asyncio.get_running_loop().create_future()
        _resolve(member.sync_waiter, SyncResult(E.REBALANCE_IN_PROGRESS))
        member.sync_waiter = fut
        self._synced(group, member_id)
        if group.is_leader(member_id):
            for m in group.members.values():
                m.assignment = assignments.get(m.member_id, b"")
            self._propagate(group, E.NONE)
            group.state = GroupState.STABLE
        return await fut

    def _synced(self, group: Group, member_id: str) -> None:
        group.pending_sync.discard(member_id)
        if not group.pending_sync:
            group.sync_deadline = None

    # ------------------------------------------------------------------ Heartbeat and LeaveGroup
    def heartbeat(self, group_id: str, generation_id: int, member_id: str, group_instance_id: str | None) -> int:
        """Heartbeat: keeps the session and tells the member about a rebalance."""
        self._ensure_ticker()
        group = self.groups.get(group_id)
        if group is None:
            return E.UNKNOWN_MEMBER_ID
        self._serve(group)
        if group.state == GroupState.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE
        if group.static_member_fenced(group_instance_id, member_id):
            return FENCED_INSTANCE_ID
        member = group.members.get(member_id)
        if member is None or group.state == GroupState.EMPTY:
            return E.UNKNOWN_MEMBER_ID
        if generation_id != group.generation_id:
            return E.ILLEGAL_GENERATION
        member.last_heartbeat = self.now()
        if group.state == GroupState.PREPARING_REBALANCE:
            return E.REBALANCE_IN_PROGRESS
        return E.NONE

    def leave(self, group_id: str, members: list[tuple[str, str | None]]) -> tuple[int, list[int]]:
        """LeaveGroup for a batch of (member id, group instance id); returns (top error, per member)."""
        group = self.groups.get(group_id)
        if group is None:
            return E.NONE, [E.UNKNOWN_MEMBER_ID] * len(members)
        self._serve(group)
        if group.state == GroupState.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE, []
        errors: list[int] = []
        for member_id, instance_id in members:
            if member_id == "":
                current = group.static_members.get(instance_id) if instance_id is not None else None
                if current is None:
                    errors.append(E.UNKNOWN_MEMBER_ID)
                    continue
                member_id = current
            if member_id in group.pending_members:
                del group.pending_members[member_id]
                self._try_complete_join(group)
                errors.append(E.NONE)
            elif group.static_member_fenced(instance_id, member_id):
                errors.append(FENCED_INSTANCE_ID)
            elif member_id in group.members:
                self._remove_member(group, group.members[member_id], notify=E.UNKNOWN_MEMBER_ID)
                errors.append(E.NONE)
            else:
                errors.append(E.UNKNOWN_MEMBER_ID)
        return E.NONE, errors

    def _remove_member(self, group: Group, member: Member, *, notify: int, rebalance: bool = True) -> None:
        """Remove a member (left, expired or not rejoined) and rebalance the rest."""
        _resolve(member.join_waiter, JoinResult(notify, member.member_id))
        _resolve(member.sync_waiter, SyncResult(notify))
        member.join_waiter = member.sync_waiter = None
        group.remove(member.member_id)
        if not rebalance:
            return
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self._prepare_rebalance(group)
        # a member gone from a group waiting for joins may be the last one it waited for
        self._try_complete_join(group)

    # ------------------------------------------------------------------ timers
    def sweep(self) -> None:
        """Expire sessions and pending members, end timed-out join and sync phases."""
        now = self.now()
        for group in list(self.groups.values()):
            self._serve(group)
            if group.coordinator == -1:
                # no broker can coordinate it: nobody can heartbeat, so nobody expires
                for m in group.members.values():
                    m.last_heartbeat = now
                continue
            for pid, expiry in list(group.pending_members.items()):
                if now >= expiry:
                    del group.pending_members[pid]
                    self._try_complete_join(group)
            for m in list(group.members.values()):
                if m.member_id in group.members and not m.keep_alive(now):
                    self._remove_member(group, m, notify=E.UNKNOWN_MEMBER_ID)
            if group.state == GroupState.PREPARING_REBALANCE:
                self._try_complete_join(group)
            if group.sync_deadline is not None and now >= group.sync_deadline:
                self._expire_pending_sync(group)

    def _expire_pending_sync(self, group: Group) -> None:
        """Members that did not SyncGroup within the rebalance timeout are dropped."""
        group.sync_deadline = None
        if group.state not in (GroupState.COMPLETING_REBALANCE, GroupState.STABLE) or not group.pending_sync:
            return
        for member_id in list(group.pending_sync):
            member = group.members.get(member_id)
            if member is not None:
                group.remove(member_id)
        self._prepare_rebalance(group)

    # ------------------------------------------------------------------ offsets
    def commit_offsets(
        self,
        group_id: str,
        generation_id: int,
        member_id: str,
        group_instance_id: str | None,
        offsets: dict[PartitionKey, CommittedOffset],
    ) -> dict[PartitionKey, int]:
        """OffsetCommit: returns an error code per partition."""
        results: dict[PartitionKey, int] = {}
        valid: dict[PartitionKey, CommittedOffset] = {}
        max_meta = self.offset_metadata_max_bytes()
        for key, value in offsets.items():
            topic = self.cluster.topics.get(key[0])
            if topic is None or not 0 <= key[1] < len(topic.partitions):
                results[key] = E.UNKNOWN_TOPIC_OR_PARTITION
            elif value.metadata is not None and len(value.metadata.encode()) > max_meta:
                results[key] = OFFSET_METADATA_TOO_LARGE
            else:
                value.topic_id = topic.topic_id
                valid[key] = value
        if not valid:
            return results
        error = self._commit_error(group_id, generation_id, member_id, group_instance_id)
        if error == E.NONE:
            group = self.groups.setdefault(group_id, Group(group_id))
            now_ms = self.cluster.now_ms
            for key, value in valid.items():
                value.commit_timestamp_ms = now_ms
                group.offsets[key] = value
        results.update({key: error for key in valid})
        return results

    def _commit_error(self, group_id: str, generation_id: int, member_id: str, group_instance_id: str | None) -> int:
        group = self.groups.get(group_id)
        if group is None:
            # a group that only stores offsets (generation -1) may commit; anything else is stale
            return E.NONE if generation_id < 0 else E.ILLEGAL_GENERATION
        self._serve(group)
        if group.state == GroupState.DEAD:
            return E.COORDINATOR_NOT_AVAILABLE
        if group.static_member_fenced(group_instance_id, member_id):
            return FENCED_INSTANCE_ID
        if generation_id < 0 and group.state == GroupState.EMPTY:
            return E.NONE
        member = group.members.get(member_id)
        if member is None:
            return E.UNKNOWN_MEMBER_ID
        if generation_id != group.generation_id:
            return E.ILLEGAL_GENERATION
        if group.state == GroupState.COMPLETING_REBALANCE:
            return E.REBALANCE_IN_PROGRESS
        member.last_heartbeat = self.now()
        return E.NONE

    def committed(self, group_id: str) -> dict[PartitionKey, CommittedOffset]:
        """Every committed offset of a group whose topic still exists (same incarnation)."""
        group = self.groups.get(group_id)
        if group is None:
            return {}
        for key, value in list(group.offsets.items()):
            topic = self.cluster.topics.get(key[0])
            if topic is None or (value.topic_id is not None and topic.topic_id != value.topic_id):
                del group.offsets[key]  # Kafka drops the offsets of deleted topics
        return dict(group.offsets)

    def fetch_offsets(
        self, group_id: str, partitions: Iterable[PartitionKey] | None
    ) -> dict[PartitionKey, CommittedOffset | None]:
        """OffsetFetch: the committed offset of each partition (None: nothing committed).

        `partitions=None` means every partition the group committed for.
        """
        committed = self.committed(group_id)
        if partitions is None:
            return dict(sorted(committed.items()))
        return {key: committed.get(key) for key in partitions}

    # ------------------------------------------------------------------ admin
    def list_groups(self, broker_id: int | None = None) -> list[Group]:
        """Groups coordinated by `broker_id` (all groups when None)."""
        return [
            g
            for g in self.groups.values()
            if g.state != GroupState.DEAD and (broker_id is None or self.coordinator_id(g.group_id) == broker_id)
        ]

    def delete_group(self, group_id: str) -> int:
        """DeleteGroups semantics: only a group without members can go."""
        group = self.groups.get(group_id)
        if group is None or group.state == GroupState.DEAD:
            return GROUP_ID_NOT_FOUND
        if group.state != GroupState.EMPTY:
            return NON_EMPTY_GROUP
        group.state = GroupState.DEAD
        for pid in list(group.pending_members):
            del group.pending_members[pid]
        del self.groups[group_id]
        return E.NONE


def coordinator_for(cluster: SimCluster) -> GroupCoordinator:
    """The cluster's group coordinator, created and attached on first use."""
    coordinator = getattr(cluster, "groups", None)
    if not isinstance(coordinator, GroupCoordinator):
        coordinator = GroupCoordinator(cluster)
        setattr(cluster, "groups", coordinator)  # noqa: B010 - SimCluster has no such attribute yet
    return coordinator
