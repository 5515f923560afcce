"""Broker logs of real ZooKeeper-mode Kafka 3.9.1 and 2.8.2 (tests/history/fixtures/real-kafka-3.9-zk/,
real-kafka-2.8/): the ZooKeeper forms are read, verbatim lines as the brokers wrote them, and the
leader / ISR / offline states of every partition are the ones `kafkatui record` saw in the same run
(within one refresh: tests/history/real_logs.py)."""

from __future__ import annotations

import pytest

from kafkatui.history.logparse import (
    BrokerLogEvent,
    is_known_line,
    looks_like_isr_line,
    parse_broker_lines,
    parse_line,
    parse_logs,
)
from tests.history import real_logs as rl

# verbatim lines of the fixtures (3.9.1 unless marked 2.8.2)
OFFLINE_39 = (
    "[2026-11-28 14:06:51,770] INFO [Controller id=3 epoch=2] Partition pair-0 state changed to (Leader:-1,ISR:1,"
    "LeaderRecoveryState:RECOVERED,LeaderEpoch:2,ZkVersion:3,ControllerEpoch:2) after removing replica 2 from the "
    "ISR as part of transition to OfflineReplica (state.change.logger)"
)
OFFLINE_28 = (
    "[2026-11-28 14:05:21,637] INFO [Controller id=1 epoch=2] Partition solo-1 state changed to (Leader:-1,ISR:2,"
    "LeaderEpoch:1,ZkVersion:1,ControllerEpoch:2) after removing replica 2 from the ISR as part of transition to "
    "OfflineReplica (state.change.logger)"
)
MOVED_28 = (
    "[2026-11-28 14:05:21,639] INFO [Controller id=1 epoch=2] Partition pair-0 state changed to (Leader:1,ISR:1,"
    "LeaderEpoch:1,ZkVersion:3,ControllerEpoch:2) after removing replica 2 from the ISR as part of transition to "
    "OfflineReplica (state.change.logger)"
)
NO_LEADER = (
    "[2026-11-28 14:05:18,488] ERROR [Broker id=1] Received LeaderAndIsrRequest with correlation id 1 from "
    "controller 2 epoch 1 for partition solo-0 (last update controller epoch 1) but cannot become follower since "
    "the new leader -1 is unavailable. (state.change.logger)"
)
ELECTED_39 = (
    "[2026-11-28 14:05:23,376] INFO [Controller id=2 epoch=1] Changed partition isr-0 from OfflinePartition to "
    "OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=1, isrWithBrokerEpoch=List(BrokerState("
    "brokerId=2, brokerEpoch=-1), BrokerState(brokerId=3, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, "
    "partitionEpoch=1) (state.change.logger)"
)
ELECTED_28 = (
    "[2026-11-28 14:03:34,712] INFO [Controller id=2 epoch=1] Changed partition isr-1 from NewPartition to "
    "OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=0, isr=List(2, 3, 1), zkVersion=0) "
    "(state.change.logger)"
)
DELETED = (
    "[2026-11-28 14:04:47,502] INFO [Controller id=2] Newly added brokers: , deleted brokers: 3, bounced brokers: , "
    "all live brokers: 1,2 (kafka.controller.KafkaController)"
)
ADDED = (
    "[2026-11-28 14:09:25,178] INFO [Controller id=3] Newly added brokers: 2, deleted brokers: , bounced brokers: , "
    "all live brokers: 1,2,3 (kafka.controller.KafkaController)"
)
LIVE = (
    "[2026-11-28 14:05:17,183] INFO [Controller id=1] Currently active brokers in the cluster: Set(1, 3) "
    "(kafka.controller.KafkaController)"
)
CALLBACK = (
    "[2026-11-28 14:04:49,411] INFO [Controller id=2] Broker failure callback for 3 (kafka.controller.KafkaController)"
)
FOLLOWER_28 = (
    "[2026-11-28 14:03:54,287] INFO [Broker id=1] Follower isr-2 starts at leader epoch 0 from offset 0 with high "
    "watermark 0. Previous leader epoch was -1. (state.change.logger)"
)
UPDATED_28 = (
    "[2026-11-28 14:04:07,188] INFO [Partition isr-0 broker=1] ISR updated to 1,3 and version updated to [2] "
    "(kafka.cluster.Partition)"
)
UPDATED_39 = (
    "[2026-11-28 14:06:11,184] INFO [Partition isr-2 broker=1] ISR updated to 1,2,3  and version updated to 6 "
    "(kafka.cluster.Partition)"
)


