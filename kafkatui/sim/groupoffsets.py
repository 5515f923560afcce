"""The lower layer of the simulated group coordinator: placement, committed offsets, admin.

:class:`GroupOffsets` owns what does not take part in a rebalance: the coordinator's configs
and clock, which broker coordinates a group (``__consumer_offsets`` partition leader), committed
offsets (OffsetCommit / OffsetFetch) and the admin queries (ListGroups, DeleteGroups).
:class:`~kafkatui.sim.groups.GroupCoordinator` adds JoinGroup, SyncGroup, heartbeats and the
timers on top. No I/O, no UI imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kafkatui.sim import errors as E
from kafkatui.sim.groupmodel import (
    DEFAULTS,
    FENCED_INSTANCE_ID,
    GROUP_ID_NOT_FOUND,
    INITIAL_DELAY_CAP_MS,
    NON_EMPTY_GROUP,
    OFFSET_METADATA_TOO_LARGE,
    CommittedOffset,
    Group,
    GroupState,
    PartitionKey,
    java_string_hash,
)
from kafkatui.sim.state import BrokerState

if TYPE_CHECKING:
    from kafkatui.sim.cluster import SimCluster


class GroupOffsets:
    """Group placement, committed offsets and admin queries (the coordinator's lower layer)."""

    def __init__(self, cluster: SimCluster) -> None:
        self.cluster = cluster
        self.groups: dict[str, Group] = {}

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
