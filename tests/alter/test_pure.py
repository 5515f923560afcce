"""Plan validation, risk lines, the durability wizard and both exports: no network."""

from __future__ import annotations

import shlex

import pytest
import yaml

from kafkatui.alter.export import kafka_configs_commands, strimzi_yaml
from kafkatui.alter.plan import ChangePlan, ConfigChange, build_plan, targets
from kafkatui.alter.risk import change_risks, preview, recommend, recommendation_changes
from kafkatui.kafka.errors import UsageError
from kafkatui.model.health import assess
from tests.model.builders import healthy, snap, topic


# ----------------------------------------------------------------------------- plan
def test_plan_sets_and_unsets_on_every_resource() -> None:
    plan = build_plan(
        targets(["orders", "payments"], [2], True), ["min.insync.replicas=2"], ["unclean.leader.election.enable"]
    )
    assert len(plan.changes) == 8  # 4 resources x 2 keys
    assert ConfigChange("broker", "2", "min.insync.replicas", "2") in plan.changes
    assert ConfigChange("broker-default", "", "unclean.leader.election.enable", None) in plan.changes
    assert list(plan.resources()) == [
        ("topic", "orders"),
        ("topic", "payments"),
        ("broker", "2"),
        ("broker-default", ""),
    ]


@pytest.mark.parametrize(
    ("sets", "unsets", "fragment"),
    [
        (["min.insync.replicas=abc"], [], "whole number"),
        (["min.insync.replicas=0"], [], ">= 1"),
        (["min.insync.replicas=-1"], [], "whole number"),
        (["unclean.leader.election.enable=yes"], [], "true or false"),
        (["replica.lag.time.max.ms=10000"], [], "static broker config"),
        ([], ["replica.lag.time.max.ms"], "static broker config"),
        (["retention.ms=1"], [], "does not alter"),
        (["min.insync.replicas"], [], "KEY=VALUE"),
        (["min.insync.replicas=2"], ["min.insync.replicas"], "more than once"),
        ([], [], "nothing to change"),
    ],
)
def test_bad_plans_are_refused(sets: list[str], unsets: list[str], fragment: str) -> None:
    with pytest.raises(UsageError, match=fragment):
        build_plan([("topic", "orders")], sets, unsets)


def test_values_are_normalised() -> None:
    plan = build_plan([("topic", "t")], ["unclean.leader.election.enable=TRUE", "min.insync.replicas= 02"])
    assert [c.value for c in plan.changes] == ["true", "2"]


# ----------------------------------------------------------------------------- risks
def _one(name: str, key: str, value: str | None, kind: str = "topic") -> ConfigChange:
    return ConfigChange(kind, name, key, value)


