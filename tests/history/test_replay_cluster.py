"""The replay job on a real standalone Spark cluster: a master and two workers started with the pyspark
package's own `spark-class`, on 127.0.0.1, each worker in its own mount namespace with a fresh tmpfs over
/tmp, so neither it nor its executors can see the driver's temp directory (as on separate hosts).

Inputs and outputs are ``file://`` URIs on a directory outside /tmp that all of them share. The job runs
twice on the cluster, through spark-submit and through ``kafkatui replay --master``, and each output must
equal local mode's table by table. Needs root (for ``unshare --mount``) and Java: skipped otherwise,
except in CI (``CI=true``), where a cluster that cannot run fails the test.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.replay_inputs import parse_day
from kafkatui.history.replay_job import ReplayConfig, run_job
from kafkatui.history.spark_session import find_java
from tests.history import replay_days as rd
from tests.history.spark_cluster import Cluster, can_unshare, free_port
from tests.history.test_replay_job import damage
from tests.lab.support import in_ci

pytestmark = pytest.mark.timeout(1800)
ROOT = Path(__file__).resolve().parents[2]
TABLES = ("intervals", "timeline", "brokers", "incidents", "top_partitions")


def _cannot_run(why: str) -> None:
    """CI (CI=true) fails when the cluster cannot run; elsewhere the test skips, saying why."""
    msg = f"the two-worker Spark cluster cannot run here: {why}"
    if in_ci():
        pytest.fail(msg, pytrace=False)
    print(f"\nSKIP REASON: {msg}", file=sys.stderr)
    pytest.skip(reason=f"{msg} (locally only; CI fails)")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if find_java() is None:
        _cannot_run("no Java (PySpark needs a JDK 17+; `make tools` installs it)")
    if not can_unshare():
        _cannot_run("needs root and `unshare --mount` to hide the driver's /tmp from the workers")
    shared = Path(tempfile.mkdtemp(prefix="kafkatui-cluster-", dir="/var/tmp"))
    c = Cluster(shared)
    try:
        try:
            c.start()
        except (RuntimeError, OSError) as exc:
            _cannot_run(f"it did not start ({exc})")
        yield c
    finally:
        c.stop()
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture(scope="module")
def inputs(cluster: Cluster) -> tuple[Path, Path]:
    """One small day (recordings and broker logs), shared by every run of the module."""
    base = cluster.shared / "in"
    rd.write_recordings(base / "history")
    damage(base / "history")  # a torn file: read from the scan stage's result, not from a repaired copy
    rd.write_logs(base / "logs")
    return base / "history", base / "logs"


def _table(spark: Any, out: str, name: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.read.parquet(f"{out}/{name}").collect())


def _frames(out: Path, kind: str) -> list[str]:
    lines = []
    for part in sorted((out / "frames" / kind).glob("**/part-*.json.gz")):
        with gzip.open(part, "rt") as f:
            lines.extend(line.strip() for line in f if line.strip())
    return sorted(lines)


def _same_as_local(spark: Any, local: Path, out: Path) -> None:
    ls, cs = (json.loads((d / "summary.json").read_text()) for d in (local, out))
    for s in (ls, cs):
        s["inputs"].pop("history")
        s["inputs"].pop("broker_logs")
    assert cs == ls
    for name in TABLES:
        assert _table(spark, str(out), name) == _table(spark, str(local), name), name
    for kind in ("partitions", "at_hour", "brokers"):
        assert _frames(out, kind) == _frames(local, kind), kind


@pytest.fixture(scope="module")
def local_reference(spark: Any, cluster: Cluster, inputs: tuple[Path, Path]) -> Path:
    history, logs = inputs
    out = cluster.shared / "local-out"
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=out, history=history, broker_logs=[str(logs / "server.log.*")])
    run_job(spark, cfg)
    return out


def test_spark_submit_on_two_workers_gives_local_results(
    spark: Any, cluster: Cluster, inputs: tuple[Path, Path], local_reference: Path
) -> None:
    history, logs = inputs
    out = cluster.shared / "out-submit"
    submit = cluster.home / "bin" / "spark-submit"
    proc = subprocess.run(
        [
            str(submit),
            "--master",
            cluster.url,
            "--conf",
            "spark.ui.enabled=false",
            str(ROOT / "kafkatui" / "history" / "replay_job.py"),
            "--day",
            rd.DAY,
            "--history",
            f"file://{history}",
            "--broker-logs",
            f"file://{logs}/server.log.*",
            "--out",
            f"file://{out}",
        ],
        capture_output=True,
        text=True,
        env=dict(cluster.env, PYTHONPATH=str(ROOT)),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"written to file://{out}" in proc.stdout
    _same_as_local(spark, local_reference, out)


def test_kafkatui_replay_master_on_two_workers_gives_local_results(
    spark: Any, cluster: Cluster, inputs: tuple[Path, Path], local_reference: Path
) -> None:
    history, logs = inputs
    out = cluster.shared / "out-cli"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafkatui.cli",
            "replay",
            "--master",
            cluster.url,
            "--day",
            rd.DAY,
            "--history",
            f"file://{history}",
            "--broker-logs",
            f"file://{logs}/server.log.*",
            "--out",
            f"file://{out}",
        ],
        capture_output=True,
        text=True,
        env=dict(cluster.env, PYTHONPATH=str(ROOT), COLUMNS="200"),
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    _same_as_local(spark, local_reference, out)


def test_an_unreachable_filesystem_under_spark_submit_is_one_line(cluster: Cluster) -> None:
    submit = cluster.home / "bin" / "spark-submit"
    port = free_port()  # nothing listens there
    proc = subprocess.run(
        [
            str(submit),
            "--master",
            "local[1]",
            str(ROOT / "kafkatui" / "history" / "replay_job.py"),
            "--day",
            rd.DAY,
            "--history",
            f"hdfs://127.0.0.1:{port}/history",
            "--out",
            f"file://{cluster.shared}/out-bad",
        ],
        capture_output=True,
        text=True,
        env=dict(cluster.env, PYTHONPATH=str(ROOT)),
        timeout=600,
    )
    # spark-submit's PythonRunner merges the Python driver's stderr into its own stdout
    ours = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith("replay: error:")]
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert len(ours) == 1 and ours[0].startswith(f"replay: error: --history hdfs://127.0.0.1:{port}/history: ")
    assert "Connection refused" in ours[0] and "Traceback" not in proc.stderr
