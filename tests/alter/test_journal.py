"""The write-ahead journal without a cluster: a live run is never reported, a dead one once, per cluster."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kafkatui.alter import audit, journal
from kafkatui.alter.plan import ConfigChange
from tests.alter.support import all_records, records
from tests.model.builders import snap, topic

MIN_ISR = "min.insync.replicas"


def test_a_live_run_is_left_alone_and_a_dead_one_is_settled_once(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    before = snap(topic("orders", [(1, [1, 2, 3], [1, 2, 3])]))
    change = ConfigChange("topic", "orders", MIN_ISR, "2")
    intent = journal.begin("alter", "test", [journal.config_change(change, before)], path=log)
    assert all_records(log)[0]["changes"][0]["before"]["source"] != "DYNAMIC_TOPIC_CONFIG"
    after = snap(topic("orders", [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="2"))
    assert journal.settle(after, log) == []  # still running: its live lock is held
    intent.release()  # the run died
    assert journal.settle(replace(after, cluster_id="other"), log) == []  # another cluster's intent: not ours
    (line,) = journal.settle(after, log)
    assert line.startswith("an earlier alter of topic orders was interrupted: applied, not verified by that run (by ")
    assert line.endswith("recorded in the audit log")
    (rec,) = records(log)
    assert rec["outcome"] == audit.APPLIED and rec["result"] == "ok" and rec["key"] == MIN_ISR
    assert rec["after"] == {"value": "2", "source": "DYNAMIC_TOPIC_CONFIG"}
    assert journal.settle(after, log) == []  # once


def test_what_the_cluster_shows_decides_the_outcome(tmp_path: Path) -> None:
    plain = snap(topic("orders", [(1, [1, 2, 3], [1, 2, 3])]))
    change = journal.config_change(ConfigChange("topic", "orders", MIN_ISR, "2"), plain)
    assert journal.judge("alter", change, plain)[0] == audit.NOT_APPLIED
    other = snap(topic("orders", [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="3"))
    assert journal.judge("alter", change, other)[0] == audit.UNKNOWN
    moved = journal.partition_change("orders", 0, {"replicas": [1]}, {"replicas": [1, 2, 3]})
    copying = snap(topic("orders", [(1, [1, 2, 3], [1])]))
    assert journal.judge("reassign", moved, copying)[0] == audit.APPLIED
    assert journal.judge("reassign", moved, snap(topic("orders", [(1, [1], [1])])))[0] == audit.NOT_APPLIED
    unclean = journal.partition_change("orders", 0, {"leader": -1, "isr": [1]}, {"leader": None})
    assert journal.judge("elect-unclean", unclean, snap(topic("orders", [(2, [1, 2], [2])])))[0] == audit.APPLIED
    assert journal.judge("elect-unclean", unclean, snap(topic("orders", [(1, [1, 2], [1])])))[0] == audit.NOT_APPLIED
