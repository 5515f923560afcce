"""The replay job's input stages: recordings and broker logs -> one event table, all in Spark.

Nothing here reads an input on the driver or writes a file an executor must read: the driver lists
files through Hadoop's FileSystem (`replay_fs`), and every byte of input is read by a Spark stage.

- **Recordings.** A scan stage (one task per hour file, ``binaryFiles``) checks each file's gzip
  members, counts records and returns the few broker / snapshot / gap records
  (`replay_inputs.scan_task`); its result stays cached on the executors. Intact files are then read
  again by Spark's JSON reader with a fixed schema, partition records only; a damaged file's good
  lines, a file the recorder may still be appending to (`growing_from`) and the snapshot records
  worth expanding come from the cached scan, parsed by ``from_json``.
- **Broker logs.** A parse stage (one task per log file) runs `logparse.iter_bytes`, the one
  definition of the line formats, on each file: partition events and the controller's fence /
  unfence lines. The fence lines (a few per broker restart) are collected and broadcast; the
  partition events are grouped by partition and each group goes through `logparse.derive_offline`
  with them on an executor (`derive_partition`: OFFLINE when a fenced leader leaves no unfenced ISR
  member, stale shrinks of a replaced leader dropped), as `logparse.parse_logs` does for all at
  once. The per-partition work of `replay_inputs.log_rows` (leader, replica set, min ISR inferred
  per topic, ISR carried over leader lines, the state before the first change) is DataFrame work
  over its result.

Size: a little over 600 lines: the two input stages (recordings, broker logs) and their shared
schema, read top to bottom in the order the job runs them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, timedelta, tzinfo
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.rdd import RDD
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from kafkatui.history.logparse import (
    MAX_EXAMPLES,
    BrokerLogEvent,
    IsrLogEvent,
    Kind,
    ParseReport,
    derive_offline,
    iter_bytes,
)
from kafkatui.history.record import schema
from kafkatui.history.replay import inputs as inp
from kafkatui.history.replay.fs import FileInfo, HadoopFs, is_uri, join, local_path, to_uri
from kafkatui.history.replay.schema import NOT_RECORDED
from kafkatui.model.rules import mode_words

LAST_SEQ = 1 << 62
SNAP_SEQ = LAST_SEQ - (1 << 40)  # snapshot rows sort after the records of their instant, before a gap's start
REPAIRED_SEQ = LAST_SEQ - (1 << 42)  # lines from the scan (damaged, growing): after the intact files' records
HOUR_MS = 3_600_000
GROWING_SLACK_MS = 60_000

EXIT_NO_INPUT = 3
EXIT_UNWRITABLE = 17  # the output directory cannot be written (as `kafkatui record`)
EXIT_FAILED = 21

BrokerFrame = tuple[int, int, bool, str | None]  # ts_ms, broker, up, rack (last known)

_IDS = T.ArrayType(T.IntegerType())


def _fields(*pairs: tuple[str, T.DataType]) -> T.StructType:
    return T.StructType([T.StructField(name, kind) for name, kind in pairs])


# partition records only: the JSON reader converts just these fields and skips the rest of a line
_PART_FIELDS = (
    ("v", T.LongType()),
    ("type", T.StringType()),
    ("ts", T.DoubleType()),
    ("topic", T.StringType()),
    ("partition", T.IntegerType()),
    ("leader", T.IntegerType()),
    ("replicas", _IDS),
    ("isr", _IDS),
    ("min_isr", T.IntegerType()),
    ("effective_min_isr", T.IntegerType()),
    ("class", T.StringType()),
)
PART_SCHEMA = _fields(*_PART_FIELDS, ("_corrupt_record", T.StringType()))
LINE_SCHEMA = _fields(*_PART_FIELDS)
SNAP_SCHEMA = _fields(
    ("ts", T.DoubleType()),
    ("min_isr_capped", T.BooleanType()),
    (
        "topics",
        T.MapType(
            T.StringType(),
            _fields(("min_isr", T.IntegerType()), ("partitions", T.ArrayType(T.ArrayType(T.StringType())))),
        ),
    ),
)
LOG_EVENT_SCHEMA = _fields(
    ("ts", T.LongType()),
    ("broker", T.IntegerType()),
    ("topic", T.StringType()),
    ("partition", T.IntegerType()),
    ("kind", T.StringType()),
    ("old_isr", _IDS),
    ("new_isr", _IDS),
    ("under", T.BooleanType()),
    ("oos", _IDS),
    ("seq", T.LongType()),
    ("leader", T.IntegerType()),
)
EVENT_COLS = [
    "ts",
    "topic",
    "partition",
    "leader",
    "isr",
    "replicas",
    "rset",
    "min_isr",
    "offline",
    "unknown",
    "seq",
    "weak",
]


def epoch_ms(seconds: Column) -> Column:
    """Epoch seconds (double) -> ms (long), as ``round(seconds * 1000)`` (HALF_UP), without its
    ``BigDecimal(Double.toString(x))`` per row: ``rint`` (half-even) agrees with HALF_UP except on an
    exact .5, which still goes through ``round``."""
    x = seconds * 1000
    return F.when(x - F.floor(x) != 0.5, F.rint(x)).otherwise(F.round(x)).cast("long")


def effective_min_isr(min_isr: Column, replicas: Column, capped: Column) -> Column:
    """`kafkatui.model.rules.effective_min_isr` as a Spark expression: min(min ISR, replica count)
    where the brokers cap it (3.7+), else min ISR."""
    return F.when(capped & (replicas > 0), F.least(min_isr, replicas)).otherwise(min_isr)


class ReplayError(Exception):
    """The replay cannot run or failed; one line, with an exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(slots=True)
