"""The broker-log parser understands what a live Kafka lab just logged (4.4 and 3.9 KRaft).

A short fault under load (a follower hung with SIGSTOP until the controller fences it, then resumed)
and then every line of every node's server.log / state-change.log / controller.log is parsed: none
may look like an ISR / leader / fencing line in an unknown form, and the events must tell the story
the cluster went through. A future Kafka whose log formats change fails here, not in a user's replay.
It runs on the labs the whole package shares, so every line the other real-Kafka tests made them log
(controlled shutdowns, crashes, unclean elections, reassignments) must parse too.
"""

from __future__ import annotations

import threading

from kafkatui.history.logparse import parse_logs
from kafkatui.lab import load
from kafkatui.lab.cluster import LabCluster
from tests.lab.support import create_topic, describe, wait_for


def test_parser_reads_a_hung_follower_and_its_fence(logs_lab: LabCluster) -> None:
    lab = logs_lab  # 4.4 and 3.9 KRaft; ZooKeeper mode and 2.8 join through support.ZK_BROKER_LOG_LINES
    create_topic(lab, "logs-rf3", 1, 3, 2, assignment=[[1, 2, 3]])
    create_topic(lab, "logs-rf1", 1, 1, 1, assignment=[[3]])
    stop = threading.Event()
    producer = threading.Thread(
        target=load.produce, args=(lab.bootstrap, "logs-rf3", 50.0, None), kwargs={"stop": stop.is_set}, daemon=True
    )
    producer.start()
    try:
        lab.hang("3")
        wait_for("b3 shrunk out of logs-rf3", lambda: describe(lab, "logs-rf3")[0]["isr"] == [1, 2], 60)
        wait_for(
            "logs-rf1 offline (b3 fenced, or its ZooKeeper session expired)",
            lambda: describe(lab, "logs-rf1")[0]["leader"] < 0,
            60,
        )
    finally:
        lab.restore("3")
    wait_for("logs-rf3 whole again", lambda: describe(lab, "logs-rf3")[0]["isr"] == [1, 2, 3], 90)
    wait_for("logs-rf1 led by b3 again", lambda: describe(lab, "logs-rf1")[0]["leader"] == 3, 90)
    stop.set()
    producer.join(30)

    events, report = parse_logs(
        [
            str(n.logs / name)
            for n in lab.nodes.values()
            for name in ("server.log", "state-change.log", "controller.log")
        ]
    )
    assert report.problems == []
    # every line must parse, 4.4's new wording of skipped state changes included ("..., partition registration
    # PartitionRegistration(...) and isNew=false since ...")
    assert report.unparsed == 0, report.unparsed_examples
    rf3 = [e for e in events if e.topic == "logs-rf3"]
    shrink = next(e for e in rf3 if e.kind == "shrink")
    # Kafka logs an ISR in its own order (the assignment's, not sorted: "from 3,2,1 to 1,2" on 4.4)
    assert (shrink.broker, sorted(shrink.old_isr), sorted(shrink.new_isr)) == (1, [1, 2, 3], [1, 2])
    assert [b for b, _, _ in shrink.out_of_sync] == [3]
    assert set(rf3[-1].new_isr) == {1, 2, 3}  # the last word: whole again
    rf1 = [e for e in events if e.topic == "logs-rf1"]
    off = next(e for e in rf1 if e.kind == "offline")
    assert off.leader == -1 and off.ts_ms > shrink.ts_ms
    assert report.derived >= 1 and report.broker_events >= 1  # derived from the controller's fence line
    back = rf1[-1]
    assert back.kind in ("leader", "unclean") and (back.leader if back.leader is not None else back.broker) == 3
