"""ISR history from Kafka broker logs (server.log, state-change.log) of Kafka 2.x, 3.x and 4.x.

Lines understood (log4j head ``[2026-11-20 02:13:44,123] INFO `` first, logger name last):

``[Partition T-P broker=B] ... (kafka.cluster.Partition)``, in server.log:

- ``Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 100, endOffset: 120). Out of sync
  replicas: (brokerId: 3, endOffset: 100).`` -- several replicas are joined by a space; 3.6+ adds
  ``, lastCaughtUpTimeMs: N`` to each; some versions print ``endOffset: unknown``.
- ``Expanding ISR from 1,2 to 1,2,3`` (up to 2.7).
- ``ISR updated to [1,2] and zkVersion updated to [7]`` (2.4-2.7), ``ISR updated to 1,2 and version
  updated to [5]`` (2.8/3.0), ``... and version updated to 5`` (3.1-3.4), 3.5+:
  ``ISR updated to 1,2 (under-min-isr) and version updated to 5`` or, not under min ISR, the same
  with two spaces before ``and``. ``under_min_isr`` is True / False for the 3.5+ forms, None before.
- ``T-P starts at Leader Epoch N from offset O. Previous Leader Epoch was: M`` (2.x leader line).

``[Broker id=B] Leader T-P with topic id Some(ID) starts at leader epoch N from offset O with
partition epoch E, high watermark H, ISR [1,2], ... (state.change.logger)``, in state-change.log
(2.8+; before 2.8 the same without ``with topic id ...``): a ``leader`` event for broker B.

``[Broker id=B] Skipped the become-leader state change for T-P with topic id Some(ID) and partition
state ... since it is already the leader with leader epoch N. Current high watermark H, ISR [1,2], ...``
(KRaft 3.x/4.x, state-change.log): the controller changed the ISR of a partition B leads without a
new leader epoch (a broker fenced or in controlled shutdown), an ``update`` event. The leader writes
no other line for such a change.

Topic names may contain dots, dashes and underscores: the partition number follows the LAST dash.

Timestamps: log4j writes the broker's local time without a zone. `parse_logs` and `parse_line`
take ``tz`` (default UTC): the zone the brokers' clocks were in; ``ts_ms`` is epoch milliseconds.

Lines that mention ISR / leader epochs but do not match a known form are counted as ``unparsed``
(a few kept as examples); other lines are ``skipped``. Nothing is fatal: unreadable files and
truncated gzip files are ``problems`` and whatever was read before the damage is kept. Files are
read one line at a time; gzip is detected by its magic bytes, so rotated names
(``server.log.2026-11-20-02``, ``...gz``) need no special handling.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Literal

Kind = Literal["shrink", "expand", "update", "leader"]

MAX_EXAMPLES = 5

_HEAD = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] [A-Z]+ ")
_PARTITION = re.compile(r"\[Partition (\S+)-(\d+) broker=(\d+)\] (.*) \(kafka\.cluster\.Partition\)\s*$")
_BROKER = re.compile(r"\[Broker id=(\d+)\] (.*) \(state\.change\.logger\)\s*$")
_IDS = r"((?:\d+(?:,\d+)*)?)"
_SHRINK = re.compile(
    rf"Shrinking ISR from {_IDS} to {_IDS}\. Leader: \(highWatermark: (-?\d+), endOffset: (-?\d+)\)\. "
    r"Out of sync replicas: (.*)\.$")
_OOS = re.compile(r"\(brokerId: (\d+), endOffset: (-?\d+|unknown)(?:, lastCaughtUpTimeMs: (-?\d+))?\)")
_OOS_SEP = re.compile(r"[ ,]*")
_EXPAND = re.compile(rf"Expanding ISR from {_IDS} to {_IDS}$")
_UPDATE = re.compile(
    rf"ISR updated to (\[{_IDS}\]|{_IDS})( \(under-min-isr\) |  | )and (?:zkVersion|version) updated to "
    r"(?:\[(-?\d+)\]|(-?\d+))$")
_LEADER_OLD = re.compile(r"(\S+)-(\d+) starts at Leader Epoch (\d+) from offset (-?\d+)\. "
                         r"Previous Leader Epoch was: (-?\d+)$")
_LEADER_NEW = re.compile(r"Leader (\S+)-(\d+)(?: with topic id \S+)? starts at leader epoch (\d+) from offset (-?\d+)"
                         rf"(?: with partition epoch -?\d+)?(?:,| with) high watermark (-?\d+),? ISR \[{_IDS}\]"
                         )
_LEADER_SKIPPED = re.compile(r"Skipped the become-leader state change for (\S+)-(\d+) (?:with topic id \S+ )?"
                             r"and partition state .* since it is already the leader with leader epoch (-?\d+)\. "
                             rf"Current high watermark (-?\d+), ISR \[{_IDS}\]")
_LOOKS = re.compile(r"ISR (?:from|updated)|Shrinking ISR|Expanding ISR|starts at leader epoch", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class IsrLogEvent:
    """One ISR change (or leader start) a broker logged.

    ``kind``: shrink / expand / update (``ISR updated to``, or a KRaft leader told of a new ISR) /
    leader (the logging broker became leader at ``leader_epoch``). ``out_of_sync``: (broker, end
    offset or None, lastCaughtUpTimeMs or None) per replica dropped by a shrink. ``source`` is
    ``file:line``.
    """

    ts_ms: int
    broker: int
    topic: str
    partition: int
    kind: Kind
    old_isr: tuple[int, ...] | None
    new_isr: tuple[int, ...]
    under_min_isr: bool | None = None
    out_of_sync: tuple[tuple[int, int | None, int | None], ...] = ()
    high_watermark: int | None = None
    end_offset: int | None = None
    leader_epoch: int | None = None
    source: str = ""


@dataclass(slots=True)
class ParseReport:
    """What a parse read and what it could not use."""

    files: int = 0
    lines: int = 0
    events: int = 0
    unparsed: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    unparsed_examples: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for a progress bar or a log."""
        return (f"{self.files} files, {self.lines} lines, {self.events} ISR events, "
                f"{self.unparsed} unparsed, {self.skipped} skipped, {len(self.problems)} problems")


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",")) if text else ()


