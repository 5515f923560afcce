"""The suite cannot go green by skipping: with CI set, a test whose tool is missing fails, naming it.

Each case runs one real test of the suite in a child pytest, with CI=true and a PATH from which one tool
was taken away (every other command is still there), and expects a failure that names the tool.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "java": ("tests/history/test_replay_job.py::test_under_min_isr_interval_is_exact_to_the_millisecond", "no Java"),
    "kcat": ("tests/integration/test_sim_clients.py::test_kcat_metadata_json", "kcat is not installed"),
    "openssl": (
        "tests/test_connection_errors.py::test_untrusted_certificate_is_a_tls_error",
        "openssl is not installed",
    ),
}


def _path_without(tool: str, bindir: Path) -> str:
    """A PATH of one directory holding links to every command on the real PATH except `tool`."""
    bindir.mkdir()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not d or not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            link = bindir / name
            if name == tool or link.exists() or link.is_symlink():
                continue
            link.symlink_to(os.path.join(d, name))
    return str(bindir)


@pytest.mark.parametrize("tool", sorted(CASES))
def test_a_missing_tool_fails_the_run_in_ci(tool: str, tmp_path: Path) -> None:
    target, why = CASES[tool]
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYTEST_ADDOPTS")}
    env.update(CI="true", PATH=_path_without(tool, tmp_path / "bin"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:rerunfailures", target],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"the run passed without {tool}:\n{out[-2000:]}"
    assert why in out, out[-2000:]
    assert " skipped" not in out.splitlines()[-1], out[-2000:]
