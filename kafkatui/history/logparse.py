"""ISR history from Kafka broker logs (server.log, state-change.log, KRaft controller.log), Kafka 2.x-4.x.

The forms each line may take, per Kafka version, are in `logforms`; this module turns matching lines into
events (`parse_line`, `parse_broker_lines`), derives what no line says (`derive_offline`) and reads files.

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
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Literal

from kafkatui.history.logforms import (
    BROKER,
    BROKER_ID,
    CONTROLLER,
    DIFF_ISR,
    DIFF_LEADER,
    EXPAND,
    FOLLOWER,
    FOLLOWER_SKIPPED,
    FOLLOWER_SKIPPED_44,
    HEAD,
    KNOWN_NO_EVENT,
    LEADER_NEW,
    LEADER_OLD,
    LEADER_SKIPPED,
    LEADER_UNDER_MIN,
    LOOKS,
    OOS,
    OOS_SEP,
    PARTITION,
    PARTITION_CREATED,
    REGISTRATION,
    REMOVED,
    SHRINK,
    UNCLEAN_CHANGE,
    UPDATE,
    ZK_BROKER_CHANGE,
    ZK_CHANGED,
    ZK_CONTROLLER,
    ZK_FOLLOWER,
    ZK_KNOWN,
    ZK_KNOWN_BROKER,
    ZK_KNOWN_STATE,
    ZK_LIVE,
    ZK_NO_LEADER,
    ZK_PARTITION_STATE,
    ZK_STATE,
)

Kind = Literal["shrink", "expand", "update", "leader", "offline", "unclean"]
BrokerKind = Literal["fenced", "unfenced", "live"]

MAX_EXAMPLES = 5


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
    leader: int | None = None
    """The partition's leader when it is not ``broker``: -1 for ``offline`` (None: ``broker`` leads)."""


@dataclass(frozen=True, slots=True)
class BrokerLogEvent:
    """A broker fenced or unfenced, as the controller logged it (``source`` is ``file:line``)."""

    ts_ms: int
    broker: int
    kind: BrokerKind
    source: str = ""


