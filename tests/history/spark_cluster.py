"""A Spark standalone cluster on 127.0.0.1 for tests and benchmarks: a master and N workers started with the
pyspark package's own ``bin/spark-class``, each worker in its own mount namespace with an empty tmpfs over
the driver's temp directory (``unshare --mount``, needs root), so no worker or executor sees the driver's
temp files, as on separate hosts. A checkout or venv that itself lives under that directory (CI may clone
into /tmp) is bound back into the namespace, so the workers still find pyspark and Python. Processes are
stopped by their own process group, never by name.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.history import jvm


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited {proc.returncode}: {log.read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise RuntimeError(f"nothing listens on {port}: {log.read_text()[-2000:]}")


def private_tmp(stash: Path) -> str:
    """The shell line a worker runs before its own command: an empty tmpfs over the driver's temp directory,
    with the checkout, the venv and pyspark bound back when they live under it (found through `stash`,
    where the old directory is bound first and unmounted again once they are in place)."""
    hide = os.path.realpath(tempfile.gettempdir())
    wanted = {os.path.realpath(p) for p in (Path(__file__).resolve().parents[2], sys.prefix, _pyspark_home())}
    keep = sorted(p for p in wanted if p.startswith(hide + os.sep))
    keep = [p for p in keep if not any(p.startswith(k + os.sep) for k in keep if k != p)]  # outermost only
    steps = [f'mount --bind "{hide}" "{stash}"', f'mount -t tmpfs tmpfs "{hide}"']
    for p in keep:
        steps += [f'mkdir -p "{p}"', f'mount --bind "{stash}/{os.path.relpath(p, hide)}" "{p}"']
    steps += [f'umount -l "{stash}"', 'exec "$0" "$@"']
    return " && ".join(steps)


def _pyspark_home() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent)


def can_unshare() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "sh", "-c", "mount -t tmpfs tmpfs /tmp"], capture_output=True)
    return probe.returncode == 0


class Cluster:
    """A standalone master and `workers` workers that cannot see the driver's /tmp. With `apps` > 1 each
    worker has `apps` times the cores and memory, and each application takes one single-core executor
    per worker (spark.cores.max), so that many applications run at once, each on every worker."""

    def __init__(self, shared: Path, workers: int = 2, cores: int = 1, memory: str = "1g", apps: int = 1) -> None:
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.shared = shared
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self._workers: list[tuple[subprocess.Popen[bytes], Path]] = []
        self.workers, self.cores = workers, cores * apps
        self.memory = f"{int(memory[:-1]) * apps}{memory[-1]}"
        # every worker says 127.0.0.1, so Spark would take them for one host and read another executor's
        # shuffle files straight from its disk ("host-local" reads), which separate hosts never do and
        # private /tmp's cannot: the driver and the executors read this spark-defaults.conf
        conf = shared / "spark-conf"
        conf.mkdir(parents=True, exist_ok=True)
        defaults = ["spark.shuffle.readHostLocalDisk false"]
        if apps > 1:
            defaults += [f"spark.cores.max {workers * cores}", f"spark.executor.cores {cores}"]
            defaults += [f"spark.executor.memory {memory}"]
        (conf / "spark-defaults.conf").write_text("\n".join(defaults) + "\n")
        self.env = dict(
            jvm.env(),  # C1 only: see tests/history/jvm.py
            SPARK_HOME=str(self.home),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_CONF_DIR=str(conf),
            SPARK_NO_DAEMONIZE="1",
            PYSPARK_PYTHON=sys.executable,
        )

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = self.shared / f"{name}.log"
        proc = subprocess.Popen(
            argv, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=self.env, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        """Start the master (waited for) and the workers (all at once, not waited for: `wait_ready`)."""
        cls = str(self.home / "bin" / "spark-class")
        master = self._start(
            "master",
            [
                cls,
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--webui-port",
                str(free_port()),
            ],
        )
        wait_port(self.port, master, self.shared / "master.log")
        for n in range(1, self.workers + 1):
            # a private mount namespace with an empty tmpfs over the driver's temp dir
            stash = self.shared / f"stash{n}"
            stash.mkdir(exist_ok=True)
            worker = self._start(
                f"worker{n}",
                [
                    "unshare",
                    "--mount",
                    "sh",
                    "-c",
                    private_tmp(stash),
                    cls,
                    "org.apache.spark.deploy.worker.Worker",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(free_port()),
                    "--webui-port",
                    str(free_port()),
                    "--cores",
                    str(self.cores),
                    "--memory",
                    self.memory,
                    "--work-dir",
                    "/tmp/work",
                    self.url,
                ],
            )
            self._workers.append((worker, self.shared / f"worker{n}.log"))

    def wait_ready(self, seconds: float = 120) -> None:
        """Until every worker has registered with the master (RuntimeError if one exits or time runs out)."""
        deadline = time.monotonic() + seconds
        while (self.shared / "master.log").read_text().count("Registering worker") < self.workers:
            for proc, log in self._workers:
                if proc.poll() is not None:
                    raise RuntimeError(f"a worker exited {proc.returncode}: {log.read_text()[-2000:]}")
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


_BLOCKER = '''"""sitecustomize of a Python without kafkatui (the workers' interpreter in the cluster tests)."""
import sys
import zipimport


class _NoKafkatui:
    """`import kafkatui` finds only a zip on sys.path (what the job ships), never the checkout or venv."""

    def find_spec(self, name, path=None, target=None):
        if name != "kafkatui":
            return None
        for entry in sys.path:
            if entry.endswith(".zip"):
                try:
                    spec = zipimport.zipimporter(entry).find_spec(name)
                except Exception:
                    continue
                if spec is not None:
                    return spec
        raise ModuleNotFoundError("No module named 'kafkatui'", name=name)


sys.meta_path.insert(0, _NoKafkatui())
'''


def python_without_kafkatui(shared: Path) -> Path:
    """An interpreter (a wrapper of this one, on `shared`) that has pyspark but cannot import kafkatui
    unless it is shipped as a zip: what a real cluster's nodes have."""
    site = shared / "no-kafkatui"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(_BLOCKER)
    wrapper = shared / "python-without-kafkatui"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{site}${{PYTHONPATH:+:$PYTHONPATH}}" exec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper
