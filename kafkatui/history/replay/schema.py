"""The replay job's output, one definition for the job that writes it and everyone who reads it.

OUT holds ``summary.json`` (schema ``kafkatui.replay/1``: day, timeline of 1440 minutes, incidents,
gaps, brokers, top partitions), the same tables in Parquet, and the frames in gzip JSON Lines.
Here: the names, and the typed summary (`Summary`, `parse_summary`) that the reader checks
summary.json into. Pure Python (no pyspark): the Spark job, its executors (which import it from the
shipped zip), the reader, ``kafkatui replay`` and the benches import it alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kafkatui.model.health import Health

SCHEMA = "kafkatui.replay/1"
SCHEMA_PREFIX = "kafkatui.replay/"
MINUTES = 1440
MINUTE_MS = 60_000
LAYOUT = "layout.json"  # frames/layout.json: how the job laid the frames out (absent before layout 2)
FRAMES_LAYOUT = {"schema": "kafkatui.frames/2", "sorted_by": "ts_ms"}
# the reason of the gap that follows where a recording ends (the job writes it, the screens read it)
NOT_RECORDED = "not recorded: the recording ends here"
SUMMARY_FILE = "summary.json"  # written last: its presence means the replay is whole
INTERVALS = "intervals"  # Parquet: the class intervals, as the job's DataFrame has them
FRAMES = "frames"  # gzip JSON Lines: partitions/hour=H, at_hour/hour=H, brokers, and LAYOUT


@dataclass(frozen=True, slots=True)
class Table:
    """One small output table: its name (summary.json's key and OUT's Parquet folder) and its columns,
    each a name and a Spark SQL type. The reader's dataclass of a row has the same field names."""

    name: str
    columns: tuple[tuple[str, str], ...]

    @property
    def ddl(self) -> str:
        """The Spark schema: ``minute int, offline int, ...``."""
        return ", ".join(f"{name} {kind}" for name, kind in self.columns)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)


TIMELINE = Table(
    "timeline",
    (
        ("minute", "int"),
        ("offline", "int"),
        ("under_min_isr", "int"),
        ("at_min_isr", "int"),
        ("under_replicated", "int"),
        ("worst", "string"),
        ("gap", "boolean"),
    ),
)
BROKERS = Table("brokers", (("broker", "int"), ("shrinks", "long"), ("expands", "long"), ("flapping_score", "double")))
INCIDENTS = Table(
    "incidents",
    (
        ("id", "int"),
        ("start_ms", "long"),
        ("end_ms", "long"),
        ("duration_s", "double"),
        ("first_broker_out", "int"),
        ("first_out_ms", "long"),
        ("topics", "array<string>"),
        ("partitions", "long"),
        ("peak_under_min_isr", "long"),
        ("peak_offline", "long"),
        ("ongoing", "boolean"),
    ),
)
TOP_PARTITIONS = Table(
    "top_partitions", (("topic", "string"), ("partition", "int"), ("under_min_isr_s", "double"), ("intervals", "long"))
)
SUMMARY_TABLES = (TIMELINE, BROKERS, INCIDENTS, TOP_PARTITIONS)
"""The tables summary.json holds, each also written as Parquet under its name."""
BROKER_FRAMES = Table("brokers", (("ts_ms", "long"), ("broker", "int"), ("up", "boolean"), ("rack", "string")))
"""frames/brokers: each broker's up/down changes."""
SHOWN_FRAMES = ("partitions", "brokers")
"""The frames folders a user opens (frames/at_hour is the screens' index into partitions)."""


def outputs_text() -> str:
    """What OUT holds, in one line: ``summary.json, timeline/ ... (Parquet), frames/... (JSON Lines, gzip)``."""
    parquet = [TIMELINE.name, INTERVALS, *(t.name for t in SUMMARY_TABLES[1:])]
    frames = [f"{FRAMES}/{name}/" for name in SHOWN_FRAMES]
    return f"{SUMMARY_FILE}, {' '.join(f'{n}/' for n in parquet)} (Parquet), {' '.join(frames)} (JSON Lines, gzip)"


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


def parse_summary(raw: dict[str, Any]) -> Summary:
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