class ReplayConfig:
    """One replay: which day, from which inputs (paths or Hadoop URIs), to which directory."""

    day: date
    out: Path | str
    history: Path | str | None = None
    broker_logs: list[str] = field(default_factory=list)
    min_isr: int | None = None
    tz: tzinfo = UTC
    until_ms: int | None = None  # today so far: nothing at or after it is read (it is "now" at launch)

    @property
    def day_start(self) -> int:
        return inp.day_start_ms(self.day)

    @property
    def day_end(self) -> int:
        return self.day_start + inp.DAY_MS

    @property
    def data_end(self) -> int:
        """Where the inputs are cut: 24:00, or `until_ms` when the day is not over."""
        return self.day_end if self.until_ms is None else max(self.day_start, min(self.day_end, self.until_ms))

    @property
    def out_uri(self) -> str:
        return to_uri(self.out)

    @property
    def history_uri(self) -> str | None:
        return None if self.history is None else to_uri(self.history)


@dataclass(slots=True)
class Inputs:
    """The unified event table and what the driver collected beside it."""

    events: DataFrame
    gaps: list[dict[str, Any]]
    broker_frames: list[BrokerFrame]
    counts: dict[str, Any]
    mixed: bool = False  # both recordings and broker logs
    cached: list[Any] = field(default_factory=list)  # RDDs / DataFrames to unpersist at the end


# -- recordings -------------------------------------------------------------------------------------


def hour_files(fs: HadoopFs, history: str, day: date) -> list[FileInfo]:
    """The hour files of one UTC day, in hour order (through Hadoop's FileSystem)."""
    return fs.glob(join(history, schema.day_name(day), f"[0-2][0-9]{schema.FILE_SUFFIX}"))


def _tail(uri: str) -> str:
    """``DAY/HH.events.jsonl.gz``: names one hour file of a history, whatever the URI's spelling."""
    return "/".join(uri.rstrip("/").rsplit("/", 2)[-2:])


