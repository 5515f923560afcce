"""`kafkatui alter` end to end against the simulator: refusals, validation, apply, verify, audit, revert."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafkatui.alter import revert
from kafkatui.alter.apply import ConfigAlterer
from kafkatui.alter.cmd import main_alter
from kafkatui.alter.plan import ChangePlan, ConfigChange
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot, ConfigValue
from kafkatui.sim.runner import SimRunner
from tests.alter.support import Tty

MIN_ISR = "min.insync.replicas"


pytestmark = pytest.mark.usefixtures("audit_log")  # the shared fixture in tests/conftest.py


@pytest.fixture
def cluster(sim: SimRunner) -> SimRunner:
    sim.call(lambda c: c.create_topic("orders", 4, 3))
    sim.call(lambda c: c.create_topic("payments", 2, 3))
    return sim


def snapshot(sim: SimRunner) -> ClusterSnapshot:
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap), log_dirs="none", elr=False) as src:
        return src.snapshot()


def topic_value(sim: SimRunner, topic: str, key: str = MIN_ISR) -> tuple[str | None, str]:
    cv = snapshot(sim).topic_config(topic, key)
    return cv.value, cv.source


def records(path: Path) -> list[dict[str, Any]]:
    """The outcome records (intents left out: `intents` has them)."""
    return [r for r in all_records(path) if r.get("record") != "intent"]


def all_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def intents(path: Path) -> list[dict[str, Any]]:
    return [r for r in all_records(path) if r.get("record") == "intent"]


def alter(sim: SimRunner, *args: str, stdin: io.StringIO | None = None) -> int:
    return main_alter(["--bootstrap", sim.bootstrap, *args], stdin=stdin)


# ----------------------------------------------------------------------------- refusals
def test_read_only_refusal(cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--yes") == 12
    err = capsys.readouterr().err.strip()
    assert err.startswith("kafkatui: error: kafkatui is read-only") and "--write" in err and "writes: true" in err
    assert len(err.splitlines()) == 1
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")
    assert not audit_log.exists()


def test_profile_with_writes_true_allows_changes(
    cluster: SimRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = tmp_path / "clusters.yaml"
    profiles.write_text(f"profiles:\n  sim:\n    bootstrap: {cluster.bootstrap}\n    writes: true\n")
    profiles.chmod(0o600)
    monkeypatch.setenv("KAFKATUI_PROFILES", str(profiles))
    assert main_alter(["--profile", "sim", "--topic", "orders", "--set", "min.insync.replicas=2", "--yes"]) == 0
    assert topic_value(cluster, "orders") == ("2", "DYNAMIC_TOPIC_CONFIG")


def test_dry_run_changes_nothing(cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--dry-run") == 0
    out = capsys.readouterr().out
    assert (
        "1 (DEFAULT_CONFIG)" in out and "validate-only: the brokers accept" in out and "dry run: nothing changed" in out
    )
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")
    assert not audit_log.exists()


def test_bad_value_is_refused_before_the_network(capsys: pytest.CaptureFixture[str]) -> None:
    # nothing listens on port 1: a connection attempt would fail with 5, not 3
    assert (
        main_alter(
            ["--bootstrap", "127.0.0.1:1", "--topic", "orders", "--set", "min.insync.replicas=abc", "--write", "--yes"]
        )
        == 3
    )
    assert "min.insync.replicas must be a whole number" in capsys.readouterr().err
    assert (
        main_alter(
            ["--bootstrap", "127.0.0.1:1", "--broker-default", "--set", "replica.lag.time.max.ms=5000", "--write"]
        )
        == 3
    )
    assert "static broker config" in capsys.readouterr().err


def test_unknown_key_shows_the_brokers_invalid_config_verbatim(cluster: SimRunner) -> None:
    plan = ChangePlan((ConfigChange("topic", "orders", MIN_ISR, "2"), ConfigChange("topic", "orders", "foo.bar", "1")))
    alterer = ConfigAlterer(ConnectionSettings(cluster.bootstrap))
    try:
        (result,) = alterer.send(plan, validate_only=True)
    finally:
        alterer.close()
    assert result.error == "INVALID_CONFIG: Unknown topic config name: foo.bar"
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")


def test_validate_only_failure_from_the_cli_changes_nothing(
    cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    # an audit record naming a key the broker does not know: --revert-last sends it, the broker refuses
    audit_log.write_text(
        json.dumps(
            {
                "cluster_id": cluster.cluster.cluster_id,
                "command_id": "x",
                "resource": {"kind": "topic", "name": "orders"},
                "key": "foo.bar",
                "before": {"value": "1", "source": "DYNAMIC_TOPIC_CONFIG"},
                "after": {"value": None, "source": "ASSUMED_DEFAULT"},
                "result": "ok",  # what the cluster holds: revertible
            }
        )
        + "\n"
    )
    assert alter(cluster, "--revert-last", "--write", "--yes") == 13
    captured = capsys.readouterr()
    assert "refused  topic orders: INVALID_CONFIG: Unknown topic config name: foo.bar" in captured.out
    assert "nothing changed" in captured.err
    assert len(records(audit_log)) == 1


def test_nonexistent_topic_refuses_the_whole_change(cluster: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        alter(cluster, "--topic", "orders", "--topic", "nope", "--set", "min.insync.replicas=2", "--write", "--yes")
        == 13
    )
    out = capsys.readouterr().out
    assert "refused  topic nope: UNKNOWN_TOPIC_OR_PART: Topic 'nope' does not exist" in out
    assert "refused  topic orders" not in out
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")


# ----------------------------------------------------------------------------- confirmation
def test_typed_confirmation(cluster: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--topic", "orders", "--set", "min.insync.replicas=2", "--write")
    assert alter(cluster, *args, stdin=io.StringIO("orders\n")) == 14  # not a terminal, no --yes
    assert "stdin is not a terminal" in capsys.readouterr().err
    assert alter(cluster, *args, stdin=Tty("order\n")) == 14
    assert "does not match 'orders'" in capsys.readouterr().err
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")
    assert alter(cluster, *args, stdin=Tty("orders\n")) == 0
    assert "type the topic name" in capsys.readouterr().err
    assert topic_value(cluster, "orders") == ("2", "DYNAMIC_TOPIC_CONFIG")


# ----------------------------------------------------------------------------- apply and verify
def test_success_is_verified_and_audited(
    cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    assert (
        alter(
            cluster,
            "--topic",
            "orders",
            "--topic",
            "payments",
            "--set",
            "min.insync.replicas=2",
            "--set",
            "unclean.leader.election.enable=false",
            "--write",
            "--yes",
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "ok      topic orders min.insync.replicas: 1 (DEFAULT_CONFIG) -> 2 (DYNAMIC_TOPIC_CONFIG)" in out
    assert "4 of 4 changes applied and verified" in out
    assert topic_value(cluster, "payments") == ("2", "DYNAMIC_TOPIC_CONFIG")
    assert topic_value(cluster, "orders", "unclean.leader.election.enable") == ("false", "DYNAMIC_TOPIC_CONFIG")
    recs = records(audit_log)
    assert len(recs) == 4
    first = recs[0]
    assert first["resource"] == {"kind": "topic", "name": "orders"} and first["key"] == MIN_ISR
    assert first["before"] == {"value": "1", "source": "DEFAULT_CONFIG"}
    assert first["after"] == {"value": "2", "source": "DYNAMIC_TOPIC_CONFIG"}
    assert first["result"] == "ok" and first["cluster_id"] == cluster.cluster.cluster_id
    assert first["user"] and str(first["time"]).endswith("+00:00")
    assert len({r["command_id"] for r in recs}) == 1


def test_one_topic_deleted_before_apply_is_reported_exactly(
    cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    deleted: list[bool] = []

    def delete_once() -> None:
        if not deleted:
            cluster.call(lambda c: c.delete_topic("payments"))
            deleted.append(True)

    # deleted while the user types: shown before the second confirmation, which the user gives
    stdin = Tty("2\n2\n", before_read=delete_once)
    assert (
        alter(
            cluster,
            "--topic",
            "orders",
            "--topic",
            "payments",
            "--set",
            "min.insync.replicas=2",
            "--write",
            stdin=stdin,
        )
        == 15
    )
    captured = capsys.readouterr()
    assert (
        "! the cluster changed since the preview (someone else changed it):\n!   topic payments was deleted"
        in captured.out
    )
    assert "ok      topic orders min.insync.replicas" in captured.out
    assert "FAILED  topic payments min.insync.replicas: UNKNOWN_TOPIC_OR_PART" in captured.out
    assert "1 of 2 changes applied and verified" in captured.out
    assert "kafkatui: error: 1 of 2 changes failed: topic payments" in captured.err
    assert topic_value(cluster, "orders") == ("2", "DYNAMIC_TOPIC_CONFIG")
    results = {r["resource"]["name"]: r["result"] for r in records(audit_log)}  # type: ignore[index]
    assert results["orders"] == "ok" and str(results["payments"]).startswith("UNKNOWN_TOPIC_OR_PART")


# ----------------------------------------------------------------------------- revert
def test_revert_removes_an_override_that_was_not_there(cluster: SimRunner, audit_log: Path) -> None:
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--write", "--yes") == 0
    (change,) = revert.history(revert.CONFIG, None, audit_log)
    assert revert.config_plan(change) == ChangePlan((ConfigChange("topic", "orders", MIN_ISR, None),))
    assert alter(cluster, "--revert-last", "--write", stdin=Tty("orders\n")) == 0
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")


def test_revert_restores_the_previous_override(cluster: SimRunner, audit_log: Path) -> None:
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--write", "--yes") == 0
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=3", "--write", "--yes") == 0
    assert alter(cluster, "--revert-last", "--write", "--yes") == 0
    assert topic_value(cluster, "orders") == ("2", "DYNAMIC_TOPIC_CONFIG")
    assert len(records(audit_log)) == 3


def test_broker_default_change_and_revert(cluster: SimRunner) -> None:
    assert alter(cluster, "--broker-default", "--set", "min.insync.replicas=2", "--write", "--yes") == 0
    assert topic_value(cluster, "orders") == ("2", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    assert alter(cluster, "--revert-last", "--write", stdin=Tty("default\n")) == 0
    assert topic_value(cluster, "orders")[1] != "DYNAMIC_DEFAULT_BROKER_CONFIG"


def test_per_broker_change(cluster: SimRunner) -> None:
    assert alter(cluster, "--broker", "2", "--set", "unclean.leader.election.enable=true", "--write", "--yes") == 0
    cv = snapshot(cluster).broker_configs[2]["unclean.leader.election.enable"]
    assert cv == ConfigValue("true", "DYNAMIC_BROKER_CONFIG")


def test_nothing_to_revert(cluster: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    assert alter(cluster, "--revert-last", "--write", "--yes") == 16
    assert "no successful change" in capsys.readouterr().err


# ----------------------------------------------------------------------------- risks, exports, secrets
def test_preview_warns_when_the_isr_is_already_below_the_new_min_isr(
    sim_factory: Callable[..., SimRunner], capsys: pytest.CaptureFixture[str]
) -> None:
    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("orders", 4, 3, configs={MIN_ISR: "2"}))
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[3].fenced, 15)
    assert sim.wait_for(lambda c: all(len(p.isr) == 2 for p in c.topic("orders").partitions), 15)
    assert alter(sim, "--topic", "orders", "--set", "min.insync.replicas=3", "--dry-run") == 0
    out = capsys.readouterr().out
    assert (
        "! raising min.insync.replicas to 3 on orders: 4 partitions have ISR 2 now, "
        "acks=all producers will fail at once"
    ) in out
    assert "! min.insync.replicas >= RF (3): any broker loss stops acks=all writes" in out


def test_exports_change_nothing(cluster: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--export", "kafka-configs") == 0
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert "--add-config" in line and "min.insync.replicas=2" in line and cluster.bootstrap in line
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--export", "strimzi") == 0
    assert "kind: KafkaTopic" in capsys.readouterr().out
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")


def test_no_secret_in_the_audit_log(cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    secret = "S3cr3t-Pa55w0rd-xyz"
    args = ("-X", f"sasl.password={secret}", "-X", "sasl.username=ops", "--topic", "orders")
    assert alter(cluster, *args, "--set", "min.insync.replicas=2", "--write", "--yes") == 0
    assert alter(cluster, *args, "--set", "min.insync.replicas=3", "--write", "--yes") == 0
    assert alter(cluster, "--revert-last", "--write", "--yes") == 0
    text = audit_log.read_text()
    assert len(records(audit_log)) == 3 and secret not in text
    captured = capsys.readouterr()
    assert secret not in captured.out and secret not in captured.err


# ----------------------------------------------------------------------------- history and revert rules
def test_history_revert_n_and_compare_and_set(
    cluster: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    assert alter(cluster, "--topic", "orders", "--set", "min.insync.replicas=2", "--write", "--yes") == 0
    assert alter(cluster, "--topic", "payments", "--set", "min.insync.replicas=2", "--write", "--yes") == 0
    capsys.readouterr()
    assert alter(cluster, "--history") == 0  # read-only: no --write needed
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("  1  ") and "topic payments min.insync.replicas 1 -> 2" in lines[0]
    assert "topic orders min.insync.replicas 1 -> 2" in lines[1]
    # --revert 2 undoes the older change only
    assert alter(cluster, "--revert", "2", "--write", "--yes") == 0
    assert topic_value(cluster, "orders") == ("1", "DEFAULT_CONFIG")
    assert topic_value(cluster, "payments") == ("2", "DYNAMIC_TOPIC_CONFIG")
    # someone else changes payments: --revert-last refuses, names the difference and the command
    cluster.call(lambda c: c.alter_configs(("topic", "payments"), [(MIN_ISR, 0, "3")], False))
    capsys.readouterr()
    assert alter(cluster, "--revert-last", "--write", "--yes") == 22
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert (
        "topic payments min.insync.replicas is 3 (DYNAMIC_TOPIC_CONFIG) now, that change left 2 "
        "(DYNAMIC_TOPIC_CONFIG); nothing changed. To set it back anyway: kafkatui alter --bootstrap "
        f"{cluster.bootstrap} --topic payments --unset min.insync.replicas --write"
    ) in err
    assert topic_value(cluster, "payments") == ("3", "DYNAMIC_TOPIC_CONFIG")
    # --revert 1 is the undo of orders: undoing it re-applies orders' change, a new change in the history
    assert alter(cluster, "--revert", "1", "--write", "--yes") == 0
    assert topic_value(cluster, "orders") == ("2", "DYNAMIC_TOPIC_CONFIG")
    capsys.readouterr()
    assert alter(cluster, "--history") == 0
    history = capsys.readouterr().out.splitlines()
    assert len(history) == 4 and "(re-applied)" in history[0] and "(revert) [undone]" in history[1]
    assert alter(cluster, "--revert", "9", "--write", "--yes") == 16
    assert "no change number 9" in capsys.readouterr().err
