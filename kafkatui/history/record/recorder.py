"""Record ISR history: tap the snapshots the dashboard gets and append changes to gzip JSON Lines.

`Recorder.record(snapshot)` writes what changed since the previous snapshot (format: see
`kafkatui.history.record.schema`), plus a full ``snapshot`` record at its first write and at the first
write of every UTC hour, so any minute can be rebuilt from the nearest snapshot record forward.
`Recorder.record_failure(ts, reason)` notes that the cluster could not be read; the next
successful `record` writes a ``gap`` record (and a fresh snapshot record) before anything else, and
`Recorder.close()` writes it when recording stops before the cluster came back.

Each `record` call is one gzip member appended and flushed (``fsync=True`` also syncs it to disk),
so a crash loses at most the batch being written, and readers keep that batch's complete lines.
A failed write is rolled back (the file truncated to its previous size) and raises one
`RecorderError` with a one-line message; the recorder's state is unchanged, so the next
successful call still writes every change since the last written snapshot.

Cost per snapshot: comparing with the previous snapshot skips topics and partitions whose objects
are shared and compares the rest by a few tuples; health classes, min ISR and serialisation are
computed only for changed partitions. Only the hourly snapshot record, a broker arriving or
leaving (leaders' liveness decides OFFLINE) and a broker-config change (min ISR of every topic)
cost a pass over the cluster.

The recorder never imports textual; it is thread-safe (one lock).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import os
import re
import shutil
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkatui.history.record import schema
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.model import rules
from kafkatui.model.health import ASSUMED_DEFAULT, Health, effective_min_isr
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo

if TYPE_CHECKING:  # the Kafka clients are not needed to record or read
    from kafkatui.kafka.source import ClusterSource

_DAY_DIR = re.compile(r"^\d{4}-\d\d-\d\d$")
_MEMBER_HEAD = b"\x1f\x8b\x08\x00\x00\x00\x00\x00"  # gzip magic, deflate, no flags, mtime 0 (how we write)
_CHUNK = 1 << 12


class RecorderError(Exception):
    """The history could not be written (unwritable directory, disk full); one line."""


def _known_min_isr(snap: ClusterSnapshot, topic: str, known: int | None) -> int:
    """The topic's min ISR in `snap`; when its configs could not be read this time (a partial snapshot:
    DescribeConfigs fails while a broker hangs), the value last read instead of Kafka's default 1, so
    that a partition at min ISR is not recorded as merely under-replicated."""
    value, source = effective_min_isr(snap, topic)
    return known if source == ASSUMED_DEFAULT and known is not None else value


def classify(p: PartitionInfo, min_isr: int, live: frozenset[int]) -> Health:
    """One partition's class under the min ISR its leader enforces (`effective`), by the one class
    table `kafkatui.model.rules.CLASS_RULES` that `kafkatui.model.health.assess` uses too."""
    return Health[rules.classify(p.leader, p.replicas, p.isr, min_isr, live)]


def effective(p: PartitionInfo, min_isr: int, capped: bool) -> int:
    """The min ISR `p`'s leader enforces given the topic's configured `min_isr` (`rules`)."""
    return rules.effective_min_isr(min_isr, len(p.replicas), capped)


def _what_changed(q: PartitionInfo, p: PartitionInfo) -> list[str]:
    out = []
    if q.isr != p.isr:
        out.append("isr")
    if q.leader != p.leader:
        out.append("leader")
    if q.leader_epoch != p.leader_epoch:
        out.append("epoch")
    if q.replicas != p.replicas:
        out.append("replicas")
    return out


class Recorder:
    """Appends ISR history of one cluster under `directory` (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.directory = Path(directory)
        self.fsync = fsync
        self._lock = threading.Lock()
        self._prev: ClusterSnapshot | None = None
        self._min_isr: dict[str, int] = {}
        self._snapshot_hour: str | None = None
        self._last_ok: float | None = None
        self._gap_start: float | None = None
        self._gap_reason = ""
        self._failures = 0
        self.records_written = 0

    # -- input -----------------------------------------------------------------------------------

    def record_failure(self, ts: float, reason: str) -> None:
        """Note that the cluster could not be read at `ts` (written as a gap by the next `record`)."""
        with self._lock:
            if self._failures == 0:
                self._gap_start = self._last_ok if self._last_ok is not None else ts
            self._failures += 1
            self._gap_reason = " ".join(str(reason).split())[:300]

    def record(self, snapshot: ClusterSnapshot) -> int:
        """Write what changed since the previous snapshot; returns the number of records written.

        Records are stamped with ``snapshot.taken_at`` (now when it is 0). Raises RecorderError.
        """
        with self._lock:
            ts = snapshot.taken_at if snapshot.taken_at > 0 else time.time()
            hour = schema.hour_path(self.directory, ts)
            records: list[dict[str, Any]] = []
            reason: str | None = None
            if self._failures:
                assert self._gap_start is not None
                records.append(
                    schema.gap_record(ts, snapshot.cluster_id, self._gap_start, self._gap_reason, self._failures)
                )
                reason = "after-gap"
            min_isr = dict(self._min_isr)
            if self._prev is not None:
                records.extend(self._changes(self._prev, snapshot, ts, min_isr))
            else:
                reason = "start"
            if reason is None and str(hour) != self._snapshot_hour:
                reason = "hour"
            if reason is not None:
                records.append(self._snapshot_record(snapshot, ts, reason, min_isr))
            self._append(hour, records)
            # state moves on only once written: a failed write is retried with the next snapshot
            self._prev = snapshot
            self._min_isr = min_isr
            self._last_ok = ts
            self._failures = 0
            self._gap_start = None
            if reason is not None:
                self._snapshot_hour = str(hour)
            self.records_written += len(records)
            return len(records)

    def flush(self, ts: float | None = None) -> int:
        """Write what is known but not yet on disk: failures not yet followed by a snapshot, as a gap
        ending at `ts` (now by default), so a replay of today sees the outage going on. Every change
        is on disk as soon as `record` returns. Returns the records written (0 or 1); raises
        RecorderError. Recording goes on (its next record starts with a snapshot after a gap)."""
        with self._lock:
            return self._flush_gap(ts if ts is not None else time.time())

    def close(self, ts: float | None = None) -> int:
        """Stop recording: failures not yet followed by a snapshot are written as a gap ending at `ts`
        (now by default), so a recording stopped during an outage still says so, then an ``end`` record
        (a replay carries no state past it). Returns the records written; raises RecorderError.
        Recording may go on afterwards (it starts with a snapshot)."""
        with self._lock:
            ts = ts if ts is not None else time.time()
            written = self._flush_gap(ts)
            if self._prev is None and not written:
                return 0  # nothing was recorded: nothing ends
            cluster = self._prev.cluster_id if self._prev is not None else None
            self._append(schema.hour_path(self.directory, ts), [schema.end_record(ts, cluster)])
            self.records_written += 1
            self._prev = None  # what happens next is unknown: the next record starts with a snapshot
            return written + 1

    def _flush_gap(self, ts: float) -> int:
        if not self._failures:
            return 0
        assert self._gap_start is not None
        cluster = self._prev.cluster_id if self._prev is not None else None
        self._append(
            schema.hour_path(self.directory, ts),
            [schema.gap_record(ts, cluster, self._gap_start, self._gap_reason, self._failures)],
        )
        self.records_written += 1
        self._gap_start = None
        self._failures = 0
        self._prev = None  # what happens next is unknown: the next record starts with a snapshot
        return 1

    def poll(self, source: ClusterSource) -> ClusterSnapshot | None:
        """Take one snapshot from `source` and record it; an unreachable cluster is recorded as a failure."""
        try:
            snap = source.snapshot()
        except KafkaTuiError as exc:
            self.record_failure(time.time(), str(exc))
            return None
        self.record(snap)
        return snap

    # -- changes ---------------------------------------------------------------------------------

    def _changes(
        self, old: ClusterSnapshot, new: ClusterSnapshot, ts: float, min_isr: dict[str, int]
    ) -> list[dict[str, Any]]:
        cid = new.cluster_id
        out: list[dict[str, Any]] = []
        old_b = {b.id: b for b in old.brokers}
        new_b = {b.id: b for b in new.brokers}
        moved = set(old_b) ^ set(new_b)
        for b in sorted(set(old_b) - set(new_b)):
            out.append(schema.broker_record(ts, cid, b, None))
        for b in sorted(set(new_b) - set(old_b)):
            out.append(schema.broker_record(ts, cid, b, new_b[b]))
        if old.controller_id != new.controller_id:
            out.append(schema.controller_record(ts, cid, old.controller_id, new.controller_id))
        for name in sorted(set(old.topics) - set(new.topics)):
            out.append(schema.topic_record(ts, cid, name, "removed"))
            min_isr.pop(name, None)
        live = new.broker_ids
        capped = new.kafka.capped
        rule_changed = old.kafka.capped != capped  # an upgrade across 3.7 changes every effective min ISR
        broker_cfg_changed = old.broker_configs is not new.broker_configs and old.broker_configs != new.broker_configs
        # a broker coming or going changes the class of the partitions it leads (OFFLINE or back)
        was_live = old.broker_ids
        for name in sorted(new.topics):
            t = new.topics[name]
            before = old.topics.get(name)
            if before is None:
                out.append(schema.topic_record(ts, cid, name, "added"))
                m = min_isr[name] = effective_min_isr(new, name)[0]
                for p in t.partitions:
                    e = effective(p, m, capped)
                    out.append(schema.partition_record(ts, cid, p, m, classify(p, e, live), ["new"], None, e))
                continue
            if before is t and not moved and not broker_cfg_changed and not rule_changed:
                continue
            m_old = min_isr.get(name)
            if m_old is None or broker_cfg_changed or (before.configs is not t.configs and before.configs != t.configs):
                m = min_isr[name] = _known_min_isr(new, name, m_old)
            else:
                m = m_old
            if (m != m_old and m_old is not None) or rule_changed:
                for i, p in enumerate(t.partitions):
                    q = before.partitions[i] if i < len(before.partitions) else None
                    changed = (_what_changed(q, p) if q is not None else ["new"]) + ["min_isr"]
                    e = effective(p, m, capped)
                    out.append(schema.partition_record(ts, cid, p, m, classify(p, e, live), changed, q, e))
                continue
            if before.partitions is t.partitions and not moved:
                continue
            olds = before.partitions
            for i, p in enumerate(t.partitions):
                q = olds[i] if i < len(olds) else None
                e = effective(p, m, capped)
                if q is None:
                    out.append(schema.partition_record(ts, cid, p, m, classify(p, e, live), ["new"], None, e))
                    continue
                changed = [] if q is p else _what_changed(q, p)
                if (
                    moved
                    and (p.leader in moved or q.leader in moved)
                    and classify(q, effective(q, m, capped), was_live) != classify(p, e, live)
                ):
                    changed.append("broker")
                if changed:
                    out.append(schema.partition_record(ts, cid, p, m, classify(p, e, live), changed, q, e))
        return out

    def _snapshot_record(
        self, snap: ClusterSnapshot, ts: float, reason: str, min_isr: dict[str, int]
    ) -> dict[str, Any]:
        live = snap.broker_ids
        capped = snap.kafka.capped
        topics: dict[str, dict[str, Any]] = {}
        for name in sorted(snap.topics):
            m = min_isr[name] = _known_min_isr(snap, name, min_isr.get(name))
            topics[name] = {
                "min_isr": m,
                "partitions": [
                    [
                        p.partition,
                        p.leader,
                        p.leader_epoch,
                        list(p.replicas),
                        list(p.isr),
                        classify(p, effective(p, m, capped), live).name,
                    ]
                    for p in snap.topics[name].partitions
                ],
            }
        return schema.snapshot_record(ts, snap.cluster_id, snap.controller_id, snap.brokers, topics, reason, snap.kafka)

    # -- output ----------------------------------------------------------------------------------

    def _append(self, path: Path, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()
        member = gzip.compress(data, mtime=0)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "ab") as f:
                size = f.tell()
                try:
                    f.write(member)
                    f.flush()
                    if self.fsync:
                        os.fsync(f.fileno())
                except OSError:
                    with contextlib.suppress(OSError):
                        f.truncate(size)
                    raise
        except OSError as exc:
            raise RecorderError(_one_line(path, exc)) from None

    # -- retention -------------------------------------------------------------------------------

    def prune(self, retention_days: int, now: float | None = None) -> list[str]:
        """Delete day folders older than `retention_days` days (UTC); returns the days removed."""
        return prune(self.directory, retention_days, now)


def _one_line(path: Path, exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "disk full"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "permission denied"
    else:
        why = exc.strerror or type(exc).__name__
    return f"cannot write ISR history to {path}: {why}"


def prune(directory: str | os.PathLike[str], retention_days: int, now: float | None = None) -> list[str]:
    """Delete ``YYYY-MM-DD`` folders under `directory` older than `retention_days` days (today counts
    as day 0, UTC); other files are left alone. Raises RecorderError when a folder cannot be removed."""
    if retention_days < 0:
        raise ValueError("retention_days must be >= 0")
    root = Path(directory)
    today = datetime.fromtimestamp(now if now is not None else time.time(), UTC).date()
    cutoff = today - timedelta(days=retention_days)
    removed: list[str] = []
    try:
        entries = sorted(root.iterdir()) if root.is_dir() else []
    except OSError as exc:
        raise RecorderError(f"cannot list ISR history in {root}: {exc.strerror or exc}") from None
    for entry in entries:
        if not _DAY_DIR.match(entry.name) or not entry.is_dir():
            continue
        try:
            day = datetime.strptime(entry.name, schema.DAY_FORMAT).date()
        except ValueError:
            continue
        if day < cutoff:
            try:
                shutil.rmtree(entry)
            except OSError as exc:
                raise RecorderError(f"cannot delete old ISR history {entry}: {exc.strerror or exc}") from None
            removed.append(entry.name)
    return removed


# -- reading ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class ReadStats:
    """What a read skipped: torn lines (a truncated batch's tail), garbled lines or bytes, newer schemas."""

    files: int = 0
    records: int = 0
    torn: int = 0
    garbled: int = 0
    future_version: int = 0


def read_events(
    directory: str | os.PathLike[str], day: str | date, stats: ReadStats | None = None
) -> Iterator[dict[str, Any]]:
    """Every record of one UTC day in write order (hour files in order; one hour file in memory at a time).

    Damage never raises: a truncated gzip member gives its complete lines and counts one torn
    line, undecodable bytes are skipped to the next member, lines that are not JSON objects with
    an integer ``v`` are garbled, and records with ``v`` newer than this reader's are skipped and
    counted as ``future_version``. Pass `stats` to read the counts.
    """
    st = stats if stats is not None else ReadStats()
    folder = Path(directory) / schema.day_name(day)
    if not folder.is_dir():
        return
    for path in sorted(folder.glob(f"[0-2][0-9]{schema.FILE_SUFFIX}")):
        yield from read_file(path, st)


def read_file(path: str | os.PathLike[str], stats: ReadStats) -> Iterator[dict[str, Any]]:
    """Every record of one hour file, with `read_events`' damage handling; counts go to `stats`."""
    stats.files += 1
    for line, complete in _member_lines(Path(path), stats):
        if not complete:
            stats.torn += 1
            continue
        rec = _decode(line)
        if rec is None:
            stats.garbled += 1
        elif rec["v"] > schema.SCHEMA_VERSION:
            stats.future_version += 1
        else:
            stats.records += 1
            yield rec


def read_day(directory: str | os.PathLike[str], day: str | date) -> tuple[list[dict[str, Any]], ReadStats]:
    """`read_events` into a list, with its counts."""
    stats = ReadStats()
    return list(read_events(directory, day, stats)), stats


def decode_line(line: bytes) -> dict[str, Any] | None:
    """One JSON Lines record, or None when the line is not a JSON object with an integer ``v``."""
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    if not isinstance(rec, dict) or type(rec.get("v")) is not int:
        return None
    return rec


_decode = decode_line


def _member_lines(path: Path, st: ReadStats) -> Iterator[tuple[bytes, bool]]:
    """(line, complete) of every gzip member of one hour file; a damaged member's tail comes as incomplete.

    Members start where our member header (magic, deflate, no flags, mtime 0) occurs, so a torn
    member followed by the members a restarted recorder appended costs only its own tail.
    """
    try:
        data = path.read_bytes()
    except OSError:
        st.garbled += 1
        return
    starts = sorted({0} | {m.start() for m in re.finditer(re.escape(_MEMBER_HEAD), data)})
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(data)
        yield from _segment(data[start:end], st)


def _segment(seg: bytes, st: ReadStats) -> Iterator[tuple[bytes, bool]]:
    while seg:
        if not seg.startswith(b"\x1f\x8b"):
            st.garbled += 1  # bytes that are no gzip member
            return
        d = zlib.decompressobj(wbits=31)
        buf = b""
        rest = b""
        for i in range(0, len(seg), _CHUNK):
            try:
                buf += d.decompress(seg[i : i + _CHUNK])
            except zlib.error:
                break
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if line.strip():
                    yield line, True
            if d.eof:
                rest = d.unused_data + seg[i + _CHUNK :]
                break
        if not d.eof:  # truncated or damaged: the rest of this member is one torn line
            yield buf, False
            return
        if buf.strip():
            yield buf, False
        seg = rest
