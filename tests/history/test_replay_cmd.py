"""`kafkatui replay` as a user runs it: one end-to-end run in its own JVM, and the errors before Spark starts."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafkatui.history.replay.spark_session import find_java
from tests.ci import cannot_run
from tests.history import jvm
from tests.history import replay_days as rd

ROOT = Path(__file__).resolve().parents[2]


def kafkatui(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    full = dict(jvm.env(), PYTHONPATH=str(ROOT), COLUMNS="200", **(env or {}))  # C1 only: tests/history/jvm.py
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", "replay", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=timeout,
        cwd=ROOT,
    )


@pytest.mark.timeout(400)
def test_replay_end_to_end_prints_outputs_and_incidents(tmp_path: Path) -> None:
    if find_java() is None:
        cannot_run("no Java: PySpark needs a JDK 17+ (`make tools` installs it)")
    rd.write_recordings(tmp_path / "history")
    hostile = [
        {"v": 1, "type": "partition", "ts": "yesterday", "topic": "orders", "partition": 0, "leader": 1},
        {"v": 1, "type": "partition", "topic": "orders", "partition": 0, "leader": 1},
        {"v": 1, "type": "broker", "ts": "yesterday", "broker": 1, "op": "down"},
    ]
    hour = tmp_path / "history" / rd.DAY / "07.events.jsonl.gz"
    hour.write_bytes(
        hour.read_bytes()
        + gzip.compress("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in hostile).encode(), mtime=0)
    )
    out = tmp_path / "out"
    proc = kafkatui("--day", rd.DAY, "--history", str(tmp_path / "history"), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"outputs in {out}" in proc.stdout
    assert "02:13:44.120" in proc.stdout and "326.38" in proc.stdout and "3 at 02:13:30" in proc.stdout
    assert "1 at 23:57:30" in proc.stdout and "24:00:00.000" in proc.stdout
    # Spark stays quiet: nothing of its logging on the terminal, it is in OUT/spark.log
    assert "WARN" not in proc.stdout + proc.stderr and "INFO" not in proc.stdout + proc.stderr
    assert (out / "spark.log").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert [i["duration_s"] for i in summary["incidents"]] == [326.38, 119.75]
    assert summary["inputs"]["torn_lines"] == 3  # the three records whose time is no number: counted, never fatal


def test_an_unwritable_out_is_the_output_error_with_its_path(tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "history")
    (tmp_path / "file").write_text("x")
    for out in ("/proc/kafkatui-replay-out", str(tmp_path / "file" / "out"), str(tmp_path / "file")):
        proc = kafkatui("--day", rd.DAY, "--history", str(tmp_path / "history"), "--out", out)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 17, proc.stderr
        assert len(lines) == 1 and f"--out {out}:" in lines[0] and "spark.log" not in lines[0]


def test_a_foreign_directory_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "history")
    out = tmp_path / "mine"
    (out / "timeline").mkdir(parents=True)
    (out / "timeline" / "notes.txt").write_text("my notes")
    (out / "frames.csv").write_text("a,b")
    before = sorted((str(p), p.read_bytes() if p.is_file() else b"") for p in out.rglob("*"))
    proc = kafkatui("--day", rd.DAY, "--history", str(tmp_path / "history"), "--out", str(out))
    assert proc.returncode == 17
    assert proc.stderr.strip() == (
        f"kafkatui replay: error: --out {out}: not empty and not a replay directory "
        f"(frames.csv, timeline); give a new or empty directory (nothing in it was "
        f"changed)"
    )
    assert sorted((str(p), p.read_bytes() if p.is_file() else b"") for p in out.rglob("*")) == before


def test_no_java_is_one_line_naming_what_to_install(tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "history")
    proc = kafkatui(
        "--day",
        rd.DAY,
        "--history",
        str(tmp_path / "history"),
        "--out",
        str(tmp_path / "o"),
        env={"JAVA_HOME": str(tmp_path / "no-jdk")},
    )
    assert proc.returncode == 20
    assert proc.stderr.strip().splitlines() == [
        "kafkatui replay: error: Java not found: PySpark needs a JDK 17+ (Debian: apt-get install "
        "openjdk-17-jre-headless; `make tools` installs it), or set JAVA_HOME"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--day", "2026-11-31", "--history", "."], "--day must be a date as YYYY-MM-DD, got '2026-11-31'"),
        (["--day", "2026-11-20"], "give --history DIR and/or --broker-logs GLOB"),
        (["--day", "2026-11-20", "--history", "/nonexistent/h"], "--history /nonexistent/h: no such directory"),
        (["--day", "2026-11-20", "--history", ".", "--tz", "Mars/Olympus"], "--tz: unknown time zone 'Mars/Olympus'"),
    ],
)
def test_bad_arguments_exit_3_with_one_line(args: list[str], message: str) -> None:
    proc = kafkatui(*args)
    assert proc.returncode == 3
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_a_day_without_recordings_exits_3_naming_the_files_looked_for(tmp_path: Path) -> None:
    rd.write_recordings(tmp_path / "history")
    proc = kafkatui("--day", "2026-11-22", "--history", str(tmp_path / "history"))
    assert proc.returncode == 3
    assert proc.stderr.strip() == (
        f"kafkatui replay: error: no ISR history for 2026-11-22 (UTC): looked for "
        f"{tmp_path / 'history' / '2026-11-22' / 'HH.events.jsonl.gz'}"
    )
