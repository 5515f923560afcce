"""A day of a 50,000-partition cluster through the PySpark replay job, beside a plain-Python baseline.

Generates (once, cached under $TMPDIR/kafkatui-bench-replay) a recorder-format day: 1,000 topics x
50 partitions, 30 brokers, RF 3, min ISR 2, hourly snapshot records, and >= 5 million ISR events
(followers leaving and rejoining; one episode in ten takes a partition under min ISR). The files
are written directly (f-strings, gzip level 1), not through the simulator.

Then, in one run: the replay job in local mode (wall time including Spark start-up, in a child
process so the JVM starts from cold), the DuckDB anchor (`replay_duckdb.py`, the tool a user with one
machine would pick: the same outputs, checked against the job's, wall time and ratio; needs the
``bench`` extra) and a single-process plain-Python baseline that reads the same
files with `kafkatui.history.record.recorder.read_events` and computes the same aggregation (class
intervals, per-minute timeline, incidents with first broker out, broker shrinks/expands, top
partitions). Prints events/s of both, the ratio, and whether their results agree.

``--duckdb-only --rounds N``: the job and DuckDB only, N paired rounds in alternating order, and the
median of the per-round ratios (this 2-core machine's speed drifts by 15-25% within an hour).
"""

from __future__ import annotations

import argparse
import bisect
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DAY = "2026-11-20"
D0 = int(datetime(2026, 11, 20, tzinfo=UTC).timestamp()) * 1000
HOUR = 3_600_000
TOPICS, PER_TOPIC, BROKERS = 1000, 50, 30
EVENTS = 5_000_000
CLASSES = ["OFFLINE", "UNDER_MIN_ISR", "AT_MIN_ISR", "UNDER_REPLICATED", "NON_PREFERRED_LEADER", "HEALTHY"]


def _replicas(i: int) -> tuple[int, int, int]:
    return (i % BROKERS + 1, (i + 1) % BROKERS + 1, (i + 2) % BROKERS + 1)


def _cls(isr_n: int) -> str:
    return "UNDER_MIN_ISR" if isr_n < 2 else "AT_MIN_ISR" if isr_n == 2 else "HEALTHY"


def _ids(xs: tuple[int, ...]) -> str:
    return ",".join(map(str, xs))


