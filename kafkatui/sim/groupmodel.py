"""Consumer groups of the simulated cluster as data: states, members, join and sync results.

:class:`Group` and :class:`Member` hold what Kafka's ``GroupMetadata`` / ``MemberMetadata``
hold (generation, protocol, leader, members' metadata and assignments, waiting JoinGroup and
SyncGroup futures); :class:`GroupState` is the classic protocol's state machine. The
coordinator that drives them lives in :mod:`kafkatui.sim.groups`. No I/O, no UI imports.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from enum import StrEnum

PartitionKey = tuple[str, int]

# Error codes of the group APIs that kafkatui.sim.errors does not define.
OFFSET_METADATA_TOO_LARGE = 12
INVALID_GROUP_ID = 24
INVALID_SESSION_TIMEOUT = 26
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
FENCED_INSTANCE_ID = 82

INITIAL_DELAY_CAP_MS = 300
"""Upper bound (real milliseconds) on group.initial.rebalance.delay.ms, to keep tests fast."""

DEFAULTS = {
    "group.initial.rebalance.delay.ms": 3000,
    "group.min.session.timeout.ms": 6000,
    "group.max.session.timeout.ms": 1800000,
    "offsets.topic.num.partitions": 50,
    "offset.metadata.max.bytes": 4096,
}

NEW_MEMBER_JOIN_TIMEOUT_S = 300.0
"""Kafka's NewMemberJoinTimeoutMs: how long a new member may wait in a join phase."""


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


def resolve_waiter(waiter: asyncio.Future[JoinResult] | asyncio.Future[SyncResult] | None, result: object) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(result)  # type: ignore[arg-type]


def java_string_hash(s: str) -> int:
    """Java's String.hashCode (over UTF-16 code units), as Kafka's partitionFor uses it."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h
