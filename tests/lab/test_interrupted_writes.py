"""Writes killed mid-flight against real Kafka (4.4): the same scenarios as tests/alter/test_interrupted.py
(which runs them on the simulator at every step), at the step where the cluster has taken the change but
no outcome was written: the next run reports it, an audit record exists for every change Kafka took, and
`--revert-last` undoes exactly that change."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from kafkatui.lab.cluster import LabCluster
from tests.alter.test_interrupted import alter_killed, elect_killed
from tests.lab.support import create_topic, describe, wait_for


@pytest.mark.parametrize("step", ["after-send", "verify"])
def test_alter_killed_on_real_kafka(full_lab: LabCluster, tmp_path: Path, step: str) -> None:
    from tests.lab.support import admin

    client = admin(full_lab)
    for fut in client.delete_topics(["orders", "payments"], operation_timeout=30).values():
        with contextlib.suppress(Exception):  # absent on the first run
            fut.result(60)
    wait_for(
        "orders and payments gone", lambda: not {"orders", "payments"} & set(client.list_topics(timeout=10).topics)
    )
    from confluent_kafka.admin import NewTopic

    for name in ("orders", "payments"):  # at the cluster's defaults, as the scenario needs
        client.create_topics([NewTopic(name, 2, replication_factor=3)], operation_timeout=30)[name].result(60)
    wait_for("leaders", lambda: all(p["leader"] >= 0 for t in ("orders", "payments") for p in describe(full_lab, t)))
    alter_killed(full_lab.bootstrap, tmp_path / "audit.jsonl", step)


def test_preferred_election_killed_after_send_on_real_kafka(full_lab: LabCluster, tmp_path: Path) -> None:
    create_topic(full_lab, "skewed", 3, rf=3, min_isr=2, assignment=[[1, 2, 3], [1, 3, 2], [1, 2, 3]])
    full_lab.shutdown("1")  # controlled: every leader moves off broker 1
    full_lab.restore("1")
    wait_for(
        "broker 1 back in skewed's ISRs", lambda: all(len(p["isr"]) == 3 for p in describe(full_lab, "skewed")), 90
    )
    assert all(p["leader"] != 1 for p in describe(full_lab, "skewed"))
    elect_killed(full_lab.bootstrap, tmp_path / "audit.jsonl", "after-send")
    wait_for("leaders back on broker 1", lambda: all(p["leader"] == 1 for p in describe(full_lab, "skewed")), 30)
