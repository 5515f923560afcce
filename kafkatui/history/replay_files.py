"""The files of a replay job's output directory (OUT): summary.json, checked and typed, and the frames' lines.

``summary.json`` has schema ``kafkatui.replay/1`` (day, timeline of 1440 minutes, incidents, gaps,
brokers, top partitions); ``frames/partitions`` and ``frames/brokers`` hold Spark's JSON output,
``part-*.json.gz`` files of JSON Lines (per ``hour=H`` folder since layout 1; each file in time order
when ``frames/layout.json`` says so, layout 2). Damage is one line (`ReplayDataError`, exit 3) for the summary,
and counted, never fatal, for the frames (a truncated gzip file's tail is one torn line).
No textual here.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.model.health import Health

SCHEMA = "kafkatui.replay/1"
SCHEMA_PREFIX = "kafkatui.replay/"
MINUTES = 1440
MINUTE_MS = 60_000
_CHUNK = 1 << 16
LAYOUT = "layout.json"  # frames/layout.json: how the job laid the frames out (absent before layout 2)
FRAMES_LAYOUT = {"schema": "kafkatui.frames/2", "sorted_by": "ts_ms"}
# the reason of the gap that follows where a recording ends (the job writes it, the screens read it)
NOT_RECORDED = "not recorded: the recording ends here"


class ReplayDataError(KafkaTuiError):
    """The replay directory cannot be read: missing, no or garbled summary.json, newer schema (exit 3)."""

    exit_code: ClassVar[int] = 3
    kind: ClassVar[str] = "replay data"


@dataclass(frozen=True, slots=True)
class MinuteCounts:
    """One minute of the day's timeline: partitions in each state at any moment of it."""

    minute: int
    offline: int = 0
    under_min_isr: int = 0
    at_min_isr: int = 0
    under_replicated: int = 0
    worst: Health = Health.HEALTHY
    gap: bool = False  # the recorder could not read the cluster: state unknown


@dataclass(frozen=True, slots=True)
class Incident:
    """A maximal window with at least one partition under min ISR or offline."""

    id: int
    start_ms: int
    end_ms: int
    duration_s: float
    first_broker_out: int | None
    first_out_ms: int | None
    topics: tuple[str, ...]
    partitions: int
    peak_under_min_isr: int
    peak_offline: int
    ongoing: bool = False  # still open where the recording ends (end_ms is that end, not its end)


@dataclass(frozen=True, slots=True)
class Gap:
    """A window in which the recorder could not read the cluster (state unknown, not unchanged)."""

    start_ms: int
    end_ms: int
    reason: str


@dataclass(frozen=True, slots=True)
class Summary:
    """summary.json, checked and typed."""

    day: str
    day_start_ms: int
    inputs: dict[str, Any]
    gaps: tuple[Gap, ...]
    timeline: tuple[MinuteCounts, ...]  # MINUTES entries, index = minute
    incidents: tuple[Incident, ...]
    brokers: tuple[dict[str, Any], ...]
    top_partitions: tuple[dict[str, Any], ...]
    recording_ends: tuple[int, ...] = ()  # where the recordings end (ms): nothing is known past them


@dataclass(slots=True)
class FrameStats:
    """What reading the frames skipped."""

    files: int = 0
    lines: int = 0
    torn: int = 0  # the tail of a truncated or damaged gzip file
    garbled: int = 0  # complete lines that are not a valid frame


# ---------------------------------------------------------------------------------------------- reading
def fail(directory: Path, what: str) -> ReplayDataError:
    return ReplayDataError(f"replay directory {directory}: {what}")


def as_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is not an integer")
    return value


def _opt_int(value: Any, what: str) -> int | None:
    return None if value is None else as_int(value, what)


def _health(name: Any) -> Health:
    try:
        return Health[str(name)]
    except KeyError:
        raise ValueError(f"unknown health class {name!r}") from None


