"""Faults only real brokers stage faithfully: a hung follower under load, a controlled shutdown, an
offline partition, and a KIP-460 unclean election through `kafkatui elect --unclean` (with what ELR
shows on Kafka 4.1+). 4.4 runs every case; 3.9 the core ones."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.load import produce as load
from tests.lab.support import (
    check_json,
    create_topic,
    describe,
    elr_on,
    kafkatui,
    produce,
    snapshot,
    topic_doc,
    wait_for,
)


@contextmanager
def loaded(lab: LabCluster, topic: str, rate: float = 100.0) -> Iterator[None]:
    """Keep producing to `topic` (acks=1) while the block runs: followers only fall behind under writes."""
    stop = threading.Event()
    t = threading.Thread(
        target=load, args=(lab.bootstrap, topic, rate, None, "1"), kwargs={"stop": stop.is_set}, daemon=True
    )
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join(30)


def partition(lab: LabCluster, topic: str, p: int = 0) -> dict[str, object]:
    return describe(lab, topic)[p]


def shrink_lines(lab: LabCluster, leader: int, topic: str) -> list[str]:
    log = lab.node(str(leader)).logs / "server.log"
    return [
        ln
        for ln in log.read_text(errors="replace").splitlines()
        if f"[Partition {topic}-0 broker={leader}] Shrinking ISR" in ln
    ]


def test_hung_follower_under_load_leaves_the_isr_and_comes_back(lab: LabCluster) -> None:
    create_topic(lab, "hot", 1, rf=3, min_isr=2, assignment=[[1, 2, 3]])
    with loaded(lab, "hot"):
        try:
            lab.hang("3")
            wait_for("broker 3 out of hot-0's ISR", lambda: partition(lab, "hot")["isr"] == [1, 2], 60)
            # the leader itself shrank the ISR (lag 3 s < session timeout 6 s): Kafka logs why
            lines = shrink_lines(lab, 1, "hot")
            assert lines and "Out of sync replicas: (brokerId: 3" in lines[-1], lines
            code, doc = check_json(lab, "--topic", "hot")
            t = topic_doc(doc, "hot")
            assert code == 1 and t["worst"] == "at_min_isr" and t["min_headroom"] == 0
        finally:
            lab.restore("3")
        wait_for("broker 3 back in hot-0's ISR", lambda: partition(lab, "hot")["isr"] == [1, 2, 3], 90)
    code, doc = check_json(lab, "--topic", "hot")
    assert code == 0 and topic_doc(doc, "hot")["worst"] == "healthy"


def test_controlled_shutdown_moves_leaders_away_at_once(lab: LabCluster) -> None:
    create_topic(lab, "calm", 3, rf=3, min_isr=2, assignment=[[1, 2, 3], [2, 3, 1], [3, 1, 2]])
    assert partition(lab, "calm", 0)["leader"] == 1
    try:
        lab.shutdown("1")  # SIGTERM waits for the JVM to exit: the controller moved everything first
        parts = describe(lab, "calm")
        assert all(p["leader"] != 1 for p in parts), parts
        assert all(1 not in p["isr"] for p in parts), parts
        code, doc = check_json(lab, "--topic", "calm")
        assert doc["summary"]["brokers_absent"] == [1]
        t = topic_doc(doc, "calm")
        assert code == 1 and t["worst"] == "at_min_isr"
    finally:
        lab.restore("1")
    wait_for("broker 1 back in every ISR", lambda: all(len(p["isr"]) == 3 for p in describe(lab, "calm")), 90)
    code, doc = check_json(lab, "--topic", "calm")
    # leadership stays where the failover put it (auto.leader.rebalance.enable=false): kafkatui says so
    t = topic_doc(doc, "calm")
    assert t["counts"]["non_preferred_leader"] >= 1 and t["worst"] == "non_preferred_leader"
    elect = kafkatui(
        "elect",
        "--preferred",
        "--topic",
        "calm",
        "--bootstrap",
        lab.bootstrap,
        "--write",
        "--yes",
        env={"KAFKATUI_AUDIT_LOG": str(lab.root / "audit.jsonl")},
    )
    assert elect.returncode == 0, elect.stderr
    assert [p["leader"] for p in describe(lab, "calm")] == [1, 2, 3]


def test_single_copy_partition_goes_offline_with_its_broker(lab: LabCluster) -> None:
    create_topic(lab, "solo", 1, rf=1, min_isr=1, assignment=[[2]])
    try:
        lab.crash("2")
        wait_for("solo-0 offline", lambda: partition(lab, "solo")["leader"] == -1, 60)
        code, doc = check_json(lab, "--topic", "solo")
        t = topic_doc(doc, "solo")
        assert code == 2 and t["worst"] == "offline" and t["counts"]["offline"] == 1
        assert doc["summary"]["offline"] == 1
        lost = produce(lab, "solo", 3, acks="1", timeout_ms=3000)
        assert lost.acked == 0 and lost.errors, "nothing can be written to an offline partition"
    finally:
        lab.restore("2")
    wait_for("solo-0 back", lambda: partition(lab, "solo")["leader"] == 2, 90)


def test_unclean_election_through_kafkatui_elect(full_lab: LabCluster) -> None:
    lab = full_lab  # Kafka 4.1+: the last in-sync copy of an offline partition shows as ELR (KIP-966)
    create_topic(lab, "risky", 1, rf=2, min_isr=1, assignment=[[1, 2]])
    env = {"KAFKATUI_AUDIT_LOG": str(lab.root / "audit.jsonl")}
    try:
        with loaded(lab, "risky"):
            lab.hang("2")
            wait_for("broker 2 out of risky-0's ISR", lambda: partition(lab, "risky")["isr"] == [1], 60)
            lab.crash("1")
        lab.restore("2")  # alive again, but not in sync: a clean election cannot pick it
        wait_for(
            "risky-0 offline with broker 2 up",
            lambda: partition(lab, "risky")["leader"] == -1 and 2 in admin_brokers(lab),
            60,
        )
        code, doc = check_json(lab, "--topic", "risky")
        assert code == 2 and topic_doc(doc, "risky")["worst"] == "offline"
        p0 = snapshot(lab).topics["risky"].partitions[0]
        if elr_on(lab.rel):  # 4.1+ keeps the last ISR member as an eligible leader replica (KIP-966), out of the ISR
            assert (p0.leader, p0.isr, p0.elr) == (-1, (), (1,)), p0
        else:  # 4.0 (make test-matrix): the last ISR member stays in the ISR
            assert (p0.leader, p0.isr, p0.elr) == (-1, (1,), ()), p0
        preview = kafkatui(
            "elect",
            "--unclean",
            "--topic",
            "risky",
            "--partition",
            "0",
            "--bootstrap",
            lab.bootstrap,
            "--dry-run",
            env=env,
        )
        assert preview.returncode == 0, preview.stderr
        said = preview.stdout + preview.stderr
        assert "candidate: broker 2" in said, said
        assert ("eligible leader replicas [1]" in said) == elr_on(lab.rel), said
        refused = kafkatui(
            "elect",
            "--unclean",
            "--topic",
            "risky",
            "--partition",
            "0",
            "--bootstrap",
            lab.bootstrap,
            "--write",
            "--yes",
            env=env,
        )
        assert refused.returncode == 14, "--yes alone never confirms data loss"
        done = kafkatui(
            "elect",
            "--unclean",
            "--topic",
            "risky",
            "--partition",
            "0",
            "--bootstrap",
            lab.bootstrap,
            "--write",
            "--yes",
            "--accept-data-loss",
            env=env,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert partition(lab, "risky")["leader"] == 2
        assert partition(lab, "risky")["isr"] == [2]
        assert "unclean" in (lab.root / "audit.jsonl").read_text()
    finally:
        lab.restore("1")


def admin_brokers(lab: LabCluster) -> set[int]:
    from tests.lab.support import admin

    return set(admin(lab).list_topics(timeout=10).brokers)
