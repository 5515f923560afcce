"""The replay job on ``hdfs://`` inputs and output (a MiniDFSCluster on loopback, tests/history/hdfs_cluster.py):
the same results as from local files. Marked ``hdfs`` (run with ``make test-hdfs``): the first run fetches
109 MB of Hadoop jars and the NameNode takes about a minute to start on this machine.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.replay_inputs import parse_day
from kafkatui.history.replay_job import EXIT_UNWRITABLE, ReplayConfig, ReplayError, run_job
from kafkatui.history.spark_session import find_java
from tests.history import replay_days as rd
from tests.history.hdfs_cluster import MiniHdfs, fetch_jars

pytestmark = [pytest.mark.hdfs, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def hdfs() -> Iterator[MiniHdfs]:
    if find_java() is None:
        pytest.skip(reason="no Java")
    jars = fetch_jars()
    if jars is None:
        pytest.skip(reason="no mvn, or the Hadoop jars could not be fetched")
    work = Path(tempfile.mkdtemp(prefix="kafkatui-hdfs-"))
    cluster = MiniHdfs(jars, work)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


def test_hdfs_inputs_and_output_give_local_results(spark: Any, hdfs: MiniHdfs, tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "history")
    rd.write_logs(tmp_path / "logs")
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path
    base = f"{hdfs.url}/replay-test"
    fs = path(base).getFileSystem(conf)
    for name in ("history", "logs"):
        fs.copyFromLocalFile(False, True, path(f"file://{tmp_path / name}"), path(f"{base}/{name}"))
    day = parse_day(rd.DAY)
    remote = run_job(
        spark,
        ReplayConfig(day=day, out=f"{base}/out", history=f"{base}/history", broker_logs=[f"{base}/logs/server.log.*"]),
    )
    local = run_job(
        spark,
        ReplayConfig(
            day=day,
            out=tmp_path / "out",
            history=tmp_path / "history",
            broker_logs=[str(tmp_path / "logs" / "server.log.*")],
        ),
    )
    for s in (remote.summary, local.summary):
        s["inputs"].pop("history")
        s["inputs"].pop("broker_logs")
    assert remote.summary == local.summary and len(local.summary["incidents"]) == 2
    assert fs.exists(path(f"{base}/out/summary.json")) and fs.exists(path(f"{base}/out/frames/at_hour"))
    for table in ("intervals", "timeline", "incidents", "brokers", "top_partitions"):
        got = sorted(tuple(r) for r in spark.read.parquet(f"{base}/out/{table}").collect())
        assert got == sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / "out" / table)).collect()), table
    # a foreign non-empty directory on HDFS is refused and left alone
    fs.mkdirs(path(f"{base}/theirs/data"))
    with pytest.raises(ReplayError) as err:
        run_job(spark, ReplayConfig(day=day, out=f"{base}/theirs", history=f"{base}/history"))
    assert err.value.exit_code == EXIT_UNWRITABLE and fs.exists(path(f"{base}/theirs/data"))
