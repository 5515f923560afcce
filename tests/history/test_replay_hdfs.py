"""The replay job on ``hdfs://`` inputs and output (a MiniDFSCluster on loopback, tests/history/hdfs_cluster.py):
the same outputs as local mode's from the same files, from the shared session and from spark-submit on a
local master. Part of ``make test`` (``make test-hdfs`` runs it
alone); the first run fetches 109 MB of Hadoop jars with mvn. Without Java, mvn or the jars it skips,
except in CI (``CI=true``), where that fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pyspark
import pytest

from kafkatui.history.replay.inputs import parse_day
from kafkatui.history.replay.job import EXIT_UNWRITABLE, ReplayConfig, ReplayError, run_job
from kafkatui.history.replay.spark_session import find_java
from tests.ci import cannot_run
from tests.history import replay_days as rd
from tests.history.conftest import Reference
from tests.history.hdfs_cluster import MiniHdfs, fetch_jars
from tests.history.jvm import env as quick_jvm_env
from tests.history.replay_compare import assert_same

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "kafkatui" / "history" / "replay" / "job.py"
# a hang (as before spark.locality.wait=0 on local masters) fails in minutes, not at the suite's end
pytestmark = [pytest.mark.hdfs, pytest.mark.timeout(600)]


def _cannot_run(why: str) -> NoReturn:
    """CI (CI=true) fails when it cannot run; elsewhere the test skips, saying why."""
    cannot_run(f"the HDFS test cannot run here: {why}")


@pytest.fixture(scope="module")
def hdfs() -> Iterator[MiniHdfs]:
    if find_java() is None:
        _cannot_run("no Java (`make tools` installs it)")
    jars = fetch_jars()
    if jars is None:
        _cannot_run("no mvn, or it could not fetch Hadoop's jars (`make tools` installs mvn)")
        raise AssertionError  # not reached: for the type checker
    work = Path(tempfile.mkdtemp(prefix="kafkatui-hdfs-"))
    cluster = MiniHdfs(jars, work)
    try:
        try:
            cluster.start()
        except RuntimeError as exc:
            _cannot_run(f"the MiniDFSCluster did not start ({exc})")
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


def test_hdfs_inputs_and_output_give_local_results(spark: Any, hdfs: MiniHdfs, reference: Reference) -> None:
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path
    base = f"{hdfs.url}/replay-test"
    fs = path(base).getFileSystem(conf)
    for local, name in ((reference.history, "history"), (reference.logs, "logs")):
        fs.copyFromLocalFile(False, True, path(f"file://{local}"), path(f"{base}/{name}"))
    day = parse_day(rd.DAY)
    logs = f"{base}/logs/server.log.*"
    # spark-submit on a local master as well (it hung there too), side by side with the in-process run
    submit = subprocess.Popen(
        [str(Path(pyspark.__file__).parent / "bin" / "spark-submit"), "--master", "local[2]", str(JOB)]
        + ["--day", rd.DAY, "--history", f"{base}/history", "--broker-logs", logs, "--out", f"{base}/out-submit"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=quick_jvm_env({**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}),
        start_new_session=True,
    )
    try:
        cfg = ReplayConfig(day=day, out=f"{base}/out", history=f"{base}/history", broker_logs=[logs])
        remote = run_job(spark, cfg)
        assert remote.summary["inputs"]["history"] == f"{base}/history"
        assert_same(spark, f"file://{reference.out}", f"{base}/out")
        printed, _ = submit.communicate(timeout=400)
    finally:
        if submit.poll() is None:
            os.killpg(submit.pid, 9)
    assert submit.returncode == 0, printed[-3000:]
    assert_same(spark, f"file://{reference.out}", f"{base}/out-submit")
    # a foreign non-empty directory on HDFS is refused and left alone
    fs.mkdirs(path(f"{base}/theirs/data"))
    with pytest.raises(ReplayError) as err:
        run_job(spark, ReplayConfig(day=day, out=f"{base}/theirs", history=f"{base}/history"))
    assert err.value.exit_code == EXIT_UNWRITABLE and fs.exists(path(f"{base}/theirs/data"))