def _ts_ms(head: re.Match[str], tz: tzinfo) -> int:
    dt = datetime.strptime(head.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=tz)
    return int(dt.timestamp()) * 1000 + int(head.group(2))


def looks_like_isr_line(line: str) -> bool:
    """True for lines that talk about ISR changes or leader epochs (counted as unparsed if no form matches)."""
    return _LOOKS.search(line) is not None


def parse_line(line: str, source: str = "", tz: tzinfo = UTC) -> IsrLogEvent | None:
    """The event one log line records, or None when it records none (or in an unknown form)."""
    head = _HEAD.match(line)
    if head is None:
        return None
    rest = line[head.end():]
    m = _PARTITION.match(rest)
    if m is not None:
        return _partition_event(_ts_ms(head, tz), m, source)
    b = _BROKER.match(rest)
    if b is not None:
        lm = _LEADER_NEW.match(b.group(2))
        if lm is None:
            sk = _LEADER_SKIPPED.match(b.group(2))
            if sk is None:
                return None
            return IsrLogEvent(_ts_ms(head, tz), int(b.group(1)), sk.group(1), int(sk.group(2)), "update", None,
                               _ids(sk.group(5)), high_watermark=int(sk.group(4)), leader_epoch=int(sk.group(3)),
                               source=source)
        return IsrLogEvent(_ts_ms(head, tz), int(b.group(1)), lm.group(1), int(lm.group(2)), "leader", None,
                           _ids(lm.group(6)), high_watermark=int(lm.group(5)), end_offset=int(lm.group(4)),
                           leader_epoch=int(lm.group(3)), source=source)
    return None


def _partition_event(ts: int, m: re.Match[str], source: str) -> IsrLogEvent | None:
    topic, part, broker, msg = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    if (u := _UPDATE.match(msg)) is not None:
        isr = _ids(u.group(2) if u.group(1).startswith("[") else u.group(3))
        sep = u.group(4)
        under = True if "under-min-isr" in sep else (False if sep == "  " else None)
        return IsrLogEvent(ts, broker, topic, part, "update", None, isr, under_min_isr=under, source=source)
    if (s := _SHRINK.match(msg)) is not None:
        oos = _out_of_sync(s.group(5))
        if oos is None:
            return None
        return IsrLogEvent(ts, broker, topic, part, "shrink", _ids(s.group(1)), _ids(s.group(2)), out_of_sync=oos,
                           high_watermark=int(s.group(3)), end_offset=int(s.group(4)), source=source)
    if (e := _EXPAND.match(msg)) is not None:
        return IsrLogEvent(ts, broker, topic, part, "expand", _ids(e.group(1)), _ids(e.group(2)), source=source)
    if (lo := _LEADER_OLD.match(msg)) is not None and lo.group(1) == topic and int(lo.group(2)) == part:
        return IsrLogEvent(ts, broker, topic, part, "leader", None, (), end_offset=int(lo.group(4)),
                           leader_epoch=int(lo.group(3)), source=source)
    return None