def test_raising_min_isr_above_the_current_isr() -> None:
    t = topic("orders", [(1, [1, 2, 3], [1, 2])] * 4 + [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="2")
    s = snap(t)
    risks = change_risks(s, _one("orders", "min.insync.replicas", "3"))
    assert (
        "raising min.insync.replicas to 3 on orders: 4 partitions have ISR 2 now, acks=all producers will fail at once"
    ) in risks
    assert "min.insync.replicas >= RF (3): any broker loss stops acks=all writes" in risks


def test_min_isr_above_rf_and_lowering_to_one() -> None:
    s = snap(healthy("orders", 3, rf=3, min_insync_replicas="2"))
    assert "min.insync.replicas > RF (3): every acks=all write fails" in change_risks(
        s, _one("orders", "min.insync.replicas", "4")
    )
    low = change_risks(s, _one("orders", "min.insync.replicas", "1"))
    assert low == ["lowering min.insync.replicas to 1: acks=all acknowledged by the leader alone"]
    assert change_risks(s, _one("orders", "min.insync.replicas", "2")) == []


def test_unclean_and_strimzi() -> None:
    s = snap(healthy("orders", 1), healthy("strimzi-store-topic", 1))
    assert change_risks(s, _one("orders", "unclean.leader.election.enable", "true")) == [
        "unclean.leader.election.enable=true: acknowledged data can be lost"
    ]
    assert change_risks(s, _one("orders", "unclean.leader.election.enable", "false")) == []
    assert any(
        r.startswith("managed by Strimzi: use the YAML export instead")
        for r in change_risks(s, _one("strimzi-store-topic", "min.insync.replicas", "1"))
    )
    assert any(
        r.startswith("managed by Strimzi")
        for r in change_risks(s, _one("orders", "min.insync.replicas", "1"), strimzi=True)
    )


def test_broker_default_change_names_topics_without_override() -> None:
    s = snap(healthy("orders", 2, rf=2), healthy("payments", 2, rf=3, min_insync_replicas="2"))
    risks = change_risks(s, _one("", "min.insync.replicas", "2", kind="broker-default"))
    assert risks == ["orders: min.insync.replicas >= RF (2): any broker loss stops acks=all writes"]


def test_preview_reports_current_value_and_source() -> None:
    s = snap(healthy("orders", 1, min_insync_replicas="2"), broker_configs={"min.insync.replicas": "1"})
    plan = ChangePlan((_one("orders", "min.insync.replicas", None),))
    (item,) = preview(plan, s, assess(s))
    assert (item.current.value, item.current.source) == ("2", "DYNAMIC_TOPIC_CONFIG")
    assert item.risks == ("lowering min.insync.replicas to 1: acks=all acknowledged by the leader alone",)


# ----------------------------------------------------------------------------- wizard
@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize("current_rf", [1, 2, 3, 4, 5])
def test_wizard_no_loss_through_n_failures(n: int, current_rf: int) -> None:
    rec = recommend(n, None, current_rf)
    # minISR n+1 (at least 2) and one more replica than that: never minISR 1 nor minISR == RF
    assert (rec.rf, rec.min_isr, rec.unclean) == (max(2, n + 1) + 1, max(2, n + 1), False)
    text = " ".join(rec.notes)
    if current_rf >= rec.rf:
        assert f"current RF {current_rf} is enough" in text and not rec.raise_rf_first
    else:
        assert rec.raise_rf_first and f"raise RF from {current_rf} to {rec.rf} first" in text


@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize("current_rf", [1, 2, 3, 4, 5])
def test_wizard_no_loss_and_writes_through_n_failures(n: int, current_rf: int) -> None:
    rec = recommend(n, n, current_rf)
    assert rec.min_isr == max(2, n + 1) and rec.rf == rec.min_isr + max(1, n) and not rec.unclean
    assert rec.rf - rec.min_isr >= n  # writes available through n failures
    assert rec.min_isr - 1 >= n  # acknowledged writes survive n failures


@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize("current_rf", [1, 2, 3, 4, 5])
def test_wizard_writes_only(n: int, current_rf: int) -> None:
    rec = recommend(None, n, current_rf)
    assert (rec.rf, rec.min_isr) == (2 + max(1, n), 2)


def test_wizard_one_failure_is_the_durable_triple_and_rf_goes_up_before_min_isr() -> None:
    for loss, writes in ((1, None), (None, 1), (1, 1), (0, None)):
        rec = recommend(loss, writes, 3)
        assert (rec.rf, rec.min_isr) == (3, 2)
    rec = recommend(1, 1, 2)
    assert (rec.rf, rec.min_isr) == (3, 2) and rec.raise_rf_first
    assert any(
        "raise RF from 2 to 3 first" in n and "any broker loss would stop acks=all writes" in n for n in rec.notes
    )
    # RF 2 topic: the plan waits for the reassignment; a no-op is not a change
    s = snap(
        healthy("pairs", 2, rf=2),
        healthy("orders", 2, rf=3),
        broker_configs={"unclean.leader.election.enable": "false"},
    )
    assert recommendation_changes(rec, ["pairs"], s).changes == ()
    assert recommendation_changes(rec, ["orders"], s).changes == (_one("orders", "min.insync.replicas", "2"),)
    # configs not read: the value in force is unknown, so the change stays
    unread = snap(healthy("orders", 2, rf=3, min_insync_replicas="2"))
    assert recommendation_changes(rec, ["orders"], unread).changes == (
        _one("orders", "unclean.leader.election.enable", "false"),
    )
    with pytest.raises(ValueError):
        recommend(None, None, 3)
    with pytest.raises(ValueError):
        recommend(-1, None, 3)


def test_lowering_min_isr_says_it_lowers_durability() -> None:
    s = snap(healthy("payments", 3, rf=3, min_insync_replicas="3"))
    assert change_risks(s, _one("payments", "min.insync.replicas", "2")) == [
        "lowering min.insync.replicas from 3 to 2 on payments: acknowledged acks=all writes then survive "
        "1 broker failure instead of 2 (less durable, more available)"
    ]


def test_kafka_configs_export_splits_and_names_the_values() -> None:
    plan = build_plan(targets(["orders"], [3], True), ["min.insync.replicas=2"], ["unclean.leader.election.enable"])
    cmds = [shlex.split(c) for c in kafka_configs_commands(plan, "k1:9092,k2:9092")]
    assert cmds[0] == [
        "kafka-configs.sh",
        "--bootstrap-server",
        "k1:9092,k2:9092",
        "--alter",
        "--entity-type",
        "topics",
        "--entity-name",
        "orders",
        "--add-config",
        "min.insync.replicas=2",
        "--delete-config",
        "unclean.leader.election.enable",
    ]
    assert cmds[1][4:8] == ["--entity-type", "brokers", "--entity-name", "3"]
    assert cmds[2][4:7] == ["--entity-type", "brokers", "--entity-default"]


def test_kafka_configs_export_quotes_odd_names() -> None:
    plan = build_plan([("topic", "a'b;rm")], ["min.insync.replicas=2"])
    (cmd,) = kafka_configs_commands(plan, "k:9092")
    assert shlex.split(cmd)[7] == "a'b;rm"


def test_strimzi_export_parses() -> None:
    plan = build_plan(targets(["orders"], [], False), ["min.insync.replicas=2", "unclean.leader.election.enable=false"])
    (doc,) = list(yaml.safe_load_all(strimzi_yaml(plan, "prod", "main")))
    assert doc["apiVersion"] == "kafka.strimzi.io/v1beta2" and doc["kind"] == "KafkaTopic"
    assert doc["metadata"] == {"name": "orders", "namespace": "prod", "labels": {"strimzi.io/cluster": "main"}}
    assert doc["spec"]["config"] == {"min.insync.replicas": 2, "unclean.leader.election.enable": False}


def test_strimzi_patch_for_deletes_and_broker_defaults() -> None:
    plan = build_plan(targets(["orders"], [], True), ["min.insync.replicas=2"], ["unclean.leader.election.enable"])
    text = strimzi_yaml(plan)
    topic_patch, kafka_patch = yaml.safe_load_all(text)
    assert topic_patch == {"spec": {"config": {"min.insync.replicas": 2, "unclean.leader.election.enable": None}}}
    assert kafka_patch == {
        "spec": {"kafka": {"config": {"min.insync.replicas": 2, "unclean.leader.election.enable": None}}}
    }
    patch_lines = [ln[2:] for ln in text.splitlines() if ln.startswith("# kubectl")]
    assert shlex.split(patch_lines[0])[:4] == ["kubectl", "patch", "kafkatopic", "orders"]
    with pytest.raises(UsageError, match="per-broker"):
        strimzi_yaml(build_plan([("broker", "1")], ["min.insync.replicas=2"]))


def test_alter_never_imports_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys, kafkatui.alter.cmd, kafkatui.alter.audit, kafkatui.alter.export; "
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
