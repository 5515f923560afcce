"""Bad credentials and trust against a real secured broker: the SECURED rows of the bad-input table
(tests/bad_input_cases.py), each run as a user runs it (a subprocess in a temporary home, within the
table's memory limit), one line on stderr with a documented exit code, no secret, no traceback, in
bounded time. Also the host name check's opt-out, which works and says what it gives up."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kafkatui.lab.cluster import LabCluster
from tests.bad_input_cases import SECURED, WRONG_SECRET, Case
from tests.test_bad_input import assert_one_line, assert_unchanged, make_home, run_cli

BOUND = 30.0  # seconds: --timeout 5 plus one TLS probe, on a loaded machine


def secrets_of(lab: LabCluster) -> list[str]:
    assert lab.security is not None
    names = [p for p in lab.security.home.iterdir() if p.name.endswith(("password", "secret"))]
    return [p.read_text().strip() for p in names] + [WRONG_SECRET]


def subs(lab: LabCluster, home: Path) -> dict[str, str]:
    assert lab.security is not None
    sec = lab.security
    return {
        "home": str(home),
        "sec": str(sec.home),
        "token_url": sec.token_url,
        "ssl_port": sec.bootstrap("ssl").split(",")[0].rsplit(":", 1)[1],
        **{mode: sec.bootstrap(mode) for mode in sec.modes},
    }


@pytest.mark.parametrize("case", SECURED, ids=[c.id for c in SECURED])
def test_bad_credentials_and_trust(secure_lab: LabCluster, case: Case, tmp_path: Path) -> None:
    home = make_home(tmp_path)
    if case.setup is not None:
        case.setup(home)
    values = subs(secure_lab, home.root)
    before = home.hashes()
    started = time.monotonic()
    proc = run_cli(home, [a.format(**values) for a in case.args], timeout=BOUND + 30)
    took = time.monotonic() - started
    line = assert_one_line(proc.stderr, *(f.format(**values) for f in case.fragments))
    assert line.startswith("kafkatui: error:")
    assert proc.returncode == case.code, (proc.returncode, line)
    assert proc.stdout == ""
    assert took < BOUND, f"{case.id} took {took:.1f} s"
    for secret in secrets_of(secure_lab):
        assert secret not in proc.stderr + proc.stdout
    assert_unchanged(before, home.hashes())


def test_host_name_check_opt_out_works_and_warns(secure_lab: LabCluster, tmp_path: Path) -> None:
    home = make_home(tmp_path)
    values = subs(secure_lab, home.root)
    proc = run_cli(
        home,
        [
            "check", "--timeout", "5", "-b", f"localhost:{values['ssl_port']}", "-X", "security.protocol=SSL",
            "-X", f"ssl.ca.location={values['sec']}/ca.pem", "-X", "ssl.endpoint.identification.algorithm=none",
        ],
    )  # fmt: skip
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert proc.stderr.strip() == (
        "kafkatui: warning: ssl.endpoint.identification.algorithm=none: the brokers' host names are not checked "
        "against their certificates (any certificate from a trusted CA is accepted for any broker)"
    )
    assert "cluster" in proc.stdout
