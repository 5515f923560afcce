"""What the 3 a.m. walk found wrong, on real Kafka (4.1+: ELR on; 4.0: the last ISR member stays in
the ISR): the offline advice names the broker Kafka's election order brings back, and the partitions a
just-killed broker still leads count as unable to take writes before the controller fences it."""

from __future__ import annotations

import dataclasses
import time

from kafkatui.check_cmd import to_json
from kafkatui.lab.cluster import LabCluster
from kafkatui.model.changes import diff
from kafkatui.model.election_order import IN_ELR, IN_ISR, next_leaders
from kafkatui.model.findings import Finding, findings
from kafkatui.model.health import assess
from kafkatui.model.snapshot import PartitionInfo
from kafkatui.model.unfenced import leader_down
from tests.lab.support import create_topic, describe, elr_on, produce, snapshot, wait_for


def test_offline_advice_names_the_elr_broker_and_that_broker_alone_brings_it_back(full_lab: LabCluster) -> None:
    """The walk's clickstream: with brokers 2 and 3 down the advice said "a broker that was in the ISR
    (2, 3)"; restoring 2 left it offline ("ELR 3"), only 3 brought it back."""
    lab = full_lab
    create_topic(lab, "walk-elr", 1, rf=2, min_isr=1, assignment=[[2, 3]])
    assert produce(lab, "walk-elr", 10, acks="all").acked == 10
    try:
        lab.crash("2")
        wait_for("walk-elr-0 led by 3 alone", lambda: describe(lab, "walk-elr")[0]["isr"] == [3], 60)
        lab.crash("3")
        wait_for("walk-elr-0 offline", lambda: describe(lab, "walk-elr")[0]["leader"] == -1, 60)

        def offline_finding() -> tuple[PartitionInfo, Finding] | None:
            s = snapshot(lab)
            p = s.topics["walk-elr"].partitions[0]
            if p.leader != -1 or p.elr is None:
                return None
            # its own topic's: another test's single-copy topic on broker 2 may be offline too
            f = [
                f
                for f in findings(assess(s), s, bootstrap=lab.bootstrap)
                if f.id == "offline" and f.topics == ("walk-elr",)
            ]
            return (p, f[0]) if f else None

        p, f = wait_for("the offline finding with the partition's ELR", offline_finding, 60)
        if elr_on(lab.rel):
            # Kafka 4.1+ keeps the last ISR member as the eligible leader replica and empties the ISR
            assert p.isr == () and p.elr == (3,), p
            assert next_leaders(p).rule == IN_ELR
            why = "it is the eligible leader replica (KIP-966)"
        else:
            # 4.0 (no ELR on a new cluster): the last ISR member stays in the ISR, the ELR is empty
            assert p.isr == (3,) and p.elr == (), p
            assert next_leaders(p).rule == IN_ISR
            why = "it is the last in-sync replica"
        assert f"Bring back broker 3: {why}: it becomes leader with every acknowledged write." in f.steps, f.steps
        assert not any("2, 3" in step for step in f.steps), f.steps
        lab.restore("3")  # that broker alone
        wait_for("walk-elr-0 back with leader 3", lambda: describe(lab, "walk-elr")[0]["leader"] == 3, 90)
        assert produce(lab, "walk-elr", 5, acks="all").acked == 5
    finally:
        lab.restore("3")
        lab.restore("2")
    wait_for("walk-elr-0 in sync again", lambda: describe(lab, "walk-elr")[0]["isr"] == [2, 3], 90)


def test_partitions_led_by_a_killed_broker_count_as_unable_to_take_writes_before_fencing(full_lab: LabCluster) -> None:
    lab = full_lab
    create_topic(lab, "walk-unfenced", 3, rf=3, min_isr=2, assignment=[[1, 2, 3], [2, 3, 1], [3, 1, 2]])
    before = snapshot(lab)
    try:
        lab.crash("2")
        start = time.monotonic()
        s = snapshot(lab)  # one refresh, before the controller fences it (6 s session timeout in the lab)
        took = time.monotonic() - start
        assert 2 in s.broker_ids, f"fenced before the read ({took:.1f} s): the window was missed"
        r = assess(s)
        assert r.counts.leader_refused >= 1
        assert "walk-unfenced-1" in {f"{p.topic}-{p.partition}" for p in leader_down(s)}
        found = findings(r, s, bootstrap=lab.bootstrap)
        doc = to_json(s, r, found, None)
        assert doc["summary"]["verdict"] == "critical" and doc["summary"]["leader_down_not_moved"] >= 1
        t = next(t for t in doc["topics"] if t["name"] == "walk-unfenced")
        assert t["leader_down_not_moved"] == 1 and t["counts"]["offline"] == 0
        # the controller moves leadership: the events say so
        wait_for("walk-unfenced-1 led again", lambda: describe(lab, "walk-unfenced")[1]["leader"] not in (-1, 2), 60)
        after = dataclasses.replace(snapshot(lab), taken_at=s.taken_at + 10)
        texts = [c.text for c in diff(s, after)]
        assert any(t.startswith("walk-unfenced-1 leader 2 -> ") and "moved off down broker 2" in t for t in texts), (
            texts
        )
        assert assess(after).counts.leader_refused == 0
    finally:
        lab.restore("2")
    wait_for("broker 2 back in every ISR", lambda: all(len(p["isr"]) == 3 for p in describe(lab, "walk-unfenced")), 90)
    assert before.topics["walk-unfenced"].partitions[1].leader == 2
