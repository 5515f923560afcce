"""Broker log files as a Kafka 3.9 KRaft broker writes them: log4j lines, hourly rotation, gzip.

Line formats (what `kafkatui.history.logparse` reads back), each after the log4j head
``[2026-11-20 02:13:44,120] INFO ``:

- server.log, logger ``kafka.cluster.Partition``, by the partition's leader:
  ``[Partition orders-7 broker=1] Shrinking ISR from 1,3,5 to 1,3. Leader: (highWatermark: 100,
  endOffset: 100). Out of sync replicas: (brokerId: 5, endOffset: 100, lastCaughtUpTimeMs: ...).``
  followed by ``ISR updated to 1,3  and version updated to 9`` (``(under-min-isr) `` instead of the
  second space when the new ISR is under min ISR); an expansion shows only as ``ISR updated to``.
- state-change.log, logger ``state.change.logger``, ``[Broker id=B] `` prefix: the new leader's
  ``Leader orders-7 with topic id Some(..) starts at leader epoch ...``, and the leader's
  ``Skipped the become-leader state change for ... ISR [1,3] ...`` when the controller changed the ISR
  without a new leader epoch (a broker fenced or in controlled shutdown).
- a few other lines operators see (start-up, controlled shutdown, fencing, the offsets cleaner every
  10 minutes), none of which mentions an ISR.

Files: log4j's DailyRollingFileAppender with Kafka's ``DatePattern='.'yyyy-MM-dd-HH`` rolls
``server.log`` to ``server.log.2026-11-20-02`` when the first line of a later hour arrives, so the
lines of the last hour that had any stay in ``server.log``; `BrokerLogWriter.close` then gzips the
rotated files older than `gzip_before_ms`, as an operator's logrotate would (``....-02.gz``).
"""

from __future__ import annotations

import base64
import gzip
import os
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

SERVER_LOG = "server.log"
STATE_CHANGE_LOG = "state-change.log"
PARTITION_LOGGER = "kafka.cluster.Partition"
STATE_CHANGE_LOGGER = "state.change.logger"
HOUR_MS = 3_600_000


