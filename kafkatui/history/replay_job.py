"""The PySpark replay job: a day of ISR history -> timeline, intervals, incidents, brokers, frames.

Run it from kafkatui (``kafkatui replay --day 2026-11-20 --history DIR``) or on any Spark cluster with
spark-submit (recipes: docs/replay-cluster.md); inputs and ``--out`` are paths or Hadoop URIs::

    kafkatui replay --spark-submit --day 2026-11-20 --history hdfs:///kafkatui/history   # prints:
    spark-submit --py-files ~/.cache/kafkatui/ship/kafkatui-VERSION-HASH.zip kafkatui/history/replay_job.py \\
        --day 2026-11-20 --history hdfs:///kafkatui/history --out hdfs:///kafkatui/replay/2026-11-20

Only pyspark and the Python standard library are needed besides ``kafkatui``, which the job ships to the
executors itself (`kafkatui.history.ship`); the driver needs it installed or as ``--py-files``.

Inputs become one event table (ts_ms, topic, partition, leader, isr, replicas, min_isr, ...) in Spark
stages (`kafkatui.history.replay_read`): recordings (partition records, snapshot records expanded to
every partition, broker up/down, gaps) and broker-log events. Events before midnight collapse into one
state per partition at 00:00 (carried from the previous day); a recorder gap inserts an UNKNOWN
state for every partition from the gap's start until the next real state (the after-gap
snapshot). Everything else is DataFrame work with window functions over (topic, partition):

- the state in force at each instant (the last event of equal timestamps wins), consecutive
  equal states merged; each state lasts until the next one or 24:00 (integer ms, exact);
- class intervals (``intervals/``): consecutive states of the same health class, UNKNOWN dropped;
- the per-minute timeline: a partition counts in a class for minute m if it was in that class at
  any moment of [m, m + 60 s); computed from minute ranges with +1/-1 boundaries, not by
  exploding every minute;
- incidents: maximal windows in which any partition is UNDER_MIN_ISR or OFFLINE; first broker
  out = the earliest ISR removal (or leader lost: a partition left without a leader) of the
  incident's partitions in the episode that led to it -- for each, from the start of its unbroken
  run of states lacking an ISR member or a leader that holds its first bad moment, however long
  before -- up to the incident's start (ties: lowest broker id), or null;
- brokers: shrinks / expands = removals from / additions to an ISR (consecutive states of a
  partition compared; a gap boundary counts neither). ``flapping_score`` = quick round trips
  (removed, then added back to the same partition's ISR within 5 minutes) divided by the number of
  partitions the broker was removed from: 1.0 is one clean bounce per partition (a restart), 12
  means each partition bounced a dozen times;
- top partitions: the 20 with the most time in UNDER_MIN_ISR (OFFLINE not included), with the
  number of such intervals.

Health classes come from the one class table `kafkatui.model.rules.CLASS_RULES` (`class_expression`
builds the ``F.when`` chain from it), with the min ISR the leader enforced: a recording's
``effective_min_isr`` (3.7+ brokers cap min ISR at RF), or min(min_isr, RF) for a snapshot record
that says ``min_isr_capped``, else ``min_isr``; a recording's OFFLINE class is kept as is (the
recorder knew which brokers were alive). From broker logs alone, replicas are the union of every
ISR member, leader and out-of-sync replica seen for the partition (used only for UNDER_REPLICATED;
written as null) and min ISR is inferred per topic from 3.5+ ``(under-min-isr)`` markers, with
``--min-isr`` as the cluster default for topics the logs never marked
(`replay_inputs.infer_min_isr`).

Size: about 880 lines after `ruff format`: the aggregation stages (states, intervals, timeline,
incidents, brokers, frames) read top to bottom as the job runs them, and spark-submit runs this file
as the job's entry point. Moving the aggregation stages into their own module is the next split.
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

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from kafkatui.history import replay_inputs as inp
from kafkatui.history import replay_schema as schema
from kafkatui.history.min_isr_note import min_isr_note
from kafkatui.history.replay_fs import MARKER, HadoopFs, is_uri, join, local_path
from kafkatui.history.replay_read import (
    _IDS,
    EXIT_FAILED,
    EXIT_NO_INPUT,
    EXIT_UNWRITABLE,
    LAST_SEQ,
    Inputs,
    ReplayConfig,
    ReplayError,
    describe_inputs,
    read_inputs,
)
from kafkatui.model import rules

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

CLASSES = list(rules.CLASS_NAMES)
COUNTED = CLASSES[:5]  # classes the timeline counts (NON_PREFERRED_LEADER only for "worst")
UNKNOWN = "UNKNOWN"
MINUTE_MS = 60_000
HOUR_MS = 3_600_000
LOOKBACK_MS = 60_000
FLAP_MS = 300_000
TOP_N = 20
STAGES = ("read inputs", "build intervals", "aggregate", "write")
KEY = ("topic", "partition")  # how states and intervals are partitioned
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
    }


def tune(spark: SparkSession) -> None:
    for key, value in tuning(spark.sparkContext.defaultParallelism).items():
        spark.conf.set(key, value)


def _noop(stage: int, detail: str) -> None:
    return None


# -- states and intervals ---------------------------------------------------------------------------


def _terms() -> dict[rules.Term, Column]:
    """The class table's terms over the event table (`min_isr` there is already the effective one).
    A null term makes its condition false, as None does in `rules.class_index`; replicas from broker
    logs alone are only the union of members seen (`rset`): enough for UNDER_REPLICATED, not for a
    preferred leader."""
    members = F.coalesce(F.col("replicas"), F.col("rset"))
    return {
        rules.Term.N_ISR: F.size("isr"),
        rules.Term.MIN_ISR: F.col("min_isr"),
        rules.Term.N_REPLICAS: F.when(members.isNotNull(), F.size(members)),
        rules.Term.LEADER: F.col("leader"),
        rules.Term.PREFERRED: F.when(F.size("replicas") > 0, F.col("replicas")[0]),
        rules.Term.LEADERLESS: (F.col("leader") < 0) | F.col("offline"),
    }


def _condition(c: rules.Cond, terms: dict[rules.Term, Column]) -> Column:
    left = terms[c.left]
    if c.op == "is":
        return F.coalesce(left, F.lit(False))
    assert c.right is not None
    right = terms[c.right]
    known = left.isNotNull() & right.isNotNull()
    if c.op == "<":
        return known & (left < right)
    if c.op == "==":
        return known & (left == right)
    if c.op == "!=":
        return known & (left != right)
    raise ValueError(f"no Spark form for {c.op!r}")


def class_expression(terms: dict[rules.Term, Column] | None = None) -> Column:
    """`kafkatui.model.rules.CLASS_RULES` as one ``F.when`` chain (UNKNOWN first: a recorder gap)."""
    t = _terms() if terms is None else terms
    chain = F.when(F.col("unknown"), F.lit(UNKNOWN))
    for rule in rules.CLASS_RULES:
        if rule.when is None:
            return chain.otherwise(F.lit(rule.name))
        chain = chain.when(_condition(rule.when, t), F.lit(rule.name))
    return chain


_class_of = class_expression


def states(inputs: Inputs, cfg: ReplayConfig) -> DataFrame:
    """One row per partition state change of the day (each lasts until the next one, or 24:00).

    Columns: topic, partition, ts, leader, isr, replicas, min_isr, class, unknown, removed, added,
    lost (the leader of a partition that just lost its leader, else null), short (a replica is
    missing from the ISR, or there is no leader).
    """
    ev = inputs.events.filter(F.col("ts") < cfg.data_end)
    key = list(KEY)
    if inputs.gaps:
        spark = ev.sparkSession
        gaps = spark.createDataFrame([(g["start_ms"],) for g in inputs.gaps], "ts long")
        unknown = (
            ev.select(*key)
            .distinct()
            .crossJoin(F.broadcast(gaps))
            .select(
                "ts",
                *key,
                F.lit(-1).alias("leader"),
                F.lit(None).cast(_IDS).alias("isr"),
                F.lit(None).cast(_IDS).alias("replicas"),
                F.lit(None).cast(_IDS).alias("rset"),
                F.lit(None).cast("int").alias("min_isr"),
                F.lit(False).alias("offline"),
                F.lit(True).alias("unknown"),
                F.lit(LAST_SEQ).alias("seq"),
                F.lit(False).alias("weak"),
            )
        )
        ev = ev.unionByName(unknown)
    # events before midnight move to 00:00 and sort before the day's own 00:00 events, strong
    # (recorded, logged) ones after weak (inferred) ones, so "the last event of equal timestamps
    # wins" leaves the state carried from the previous day, or the day's own first state
    day = (
        ev.withColumn("_orig", F.col("ts"))
        .withColumn("_day", (F.col("ts") >= cfg.day_start).cast("int"))
        .withColumn("_strong", (~F.col("weak")).cast("int"))
        .withColumn("ts", F.greatest(F.col("ts"), F.lit(cfg.day_start).cast("long")))
    )
    w = Window.partitionBy(*KEY).orderBy("ts", "_day", "_strong", "_orig", "seq")
    upto = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    filled = day
    if inputs.mixed:  # log rows take replicas and min ISR from the latest recorded state
        filled = (
            day.withColumn("min_isr", F.coalesce("min_isr", F.last("min_isr", True).over(upto)))
            .withColumn("replicas", F.coalesce("replicas", F.last("replicas", True).over(upto)))
            .withColumn("rset", F.coalesce("rset", F.last("rset", True).over(upto)))
        )
    last_of_ts = (
        filled.withColumn("_next", F.lead("ts").over(w))
        .filter(F.col("_next").isNull() | (F.col("_next") != F.col("ts")))
        .drop("_next")
    )
    # one more window: a state equal to the one before is dropped; ISR removals and additions are
    # taken against the row before, which has the ISR of the last kept state either way
    state = F.struct("leader", "isr", "replicas", "min_isr", "class")
    prev_isr, prev_unknown = F.lag("isr").over(w), F.lag("unknown").over(w)
    comparable = prev_isr.isNotNull() & ~F.col("unknown") & ~F.coalesce(prev_unknown, F.lit(True))
    members = F.coalesce(F.col("replicas"), F.col("rset"))
    short = (
        F.when(F.col("unknown"), F.lit(False))
        .when(members.isNull(), F.col("class").isin("OFFLINE", "UNDER_MIN_ISR", "UNDER_REPLICATED"))
        .otherwise((F.col("leader") < 0) | (F.size("isr") < F.size(members)))
    )
    return (
        last_of_ts.withColumn("class", _class_of())
        .withColumn("_prev", F.lag(state).over(w))
        .withColumn("removed", F.when(comparable, F.array_except(prev_isr, F.col("isr"))))
        .withColumn("added", F.when(comparable, F.array_except(F.col("isr"), prev_isr)))
        .withColumn(
            "lost", F.when(comparable & (F.col("leader") < 0) & (F.col("_prev.leader") >= 0), F.col("_prev.leader"))
        )
        .withColumn("short", short)
        .filter(~F.col("_prev").eqNullSafe(state))
        .select(
            *KEY, "ts", "leader", "isr", "replicas", "min_isr", "class", "unknown", "removed", "added", "lost", "short"
        )
    )


def class_intervals(st: DataFrame, cfg: ReplayConfig) -> DataFrame:
    """Consecutive states of one class merged: topic, partition, class, start_ms, end_ms, duration_ms, duration_s.

    Same window as `states` (no new shuffle): keep the rows whose class differs from the row
    before, each lasting until the next such row; UNKNOWN (gap) stretches are dropped.
    """
    w = Window.partitionBy(*KEY).orderBy("ts")
    return (
        st.withColumn("_prev", F.lag("class").over(w))
        .filter(~F.col("_prev").eqNullSafe(F.col("class")))
        .withColumn("end_ms", F.coalesce(F.lead("ts").over(w), F.lit(cfg.day_end).cast("long")))
        .filter(F.col("class") != UNKNOWN)
        .select(*KEY, "class", F.col("ts").alias("start_ms"), "end_ms")
        .withColumn("duration_ms", F.col("end_ms") - F.col("start_ms"))
        .withColumn("duration_s", F.col("duration_ms") / F.lit(1000.0))
    )


# -- aggregations -----------------------------------------------------------------------------------


def timeline(intervals: DataFrame, cfg: ReplayConfig, gaps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """1440 minutes: partitions per counted class at any moment of the minute, worst class, gap flag."""
    d0 = cfg.day_start
    # minute ranges [ms, me]. A partition's intervals of one class are disjoint and in order, so a
    # range can only share its first minute with the last minute of the partition's previous range
    # of the same class (it ended within that minute): then it starts one minute later.
    w = Window.partitionBy(*KEY, "class").orderBy("start_ms")
    ms = F.floor((F.col("start_ms") - d0) / MINUTE_MS).cast("int")
    me = F.floor((F.col("end_ms") - 1 - d0) / MINUTE_MS).cast("int")
    ranges = (
        intervals.filter(F.col("class").isin(*COUNTED))
        .select(*KEY, "class", "start_ms", ms.alias("ms"), me.alias("me"))
        .withColumn("_prev", F.lag("me").over(w))
    )
    first = F.when(F.col("_prev") == F.col("ms"), F.col("ms") + 1).otherwise(F.col("ms"))
    ends = F.array(
        F.struct(first.alias("minute"), F.lit(1).alias("d")),
        F.struct((F.col("me") + 1).alias("minute"), F.lit(-1).alias("d")),
    )
    bounds = (
        ranges.filter(first <= F.col("me"))
        .select("class", F.explode(ends).alias("e"))
        .groupBy("class", "e.minute")
        .agg(F.sum("e.d").alias("d"))
        .collect()
    )
    delta = {c: [0] * 1442 for c in COUNTED}
    for r in bounds:
        delta[r["class"]][r["minute"]] += r["d"]
    out: list[dict[str, Any]] = []
    running = dict.fromkeys(COUNTED, 0)
    for m in range(1440):
        for c in COUNTED:
            running[c] += delta[c][m]
        lo, hi = d0 + m * MINUTE_MS, d0 + (m + 1) * MINUTE_MS
        worst = next((c for c in COUNTED if running[c] > 0), "HEALTHY")
        out.append(
            {
                "minute": m,
                "offline": running["OFFLINE"],
                "under_min_isr": running["UNDER_MIN_ISR"],
                "at_min_isr": running["AT_MIN_ISR"],
                "under_replicated": running["UNDER_REPLICATED"],
                "worst": worst,
                "gap": any(g["start_ms"] < hi and g["end_ms"] > lo for g in gaps),
            }
        )
    return out


def _merge_islands(pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching [start, end] windows merged (input: each hour's islands)."""
    out: list[list[int]] = []
    for start, end in sorted(pieces):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