def test_the_controller_says_which_partitions_lost_their_leader_and_which_moved() -> None:
    for line, topic, isr, gone in ((OFFLINE_39, "pair", (1,), 2), (OFFLINE_28, "solo", (2,), 2)):
        ev = parse_line(line)
        assert ev is not None and (ev.kind, ev.topic, ev.leader, ev.new_isr) == ("offline", topic, -1, isr)
        assert ev.broker == gone  # the replica whose broker died, not the controller
        assert parse_broker_lines(line) == [BrokerLogEvent(ev.ts_ms, gone, "fenced")]
    moved = parse_line(MOVED_28)
    assert moved is not None and (moved.kind, moved.broker, moved.leader, moved.new_isr) == ("leader", 1, 1, (1,))
    for line, lead, isr in ((ELECTED_39, 2, (2, 3)), (ELECTED_28, 2, (2, 3, 1))):
        ev = parse_line(line)
        assert ev is not None and (ev.kind, ev.leader, ev.new_isr) == ("leader", lead, isr)


def test_a_follower_told_there_is_no_leader_sees_its_partition_offline() -> None:
    ev = parse_line(NO_LEADER)
    assert ev is not None and (ev.kind, ev.broker, ev.topic, ev.partition, ev.leader) == ("offline", 1, "solo", 0, -1)


def test_brokers_come_and_go_as_the_controller_sees_their_registrations() -> None:
    assert [(b.broker, b.kind) for b in parse_broker_lines(DELETED)] == [(3, "fenced")]
    assert [(b.broker, b.kind) for b in parse_broker_lines(ADDED)] == [(2, "unfenced")]
    assert [(b.broker, b.kind) for b in parse_broker_lines(LIVE)] == [(1, "live"), (3, "live")]
    assert parse_line(CALLBACK) is None and is_known_line(CALLBACK) and not looks_like_isr_line(CALLBACK)


def test_the_28_follower_line_and_isr_updates_are_understood() -> None:
    assert parse_line(FOLLOWER_28) is None and is_known_line(FOLLOWER_28) and not looks_like_isr_line(FOLLOWER_28)
    u28, u39 = parse_line(UPDATED_28), parse_line(UPDATED_39)
    assert u28 is not None and (u28.kind, u28.new_isr, u28.under_min_isr) == ("update", (1, 3), None)
    assert u39 is not None and (u39.new_isr, u39.under_min_isr) == ((1, 2, 3), False)


def test_a_resumed_controllers_failed_isr_update_carries_no_state() -> None:
    # 3.9 in ZooKeeper mode, the controller's broker resumed after a SIGSTOP longer than its session
    failed = (
        "[2026-11-29 00:15:20,569] ERROR [Controller id=3] Failed to update ISR for partition logs-rf3-0 "
        "(kafka.controller.KafkaController)"
    )
    assert parse_line(failed) is None and is_known_line(failed) and not looks_like_isr_line(failed)


def test_a_line_naming_a_partition_state_in_no_known_form_is_unparsed() -> None:
    cut = OFFLINE_39[: len(OFFLINE_39) // 2]  # the broker died mid-write
    assert parse_line(cut) is None and looks_like_isr_line(cut)
    odd = OFFLINE_39.replace("Leader:-1,ISR:1,", "Leader:none,ISR:1,")
    assert parse_line(odd) is None and looks_like_isr_line(odd)


@pytest.mark.parametrize("line", rl.ZK_LINES)
def test_every_line_of_the_real_logs_is_understood(line: str) -> None:
    events, report = parse_logs(rl.log_glob(line))
    assert report.files == 9 and report.problems == [] and report.unparsed == 0, report.unparsed_examples
    assert {e.topic for e in events} == {"isr", "pair", "solo"}
    assert {"shrink", "update", "leader", "offline"} <= {e.kind for e in events}
    assert report.broker_events >= 3


@pytest.mark.parametrize("line", rl.ZK_LINES)
def test_every_partition_has_the_states_the_recorder_saw(line: str) -> None:
    """Each of the 9 partitions: leader and ISR (or offline) as recorded, within one refresh. The
    recorder read these overloaded clusters every few seconds (not every 1 s), and on 2.8 once from a
    broker that had been paused and still named the old leader: `held_within`, not `match`."""
    events, _ = parse_logs(rl.log_glob(line))
    recs = rl.records(line)
    st = rl.stamps(recs)
    offline = set()
    for topic in ("isr", "pair", "solo"):
        for p in range(3):
            recorded, logged = rl.recorded_states(recs, topic, p), rl.logged_states(events, topic, p)
            assert rl.held_within(recorded, logged, st) == [], (topic, p, recorded, logged)
            if any(s.state == "offline" for s in recorded):
                offline.add(f"{topic}-{p}")
    assert offline  # the controller's broker was killed: its RF-1 partition (at least) went offline
