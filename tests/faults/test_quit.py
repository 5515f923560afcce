"""Quitting the dashboard while the cluster hangs: the prompt comes back at once, not after --timeout."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kafkatui.sim.runner import SimRunner
from tests.faults.simproc import ROOT

TIMEOUT = 8.0


def _drain(fd: int, seen: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        seen.extend(chunk)


def test_q_during_a_hang_exits_promptly(sim_factory: Callable[..., SimRunner], tmp_path: Path) -> None:
    sim = sim_factory(3)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafkatui.cli",
            "--bootstrap",
            sim.bootstrap,
            "--timeout",
            str(TIMEOUT),
            "--refresh",
            "1",
            "--no-record",
        ],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=env,
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    seen = bytearray()
    reader = threading.Thread(target=_drain, args=(master, seen), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while b"brokers" not in seen and time.monotonic() < deadline:  # the first snapshot is on screen
            time.sleep(0.1)
        assert b"brokers" in seen, "the dashboard never drew"
        for b in (1, 2, 3):
            sim.hang(b)
        time.sleep(2.5)  # a refresh is now stuck on the hung brokers for up to TIMEOUT / 2
        os.write(master, b"q")
        asked = time.monotonic()
        proc.wait(timeout=30)
        took = time.monotonic() - asked
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 0
    assert b"Traceback" not in seen
    assert took < 3.5, f"the prompt came back {took:.1f}s after q"