def incidents(intervals: DataFrame, st: DataFrame) -> list[dict[str, Any]]:
    """Maximal windows with a partition UNDER_MIN_ISR or OFFLINE, their peaks and first broker out.

    Gaps and islands in two steps so no step runs in one task: the islands of each hour (by start,
    a window partitioned by the hour), merged across hours on the driver (a few per incident), then
    every bad interval tagged with its incident (the number of incident starts at or before its own).
    """
    bad = intervals.filter(F.col("class").isin("UNDER_MIN_ISR", "OFFLINE")).withColumn(
        "_h", F.floor(F.col("start_ms") / HOUR_MS)
    )
    w = Window.partitionBy("_h").orderBy("start_ms", "end_ms")
    prev_end = F.max("end_ms").over(w.rowsBetween(Window.unboundedPreceding, -1))
    pieces = (
        bad.withColumn("_new", F.coalesce((F.col("start_ms") > prev_end).cast("int"), F.lit(1)))
        .withColumn("_i", F.sum("_new").over(w.rowsBetween(Window.unboundedPreceding, Window.currentRow)))
        .groupBy("_h", "_i")
        .agg(F.min("start_ms").alias("s"), F.max("end_ms").alias("e"))
        .collect()
    )
    merged = _merge_islands([(r["s"], r["e"]) for r in pieces])
    if not merged:
        return []
    starts = F.array(*[F.lit(a).cast("long") for a, _ in merged])
    tagged = bad.withColumn("id", F.size(F.filter(starts, lambda x: x <= F.col("start_ms"))).cast("long")).persist()
    heads = (
        tagged.groupBy("id")
        .agg(
            F.min("start_ms").alias("start_ms"),
            F.max("end_ms").alias("end_ms"),
            F.countDistinct("topic", "partition").alias("partitions"),
            F.array_sort(F.collect_set("topic")).alias("topics"),
        )
        .orderBy("id")
        .collect()
    )
    sweep = tagged.select("id", "class", F.col("start_ms").alias("t"), F.lit(1).alias("d")).unionByName(
        tagged.select("id", "class", F.col("end_ms").alias("t"), F.lit(-1).alias("d"))
    )
    ws = Window.partitionBy("id", "class").orderBy("t", "d").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    peaks = {
        (r["id"], r["class"]): r["peak"]
        for r in sweep.withColumn("n", F.sum("d").over(ws))
        .groupBy("id", "class")
        .agg(F.max("n").alias("peak"))
        .collect()
    }
    firsts = _first_out(tagged, st, heads)
    tagged.unpersist()
    out = []
    for n, h in enumerate(heads, 1):
        first = firsts.get(h["id"])
        out.append(
            {
                "id": n,
                "start_ms": h["start_ms"],
                "end_ms": h["end_ms"],
                "duration_s": (h["end_ms"] - h["start_ms"]) / 1000,
                "first_broker_out": first["broker"] if first else None,
                "first_out_ms": first["ts"] if first else None,
                "topics": list(h["topics"]),
                "partitions": h["partitions"],
                "peak_under_min_isr": peaks.get((h["id"], "UNDER_MIN_ISR"), 0),
                "peak_offline": peaks.get((h["id"], "OFFLINE"), 0),
            }
        )
    return out