def _out_of_sync(text: str) -> tuple[tuple[int, int | None, int | None], ...] | None:
    out: list[tuple[int, int | None, int | None]] = []
    pos = 0
    while pos < len(text):
        m = _OOS.match(text, pos)
        if m is None:
            return None
        end = None if m.group(2) == "unknown" else int(m.group(2))
        out.append((int(m.group(1)), end, int(m.group(3)) if m.group(3) is not None else None))
        pos = _OOS_SEP.match(text, m.end()).end()  # type: ignore[union-attr]  # "[ ,]*" always matches
    return tuple(out) if out else None


def _has_magic(text: str) -> bool:
    return any(c in text for c in "*?[")


def expand_paths(patterns: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files the glob patterns (or plain paths) name, sorted and without duplicates."""
    items = [patterns] if isinstance(patterns, (str, os.PathLike)) else list(patterns)
    found: set[Path] = set()
    for item in items:
        text = os.fspath(item)
        matches = glob.glob(text) if _has_magic(text) else [text]
        found.update(Path(p) for p in matches)
    return sorted(found)


def _lines_of(raw: io.BufferedIOBase) -> Iterator[str]:
    """Text lines of a plain or gzip stream, one at a time (gzip by magic bytes)."""
    gz = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream: io.BufferedIOBase = gzip.GzipFile(fileobj=raw) if gz else raw  # type: ignore[assignment]
    for b in stream:
        yield b.decode("utf-8", errors="replace")


def _open_lines(path: Path) -> Iterator[str]:
    """Text lines of a plain or gzip file, one at a time (gzip by magic bytes)."""
    with open(path, "rb") as raw:
        yield from _lines_of(raw)


def _iter_lines(lines: Iterator[str], name: str, report: ParseReport, tz: tzinfo) -> Iterator[tuple[int, IsrLogEvent]]:
    """(line number, event) of one file's lines; counts go to `report`; damage is a problem, never raised."""
    report.files += 1
    n = 0
    try:
        for n, line in enumerate(lines, 1):  # noqa: B007  # n is read after the loop
            report.lines += 1
            ev = parse_line(line, f"{name}:{n}", tz)
            if ev is not None:
                report.events += 1
                yield n, ev
            elif looks_like_isr_line(line):
                report.unparsed += 1
                if len(report.unparsed_examples) < MAX_EXAMPLES:
                    report.unparsed_examples.append(f"{name}:{n}: {line.strip()[:300]}")
            else:
                report.skipped += 1
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        report.problems.append(f"{name}: damaged or truncated gzip after line {n} ({exc}); kept what was read")
    except OSError as exc:
        report.problems.append(f"{name}: cannot read ({exc.strerror or exc})")


def iter_file(path: Path, report: ParseReport, tz: tzinfo = UTC) -> Iterator[IsrLogEvent]:
    """Events of one file in file order; counts go to `report`; damage is a problem, never raised."""
    for _, ev in _iter_lines(_open_lines(path), str(path), report, tz):
        yield ev


def iter_bytes(data: bytes, name: str, report: ParseReport, tz: tzinfo = UTC) -> Iterator[tuple[int, IsrLogEvent]]:
    """(line number, event) of one file's content (plain or gzip), as `iter_file` reads a file.

    The replay job's Spark stage calls this on executors with each log file's bytes, so every line
    form defined here reaches the job unchanged.
    """
    yield from _iter_lines(_lines_of(io.BytesIO(data)), name, report, tz)


def parse_logs(patterns: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
               tz: tzinfo = UTC) -> tuple[list[IsrLogEvent], ParseReport]:
    """Every ISR event in the files the glob patterns name, sorted by time (file order among equals).

    ``tz``: the zone the brokers logged in (log4j timestamps carry none). A pattern that matches
    nothing is a problem.
    """
    report = ParseReport()
    events: list[IsrLogEvent] = []
    items = [patterns] if isinstance(patterns, (str, os.PathLike)) else list(patterns)
    for item in items:
        text = os.fspath(item)
        if _has_magic(text) and not glob.glob(text):
            report.problems.append(f"{text}: no file matches")
    for path in expand_paths(items):
        events.extend(iter_file(path, report, tz))
    events.sort(key=lambda e: e.ts_ms)
    return events, report
