"""`kafkatui record`: record a cluster's ISR history headless, as a daemon (cron, systemd, tmux)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from kafkatui.argparsing import Parser, seconds, whole
from kafkatui.history.record.recorder import Recorder, RecorderError
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.options import add_connection_arguments, connection_from

EXIT_RECORDER = 17  # the history directory cannot be written


def default_history_dir() -> Path:
    """$XDG_STATE_HOME/kafkatui/history (~/.local/state/kafkatui/history)."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "kafkatui" / "history"


def writable_problem(directory: Path) -> str | None:
    """Why ISR history cannot be written into `directory` (created if missing), or None if it can.

    A directory that exists but refuses new files would otherwise fail at every snapshot.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create history directory {directory}: {exc.strerror or exc}"
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".kafkatui-write-test-"):
            pass
    except OSError as exc:
        return f"cannot write into history directory {directory}: {exc.strerror or exc}"
    return None


def _directory(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: name the history directory")
    return Path(text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--dir", type=_directory, default=None, help=f"history directory (default {default_history_dir()})")
    p.add_argument("--interval", type=seconds(86400), default=10.0, help="seconds between snapshots (default 10)")
    p.add_argument(
        "--retention-days", type=whole(0, 36500), default=7, help="delete days older than this (default 7; 0 keeps all)"
    )
    p.add_argument(
        "--count", type=whole(0, 10**12), default=0, help="stop after this many snapshots (default: run until stopped)"
    )


def run(ns: argparse.Namespace, stop: threading.Event | None = None) -> int:
    """Record until SIGINT/SIGTERM (or `--count` snapshots); returns the exit code."""
    from kafkatui.kafka.source import KafkaClusterSource

    def err(msg: str) -> None:
        sys.stderr.write(f"kafkatui: {msg}\n")
        sys.stderr.flush()

    if ns.interval <= 0 or ns.retention_days < 0 or ns.count < 0:
        err("error: --interval must be positive, --retention-days and --count at least 0")
        return 3
    try:
        conn = connection_from(ns)
    except KafkaTuiError as exc:
        err(f"error: {exc}")
        return exc.exit_code
    directory = ns.dir or default_history_dir()
    problem = writable_problem(directory)
    if problem is not None:
        err(f"error: {problem}")
        return EXIT_RECORDER
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
    recorder = Recorder(directory)
    source = KafkaClusterSource(conn.settings, log_dirs="none")
    taken = 0
    failed = 0  # snapshots (and gaps) that could not be written: the exit status says so
    first_problem: str | None = None
    shown: str | None = None  # a failure is printed once, again only when it changes or after a success
    last_prune = 0.0

    def write_failed(problem: str) -> None:
        nonlocal failed, first_problem, shown
        failed += 1
        first_problem = first_problem or problem
        if problem != shown:
            err(f"error: {problem} (retrying at each snapshot)")
        shown = problem

    err(f"recording {conn.profile or conn.settings.bootstrap_servers} into {directory} every {ns.interval:g}s")
    try:
        while not stop.is_set():
            started = time.monotonic()
            try:
                snapshot = source.snapshot()
            except KafkaTuiError as exc:
                recorder.record_failure(time.time(), str(exc))
                err(f"cluster unreachable, recorded as a gap: {exc}")
            else:
                try:
                    recorder.record(snapshot)
                except RecorderError as exc:
                    write_failed(str(exc))
                else:
                    if shown is not None:
                        err("recording again")
                    shown = None
            taken += 1
            if ns.count and taken >= ns.count:
                break
            if ns.retention_days and time.monotonic() - last_prune > 3600:
                last_prune = time.monotonic()
                try:
                    recorder.prune(ns.retention_days)
                except RecorderError as exc:
                    err(f"warning: {exc}")
            stop.wait(max(0.0, ns.interval - (time.monotonic() - started)))
    finally:
        source.close()
        try:
            recorder.close()  # stopped during an outage: the gap is written now
        except RecorderError as exc:
            write_failed(str(exc))
    if failed:
        err(f"error: {failed} of {taken} snapshot(s) or gaps not recorded: {first_problem}")
        return EXIT_RECORDER
    return 0


def main_record(argv: list[str]) -> int:
    p = Parser(
        prog="kafkatui record", description="Record a cluster's ISR history (JSON Lines, gzip, by day and hour)."
    )
    add_arguments(p)
    return run(p.parse_args(argv))