def _first_out(tagged: DataFrame, st: DataFrame, heads: list[Any]) -> dict[int, Any]:
    """Per incident id, the earliest (ts, broker) that left an ISR -- or left a partition without a
    leader -- in the episode that led to it: for each of the incident's partitions, from the start
    of its run of "short" states (an ISR member or the leader missing) that holds its first bad
    moment, however long before, up to the incident's start; [start - 60 s, start] for a partition
    that was never short (min ISR above its replication factor)."""
    w = Window.partitionBy(*KEY).orderBy("ts")
    begins = F.col("short") & ~F.coalesce(F.lag("short").over(w), F.lit(False))
    runs = (
        st.select(*KEY, "ts", "short", begins.alias("_b"))
        .filter(F.col("_b"))
        .select(*KEY, F.col("ts").alias("ep_start"))
    )
    spark = st.sparkSession
    starts = spark.createDataFrame([(h["id"], h["start_ms"]) for h in heads], "id long, inc_start long")
    bad = tagged.groupBy("id", *KEY).agg(F.min("start_ms").alias("bad_start")).join(F.broadcast(starts), "id")
    lo = (
        bad.join(runs, list(KEY), "left")
        .filter(F.col("ep_start").isNull() | (F.col("ep_start") <= F.col("bad_start")))
        .groupBy("id", *KEY, "inc_start")
        .agg(F.max("ep_start").alias("ep_start"))
        .select("id", *KEY, "inc_start", F.coalesce("ep_start", F.col("inc_start") - F.lit(LOOKBACK_MS)).alias("lo"))
    )
    empty = F.array().cast(_IDS)
    outs = st.select(
        *KEY,
        "ts",
        F.array_union(
            F.coalesce("removed", empty), F.when(F.col("lost").isNotNull(), F.array("lost")).otherwise(empty)
        ).alias("out"),
    ).filter(F.size("out") > 0)
    return {
        r["id"]: r["first"]
        for r in outs.join(lo, list(KEY))
        .filter((F.col("ts") >= F.col("lo")) & (F.col("ts") <= F.col("inc_start")))
        .select("id", "ts", F.explode("out").alias("broker"))
        .groupBy("id")
        .agg(F.min(F.struct("ts", "broker")).alias("first"))
        .collect()
    }


