"""Run kafkatui as a user does: a real process on a pseudo-terminal, read as text, driven by keys."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78]")


class PtyApp:
    """`python -m kafkatui.cli ARGS` on a pty of `cols` x `rows`; its output is kept as plain text."""

    def __init__(self, args: Sequence[str], home: Path, cols: int = 100, rows: int = 30) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_STATE_HOME": str(home / "state"),
            "TERM": "xterm-256color",
            "COLUMNS": str(cols),
            "LINES": str(rows),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kafkatui.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
        os.close(slave)
        self._fd = master
        self._raw = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._raw.extend(chunk)

    @property
    def raw(self) -> bytes:
        with self._lock:
            return bytes(self._raw)

    def text(self, since: int = 0) -> str:
        """Everything written from byte `since` on, without escape sequences."""
        return _ESCAPES.sub(b"", self.raw[since:]).decode("utf-8", "replace")

    def mark(self) -> int:
        """A position in the output, for `wait_for(..., since=mark)`."""
        return len(self.raw)

    def wait_for(self, needle: str, timeout: float, since: int = 0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.text(since):
                return True
            if self.proc.poll() is not None:
                time.sleep(0.2)
                return needle in self.text(since)
            time.sleep(0.1)
        return False

    def press(self, keys: str) -> None:
        os.write(self._fd, keys.encode())

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """Stop the process (its whole session, by pid) if it is still running, and the pty."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._reader.join(5)
