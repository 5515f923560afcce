"""Every command kafkatui prints is one Kafka's own tools accept: on a real cluster with the
misconfigurations kafkatui's findings name, and again with a broker down, each finding's commands run
in order, as a user pasting them would, through kafka-configs.sh, kafka-topics.sh,
kafka-reassign-partitions.sh and kafka-leader-election.sh from the same Apache Kafka jars."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.tools import run_printed_command
from tests.lab.support import check_json, create_topic, describe, wait_for

REFUSED = ("Exception", "ERROR", "Error", "Unknown broker", "Usage:", "is not a valid")


def run_all(lab: LabCluster, doc: dict[str, Any], cwd: Path) -> list[str]:
    """Run every finding's commands; return one line per command, failing on the first refusal."""
    ran: list[str] = []
    seen: set[str] = set()
    for f in doc["findings"]:
        for command in f["commands"]:
            if not command.startswith(("kafka-", "printf ")) or (command in seen and "printf" not in command):
                continue  # run on a broker host (grep of server.log), the Strimzi form (kubectl), or run already
            seen.add(command)
            proc = run_printed_command(lab.rel, command, cwd)
            said = (proc.stdout + proc.stderr).strip()
            assert proc.returncode == 0 and not any(word in said for word in REFUSED), (
                f"Kafka's tool refused a command of finding {f['id']}:\n{command}\n-> exit {proc.returncode}: "
                f"{said[-800:]}"
            )
            ran.append(f"{f['id']}: {command.split()[0]}")
    return ran


def test_printed_commands_run_through_kafkas_own_tools(full_lab: LabCluster, tmp_path: Path) -> None:
    lab = full_lab
    create_topic(lab, "adv-thin", 3, rf=2, min_isr=1)  # acks=all acknowledged by the leader alone
    create_topic(lab, "adv-single", 2, rf=1, min_isr=1)  # one copy beside production topics
    create_topic(lab, "adv-strict", 2, rf=2, min_isr=3)  # minISR above RF: every acks=all write fails
    create_topic(lab, "adv-unclean", 3, rf=3, min_isr=2, unclean_leader_election_enable="true")
    create_topic(lab, "adv-wide", 6, rf=3, min_isr=2)
    _, doc = check_json(lab, "--topic", "adv-.*")
    ids = {f["id"] for f in doc["findings"]}
    assert {"min-isr-above-rf"} <= ids, ids
    ran = run_all(lab, doc, tmp_path)
    assert any("kafka-configs.sh" in r for r in ran), ran

    try:
        lab.crash("3")
        wait_for("broker 3 fenced", lambda: all(3 not in p["isr"] for p in describe(lab, "adv-wide")), 60)
        _, down = check_json(lab, "--topic", "adv-.*")
        assert "broker-absent" in {f["id"] for f in down["findings"]}
        plan_dir = tmp_path / "down"
        plan_dir.mkdir()
        run_all(lab, down, plan_dir)
        # with 2 live brokers an RF-3 partition cannot leave broker 3: a plan may only name live brokers
        # (Kafka refuses a whole file that names an absent one), and this cluster leaves nothing to plan
        for written in plan_dir.glob("*.json"):
            doc = json.loads(written.read_text())
            for move in doc.get("partitions", []):
                assert set(move["replicas"]) <= {1, 2}, (written.name, move)
    finally:
        lab.restore("3")
