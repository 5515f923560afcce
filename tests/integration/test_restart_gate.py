"""`check --wait-restart-safe` and `check --roll-plan` against the simulator, through the real Kafka source:
every exit code (0 safe, 24 deadline, 25 cannot become safe, 3 bad input), the progress it prints while it
waits, and the roll plan's order and blockers. The real rolling restart is tests/lab/test_rolling_restart.py."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kafkatui.check_gate import EXIT_CANNOT, EXIT_DEADLINE
from kafkatui.sim.runner import SimRunner


@pytest.fixture
def sim() -> Iterator[SimRunner]:
    runner = SimRunner(brokers=3, racks=["r1", "r2", "r3"], static_configs={"broker.session.timeout.ms": "1500"})
    runner.start()
    try:
        runner.call(lambda c: c.create_topic("orders", 6, 3, configs={"min.insync.replicas": "2"}))
        yield runner
    finally:
        runner.stop()


def kafkatui(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", *args], capture_output=True, text=True, timeout=timeout
    )


def gate(sim: SimRunner, *args: str) -> subprocess.CompletedProcess[str]:
    return kafkatui("check", "--bootstrap", sim.bootstrap, "--timeout", "5", "--wait-restart-safe", *args)


def doc_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(proc.stdout)  # one JSON document on stdout, whatever stderr says
    return doc


def test_a_healthy_cluster_is_safe_at_once(sim: SimRunner) -> None:
    proc = gate(sim, "2", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = doc_of(proc)
    assert doc["outcome"] == "safe" and doc["safe"] and doc["reads"] == 1
    assert doc["partitions_on_broker"] == 6 and doc["not_safe"] == 0
    assert doc["quorum"]["kind"] == "zookeeper" and doc["quorum"]["healthy"]  # the simulator names its controller
    assert doc["dashboard_restart_safe"] is True


def test_an_rf1_topic_on_the_broker_cannot_become_safe(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("scratch", assignment={0: [2]}, configs={"min.insync.replicas": "1"}))
    start = time.monotonic()
    proc = gate(sim, "2", "--wait-timeout", "5m")
    assert proc.returncode == EXIT_CANNOT, proc.stderr
    assert time.monotonic() - start < 60  # it said so at once instead of waiting out the 5 minutes
    assert "cannot be restarted safely however long you wait" in proc.stdout
    assert "scratch-0" in proc.stdout and "RF 1" in proc.stdout
    assert "--topic scratch --rf 2" in proc.stdout  # the fix, as a command
    doc = doc_of(gate(sim, "2", "--json"))
    assert doc["outcome"] == "cannot-become-safe" and doc["exit_code"] == EXIT_CANNOT
    assert [p["partition"] for p in doc["partitions"] if p["cannot_become_safe"]] == ["scratch-0"]
    # broker 1 holds no replica of it: its restart is safe
    assert gate(sim, "1").returncode == 0


def test_min_isr_equal_to_rf_and_a_headroom_rf_cannot_give_are_hopeless(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("ledger", 2, 2, configs={"min.insync.replicas": "2"}))
    doc = doc_of(gate(sim, "1", "--json", "--topic", "^ledger$"))
    assert doc["outcome"] == "cannot-become-safe"
    # RF 3 / min ISR 2 has one replica to spare: --headroom 1 asks for two
    doc = doc_of(gate(sim, "1", "--json", "--topic", "^orders$", "--headroom", "1"))
    assert doc["outcome"] == "cannot-become-safe"
    assert {p["needed"] for p in doc["partitions"]} == {3}
    assert gate(sim, "1", "--topic", "^orders$").returncode == 0


def test_a_broker_kept_out_of_the_isr_meets_the_deadline(sim: SimRunner) -> None:
    sim.crash(3)
    assert sim.wait_for(lambda c: all(3 not in p.isr for p in c.topic("orders").partitions), 20)
    start = time.monotonic()
    proc = gate(sim, "1", "--wait-timeout", "3s")
    took = time.monotonic() - start
    assert proc.returncode == EXIT_DEADLINE, proc.stderr
    assert 3 <= took < 30
    assert "still not safe after 3s" in proc.stdout
    # progress on stderr, plain lines off a terminal: how many, the worst with its ISR, the time left
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("kafkatui: waiting:")]
    assert lines, proc.stderr
    assert "partition(s) not yet safe" in lines[0] and "ISR [" in lines[0] and "left" in lines[0]
    assert "broker 3 down" in lines[0]
    doc = doc_of(gate(sim, "1", "--wait-timeout", "2s", "--json"))
    assert doc["outcome"] == "deadline" and doc["exit_code"] == EXIT_DEADLINE
    assert doc["reads"] >= 2 and doc["not_safe"] > 0
    worst = doc["partitions"][0]
    assert worst["in_sync_without_broker"] == 1 and worst["needed"] == 2
    assert any(r["broker"] == 3 and not r["up"] for r in worst["out_of_sync"])


def test_the_wait_ends_when_the_broker_is_back_in_sync(sim: SimRunner) -> None:
    sim.crash(3)
    assert sim.wait_for(lambda c: all(3 not in p.isr for p in c.topic("orders").partitions), 20)
    cmd = ["check", "--bootstrap", sim.bootstrap, "--timeout", "5", "--wait-restart-safe", "1", "--json"]
    waiter = subprocess.Popen(
        [sys.executable, "-m", "kafkatui.cli", *cmd, "--wait-timeout", "90s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert waiter.stderr is not None
        first = waiter.stderr.readline()  # the gate is waiting: it said what for
        assert first.startswith("kafkatui: waiting: broker 1:"), first
        sim.restore(3)
        out, _ = waiter.communicate(timeout=120)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert waiter.returncode == 0
    doc = json.loads(out)
    assert doc["outcome"] == "safe" and doc["reads"] >= 2 and doc["not_safe"] == 0


def test_roll_plan_orders_racks_controller_last_and_names_blockers(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("ledger", 2, 2, configs={"min.insync.replicas": "2"}))
    controller = sim.call(lambda c: c.controller_id)
    proc = kafkatui("check", "--bootstrap", sim.bootstrap, "--roll-plan", "--json")
    assert proc.returncode == EXIT_CANNOT, proc.stderr
    doc = json.loads(proc.stdout)
    order = [s["broker"] for s in doc["steps"]]
    assert sorted(order) == [1, 2, 3] and order[-1] == controller
    assert doc["steps"][-1]["controller"] is True
    assert all(f"--wait-restart-safe {s['broker']}" in s["wait"] for s in doc["steps"])
    (cannot,) = [b for b in doc["blockers"] if b["kind"] == "cannot"]
    assert cannot["topics"] == ["ledger"] and "min.insync.replicas 2" in cannot["what"]
    assert any("--rf 3" in c for c in cannot["commands"])
    text = kafkatui("check", "--bootstrap", sim.bootstrap, "--roll-plan")
    assert "CANNOT ROLL SAFELY: topic ledger" in text.stdout
    assert f"broker {controller} (rack " in text.stdout and "controller, last" in text.stdout
    # leaving the topic out (as an operator accepting its blocked writes would): nothing blocks
    ok = kafkatui("check", "--bootstrap", sim.bootstrap, "--roll-plan", "--topic", "^orders$")
    assert ok.returncode == 0, ok.stdout
    assert "Nothing blocks the roll today." in ok.stdout and "--topic '^orders$'" in ok.stdout


def test_roll_plan_on_a_demo_scenario() -> None:
    proc = kafkatui("check", "--demo", "two-brokers-down", "--at", "2m", "--roll-plan", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode in (1, EXIT_CANNOT)
    assert any(b["kind"] == "waits" and "down now" in b["what"] for b in doc["blockers"])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--wait-restart-safe", "1", "--wait-timeout", "soon"], "not a duration"),
        (["--wait-restart-safe", "1", "--wait-timeout", "0s"], "more than 0"),
        (["--wait-restart-safe", "x"], "whole number"),
        (["--wait-restart-safe", "1", "--headroom", "-1"], "between"),
        (["--wait-timeout", "5m"], "only applies to --wait-restart-safe"),
        (["--headroom", "1"], "only applies to --wait-restart-safe and --roll-plan"),
        (["--wait-restart-safe", "1", "--roll-plan"], "give one"),
        (["--wait-restart-safe", "1", "--demo"], "--demo is frozen"),
    ],
)
def test_bad_input_is_one_line_and_exit_3(args: list[str], says: str) -> None:
    proc = kafkatui("check", "--bootstrap", "127.0.0.1:1", *args)
    assert proc.returncode == 3
    assert says in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_unknown_broker_is_bad_input(sim: SimRunner) -> None:
    proc = gate(sim, "9")
    assert proc.returncode == 3
    assert "no such broker in the cluster (brokers: 1, 2, 3)" in proc.stderr