def brokers(st: DataFrame, known: list[int]) -> list[dict[str, Any]]:
    """Per broker: ISR shrinks, expands and the flapping score (see the module docstring)."""
    moves = st.select(
        *KEY,
        "ts",
        F.explode(
            F.concat(
                F.transform(
                    F.coalesce("removed", F.array().cast(_IDS)),
                    lambda b: F.struct(b.alias("broker"), F.lit(-1).alias("d")),
                ),
                F.transform(
                    F.coalesce("added", F.array().cast(_IDS)),
                    lambda b: F.struct(b.alias("broker"), F.lit(1).alias("d")),
                ),
            )
        ).alias("m"),
    ).select(*KEY, "ts", "m.broker", "m.d")
    # per (partition, broker) first (no shuffle: st is partitioned by topic and partition), then per broker
    w = Window.partitionBy(*KEY, "broker").orderBy("ts", "d")
    quick = (F.col("d") == -1) & (F.lead("d").over(w) == 1) & (F.lead("ts").over(w) - F.col("ts") <= FLAP_MS)
    rows = (
        moves.withColumn("_quick", F.coalesce(quick.cast("int"), F.lit(0)))
        .groupBy(*KEY, "broker")
        .agg(
            F.sum((F.col("d") == -1).cast("int")).alias("shrinks"),
            F.sum((F.col("d") == 1).cast("int")).alias("expands"),
            F.sum("_quick").alias("quick"),
        )
        .groupBy("broker")
        .agg(
            F.sum("shrinks").alias("shrinks"),
            F.sum("expands").alias("expands"),
            F.sum("quick").alias("quick"),
            F.sum((F.col("shrinks") > 0).cast("int")).alias("hit"),
        )
        .collect()
    )
    by_id = {r["broker"]: r for r in rows}
    out = []
    for b in sorted(set(by_id) | set(known)):
        r = by_id.get(b)
        hit = r["hit"] if r else 0
        out.append(
            {
                "broker": b,
                "shrinks": r["shrinks"] if r else 0,
                "expands": r["expands"] if r else 0,
                "flapping_score": round(r["quick"] / hit, 2) if r and hit else 0.0,
            }
        )
    return out


