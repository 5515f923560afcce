"""Start, list and cancel partition reassignments (kafka-python's KafkaAdminClient) and wait for them.

confluent-kafka 2.16 has no API for AlterPartitionReassignments / ListPartitionReassignments;
kafka-python's ``alter_partition_reassignments`` and ``list_partition_reassignments`` send them to
the controller. Errors come back per partition as the broker's error name (secrets scrubbed).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kafkatui.alter import audit, journal
from kafkatui.alter.config_write import changed_meanwhile
from kafkatui.alter.reassign import PartitionMove, Progress, progress
from kafkatui.kafka.errors import KafkaTuiError, one_line, scrub
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.model.snapshot import ClusterSnapshot

Key = tuple[str, int]
POLL_SECONDS = 0.5


def _error_text(err: Any) -> str:
    name = getattr(err, "message", None) or getattr(err, "__name__", None) or str(err)
    desc = getattr(err, "description", "")
    return f"{name}: {desc}" if desc else str(name)


class Reassigner:
    """AlterPartitionReassignments / ListPartitionReassignments with the user's connection settings."""

    def __init__(self, settings: ConnectionSettings) -> None:
        from kafkatui.kafka.source import _new_kafka_python_admin

        self.settings = settings
        self._secrets = settings.secrets()
        try:
            self._admin = _new_kafka_python_admin(settings.to_kafka_python())
        except Exception as exc:  # kafka-python raises many kinds; the user gets one line
            raise KafkaTuiError(self._text(f"connecting for the reassignment: {type(exc).__name__}: {exc}")) from None

    def _text(self, text: str) -> str:
        return one_line(scrub(text, self._secrets))

    def _timeout_ms(self) -> int:
        return int(self.settings.timeout * 1000)

    def _alter(self, targets: dict[Key, list[int] | None]) -> dict[Key, str | None]:
        from kafka import TopicPartition

        try:
            answer = self._admin.alter_partition_reassignments(
                {TopicPartition(t, p): r for (t, p), r in targets.items()}, timeout_ms=self._timeout_ms()
            )
        except Exception as exc:  # a top-level error: every partition failed
            return dict.fromkeys(targets, self._text(f"{type(exc).__name__}: {exc}"))
        out: dict[Key, str | None] = dict.fromkeys(targets, "no answer for this partition")
        for tp, err in answer.items():
            out[(tp.topic, tp.partition)] = None if err is None else self._text(_error_text(err))
        return out

    def start(self, moves: Sequence[PartitionMove]) -> dict[Key, str | None]:
        """Ask the controller to move every partition to its new replicas; per partition the error (None: ok)."""
        return self._alter({(m.topic, m.partition): list(m.new) for m in moves})

    def cancel(self, keys: Iterable[Key]) -> dict[Key, str | None]:
        """Cancel the reassignments of these partitions (they go back to their original replicas)."""
        return self._alter(dict.fromkeys(keys))

    def ongoing(self, topics: Iterable[str] | None = None) -> dict[Key, dict[str, list[int]]]:
        """Reassignments in progress (all, or of `topics`): replicas, adding and removing per partition."""
        try:
            answer = self._admin.list_partition_reassignments(timeout_ms=self._timeout_ms())
        except Exception as exc:
            raise KafkaTuiError(self._text(f"listing reassignments: {type(exc).__name__}: {exc}")) from None
        wanted = None if topics is None else set(topics)
        return {(tp.topic, tp.partition): v for tp, v in answer.items() if wanted is None or tp.topic in wanted}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._admin.close()


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
