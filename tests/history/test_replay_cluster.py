"""The replay job on a real standalone Spark cluster: a master and two workers started with the pyspark
package's own `spark-class`, on 127.0.0.1, each worker in its own mount namespace with a fresh tmpfs over
/tmp, so neither it nor its executors can see the driver's temp directory (as on separate hosts).

Inputs and outputs are ``file://`` URIs on a directory outside /tmp that all of them share. The job runs
twice on the cluster, through spark-submit and through ``kafkatui replay --master``, and each output must
equal local mode's table by table. Needs root (for ``unshare --mount``) and Java; skipped otherwise.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.replay_inputs import parse_day
from kafkatui.history.replay_job import ReplayConfig, run_job
from kafkatui.history.spark_session import find_java
from tests.history import replay_days as rd
from tests.history.test_replay_job import damage

pytestmark = pytest.mark.timeout(900)
ROOT = Path(__file__).resolve().parents[2]
TABLES = ("intervals", "timeline", "brokers", "incidents", "top_partitions")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited {proc.returncode}: {log.read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise RuntimeError(f"nothing listens on {port}: {log.read_text()[-2000:]}")


def _can_unshare() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "sh", "-c", "mount -t tmpfs tmpfs /tmp"], capture_output=True)
    return probe.returncode == 0


class Cluster:
    """A standalone master and two one-core workers that cannot see the driver's /tmp."""

    def __init__(self, shared: Path) -> None:
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.shared = shared
        self.port = _free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.env = dict(os.environ, SPARK_HOME=str(self.home), SPARK_LOCAL_IP="127.0.0.1",
                        SPARK_NO_DAEMONIZE="1", PYSPARK_PYTHON=sys.executable)

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = self.shared / f"{name}.log"
        proc = subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        cls = str(self.home / "bin" / "spark-class")
        master = self._start("master", [cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                        "--port", str(self.port), "--webui-port", str(_free_port())])
        _wait_port(self.port, master, self.shared / "master.log")
        for n in (1, 2):
            wport = _free_port()
            # a private mount namespace with an empty tmpfs over /tmp: the driver's temp dir is not there
            worker = self._start(f"worker{n}", [
                "unshare", "--mount", "sh", "-c", 'mount -t tmpfs tmpfs /tmp && exec "$0" "$@"', cls,
                "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", str(wport),
                "--webui-port", str(_free_port()), "--cores", "1", "--memory", "1g", "--work-dir", "/tmp/work",
                self.url])
            _wait_port(wport, worker, self.shared / f"worker{n}.log")
        deadline = time.monotonic() + 60
        while (self.shared / "master.log").read_text().count("Registering worker") < 2:
            if time.monotonic() > deadline:
                raise RuntimeError("workers did not register: " + (self.shared / "master.log").read_text()[-2000:])
            time.sleep(0.3)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, 15)  # its own session: the worker's executors go with it
        for proc in self.procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if find_java() is None:
        pytest.skip(reason="no Java: PySpark needs a JDK 17+")
    if not _can_unshare():
        pytest.skip(reason="needs root and `unshare --mount` to hide the driver's /tmp from the workers")
    shared = Path(tempfile.mkdtemp(prefix="kafkatui-cluster-", dir="/var/tmp"))
    c = Cluster(shared)
    try:
        c.start()
        yield c
    finally:
        c.stop()
        shutil.rmtree(shared, ignore_errors=True)


def _inputs(base: Path) -> tuple[Path, Path]:
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
def local_reference(spark: Any, cluster: Cluster) -> Path:
    history, logs = _inputs(cluster.shared / "local-in")
    out = cluster.shared / "local-out"
    cfg = ReplayConfig(day=parse_day(rd.DAY), out=out, history=history, broker_logs=[str(logs / "server.log.*")])
    run_job(spark, cfg)
    return out


def test_spark_submit_on_two_workers_gives_local_results(spark: Any, cluster: Cluster, local_reference: Path) -> None:
    history, logs = _inputs(cluster.shared / "in")
    out = cluster.shared / "out-submit"
    submit = cluster.home / "bin" / "spark-submit"
    proc = subprocess.run([str(submit), "--master", cluster.url, "--conf", "spark.ui.enabled=false",
                           str(ROOT / "kafkatui" / "history" / "replay_job.py"), "--day", rd.DAY,
                           "--history", f"file://{history}", "--broker-logs", f"file://{logs}/server.log.*",
                           "--out", f"file://{out}"],
                          capture_output=True, text=True, env=dict(cluster.env, PYTHONPATH=str(ROOT)), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"written to file://{out}" in proc.stdout
    _same_as_local(spark, local_reference, out)


def test_kafkatui_replay_master_on_two_workers_gives_local_results(spark: Any, cluster: Cluster,
                                                                    local_reference: Path) -> None:
    history, logs = _inputs(cluster.shared / "in2")
    out = cluster.shared / "out-cli"
    proc = subprocess.run([sys.executable, "-m", "kafkatui.cli", "replay", "--master", cluster.url, "--day", rd.DAY,
                           "--history", f"file://{history}", "--broker-logs", f"file://{logs}/server.log.*",
                           "--out", f"file://{out}"],
                          capture_output=True, text=True, env=dict(cluster.env, PYTHONPATH=str(ROOT), COLUMNS="200"),
                          timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _same_as_local(spark, local_reference, out)


def test_an_unreachable_filesystem_under_spark_submit_is_one_line(cluster: Cluster) -> None:
    submit = cluster.home / "bin" / "spark-submit"
    port = _free_port()  # nothing listens there
    proc = subprocess.run([str(submit), "--master", "local[1]", str(ROOT / "kafkatui" / "history" / "replay_job.py"),
                           "--day", rd.DAY, "--history", f"hdfs://127.0.0.1:{port}/history",
                           "--out", f"file://{cluster.shared}/out-bad"],
                          capture_output=True, text=True, env=dict(cluster.env, PYTHONPATH=str(ROOT)), timeout=600)
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("replay:")]
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert len(ours) == 1 and ours[0].startswith(f"replay: error: --history hdfs://127.0.0.1:{port}/history: ")
    assert "Connection refused" in ours[0] and "Traceback" not in proc.stderr
