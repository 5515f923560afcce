"""No secret anywhere: a full session against a SASL simulator, then every artefact is searched.

The session is what an on-call engineer does with a profile whose password comes from an
environment variable: `check` (tables, and --json with librdkafka debug logging on), `record`
for a few polls, the dashboard (Pilot) with a refresh and a screenshot, `alter --dry-run` and an
applied change (an audit record), and logins that fail (a wrong password from the environment,
and one given with -X). HOME, the XDG directories and the audit log are in a temporary home.
Afterwards stdout, stderr, every file under that home (gzip recordings decompressed), the
screenshot and the JSON are searched for the password, its base64 and the PLAIN token; and for the
broker's own secrets (a keystore password and a JAAS config), which Kafka and the simulator report
as sensitive with no value.
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
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[2]
USER = "ops"
PASSWORD = "Sesame-9f3a1c-test-pw"
WRONG = "Wrong-77d2e0-test-pw"
KEYSTORE_SECRET = "Keystore-b41d-secret"
JAAS_SECRET = "Jaas-c0ffee-secret"
ENV_VAR = "KAFKATUI_TEST_SASL_PASSWORD"


def forbidden() -> dict[str, str]:
    """Every form a secret could leak in."""
    out: dict[str, str] = {}
    for name, secret in {
        "password": PASSWORD,
        "wrong password": WRONG,
        "keystore password": KEYSTORE_SECRET,
        "jaas secret": JAAS_SECRET,
    }.items():
        out[name] = secret
        out[f"base64 of {name}"] = base64.b64encode(secret.encode()).decode()
    out["PLAIN token"] = base64.b64encode(f"\0{USER}\0{PASSWORD}".encode()).decode()
    return out


@pytest.fixture(scope="module")
def sasl_sim() -> Iterator[SimRunner]:
    static = {
        "broker.session.timeout.ms": "1500",
        "ssl.keystore.password": KEYSTORE_SECRET,
        "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'password="{JAAS_SECRET}";',
    }
    with SimRunner(
        brokers=3,
        static_configs=static,
        security={"protocol": "SASL_PLAINTEXT", "users": {USER: PASSWORD}, "mechanisms": ["SCRAM-SHA-256", "PLAIN"]},
    ) as sim:
        sim.call(lambda c: c.create_topic("orders", 3, 3, configs={"min.insync.replicas": "2"}))
        yield sim


def write_home(root: Path, bootstrap: str) -> dict[str, str]:
    """A home with a profile whose password comes from ENV_VAR; returns the environment."""
    config = root / ".config" / "kafkatui"
    config.mkdir(parents=True)
    profiles = config / "clusters.yaml"
    profiles.write_text(
        "profiles:\n"
        "  sim:\n"
        f"    bootstrap: {bootstrap}\n"
        "    security_protocol: SASL_PLAINTEXT\n"
        "    sasl_mechanism: SCRAM-SHA-256\n"
        f"    sasl_username: {USER}\n"
        f"    password_env: {ENV_VAR}\n"
        "    timeout: 6\n"
        "  plain:\n"
        f"    bootstrap: {bootstrap}\n"
        "    security_protocol: SASL_PLAINTEXT\n"
        "    sasl_mechanism: PLAIN\n"
        f"    sasl_username: {USER}\n"
        f"    password_env: {ENV_VAR}\n"
        "    timeout: 6\n"
    )
    profiles.chmod(0o600)
    state = root / ".local" / "state"
    return {
        "HOME": str(root),
        "XDG_CONFIG_HOME": str(root / ".config"),
        "XDG_STATE_HOME": str(state),
        "KAFKATUI_AUDIT_LOG": str(state / "kafkatui" / "audit.jsonl"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "LANG": "C.UTF-8",
        "COLUMNS": "160",
        ENV_VAR: PASSWORD,
    }


def read_all(root: Path) -> dict[str, str]:
    """Every file under `root` as text, gzip members decompressed (what a user or attacker could read)."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            with contextlib.suppress(OSError, EOFError):  # damaged: searched as it is
                data = gzip.decompress(data)
        out[str(path.relative_to(root))] = data.decode("utf-8", "replace")
    return out


