"""The replay job's stages: a day's events -> partition states, class intervals, and the aggregates.

Inputs become one event table (ts_ms, topic, partition, leader, isr, replicas, min_isr, ...) in Spark
stages (`kafkatui.history.replay.read`): recordings (partition records, snapshot records expanded to
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
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kafkatui.history.replay.read import _IDS, LAST_SEQ, Inputs, ReplayConfig
from kafkatui.model import rules

CLASSES = list(rules.CLASS_NAMES)
COUNTED = CLASSES[:5]  # classes the timeline counts (NON_PREFERRED_LEADER only for "worst")
BAD = ("UNDER_MIN_ISR", "OFFLINE")  # the classes incidents are made of
UNKNOWN = "UNKNOWN"
MINUTE_MS = 60_000
HOUR_MS = 3_600_000
LOOKBACK_MS = 60_000
FLAP_MS = 300_000
TOP_N = 20
KEY = ("topic", "partition")  # how states and intervals are partitioned


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
    # taken against the row before, which has the ISR of the last kept state either way. Each lag is
    # one column, used by name: Spark evaluates every use of a ``lag(...).over(w)`` expression as a
    # window function of its own (it took five lags of the ISR array and three of `unknown`). The
    # state's fields are lagged one by one, not as one struct: the struct was built as a column of
    # its own before the window (every row carried its leader, ISR and replicas twice) and compared
    # as a struct (the job took 3.31-3.47x DuckDB with it, 3.08-3.15x without; outputs equal)
    fields = ("leader", "isr", "replicas", "min_isr", "class")
    prev = {c: F.col(f"_p_{c}") for c in fields}
    prev_isr = prev["isr"]
    comparable = prev_isr.isNotNull() & ~F.col("unknown") & ~F.coalesce(F.col("_prev_unknown"), F.lit(True))
    members = F.coalesce(F.col("replicas"), F.col("rset"))
    short = (
        F.when(F.col("unknown"), F.lit(False))
        .when(members.isNull(), F.col("class").isin("OFFLINE", "UNDER_MIN_ISR", "UNDER_REPLICATED"))
        .otherwise((F.col("leader") < 0) | (F.size("isr") < F.size(members)))
    )
    same = F.col("_has_prev").isNotNull()
    for c in fields:
        same = same & prev[c].eqNullSafe(F.col(c))
    classed = last_of_ts.withColumn("class", _class_of())
    return (
        classed.select(
            *classed.columns,
            *[F.lag(c).over(w).alias(f"_p_{c}") for c in fields],
            F.lag("unknown").over(w).alias("_prev_unknown"),
            F.lag(F.lit(True)).over(w).alias("_has_prev"),
        )
        .withColumn("removed", F.when(comparable, F.array_except(prev_isr, F.col("isr"))))
        .withColumn("added", F.when(comparable, F.array_except(F.col("isr"), prev_isr)))
        .withColumn("lost", F.when(comparable & (F.col("leader") < 0) & (prev["leader"] >= 0), prev["leader"]))
        .withColumn("short", short)
        .filter(~same)
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


def bad_intervals(intervals: DataFrame) -> DataFrame:
    """The UNDER_MIN_ISR and OFFLINE intervals: all that incidents and top partitions read (a few
    thousand of a day's millions; cache them once instead of scanning every interval for each)."""
    return intervals.filter(F.col("class").isin(*BAD))


def incidents(bad: DataFrame, st: DataFrame) -> list[dict[str, Any]]:
    """Maximal windows with a partition UNDER_MIN_ISR or OFFLINE, their peaks and first broker out,
    from the day's `bad_intervals` (`bad`).

    Gaps and islands in two steps so no step runs in one task: the islands of each hour (by start,
    a window partitioned by the hour), merged across hours on the driver (a few per incident), then
    every bad interval tagged with its incident (the number of incident starts at or before its own).
    """
    bad = bad.withColumn("_h", F.floor(F.col("start_ms") / HOUR_MS))
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
    spark = st.sparkSession
    starts = spark.createDataFrame([(h["id"], h["start_ms"]) for h in heads], "id long, inc_start long")
    bad = tagged.groupBy("id", *KEY).agg(F.min("start_ms").alias("bad_start")).join(F.broadcast(starts), "id")
    # the incidents' partitions only (a broadcast semi-join keeps st's partitioning and order: no
    # shuffle, no sort), each state with whether it begins a short run and who it left out
    w = Window.partitionBy(*KEY).orderBy("ts")
    empty = F.array().cast(_IDS)
    mine = (
        st.join(F.broadcast(bad.select(*KEY).distinct()), list(KEY), "left_semi")
        .select(
            *KEY,
            "ts",
            (F.col("short") & ~F.coalesce(F.lag("short").over(w), F.lit(False))).alias("_b"),
            F.array_union(
                F.coalesce("removed", empty), F.when(F.col("lost").isNotNull(), F.array("lost")).otherwise(empty)
            ).alias("out"),
        )
        .persist()
    )
    runs = mine.filter(F.col("_b")).select(*KEY, F.col("ts").alias("ep_start"))
    lo = (
        bad.join(runs, list(KEY), "left")
        .filter(F.col("ep_start").isNull() | (F.col("ep_start") <= F.col("bad_start")))
        .groupBy("id", *KEY, "inc_start")
        .agg(F.max("ep_start").alias("ep_start"))
        .select("id", *KEY, "inc_start", F.coalesce("ep_start", F.col("inc_start") - F.lit(LOOKBACK_MS)).alias("lo"))
    )
    outs = mine.filter(F.size("out") > 0)
    try:
        return {
            r["id"]: r["first"]
            for r in outs.join(lo, list(KEY))
            .filter((F.col("ts") >= F.col("lo")) & (F.col("ts") <= F.col("inc_start")))
            .select("id", "ts", F.explode("out").alias("broker"))
            .groupBy("id")
            .agg(F.min(F.struct("ts", "broker")).alias("first"))
            .collect()
        }
    finally:
        mine.unpersist()


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


def top_partitions(bad: DataFrame) -> list[dict[str, Any]]:
    """The 20 partitions longest under min ISR (ties: topic, partition), from the `bad_intervals`."""
    rows = (
        bad.filter(F.col("class") == "UNDER_MIN_ISR")
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