def log4j_time(ts_ms: int) -> str:
    """``2026-11-20 02:13:44,120`` (UTC) for epoch milliseconds."""
    dt = datetime.fromtimestamp(ts_ms // 1000, UTC)
    return f"{dt:%Y-%m-%d %H:%M:%S},{ts_ms % 1000:03d}"


def line(ts_ms: int, text: str, logger: str, level: str = "INFO") -> str:
    """One log4j line (Kafka's ConversionPattern ``[%d] %p %m (%c)%n``)."""
    return f"[{log4j_time(ts_ms)}] {level} {text} ({logger})\n"


def kafka_uuid(u: uuid.UUID) -> str:
    """A topic id as Kafka prints it (URL-safe base64 without padding, 22 characters)."""
    return base64.urlsafe_b64encode(u.bytes).decode().rstrip("=")


def _ids(ids: Sequence[int]) -> str:
    return ",".join(str(i) for i in ids)


def _partition(topic: str, partition: int, broker: int) -> str:
    return f"[Partition {topic}-{partition} broker={broker}]"


def shrink(
    ts_ms: int,
    broker: int,
    topic: str,
    partition: int,
    old_isr: Sequence[int],
    new_isr: Sequence[int],
    high_watermark: int,
    end_offset: int,
    out: Sequence[tuple[int, int, int]],
) -> str:
    """The leader drops lagging replicas; `out` holds (broker, end offset, lastCaughtUpTimeMs)."""
    oos = " ".join(f"(brokerId: {b}, endOffset: {e}, lastCaughtUpTimeMs: {t})" for b, e, t in out)
    text = (
        f"{_partition(topic, partition, broker)} Shrinking ISR from {_ids(old_isr)} to {_ids(new_isr)}. "
        f"Leader: (highWatermark: {high_watermark}, endOffset: {end_offset}). Out of sync replicas: {oos}."
    )
    return line(ts_ms, text, PARTITION_LOGGER)


def isr_updated(
    ts_ms: int, broker: int, topic: str, partition: int, isr: Sequence[int], under_min_isr: bool, partition_epoch: int
) -> str:
    """The controller accepted the leader's AlterPartition (after a shrink or for an expansion)."""
    sep = " (under-min-isr) " if under_min_isr else "  "
    where = _partition(topic, partition, broker)
    text = f"{where} ISR updated to {_ids(isr)}{sep}and version updated to {partition_epoch}"
    return line(ts_ms, text, PARTITION_LOGGER)


def leader_starts(
    ts_ms: int,
    broker: int,
    topic: str,
    partition: int,
    topic_id: uuid.UUID,
    leader_epoch: int,
    end_offset: int,
    partition_epoch: int,
    high_watermark: int,
    isr: Sequence[int],
    under_min_isr: bool,
    previous_leader: int,
) -> str:
    """`broker` became the leader at a new leader epoch (state-change.log)."""
    prev = f"Some({previous_leader})" if previous_leader >= 0 else "None"
    text = (
        f"[Broker id={broker}] Leader {topic}-{partition} with topic id Some({kafka_uuid(topic_id)}) starts at "
        f"leader epoch {leader_epoch} from offset {end_offset} with partition epoch {partition_epoch}, high "
        f"watermark {high_watermark}, ISR [{_ids(isr)}], adding replicas [] and removing replicas [] "
        f"{'(under-min-isr)' if under_min_isr else ''}. Previous leader {prev} and previous leader epoch was "
        f"{leader_epoch - 1}."
    )
    return line(ts_ms, text, STATE_CHANGE_LOGGER)


def leader_told_isr(
    ts_ms: int,
    broker: int,
    topic: str,
    partition: int,
    topic_id: uuid.UUID,
    leader_epoch: int,
    partition_epoch: int,
    high_watermark: int,
    isr: Sequence[int],
    replicas: Sequence[int],
) -> str:
    """The controller changed the ISR of a partition `broker` leads, at the same leader epoch (state-change.log)."""
    state = (
        f"LeaderAndIsrPartitionState(topicName='{topic}', partitionIndex={partition}, controllerEpoch=-1, "
        f"leader={broker}, leaderEpoch={leader_epoch}, isr=[{', '.join(map(str, isr))}], "
        f"partitionEpoch={partition_epoch}, replicas=[{', '.join(map(str, replicas))}], addingReplicas=[], "
        f"removingReplicas=[], isNew=false, leaderRecoveryState=0)"
    )
    text = (
        f"[Broker id={broker}] Skipped the become-leader state change for {topic}-{partition} with topic id "
        f"Some({kafka_uuid(topic_id)}) and partition state {state} since it is already the leader with leader "
        f"epoch {leader_epoch}. Current high watermark {high_watermark}, ISR [{_ids(isr)}], adding replicas [] "
        f"and removing replicas []."
    )
    return line(ts_ms, text, STATE_CHANGE_LOGGER)


# -- lines that are no ISR event (the parser skips them) -------------------------------------------


def started(ts_ms: int, broker: int) -> str:
    return line(ts_ms, f"[KafkaRaftServer nodeId={broker}] Kafka Server started", "kafka.server.KafkaRaftServer")


def unfenced(ts_ms: int, broker: int) -> str:
    return line(
        ts_ms,
        f"[BrokerLifecycleManager id={broker}] The broker has been unfenced. Transitioning from RECOVERY to RUNNING.",
        "kafka.server.BrokerLifecycleManager",
    )


def controlled_shutdown(ts_ms: int, broker: int) -> str:
    return line(
        ts_ms,
        f"[BrokerLifecycleManager id={broker}] Beginning controlled shutdown.",
        "kafka.server.BrokerLifecycleManager",
    )


def shut_down(ts_ms: int, broker: int) -> str:
    return line(ts_ms, f"[BrokerServer id={broker}] shut down completed", "kafka.server.BrokerServer")


def fencing(ts_ms: int, controller: int, broker: int) -> str:
    return line(
        ts_ms,
        f"[QuorumController id={controller}] Fencing broker {broker} because its session has timed out.",
        "org.apache.kafka.controller.ReplicationControlManager",
    )


def offsets_cleaner(ts_ms: int, broker: int) -> str:
    return line(
        ts_ms,
        f"[GroupMetadataManager brokerId={broker}] Removed 0 expired offsets in 0 milliseconds.",
        "kafka.coordinator.group.GroupMetadataManager",
    )


# -- files -------------------------------------------------------------------------------------------


def hour_suffix(ts_ms: int) -> str:
    """``2026-11-20-02``: DatePattern ``'.'yyyy-MM-dd-HH`` of the hour `ts_ms` falls in (UTC)."""
    return datetime.fromtimestamp(ts_ms // 1000, UTC).strftime("%Y-%m-%d-%H")


class BrokerLogWriter:
    """Writes every broker's server.log and state-change.log under ``DIR/broker-B/``, rolled hourly.

    Lines must come in time order. A file per (broker, log, hour) is written as ``NAME.<hour>``;
    `close` leaves the newest one of each log as ``NAME`` and gzips rotated ones older than
    `gzip_before_ms`. Raises OSError when a file cannot be written.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._open: dict[tuple[int, str], tuple[str, IO[str]]] = {}
        self._written: dict[tuple[int, str], list[Path]] = {}
        self.lines = 0

    def write(self, broker: int, name: str, ts_ms: int, text: str) -> None:
        """Append one line (from `line` or a helper above) to `broker`'s log `name`."""
        key = (broker, name)
        hour = hour_suffix(ts_ms)
        current = self._open.get(key)
        if current is None or current[0] != hour:
            if current is not None:
                current[1].close()
            folder = self.directory / f"broker-{broker}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{name}.{hour}"
            self._written.setdefault(key, []).append(path)
            current = (hour, open(path, "a", encoding="utf-8"))  # noqa: SIM115  # closed at the hour's end or by close()
            self._open[key] = current
        current[1].write(text)
        self.lines += 1

    def close(self, gzip_before_ms: int | None = None) -> list[Path]:
        """Finish the files (newest to ``NAME``, old rotated ones gzipped); returns every file written."""
        for _, f in self._open.values():
            f.close()
        self._open.clear()
        cutoff = hour_suffix(gzip_before_ms) if gzip_before_ms is not None else None
        out: list[Path] = []
        for (_, name), paths in sorted(self._written.items()):
            *rotated, newest = paths
            for path in rotated:
                if cutoff is not None and path.name[len(name) + 1 :] < cutoff:
                    out.append(_gzip(path))
                else:
                    out.append(path)
            live = newest.with_name(name)
            newest.replace(live)
            out.append(live)
        self._written.clear()
        return out


def _gzip(path: Path) -> Path:
    """``path`` -> ``path.gz`` (deterministic: no name, mtime 0), the plain file removed."""
    target = path.with_name(path.name + ".gz")
    with (
        open(path, "rb") as src,
        open(target, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
    ):
        while chunk := src.read(1 << 16):
            gz.write(chunk)
    path.unlink()
    return target
