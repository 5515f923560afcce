"""`kafkatui lab --version 2.8` as a user runs it: a ZooKeeper server and ZooKeeper-mode brokers, the
session timeout in the banner, `lab ctl status` naming the broker that is the controller, `crash controller`
crashing that broker, and every JVM (ZooKeeper's too) gone with a lab that was killed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkatui.lab.cluster import pid_alive
from tests.ci import in_ci
from tests.lab.support import ROOT, kafkatui


def lab_jvms(root: Path) -> list[int]:
    """Pids of the lab's JVMs (Kafka nodes and the ZooKeeper server) whose command line names `root`."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if (b"kafka.Kafka" in cmd or b"ZooKeeperServerMain" in cmd) and str(root).encode() in cmd:
            pids.append(int(proc.name))
    return pids


def test_zookeeper_lab_names_its_controller_and_dies_with_its_parent(tmp_path: Path) -> None:
    root = tmp_path / "lab"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatui.cli", "lab", "--version", "2.8", "--dir", str(root), "--brokers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip())
            if line.startswith("bootstrap: "):
                break
        text = "\n".join(lines)
        if not any(ln.startswith("bootstrap: ") for ln in lines):
            msg = f"kafkatui lab --version 2.8 did not become ready: {text}"
            if in_ci():
                pytest.fail(msg)
            pytest.skip(reason=f"{msg} (locally only; CI fails)")
        assert "Kafka 2.8.2 (ZooKeeper mode): ZooKeeper + 2 broker(s)" in text
        assert "zookeeper.session.timeout.ms=6000" in text and "broker.session.timeout.ms" not in text
        assert "topics: orders, payments, clickstream, audit-log" in text
        for node in ("b1", "b2"):  # Kafka's own log layout: what a replay of broker logs reads
            logs = root / node / "logs"
            assert (logs / "server.log").stat().st_size > 0
            assert (logs / "state-change.log").exists() and (logs / "controller.log").exists()
        jvms = lab_jvms(root)
        assert len(jvms) == 3, jvms  # ZooKeeper and two brokers

        status = kafkatui("lab", "ctl", "--dir", str(root), "status")
        assert status.returncode == 0, status.stderr
        assert re.search(r"^zookeeper +id 0 .* running", status.stdout, re.M), status.stdout
        ctrl = re.findall(r"^b(\d) .*\(broker, controller\)$", status.stdout, re.M)
        assert len(ctrl) == 1, status.stdout
        said = (root / f"b{ctrl[0]}" / "logs" / "controller.log").read_text(errors="replace")
        assert f"{ctrl[0]} successfully elected as the controller" in said

        crashed = kafkatui("lab", "ctl", "--dir", str(root), "crash", "controller")
        assert crashed.returncode == 0 and crashed.stdout.startswith(f"b{ctrl[0]} crashed (SIGKILL"), crashed.stdout
        assert len([p for p in jvms if pid_alive(p)]) == 2

        proc.kill()  # SIGKILL: no handler runs; the JVMs' parent-death signal does the work, ZooKeeper's too
        proc.wait()
        deadline = time.monotonic() + 30
        while any(pid_alive(p) for p in jvms) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [p for p in jvms if pid_alive(p)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in lab_jvms(root):
            os.kill(pid, signal.SIGKILL)
