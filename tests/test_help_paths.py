"""`--help` names the history directory kafkatui really records into (issue 26: it said
~/.local/state/kafkatui/history while $XDG_STATE_HOME was set and used)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def help_of(*args: str, env_state: Path | None) -> str:
    import os

    env = {k: v for k, v in os.environ.items() if k != "XDG_STATE_HOME"}
    if env_state is not None:
        env["XDG_STATE_HOME"] = str(env_state)
    env["COLUMNS"] = "300"
    kafkatui = str(Path(sys.executable).parent / "kafkatui")
    return subprocess.run([kafkatui, *args, "--help"], capture_output=True, text=True, env=env, check=True).stdout


def test_help_names_the_history_directory_under_xdg_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kafkatui.history.record.cmd import default_history_dir

    state = tmp_path / "state"
    out = help_of(env_state=state)
    assert f"record into {state}/kafkatui/history" in out and ".local/state" not in out
    assert f"(default {state}/kafkatui/history)" in help_of("record", env_state=state)
    assert "record into ~/.local/state/kafkatui/history" in help_of(env_state=None)
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    assert default_history_dir() == state / "kafkatui" / "history"  # where it records, as --help says
