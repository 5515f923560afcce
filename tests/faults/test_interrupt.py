"""Ctrl-C while the cluster hangs: one line and exit 130, never a traceback, and an end soon after."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable

from kafkatui.cli import EXIT_INTERRUPTED
from kafkatui.sim.runner import SimRunner
from tests.faults.simproc import ROOT
from tests.procs import sigint_as_at_a_terminal

TIMEOUT = 4.0


def test_ctrl_c_during_a_hung_check_is_one_line(sim_factory: Callable[..., SimRunner]) -> None:
    sim = sim_factory(3)
    for b in (1, 2, 3):
        sim.hang(b)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatui.cli", "check", "--bootstrap", sim.bootstrap, "--timeout", str(TIMEOUT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        time.sleep(2.0)  # connected, waiting on the hung brokers
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        out, err = proc.communicate(timeout=30)
        lingered = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == EXIT_INTERRUPTED
    assert err.strip().splitlines()[-1] == "kafkatui: interrupted"
    assert "Traceback" not in err
    # the process ends once the metadata request in flight gives up (each attempt gets half the timeout):
    # a librdkafka call cannot be interrupted, and its thread is joined at exit
    assert lingered <= TIMEOUT / 2 + 1.5, f"{lingered:.1f}s after Ctrl-C"