def growing_from(cfg: ReplayConfig) -> int:
    """The first hour of the day whose file a recorder may still append to while the job runs: replaying
    today so far (`until_ms`), the hour of until, or the one before within a minute of the hour (a
    refresh taken before it is written after); 24 (none) otherwise.

    Those files are parsed from the scan's bytes, never read again: Hadoop's line reader stops once
    its read-ahead of a gzip file passes the length Spark listed, so a file that grew in between
    gave only its first lines (a small live hour file: just its first snapshot, no change records)."""
    if cfg.until_ms is None:
        return 24
    return max(0, (cfg.data_end - cfg.day_start - GROWING_SLACK_MS) // HOUR_MS)


def _hour(f: FileInfo) -> int:
    return int(f.name[:2])


def _scan_one(uri: str, data: bytes, picks: dict[str, tuple[int, bool, bool, bool]]) -> inp.HourScan:
    rank, pick_all, pick_first, growing = picks[_tail(uri)]
    return inp.scan_task(rank, data, pick_all, pick_first, growing)


def _strip(h: inp.HourScan) -> inp.HourScan:
    return inp.HourScan(h.rank, h.damaged, h.events, h.garbled, h.newer, h.torn, h.meta)


@dataclass(slots=True)
class Recordings:
    """The recordings' event rows (lazy) and what the scan stage returned."""

    events: DataFrame | None = None
    meta: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    day_files: int = 0
    cached: list[Any] = field(default_factory=list)


def read_recordings(spark: SparkSession, fs: HadoopFs, cfg: ReplayConfig) -> Recordings:
    """The day's hour files (and the previous day's last, for the state at midnight) as event rows."""
    out = Recordings(counts={"events": 0, "torn_lines": 0, "newer_schema_records": 0, "garbled_lines": 0})
    history = cfg.history_uri
    if history is None:
        return out
    day_files = hour_files(fs, history, cfg.day)
    carry = hour_files(fs, history, cfg.day - timedelta(days=1))[-1:]
    files = carry + day_files
    out.day_files = len(day_files)
    if not day_files:
        return out
    first_day = len(carry)
    live = growing_from(cfg)
    growing = {rank for rank, f in enumerate(files) if rank >= first_day and _hour(f) >= live}
    picks = {_tail(f.uri): (rank, rank < first_day, rank == first_day, rank in growing) for rank, f in enumerate(files)}
    sc = spark.sparkContext
    raw: RDD[tuple[str, bytes]] = sc.binaryFiles(",".join(f.uri for f in files), minPartitions=len(files))
    scans = raw.map(lambda kv: _scan_one(kv[0], kv[1], picks)).persist(StorageLevel.MEMORY_AND_DISK)
    out.cached.append(scans)
    heads = sorted(scans.map(_strip).collect(), key=lambda h: h.rank)
    for h in heads:
        in_day = h.rank >= first_day
        out.counts["events"] += h.events if in_day else 0
        out.counts["torn_lines"] += h.torn
        out.counts["garbled_lines"] += h.garbled
        out.counts["newer_schema_records"] += h.newer
        out.meta.extend(h.meta)
    for seq, m in enumerate(out.meta):
        m["seq"] = seq
    from_scan = {h.rank for h in heads if h.damaged} | growing  # their lines come from the scan
    intact = [f.uri for rank, f in enumerate(files) if rank not in from_scan]
    valid = (
        F.col("v").isNotNull()
        & (F.col("v") <= 1)
        & (F.col("type") == "partition")
        & F.col("ts").isNotNull()
        & ~F.isnan("ts")
        & (F.abs("ts") < 1e13)
    )
    parts: list[DataFrame] = []
    if intact:
        read = (
            spark.read.schema(PART_SCHEMA)
            .option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", "_corrupt_record")
            .json(intact)
        )
        parts.append(
            read.filter(valid & F.col("_corrupt_record").isNull())
            .drop("_corrupt_record")
            .withColumn("seq", F.monotonically_increasing_id())
        )
    if from_scan:
        # a growing file's lines are as written: bytes that are no UTF-8 parse to nothing, as garbled lines do
        lines = scans.flatMap(
            lambda h: [((h.rank << 32) | i, b.decode(errors="replace")) for i, b in enumerate(h.lines)]
        )
        ldf = spark.createDataFrame(lines, "n long, line string")
        parts.append(
            ldf.select((F.lit(REPAIRED_SEQ) + F.col("n")).alias("seq"), F.from_json("line", LINE_SCHEMA).alias("r"))
            .select("r.*", "seq")
            .filter(valid)
        )
    events = parts[0]
    for more in parts[1:]:
        events = events.unionByName(more)
    leader = F.col("leader")
    events = events.select(
        epoch_ms(F.col("ts")).alias("ts"),
        "topic",
        "partition",
        "leader",
        "isr",
        "replicas",
        # the event table's min ISR is what the leader enforced (recordings before 3.7 support: the config)
        F.coalesce("effective_min_isr", "min_isr").alias("min_isr"),
        ((F.col("class") == "OFFLINE") & (leader >= 0)).alias("offline"),
        "seq",
    )
    if any(_has_snapshots(h) for h in heads):
        snap_lines = scans.flatMap(lambda h: [((h.rank << 24) | i, b.decode()) for i, b in enumerate(h.snapshots)])
        snaps = (
            spark.createDataFrame(snap_lines, "n long, line string")
            .select((F.lit(SNAP_SEQ) + F.col("n")).alias("seq"), F.from_json("line", SNAP_SCHEMA).alias("s"))
            .filter(F.col("s.ts").isNotNull())
            .select(
                epoch_ms(F.col("s.ts")).alias("ts"),
                "seq",
                F.coalesce("s.min_isr_capped", F.lit(False)).alias("capped"),
                F.explode("s.topics").alias("topic", "t"),
            )
            .select(
                "ts",
                "seq",
                "topic",
                "capped",
                F.col("t.min_isr").alias("min_isr"),
                F.explode("t.partitions").alias("p"),
            )
        )
        p = F.col("p")
        snap_leader = p[1].cast("int")
        # replicas parsed once: the min ISR's replica count reads the parsed column
        expanded = snaps.select(
            "ts",
            "topic",
            p[0].cast("int").alias("partition"),
            snap_leader.alias("leader"),
            F.from_json(p[4], _IDS).alias("isr"),
            F.from_json(p[3], _IDS).alias("replicas"),
            "min_isr",
            "capped",
            ((p[5] == "OFFLINE") & (snap_leader >= 0)).alias("offline"),
            "seq",
        )
        events = events.unionByName(
            expanded.withColumn(
                "min_isr", effective_min_isr(F.col("min_isr"), F.size("replicas"), F.col("capped"))
            ).drop("capped")
        )
    out.events = (
        events.withColumn("rset", F.lit(None).cast(_IDS))
        .withColumn("unknown", F.lit(False))
        .withColumn("weak", F.lit(False))
        .select(*EVENT_COLS)
    )
    return out


def _has_snapshots(h: inp.HourScan) -> bool:
    return any(m["type"] == "snapshot" for m in h.meta)


# -- broker logs ------------------------------------------------------------------------------------


LogTuple = tuple[int, int, str, int, Kind, list[int] | None, list[int], bool | None, list[int], int, int | None]
"""A partition event between the log stages: ts, broker, topic, partition, kind, old_isr, new_isr,
under, out-of-sync brokers, seq, leader (as `logparse.IsrLogEvent`; None: ``broker`` leads)."""
DERIVED_SEQ = 0
"""seq of an ``offline`` event a fence line implies: before the partition's own lines of that instant
(``derive_offline`` applies a fence before the events of its millisecond); parsed lines are >= 1."""


def _parse_task(rank: int, name: str, data: bytes, tz: tzinfo) -> Iterator[tuple[str, Any]]:
    """Partition events ("e"), fence / unfence events ("b": ts, broker, kind, seq) of one log file
    (runs on an executor), then its parse report ("r")."""
    report = ParseReport()
    for n, ev in iter_bytes(data, name, report, tz):
        seq = (rank << 32) | n
        if isinstance(ev, BrokerLogEvent):
            yield "b", (ev.ts_ms, ev.broker, ev.kind, seq)
        else:
            yield "e", _log_tuple(ev, seq)
    yield "r", asdict(report)


def _log_tuple(ev: IsrLogEvent, seq: int) -> LogTuple:
    return (
        ev.ts_ms,
        ev.broker,
        ev.topic,
        ev.partition,
        ev.kind,
        list(ev.old_isr) if ev.old_isr is not None else None,
        list(ev.new_isr),
        ev.under_min_isr,
        [b for b, _, _ in ev.out_of_sync],
        seq,
        ev.leader,
    )


def derive_partition(rows: Iterable[LogTuple], fences: list[BrokerLogEvent]) -> list[LogTuple]:
    """One partition's events through `logparse.derive_offline` (runs on an executor, per partition,
    with every fence / unfence event of the logs, time-sorted): the ``offline`` events the fences imply
    added, parsed ``offline`` events given the ISR known then, stale shrinks / expands dropped. A
    partition's outcome depends only on its own events and the fences, so this equals deriving over
    all partitions at once, as `logparse.parse_logs` does."""
    events = sorted(
        (
            IsrLogEvent(
                t[0],
                t[1],
                t[2],
                t[3],
                t[4],
                None if t[5] is None else tuple(t[5]),
                tuple(t[6]),
                under_min_isr=t[7],
                out_of_sync=tuple((b, None, None) for b in t[8]),
                source=str(t[9]),
                leader=t[10],
            )
            for t in rows
        ),
        key=lambda e: (e.ts_ms, int(e.source)),
    )
    return [
        _log_tuple(ev, int(ev.source) if ev.source.isdigit() else DERIVED_SEQ) for ev in derive_offline(events, fences)
    ]


def _merge(reports: list[dict[str, Any]]) -> ParseReport:
    out = ParseReport()
    for r in reports:
        for k in ("files", "lines", "events", "unparsed", "skipped", "broker_events"):
            setattr(out, k, getattr(out, k) + r[k])
        out.problems.extend(r["problems"])
        out.unparsed_examples.extend(r["unparsed_examples"][: max(0, MAX_EXAMPLES - len(out.unparsed_examples))])
    return out


@dataclass(slots=True)
class LogSide:
    """Event rows from broker logs (lazy) and what the parse found."""

    events: DataFrame | None = None
    brokers: set[int] = field(default_factory=set)
    events_in_day: int = 0
    report: ParseReport | None = None
    files: list[str] = field(default_factory=list)
    cached: list[Any] = field(default_factory=list)
    fences: list[BrokerLogEvent] = field(default_factory=list)  # the controller's fence / unfence lines, by time
    unmarked: list[str] = field(default_factory=list)  # topics no line marks under / not under min ISR (2.x logs)


def log_files(fs: HadoopFs, patterns: list[str]) -> tuple[list[FileInfo], list[str]]:
    """The files the patterns name (globs through Hadoop), sorted, and a problem per pattern matching none."""
    found: dict[str, FileInfo] = {}
    problems = []
    for pattern in patterns:
        got = fs.glob(to_uri(pattern))
        if not got:
            magic = any(c in pattern for c in "*?[")
            problems.append(f"{pattern}: no file matches" if magic else f"{pattern}: no such file")
        found.update((f.uri, f) for f in got)
    return [found[k] for k in sorted(found)], problems


def read_logs(spark: SparkSession, fs: HadoopFs, cfg: ReplayConfig) -> LogSide:
    """Broker-log event rows, as `replay_inputs.log_rows` makes them from `logparse.parse_logs`'s
    events, computed by Spark."""
    out = LogSide()
    if not cfg.broker_logs:
        return out
    files, problems = log_files(fs, cfg.broker_logs)
    out.files = [str(local_path(f.uri) or f.uri) if f.uri.startswith("file:") else f.uri for f in files]
    if not files:
        out.report = ParseReport(problems=problems)
        return out
    qualified = {_norm(f.uri): i for i, f in enumerate(files)}
    tz = cfg.tz
    sc = spark.sparkContext
    raw: RDD[tuple[str, bytes]] = sc.binaryFiles(",".join(f.uri for f in files), minPartitions=len(files))
    parsed = raw.flatMap(lambda kv: _parse_task(qualified[_norm(kv[0])], _display(kv[0]), kv[1], tz)).persist(
        StorageLevel.MEMORY_AND_DISK
    )
    out.cached.append(parsed)
    out.report = _merge(parsed.filter(lambda x: x[0] == "r").map(lambda x: x[1]).collect())
    out.report.problems[:0] = problems
    out.fences = [
        BrokerLogEvent(ts, broker, kind)
        for ts, broker, kind, _ in sorted(
            parsed.filter(lambda x: x[0] == "b").map(lambda x: x[1]).collect(), key=lambda b: (b[0], b[3])
        )
    ]
    fences = sc.broadcast(out.fences)
    out.cached.append(fences)
    derived = (
        parsed.filter(lambda x: x[0] == "e")
        .map(lambda x: ((x[1][2], x[1][3]), x[1]))
        .groupByKey()
        .flatMap(lambda kv: derive_partition(kv[1], fences.value))
    )
    ev = spark.createDataFrame(derived, LOG_EVENT_SCHEMA)
    key = ["topic", "partition"]
    everyone = F.concat(
        F.array("broker"),
        "new_isr",
        F.coalesce("old_isr", F.array().cast(_IDS)),
        F.coalesce("oos", F.array().cast(_IDS)),
    )
    rsets = ev.groupBy(*key).agg(F.array_sort(F.array_distinct(F.flatten(F.collect_list(everyone)))).alias("rset"))
    marked = ev.groupBy("topic").agg(
        F.max(F.when(F.col("under"), F.size("new_isr") + 1)).alias("low"),
        F.min(F.when(~F.col("under"), F.greatest(F.lit(1), F.size("new_isr")))).alias("high"),
    )
    out.unmarked = sorted(r["topic"] for r in marked.where(F.col("low").isNull() & F.col("high").isNull()).collect())
    default = F.lit(cfg.min_isr).cast("int")
    topic_min = marked.select(
        "topic", F.coalesce("low", F.least(default, F.coalesce("high", default))).alias("min_isr")
    )
    w = Window.partitionBy(*key).orderBy("ts", "seq")
    own = F.when((F.col("kind") != "leader") | (F.size("new_isr") > 0), F.col("new_isr"))
    rows = (
        ev.withColumn("isr", F.last(own, True).over(w.rowsBetween(Window.unboundedPreceding, 0)))
        .filter(F.col("isr").isNotNull())
        .withColumn("_n", F.row_number().over(w))
        .join(F.broadcast(topic_min), "topic")
        .join(rsets, key)
    )
    weak = rows.filter((F.col("_n") == 1) & F.col("old_isr").isNotNull()).select(
        (F.least("ts", F.lit(cfg.day_start)) - 1).alias("ts"),
        *key,
        F.col("broker").alias("leader"),
        F.col("old_isr").alias("isr"),
        "rset",
        "min_isr",
        F.lit(-1).cast("long").alias("seq"),
        F.lit(True).alias("weak"),
    )
    strong = rows.filter(F.col("ts") < cfg.data_end).select(  # leader -1: offline; an unclean line names the new one
        "ts",
        *key,
        F.coalesce("leader", "broker").alias("leader"),
        "isr",
        "rset",
        "min_isr",
        "seq",
        F.lit(False).alias("weak"),
    )
    logged = weak.unionByName(strong).persist(StorageLevel.MEMORY_AND_DISK)
    out.cached.append(logged)
    stats = logged.agg(
        F.sum(((F.col("ts") >= cfg.day_start) & ~F.col("weak")).cast("int")).alias("n"),
        F.array_distinct(F.flatten(F.collect_set("rset"))).alias("b"),
    ).first()
    out.events_in_day = int(stats["n"] or 0) if stats else 0
    out.brokers = set(stats["b"] or []) if stats else set()
    out.events = (
        logged.withColumn("replicas", F.lit(None).cast(_IDS))
        .withColumn("offline", F.lit(False))
        .withColumn("unknown", F.lit(False))
        .select(*EVENT_COLS)
    )
    return out


def _norm(uri: str) -> str:
    """A URI without the ``//`` of an empty authority: ``file:///x`` and ``file:/x`` are one file."""
    return uri.replace(":///", ":/", 1)


def _display(uri: str) -> str:
    path = local_path(uri)
    return str(path) if path is not None and uri.startswith("file:") else uri


def describe_inputs(history: Path | str | None, day: date, log_patterns: list[str]) -> str:
    """What was looked for, for the "no input for this day" message."""
    parts = []
    if history is not None:
        h = os.fspath(history)
        if is_uri(h):
            parts.append(join(h, schema.day_name(day), f"HH{schema.FILE_SUFFIX}"))
        else:
            parts.append(inp.describe_inputs(Path(h), day, []))
    parts.extend(f"broker logs {p!r}" for p in log_patterns)
    return " and ".join(parts) if parts else "nothing (give --history and/or --broker-logs)"


# -- together ---------------------------------------------------------------------------------------


def _broker_frames(
    rows: list[Any], log_brokers: set[int], fences: list[BrokerLogEvent], cfg: ReplayConfig
) -> list[BrokerFrame]:
    """Broker up/down (and rack) changes of the day, each known broker's state at its first appearance.

    Recordings: snapshot records list the live brokers with their racks, broker records say up/down
    (and the rack of a broker coming up); a broker keeps its last known rack while down. Brokers only
    seen in broker logs (no rack: the logs do not say) are down while the controller has them fenced
    (`_fenced_frames`), up otherwise.
    """
    state: dict[int, tuple[bool, str | None]] = {}
    frames: list[BrokerFrame] = []
    started = False

    def put(ts: int, broker: int, up: bool, rack: str | None) -> None:
        if state.get(broker) != (up, rack):
            state[broker] = (up, rack)
            if started:
                frames.append((ts, broker, up, rack))

    def rack_of(broker: int) -> str | None:
        return state[broker][1] if broker in state else None

    for r in sorted(rows, key=lambda r: (r["ts_ms"], r["seq"])):
        ts = r["ts_ms"]
        if ts >= cfg.data_end:
            break
        if ts >= cfg.day_start and not started:
            started = True
            frames.extend((cfg.day_start, b, up, rack) for b, (up, rack) in sorted(state.items()))
        if r["type"] == "snapshot":
            ids, racks = set(r["ids"] or ()), r.get("racks") or {}
            for b in sorted(ids | set(state)):
                put(ts, b, b in ids, racks.get(b, rack_of(b)))
        elif r["broker"] is not None:
            up = r["op"] == "up"
            put(ts, r["broker"], up, r.get("rack") if up else rack_of(r["broker"]))
    if not started:
        frames.extend((cfg.day_start, b, up, rack) for b, (up, rack) in sorted(state.items()))
    frames.extend(_fenced_frames(fences, log_brokers - set(state), cfg))
    return frames


def _fenced_frames(fences: list[BrokerLogEvent], brokers: set[int], cfg: ReplayConfig) -> list[BrokerFrame]:
    """`brokers`' up/down from the controller's fence / unfence lines (time-sorted): each broker's
    state at 00:00 (the last line before; none: up, unless its first line of the day unfences it,
    i.e. it was down), then a frame per change within the day. A broker the controller fenced is
    down for the cluster: it leads nothing and is in no ISR until unfenced."""
    up: dict[int, bool] = {}
    changes: list[BrokerFrame] = []
    for ev in fences:
        if ev.broker not in brokers or ev.ts_ms >= cfg.day_end:
            continue
        now = ev.kind != "fenced"  # unfenced, or listed live by a new ZooKeeper-mode controller
        if ev.ts_ms < cfg.day_start:
            up[ev.broker] = now
        elif up.setdefault(ev.broker, not now) != now:
            up[ev.broker] = now
            changes.append((ev.ts_ms, ev.broker, now, None))
    # the state at 00:00: before the first change of the day, the opposite of it
    first = {b: not u for ts, b, u, _ in reversed(changes)}
    at_start = [(cfg.day_start, b, first.get(b, up.get(b, True)), None) for b in sorted(brokers)]
    return at_start + changes


def read_inputs(spark: SparkSession, fs: HadoopFs, cfg: ReplayConfig) -> tuple[Inputs, dict[str, Any]]:
    """The unified event table (lazy), gaps, broker frames and input counts; ReplayError 3 when the day is empty."""
    rec = read_recordings(spark, fs, cfg)
    logs = read_logs(spark, fs, cfg)
    cached = rec.cached + logs.cached
    if rec.day_files == 0 and logs.events_in_day == 0:
        for c in cached:
            c.unpersist()
        raise ReplayError(
            f"no ISR history for {cfg.day.isoformat()} (UTC): looked for "
            f"{describe_inputs(cfg.history, cfg.day, cfg.broker_logs)}",
            EXIT_NO_INPUT,
        )
    counts = dict(rec.counts)
    counts["events"] += logs.events_in_day
    report = logs.report
    counts["unparsed_log_lines"] = report.unparsed if report else 0
    parts = [df for df in (rec.events, logs.events) if df is not None]
    events = parts[0]
    for more in parts[1:]:
        events = events.unionByName(more)
    gaps = []
    for g in (m for m in rec.meta if m["type"] == "gap"):
        start, end = round(g["from"] * 1000), round(min(g["to"] * 1000, cfg.data_end))
        if start < cfg.data_end and end > cfg.day_start:
            gaps.append(
                {"start_ms": max(start, cfg.day_start), "end_ms": min(end, cfg.day_end), "reason": g["reason"] or ""}
            )
    ends = recording_ends(rec.meta, cfg) if cfg.history is not None else []
    for start, end in ends:
        gaps.append({"start_ms": start, "end_ms": end, "reason": NOT_RECORDED})
    gaps.sort(key=lambda g: (g["start_ms"], g["end_ms"]))
    meta: dict[str, Any] = {
        "history": os.fspath(cfg.history) if cfg.history is not None else None,
        "broker_logs": logs.files,
        "events": counts["events"],
        "torn_lines": counts["torn_lines"] + counts["garbled_lines"],
        "unparsed_log_lines": counts["unparsed_log_lines"],
        "newer_schema_records": counts["newer_schema_records"],
    }
    if report and report.problems:
        meta["log_problems"] = report.problems[:20]
    if report is not None:
        meta["unparsed_log_examples"] = report.unparsed_examples[:MAX_EXAMPLES]
        meta["log_topics_without_min_isr_marker"] = logs.unmarked
    frames = _broker_frames(
        [m for m in rec.meta if m["type"] in ("broker", "snapshot")], logs.brokers, logs.fences, cfg
    )
    meta["recording_ends"] = [start for start, _ in ends]
    meta.update(recorded_cluster(rec.meta))
    return Inputs(events, gaps, frames, counts, mixed=len(parts) > 1, cached=cached), meta


def recorded_cluster(meta: list[dict[str, Any]]) -> dict[str, Any]:
    """What the recordings say of the cluster: its ids (``clusters``), and the Kafka version range and
    mode its snapshots were taken under (``kafka_version``, ``mode``: the latest first seen last; two or
    more joined with " then " when they changed during the day, e.g. a rolling upgrade)."""

    def seen(key: str) -> list[str]:
        out: list[str] = []
        for m in sorted(meta, key=lambda m: (m["ts_ms"], m["seq"])):
            v = m.get(key)
            if v and v != "unknown" and (not out or out[-1] != v):
                out.append(v)
        return out

    modes = [mode_words(m) for m in seen("mode")]
    return {
        "clusters": sorted({m["cluster"] for m in meta if m.get("cluster")}),
        "kafka_version": " then ".join(seen("kafka")) or None,
        "mode": " then ".join(modes) or None,
    }


def recording_ends(meta: list[dict[str, Any]], cfg: ReplayConfig) -> list[tuple[int, int]]:
    """Where the day's recordings end, each with what follows unrecorded: [end, next start) or
    [end, 24:00). A recording ends at its ``end`` record (the recorder stopped), or -- replaying
    today -- at `until_ms` (when it was launched). Nothing is carried past an end: the state there is
    unknown, not the last one recorded."""
    out: list[tuple[int, int]] = []
    open_end: int | None = None
    for m in sorted(meta, key=lambda m: (m["ts_ms"], m["seq"])):
        ts = m["ts_ms"]
        if ts >= cfg.data_end:
            break
        if m["type"] == "end":
            open_end = open_end if open_end is not None else ts
        elif m["type"] == "snapshot" and open_end is not None:
            if ts > cfg.day_start and open_end < ts:
                out.append((max(open_end, cfg.day_start), ts))
            open_end = None
    if open_end is None and cfg.until_ms is not None and cfg.data_end < cfg.day_end:
        open_end = cfg.data_end
    if open_end is not None and open_end < cfg.day_end:
        out.append((max(open_end, cfg.day_start), cfg.day_end))
    return out
