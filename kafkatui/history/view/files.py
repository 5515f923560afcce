"""The files of a replay job's output directory (OUT): summary.json, checked and typed, and the frames' lines.

``summary.json`` is checked here and typed by `kafkatui.history.replay.schema`; ``frames/partitions``
and ``frames/brokers`` hold Spark's JSON output,
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
from pathlib import Path
from typing import Any, ClassVar

from kafkatui.history.replay.schema import FRAMES, LAYOUT, SCHEMA, SCHEMA_PREFIX, SUMMARY_FILE, Summary, parse_summary
from kafkatui.kafka.errors import KafkaTuiError

_CHUNK = 1 << 16


class ReplayDataError(KafkaTuiError):
    """The replay directory cannot be read: missing, no or garbled summary.json, newer schema (exit 3)."""

    exit_code: ClassVar[int] = 3
    kind: ClassVar[str] = "replay data"


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


def read_summary(directory: Path) -> Summary:
    """summary.json of `directory`, checked; ReplayDataError (one line) when it cannot be used."""
    if not directory.is_dir():
        raise fail(directory, "no such directory (give the --out directory of `kafkatui replay`)")
    path = directory / SUMMARY_FILE
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
        return parse_summary(raw)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise fail(directory, f"summary.json is malformed: {exc}") from None


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
    folder = directory / FRAMES / kind
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
        layout = json.loads((directory / FRAMES / LAYOUT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(layout, dict) and layout.get("sorted_by") == "ts_ms"


def has_hours(directory: Path) -> bool:
    """True when OUT's frames are laid out per hour, with each hour's starting state (``frames/at_hour``)."""
    return (directory / FRAMES / "at_hour").is_dir()
