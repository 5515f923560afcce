"""The PySpark replay job: a day of ISR history -> timeline, intervals, incidents, brokers, frames.

Run it from kafkatui (``kafkatui replay --day 2026-11-20 --history DIR``) or on any Spark cluster with
spark-submit (recipes: docs/replay-cluster.md); inputs and ``--out`` are paths or Hadoop URIs::

    kafkatui replay --spark-submit --day 2026-11-20 --history hdfs:///kafkatui/history   # prints:
    spark-submit --py-files ~/.cache/kafkatui/ship/kafkatui-VERSION-HASH.zip kafkatui/history/replay/job.py \\
        --day 2026-11-20 --history hdfs:///kafkatui/history --out hdfs:///kafkatui/replay/2026-11-20

Only pyspark and the Python standard library are needed besides ``kafkatui``, which the job ships to the
executors itself (`kafkatui.history.replay.ship`); the driver needs it installed or as ``--py-files``.

The stages (states, class intervals, timeline, incidents, brokers, top partitions) are
`kafkatui.history.replay.stages`; this module runs them, writes the outputs (their names and
columns: `kafkatui.history.replay.schema`) and is spark-submit's entry point.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from kafkatui.history.replay import inputs as inp
from kafkatui.history.replay import schema
from kafkatui.history.replay.fs import MARKER, HadoopFs, is_uri, join, local_path
from kafkatui.history.replay.min_isr_note import min_isr_note
from kafkatui.history.replay.read import (
    EXIT_FAILED,
    EXIT_NO_INPUT,
    EXIT_UNWRITABLE,
    Inputs,
    ReplayConfig,
    ReplayError,
    describe_inputs,
    read_inputs,
)
from kafkatui.history.replay.stages import (
    HOUR_MS,
    KEY,
    bad_intervals,
    brokers,
    class_intervals,
    incidents,
    states,
    timeline,
    top_partitions,
)

__all__ = [
    "EXIT_FAILED",
    "EXIT_NO_INPUT",
    "EXIT_NO_JAVA",
    "EXIT_UNWRITABLE",
    "ReplayConfig",
    "ReplayError",
    "ReplayResult",
    "replay",
    "run_job",
]

STAGES = ("read inputs", "build intervals", "aggregate", "write")
HOUR_WRITERS = 32  # open frame writers a task may hold: more than a day's 24 hours, so none is sorted
EXIT_NO_JAVA = 20

Progress = Callable[[int, str], None]  # (stage index 0..3, or 4 when done; detail)


def tuning(parallelism: int) -> dict[str, str]:
    """The SQL settings the job runs with, whoever made the session (kafkatui replay, spark-submit):
    adaptive execution sizes the shuffles from the cluster's cores (initially 4 per core, coalesced)."""
    return {
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.adaptive.coalescePartitions.enabled": "true",
        "spark.sql.shuffle.partitions": str(max(8, 4 * parallelism)),
        "spark.sql.session.timeZone": "UTC",
        # building compressed cache batches cost more than the window work they save (measured)
        "spark.sql.inMemoryColumnarStorage.compressed": "false",
        "spark.sql.sources.partitionOverwriteMode": "static",
        # the frames are written one folder per hour, each file in time order: sorted by time alone (one
        # long key: a radix sort) and each row handed to its hour's open writer, not the planned write's
        # sort by (hour, time), whose ties on the hour all went to the row comparator (5 million rows,
        # 2 cores: 3.5-4.2 s instead of 8.1-10.6 s)
        "spark.sql.optimizer.plannedWrite.enabled": "false",
        "spark.sql.maxConcurrentOutputFileWriters": str(HOUR_WRITERS),
    }


def tune(spark: SparkSession) -> None:
    for key, value in tuning(spark.sparkContext.defaultParallelism).items():
        spark.conf.set(key, value)


def _noop(stage: int, detail: str) -> None:
    return None


# -- the job ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class ReplayResult:
    """What the job produced: the summary document and where it went."""

    out: Path | str
    summary: dict[str, Any]
    seconds: float


def claim_local_output(out: Path) -> None:
    """Make `out` ours before Spark starts: a new or empty directory, or one a replay wrote before
    (its marker or summary.json); ReplayError (exit 17) for a file, a foreign non-empty directory
    (its files are never deleted) or a directory that cannot be written."""
    try:
        if out.exists() and not out.is_dir():
            raise ReplayError(f"--out {out}: exists and is not a directory", EXIT_UNWRITABLE)
        names = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        _check_owned(str(out), names)
        out.mkdir(parents=True, exist_ok=True)
        (out / MARKER).write_text("written by kafkatui replay; its subdirectories are replaced on every run\n")
    except OSError as exc:
        raise ReplayError(f"--out {out}: cannot write there ({exc.strerror or exc})", EXIT_UNWRITABLE) from None


