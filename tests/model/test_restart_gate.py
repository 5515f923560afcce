"""The restart gate and the roll plan on hand-made snapshots: per-partition headroom, what waiting cannot
fix, the controller side, and the order of a roll."""

from __future__ import annotations

import io

from kafkatui.check_gate import _Progress, progress_line
from kafkatui.model.health import assess
from kafkatui.model.restart_gate import Quorum, gate, kraft_quorum, zookeeper_quorum
from kafkatui.model.roll_plan import order, plan
from kafkatui.model.snapshot import ReplicaLog
from tests.model.builders import healthy, snap, topic

OK = Quorum("zookeeper", True, "controller broker 1 up")


def test_headroom_is_checked_per_partition() -> None:
    # RF 4 / min ISR 2: one partition has lost a follower; the broker's other partitions have two to spare
    t = topic("t", [(1, [1, 2, 3, 4], [1, 2, 3, 4]), (1, [1, 2, 3, 4], [1, 2, 3])], min_insync_replicas="2")
    report = assess(snap(t, brokers=(1, 2, 3, 4)))
    assert gate(report, 1, 0, OK).safe
    v = gate(report, 1, 1, OK)
    assert not v.safe and not v.hopeless
    assert [x.name for x in v.blockers] == ["t-1"]
    assert v.blockers[0].left == 2 and v.blockers[0].needed == 3
    assert gate(report, 1, 2, OK).hopeless  # RF 4 - 1 < 2 + 2


def test_agrees_with_the_dashboard_at_min_isr() -> None:
    t = topic("t", [(1, [1, 2, 3], [1, 2])], min_insync_replicas="2")
    report = assess(snap(t))
    for b in (1, 2, 3):
        v = gate(report, b, 0, OK)
        assert v.safe == report.brokers[b].restart_safe == (b == 3)


def test_rf1_and_min_isr_equal_rf_cannot_become_safe() -> None:
    one = topic("one", [(2, [2], [2])], min_insync_replicas="1")
    two = topic("two", [(1, [1, 2], [1, 2])], min_insync_replicas="2")
    report = assess(snap(one, two, healthy("ok", 3, min_insync_replicas="2")))
    v2 = gate(report, 2, 0, OK)
    assert v2.hopeless and {x.topic for x in v2.blockers if x.hopeless} == {"one", "two"}
    assert "however long you wait" in v2.summary()
    assert gate(report, 3, 0, OK).safe  # hosts neither


def test_an_already_short_partition_waits_and_says_why() -> None:
    t = topic("t", [(1, [1, 2, 3], [1, 3])], min_insync_replicas="2")
    logs = {("t", 0, 1): ReplicaLog(5000, 0), ("t", 0, 2): ReplicaLog(1000, 40), ("t", 0, 3): ReplicaLog(5000, 0)}
    report = assess(snap(t, log_dirs=logs))
    v = gate(report, 3, 0, OK)
    assert not v.safe and not v.hopeless
    text = v.blockers[0].describe()
    assert text.startswith("t-0 ISR [1,3] leader 1: 1 in sync would remain, needs 2")
    assert "follower 2 lags 40 messages" in text
    line = progress_line(v, 75)
    assert "1 partition(s) not yet safe" in line and line.endswith("1m15s left")


def test_the_controller_side() -> None:
    report = assess(snap(healthy("t", 3), controller=2))
    assert zookeeper_quorum(report).healthy
    assert not zookeeper_quorum(assess(snap(healthy("t", 3), controller=-1))).healthy
    assert not gate(report, 1, 0, None).safe  # unknown is not safe
    assert not gate(report, 1, 0, Quorum("kraft", False, "controller quorum has no leader")).safe

    def answer(leader: int, ends: dict[int, int]) -> dict[str, object]:
        voters = [{"replica_id": v, "log_end_offset": e} for v, e in ends.items()]
        return {"topics": [{"partitions": [{"leader_id": leader, "current_voters": voters}]}]}

    assert kraft_quorum(answer(0, {0: 100}), 1, 1000).healthy
    assert not kraft_quorum(answer(-1, {0: 100}), 1, 1000).healthy
    three = answer(1, {1: 5000, 2: 5000, 3: 100})  # voter 3 far behind
    assert kraft_quorum(three, 4, 1000).healthy  # 2 of 3 caught up
    q = kraft_quorum(three, 2, 1000)  # a combined node: restarting voter 2 leaves one caught up
    assert not q.healthy and "without broker 2" in q.detail and "3 (4900 records)" in q.detail


def test_roll_order_is_rack_by_rack_with_the_controller_last() -> None:
    racks = {1: "a", 2: "b", 3: "c", 4: "a", 5: "b", 6: "c"}
    report = assess(snap(healthy("t", 6, brokers=6), brokers=range(1, 7), racks=racks, controller=2))
    assert order(report, 2) == [1, 4, 3, 6, 5, 2]
    assert order(report, None) == [1, 4, 2, 5, 3, 6]
    p = plan(report, OK, "--bootstrap k:9092", 0, 2)
    assert [s.broker for s in p.steps][-1] == 2 and p.steps[-1].controller
    assert p.steps[0].wait == "kafkatui check --bootstrap k:9092 --wait-restart-safe 1 --wait-timeout 10m"
    assert not p.blockers


def test_plan_names_blockers_with_fixes() -> None:
    two = topic("two", [(1, [1, 2], [1, 2])], min_insync_replicas="2")
    short = topic("short", [(1, [1, 2, 3], [1, 2])], min_insync_replicas="2")
    p = plan(assess(snap(two, short)), OK, "--bootstrap k:9092")
    (cannot,) = p.cannot
    assert cannot.topics == ("two",) and cannot.brokers == (1, 2)
    assert cannot.commands[0] == "kafkatui reassign --bootstrap k:9092 --topic two --rf 3 --write"
    assert "min.insync.replicas=1" in cannot.commands[1]
    (waits,) = p.waits
    assert "short" in waits.topics


def test_progress_is_one_updating_line_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    p = _Progress(tty)
    p.show("a", "a")
    p.show("b", "b")
    p.end()
    assert tty.getvalue() == "\r\x1b[2Ka\r\x1b[2Kb\r\x1b[2K"
    plain = io.StringIO()
    q = _Progress(plain)
    q.show("a 5s left", "a")
    q.show("a 4s left", "a")  # nothing changed but the clock: not repeated within 10 s
    q.show("b", "b")
    assert plain.getvalue() == "kafkatui: waiting: a 5s left\nkafkatui: waiting: b\n"
