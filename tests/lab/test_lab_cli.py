"""`kafkatui lab` as a user runs it: start in the foreground, `lab ctl` from another process, Ctrl-C
or SIGTERM stops every JVM; missing tools give one line and an exit code of their own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkatui.lab.cluster import pid_alive
from kafkatui.lab.fetch import ensure_jars, libs_dir
from kafkatui.lab.versions import release
from tests.ci import in_ci
from tests.lab.support import ROOT, kafkatui


def java_pids_under(root: Path) -> list[int]:
    """Pids of java processes whose command line names `root` (the lab's JVMs)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"kafka.Kafka" in cmd and str(root).encode() in cmd:
            pids.append(int(proc.name))
    return pids


def test_lab_starts_serves_ctl_and_leaves_no_jvm_behind(tmp_path: Path) -> None:
    root = tmp_path / "lab"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatui.cli", "lab", "--dir", str(root), "--brokers", "2", "--racks", "x,y"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 240
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip())
            if line.startswith("bootstrap: "):
                break
        text = "\n".join(lines)
        if not any(ln.startswith("bootstrap: ") for ln in lines):
            msg = f"kafkatui lab did not become ready: {text}"
            if in_ci():
                pytest.fail(msg)
            pytest.skip(reason=f"{msg} (locally only; CI fails)")
        assert "replica.lag.time.max.ms=3000" in text and "broker.session.timeout.ms=6000" in text
        assert "topics: orders, payments, clickstream, audit-log" in text
        bootstrap = lines[-1].split(" ", 1)[1]
        assert len(bootstrap.split(",")) == 2 and all(b.startswith("127.0.0.1:") for b in bootstrap.split(","))
        for node in ("controller", "b1", "b2"):
            logs = root / node / "logs"
            assert (logs / "server.log").stat().st_size > 0 and (root / node / "pid").exists()
            assert (logs / "state-change.log").exists() and (logs / "controller.log").exists()
        status = kafkatui("lab", "ctl", "--dir", str(root), "status")
        assert status.returncode == 0 and "b2" in status.stdout and "rack y" in status.stdout, status.stdout
        hung = kafkatui("lab", "ctl", "--dir", str(root), "hang", "2")
        assert hung.returncode == 0 and "SIGSTOP" in hung.stdout
        back = kafkatui("lab", "ctl", "--dir", str(root), "restore", "b2")
        assert back.returncode == 0 and "SIGCONT" in back.stdout
        crashed = kafkatui("lab", "ctl", "--dir", str(root), "crash", "2")
        assert crashed.returncode == 0 and "SIGKILL" in crashed.stdout
        unknown = kafkatui("lab", "ctl", "--dir", str(root), "crash", "7")
        assert unknown.returncode == 33 and "no node '7'" in unknown.stderr and "Traceback" not in unknown.stderr
        load = kafkatui("lab", "ctl", "--dir", str(root), "load", "orders", "--seconds", "2", "--rate", "50")
        assert load.returncode == 0 and "load done" in load.stdout, load.stdout + load.stderr
        jvms = java_pids_under(root)
        assert len(jvms) == 2  # the controller and broker 1 (broker 2 was crashed)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(90) == 0
        assert not [p for p in jvms if pid_alive(p)], "every JVM stops with the lab"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in java_pids_under(root):
            os.kill(pid, signal.SIGKILL)
    gone = kafkatui("lab", "ctl", "--dir", str(root), "status")
    assert gone.returncode == 33 and "does not answer" in gone.stderr


def test_killed_lab_takes_its_jvms_with_it(tmp_path: Path) -> None:
    root = tmp_path / "lab"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatui.cli", "lab", "--dir", str(root), "--brokers", "1", "--no-topics"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("bootstrap: ") or "error" in line:
                break
        jvms = java_pids_under(root)
        assert len(jvms) == 2, line
        proc.kill()  # SIGKILL: no handler runs; the JVMs' parent-death signal does the work
        proc.wait()
        deadline = time.monotonic() + 30
        while any(pid_alive(p) for p in jvms) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [p for p in jvms if pid_alive(p)]
    finally:
        for pid in java_pids_under(root):
            os.kill(pid, signal.SIGKILL)


def test_missing_maven_or_java_is_one_line_and_its_own_exit_code(tmp_path: Path) -> None:
    empty_cache = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/nonexistent"}
    no_tools = kafkatui("lab", "--fetch-only", env=empty_cache)
    assert no_tools.returncode == 30, no_tools.stderr
    assert no_tools.stderr.count("\n") == 1 and "Traceback" not in no_tools.stderr
    assert "install" in no_tools.stderr
    java_dir = Path(sys.executable).parent  # python only: no java, no mvn
    bad_version = kafkatui("lab", "--version", "2.7", env={"PATH": str(java_dir)})
    assert bad_version.returncode == 3 and bad_version.stderr.count("\n") == 1
    assert all(v in bad_version.stderr for v in ("4.4", "3.9-zk", "2.8")), bad_version.stderr


@pytest.mark.parametrize(
    ("line", "binding"),
    [("4.4", "log4j-slf4j-impl-2.24.3.jar"), ("3.9", "slf4j-reload4j-1.7.36.jar"), ("2.8", "slf4j-log4j12-1.7.30.jar")],
)
def test_jars_are_cached_once_per_version(line: str, binding: str) -> None:
    rel = release(line)
    first = ensure_jars(rel)
    assert ensure_jars(rel) == first == libs_dir(rel) and (first / ".complete").exists()
    jars = {p.name for p in libs_dir(rel).glob("*.jar")}
    assert f"kafka_2.13-{rel.version}.jar" in jars and f"kafka-tools-{rel.version}.jar" in jars
    # exactly one SLF4J binding, SLF4J 1.7, as the tarball ships: otherwise no server.log at all
    bindings = sorted(j for j in jars if "slf4j" in j)
    assert bindings == sorted([binding, "slf4j-api-1.7.36.jar"]), bindings
    if rel.zookeeper or rel.line == "3.9":  # ZooKeeper's server comes with Kafka's own dependencies
        assert any(j.startswith("zookeeper-3.") for j in jars), sorted(jars)


def test_a_node_started_after_its_log_rolled_is_seen_ready(tmp_path: Path) -> None:
    """log4j rolls server.log hourly, on the first line after the hour: a broker crashed at 07:55 and
    restored at 08:02 writes its "started" line into a fresh server.log. Counting server.log alone, the
    count stayed 1 and `lab ctl restore` waited its whole 300 s (seen by hand); the rolled file counts."""
    from kafkatui.lab.cluster import STARTED, _count_logs

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "server.log").write_text(f"[07:55] INFO {STARTED} (kafka.server.KafkaRaftServer)\n")
    mark = _count_logs(logs, STARTED)  # at the spawn
    (logs / "server.log").rename(logs / "server.log.2026-11-28-07")  # the new JVM's first line rolls it
    (logs / "server.log").write_text(f"[08:02] INFO {STARTED} (kafka.server.KafkaRaftServer)\n")
    assert _count_logs(logs, STARTED) > mark