def _check_owned(shown: str, names: list[str]) -> None:
    if names and MARKER not in names and schema.SUMMARY_FILE not in names:
        listed = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        raise ReplayError(
            f"--out {shown}: not empty and not a replay directory ({listed}); give a new or "
            f"empty directory (nothing in it was changed)",
            EXIT_UNWRITABLE,
        )


def claim_output(fs: HadoopFs, cfg: ReplayConfig) -> None:
    """`claim_local_output` for any Hadoop filesystem (through the driver's FileSystem)."""
    shown, uri = os.fspath(cfg.out), cfg.out_uri
    try:
        if fs.exists(uri) and not fs.is_dir(uri):
            raise ReplayError(f"--out {shown}: exists and is not a directory", EXIT_UNWRITABLE)
        _check_owned(shown, fs.children(uri))
        fs.mkdirs(uri)
        fs.write_bytes(join(uri, MARKER), b"written by kafkatui replay; its subdirectories are replaced on every run\n")
    except ReplayError:
        raise
    except Exception as exc:  # py4j / Hadoop: permission denied, unknown scheme, unreachable namenode
        raise ReplayError(f"--out {shown}: cannot write there ({spark_error_line(exc)})", EXIT_UNWRITABLE) from None


def check_inputs(fs: HadoopFs, cfg: ReplayConfig) -> None:
    """The history directory exists and its filesystem answers (exit 3 with the cause otherwise)."""
    uri = cfg.history_uri
    if uri is None:
        return
    try:
        ok = fs.is_dir(uri)
    except Exception as exc:
        raise ReplayError(f"--history {cfg.history}: {spark_error_line(exc)}", EXIT_NO_INPUT) from None
    if not ok:
        raise ReplayError(f"--history {cfg.history}: no such directory", EXIT_NO_INPUT)


def run_job(spark: SparkSession, cfg: ReplayConfig, progress: Progress = _noop, claimed: bool = False) -> ReplayResult:
    """Run the replay on `spark` and write every output under ``cfg.out`` (a path or a Hadoop URI);
    `claimed`: the caller has already made ``cfg.out`` ours (`claim_local_output`)."""
    t0 = time.perf_counter()
    tune(spark)
    fs = HadoopFs(spark)
    check_inputs(fs, cfg)
    if not claimed:
        claim_output(fs, cfg)
    progress(0, "scanning recordings, parsing broker logs")
    inputs, meta = read_inputs(spark, fs, cfg)
    persisted: list[Any] = list(inputs.cached)
    try:
        progress(1, f"{meta['events']:,} events")
        st = states(inputs, cfg).persist()
        persisted.append(st)
        iv = class_intervals(st, cfg).persist()
        persisted.append(iv)
        n_states = st.count()
        unknown = sorted(
            r["topic"]
            for r in st.where(F.col("min_isr").isNull() & ~F.col("unknown")).select("topic").distinct().collect()
        )
        note = min_isr_note(meta.get("log_topics_without_min_isr_marker", []), unknown, cfg.min_isr, inputs.mixed)
        meta["min_isr_unknown_topics"] = unknown
        if note is not None:
            meta["min_isr_note"] = note
        n_intervals = iv.count()
        progress(2, f"{n_states:,} partition states, {n_intervals:,} intervals")
        # the two big outputs are written while the aggregates run: each fills the other's idle core;
        # the brokers' counts follow the writes in their thread, beside the incidents (whose small
        # stages, one after another, leave a core idle)
        known = sorted({f[1] for f in inputs.broker_frames})
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-write") as pool:
            tables = pool.submit(_write_tables, fs, cfg, st, iv)
            by_broker = pool.submit(brokers, st, known)
            tl = timeline(iv, cfg, inputs.gaps)
            progress(2, "timeline done")
            bad = bad_intervals(iv).persist()
            persisted.append(bad)
            inc = incidents(bad, st)
            ends = set(meta.get("recording_ends", ()))
            for i in inc:  # still bad where a recording ends: ongoing then, not over
                i["ongoing"] = i["end_ms"] in ends
            progress(2, f"{len(inc)} incidents")
            top = top_partitions(bad)
            progress(3, "writing intervals and frames")
            tables.result()
            br = by_broker.result()
        summary = {
            "schema": schema.SCHEMA,
            "day": cfg.day.isoformat(),
            "day_start_ms": cfg.day_start,
            "inputs": meta,
            "gaps": inputs.gaps,
            "recording_ends": meta.get("recording_ends", []),
            "timeline": tl,
            "incidents": inc,
            "brokers": br,
            "top_partitions": top,
        }
        _write_summary(spark, fs, cfg, inputs, summary)
    finally:
        for df in persisted:
            df.unpersist()
    progress(4, "done")
    return ReplayResult(cfg.out, summary, time.perf_counter() - t0)


def _write_tables(fs: HadoopFs, cfg: ReplayConfig, st: DataFrame, iv: DataFrame) -> None:
    """intervals/ (Parquet), and the frames (gzip JSON Lines, fastest zlib level: 25% larger, 40% less
    time) in one folder per hour of the day, so the Replay screen can open on one hour at once:
    ``frames/partitions/hour=H/`` the partition states that begin in hour H, each part file in time
    order (the screen reads an hour only up to the minute it shows), ``frames/at_hour/hour=H/`` each
    partition's state in force at H:00 (its last frame before; none for hour 0); then
    ``frames/layout.json`` says so (older outputs lack it: their files are read whole)."""
    out = cfg.out_uri
    iv.write.mode("overwrite").parquet(join(out, schema.INTERVALS))
    d0 = cfg.day_start
    frames = st.filter(~F.col("unknown")).select(
        F.col("ts").alias("ts_ms"), "topic", "partition", "leader", "isr", "replicas", "min_isr", "class"
    )
    hour = F.floor((F.col("ts_ms") - d0) / HOUR_MS).cast("int")
    w = Window.partitionBy(*KEY).orderBy("ts_ms")  # st's own partitioning: no new shuffle
    # the hours H (1..23) whose start the frame is in force at: ts < H:00 <= the next frame's ts
    nxt = F.coalesce(F.lead("ts_ms").over(w), F.lit(cfg.day_end).cast("long"))
    spans = (
        frames.withColumn("_h1", hour + 1)
        .withColumn("_h2", F.least(F.floor((nxt - d0) / HOUR_MS).cast("int"), F.lit(23)))
        .filter(F.col("_h1") <= F.col("_h2"))
    )
    at_hour = spans.select("*", F.explode(F.sequence("_h1", "_h2")).alias("hour")).drop("_h1", "_h2")

    def write(df: DataFrame, name: str) -> None:
        (
            df.write.mode("overwrite")
            .partitionBy("hour")
            .option("compression", "gzip")
            .option("zlib.compress.level", "BEST_SPEED")
            .option("ignoreNullFields", "false")
            .json(join(out, schema.FRAMES, name))
        )

    # one task per core (no shuffle: st's partitions merged after the window): each writes one file
    # per hour, not each of st's 4-per-core partitions (Hadoop's local filesystem starts a chmod
    # process per file and directory); sorted within each task by time, and each row handed to its
    # hour's open writer (`tuning`), so each file is in time order
    tasks = st.sparkSession.sparkContext.defaultParallelism
    write(frames.withColumn("hour", hour).coalesce(tasks).sortWithinPartitions("ts_ms"), "partitions")
    write(at_hour.coalesce(tasks), "at_hour")
    fs.write_bytes(join(out, schema.FRAMES, schema.LAYOUT), (json.dumps(schema.FRAMES_LAYOUT) + "\n").encode())


def _write_summary(
    spark: SparkSession, fs: HadoopFs, cfg: ReplayConfig, inputs: Inputs, summary: dict[str, Any]
) -> None:
    """The small tables and broker frames (side by side), then summary.json (last: its presence means
    the replay is whole), written through Hadoop's FileSystem."""
    out = cfg.out_uri
    small = [(summary[t.name], t.ddl, t.name) for t in schema.SUMMARY_TABLES]

    def parquet(rows: list[Any], ddl: str, name: str) -> None:
        spark.createDataFrame(rows, ddl).coalesce(1).write.mode("overwrite").parquet(join(out, name))

    def broker_frames() -> None:
        spark.createDataFrame(inputs.broker_frames, schema.BROKER_FRAMES.ddl).coalesce(1).write.mode(
            "overwrite"
        ).option("compression", "gzip").json(join(out, schema.FRAMES, schema.BROKER_FRAMES.name))

    with ThreadPoolExecutor(max_workers=5, thread_name_prefix="replay-write") as pool:
        done = [pool.submit(parquet, *t) for t in small] + [pool.submit(broker_frames)]
        for f in done:
            f.result()
    fs.write_bytes(join(out, schema.SUMMARY_FILE), (json.dumps(summary, indent=1) + "\n").encode())