@dataclass(slots=True)
class ParseReport:
    """What a parse read and what it could not use."""

    files: int = 0
    lines: int = 0
    events: int = 0
    unparsed: int = 0
    skipped: int = 0
    broker_events: int = 0
    derived: int = 0
    stale: int = 0
    problems: list[str] = field(default_factory=list)
    unparsed_examples: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for a progress bar or a log."""
        return (
            f"{self.files} files, {self.lines} lines, {self.events} ISR events "
            f"({self.derived} derived from {self.broker_events} fence/unfence lines, {self.stale} stale dropped), "
            f"{self.unparsed} unparsed, {self.skipped} skipped, {len(self.problems)} problems"
        )


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",")) if text else ()


def _ts_ms(head: re.Match[str], tz: tzinfo) -> int:
    dt = datetime.strptime(head.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=tz)
    return int(dt.timestamp()) * 1000 + int(head.group(2))


def looks_like_isr_line(line: str) -> bool:
    """True for lines that talk about ISR changes, leaders, fencing or elections in no form this
    module understands (counted as unparsed; a truncated last line is the usual case)."""
    return LOOKS.search(line) is not None and not is_known_line(line)


def is_known_line(line: str) -> bool:
    """True for complete lines of a known form that carry no event (a follower of a live leader,
    the controller's first unclean-election line, its "Fencing broker" line)."""
    head = HEAD.match(line)
    if head is None:
        return False
    rest = line[head.end() :]
    b = BROKER.match(rest)
    if b is not None:
        msg = b.group(2)
        return any(
            r.match(msg) is not None
            for r in (FOLLOWER, FOLLOWER_SKIPPED, FOLLOWER_SKIPPED_44, ZK_FOLLOWER, ZK_KNOWN_BROKER)
        )
    zs = ZK_STATE.match(rest)
    if zs is not None:
        return ZK_KNOWN_STATE.match(zs.group(3)) is not None
    z = ZK_CONTROLLER.match(rest)
    if z is not None:
        return ZK_KNOWN.match(z.group(2)) is not None or ZK_BROKER_CHANGE.match(z.group(2)) is not None
    c = CONTROLLER.match(rest)
    return c is not None and (
        KNOWN_NO_EVENT.match(c.group(2)) is not None or REGISTRATION.match(c.group(2)) is not None
    )


def parse_broker_lines(line: str, source: str = "", tz: tzinfo = UTC) -> list[BrokerLogEvent]:
    """Brokers fenced / unfenced (KRaft controller.log), or whose ZooKeeper registration went / came
    (a ZooKeeper-mode controller's "deleted brokers" / "Newly added brokers": ``fenced`` / ``unfenced``,
    as for KRaft a broker out of / back in the cluster)."""
    head = HEAD.match(line)
    if head is None:
        return []
    zs = ZK_STATE.match(line, head.end())
    if zs is not None:  # "... after removing replica N from the ISR as part of transition to OfflineReplica"
        gone = REMOVED.search(zs.group(3))
        if gone is None or not zs.group(3).endswith("transition to OfflineReplica"):
            return []
        return [BrokerLogEvent(_ts_ms(head, tz), int(gone.group(1)), "fenced", source)]
    z = ZK_CONTROLLER.match(line, head.end())
    if z is not None:
        ts = _ts_ms(head, tz)
        if (live := ZK_LIVE.match(z.group(2))) is not None:
            return [BrokerLogEvent(ts, b, "live", source) for b in _list(live.group(1))]
        ch = ZK_BROKER_CHANGE.match(z.group(2))
        if ch is None:
            return []
        return [BrokerLogEvent(ts, b, "fenced", source) for b in _list(ch.group(2))] + [
            BrokerLogEvent(ts, b, "unfenced", source) for b in _list(ch.group(1))
        ]
    c = CONTROLLER.match(line, head.end())
    if c is None:
        return []
    r = REGISTRATION.match(c.group(2))
    if r is None or r.group(2) == "0":
        return []
    return [BrokerLogEvent(_ts_ms(head, tz), int(r.group(1)), "fenced" if r.group(2) == "1" else "unfenced", source)]


def parse_broker_line(line: str, source: str = "", tz: tzinfo = UTC) -> BrokerLogEvent | None:
    """The first broker event of `parse_broker_lines`, or None."""
    found = parse_broker_lines(line, source, tz)
    return found[0] if found else None


def parse_line(line: str, source: str = "", tz: tzinfo = UTC) -> IsrLogEvent | None:
    """The event one log line records, or None when it records none (or in an unknown form)."""
    head = HEAD.match(line)
    if head is None:
        return None
    rest = line[head.end() :]
    m = PARTITION.match(rest)
    if m is not None:
        return _partition_event(_ts_ms(head, tz), m, source)
    b = BROKER.match(rest)
    if b is not None:
        lm = LEADER_NEW.match(b.group(2))
        if lm is None:
            if (f := FOLLOWER.match(b.group(2))) is not None:
                if int(f.group(6)) >= 0:
                    return None  # the live leader logs the change itself
                return IsrLogEvent(
                    _ts_ms(head, tz),
                    int(b.group(1)),
                    f.group(1),
                    int(f.group(2)),
                    "offline",
                    None,
                    (),
                    high_watermark=int(f.group(5)),
                    end_offset=int(f.group(4)),
                    leader_epoch=int(f.group(3)),
                    source=source,
                    leader=-1,
                )
            fs = FOLLOWER_SKIPPED.match(b.group(2)) or FOLLOWER_SKIPPED_44.match(b.group(2))
            if fs is not None:
                if int(fs.group("leader")) >= 0:
                    return None
                return IsrLogEvent(
                    _ts_ms(head, tz),
                    int(b.group(1)),
                    fs.group("topic"),
                    int(fs.group("part")),
                    "offline",
                    None,
                    _list(fs.group("isr")),
                    leader_epoch=int(fs.group("epoch")),
                    source=source,
                    leader=-1,
                )
            if (nl := ZK_NO_LEADER.match(b.group(2))) is not None:
                return IsrLogEvent(
                    _ts_ms(head, tz),
                    int(b.group(1)),
                    nl.group(1),
                    int(nl.group(2)),
                    "offline",
                    None,
                    (),
                    source=source,
                    leader=-1,
                )
            sk = LEADER_SKIPPED.match(b.group(2))
            if sk is None:
                return None
            return IsrLogEvent(
                _ts_ms(head, tz),
                int(b.group(1)),
                sk.group(1),
                int(sk.group(2)),
                "update",
                None,
                _ids(sk.group(5)),
                high_watermark=int(sk.group(4)),
                leader_epoch=int(sk.group(3)),
                source=source,
            )
        mark = LEADER_UNDER_MIN.search(b.group(2), lm.end())
        return IsrLogEvent(
            _ts_ms(head, tz),
            int(b.group(1)),
            lm.group(1),
            int(lm.group(2)),
            "leader",
            None,
            _ids(lm.group(6)),
            under_min_isr=None if mark is None else mark.group(1) is not None,
            high_watermark=int(lm.group(5)),
            end_offset=int(lm.group(4)),
            leader_epoch=int(lm.group(3)),
            source=source,
        )
    z = ZK_STATE.match(rest)
    if z is not None:
        zp = ZK_PARTITION_STATE.match(z.group(3))
        if zp is None:
            return _zk_changed(_ts_ms(head, tz), int(z.group(1)), z.group(3), source)
        lead = int(zp.group(3))
        removed = REMOVED.search(z.group(3), zp.end())
        return IsrLogEvent(
            _ts_ms(head, tz),
            lead if lead >= 0 else int(removed.group(1)) if removed else int(z.group(1)),
            zp.group(1),
            int(zp.group(2)),
            "offline" if lead < 0 else "leader",
            None,
            _ids(zp.group(4)),
            leader_epoch=int(zp.group(5)),
            source=source,
            leader=lead,
        )
    c = CONTROLLER.match(rest)
    if c is not None and (pc := PARTITION_CREATED.match(c.group(2))) is not None:
        lead = int(pc.group(5))
        return IsrLogEvent(
            _ts_ms(head, tz),
            lead if lead >= 0 else -1,
            pc.group(1),
            int(pc.group(2)),
            "leader",
            None,
            _list(pc.group(4)),
            leader_epoch=int(pc.group(6)),
            source=source,
            leader=lead,
        )
    if c is not None and (u := UNCLEAN_CHANGE.match(c.group(2))) is not None:
        diff = u.group(3)
        ld, isr = DIFF_LEADER.search(diff), DIFF_ISR.search(diff)
        if ld is None or int(ld.group(2)) < 0:
            return None
        new_leader = int(ld.group(2))
        return IsrLogEvent(
            _ts_ms(head, tz),
            new_leader,
            u.group(1),
            int(u.group(2)),
            "unclean",
            _list(isr.group(1)) if isr else None,
            _list(isr.group(2)) if isr else (new_leader,),
            source=source,
            leader=new_leader,
        )
    return None


def _zk_changed(ts: int, controller: int, msg: str, source: str) -> IsrLogEvent | None:
    """A ZooKeeper-mode controller's "Changed partition ... with state LeaderAndIsr(...)" line, or None."""
    ch = ZK_CHANGED.match(msg)
    if ch is None:
        return None
    lead = int(ch.group(3))
    isr = _list(ch.group(5)) if ch.group(5) is not None else tuple(int(x) for x in BROKER_ID.findall(ch.group(6)))
    return IsrLogEvent(
        ts,
        lead if lead >= 0 else (isr[0] if isr else controller),
        ch.group(1),
        int(ch.group(2)),
        "offline" if lead < 0 else "leader",
        None,
        isr,
        leader_epoch=int(ch.group(4)),
        source=source,
        leader=lead,
    )


def _list(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.replace(" ", "").split(",")) if text.strip() else ()


def _partition_event(ts: int, m: re.Match[str], source: str) -> IsrLogEvent | None:
    topic, part, broker, msg = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    if (u := UPDATE.match(msg)) is not None:
        isr = _ids(u.group(2) if u.group(1).startswith("[") else u.group(3))
        sep = u.group(4)
        under = True if "under-min-isr" in sep else (False if sep == "  " else None)
        return IsrLogEvent(ts, broker, topic, part, "update", None, isr, under_min_isr=under, source=source)
    if (s := SHRINK.match(msg)) is not None:
        oos = _out_of_sync(s.group(5))
        if oos is None:
            return None
        return IsrLogEvent(
            ts,
            broker,
            topic,
            part,
            "shrink",
            _ids(s.group(1)),
            _ids(s.group(2)),
            out_of_sync=oos,
            high_watermark=int(s.group(3)),
            end_offset=int(s.group(4)),
            source=source,
        )
    if (e := EXPAND.match(msg)) is not None:
        return IsrLogEvent(ts, broker, topic, part, "expand", _ids(e.group(1)), _ids(e.group(2)), source=source)
    if (lo := LEADER_OLD.match(msg)) is not None and lo.group(1) == topic and int(lo.group(2)) == part:
        return IsrLogEvent(
            ts,
            broker,
            topic,
            part,
            "leader",
            None,
            (),
            end_offset=int(lo.group(4)),
            leader_epoch=int(lo.group(3)),
            source=source,
        )
    return None


def _out_of_sync(text: str) -> tuple[tuple[int, int | None, int | None], ...] | None:
    out: list[tuple[int, int | None, int | None]] = []
    pos = 0
    while pos < len(text):
        m = OOS.match(text, pos)
        if m is None:
            return None
        end = None if m.group(2) == "unknown" else int(m.group(2))
        out.append((int(m.group(1)), end, int(m.group(3)) if m.group(3) is not None else None))
        pos = OOS_SEP.match(text, m.end()).end()  # type: ignore[union-attr]  # "[ ,]*" always matches
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
    stream: io.BufferedIOBase = gzip.GzipFile(fileobj=raw) if gz else raw
    for b in stream:
        yield b.decode("utf-8", errors="replace")


def _open_lines(path: Path) -> Iterator[str]:
    """Text lines of a plain or gzip file, one at a time (gzip by magic bytes)."""
    with open(path, "rb") as raw:
        yield from _lines_of(raw)


def _iter_lines(
    lines: Iterator[str], name: str, report: ParseReport, tz: tzinfo
) -> Iterator[tuple[int, IsrLogEvent | BrokerLogEvent]]:
    """(line number, partition or broker event) of one file's lines, in file order: the one line loop
    every reader shares. Counts go to `report`; damage is a problem, never raised."""
    report.files += 1
    n = 0
    try:
        for n, line in enumerate(lines, 1):  # noqa: B007  # n is read after the loop
            report.lines += 1
            src = f"{name}:{n}"
            ev = parse_line(line, src, tz)
            if ev is not None:
                report.events += 1
                yield n, ev
                for be in parse_broker_lines(line, src, tz) if ev.kind in ("offline", "leader") else ():
                    report.broker_events += 1  # a ZooKeeper controller's OfflineReplica line: the broker is down
                    yield n, be
            elif bes := parse_broker_lines(line, src, tz):
                for be in bes:
                    report.broker_events += 1
                    yield n, be
            elif looks_like_isr_line(line):
                report.unparsed += 1
                if len(report.unparsed_examples) < MAX_EXAMPLES:
                    report.unparsed_examples.append(f"{src}: {line.strip()[:300]}")
            else:
                report.skipped += 1
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        report.problems.append(f"{name}: damaged or truncated gzip after line {n} ({exc}); kept what was read")
    except OSError as exc:
        report.problems.append(f"{name}: cannot read ({exc.strerror or exc})")


def iter_file(path: Path, report: ParseReport, tz: tzinfo = UTC) -> Iterator[IsrLogEvent]:
    """Events of one file in file order; counts go to `report`; damage is a problem, never raised.

    Broker (fence / unfence) lines are counted but not yielded: see `iter_file_all`."""
    for ev in iter_file_all(path, report, tz):
        if isinstance(ev, IsrLogEvent):
            yield ev


def iter_file_all(path: Path, report: ParseReport, tz: tzinfo = UTC) -> Iterator[IsrLogEvent | BrokerLogEvent]:
    """Partition and broker events of one file in file order (see `iter_file`)."""
    for _, ev in _iter_lines(_open_lines(path), str(path), report, tz):
        yield ev


def iter_bytes(
    data: bytes, name: str, report: ParseReport, tz: tzinfo = UTC
) -> Iterator[tuple[int, IsrLogEvent | BrokerLogEvent]]:
    """(line number, partition or broker event) of one file's content (plain or gzip), as
    `iter_file_all` reads a file.

    The replay job's Spark stage calls this on executors with each log file's bytes, so every line
    form defined here reaches the job unchanged.
    """
    yield from _iter_lines(_lines_of(io.BytesIO(data)), name, report, tz)


def derive_offline(
    events: list[IsrLogEvent], brokers: list[BrokerLogEvent], report: ParseReport | None = None
) -> list[IsrLogEvent]:
    """The ``offline`` events the fence lines imply, with ISRs filled in, merged into `events`.

    Both lists sorted by time. Walks them together keeping each partition's leader and ISR (as the
    events say) and the fenced brokers: when the leader of a partition is fenced and no other member
    of its ISR is unfenced, the partition has no leader from that instant (an ``offline`` event,
    ISR unchanged: 3.9 keeps the last member, 4.1 with ELR empties the ISR; neither is logged). An
    ``offline`` event parsed without an ISR (a "Current leader is -1" line) gets the ISR known then.
    A partition fenced leaders still lead later gets its next leader line or unclean change, or, on
    ZooKeeper mode, its leader back when a new controller lists that broker live (``live``).
    Shrink / expand lines of a broker the events say is not the partition's leader are dropped: a
    leader paused (SIGSTOP, a long GC) proposes a shrink on waking before it learns it was replaced;
    the controller rejects it and the state never existed.
    """
    leader: dict[tuple[str, int], int] = {}
    isr: dict[tuple[str, int], tuple[int, ...]] = {}
    fenced: set[int] = set()
    derived: dict[tuple[str, int], int] = {}  # partitions offline only because this broker was fenced
    out: list[IsrLogEvent] = []
    bi = 0
    for ev in [*events, None]:
        while bi < len(brokers) and (ev is None or brokers[bi].ts_ms <= ev.ts_ms):
            be = brokers[bi]
            bi += 1
            if be.kind != "fenced":
                fenced.discard(be.broker)
                for key in [k for k, b in sorted(derived.items()) if b == be.broker and be.kind == "live"]:
                    del derived[key]  # a new ZooKeeper-mode controller found it registered and still leader
                    leader[key] = be.broker
                    out.append(
                        IsrLogEvent(
                            be.ts_ms, be.broker, key[0], key[1], "leader", None, isr.get(key, ()), source=be.source
                        )
                    )
                    if report is not None:
                        report.derived += 1
                        report.events += 1
                continue
            fenced.add(be.broker)
            for key, lead in sorted(leader.items()):
                members = isr.get(key, ())
                if lead == be.broker and not [b for b in members if b != lead and b not in fenced]:
                    leader[key] = -1
                    derived[key] = be.broker
                    out.append(
                        IsrLogEvent(
                            be.ts_ms, be.broker, key[0], key[1], "offline", None, members, source=be.source, leader=-1
                        )
                    )
                    if report is not None:
                        report.derived += 1
                        report.events += 1
        if ev is None:
            break
        key = (ev.topic, ev.partition)
        if ev.kind in ("shrink", "expand") and leader.get(key, ev.broker) != ev.broker:
            if report is not None:  # a stale proposal of a former leader (see above)
                report.stale += 1
                report.events -= 1
            continue
        derived.pop(key, None)
        if ev.kind == "offline" and not ev.new_isr and key in isr:
            ev = replace(ev, new_isr=isr[key])
        leader[key] = ev.leader if ev.leader is not None else ev.broker
        if ev.new_isr or ev.kind != "leader":
            isr[key] = ev.new_isr
        out.append(ev)
    return out


def parse_logs(
    patterns: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], tz: tzinfo = UTC
) -> tuple[list[IsrLogEvent], ParseReport]:
    """Every ISR event in the files the glob patterns name, sorted by time (file order among equals),
    with the ``offline`` events fence lines imply (`derive_offline`).

    ``tz``: the zone the brokers logged in (log4j timestamps carry none). A pattern that matches
    nothing is a problem.
    """
    report = ParseReport()
    events: list[IsrLogEvent] = []
    brokers: list[BrokerLogEvent] = []
    items = [patterns] if isinstance(patterns, (str, os.PathLike)) else list(patterns)
    for item in items:
        text = os.fspath(item)
        if _has_magic(text) and not glob.glob(text):
            report.problems.append(f"{text}: no file matches")
    for path in expand_paths(items):
        for ev in iter_file_all(path, report, tz):
            (events if isinstance(ev, IsrLogEvent) else brokers).append(ev)  # type: ignore[arg-type]
    events.sort(key=lambda e: e.ts_ms)
    brokers.sort(key=lambda e: e.ts_ms)
    merged = derive_offline(events, brokers, report)
    return merged, report
