"""The model, the simulator, the history layer, the write paths and the lab never pull in the UI."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "kafkatui.model.health",
        "kafkatui.model.findings",
        "kafkatui.model.whatif",
        "kafkatui.model.changes",
        "kafkatui.sim.cluster",
        "kafkatui.sim.server",
        "kafkatui.sim.runner",
        "kafkatui.sim.console",
        "kafkatui.history",
        "kafkatui.history.replay_data",
        "kafkatui.history.replay_job",
        "kafkatui.history.replay_cmd",
        "kafkatui.check",
        "kafkatui.alter.cli",
        "kafkatui.lab.cluster",
        "kafkatui.lab.console",
    ],
)
def test_no_textual(module: str) -> None:
    code = f"import sys, {module}; print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False", f"{module} imports textual"