def spark_error_line(exc: BaseException) -> str:
    """One line naming the cause of a Spark / Hadoop failure: the innermost Java exception of a py4j
    error, the last line of a Python worker's traceback, else the first line of the message."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            root = java
            for _ in range(20):
                cause = root.getCause()
                if cause is None:
                    break
                root = cause
            message = str(root.getMessage() or "").strip().splitlines()
            name = str(root.getClass().getSimpleName())
            python = _python_cause(message)
            return python or (f"{name}: {message[0][:300]}" if message else name)
        except Exception:  # the JVM is gone: fall back to the text
            pass
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    return _python_cause(lines) or (lines[0].strip()[:300] if lines else type(exc).__name__)


def _python_cause(lines: list[str]) -> str | None:
    if not any("Traceback (most recent call last)" in ln for ln in lines):
        return None
    for ln in reversed(lines):
        head = ln.strip().split(":", 1)[0]
        if head and head.replace(".", "").isidentifier() and (head.endswith("Error") or head.endswith("Exception")):
            return ln.strip()[:300]
    return None


def spark_log_path(cfg: ReplayConfig) -> Path:
    """Where a local JVM's own output goes: OUT/spark.log for a local --out, else a temp file."""
    local = local_path(cfg.out)
    if local is not None:
        return local / "spark.log"
    return Path(tempfile.gettempdir()) / f"kafkatui-replay-{cfg.day.isoformat()}-{os.getpid()}-spark.log"


def replay(
    cfg: ReplayConfig,
    master: str | None = None,
    progress: Progress = _noop,
    on_session: Callable[[SparkSession], None] | None = None,
    conf: dict[str, str] | None = None,
) -> ReplayResult:
    """Start Spark (in a thread) while the driver checks what it can without it, then run the job.

    The job ships its own code to a cluster's executors (`kafkatui.history.replay.ship`). Raises
    ReplayError, NoJavaError (before anything starts) and whatever Spark raises; the session is
    stopped at the end unless it was there before (spark-submit).
    """
    from kafkatui.history.replay.ship import ship
    from kafkatui.history.replay.spark_session import NoJavaError, find_java, spark_session, under_spark_submit

    if find_java() is None and not under_spark_submit() and SparkSession.getActiveSession() is None:
        raise NoJavaError(
            "Java not found: PySpark needs a JDK 17+ (Debian: apt-get install "
            "openjdk-17-jre-headless; `make tools` installs it), or set JAVA_HOME"
        )
    hist = local_path(cfg.history) if cfg.history is not None else None
    if not cfg.broker_logs and hist is not None and not inp.hour_files(hist, cfg.day):
        raise ReplayError(
            f"no ISR history for {cfg.day.isoformat()} (UTC): looked for "
            f"{describe_inputs(cfg.history, cfg.day, cfg.broker_logs)}",
            EXIT_NO_INPUT,
        )
    out = local_path(cfg.out)
    if out is not None:
        claim_local_output(out)
    owned = SparkSession.getActiveSession() is None and not under_spark_submit()
    box: dict[str, Any] = {}

    def start() -> None:
        try:
            box["spark"] = spark_session(master, log_path=spark_log_path(cfg), conf=conf)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    starter = threading.Thread(target=start, name="spark-start", daemon=True)
    starter.start()
    try:
        progress(0, "starting Spark")
        starter.join()
        if "error" in box:
            raise box["error"]
        spark: SparkSession = box["spark"]
        ship(spark)
        if on_session is not None:
            on_session(spark)
        return run_job(spark, cfg, progress, claimed=out is not None)
    finally:
        if owned and box.get("spark") is not None:
            box["spark"].stop()


# -- standalone (spark-submit) ---------------------------------------------------------------------


