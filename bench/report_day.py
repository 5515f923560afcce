"""The postmortem of the bench day (`replay_day.py`'s 50,000-partition day, 5 million ISR events).

Replays the day once if `replay_day.py` has not (its cached OUT), then times what the user waits for
after the job: loading OUT, building the report's facts, and writing the Markdown, the chart and the
HTML. Then checks the report against the job's own tables, independently of kafkatui's reader:

- every incident's start, end, first broker out and peaks equal ``summary.json``;
- each topic's minutes without acks=all writes, per incident, equal the union of the job's
  ``intervals/`` Parquet rows of class OFFLINE / UNDER_MIN_ISR, read with DuckDB (the ``bench`` extra).

Prints the sizes of the files and, when Chromium is on PATH, how long the HTML takes to render to a PNG.
"""

from __future__ import annotations

import bisect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from replay_day import DAY, EVENTS, generate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checks the tests make, shared
from tests.report.tables import unavailable_by_topic  # noqa: E402


def _ensure_out(root: Path) -> Path:
    history, out = root / "history", root / "out"
    marker = root / f"done-{EVENTS}"
    if not marker.exists():
        t = time.perf_counter()
        marker.write_text(str(generate(history)))
        print(f"generated the bench day in {time.perf_counter() - t:.1f} s")
    if not (out / "summary.json").exists():
        here = Path(__file__).resolve().parent.parent
        env = dict(os.environ, PYTHONPATH=f"{here}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
        t = time.perf_counter()
        cmd = [sys.executable, "-m", "kafkatui.history.replay.job", "--day", DAY, "--history", str(history)]
        subprocess.run([*cmd, "--out", str(out)], env=env, check=True, capture_output=True)
        print(f"replayed the bench day in {time.perf_counter() - t:.1f} s")
    return out


def _check(out: Path, pm: Any) -> list[str]:
    """What differs between the report's facts and the job's tables (empty: they agree)."""
    import duckdb

    summary = json.loads((out / "summary.json").read_text())
    wrong: list[str] = []
    if len(pm.incidents) != len(summary["incidents"]):
        return [f"{len(pm.incidents)} incidents in the report, {len(summary['incidents'])} in summary.json"]
    rel = duckdb.sql(
        f"select topic, start_ms, end_ms from read_parquet('{out}/intervals/**/*.parquet') "
        "where class in ('OFFLINE', 'UNDER_MIN_ISR')"
    )
    assert rel is not None
    rows = rel.fetchall()
    rows.sort(key=lambda r: r[1])
    starts = [r[1] for r in rows]
    longest = max((e - s for _, s, e in rows), default=0)
    for k, (f, inc) in enumerate(zip(pm.incidents, summary["incidents"], strict=True), 1):
        i = f.incident
        mine = (i.start_ms, i.end_ms, i.first_broker_out, i.peak_under_min_isr, i.peak_offline, i.partitions)
        theirs = tuple(
            inc[x]
            for x in ("start_ms", "end_ms", "first_broker_out", "peak_under_min_isr", "peak_offline", "partitions")
        )
        if mine != theirs:
            wrong.append(f"incident {k}: report {mine}, summary.json {theirs}")
        got = {o.topic: o.unavailable_ms for o in f.outages}
        near = rows[bisect.bisect_left(starts, i.start_ms - longest) : bisect.bisect_left(starts, i.end_ms)]
        want = unavailable_by_topic(near, i.start_ms, i.end_ms)
        if got != want:
            diff = sorted(t for t in set(got) | set(want) if got.get(t) != want.get(t))
            wrong.append(f"incident {k}: per-topic unavailable time differs for {len(diff)} topic(s), e.g. {diff[:3]}")
    return wrong


def _chromium_png(html: Path) -> float | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "report.png"
        t = time.perf_counter()
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--user-data-dir={tmp}/profile",
                f"--screenshot={png}",
                "--window-size=1200,2000",
                html.as_uri(),
            ],
            capture_output=True,
            timeout=300,
        )
        return time.perf_counter() - t if png.exists() else None


def main() -> dict[str, float]:
    from kafkatui.history.view.data import ReplayData
    from kafkatui.report import facts
    from kafkatui.report.write import write_report

    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    root = Path(os.environ.get("KAFKATUI_BENCH_DIR", Path(tempfile.gettempdir()) / "kafkatui-bench-replay"))
    out = _ensure_out(root)
    t = time.perf_counter()
    data = ReplayData.load(out)
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    pm = facts.build(data)
    facts_s = time.perf_counter() - t
    to = root / "report"
    t = time.perf_counter()
    written = write_report(data, to, use_audit=False)
    write_s = time.perf_counter() - t
    wrong = _check(out, pm)
    for w in wrong:
        print("DIFFERS:", w)
    png_s = _chromium_png(written.html)
    res = {
        "incidents": float(written.incidents),
        "load_out_s": load_s,
        "facts_s": facts_s,
        "write_report_s": write_s,
        "markdown_kb": written.markdown.stat().st_size / 1024,
        "html_kb": written.html.stat().st_size / 1024,
        "chart_kb": written.chart.stat().st_size / 1024,
        "chromium_png_s": png_s if png_s is not None else float("nan"),
        "agrees_with_tables": float(not wrong),
        "load_avg_end": os.getloadavg()[0],
    }
    for k, v in res.items():
        print(f"{k:>20}: {v:,.2f}")
    print(f"report: {written.markdown}")
    return res


if __name__ == "__main__":
    main()
