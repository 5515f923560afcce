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

Three modules, one concern each: the groups and members as data (:mod:`kafkatui.sim.groupmodel`),
placement, committed offsets and admin queries (:mod:`kafkatui.sim.groupoffsets`), and here the
rebalance protocol itself (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, the timers).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING

from kafkatui.sim import errors as E
from kafkatui.sim.groupmodel import (
    DEFAULTS,
    FENCED_INSTANCE_ID,
    GROUP_ID_NOT_FOUND,
    INITIAL_DELAY_CAP_MS,
    INVALID_GROUP_ID,
    INVALID_SESSION_TIMEOUT,
    NEW_MEMBER_JOIN_TIMEOUT_S,
    NON_EMPTY_GROUP,
    OFFSET_METADATA_TOO_LARGE,
    CommittedOffset,
    Group,
    GroupState,
    JoinResult,
    Member,
    PartitionKey,
    SyncResult,
    java_string_hash,
    resolve_waiter,
)
from kafkatui.sim.groupoffsets import GroupOffsets

if TYPE_CHECKING:
    from kafkatui.sim.cluster import SimCluster

log = logging.getLogger("kafkatui.sim.groups")

__all__ = [  # the group API's names callers import from here
    "DEFAULTS",
    "FENCED_INSTANCE_ID",
    "GROUP_ID_NOT_FOUND",
    "INITIAL_DELAY_CAP_MS",
    "INVALID_GROUP_ID",
    "INVALID_SESSION_TIMEOUT",
    "NEW_MEMBER_JOIN_TIMEOUT_S",
    "NON_EMPTY_GROUP",
    "OFFSET_METADATA_TOO_LARGE",
    "CommittedOffset",
    "Group",
    "GroupCoordinator",
    "GroupState",
    "JoinResult",
    "Member",
    "PartitionKey",
    "SyncResult",
    "coordinator_for",
    "java_string_hash",
]

SWEEP_SECONDS = 0.05
"""Period of the timer that expires sessions and ends join/sync phases."""


class GroupCoordinator(GroupOffsets):
    """The cluster's classic group coordinator: groups, rebalances and committed offsets."""

    def __init__(self, cluster: SimCluster) -> None:
        super().__init__(cluster)
        self._ticker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ timer task

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
        resolve_waiter(member.join_waiter, JoinResult(E.REBALANCE_IN_PROGRESS, member.member_id))
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
        resolve_waiter(member.join_waiter, JoinResult(FENCED_INSTANCE_ID, old_id))
        resolve_waiter(member.sync_waiter, SyncResult(FENCED_INSTANCE_ID))
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
            resolve_waiter(
                waiter, self._generation_result(group, m.member_id, with_members=group.is_leader(m.member_id))
            )
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
                result = SyncResult(
                    error, group.protocol_type, group.protocol_name, m.assignment if error == E.NONE else b""
                )
                resolve_waiter(waiter, result)
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
        resolve_waiter(member.sync_waiter, SyncResult(E.REBALANCE_IN_PROGRESS))
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
        resolve_waiter(member.join_waiter, JoinResult(notify, member.member_id))
        resolve_waiter(member.sync_waiter, SyncResult(notify))
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


def coordinator_for(cluster: SimCluster) -> GroupCoordinator:
    """The cluster's group coordinator, created and attached on first use."""
    coordinator = getattr(cluster, "groups", None)
    if not isinstance(coordinator, GroupCoordinator):
        coordinator = GroupCoordinator(cluster)
        setattr(cluster, "groups", coordinator)  # noqa: B010 - SimCluster has no such attribute yet
    return coordinator
