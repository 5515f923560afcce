"""Driver-side input preparation for the replay job (plain Python, no Spark, no textual).

Recordings: the hour files of the day, plus the previous day's last hour file (every hour file
starts with a full ``snapshot`` record, so it gives the state at midnight). Each file's gzip
members are checked with zlib (two threads; zlib releases the GIL); intact files are read by Spark
as they are, a damaged file (a recorder killed mid-write) is read with the recorder's own reader,
which keeps every complete line and counts the torn one, and its good lines are written to a
repaired copy that Spark reads instead.

Broker logs: parsed with `kafkatui.history.logparse` into event rows (see `log_rows`).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from kafkatui.history.logparse import IsrLogEvent
from kafkatui.history.record import schema
from kafkatui.history.record.recorder import ReadStats, decode_line, read_file

DAY_MS = 86_400_000
_CHUNK = 1 << 16

# one normalised log event row: ts_ms, topic, partition, leader, isr, rset, min_isr, seq, weak
LogRow = tuple[int, str, int, int, list[int], list[int], int | None, int, bool]


def parse_day(text: str) -> date:
    """The UTC day ``YYYY-MM-DD`` (ValueError with a one-line message when malformed)."""
    try:
        return datetime.strptime(text, schema.DAY_FORMAT).date()
    except ValueError:
        raise ValueError(f"--day must be a date as YYYY-MM-DD, got {text!r}") from None


def day_start_ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()) * 1000


def hour_files(history: Path, day: date) -> list[Path]:
    """The hour files of one UTC day, in hour order."""
    folder = history / schema.day_name(day)
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"[0-2][0-9]{schema.FILE_SUFFIX}"))


def carry_files(history: Path, day: date) -> list[Path]:
    """The previous day's last hour file (its first batch holds a full snapshot), or nothing."""
    files = hour_files(history, day - timedelta(days=1))
    return files[-1:]


_FAST = b'{"v":1,"type":"'
# a recorder-layout partition line whose ts is not a number (or missing): garbled, not an event
_BAD_PART_TS = re.compile(rb'\n\{"v":1,"type":"partition",(?!"ts":-?[0-9])')
_META_TYPES = (b"broker", b"snapshot", b"gap", b"end")
_SNAPSHOT_LINE = _FAST + b'snapshot"'


@dataclass(slots=True)
class FileScan:
    """What the driver learns from an intact hour file while checking it."""

    events: int = 0  # partition and broker records
    garbled: int = 0
    newer: int = 0
    meta: list[dict[str, Any]] = field(default_factory=list)  # broker, snapshot (head only), gap, end records
    snapshots: list[bytes] = field(default_factory=list)  # the snapshot lines Spark must expand, in order
    lines: list[bytes] = field(default_factory=list)  # with `keep_lines`: every other complete line, in order


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _text(x: Any) -> str | None:
    return x if isinstance(x, str) and x else None


def _meta(rec: dict[str, Any]) -> dict[str, Any] | None:
    """The fields of a broker / snapshot / gap record the job needs; None when they are not of the
    recorder's types (a hand-edited ``"ts": "yesterday"``, a missing ``ts``): counted as garbled."""
    kind = rec.get("type")
    if not _number(rec.get("ts")) or abs(rec["ts"]) > 1e13:
        return None
    out = {k: rec.get(k) for k in ("type", "broker", "op", "from", "to", "reason")}
    out["ts_ms"] = round(float(rec["ts"]) * 1000)
    if kind == "broker" and (type(out["broker"]) is not int or out["op"] not in ("up", "down")):
        return None
    if kind == "gap" and not (_number(out["from"]) and _number(out["to"])):
        return None
    if not isinstance(out["reason"], (str, type(None))):
        out["reason"] = str(out["reason"])
    rack = rec.get("rack")
    out["rack"] = rack if isinstance(rack, (str, type(None))) else str(rack)
    out["cluster"] = _text(rec.get("cluster"))
    out["kafka"] = _text(rec.get("kafka")) if kind == "snapshot" else None
    out["mode"] = _text(rec.get("mode")) if kind == "snapshot" else None
    listed = rec.get("brokers") if kind == "snapshot" else None
    if listed is not None:
        if not isinstance(listed, list) or not all(isinstance(b, list) and b and type(b[0]) is int for b in listed):
            return None
        out["ids"] = [b[0] for b in listed]
        out["racks"] = {b[0]: (b[3] if isinstance(b[3], str) else None) if len(b) > 3 else None for b in listed}
    else:
        out["ids"] = out["racks"] = None
    return out


