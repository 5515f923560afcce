"""Start `kafkatui replay` as a child process for the dashboard, follow its progress, cancel it.

The job never runs in the dashboard's interpreter: `Launch.start` runs ``python -m kafkatui.cli
replay ... --progress-lines`` in a new session (its own process group, which the driver's JVM joins),
reads its JSON progress lines (`kafkatui.history.replay.progress`) in a thread and hands each to a
callback; stderr goes to the job's log file. `Launch.cancel` ends the process group (SIGTERM, then
SIGKILL) and removes the run's output directory, so nothing half-written is left for `--replay`
to open. The child runs at a lower priority (nice 10), so the job never takes the CPU from the
dashboard's keys. No textual here.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from glob import has_magic
from pathlib import Path
from typing import IO, Any

DEFAULT_MASTER = "local[2]"
ERROR_PREFIX = "kafkatui replay: error: "
STOP_GRACE_S = 5.0
JOB_NICENESS = 10  # above the dashboard's: the job (and its JVM) yields the CPU to the keys


def state_dir() -> Path:
    """$XDG_STATE_HOME/kafkatui (~/.local/state/kafkatui)."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "kafkatui"


def new_output(day: date, base: Path | None = None, now: datetime | None = None) -> Path:
    """A new directory name per run: STATE/replays/DAY-at-HHMMSS (a suffix when taken)."""
    base = base or state_dir() / "replays"
    stamp = (now or datetime.now(UTC)).strftime("%H%M%S")
    out = base / f"{day.isoformat()}-at-{stamp}"
    n = 2
    while out.exists() or out.with_suffix(".log").exists():
        out = base / f"{day.isoformat()}-at-{stamp}-{n}"
        n += 1
    return out


@dataclass(frozen=True)
class LaunchSpec:
    """One replay as the launcher's fields give it."""

    day: date
    out: Path
    history: Path | None = None  # a recording directory
    broker_logs: tuple[str, ...] = ()  # broker-log globs
    master: str = DEFAULT_MASTER
    conf: tuple[tuple[str, str], ...] = ()
    until_ms: int | None = None  # today so far: replay up to here (when the recorder was flushed)

    @property
    def log(self) -> Path:
        """The job's own log (its stderr): beside OUT, so it outlives a cancelled run's OUT."""
        return self.out.with_name(self.out.name + ".log")

    def argv(self) -> list[str]:
        args = [sys.executable, "-m", "kafkatui.cli", "replay", "--day", self.day.isoformat(), "--out", str(self.out)]
        if self.history is not None:
            args += ["--history", str(self.history)]
        for g in self.broker_logs:
            args += ["--broker-logs", g]
        args += ["--master", self.master]
        for key, value in self.conf:
            args += ["--conf", f"{key}={value}"]
        if self.until_ms is not None:
            args += ["--until", str(self.until_ms)]
        return [*args, "--progress-lines"]


def split_sources(text: str) -> tuple[Path | None, tuple[str, ...], str | None]:
    """The launcher's Sources field (comma-separated): one recording directory and any broker-log
    globs; (history, globs, problem in one line or None)."""
    history: Path | None = None
    globs: list[str] = []
    for raw in (s.strip() for s in text.split(",")):
        if not raw:
            continue
        path = Path(raw).expanduser()
        if not has_magic(raw) and path.is_dir():
            if history is not None and path.resolve() != history.resolve():
                return None, (), f"one recording directory per replay ({history} and {path}); broker logs may be many"
            history = path
        elif has_magic(raw) or path.is_file():
            globs.append(str(path))
        else:
            return None, (), f"{raw}: no such directory or file (give a recording directory or a broker-log glob)"
    if history is None and not globs:
        return None, (), "give a recording directory or a broker-log glob"
    return history, tuple(globs), None


@dataclass
class Outcome:
    """How a job ended: `out` on success, else `error` (one line) and the log's path."""

    code: int
    out: Path | None = None
    error: str | None = None
    log: Path | None = None
    cancelled: bool = False
    incidents: int = 0


