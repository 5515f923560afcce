"""The replay job on the bench day (bench/replay_day.py generates it) on local[1], local[2] and a
standalone cluster of two one-core workers (tests/history/spark_cluster.py: pyspark's own scripts,
127.0.0.1, each worker unable to see the driver's /tmp), inputs and output as ``file://`` URIs.

Prints the wall time of each (JVM start included) and when each stage of the job ended (the job's
own progress lines), and the load average before each run: on a shared 2-core machine the figures
are only as steady as the load.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from tests.history.spark_cluster import Cluster, can_unshare  # noqa: E402

DAY = "2026-11-20"
STAGE = re.compile(r"^\s*([\d.]+)s \[(\d)/4\] ([^:]+): (.*)$")


def run(master: str, history: Path, out: Path, env: dict[str, str]) -> tuple[float, list[str]]:
    t = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafkatui.history.replay.job",
            "--master",
            master,
            "--day",
            DAY,
            "--history",
            f"file://{history}",
            "--out",
            f"file://{out}",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=HERE,
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{master}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, [ln for ln in proc.stdout.splitlines() if STAGE.match(ln)]


def main() -> None:
    root = Path(os.environ.get("KAFKATUI_BENCH_DIR", Path(tempfile.gettempdir()) / "kafkatui-bench-replay"))
    history = root / "history"
    if not (history / DAY).is_dir():
        raise SystemExit("generate the bench day first: python bench/replay_day.py")
    env = dict(os.environ, PYTHONPATH=str(HERE), PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    shared = Path(tempfile.mkdtemp(prefix="kafkatui-scaling-", dir="/var/tmp"))
    # a copy outside /tmp, where the workers can see it (they get an empty /tmp of their own)
    shutil.copytree(history / DAY, shared / "history" / DAY)
    history = shared / "history"
    try:
        for master in ("local[1]", "local[2]"):
            load = os.getloadavg()[0]
            show(master, *run(master, history, shared / master.replace("[", "").replace("]", ""), env), load)
        if can_unshare():
            cluster = Cluster(shared, workers=2, cores=1, memory="3g")
            try:
                cluster.start()
                load = os.getloadavg()[0]
                # the cluster's env: its spark-defaults.conf turns off host-local shuffle reads, which
                # workers with private /tmp's cannot do (FetchFailedException without it)
                show(
                    "2 workers x 1 core", *run(cluster.url, history, shared / "cluster", dict(cluster.env, **env)), load
                )
            finally:
                cluster.stop()
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def show(master: str, wall: float, stages: list[str], load: float) -> None:
    """One run's figures, printed as soon as it ends."""
    print(
        f"{master:>20}: {wall:6.1f} s wall (load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)",
        flush=True,
    )
    for line in stages:
        print(f"{'':>22}{line.strip()}", flush=True)


if __name__ == "__main__":
    main()