@dataclass(slots=True)
class SnapshotPick:
    """Which snapshot records of a file Spark expands: every one (`all`), else those written at a
    recorder start or after a gap, plus the file's first (`first`, for the day's first file).
    Hourly snapshots repeat what the change records already said."""

    all: bool = False
    first: bool = False
    seen: int = 0

    def wants(self, rec: dict[str, Any]) -> bool:
        self.seen += 1
        return self.all or rec.get("reason") != "hour" or (self.first and self.seen == 1)


def _snapshot_head(line: bytes) -> dict[str, Any] | None:
    """A recorder snapshot line decoded without its ``topics`` (all `_meta` needs; a 50,000-partition
    snapshot is megabytes of JSON), or the whole line when it is not laid out as the recorder writes it."""
    cut, tail = line.find(b',"topics":'), line.rfind(b',"reason":')
    if 0 < cut < tail:
        rec = decode_line(line[:cut] + line[tail:])
        if rec is not None:
            return rec
    return decode_line(line)


def _scan_lines(data: bytes, scan: FileScan, pick: SnapshotPick) -> None:
    """Count and pick out records of complete lines; the recorder's own compact lines are counted by
    substring (C speed), anything else is decoded one line at a time as `read_events` would."""
    found: list[tuple[int, dict[str, Any], bytes | None]] = []  # (offset, record, snapshot line): file order
    lines = data.count(b"\n")
    fast = data.count(b"\n" + _FAST) + (1 if data.startswith(_FAST) else 0)
    if fast != lines:
        offset = 0
        for line in data.split(b"\n"):
            at, offset = offset, offset + len(line) + 1
            if not line.strip() or line.startswith(_FAST):
                continue
            rec = decode_line(line)
            if rec is None:
                scan.garbled += 1
            elif rec["v"] > schema.SCHEMA_VERSION:
                scan.newer += 1
            elif rec.get("type") in ("broker", "snapshot", "gap", "end"):
                m = _meta(rec)
                if m is None:
                    scan.garbled += 1
                    continue
                scan.events += rec.get("type") == "broker"
                found.append((at, m, bytes(line) if rec.get("type") == "snapshot" else None))
            elif rec.get("type") == "partition" and not _number(rec.get("ts")):
                scan.garbled += 1
            else:
                scan.events += rec.get("type") == "partition"
    bad = len(_BAD_PART_TS.findall(data)) + (1 if _BAD_PART_TS.match(b"\n" + data[:64]) else 0)
    scan.garbled += bad
    scan.events += data.count(_FAST + b'partition"') - bad
    for kind in _META_TYPES:
        needle = _FAST + kind + b'"'
        pos = data.find(needle)
        while pos >= 0:
            end = data.find(b"\n", pos)
            if pos == 0 or data[pos - 1 : pos] == b"\n":
                line = data[pos:end]
                rec = _snapshot_head(line) if kind == b"snapshot" else decode_line(line)
                m = _meta(rec) if rec is not None else None
                if m is None:
                    scan.garbled += 1
                else:
                    scan.events += kind == b"broker"
                    found.append((pos, m, line if kind == b"snapshot" else None))
            pos = data.find(needle, end)
    found.sort(key=lambda x: x[0])
    for _, m, snapshot in found:
        scan.meta.append(m)
        if snapshot is not None and pick.wants(m):
            scan.snapshots.append(snapshot)


