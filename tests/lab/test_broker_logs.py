"""The broker-log parser understands what a live Kafka lab just logged (4.4 and 3.9 KRaft, 3.9 in
ZooKeeper mode, 2.8).

A short fault under load (a follower hung with SIGSTOP until the controller fences it, then resumed)
and then every line of every node's server.log / state-change.log / controller.log is parsed: none
may look like an ISR / leader / fencing line in an unknown form, and the events must tell the story
the cluster went through. A future Kafka whose log formats change fails here, not in a user's replay.
It runs on the labs the whole package shares, so every line the other real-Kafka tests made them log
(controlled shutdowns, crashes, unclean elections, reassignments) must parse too.
"""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict

from kafkatui.history.logparse import IsrLogEvent, ParseReport, parse_logs
from kafkatui.lab import load
from kafkatui.lab.cluster import LabCluster
from tests.lab.support import admin, create_topic, describe, wait_for

_ATTEMPTS: defaultdict[str, itertools.count[int]] = defaultdict(itertools.count)  # per lab (its root)


def _victim(lab: LabCluster) -> int:
    """The broker to hang: 3, but 2 when a ZooKeeper-mode 3 is the controller. A hung controller's
    session expires and the broker elected next takes over without a broker-change event, so no
    controller writes the "deleted brokers" line the parser derives OFFLINE from (2.8 failed so on a
    first attempt and passed its rerun, once 3 was no longer the controller)."""
    if not lab.rel.zookeeper:
        return 3  # KRaft: the brokers' fencing is the quorum's, whichever node leads it
    client = admin(lab)  # held while the answer comes: a dropped client ends its own request
    controller = client.describe_cluster(request_timeout=15).result().controller
    return 2 if controller is not None and controller.id == 3 else 3


def test_parser_reads_a_hung_follower_and_its_fence(logs_lab: LabCluster) -> None:
    lab = logs_lab  # 4.4 and 3.9 KRaft; 3.9-zk and 2.8 through support.ZK_BROKER_LOG_LINES
    # a rerun (the suite reruns a failed lab test once) gets topics of its own: the first attempt's exist
    attempt = next(_ATTEMPTS[str(lab.root)])
    rf3_name, rf1_name = ("logs-rf3", "logs-rf1") if attempt == 0 else (f"logs-rf3-r{attempt}", f"logs-rf1-r{attempt}")
    hung = _victim(lab)
    lead, other = sorted({1, 2, 3} - {hung})
    create_topic(lab, rf3_name, 1, 3, 2, assignment=[[lead, other, hung]])
    create_topic(lab, rf1_name, 1, 1, 1, assignment=[[hung]])

    def first(topic: str, key: str) -> object:
        """`key` of the topic's partition 0, or None while the answer has no partition (a ZooKeeper-mode
        broker re-registering after its session expired briefly answers without them)."""
        parts = describe(lab, topic)
        return parts[0][key] if parts else None

    def isr(topic: str) -> list[int]:
        got = first(topic, "isr")
        return sorted(got) if isinstance(got, list) else []

    stop = threading.Event()
    producer = threading.Thread(
        target=load.produce, args=(lab.bootstrap, rf3_name, 50.0, None), kwargs={"stop": stop.is_set}, daemon=True
    )
    producer.start()
    try:
        lab.hang(str(hung))
        wait_for(f"b{hung} shrunk out of logs-rf3", lambda: isr(rf3_name) == [lead, other], 60)
        wait_for(
            f"logs-rf1 offline (b{hung} fenced, or its ZooKeeper session expired)",
            lambda: first(rf1_name, "leader") == -1,
            60,
        )
    finally:
        lab.restore(str(hung))
    wait_for("logs-rf3 whole again", lambda: isr(rf3_name) == [1, 2, 3], 90)
    wait_for(f"logs-rf1 led by b{hung} again", lambda: first(rf1_name, "leader") == hung, 90)
    stop.set()
    producer.join(30)

    names = ("server.log", "state-change.log", "controller.log")
    files = [str(n.logs / name) for n in lab.nodes.values() for name in names]

    def told_back() -> tuple[list[IsrLogEvent], ParseReport] | None:
        """The logs once they say what the cluster ended in. A broker resumed from SIGSTOP answers
        Metadata from its stale cache (ZooKeeper mode: logs-rf1 "led by 3" before the controller has
        elected it again), so the waits above can pass before the controller has written it."""
        events, report = parse_logs(files)
        rf1 = [e for e in events if e.topic == rf1_name]
        rf3 = [e for e in events if e.topic == rf3_name]
        back = rf1[-1] if rf1 else None
        if back is None or back.kind not in ("leader", "unclean") or not rf3 or set(rf3[-1].new_isr or ()) != {1, 2, 3}:
            return None
        return events, report

    events, report = wait_for(
        f"the brokers' logs to say logs-rf1 led by b{hung} and logs-rf3 whole again", told_back, 60
    )
    assert report.problems == []
    # every line must parse, 4.4's new wording of skipped state changes included ("..., partition registration
    # PartitionRegistration(...) and isNew=false since ...")
    assert report.unparsed == 0, report.unparsed_examples
    rf3 = [e for e in events if e.topic == rf3_name]
    # b3 leaves the ISR: its leader shrinks it after replica.lag.time.max.ms (3 s). In ZooKeeper mode its
    # session (6 s) may expire first under load, and the controller removes it ("after removing replica 3
    # from the ISR as part of transition to OfflineReplica"): a leader event, ISR 1,2, leader 1
    removals = [e for e in rf3 if e.new_isr is not None and hung not in e.new_isr]
    shrink = next((e for e in removals if e.kind == "shrink"), None)
    if shrink is not None:
        # Kafka logs an ISR in its own order (the assignment's, not sorted: "from 3,2,1 to 1,2" on 4.4)
        assert (shrink.broker, sorted(shrink.old_isr or ()), sorted(shrink.new_isr or ())) == (
            lead,
            [1, 2, 3],
            [lead, other],
        )
        assert [b for b, _, _ in shrink.out_of_sync] == [hung]
    else:
        assert lab.rel.zookeeper, removals
        shrink = next(e for e in removals if e.kind == "leader")
        assert (shrink.leader, sorted(shrink.new_isr or ())) == (lead, [lead, other]), shrink
    rf1 = [e for e in events if e.topic == rf1_name]
    off = next(e for e in rf1 if e.kind == "offline")
    assert off.leader == -1
    if shrink.kind == "shrink":
        assert off.ts_ms > shrink.ts_ms  # lag first, then the fence (or the session's expiry)
    else:  # one controller action took b3 out of both
        assert abs(off.ts_ms - shrink.ts_ms) < 1000, (off, shrink)
    assert report.derived >= 1 and report.broker_events >= 1  # derived from the controller's fence line
    back = rf1[-1]
    assert (back.leader if back.leader is not None else back.broker) == hung
