"""The single-machine anchor for the replay job: the same day through DuckDB (bench-only dependency).

`anchor(history, day, out)` reads the day's recorder files with a fixed schema, builds the same
partition states (the last record of an instant wins, equal consecutive states merged, ISR
removals / additions against the state before), class intervals, the per-minute timeline,
incidents (gaps and islands, peaks; first broker out: the earliest ISR removal or lost leader of
the incident's partitions in the episode that led to it, as `replay_stages._first_out`), broker shrinks / expands
/ flapping, the top partitions, and writes intervals (Parquet) and partition frames (gzip JSON
Lines) as the job does, so the two do comparable work. Snapshot records are expanded like the
job's (the day's first; hourly ones repeat what the change records said). No carry-in from the
day before and no gaps: the bench day has neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MINUTE_MS, LOOKBACK_MS, FLAP_MS, DAY_MS = 60_000, 60_000, 300_000, 86_400_000
COUNTED = ["OFFLINE", "UNDER_MIN_ISR", "AT_MIN_ISR", "UNDER_REPLICATED", "NON_PREFERRED_LEADER"]


def anchor(history: Path, day: str, d0: int, out: Path, threads: int = 2) -> dict[str, Any]:
    """The day's outputs computed by DuckDB (and the tables written under `out`)."""
    import duckdb

    d1 = d0 + DAY_MS
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute("SET enable_progress_bar = false")
    files = f"{history}/{day}/*.events.jsonl.gz"
    con.execute(f"""
    CREATE TEMP TABLE raw AS SELECT *, row_number() OVER () AS seq FROM read_json('{files}',
      format = 'newline_delimited', ignore_errors = true, maximum_object_size = 67108864,
      columns = {{v: 'BIGINT', type: 'VARCHAR', ts: 'DOUBLE', topic: 'VARCHAR', partition: 'INTEGER',
                 leader: 'INTEGER', replicas: 'INTEGER[]', isr: 'INTEGER[]', min_isr: 'INTEGER',
                 class: 'VARCHAR', reason: 'VARCHAR', topics: 'JSON'}})""")
    # the day's first snapshot, expanded (sorted after the records of its instant)
    con.execute("""
    CREATE TEMP TABLE ev AS
    SELECT CAST(round(ts * 1000) AS BIGINT) AS ts, topic, partition, leader, isr, replicas, min_isr,
           class = 'OFFLINE' AND leader >= 0 AS offline, seq
    FROM raw WHERE type = 'partition' AND v <= 1 AND ts IS NOT NULL
    UNION ALL
    SELECT CAST(round(s.ts * 1000) AS BIGINT), t.key, CAST(p->>0 AS INTEGER), CAST(p->>1 AS INTEGER),
           CAST(p->4 AS INTEGER[]), CAST(p->3 AS INTEGER[]), CAST(t.value->>'min_isr' AS INTEGER),
           p->>5 = 'OFFLINE' AND CAST(p->>1 AS INTEGER) >= 0, (1::BIGINT << 40) + s.seq
    FROM (SELECT * FROM raw WHERE type = 'snapshot' ORDER BY seq LIMIT 1) s,
         json_each(s.topics) t, unnest(CAST(t.value->'partitions' AS JSON[])) u(p)""")
    con.execute(f"""
    CREATE TEMP TABLE st AS
    WITH d AS (
      SELECT greatest(ts, {d0}) AS ts, topic, partition, leader, isr, replicas, min_isr, offline,
             ts >= {d0} AS _day, ts AS _orig, seq FROM ev WHERE ts < {d1}),
    last_of_ts AS (
      SELECT * FROM d WINDOW w AS (PARTITION BY topic, partition ORDER BY ts, _day, _orig, seq)
      QUALIFY lead(ts) OVER w IS DISTINCT FROM ts),
    cls AS (
      SELECT *, CASE WHEN leader < 0 OR offline THEN 'OFFLINE'
                     WHEN len(isr) < min_isr THEN 'UNDER_MIN_ISR'
                     WHEN len(isr) = min_isr THEN 'AT_MIN_ISR'
                     WHEN len(isr) < len(replicas) THEN 'UNDER_REPLICATED'
                     WHEN len(replicas) > 0 AND leader != replicas[1] THEN 'NON_PREFERRED_LEADER'
                     ELSE 'HEALTHY' END AS class FROM last_of_ts),
    lagged AS (
      SELECT *, lag(isr) OVER w AS prev_isr,
             lag(struct_pack(leader, isr, replicas, min_isr, class)) OVER w AS prev
      FROM cls WINDOW w AS (PARTITION BY topic, partition ORDER BY ts, _day, _orig, seq))
    SELECT topic, partition, ts, leader, isr, replicas, min_isr, class,
           CASE WHEN prev_isr IS NOT NULL
                THEN list_filter(prev_isr, lambda b: NOT list_contains(isr, b)) END AS removed,
           CASE WHEN prev_isr IS NOT NULL THEN list_filter(isr, lambda b: NOT list_contains(prev_isr, b)) END AS added,
           CASE WHEN prev_isr IS NOT NULL AND leader < 0 AND prev.leader >= 0 THEN prev.leader END AS lost,
           leader < 0 OR len(isr) < len(replicas) AS short
    FROM lagged WHERE prev IS DISTINCT FROM struct_pack(leader, isr, replicas, min_isr, class)""")
    con.execute(f"""
    CREATE TEMP TABLE iv AS
    SELECT topic, partition, class, ts AS start_ms, coalesce(lead(ts) OVER w, {d1}) AS end_ms
    FROM (SELECT * FROM st WINDOW w AS (PARTITION BY topic, partition ORDER BY ts)
          QUALIFY lag(class) OVER w IS DISTINCT FROM class)
    WINDOW w AS (PARTITION BY topic, partition ORDER BY ts)""")
    con.execute(
        f"COPY (SELECT *, end_ms - start_ms AS duration_ms, (end_ms - start_ms) / 1000.0 AS duration_s "
        f"FROM iv) TO '{out}/intervals.parquet' (FORMAT parquet)"
    )
    con.execute(
        f"COPY (SELECT ts AS ts_ms, topic, partition, leader, isr, replicas, min_isr, class FROM st) "
        f"TO '{out}/frames.json.gz' (FORMAT json, COMPRESSION gzip)"
    )
    # timeline: minute ranges, a range sharing its first minute with the previous one's last starts later
    tl = con.execute(f"""
    WITH r AS (
      SELECT class, (start_ms - {d0}) // {MINUTE_MS} AS ms, (end_ms - 1 - {d0}) // {MINUTE_MS} AS me,
             lag((end_ms - 1 - {d0}) // {MINUTE_MS}) OVER (PARTITION BY topic, partition, class ORDER BY start_ms) AS pm
      FROM iv WHERE class IN {tuple(COUNTED)}),
    f AS (SELECT class, CASE WHEN pm = ms THEN ms + 1 ELSE ms END AS a, me FROM r),
    b AS (SELECT class, a AS m, 1 AS d FROM f WHERE a <= me UNION ALL SELECT class, me + 1, -1 FROM f WHERE a <= me)
    SELECT class, m, sum(d) FROM b GROUP BY ALL""").fetchall()
    delta = {c: [0] * 1442 for c in COUNTED}
    for c, m, d in tl:
        delta[c][m] += d
    under, run = [], 0
    for m in range(1440):
        run += delta["UNDER_MIN_ISR"][m]
        under.append(run)
    incidents = con.execute(f"""
    WITH bad AS (SELECT * FROM iv WHERE class IN ('UNDER_MIN_ISR', 'OFFLINE')),
    g AS (SELECT *, sum(CASE WHEN start_ms <= prev_end THEN 0 ELSE 1 END) OVER (ORDER BY start_ms, end_ms) AS id
          FROM (SELECT *, max(end_ms) OVER (ORDER BY start_ms, end_ms ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                AS prev_end FROM bad)),
    heads AS (SELECT id, min(start_ms) AS s, max(end_ms) AS e, count(DISTINCT (topic, partition)) AS parts,
                     list_sort(list(DISTINCT topic)) AS topics FROM g GROUP BY id),
    sweep AS (SELECT id, class, t, sum(d) OVER (PARTITION BY id, class ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS n
              FROM (SELECT id, class, start_ms AS t, 1 AS d FROM g UNION ALL SELECT id, class, end_ms, -1 FROM g)),
    peaks AS (SELECT id, max(n) FILTER (class = 'UNDER_MIN_ISR') AS pu, max(n) FILTER (class = 'OFFLINE') AS po
              FROM sweep GROUP BY id),
    runs AS (SELECT topic, partition, ts AS ep_start FROM (
               SELECT topic, partition, ts, short, lag(short) OVER (PARTITION BY topic, partition ORDER BY ts) AS ps
               FROM st) WHERE short AND NOT coalesce(ps, false)),
    badp AS (SELECT g.id, g.topic, g.partition, min(g.start_ms) AS bad_start, any_value(h.s) AS inc_start
             FROM g JOIN heads h USING (id) GROUP BY g.id, g.topic, g.partition),
    lo AS (SELECT b.id, b.topic, b.partition, b.inc_start, coalesce(max(r.ep_start), b.inc_start - {LOOKBACK_MS}) AS lo
           FROM badp b LEFT JOIN runs r ON r.topic = b.topic AND r.partition = b.partition
           WHERE r.ep_start IS NULL OR r.ep_start <= b.bad_start GROUP BY b.id, b.topic, b.partition, b.inc_start),
    outs AS (SELECT topic, partition, ts, unnest(list_distinct(list_concat(coalesce(removed, []),
                    CASE WHEN lost IS NOT NULL THEN [lost] ELSE [] END))) AS broker
             FROM st WHERE len(coalesce(removed, [])) > 0 OR lost IS NOT NULL),
    firsts AS (SELECT l.id, min(struct_pack(ts := o.ts, broker := o.broker)) AS fo FROM lo l JOIN outs o
               ON o.topic = l.topic AND o.partition = l.partition AND o.ts BETWEEN l.lo AND l.inc_start GROUP BY l.id)
    SELECT h.s, h.e, fi.fo.broker, fi.fo.ts, h.topics, h.parts, coalesce(p.pu, 0), coalesce(p.po, 0)
    FROM heads h LEFT JOIN firsts fi USING (id) LEFT JOIN peaks p USING (id) ORDER BY h.id""").fetchall()
    brokers = con.execute(f"""
    WITH m AS (SELECT topic, partition, ts, unnest(coalesce(removed, [])) AS broker, -1 AS d FROM st
               UNION ALL SELECT topic, partition, ts, unnest(coalesce(added, [])), 1 FROM st),
    q AS (SELECT *, (d = -1 AND lead(d) OVER w = 1 AND lead(ts) OVER w - ts <= {FLAP_MS})::INT AS quick
          FROM m WINDOW w AS (PARTITION BY topic, partition, broker ORDER BY ts, d)),
    pb AS (SELECT broker, sum((d = -1)::INT) AS s, sum((d = 1)::INT) AS e, sum(quick) AS q FROM q
           GROUP BY topic, partition, broker)
    SELECT broker, sum(s), sum(e), round(sum(q) / nullif(sum((s > 0)::INT), 0), 2) FROM pb GROUP BY broker
    ORDER BY broker""").fetchall()
    top = con.execute("""
    SELECT topic, partition, sum(end_ms - start_ms) / 1000.0, count(*) FROM iv WHERE class = 'UNDER_MIN_ISR'
    GROUP BY ALL ORDER BY 3 DESC, topic, partition LIMIT 20""").fetchall()
    frames = con.execute("SELECT count(*) FROM st").fetchone()[0]  # type: ignore[index]
    con.close()
    return {
        "incidents": [[s, e, b, fts, list(t), p, pu, po] for s, e, b, fts, t, p, pu, po in incidents],
        "under_min_per_minute": under,
        "brokers": [[b, s, e, float(f or 0.0)] for b, s, e, f in brokers],
        "top": [[t, p, float(sec), n] for t, p, sec, n in top],
        "frames": frames,
    }


def job_view(summary: dict[str, Any], frames: int) -> dict[str, Any]:
    """The job's summary.json in the anchor's shape, for the comparison."""
    return {
        "incidents": [
            [
                i["start_ms"],
                i["end_ms"],
                i["first_broker_out"],
                i["first_out_ms"],
                i["topics"],
                i["partitions"],
                i["peak_under_min_isr"],
                i["peak_offline"],
            ]
            for i in summary["incidents"]
        ],
        "under_min_per_minute": [m["under_min_isr"] for m in summary["timeline"]],
        "brokers": [[b["broker"], b["shrinks"], b["expands"], b["flapping_score"]] for b in summary["brokers"]],
        "top": [[p["topic"], p["partition"], p["under_min_isr_s"], p["intervals"]] for p in summary["top_partitions"]],
        "frames": frames,
    }