def scan_file(path: Path, pick: SnapshotPick | None = None) -> FileScan | None:
    """`scan_bytes` of a local file; None when it cannot be read or is damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return scan_bytes(data, pick)


def _keep(data: bytes, into: list[bytes]) -> None:
    """Complete lines for Spark to parse from the scan (snapshot lines are expanded apart)."""
    into.extend(ln for ln in data.split(b"\n") if ln.strip() and not ln.startswith(_SNAPSHOT_LINE))


def scan_bytes(data: bytes, pick: SnapshotPick | None = None, keep_lines: bool = False) -> FileScan | None:
    """Decompress every gzip member and scan its lines; None when empty or damaged. `keep_lines`:
    the lines other than snapshots are kept too (`FileScan.lines`)."""
    pick = pick or SnapshotPick(all=True)
    if not data:
        return None
    scan = FileScan()
    view = memoryview(data)
    pending = b""
    pos, n = 0, len(data)
    while pos < n:
        d = zlib.decompressobj(wbits=31)
        i = pos
        try:
            while not d.eof and i < n:
                end = min(i + _CHUNK, n)
                out = pending + d.decompress(view[i:end])
                cut = out.rfind(b"\n") + 1
                if cut:
                    _scan_lines(out[:cut], scan, pick)
                    if keep_lines:
                        _keep(out[:cut], scan.lines)
                pending = out[cut:]
                i = end
        except zlib.error:
            return None
        if not d.eof:
            return None
        pos = i - len(d.unused_data)
    if pending.strip():
        _scan_lines(pending + b"\n", scan, pick)
        if keep_lines:
            _keep(pending, scan.lines)
    return scan


@dataclass(slots=True)
class HourScan:
    """What one hour file holds, as the replay job's scan stage returns it (small, but `snapshots`
    and `lines` stay on the executors: Spark reads them from the scan's cached result)."""

    rank: int  # the file's place in the day's order (carry file first)
    damaged: bool = False
    events: int = 0
    garbled: int = 0
    newer: int = 0
    torn: int = 0
    meta: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[bytes] = field(default_factory=list)  # snapshot lines to expand, file order
    lines: list[bytes] = field(default_factory=list)  # a damaged or growing file's lines, for Spark to parse


def scan_task(rank: int, data: bytes, pick_all: bool, pick_first: bool, growing: bool = False) -> HourScan:
    """Scan one hour file's bytes (runs on an executor). A damaged file (a recorder killed mid-write)
    is read with the recorder's own reader, which keeps every complete line of every gzip member and
    counts the torn one; its good lines are returned for Spark to parse, all of its snapshots kept.
    A `growing` file (a recorder may still append to it) returns its lines too: Spark parses them as
    this scan read them, never the file again (see `replay_read.growing_from`)."""
    pick = SnapshotPick(all=pick_all, first=pick_first)
    scan = scan_bytes(data, pick, keep_lines=growing)
    if scan is not None:
        return HourScan(rank, False, scan.events, scan.garbled, scan.newer, 0, scan.meta, scan.snapshots, scan.lines)
    out = HourScan(rank, damaged=True)
    stats = ReadStats()
    with tempfile.NamedTemporaryFile(prefix="kafkatui-scan-", suffix=schema.FILE_SUFFIX) as tmp:
        tmp.write(data)
        tmp.flush()
        records = list(read_file(Path(tmp.name), stats))
    out.torn, out.garbled, out.newer = stats.torn, stats.garbled, stats.future_version
    for r in records:
        kind = r.get("type")
        if kind in ("broker", "snapshot", "gap", "end"):
            m = _meta(r)
            if m is None:
                out.garbled += 1
                continue
            out.meta.append(m)
        elif kind == "partition" and not _number(r.get("ts")):
            out.garbled += 1
            continue
        line = json.dumps(r, separators=(",", ":")).encode()
        out.events += kind in ("partition", "broker")
        if kind == "snapshot":
            out.snapshots.append(line)
        else:
            out.lines.append(line)
    return out


# -- broker logs ----------------------------------------------------------------------------------


@dataclass(slots=True)
class LogInputs:
    """Event rows from broker logs and what was inferred."""

    rows: list[LogRow] = field(default_factory=list)
    brokers: set[int] = field(default_factory=set)
    min_isr: dict[str, int | None] = field(default_factory=dict)
    events_in_day: int = 0