@dataclass
class Launch:
    """One running job. `on_line(dict)` gets each progress line, `on_end(Outcome)` the end (both on
    the reader thread)."""

    spec: LaunchSpec
    on_line: Callable[[dict[str, Any]], None]
    on_end: Callable[[Outcome], None]
    env: dict[str, str] | None = None
    proc: subprocess.Popen[str] | None = None
    jvm_pid: int | None = None
    started: float = field(default_factory=time.monotonic)
    _cancelled: bool = False
    _done: dict[str, Any] | None = None
    _thread: threading.Thread | None = None
    _cancel_done: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        """Start the child; OSError when it cannot be started (the log cannot be written)."""
        self.spec.out.parent.mkdir(parents=True, exist_ok=True)
        env = dict(self.env if self.env is not None else os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        with open(self.spec.log, "w", encoding="utf-8") as log:
            self.proc = subprocess.Popen(  # noqa: S603  # our own interpreter and arguments
                self.spec.argv(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=env,
                start_new_session=True,  # its own process group: the JVM is in it, cancel ends both
            )
        # before the child has imported enough to start its JVM, which inherits the priority (on a
        # quiet 2-core machine, keys during a local[2] job: median 81 ms at nice 0, 72 ms at +10)
        with contextlib.suppress(OSError, AttributeError):
            own = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, self.proc.pid, min(19, own + JOB_NICENESS))
        self._thread = threading.Thread(target=self._read, name="replay-launch", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stream: IO[str] = self.proc.stdout
        for raw in stream:
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # something else printed to stdout: the log has the story
            if not isinstance(line, dict):
                continue
            if line.get("kind") == "jvm" and isinstance(line.get("pid"), int):
                self.jvm_pid = line["pid"]
            elif line.get("kind") == "done":
                self._done = line
            with contextlib.suppress(Exception):  # a callback's bug must not leave the child unread
                self.on_line(line)
        code = self.proc.wait()
        if self._cancelled:  # the outcome waits until the JVM is gone and the output removed
            self._cancel_done.wait(4 * STOP_GRACE_S)
        self.on_end(self._outcome(code))

    def _outcome(self, code: int) -> Outcome:
        log = self.spec.log
        if self._cancelled:
            return Outcome(code, cancelled=True, log=log)
        if code == 0 and self._done is not None:
            return Outcome(0, out=self.spec.out, log=log, incidents=int(self._done.get("incidents") or 0))
        return Outcome(code, error=error_line(log, code), log=log)

    def cancel(self) -> None:
        """End the job and its JVM (the whole process group), then remove its output directory."""
        self._cancelled = True
        proc = self.proc
        try:
            if proc is None:
                return
            _kill_group(proc, STOP_GRACE_S)
            if self.jvm_pid is not None:
                _wait_gone(self.jvm_pid, STOP_GRACE_S)
            shutil.rmtree(self.spec.out, ignore_errors=True)
        finally:
            self._cancel_done.set()

    def wait(self, timeout: float | None = None) -> None:
        """Until the reader has handed over the outcome (tests, quitting)."""
        if self._thread is not None:
            self._thread.join(timeout)


def _kill_group(proc: subprocess.Popen[str], grace: float) -> None:
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        pgid = proc.pid  # the leader has exited; its group may still hold the JVM
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
        try:
            proc.wait(wait)
            if not _group_alive(pgid):
                return
        except subprocess.TimeoutExpired:
            continue
        deadline = time.monotonic() + wait
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _group_alive(pgid):
            return


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pid_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie not yet reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def error_line(log: Path, code: int) -> str:
    """The job's one-line error from its log (the last `kafkatui replay: error:` line), else the exit code."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    found = [ln[len(ERROR_PREFIX) :].strip() for ln in text.splitlines() if ln.startswith(ERROR_PREFIX)]
    if found:
        return found[-1]
    if code < 0:
        return f"the replay job was killed by signal {-code}"
    tail = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return f"the replay job exited with status {code}" + (f": {tail[-1][:200]}" if tail else "")
