"""Writes killed at each step (``$KAFKATUI_TEST_DIE_AT``: before-send, after-send, verify) with SIGKILL.

Each scenario function takes only a bootstrap list and an audit log path, and talks to the cluster through
the real command line and the real clients: the simulator's tests set the cluster up; the same functions can
be pointed at a real Kafka cluster (`kafkatui lab`) with the same topics.

What each shows: an audit record exists for every change the cluster took (the intent, settled by the next
run with one line saying what happened), and ``--revert-last`` then undoes exactly that change or refuses.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kafkatui.alter.journal import DIE_ENV
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.runner import SimRunner
from tests.alter.support import intents, offline_cluster, racked_cluster, records, skewed_cluster

UNCLEAN = "unclean.leader.election.enable"
MIN_ISR = "min.insync.replicas"
STEPS = ["before-send", "after-send", "verify"]


def run(log: Path, *args: str, die_at: str | None = None, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """The real command line in a subprocess, the audit log at `log`, killed at `die_at`."""
    env = {k: v for k, v in os.environ.items() if k not in (DIE_ENV, "KAFKATUI_PROFILES")}
    env["KAFKATUI_AUDIT_LOG"] = str(log)
    if die_at is not None:
        env[DIE_ENV] = die_at
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def snapshot(bootstrap: str) -> ClusterSnapshot:
    with KafkaClusterSource(ConnectionSettings(tuple(bootstrap.split(","))), log_dirs="none", elr=False) as src:
        return src.snapshot()


def killed(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stderr)


def warnings(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("kafkatui: warning: an earlier")]


def settled(log: Path, command_id: str) -> list[dict[str, object]]:
    return [r for r in records(log) if r["command_id"] == command_id]


# ----------------------------------------------------------------------------- scenarios (any bootstrap)
def alter_killed(bootstrap: str, log: Path, step: str) -> None:
    """Topics orders and payments at their defaults: orders minISR 2 is applied, then unclean election on
    payments is killed at `step`; the next run reports it, `--revert-last` undoes payments (or, when it
    never reached the cluster, orders) and nothing else."""
    b = ("--bootstrap", bootstrap)
    assert run(log, "alter", *b, "--topic", "orders", "--set", f"{MIN_ISR}=2", "--write", "--yes").returncode == 0
    killed(run(log, "alter", *b, "--topic", "payments", "--set", f"{UNCLEAN}=true", "--write", "--yes", die_at=step))
    took = step != "before-send"
    assert snapshot(bootstrap).topic_config("payments", UNCLEAN).value == ("true" if took else "false")
    (intent,) = [i for i in intents(log) if i["changes"][0]["resource"]["name"] == "payments"]
    assert intent["changes"][0]["before"] == {"value": "false", "source": "DEFAULT_CONFIG"}
    assert settled(log, intent["command_id"]) == []  # the run died before its outcome

    proc = run(log, "alter", *b, "--revert-last", "--write", "--yes")
    assert proc.returncode == 0, proc.stderr
    (line,) = warnings(proc)
    want = "applied, not verified by that run" if took else "not applied"
    assert line.startswith(f"kafkatui: warning: an earlier alter of topic payments was interrupted: {want} (by ")
    (rec,) = settled(log, intent["command_id"])
    assert rec["outcome"] == ("applied" if took else "not applied") and rec["recovered"] is True
    snap = snapshot(bootstrap)
    if took:  # exactly the interrupted change is undone; the older one stays
        assert snap.topic_config("payments", UNCLEAN).source == "DEFAULT_CONFIG"
        assert (snap.topic_config("orders", MIN_ISR).value, snap.topic_config("orders", MIN_ISR).source) == (
            "2",
            "DYNAMIC_TOPIC_CONFIG",
        )
    else:  # the cluster never took it: the newest change it took is the one undone
        assert snap.topic_config("payments", UNCLEAN).value == "false"
        assert snap.topic_config("orders", MIN_ISR).source == "DEFAULT_CONFIG"
    again = run(log, "alter", *b, "--revert-last", "--dry-run")
    assert warnings(again) == []  # settled once


def elect_killed(bootstrap: str, log: Path, step: str) -> None:
    """Some partitions off their preferred leader: `elect --preferred --all` killed at `step`; the next run
    records every partition the cluster moved."""
    b = ("--bootstrap", bootstrap)
    before = {(t, p.partition): p.leader for t, i in snapshot(bootstrap).topics.items() for p in i.partitions}
    killed(run(log, "elect", *b, "--preferred", "--all", "--write", "--yes", die_at=step))
    (intent,) = intents(log)
    planned = {c["resource"]["name"]: c for c in intent["changes"]}
    assert planned and settled(log, intent["command_id"]) == []
    proc = run(log, "elect", *b, "--preferred", "--all", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    (line,) = warnings(proc)
    want = "not applied" if step == "before-send" else "applied, not verified by that run"
    assert f"an earlier elect-preferred of {next(iter(planned))}" in line and f"was interrupted: {want}" in line
    recs = {r["resource"]["name"]: r for r in settled(log, intent["command_id"])}
    assert set(recs) == set(planned)
    now = snapshot(bootstrap)
    for name, rec in recs.items():
        topic, _, part = str(name).rpartition("-")
        leader = next(p.leader for p in now.topics[topic].partitions if p.partition == int(part))
        moved = leader != before[(topic, int(part))]
        assert rec["outcome"] == ("applied" if moved else "not applied"), (name, rec)
        assert moved == (step != "before-send")


def unclean_killed(bootstrap: str, log: Path) -> None:
    """payments-0 offline with an out-of-sync replica alive: the unclean election killed after sending is
    recorded as applied by the next run."""
    b = ("--bootstrap", bootstrap)
    killed(
        run(
            log,
            "elect",
            *b,
            "--unclean",
            "--topic",
            "payments",
            "--partition",
            "0",
            "--write",
            "--yes",
            "--accept-data-loss",
            die_at="after-send",
        )
    )
    proc = run(log, "alter", *b, "--history")
    (line,) = warnings(proc)
    assert "an earlier elect-unclean of payments-0 was interrupted: applied, not verified by that run" in line
    (rec,) = [r for r in records(log) if r.get("action") == "elect-unclean"]
    assert rec["outcome"] == "applied" and rec["after"]["leader"] >= 0  # type: ignore[index]


def reassign_killed(bootstrap: str, log: Path, step: str, wait: Callable[[], None]) -> None:
    """orders (RF 1) raised to RF 3, killed at `step`; once the moves finished (`wait`), the next
    `reassign --revert-last` reports the interrupted start and moves the partitions back, or has nothing
    to revert when nothing was sent."""
    b = ("--bootstrap", bootstrap)
    old = {p.partition: list(p.replicas) for p in snapshot(bootstrap).topics["orders"].partitions}
    killed(run(log, "reassign", *b, "--topic", "orders", "--rf", "3", "--write", "--yes", die_at=step))
    (intent,) = intents(log)
    if step != "before-send":
        wait()
    proc = run(log, "reassign", *b, "--revert-last", "--write", "--yes")
    lines = warnings(proc)
    if step == "before-send":
        assert proc.returncode == 16, proc.stderr
        assert (
            len(lines) == 1
            and "an earlier reassign of orders-0, orders-1, orders-2 was interrupted: not applied" in lines[0]
        )
    else:
        assert proc.returncode == 0, proc.stderr
        # killed while following the moves: the start had its outcome already, nothing to report
        assert len(lines) == (0 if step == "verify" else 1)
        assert all("was interrupted: applied, not verified by that run" in line for line in lines)
        assert {p.partition: list(p.replicas) for p in snapshot(bootstrap).topics["orders"].partitions} == old
    outcomes = {r["resource"]["name"]: r["outcome"] for r in settled(log, intent["command_id"])}
    assert outcomes == dict.fromkeys(
        ("orders-0", "orders-1", "orders-2"), "not applied" if step == "before-send" else "applied"
    )


# ----------------------------------------------------------------------------- against the simulator
@pytest.mark.parametrize("step", STEPS)
def test_alter_killed(sim: SimRunner, tmp_path: Path, step: str) -> None:
    sim.call(lambda c: c.create_topic("orders", 2, 3))
    sim.call(lambda c: c.create_topic("payments", 2, 3))
    alter_killed(sim.bootstrap, tmp_path / "audit.jsonl", step)


@pytest.mark.parametrize("step", STEPS)
def test_elect_killed(sim_factory: Callable[..., SimRunner], tmp_path: Path, step: str) -> None:
    sim = skewed_cluster(sim_factory, ("orders", 3))
    elect_killed(sim.bootstrap, tmp_path / "audit.jsonl", step)


def test_unclean_election_killed(sim_factory: Callable[..., SimRunner], tmp_path: Path) -> None:
    sim = offline_cluster(sim_factory)
    unclean_killed(sim.bootstrap, tmp_path / "audit.jsonl")
    assert sim.call(lambda c: c.partition("payments", 0).leader) == 2


@pytest.mark.parametrize("step", STEPS)
def test_reassign_killed(sim_factory: Callable[..., SimRunner], tmp_path: Path, step: str) -> None:
    sim = racked_cluster(sim_factory)

    def finished() -> None:
        assert sim.wait_for(
            lambda c: all(
                len(p.replicas) == 3 and len(p.isr) == 3 and not p.adding for p in c.topic("orders").partitions
            ),
            60,
        )

    reassign_killed(sim.bootstrap, tmp_path / "audit.jsonl", step, finished)


@pytest.mark.parametrize("step", ["throttle-before-send", "throttle-after-send"])
def test_throttle_killed_is_reported_and_can_be_cleared(
    sim_factory: Callable[..., SimRunner], tmp_path: Path, step: str
) -> None:
    """A reassignment with --throttle killed while setting the throttle: the next run says whether the
    throttle was left on the cluster (a forgotten throttle slows every later move), and --clear-throttle
    removes it."""
    sim = racked_cluster(sim_factory)
    log = tmp_path / "audit.jsonl"
    b = ("--bootstrap", sim.bootstrap)
    killed(
        run(
            log,
            "reassign",
            *b,
            "--topic",
            "orders",
            "--rf",
            "3",
            "--throttle",
            "1000000",
            "--write",
            "--yes",
            die_at=step,
        )
    )
    (intent,) = intents(log)
    assert intent["action"] == "throttle" and str(intent["command_id"]).endswith("/throttle")
    left = sim.call(lambda c: {k for k in c.configs.topic_overrides("orders") if "throttled" in k})
    assert bool(left) == (step == "throttle-after-send")
    assert all(len(p) == 1 for p in sim.call(lambda c: [p.replicas for p in c.topic("orders").partitions]))
    proc = run(log, "reassign", *b, "--topic", "orders", "--clear-throttle", "--write", "--yes")
    assert proc.returncode == 0, proc.stderr
    (line,) = warnings(proc)
    outcome = "applied, not verified by that run" if left else "not applied"
    assert "an earlier throttle of topic orders, broker " in line and f"was interrupted: {outcome}" in line, line
    assert "throttle removed from orders" in proc.stdout
    assert not sim.call(lambda c: {k for k in c.configs.topic_overrides("orders") if "throttled" in k})
    assert {r["outcome"] for r in settled(log, str(intent["command_id"]))} == {"applied" if left else "not applied"}
