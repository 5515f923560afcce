"""Helpers the elect and reassign tests share: a typed-into terminal, the audit log, the command line."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafkatui.sim.runner import SimRunner


class Tty(io.StringIO):
    """A terminal's stdin: confirmations typed by the test (`before_read` runs before each answer)."""

    def __init__(self, text: str, before_read: Callable[[], object] | None = None) -> None:
        super().__init__(text)
        self._before = before_read

    def isatty(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if self._before is not None:
            self._before()
        return super().readline(-1 if size is None else size)


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def sim_leaders(sim: SimRunner) -> dict[tuple[str, int], int]:
    """Every partition's leader as the simulator itself holds it."""
    return sim.call(lambda c: {(p.topic, p.index): p.leader for p in c.partitions()})


def kafkatui(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the real command line in a subprocess, stdin closed."""
    return subprocess.run([sys.executable, "-m", "kafkatui.cli", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def assert_one_line_error(proc: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    err = proc.stderr.strip()
    assert proc.returncode == code, (proc.returncode, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for f in fragments:
        assert f in err, err
