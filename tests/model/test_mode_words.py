"""A ZooKeeper-mode cluster is described in its own words: a dead broker stays listed until its
ZooKeeper session expires, a broker absent from the metadata may have lost its session in a GC
pause, and restarting the controller's broker moves the controller. KRaft keeps its fencing words.

The mode comes from the brokers' configs as DescribeConfigs reports them: ``zookeeper.connect`` is
set only on a ZooKeeper-mode broker, ``process.roles`` only on a KRaft one."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from kafkatui.check_cmd import render
from kafkatui.model.changes import diff
from kafkatui.model.findings import findings
from kafkatui.model.health import assess
from kafkatui.model.mode import mode_of, snapshot_mode
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.whatif import restart_safety
from tests.model.builders import healthy, snap, topic

ZK = {"zookeeper.connect": "zk1:2181,zk2:2181/kafka", "process.roles": ""}
KRAFT = {"process.roles": "broker", "controller.quorum.voters": "0@c0:9093"}


def cluster(
    cfg: dict[str, str], refused: frozenset[int] = frozenset(), brokers: tuple[int, ...] = (1, 2, 3)
) -> ClusterSnapshot:
    s = snap(
        healthy("orders", 6, min_insync_replicas="2"),
        topic("solo", [(3, [3], [3])]),
        brokers=brokers,
        broker_configs=cfg,
        controller=3,
    )
    return replace(s, refused=refused)


def check_text(s: ClusterSnapshot) -> str:
    out = Console(file=io.StringIO(), width=200, color_system=None)
    report = assess(s)
    render(out, s, report, findings(report, s), None)
    return out.file.getvalue()  # type: ignore[attr-defined]


def test_the_mode_comes_from_the_broker_configs() -> None:
    assert snapshot_mode(cluster(ZK)) == "zookeeper"
    assert snapshot_mode(cluster(KRAFT)) == "kraft"
    assert mode_of({}) is None and snapshot_mode(cluster({})) is None  # unknown: KRaft's words


def test_check_says_a_dead_zookeeper_broker_is_listed_until_its_session_expires() -> None:
    text = check_text(cluster(ZK, frozenset({3})))
    assert "DOWN registered" in text and "DOWN unfenced" not in text
    assert "listed until its ZooKeeper session expires (zookeeper.session.timeout.ms)" in text
    assert "fence" not in text
    # broker 3 is the controller: restarting it moves the controller
    assert "broker 3 is also the controller (ZooKeeper mode)" in text


def test_kraft_keeps_its_fencing_words() -> None:
    for cfg in (KRAFT, {}):
        text = check_text(cluster(cfg, frozenset({3})))
        assert "DOWN unfenced" in text and "listed until the controller fences it" in text
        assert "ZooKeeper" not in text


def test_an_absent_zookeeper_broker_may_have_lost_its_session_in_a_gc_pause() -> None:
    zk = check_text(cluster(ZK, brokers=(1, 2)))
    assert "its ZooKeeper session expired (zookeeper.session.timeout.ms) during a long GC pause" in zk
    assert "fenced after missing heartbeats" not in zk
    assert "fenced after missing heartbeats" in check_text(cluster(KRAFT, brokers=(1, 2)))


def test_the_event_feed_and_restart_advice_use_the_mode() -> None:
    old, new = cluster(ZK), cluster(ZK, frozenset({2}))
    assert any("listed until its ZooKeeper session expires" in c.text for c in diff(old, new))
    advice = restart_safety(new, 2)
    assert "its ZooKeeper session has not expired yet" in advice.message
    kraft = restart_safety(cluster(KRAFT, frozenset({2})), 2)
    assert "the controller has not fenced it yet" in kraft.message
