"""`kafkatui check` as people read it: piped to a file (full width), and `--brief` (about ten lines)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kafkatui.check_cmd import main_check


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    """check in a child process whose stdout is a pipe (not a terminal), as `check > report.txt` is."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", "check", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_piped_tables_are_not_cut_at_80_columns() -> None:
    done = run_check("--demo")  # the incident, 6 minutes in: broker 2 down, partitions offline
    assert done.returncode == 2, done.stderr
    out = done.stdout
    # every topic row whole: names, status words and the last column
    rows = [ln for ln in out.splitlines() if "search-indexing" in ln and ("offline" in ln or "minISR" in ln)]
    assert rows, out[:2000]
    assert "…" not in rows[0] and "design 1 · now offline" in rows[0]
    assert max(len(ln) for ln in out.splitlines()) > 80
    assert "eu-west-1a" in out and "eu-west-…" not in out


def test_brief_is_about_ten_lines_with_the_verdict_and_top_findings(capsys: pytest.CaptureFixture[str]) -> None:
    code = main_check(["--demo", "two-brokers-down", "--at", "2m", "--brief"])
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert code == 2
    assert lines[0].startswith("verdict CRITICAL")
    assert len(lines) <= 12
    assert any(ln.startswith("offline ") and "under minISR" in ln for ln in lines)
    assert any(ln.startswith("findings:") for ln in lines)
    assert sum(1 for ln in lines if ln.lstrip().startswith(("1.", "2.", "3."))) >= 2
    assert "kafka-topics.sh" not in out  # commands are for the full report