def generate(folder: Path, events: int = EVENTS, seed: int = 7) -> int:
    """Write the day under folder/DAY; returns the number of partition events written."""
    rnd = random.Random(seed)
    n = TOPICS * PER_TOPIC
    reps = [_replicas(i) for i in range(n)]
    busy = [0] * n
    buckets: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(25)]
    written = 0
    per_hour = events // 24 + 2000  # a few land after midnight and are dropped
    for h in range(24):
        count = 0
        while count < per_hour:
            p = rnd.randrange(n)
            t = D0 + h * HOUR + rnd.randrange(HOUR)
            if t <= busy[p]:
                continue
            lead, f1, f2 = reps[p]
            if rnd.random() < 0.5:
                f1, f2 = f2, f1
            if rnd.random() < 0.0003:  # both followers out: under min ISR for a while (~800 a day)
                t2 = t + rnd.randrange(1, 20_000)
                t3 = t2 + rnd.randrange(1_000, 180_000)
                t4 = t3 + rnd.randrange(1, 30_000)
                steps = [(t, (lead, f2)), (t2, (lead,)), (t3, (lead, f2)), (t4, (lead, f2, f1))]
            else:
                t4 = t + rnd.randrange(500, 120_000)
                steps = [(t, (lead, f2)), (t4, (lead, f2, f1))]
            busy[p] = t4
            for ts, isr in steps:
                buckets[min(24, (ts - D0) // HOUR)].append((ts, p, isr))
            count += len(steps)
    day = folder / DAY
    day.mkdir(parents=True, exist_ok=True)
    state: list[tuple[int, ...]] = [r for r in reps]
    head = (
        '{"v":1,"type":"partition","ts":%.3f,"cluster":"bench","topic":"t%04d","partition":%d,"leader":%d,'
        '"leader_epoch":0,"replicas":[%s],"isr":[%s],"min_isr":2,"class":"%s","changed":["isr"],'
        '"prev_leader":%d,"prev_isr":[%s]}'
    )
    brokers = json.dumps([[b, f"b{b}", 9092, None] for b in range(1, BROKERS + 1)])
    for h in range(24):
        snap_ts = D0 + h * HOUR + 500
        evs = sorted(buckets[h])
        k = bisect.bisect_left(evs, (snap_ts, -1, ()))
        with open(day / f"{h:02d}.events.jsonl.gz", "wb") as f:
            lines: list[str] = []

            def flush(lines: list[str] = lines, f: Any = f) -> None:
                if lines:
                    f.write(gzip.compress(("\n".join(lines) + "\n").encode(), compresslevel=1, mtime=0))
                    lines.clear()

            for i, (ts, p, isr) in enumerate(evs):
                if i == k:
                    flush()
                    lines.append(_snapshot(snap_ts, state, reps, brokers))
                    flush()
                r = reps[p]
                lines.append(
                    head
                    % (
                        ts / 1000,
                        p // PER_TOPIC,
                        p % PER_TOPIC,
                        r[0],
                        _ids(r),
                        _ids(isr),
                        _cls(len(isr)),
                        r[0],
                        _ids(state[p]),
                    )
                )
                state[p] = isr
                written += 1
                if len(lines) >= 20_000:
                    flush()
            if k >= len(evs):
                flush()
                lines.append(_snapshot(snap_ts, state, reps, brokers))
            flush()
    return written


def _snapshot(ts: int, state: list[tuple[int, ...]], reps: list[tuple[int, int, int]], brokers: str) -> str:
    topics = []
    for t in range(TOPICS):
        parts = ",".join(
            f"[{i},{reps[t * PER_TOPIC + i][0]},0,[{_ids(reps[t * PER_TOPIC + i])}],"
            f'[{_ids(state[t * PER_TOPIC + i])}],"{_cls(len(state[t * PER_TOPIC + i]))}"]'
            for i in range(PER_TOPIC)
        )
        topics.append(f'"t{t:04d}":{{"min_isr":2,"partitions":[{parts}]}}')
    return (
        f'{{"v":1,"type":"snapshot","ts":{ts / 1000:.3f},"cluster":"bench","controller":1,'
        f'"brokers":{brokers},"topics":{{{",".join(topics)}}},"reason":"hour"}}'
    )


# -- the plain-Python baseline ----------------------------------------------------------------------


def _classify(leader: int, isr: list[int], replicas: list[int], min_isr: int, offline: bool) -> str:
    if leader < 0 or offline:
        return "OFFLINE"
    if len(isr) < min_isr:
        return "UNDER_MIN_ISR"
    if len(isr) == min_isr:
        return "AT_MIN_ISR"
    if len(isr) < len(replicas):
        return "UNDER_REPLICATED"
    if replicas and leader != replicas[0]:
        return "NON_PREFERRED_LEADER"
    return "HEALTHY"


def baseline(history: Path) -> dict[str, Any]:
    """The same aggregation in one Python process (no carry-in, no gaps: the bench day has neither)."""
    from kafkatui.history.record.recorder import read_events

    d1 = D0 + 86_400_000
    cur: dict[tuple[str, int], tuple[str, int, list[int]]] = {}  # class, since, isr
    intervals: list[tuple[str, int, str, int, int]] = []
    removals: list[tuple[int, int]] = []
    shrinks: dict[int, int] = defaultdict(int)
    expands: dict[int, int] = defaultdict(int)
    n = 0

    def apply(
        ts: int, key: tuple[str, int], leader: int, isr: list[int], replicas: list[int], m: int, offline: bool
    ) -> None:
        cls = _classify(leader, isr, replicas, m, offline)
        old = cur.get(key)
        if old is None:
            cur[key] = (cls, ts, isr)
            return
        if old[2] != isr:
            for b in set(old[2]) - set(isr):
                shrinks[b] += 1
                removals.append((ts, b))
            for b in set(isr) - set(old[2]):
                expands[b] += 1
        if old[0] != cls:
            if ts > old[1]:
                intervals.append((key[0], key[1], old[0], old[1], ts))
            cur[key] = (cls, ts, isr)
        else:
            cur[key] = (old[0], old[1], isr)

    for r in read_events(history, DAY):
        ts = round(r["ts"] * 1000)
        if r["type"] == "partition":
            n += 1
            apply(
                ts,
                (r["topic"], r["partition"]),
                r["leader"],
                r["isr"],
                r["replicas"],
                r["min_isr"],
                r["class"] == "OFFLINE" and r["leader"] >= 0,
            )
        elif r["type"] == "snapshot":
            for name, t in r["topics"].items():
                for p, leader, _, replicas, isr, cls in t["partitions"]:
                    apply(ts, (name, p), leader, isr, replicas, t["min_isr"], cls == "OFFLINE" and leader >= 0)
    for key, (cls, since, _) in cur.items():
        intervals.append((key[0], key[1], cls, since, d1))
    # timeline: minute ranges per partition and class, merged, then +1/-1 boundaries
    delta = {c: [0] * 1442 for c in CLASSES[:5]}
    last_end: dict[tuple[str, int, str], int] = {}
    for topic, part, cls, s, e in sorted(intervals, key=lambda x: (x[0], x[1], x[3])):
        if cls == "HEALTHY":
            continue
        a, b = (s - D0) // 60_000, (e - 1 - D0) // 60_000
        k = (topic, part, cls)
        prev = last_end.get(k)
        if prev is not None and a <= prev:
            a = prev + 1
            if a > b:
                continue
        delta[cls][a] += 1
        delta[cls][b + 1] -= 1
        last_end[k] = b
    under = []
    run = 0
    for m in range(1440):
        run += delta["UNDER_MIN_ISR"][m]
        under.append(run)
    # incidents
    bad = sorted((s, e) for _, _, c, s, e in intervals if c in ("UNDER_MIN_ISR", "OFFLINE"))
    incidents: list[list[int]] = []
    for s, e in bad:
        if incidents and s <= incidents[-1][1]:
            incidents[-1][1] = max(incidents[-1][1], e)
        else:
            incidents.append([s, e])
    removals.sort()
    firsts = []
    for s, _ in incidents:
        i = bisect.bisect_left(removals, (s - 60_000, -1))
        firsts.append(removals[i][1] if i < len(removals) and removals[i][0] <= s else None)
    under_s: dict[tuple[str, int], int] = defaultdict(int)
    for topic, part, cls, s, e in intervals:
        if cls == "UNDER_MIN_ISR":
            under_s[(topic, part)] += e - s
    top = sorted(under_s.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
    return {
        "events": n,
        "incidents": len(incidents),
        "first_out": firsts[:50],
        "under_min_per_minute": under,
        "shrinks": dict(sorted(shrinks.items())),
        "expands": dict(sorted(expands.items())),
        "top": [[t, p, ms / 1000] for (t, p), ms in top],
    }


def _anchor(history: Path, out: Path) -> tuple[float, dict[str, Any]] | None:
    """The DuckDB anchor on the same files: its wall time (in this process) and its outputs, or None
    without DuckDB."""
    try:
        import duckdb  # noqa: F401
    except ImportError:
        print("duckdb is not installed (pip install -e '.[bench]'): no DuckDB anchor")
        return None
    from replay_duckdb import anchor

    t = time.perf_counter()
    got = anchor(history, DAY, D0, out)
    return time.perf_counter() - t, got


def _agrees(got: dict[str, Any], summary: dict[str, Any], job_out: Path) -> bool:
    """DuckDB's outputs equal the job's (the differences printed)."""
    from replay_duckdb import job_view

    from kafkatui.history.view.files import FrameStats, frame_files, frame_lines

    frames = sum(1 for _ in frame_lines(frame_files(job_out, "partitions"), FrameStats()))
    job = job_view(summary, frames)
    diff = [k for k in job if job[k] != got[k]]
    for k in diff:
        print(f"DuckDB and the job differ on {k}: job {str(job[k])[:300]} / duckdb {str(got[k])[:300]}")
    return not diff


def _job(history: Path, out: Path) -> tuple[float, dict[str, Any], str]:
    """The replay job in a child process (JVM start included): wall time, summary, its progress lines."""
    here = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=f"{here}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    t = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafkatui.history.replay.job",
            "--day",
            DAY,
            "--history",
            str(history),
            "--out",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr)
        raise SystemExit(f"replay job failed ({proc.returncode})")
    from kafkatui.history.replay.schema import SUMMARY_FILE

    stages = "\n".join(ln for ln in proc.stdout.splitlines() if "/4]" in ln)
    return wall, json.loads((out / SUMMARY_FILE).read_text()), stages


def paired_rounds(history: Path, root: Path, rounds: int) -> dict[str, float]:
    """The job and DuckDB back to back, `rounds` times, in alternating order (DuckDB first in even
    rounds): this machine's speed drifts within minutes (the same job took 98-127 s in one hour), so
    the figure is the median of the per-round ratios, as `check_vs_kcat.py` does."""
    ratios: list[float] = []
    res: dict[str, float] = {}
    for r in range(1, rounds + 1):
        load = os.getloadavg()[0]
        anchor_first = r % 2 == 0
        duck = _anchor(history, root / "duckdb-out") if anchor_first else None
        spark_s, summary, stages = _job(history, root / "out")
        if not anchor_first:
            duck = _anchor(history, root / "duckdb-out")
        agrees = duck is not None and _agrees(duck[1], summary, root / "out")
        ratio = spark_s / duck[0] if duck is not None else float("nan")
        ratios.append(ratio)
        print(
            f"round {r} ({'DuckDB' if anchor_first else 'job'} first), load {load:.1f} -> "
            f"{os.getloadavg()[0]:.1f}: job {spark_s:.1f} s, DuckDB "
            f"{duck[0] if duck else float('nan'):.1f} s, {ratio:.2f}x, outputs agree: {agrees}"
        )
        print("  job stages:\n" + "\n".join("  " + ln for ln in stages.splitlines()))
        res = {
            "spark_wall_s": spark_s,
            "duckdb_wall_s": duck[0] if duck else float("nan"),
            "duckdb_agrees": float(agrees),
            "incidents": float(len(summary["incidents"])),
        }
    res["spark_over_duckdb"] = statistics.median(ratios)
    res["rounds"] = float(rounds)
    return res


def main(argv: list[str] | None = None) -> dict[str, float]:
    """``--duckdb-only``: the job and the DuckDB anchor (the headline ratio; ``--rounds N`` paired
    rounds), without the plain-Python baseline and the full Replay-screen load (about two minutes more)."""
    parser = argparse.ArgumentParser(description="The replay job on a generated day, beside DuckDB and plain Python.")
    parser.add_argument(
        "--duckdb-only",
        action="store_true",
        help="the job and the DuckDB anchor only (the headline ratio), without the plain-Python baseline",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with --duckdb-only: paired rounds of the job and DuckDB (alternating order); the median ratio",
    )
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if ns.rounds < 1:
        parser.error("--rounds: at least 1")
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    root = Path(os.environ.get("KAFKATUI_BENCH_DIR", Path(tempfile.gettempdir()) / "kafkatui-bench-replay"))
    history = root / "history"
    marker = root / f"done-{EVENTS}"
    if not marker.exists():
        t = time.perf_counter()
        written = generate(history)
        marker.write_text(str(written))
        print(f"generated {written:,} events in {time.perf_counter() - t:.1f} s under {history}")
    events = int(marker.read_text())
    if ns.duckdb_only:
        res = {"events": float(events), **paired_rounds(history, root, ns.rounds), "load_avg_end": os.getloadavg()[0]}
        for k, v in res.items():
            print(f"{k:>24}: {v:,.2f}")
        return res
    size = sum(p.stat().st_size for p in (history / DAY).iterdir())
    out = root / "out"
    spark_s, summary, _ = _job(history, out)
    duck = _anchor(history, root / "duckdb-out")
    agrees = duck is not None and _agrees(duck[1], summary, out)
    t = time.perf_counter()
    base = baseline(history)
    base_s = time.perf_counter() - t
    agree = (
        len(summary["incidents"]) == base["incidents"]
        and [i["first_broker_out"] for i in summary["incidents"][:50]] == base["first_out"]
        and [m["under_min_isr"] for m in summary["timeline"]] == base["under_min_per_minute"]
        and {b["broker"]: b["shrinks"] for b in summary["brokers"]} == {int(k): v for k, v in base["shrinks"].items()}
        and [[p["topic"], p["partition"], p["under_min_isr_s"]] for p in summary["top_partitions"]] == base["top"]
    )
    from kafkatui.history.view.data import ReplayData

    t = time.perf_counter()
    loaded = ReplayData.load(out)  # what `kafkatui --replay OUT` reads before the screen opens
    load_s = time.perf_counter() - t
    res = {
        "events": float(events),
        "files_mb": size / 1e6,
        "spark_wall_s": spark_s,
        **({"duckdb_wall_s": duck[0], "duckdb_agrees": float(agrees)} if duck else {}),
        "spark_over_duckdb": spark_s / duck[0] if duck else float("nan"),
        "baseline_s": base_s,
        "replay_screen_load_s": load_s,
        "replay_screen_frames": float(loaded.frames),
        "spark_events_per_s": events / spark_s,
        "baseline_events_per_s": events / base_s,
        "spark_speedup": base_s / spark_s,
        "incidents": float(len(summary["incidents"])),
        "agree": float(agree),
    }
    for k, v in res.items():
        print(f"{k:>24}: {v:,.2f}")
    return res


if __name__ == "__main__":
    main()
