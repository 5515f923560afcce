"""No secret of a secured real cluster anywhere: a session on the secured lab, then every artefact searched.

The session: `check` over SASL_SSL/SCRAM from a profile (password_file) and `check --json` over mTLS with
an encrypted client key and librdkafka's debug logging on; `record` over OAUTHBEARER (OIDC tokens, for
both client libraries); `alter --write` and `--revert-last` over mTLS (audit records); logins that fail
(a wrong password, a wrong client secret, with `-X debug=all`); the dashboard (Pilot) over OAUTHBEARER,
logging to its file at DEBUG, with an SVG screenshot. Then stdout, stderr, every file under the home
(recordings decompressed, the audit log, kafkatui.log, the screenshot) and the brokers' own logs are
searched for every password, key password and client secret of the lab (and their base64), every token
its OIDC issuer signed, and the private keys' PEM bodies.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafkatui.lab.cluster import LabCluster
from tests.bad_input_cases import WRONG_SECRET
from tests.lab.support import create_topic
from tests.lab.test_security import _attempt, x_args

REPO = Path(__file__).resolve().parents[2]


def forbidden(lab: LabCluster) -> dict[str, str]:
    """Every form a secret of this lab could leak in."""
    assert lab.security is not None and lab.security.oidc is not None
    out: dict[str, str] = {}
    for path in sorted(lab.security.home.iterdir()):
        if path.name.endswith(("password", "secret")):
            secret = path.read_text().strip()
            out[path.name] = secret
            out[f"base64 of {path.name}"] = base64.b64encode(secret.encode()).decode()
        elif path.name.endswith(".key"):  # the longest line of a PEM body: 64 base64 characters of the key
            body = [line for line in path.read_text().splitlines() if line and not line.startswith("-----")]
            out[f"PEM body of {path.name}"] = max(body, key=len)
    out["wrong secret"] = WRONG_SECRET
    tokens = list(lab.security.oidc.issued)
    assert tokens, "the issuer signed tokens during the session"
    for i, token in enumerate(tokens):
        out[f"token {i}"] = token
        out[f"signature of token {i}"] = token.rsplit(".", 1)[1]
    return out


def read_all(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            with contextlib.suppress(OSError, EOFError):
                data = gzip.decompress(data)
        out[str(path)] = data.decode("utf-8", "replace")
    return out


def test_no_secret_of_a_secured_session_anywhere(
    secure_lab: LabCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab = secure_lab
    assert lab.security is not None
    vault = f"vault-{_attempt()}"
    create_topic(lab, vault, 2, rf=3, min_isr=2)
    home = tmp_path / "home"
    (home / ".config" / "kafkatui").mkdir(parents=True)
    wrong = tmp_path / "wrong.secret"  # the input itself, outside the searched home
    wrong.write_text(WRONG_SECRET + "\n")
    profiles = home / ".config" / "kafkatui" / "clusters.yaml"
    profiles.write_text("profiles:\n" + lab.security.profile_snippet("sasl_ssl") + "\n")
    profiles.chmod(0o600)
    state = home / ".local" / "state"
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(state),
        "KAFKATUI_AUDIT_LOG": str(state / "kafkatui" / "audit.jsonl"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "LANG": "C.UTF-8",
        "COLUMNS": "160",
    }
    outputs: dict[str, str] = {}

    def cli(name: str, *args: str, expect: tuple[int, ...] = (0, 1, 2)) -> None:
        proc = subprocess.run(
            [sys.executable, "-m", "kafkatui.cli", *args],
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=home,
        )
        outputs[f"{name} stdout"], outputs[f"{name} stderr"] = proc.stdout, proc.stderr
        assert proc.returncode in expect, (name, proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, (name, proc.stderr[-2000:])

    cli("check profile", "check", "--profile", "lab-sasl-ssl-admin", "--all")
    cli("check mtls --json", "check", *x_args(lab, "mtls"), "--json", "-X", "debug=security,broker,protocol")
    cli("record oauth", "record", *x_args(lab, "oauthbearer"), "--count", "2", "--interval", "0.5")
    alter = ("alter", "--topic", vault, "--set", "min.insync.replicas=1", *x_args(lab, "mtls"), "--write", "--yes")
    cli("alter mtls", *alter, expect=(0,))
    cli("revert mtls", "alter", "--revert-last", *x_args(lab, "mtls"), "--write", "--yes", expect=(0,))
    wrong_password = [a.replace(str(lab.security.path("admin.password")), str(wrong)) for a in x_args(lab, "sasl_ssl")]
    cli("wrong password", "check", *wrong_password, "-X", "debug=all", "--timeout", "5", expect=(7,))
    wrong_client = [
        a.replace(str(lab.security.path("admin.client-secret")), str(wrong)) for a in x_args(lab, "oauthbearer")
    ]
    cli("wrong client secret", "check", *wrong_client, "-X", "debug=all", "--timeout", "5", expect=(7,))

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    svg = dashboard(lab, home)
    assert vault in svg

    files = read_all(home)
    assert any(name.endswith(".events.jsonl.gz") for name in files), "record wrote history"
    assert "min.insync.replicas" in files[str(state / "kafkatui" / "audit.jsonl")]
    assert len(files[str(state / "kafkatui" / "kafkatui.log")].splitlines()) > 20
    broker_logs = {str(p): p.read_text(encoding="utf-8", errors="replace") for p in lab.root.glob("*/logs/*.log")}
    artefacts = {**outputs, **files, **broker_logs}
    leaks = [
        (where, what) for where, text in artefacts.items() for what, secret in forbidden(lab).items() if secret in text
    ]
    assert not leaks, leaks
    # the search is not vacuous: the artefacts name the users and the cluster's listeners
    assert any(vault in text for text in outputs.values())
    assert sum(lab.security.bootstrap("mtls").split(",")[0] in text for text in artefacts.values()) >= 2


def dashboard(lab: LabCluster, home: Path) -> str:
    """The dashboard over OAUTHBEARER, logging to its file at DEBUG with librdkafka's debug lines; an SVG."""
    from kafkatui.history.record.recorder import Recorder
    from kafkatui.kafka.profiles import resolve_connection
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.cmd import log_to_file
    from kafkatui.tui.feed import Feed

    args = x_args(lab, "oauthbearer")
    x = [args[i + 1] for i in range(2, len(args), 2)] + ["debug=security,broker,protocol"]
    conn = resolve_connection(bootstrap=args[1], x_options=x)
    debug_log = logging.getLogger("kafkatui.librdkafka.secure")
    debug_log.setLevel(logging.DEBUG)
    source = KafkaClusterSource(conn.settings, librdkafka_logger=debug_log)
    feed = Feed(source, bootstrap=conn.settings.bootstrap_servers, recorder=Recorder(home / "history"))
    app = KafkaTuiApp(feed, auto_refresh=False, source_label="secure", read_only=True)
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    assert log_to_file() is not None
    root.setLevel(logging.DEBUG)
    svg = ""

    async def main() -> None:
        nonlocal svg
        async with app.run_test(size=(140, 40)) as pilot:
            for _ in range(400):
                if app.state.snapshot is not None:
                    break
                await pilot.pause(0.05)
            assert app.state.snapshot is not None, app.state.error
            generation = app.state.generation
            await pilot.press("r")  # a second refresh: kafka-python (log dirs, keyed configs) runs too
            for _ in range(400):
                if app.state.generation > generation:
                    break
                await pilot.pause(0.05)
            assert app.state.error is None and not app.state.snapshot.problems
            svg = app.export_screenshot()

    try:
        asyncio.run(main())
    finally:
        feed.close()
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)
        debug_log.setLevel(logging.NOTSET)
    (home / "screenshot.svg").write_text(svg)
    return svg
