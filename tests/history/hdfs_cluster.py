"""A one-DataNode HDFS on 127.0.0.1 for the replay job's ``hdfs://`` test: Hadoop's own MiniDFSCluster
(``org.apache.hadoop.test.MiniDFSClusterManager`` from the hadoop-hdfs test jar), its 183 jars (109 MB)
fetched from Maven Central once by ``mvn dependency:copy-dependencies`` on ``tests/history/hdfs/pom.xml``
(hadoop-minicluster 3.4.1, plus JUnit and Mockito that its test classes load, and the jackson-core
the rest expects). Stopped by its own process group.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from tests.history.spark_cluster import free_port

POM = Path(__file__).parent / "hdfs" / "pom.xml"
CACHE = Path(os.environ.get("KAFKATUI_HDFS_JARS", "/var/tmp/kafkatui-hdfs-jars"))


def fetch_jars() -> Path | None:
    """The jars' folder (fetched on first use), or None without mvn or when the fetch fails."""
    if (CACHE / ".complete").exists():
        return CACHE
    if shutil.which("mvn") is None:
        return None
    CACHE.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(POM), "dependency:copy-dependencies", f"-DoutputDirectory={CACHE}"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if proc.returncode != 0:
        return None
    for stale in CACHE.glob("jackson-core-2.10*.jar"):  # the pom pins 2.12.7
        stale.unlink()
    (CACHE / ".complete").write_text("ok\n")
    return CACHE


class MiniHdfs:
    """A NameNode and a DataNode in one JVM, listening on 127.0.0.1."""

    def __init__(self, jars: Path, work: Path) -> None:
        self.jars, self.work = jars, work
        self.port = free_port()
        self.url = f"hdfs://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, seconds: float = 300) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        log = self.work / "hdfs.log"
        loopback = [
            "dfs.namenode.http-address",
            "dfs.datanode.address",
            "dfs.datanode.http.address",
            "dfs.datanode.ipc.address",
        ]
        argv = [
            "java",
            "-Xmx512m",
            "-XX:TieredStopAtLevel=1",  # C1 only, as every test JVM: tests/history/jvm.py
            "-cp",
            f"{self.jars}/*",
            "org.apache.hadoop.test.MiniDFSClusterManager",
            "-format",
            "-nnport",
            str(self.port),
            "-datanodes",
            "1",
        ]
        for key in loopback:
            argv += ["-D", f"{key}=127.0.0.1:0"]
        self.proc = subprocess.Popen(
            argv, cwd=self.work, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"MiniDFSCluster exited: {log.read_text()[-2000:]}")
            text = log.read_text(errors="replace")
            if "Started MiniDFSCluster" in text and "Successfully sent block report" in text:
                return
            time.sleep(0.5)
        raise RuntimeError(f"MiniDFSCluster did not start: {log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