def infer_min_isr(events: Iterable[IsrLogEvent], default: int | None = None) -> dict[str, int | None]:
    """Per topic, the min ISR the broker logs say (None: unknown).

    3.5+ brokers mark an ISR update ``(under-min-isr)`` when ``len(isr) < min.insync.replicas`` and
    write a double space when it is not: a marked ISR of size k means min ISR > k, an unmarked one of
    size k means min ISR <= k. A topic ever marked gets the smallest value consistent with both (the
    largest marked size + 1: exact when it went under with one replica missing, the usual case).
    A topic never marked gets `default` (the cluster's ``min.insync.replicas``, from ``--min-isr``),
    lowered to what its unmarked ISRs allow (a topic overridden to 1 logs an ISR of 1 unmarked);
    without `default` it stays unknown.
    """
    low: dict[str, int] = {}
    high: dict[str, int] = {}
    topics: list[str] = []
    for ev in events:
        if ev.topic not in low and ev.topic not in high and ev.topic not in topics:
            topics.append(ev.topic)
        if ev.under_min_isr:
            low[ev.topic] = max(low.get(ev.topic, 0), len(ev.new_isr) + 1)
        elif ev.under_min_isr is False:
            high[ev.topic] = min(high.get(ev.topic, 1 << 31), max(1, len(ev.new_isr)))
    out: dict[str, int | None] = {}
    for t in topics:
        if t in low:
            out[t] = low[t]
        elif default is not None:
            out[t] = min(default, high.get(t, default))
        else:
            out[t] = None
    return out


def log_rows(events: list[IsrLogEvent], day_start: int, min_isr: int | None) -> LogInputs:
    """Event rows from parsed broker-log events (sorted by time).

    - leader: the broker that logged the ISR line (only the leader changes and logs the ISR), or
      the broker of a leader line, or the event's ``leader`` (-1 for ``offline``, the new leader of
      an ``unclean`` election); an old-style leader line without ISR keeps the previous ISR.
    - isr: the new ISR of shrink / expand / ``ISR updated to`` lines and new-style leader lines.
    - replica set: the union of every ISR, leader and out-of-sync replica seen for the partition
      (the assignment is not in the logs; ``replicas`` stay unknown in the outputs).
    - min ISR: `infer_min_isr` with `min_isr` (``--min-isr``) as the cluster default.
    - the first shrink / expand of a partition says what its ISR was before; that state is added
      as a weak row just before the day (or before the event), so a partition whose first change
      is at 02:13 has its earlier ISR from midnight, unless a recording knows better.
    """
    out = LogInputs()
    out.min_isr = infer_min_isr(events, min_isr)
    rset: dict[tuple[str, int], set[int]] = defaultdict(set)
    for ev in events:
        s = rset[(ev.topic, ev.partition)]
        s.add(ev.broker)
        s.update(ev.new_isr)
        s.update(ev.old_isr or ())
        s.update(b for b, _, _ in ev.out_of_sync)
        out.brokers.update(s)
    isr_now: dict[tuple[str, int], tuple[int, ...]] = {}
    day_end = day_start + DAY_MS
    for seq, ev in enumerate(events):
        key = (ev.topic, ev.partition)
        members = sorted(rset[key])
        m = out.min_isr.get(ev.topic)
        if key not in isr_now and ev.old_isr is not None:
            ts0 = min(ev.ts_ms, day_start) - 1
            out.rows.append((ts0, ev.topic, ev.partition, ev.broker, list(ev.old_isr), members, m, -1, True))
        isr = ev.new_isr if (ev.kind != "leader" or ev.new_isr) else isr_now.get(key)
        if isr is None:
            continue
        isr_now[key] = isr
        if ev.ts_ms >= day_end:
            continue
        if ev.ts_ms >= day_start:
            out.events_in_day += 1
        lead = ev.broker if ev.leader is None else ev.leader  # -1: offline; a controller line names the leader
        out.rows.append((ev.ts_ms, ev.topic, ev.partition, lead, list(isr), members, m, seq, False))
    return out


def describe_inputs(history: Path | None, day: date, log_patterns: list[str]) -> str:
    """What was looked for, for the "no input for this day" message."""
    parts = []
    if history is not None:
        parts.append(os.path.join(str(history), schema.day_name(day), f"HH{schema.FILE_SUFFIX}"))
    parts.extend(f"broker logs {p!r}" for p in log_patterns)
    return " and ".join(parts) if parts else "nothing (give --history and/or --broker-logs)"