def parse_tz(name: str) -> tzinfo:
    """A zone name (Europe/Berlin, UTC); ValueError with one line when unknown."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"--tz: unknown time zone {name!r} (use a name like Europe/Berlin or UTC)") from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The job's arguments (shared by `kafkatui replay` and spark-submit)."""
    p.add_argument("--day", required=True, help="the UTC day to replay, YYYY-MM-DD")
    p.add_argument(
        "--history",
        default=None,
        help="recordings directory (kafkatui record --dir): a path or a Hadoop URI (file://, hdfs://, s3a://)",
    )
    p.add_argument(
        "--broker-logs",
        action="append",
        default=[],
        metavar="GLOB",
        help="broker server.log / state-change.log and controller.log files, KRaft or ZooKeeper mode (glob; "
        "rotated and .gz too); repeatable",
    )
    p.add_argument("--master", default=None, help="Spark master (default local[2]; ignored under spark-submit)")
    p.add_argument(
        "--out",
        default=None,
        help="output directory, a path or a Hadoop URI (default ./replay-DAY); "
        "must be new, empty or an earlier replay's",
    )
    p.add_argument(
        "--min-isr",
        type=int,
        default=None,
        help="the cluster's min.insync.replicas, for topics known only from logs and never marked under min ISR "
        "(logs of Kafka before 3.5 carry no marker: without this or --history, min ISR is unknown)",
    )
    p.add_argument("--tz", default="UTC", help="time zone of the broker log timestamps (default UTC)")
    p.add_argument(
        "--until",
        type=int,
        default=None,
        metavar="EPOCH_MS",
        help="replay up to this instant: nothing after it is read, and the recordings end there "
        "(default: now when --day is today, so nothing is carried past it)",
    )
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for the session (repeatable; ignored under spark-submit, which has its own --conf)",
    )


def config_from(ns: argparse.Namespace) -> ReplayConfig:
    """A ReplayConfig from parsed arguments; ReplayError (exit 3) for bad values."""
    try:
        day = inp.parse_day(ns.day)
        tz = parse_tz(ns.tz)
    except ValueError as exc:
        raise ReplayError(str(exc), EXIT_NO_INPUT) from None
    if ns.min_isr is not None and ns.min_isr < 1:
        raise ReplayError("--min-isr must be at least 1", EXIT_NO_INPUT)
    if ns.history is None and not ns.broker_logs:
        raise ReplayError("give --history DIR and/or --broker-logs GLOB", EXIT_NO_INPUT)
    history: Path | str | None = ns.history
    if history is not None and not is_uri(str(history)):
        history = Path(history)
        if not history.is_dir():
            raise ReplayError(f"--history {history}: no such directory", EXIT_NO_INPUT)
    out: Path | str = ns.out or f"replay-{day.isoformat()}"
    if not is_uri(str(out)):
        out = Path(out)
    until = getattr(ns, "until", None)
    if until is None and day == datetime.now(UTC).date():  # today so far: nothing is carried past now
        until = int(time.time() * 1000)
    return ReplayConfig(
        day=day,
        out=out,
        history=history,
        broker_logs=list(ns.broker_logs),
        min_isr=ns.min_isr,
        tz=tz,
        until_ms=until,
    )


def conf_from(ns: argparse.Namespace) -> dict[str, str]:
    """--conf KEY=VALUE settings; ReplayError (exit 3) for one without '='."""
    out: dict[str, str] = {}
    for item in getattr(ns, "conf", None) or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ReplayError(f"--conf {item!r}: give KEY=VALUE (e.g. spark.executor.memory=2g)", EXIT_NO_INPUT)
        out[key.strip()] = value
    return out


def main(argv: list[str] | None = None) -> int:
    """spark-submit entry point: run the job, print where the outputs went; returns the exit code."""
    from kafkatui.history.replay.spark_session import NoJavaError

    p = argparse.ArgumentParser(prog="job.py", description="Replay a day of Kafka ISR history (PySpark).")
    add_arguments(p)
    ns = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        cfg = config_from(ns)
        result = replay(
            cfg,
            ns.master,
            lambda i, d: print(
                f"{time.perf_counter() - t0:7.1f}s [{i}/4] {STAGES[i] if i < 4 else 'done'}: {d}", flush=True
            ),
            conf=conf_from(ns),
        )
    except ReplayError as exc:
        print(f"replay: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except NoJavaError as exc:
        print(f"replay: error: {exc}", file=sys.stderr)
        return EXIT_NO_JAVA
    except KeyboardInterrupt:
        print("replay: error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # Spark / Java failures (py4j): one line naming the cause
        print(f"replay: error: the replay job failed: {spark_error_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    print(
        f"replay of {cfg.day.isoformat()} written to {result.out} in {time.perf_counter() - t0:.1f} s "
        f"(job {result.seconds:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
