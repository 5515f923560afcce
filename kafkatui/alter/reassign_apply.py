"""Start, list and cancel partition reassignments (through `kafkatui.kafka.writes`) and wait for them.

Errors come back per partition as the broker's error name (secrets scrubbed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from kafkatui.alter import audit, journal
from kafkatui.alter.config_write import changed_meanwhile
from kafkatui.alter.reassign import PartitionMove, Progress, progress
from kafkatui.kafka.writes import ReassignmentClient
from kafkatui.model.snapshot import ClusterSnapshot

Key = tuple[str, int]
POLL_SECONDS = 0.5


class Reassigner(ReassignmentClient):
    """Starts and cancels a plan's moves, and lists reassignments, with the user's connection settings."""

    def start(self, moves: Sequence[PartitionMove]) -> dict[Key, str | None]:
        """Ask the controller to move every partition to its new replicas; per partition the error (None: ok)."""
        return self.alter({(m.topic, m.partition): list(m.new) for m in moves})

    def cancel(self, keys: Iterable[Key]) -> dict[Key, str | None]:
        """Cancel the reassignments of these partitions (they go back to their original replicas)."""
        return self.alter(dict.fromkeys(keys))


def wait(
    moves: Sequence[PartitionMove],
    read: Callable[[], ClusterSnapshot],
    reassigner: Reassigner,
    seconds: float,
    update: Callable[[Progress], None],
    poll: float = POLL_SECONDS,
) -> Progress:
    """Poll ListPartitionReassignments and the metadata until every move finished, or `seconds` pass."""
    deadline = time.monotonic() + seconds
    topics = {m.topic for m in moves}
    while True:
        running = reassigner.ongoing(topics)
        state = progress(moves, read(), running)
        journal.die_at("verify")
        update(state)
        if state.done or time.monotonic() >= deadline:
            return state
        time.sleep(poll)


def moved_meanwhile(moves: Sequence[PartitionMove], now: ClusterSnapshot) -> list[str]:
    """Partitions whose replicas are no longer the plan's `old` ones."""
    out = []
    for m in moves:
        info = now.topics.get(m.topic)
        p = next((x for x in info.partitions if x.partition == m.partition), None) if info else None
        if p is None:
            out.append(f"{m.name} no longer exists")
        elif tuple(p.replicas) != tuple(m.old):
            out.append(f"{m.name} replicas {list(m.old)} in the preview, {list(p.replicas)} now")
    return out


def start_audited(
    reassigner: Reassigner,
    moves: Sequence[PartitionMove],
    cluster_id: str | None,
    command_id: str,
    extra: Mapping[str, object] | None = None,
    read: Callable[[], ClusterSnapshot] | None = None,
) -> dict[Key, str | None]:
    """Start the moves the write-ahead way: re-read (with `read`: refused with ChangedMeanwhileError when a
    partition's replicas changed since the plan), intent, AlterPartitionReassignments, one ``reassign``
    outcome record per partition whatever its result."""
    if read is not None:
        moved = moved_meanwhile(moves, read())
        if moved:
            raise changed_meanwhile(moved)
    intent = journal.begin(
        "reassign",
        cluster_id,
        [
            journal.partition_change(m.topic, m.partition, {"replicas": list(m.old)}, {"replicas": list(m.new)})
            for m in moves
        ],
        command_id,
        extra,
    )
    with journal.running(intent):
        journal.die_at("before-send")
        results = reassigner.start(moves)
        journal.die_at("after-send")
        intent.finish(
            [
                audit.partition_record(
                    "reassign",
                    cluster_id,
                    command_id,
                    m.topic,
                    m.partition,
                    {"replicas": list(m.old)},
                    {"replicas": list(m.new)},
                    results[(m.topic, m.partition)],
                    extra=extra,
                )
                for m in moves
            ]
        )
    return results
