"""`kafkatui check` end to end: the simulator's scenarios read through the real Kafka source."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafkatui.check_cmd import main_check
from kafkatui.sim.runner import SimRunner


def check_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main_check([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_healthy_scenario_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = check_json(capsys, "--demo", "healthy", "--at", "30s")
    assert code == 0
    assert doc["summary"]["verdict"] == "healthy"
    assert doc["summary"]["under_min_isr"] == 0 and doc["summary"]["offline"] == 0
    assert doc["summary"]["brokers_up"] == doc["summary"]["brokers_total"] == 3
    assert not [f for f in doc["findings"] if f["severity"] != "info"]


def test_two_brokers_down_is_critical_and_names_the_topics(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = check_json(capsys, "--demo", "two-brokers-down", "--at", "2m")
    assert code == 2
    s = doc["summary"]
    assert s["verdict"] == "critical" and s["under_min_isr"] > 0
    assert sorted(s["brokers_absent"]) == [2, 3]
    ids = [f["id"] for f in doc["findings"]]
    assert "under-min-isr" in ids
    under = [f for f in doc["findings"] if f["id"] == "under-min-isr"]
    assert {"orders", "payments"} <= {t for f in under for t in f["resources"]["topics"]}
    # the commands an operator can paste
    assert any("--under-min-isr-partitions" in c for f in under for c in f["commands"])


def test_the_top_finding_names_the_broker_missing_from_every_isr(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = check_json(capsys, "--demo", "broker-missing-from-isrs", "--at", "5m")
    assert code >= 1
    top = doc["findings"][0]
    assert top["root_cause"] is True
    assert top["resources"]["brokers"] == [3]
    assert "3" in top["title"]
    (b3,) = [b for b in doc["brokers"] if b["id"] == 3]
    assert b3["up"] and b3["missing_from_all_isrs"]


def test_min_isr_above_rf_is_critical_while_every_broker_is_up(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = check_json(capsys, "--demo", "min-isr-above-rf", "--at", "30s")
    assert code == 2
    assert doc["summary"]["brokers_up"] == doc["summary"]["brokers_total"]
    f = next(f for f in doc["findings"] if f["id"] == "min-isr-above-rf")
    assert f["resources"]["topics"] == ["invoices"]
    assert any("kafka-configs.sh" in c and "invoices" in c for c in f["commands"])


def test_non_preferred_leaders_get_a_preferred_election_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = check_json(capsys, "--demo", "non-preferred-leaders", "--at", "7m")
    assert doc["summary"]["non_preferred_leader"] > 0
    assert code == 1 or any(f["severity"] == "critical" for f in doc["findings"]) is False
    cmds = [c for f in doc["findings"] for c in f["commands"]]
    assert any("kafka-leader-election.sh" in c and "PREFERRED" in c for c in cmds)


def test_dev_settings_beside_prod_are_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    _, doc = check_json(capsys, "--demo", "dev-cluster", "--at", "1m")
    ids = {f["id"] for f in doc["findings"]}
    assert ids & {"rf-one", "dev-settings-on-prod", "unclean-enabled"}


def test_topic_filter_and_what_if(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = check_json(capsys, "--demo", "healthy", "--at", "10s", "--topic", "^orders$", "--what-if-down", "1,2")
    assert [t["name"] for t in doc["topics"]] == ["orders"]
    wi = doc["what_if"]
    assert wi["down"] == [1, 2] and not wi["safe"]
    assert wi["under_min_isr"] or wi["offline"]
    assert code == 0  # a what-if never changes the verdict


def test_tables_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    code = main_check(["--demo", "two-brokers-down", "--at", "2m"])
    out = capsys.readouterr().out
    assert code == 2
    assert "CRITICAL" in out and "Brokers" in out and "Topics, worst first" in out
    assert "ABSENT" in out  # status words, not colour alone
    assert "kafka-topics.sh" in out


def test_check_against_a_live_simulator(sim: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    sim.call(lambda c: c.create_topic("orders", 6, 3, configs={"min.insync.replicas": "2"}))
    code, doc = check_json(capsys, "--bootstrap", sim.bootstrap)
    assert code == 0
    assert doc["cluster"]["id"] == sim.cluster.cluster_id
    (t,) = [t for t in doc["topics"] if t["name"] == "orders"]
    assert t["min_isr"] == 2 and t["min_isr_source"] == "DYNAMIC_TOPIC_CONFIG"
    sim.crash(2)
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[2].fenced and c.brokers[3].fenced, 15)
    code, doc = check_json(capsys, "--bootstrap", sim.bootstrap)
    assert code == 2
    assert doc["summary"]["under_min_isr"] == 6


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["--topic", "("], 3, "regular expression"),
        (["--what-if-down", "a,b"], 3, "broker ids"),
        (["--demo", "no-such-scenario"], 3, "no-such-scenario"),
        (["--bootstrap", "host:99999"], 3, "99999"),
        ([], 3, "--bootstrap"),
    ],
)
def test_bad_input_one_line_and_exit_code(
    capsys: pytest.CaptureFixture[str], args: list[str], code: int, fragment: str
) -> None:
    assert main_check(args) == code
    err = capsys.readouterr().err.strip()
    assert err.startswith("kafkatui: error:") and fragment in err
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err