def test_no_secret_in_any_artefact_of_a_full_session(
    sasl_sim: SimRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    env = write_home(home, sasl_sim.bootstrap)
    outputs: dict[str, str] = {}

    def cli(name: str, *args: str, expect: tuple[int, ...] = (0, 1, 2), **more_env: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "kafkatui.cli", *args],
            capture_output=True,
            text=True,
            timeout=90,
            stdin=subprocess.DEVNULL,
            env={**env, **more_env},
            cwd=home,
        )
        outputs[f"{name} stdout"], outputs[f"{name} stderr"] = proc.stdout, proc.stderr
        assert proc.returncode in expect, (name, proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, (name, proc.stderr[-2000:])
        return proc.stdout

    tables = cli("check", "check", "--profile", "sim", "--all")
    assert "orders" in tables
    doc = cli("check --json", "check", "--profile", "plain", "--json", "-X", "debug=security,broker,protocol")
    assert '"schema"' in doc and "orders" in doc
    cli("record", "record", "--profile", "sim", "--count", "3", "--interval", "0.3")
    cli(
        "alter --dry-run",
        "alter",
        "--profile",
        "sim",
        "--topic",
        "orders",
        "--set",
        "min.insync.replicas=1",
        "--dry-run",
        expect=(0,),
    )
    cli(
        "alter --write",
        "alter",
        "--profile",
        "sim",
        "--topic",
        "orders",
        "--set",
        "min.insync.replicas=1",
        "--write",
        "--yes",
        expect=(0,),
    )
    cli("wrong password", "check", "--profile", "sim", expect=(7,), **{ENV_VAR: WRONG})
    assert "SASL authentication" in outputs["wrong password stderr"]
    cli(
        "wrong password -X", "check", "--profile", "sim", "-X", f"sasl.password={WRONG}", "-X", "debug=all", expect=(7,)
    )

    screenshot = run_dashboard(home, env, monkeypatch)
    outputs["dashboard screenshot"] = screenshot
    assert "orders" in screenshot and screenshot.count("<svg") == 2

    files = read_all(home)
    recordings = [name for name in files if name.endswith(".events.jsonl.gz")]
    assert recordings and any('"v":1' in files[name] for name in recordings)
    audit = files[".local/state/kafkatui/audit.jsonl"]
    assert "min.insync.replicas" in audit and "orders" in audit
    log = files[".local/state/kafkatui/kafkatui.log"]
    assert "SASL" in log and len(log.splitlines()) > 50  # librdkafka's debug lines of the SASL handshake are in it
    artefacts = {**outputs, **{f"file {name}": text for name, text in files.items()}}
    leaks = [
        (where, what) for where, text in artefacts.items() for what, secret in forbidden().items() if secret in text
    ]
    assert not leaks, leaks
    # the search is not vacuous: the artefacts do name the user and the cluster
    assert any(USER in text for text in artefacts.values())
    assert sum(sasl_sim.bootstrap.split(",")[0] in text for text in artefacts.values()) >= 3


def run_dashboard(home: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The dashboard on the profile, logging to its file at DEBUG, with one refresh; returns SVG screenshots of the
    overview and of broker 1's screen."""
    from kafkatui.history.record.recorder import Recorder
    from kafkatui.kafka.profiles import resolve_connection
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.cmd import log_to_file
    from kafkatui.tui.feed import Feed

    for key in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "KAFKATUI_AUDIT_LOG", ENV_VAR):
        monkeypatch.setenv(key, env[key])
    logging.getLogger("kafkatui.librdkafka.test").setLevel(logging.DEBUG)
    conn = resolve_connection(profile="sim", x_options=["debug=security,broker,protocol"])  # librdkafka talks a lot
    source = KafkaClusterSource(
        conn.settings, log_dirs="out-of-sync", librdkafka_logger=logging.getLogger("kafkatui.librdkafka.test")
    )
    recorder = Recorder(Path(env["XDG_STATE_HOME"]) / "kafkatui" / "history")
    feed = Feed(source, bootstrap=conn.settings.bootstrap_servers, recorder=recorder)
    app = KafkaTuiApp(feed, auto_refresh=False, source_label="sim", read_only=True)
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    log_path = log_to_file()
    root.setLevel(logging.DEBUG)
    assert log_path is not None and log_path.is_relative_to(home)
    logging.getLogger("kafkatui").info("dashboard session for %s as %s", conn.settings.bootstrap_servers, USER)
    svg = ""

    async def main() -> None:
        nonlocal svg
        async with app.run_test(size=(140, 40)) as pilot:
            for _ in range(300):
                if app.state.snapshot is not None:
                    break
                await pilot.pause(0.05)
            assert app.state.snapshot is not None, app.state.error
            generation = app.state.generation
            await pilot.press("r")
            for _ in range(300):
                if app.state.generation > generation:
                    break
                await pilot.pause(0.05)
            assert app.state.generation > generation and app.state.error is None
            svg = app.export_screenshot()
            app.open_broker(1)  # the broker screen: its configs and their sources
            await pilot.pause(0.2)
            assert type(app.screen).__name__ == "BrokerScreen"
            svg += app.export_screenshot()

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
        logging.getLogger("kafkatui.librdkafka.test").setLevel(logging.NOTSET)
    (home / "screenshot.svg").write_text(svg)
    return svg


def test_the_broker_reports_its_own_secrets_as_sensitive_without_a_value(sasl_sim: SimRunner) -> None:
    """What kafkatui masks comes masked from the cluster already, as Kafka sends it."""
    admin = AdminClient(
        {
            "bootstrap.servers": sasl_sim.bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-256",
            "sasl.username": USER,
            "sasl.password": PASSWORD,
        }
    )
    (future,) = admin.describe_configs([ConfigResource(ResourceType.BROKER, "1")]).values()
    entries = future.result(timeout=10)
    for key in ("ssl.keystore.password", "sasl.jaas.config"):
        entry = entries[key]
        assert entry.is_sensitive and entry.value is None, (key, entry)
    assert entries["min.insync.replicas"].value is not None and not entries["min.insync.replicas"].is_sensitive


def test_kafkatui_keeps_a_sensitive_flag_and_never_its_value() -> None:
    """A config the cluster flags as sensitive becomes a value-less ConfigValue, even if a broker sent one."""
    from types import SimpleNamespace

    from kafkatui.kafka.source import BROKER_CONFIG_KEYS, _config_values

    leaked = SimpleNamespace(value="sent-by-a-careless-broker", is_sensitive=True, is_read_only=False, source=4)
    plain = SimpleNamespace(value="2", is_sensitive=False, is_read_only=False, source=4)
    values = _config_values({"broker.rack": leaked, "min.insync.replicas": plain}, BROKER_CONFIG_KEYS)
    assert values["broker.rack"].value is None and values["broker.rack"].sensitive
    assert values["min.insync.replicas"].value == "2"
