"""The replay job on a real standalone Spark cluster: a master and two workers started with the pyspark
package's own `spark-class`, on 127.0.0.1, each worker in its own mount namespace with a fresh tmpfs over
/tmp, so neither it nor its executors can see the driver's temp directory (as on separate hosts).

Inputs (the session's reference day, tests/history/conftest.py) and outputs are ``file://`` URIs on
directories outside /tmp that all of them share. The executors' Python has pyspark but cannot import
kafkatui (`python_without_kafkatui`): the job ships its own code. The job runs twice on the cluster, side
by side, through spark-submit (no --py-files) and through ``kafkatui replay --master`` (each application
on both workers), and each output must equal local mode's, output by output.
Needs root (for ``unshare --mount``) and Java: skipped otherwise, except in CI (``CI=true``), where a
cluster that cannot run fails the test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from kafkatui.history.replay.spark_session import find_java
from tests.ci import cannot_run
from tests.history import replay_days as rd
from tests.history.conftest import Reference
from tests.history.replay_compare import assert_same
from tests.history.spark_cluster import Cluster, can_unshare, free_port, python_without_kafkatui

pytestmark = pytest.mark.timeout(1800)
RUN_S = 1000.0
"""How long a run may take: a bound, not a target. The three runs share the machine (two drivers, four
executors, a local job); at load average 25-30 on 2 cores `kafkatui replay --master` took about 640 s
and spark-submit beside it more than 600 s (the bound then). The setup (the local reference, the
cluster's start) took 476 s then: both stay inside the tests' 1800 s."""
ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = free_port()  # nothing listens there


def _cannot_run(why: str) -> NoReturn:
    """CI (CI=true) fails when it cannot run; elsewhere the test skips, saying why."""
    cannot_run(f"the two-worker Spark cluster cannot run here: {why}")


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    """Started while the local reference is computed (the workers' JVMs start during that run)."""
    if find_java() is None:
        _cannot_run("no Java (PySpark needs a JDK 17+; `make tools` installs it)")
    if not can_unshare():
        _cannot_run("needs root and `unshare --mount` to hide the driver's /tmp from the workers")
    shared = Path(tempfile.mkdtemp(prefix="kafkatui-cluster-", dir="/var/tmp"))
    c = Cluster(shared, apps=2)  # spark-submit and `kafkatui replay --master` side by side
    # the executors' Python has pyspark but not kafkatui, as on a real cluster's nodes: the job ships it
    python = python_without_kafkatui(shared)
    probe = subprocess.run([str(python), "-c", "import kafkatui"], capture_output=True, text=True, cwd="/")
    assert probe.returncode != 0 and "No module named 'kafkatui'" in probe.stderr, probe
    c.env["PYSPARK_PYTHON"] = str(python)
    try:
        try:
            c.launch()
            request.getfixturevalue("reference")
            c.wait_ready()
        except (RuntimeError, OSError) as exc:
            _cannot_run(f"it did not start ({exc})")
        yield c
    finally:
        c.stop()
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture(scope="module")
def ref(cluster: Cluster, request: pytest.FixtureRequest) -> Reference:
    """The session's reference day, asked for only through the cluster fixture: a test that named the
    session fixture itself would have it computed before the cluster starts, not while."""
    got: Reference = request.getfixturevalue("reference")
    return got


@dataclass
class Run:
    """One command started in the background; its output goes to files (a full pipe would stall it)."""

    proc: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path
    out: Path

    def wait(self) -> tuple[int, str, str]:
        try:
            code = self.proc.wait(RUN_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
            # where it was: slow (stages going on) or stuck (the last lines long ago); the files go with the cluster
            tail = self.stderr.read_text(errors="replace").splitlines()[-15:]
            pytest.fail(f"{self.out.name} still running after {RUN_S:.0f} s; its stderr ended:\n" + "\n".join(tail))
        return code, self.stdout.read_text(errors="replace"), self.stderr.read_text(errors="replace")


def _start(cluster: Cluster, name: str, argv: list[str], **env: str) -> Run:
    out, stdout, stderr = (cluster.shared / f"{name}{suffix}" for suffix in ("", ".stdout", ".stderr"))
    proc = subprocess.Popen(
        argv,
        stdout=stdout.open("wb"),
        stderr=stderr.open("wb"),
        # the driver runs this interpreter (kafkatui importable); the executors the one without it
        env=dict(cluster.env, PYTHONPATH=str(ROOT), PYSPARK_DRIVER_PYTHON=sys.executable, **env),
        cwd=ROOT,
        start_new_session=True,
    )
    return Run(proc, stdout, stderr, out)


@pytest.fixture(scope="module")
def runs(cluster: Cluster, ref: Reference) -> Iterator[dict[str, Run]]:
    """The three runs at once (each worker has a core for each cluster run): spark-submit and
    ``kafkatui replay --master`` on the cluster, and spark-submit on an unreachable HDFS."""
    submit = str(cluster.home / "bin" / "spark-submit")
    job = str(ROOT / "kafkatui" / "history" / "replay" / "job.py")
    day = ["--day", rd.DAY, "--history", f"file://{ref.history}", "--broker-logs", f"file://{ref.logs}/server.log.*"]
    started = {
        "submit": _start(
            cluster,
            "out-submit",
            [submit, "--master", cluster.url, "--conf", "spark.ui.enabled=false", job, *day]
            + ["--out", f"file://{cluster.shared}/out-submit"],
        ),
        "cli": _start(
            cluster,
            "out-cli",
            [sys.executable, "-m", "kafkatui.cli", "replay", "--master", cluster.url, *day]
            + ["--out", f"file://{cluster.shared}/out-cli"],
            COLUMNS="200",
        ),
        "unreachable": _start(
            cluster,
            "out-bad",
            [submit, "--master", "local[1]", job, "--day", rd.DAY]
            + ["--history", f"hdfs://127.0.0.1:{UNREACHABLE}/history", "--out", f"file://{cluster.shared}/out-bad"],
        ),
    }
    try:
        yield started
    finally:
        for run in started.values():
            if run.proc.poll() is None:
                os.killpg(run.proc.pid, 9)
                run.proc.wait()


def _on_two_workers(cluster: Cluster) -> None:
    """Each application the master ran had its executors on two different workers."""
    launched: dict[str, set[str]] = {}
    for m in re.finditer(
        r"Launching executor (app-[\w-]+)/\d+ on worker (\S+)", (cluster.shared / "master.log").read_text()
    ):
        launched.setdefault(m.group(1), set()).add(m.group(2))
    assert launched and all(len(workers) == 2 for workers in launched.values()), launched


def test_spark_submit_on_two_workers_gives_local_results(
    spark: Any, cluster: Cluster, ref: Reference, runs: dict[str, Run]
) -> None:
    run = runs["submit"]
    code, stdout, stderr = run.wait()
    assert code == 0, stderr[-3000:]
    assert f"written to file://{run.out}" in stdout
    assert_same(spark, f"file://{ref.out}", f"file://{run.out}")
    _on_two_workers(cluster)


def test_kafkatui_replay_master_on_two_workers_gives_local_results(
    spark: Any, cluster: Cluster, ref: Reference, runs: dict[str, Run]
) -> None:
    run = runs["cli"]
    code, _, stderr = run.wait()
    assert code == 0, stderr[-3000:]
    assert_same(spark, f"file://{ref.out}", f"file://{run.out}")
    _on_two_workers(cluster)


def test_an_unreachable_filesystem_under_spark_submit_is_one_line(runs: dict[str, Run]) -> None:
    code, stdout, stderr = runs["unreachable"].wait()
    # spark-submit's PythonRunner merges the Python driver's stderr into its own stdout
    ours = [ln for ln in (stdout + stderr).splitlines() if ln.startswith("replay: error:")]
    assert code == 3, stderr[-3000:]
    assert len(ours) == 1 and ours[0].startswith(f"replay: error: --history hdfs://127.0.0.1:{UNREACHABLE}/history: ")
    assert "Connection refused" in ours[0] and "Traceback" not in stderr
