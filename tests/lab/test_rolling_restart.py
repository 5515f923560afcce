"""A real rolling restart behind `kafkatui check --wait-restart-safe`: every broker of a Kafka lab restarted
(controlled shutdown, then start) only when the gate exits 0, while an acks=all idempotent producer writes
to RF-3 / min ISR 2 topics. Not one delivery may fail. Meanwhile the dashboard's "restart now" cell and
the gate must give the same answer for every broker at every read. The roll plan must name the topic that
cannot be rolled safely (RF 2 / min ISR 2), and the gate must refuse it with exit 25.

The comparison with the playbooks' gates is bench/rolling_gates.py (figures in bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kafkatui.check_gate import EXIT_CANNOT, judge
from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.roll import collector_off, roll, under_replicated
from kafkatui.model.restart_gate import gate
from tests.lab.support import LINES_ENV, admin, create_topic, kafkatui, lab_fixture, lab_lines, wait_for

ROLL_LAB_VERSIONS = lab_lines("every") if os.environ.get(LINES_ENV) else lab_lines("full")
"""Kafka lines the roll runs on, each in a lab of its own (restarting the shared labs would move the
leaders other tests' topics rely on): the newest line in `make test`, the lines `make test-matrix` names
(ZooKeeper-mode ones included) there."""

DELIVERY_TIMEOUT_MS = 30_000
"""The application's delivery timeout: a third of Kafka's default producer's 120 s, long enough that a
loaded 2-core machine (writes taking 10 s at load 50, bench/README.md) does not fail a write the cluster
would take; the probe's NOT_ENOUGH_REPLICAS count is the exact min ISR signal."""

ROLLED = ("roll-orders", "roll-payments")
UNSAFE = "roll-ledger"  # RF 2 / min ISR 2: any restart of its brokers stops its acks=all writes
EXCEPT_UNSAFE = f"^(?!{UNSAFE}$)"


@pytest.fixture(scope="module", params=ROLL_LAB_VERSIONS)
def roll_lab(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    yield from lab_fixture(request, tmp_path_factory)


class Observer:
    """Reads the cluster over and over during the roll and compares, for every serving broker, the
    dashboard's rendered "restart now" cell with the gate's verdict (headroom 0), on the topics the roll
    covers and on every topic (the unsafe one too): one rule (`kafkatui.model.restart_rule`), one answer,
    a partition already under min ISR included."""

    def __init__(self, lab: LabCluster) -> None:
        self.lab = lab
        self.stop = threading.Event()
        self.reads = 0
        self.seen: set[bool] = set()
        self.mismatches: list[str] = []
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        from kafkatui.kafka.errors import KafkaTuiError
        from kafkatui.kafka.settings import ConnectionSettings
        from kafkatui.kafka.source import KafkaClusterSource

        with KafkaClusterSource(ConnectionSettings(self.lab.bootstrap, timeout=10), log_dirs="out-of-sync") as src:
            while not self.stop.is_set():
                try:
                    snap = src.snapshot()
                    rolled = judge(src, snap, argparse.Namespace(topic=EXCEPT_UNSAFE), None)
                    every = judge(src, snap, argparse.Namespace(topic=None), None)
                except KafkaTuiError as exc:  # a broker restarting under the bootstrap list: read again
                    self.errors.append(str(exc))
                    continue
                self.reads += 1
                self.compare(rolled[0], rolled[1], "rolled topics")
                self.compare(every[0], every[1], "every topic")

    def compare(self, report: Any, quorum: Any, topics: str) -> None:
        from kafkatui.columns import BROKERS

        for b in report.brokers.values():
            if not b.serving:
                continue
            cell = str(BROKERS.cell(b, "restart"))  # the cell's text, as the broker table shows it
            dashboard = cell == "✔ safe"
            verdict = gate(report, b.id, 0, quorum)
            if topics == "rolled topics":
                self.seen.add(verdict.safe)
            if verdict.safe != dashboard and (quorum is None or quorum.healthy):
                # (the gate alone also waits for the controller side, which is no cell of the table)
                self.mismatches.append(f"{topics}, broker {b.id}: dashboard {cell!r}, gate: {verdict.summary()}")


def test_a_gated_roll_loses_no_write_and_matches_the_dashboard(roll_lab: LabCluster) -> None:
    lab = roll_lab
    existing = set(admin(lab).list_topics(timeout=10).topics)  # a rerun finds them
    for name, parts, rf in ((ROLLED[0], 6, 3), (ROLLED[1], 3, 3), (UNSAFE, 2, 2)):
        if name not in existing:
            create_topic(lab, name, parts, rf, 2)

    # the plan names the topic that cannot be rolled safely, with its fix
    proc = kafkatui("check", "--bootstrap", lab.bootstrap, "--roll-plan", "--json")
    assert proc.returncode == EXIT_CANNOT, proc.stderr
    plan = json.loads(proc.stdout)
    (cannot,) = [b for b in plan["blockers"] if b["kind"] == "cannot"]
    assert cannot["topics"] == [UNSAFE] and any("--rf 3" in c for c in cannot["commands"])
    # and the gate refuses a broker of it at once, whatever the deadline
    host = cannot["brokers"][0]
    refused = kafkatui("check", "--bootstrap", lab.bootstrap, "--wait-restart-safe", str(host), "--wait-timeout", "5m")
    assert refused.returncode == EXIT_CANNOT and f"{UNSAFE}-" in refused.stdout, refused.stdout + refused.stderr

    # leaving it out (its owners accept its pause), the plan gives the order and nothing blocks
    proc = kafkatui("check", "--bootstrap", lab.bootstrap, "--roll-plan", "--topic", EXCEPT_UNSAFE, "--json")
    assert proc.returncode == 0, proc.stdout
    order = [s["broker"] for s in json.loads(proc.stdout)["steps"]]
    assert sorted(order) == [n.spec.node_id for n in lab.broker_nodes]

    observer = Observer(lab)
    at_gate: list[str] = []

    def on_safe(broker: int) -> None:
        """The gate let `broker` go: the dashboard, read now, says so too."""
        from kafkatui.columns import BROKERS
        from tests.lab.support import snapshot

        report, _, _ = judge(None, snapshot(lab), argparse.Namespace(topic=EXCEPT_UNSAFE), None)

        at_gate.append(str(BROKERS.cell(report.brokers[broker], "restart")))

    with collector_off():  # the observer's clients too (librdkafka's threads: roll.collector_off)
        observer.thread.start()
        try:
            result = roll(
                lab, "kafkatui", order, ROLLED, EXCEPT_UNSAFE, timeout_ms=DELIVERY_TIMEOUT_MS, on_safe=on_safe
            )
        finally:
            observer.stop.set()
            observer.thread.join(60)
    print(json.dumps(result.as_dict()))  # the figures, with -s
    print(f"observer: {observer.reads} reads, seen {observer.seen}, {len(observer.errors)} failed reads")
    assert not result.stopped, result.stopped
    assert [s.broker for s in result.steps] == order and all(s.gate_exit == 0 for s in result.steps)
    assert result.application.acked > 0
    assert result.application.failed == 0, result.application.errors
    # and Kafka never answered a write with "fewer in-sync replicas than min ISR" (the probe does not retry)
    assert not {"NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND"} & set(result.probe.errors), (
        result.probe.errors
    )
    assert at_gate == ["✔ safe"] * len(order)
    assert observer.mismatches == [], observer.mismatches[:5]
    assert observer.reads >= len(order) and observer.seen == {True, False}, observer.errors[:5]
    # the lab is whole again: every broker back, every replica in sync
    wait_for("every replica back in sync", lambda: under_replicated(lab) == 0, timeout=120)
