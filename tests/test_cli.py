"""The command line as a user meets it: bad input gets one line and a meaningful exit code.

Bad bootstrap servers, profiles, record directories and alter values are in tests/test_bad_input.py,
which also checks that no file of the user's changes.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.alter.support import assert_one_line_error, free_port, kafkatui


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["--nonsense"], 3, "unrecognized arguments"),
        (["check", "--bogus"], 3, "unrecognized arguments"),
        (["check", "--bootstrap", "a:1", "--timeout", "abc"], 3, "--timeout"),
        (["--demo", "no-such-scenario"], 3, "no-such-scenario"),
        (["sim", "--scenario", "no-such-scenario"], 3, "no-such-scenario"),
        (["sim", "--speed", "0"], 3, "--speed"),
    ],
)
def test_bad_input(args: list[str], code: int, fragment: str) -> None:
    assert_one_line_error(kafkatui(*args), code, fragment)


def test_bad_scenario_file_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntimeline:\n  - at: 5s\n    action: crash\n    broker: 9\n")
    before = bad.read_bytes()
    proc = kafkatui("sim", "--scenario", str(bad))
    assert_one_line_error(proc, 3, f"{bad}:5:", "broker")
    assert bad.read_bytes() == before  # nothing the user had is changed


def test_broken_yaml_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("name: x\ntimeline: [\n")
    assert_one_line_error(kafkatui("sim", "--scenario", str(bad)), 3, f"{bad}:", "invalid YAML")


def test_sim_ctl_without_a_simulator() -> None:
    assert_one_line_error(
        kafkatui("sim", "ctl", "--control-port", str(free_port()), "status"), 5, "no simulator control endpoint"
    )


def test_sim_port_in_use() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = kafkatui("sim", "--base-port", str(port), "--control-port", "0")
    assert_one_line_error(proc, 11, "port in use")


def test_unreachable_bootstrap_exits_5() -> None:
    proc = kafkatui("check", "--bootstrap", f"127.0.0.1:{free_port()}", "--timeout", "2")
    assert_one_line_error(proc, 5, "127.0.0.1")


def test_help_lists_subcommands() -> None:
    proc = kafkatui("--help")
    assert proc.returncode == 0
    assert "check" in proc.stdout and "sim" in proc.stdout and "--demo" in proc.stdout