def top_partitions(intervals: DataFrame) -> list[dict[str, Any]]:
    """The 20 partitions longest under min ISR (ties: topic, partition)."""
    rows = (
        intervals.filter(F.col("class") == "UNDER_MIN_ISR")
        .groupBy("topic", "partition")
        .agg(F.sum("duration_ms").alias("ms"), F.count("*").alias("n"))
        .orderBy(F.col("ms").desc(), "topic", "partition")
        .limit(TOP_N)
        .collect()
    )
    return [
        {"topic": r["topic"], "partition": r["partition"], "under_min_isr_s": r["ms"] / 1000, "intervals": r["n"]}
        for r in rows
    ]


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
        # the two big outputs are written while the aggregates run: each fills the other's idle core
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-write") as pool:
            tables = pool.submit(_write_tables, fs, cfg, st, iv)
            tl = timeline(iv, cfg, inputs.gaps)
            progress(2, "timeline done")
            inc = incidents(iv, st)
            ends = set(meta.get("recording_ends", ()))
            for i in inc:  # still bad where a recording ends: ongoing then, not over
                i["ongoing"] = i["end_ms"] in ends
            progress(2, f"{len(inc)} incidents")
            known = sorted({f[1] for f in inputs.broker_frames})
            br = brokers(st, known)
            top = top_partitions(iv)
            progress(3, "writing intervals and frames")
            tables.result()
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

    # sorted within each task by (hour, ts): the writer's own grouping by hour keeps this order
    write(frames.withColumn("hour", hour).sortWithinPartitions("hour", "ts_ms"), "partitions")
    write(at_hour, "at_hour")
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

    The job ships its own code to a cluster's executors (`kafkatui.history.ship`). Raises
    ReplayError, NoJavaError (before anything starts) and whatever Spark raises; the session is
    stopped at the end unless it was there before (spark-submit).
    """
    from kafkatui.history.ship import ship
    from kafkatui.history.spark_session import NoJavaError, find_java, spark_session, under_spark_submit

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
    from kafkatui.history.spark_session import NoJavaError

    p = argparse.ArgumentParser(prog="replay_job.py", description="Replay a day of Kafka ISR history (PySpark).")
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
