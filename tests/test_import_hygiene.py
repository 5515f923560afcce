"""The model, the simulator, the history layer, the write paths and the lab never pull in the UI."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import kafkatui

CLIENT_HOMES = {"kafka", "sim", "lab"}
"""The kafkatui packages that may import confluent-kafka or kafka-python."""


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
        "kafkatui.sim.cmd",
        "kafkatui.history",
        "kafkatui.history.view.data",
        "kafkatui.history.replay.job",
        "kafkatui.history.replay.cmd",
        "kafkatui.check_cmd",
        "kafkatui.alter.cmd",
        "kafkatui.lab.cluster",
        "kafkatui.lab.cmd",
    ],
)
def test_no_textual(module: str) -> None:
    code = f"import sys, {module}; print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False", f"{module} imports textual"


def test_the_client_library_contract_covers_every_other_module() -> None:
    """A new kafkatui module or package is under the no-client-library contract unless it is a client home."""
    config = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "forbidden" and set(c["forbidden_modules"]) == {"confluent_kafka", "kafka"}
    )
    children = {f"kafkatui.{m.name}" for m in pkgutil.iter_modules(kafkatui.__path__)}
    assert set(contract["source_modules"]) == {c for c in children if c.removeprefix("kafkatui.") not in CLIENT_HOMES}


MAX_MODULE_LINES = 800


def test_no_module_is_over_800_lines() -> None:
    """A module past 800 lines holds more than one concern: split it along its seam (ARCHITECTURE.md)."""
    root = Path(kafkatui.__file__).parent
    long = {
        str(p.relative_to(root)): n
        for p in sorted(root.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"