def read_summary(directory: Path) -> Summary:
    """summary.json of `directory`, checked; ReplayDataError (one line) when it cannot be used."""
    if not directory.is_dir():
        raise fail(directory, "no such directory (give the --out directory of `kafkatui replay`)")
    path = directory / "summary.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise fail(
            directory, "no summary.json: not the output of `kafkatui replay`, or the job did not finish"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(directory, f"cannot read summary.json: {exc}") from None
    except ValueError as exc:
        raise fail(directory, f"summary.json is not valid JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise fail(directory, "summary.json is not a JSON object")
    schema = raw.get("schema")
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
        raise fail(directory, f"summary.json has no {SCHEMA!r} schema field (found {schema!r})")
    if schema != SCHEMA:
        version = schema[len(SCHEMA_PREFIX) :]
        if version.isdigit() and int(version) > 1:
            raise fail(
                directory,
                f"summary.json has schema {schema}, newer than this kafkatui reads ({SCHEMA}): upgrade kafkatui",
            )
        raise fail(directory, f"summary.json has unknown schema {schema!r}")
    try:
        return _summary(raw)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise fail(directory, f"summary.json is malformed: {exc}") from None


def _summary(raw: dict[str, Any]) -> Summary:
    day = str(raw["day"])
    start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC)
    day_start = _opt_int(raw.get("day_start_ms"), "day_start_ms")
    if day_start is None:
        day_start = int(start.timestamp()) * 1000
    minutes: dict[int, MinuteCounts] = {}
    for e in raw.get("timeline") or ():
        m = as_int(e["minute"], "timeline minute")
        if not 0 <= m < MINUTES:
            raise ValueError(f"timeline minute {m} is outside 0..1439")
        minutes[m] = MinuteCounts(
            m,
            as_int(e.get("offline", 0), "offline"),
            as_int(e.get("under_min_isr", 0), "under_min_isr"),
            as_int(e.get("at_min_isr", 0), "at_min_isr"),
            as_int(e.get("under_replicated", 0), "under_replicated"),
            _health(e.get("worst", "HEALTHY")),
            bool(e.get("gap", False)),
        )
    # a minute the job did not write is unknown, like a recorder gap
    timeline = tuple(minutes.get(m) or MinuteCounts(m, gap=True) for m in range(MINUTES))
    incidents = tuple(
        Incident(
            as_int(i["id"], "incident id"),
            as_int(i["start_ms"], "start_ms"),
            as_int(i["end_ms"], "end_ms"),
            float(i.get("duration_s", (i["end_ms"] - i["start_ms"]) / 1000)),
            _opt_int(i.get("first_broker_out"), "first_broker_out"),
            _opt_int(i.get("first_out_ms"), "first_out_ms"),
            tuple(str(t) for t in i.get("topics") or ()),
            as_int(i.get("partitions", 0), "partitions"),
            as_int(i.get("peak_under_min_isr", 0), "peak_under_min_isr"),
            as_int(i.get("peak_offline", 0), "peak_offline"),
            bool(i.get("ongoing", False)),
        )
        for i in raw.get("incidents") or ()
    )
    gaps = tuple(
        Gap(as_int(g["start_ms"], "gap start_ms"), as_int(g["end_ms"], "gap end_ms"), str(g.get("reason", "")))
        for g in raw.get("gaps") or ()
    )
    inputs = raw.get("inputs") or {}
    if not isinstance(inputs, dict):
        raise ValueError("inputs is not an object")
    return Summary(
        day,
        day_start,
        inputs,
        gaps,
        timeline,
        tuple(sorted(incidents, key=lambda i: i.start_ms)),
        tuple(raw.get("brokers") or ()),
        tuple(raw.get("top_partitions") or ()),
        tuple(as_int(e, "recording end") for e in raw.get("recording_ends") or ()),
    )


def gz_chunks(path: Path, stats: FrameStats) -> Iterator[bytes]:
    """A gzip file (several members allowed) as blocks of complete lines, each block ending with a
    newline; a truncated or damaged tail counts as torn. A consumer may stop early (time-sorted files)."""
    stats.files += 1
    try:
        data = path.read_bytes()
    except OSError:
        stats.torn += 1
        return
    buf = b""
    while data:
        d = zlib.decompressobj(wbits=31)
        pos = 0
        try:
            while not d.eof and pos < len(data):
                chunk = data[pos : pos + _CHUNK]
                pos += len(chunk)
                buf += d.decompress(chunk)
                cut = buf.rfind(b"\n") + 1
                if cut:
                    yield buf[:cut]
                    buf = buf[cut:]
        except zlib.error:
            stats.torn += 1  # damaged: the rest of the file is lost
            return
        if not d.eof:
            stats.torn += 1  # truncated: the partial last line
            return
        data = (d.unused_data + data[pos:]).lstrip(b"\0")
    if buf.strip():
        yield buf + b"\n"


def gz_lines(path: Path, stats: FrameStats) -> Iterator[bytes]:
    """Complete non-blank lines of a gzip file (`gz_chunks`)."""
    for block in gz_chunks(path, stats):
        yield from (line for line in block.split(b"\n") if line.strip())


def frame_lines(files: list[Path], stats: FrameStats) -> Iterator[bytes]:
    """Every complete non-blank line of `files`, counted."""
    for path in files:
        for line in gz_lines(path, stats):
            stats.lines += 1
            yield line


def records(files: list[Path], stats: FrameStats, batch: int = 4096) -> Iterator[Any]:
    """The JSON values of every line of `files`; lines that are not JSON count as garbled.

    Lines are decoded a batch at a time as one JSON array (a third of the cost of one call per line);
    a batch with a bad line is decoded line by line.
    """
    for path in files:
        lines: list[bytes] = []
        for line in gz_lines(path, stats):
            stats.lines += 1
            lines.append(line)
            if len(lines) >= batch:
                yield from _decode(lines, stats)
                lines = []
        yield from _decode(lines, stats)


def _decode(lines: list[bytes], stats: FrameStats) -> Iterator[Any]:
    if not lines:
        return
    try:
        yield from json.loads(b"[" + b",".join(lines) + b"]")
        return
    except ValueError:
        pass
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            stats.garbled += 1
            continue
        yield value


def frame_files(directory: Path, kind: str, hour: int | None = None) -> list[Path]:
    """The part files of ``frames/KIND``: directly in it (older outputs) and in its ``hour=H`` folders
    (all of them, or only hour `hour`'s)."""
    folder = directory / "frames" / kind
    if not folder.is_dir():
        return []
    dirs = (
        [folder / f"hour={hour}"]
        if hour is not None
        else [
            folder,
            *sorted(
                (p for p in folder.iterdir() if p.name.startswith("hour=") and p.is_dir()),
                key=lambda p: int(p.name[5:]) if p.name[5:].isdigit() else 99,
            ),
        ]
    )
    return [
        p
        for d in dirs
        if d.is_dir()
        for p in sorted(d.iterdir())
        if p.name.startswith("part-") and p.name.endswith(".json.gz")
    ]


def time_sorted(directory: Path) -> bool:
    """True when ``frames/layout.json`` says each part file of ``frames/partitions`` is in ``ts_ms``
    order (the job writes it so since layout 2), so a reader may stop at a minute's end."""
    try:
        layout = json.loads((directory / "frames" / LAYOUT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(layout, dict) and layout.get("sorted_by") == "ts_ms"


def has_hours(directory: Path) -> bool:
    """True when OUT's frames are laid out per hour, with each hour's starting state (``frames/at_hour``)."""
    return (directory / "frames" / "at_hour").is_dir()
