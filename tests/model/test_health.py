"""Partition classes, headroom, minISR sources, durability, broker signatures, cluster counts."""

from __future__ import annotations

import dataclasses

import pytest

from kafkatui.model.health import Health, assess, sort_topics_worst_first
from kafkatui.model.snapshot import (
    ASSUMED_DEFAULT,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
    STATIC_BROKER_CONFIG,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
    ReplicaLog,
    TopicInfo,
)
from kafkatui.model.whatif import restart_safety
from tests.model.builders import healthy, snap, topic

R = [1, 2, 3]


def every_class() -> ClusterSnapshot:
    strict = topic(
        "strict",
        [
            (-1, R, [1]),  # 0 offline
            (1, R, [1]),  # 1 under minISR 2
            (1, R, [1, 2]),  # 2 at minISR 2
            (2, [2, 3, 1], [2, 3, 1]),  # 3 healthy
            (3, [2, 3, 1], [2, 3, 1]),  # 4 non-preferred leader
        ],
        min_insync_replicas="2",
    )
    loose = topic(
        "loose",
        [
            (1, R, [1, 2]),  # minISR 1: under-replicated, not at minISR
            (1, R, [1, 2, 3]),
        ],
        min_insync_replicas="1",
    )
    return snap(strict, loose)


def test_every_class_is_told_apart() -> None:
    r = assess(every_class())
    assert [r.health("strict", p) for p in range(5)] == [
        Health.OFFLINE,
        Health.UNDER_MIN_ISR,
        Health.AT_MIN_ISR,
        Health.HEALTHY,
        Health.NON_PREFERRED_LEADER,
    ]
    assert r.health("loose", 0) == Health.UNDER_REPLICATED
    assert r.health("loose", 1) == Health.HEALTHY
    c = r.counts
    assert (c.offline, c.under_min_isr, c.at_min_isr, c.under_replicated, c.non_preferred_leader, c.healthy) == (
        1,
        1,
        1,
        1,
        1,
        2,
    )
    assert c.partitions == 7 and c.worst == Health.OFFLINE
    # Kafka's UnderReplicatedPartitions counts every led partition with ISR < replicas, whatever its class
    assert c.under_replicated_total == 3


def test_labels_and_symbols_are_distinct_and_ordered_worst_first() -> None:
    assert [h.label for h in Health] == [
        "offline",
        "under minISR",
        "at minISR",
        "under-replicated",
        "non-preferred leader",
        "healthy",
    ]
    assert len({h.symbol for h in Health}) == 6
    assert all(h.symbol.strip() for h in Health)
    assert Health.OFFLINE < Health.UNDER_MIN_ISR < Health.HEALTHY


def test_leader_not_among_listed_brokers_is_offline() -> None:
    s = snap(topic("t", [(4, [4, 1, 2], [4, 1, 2])]), brokers=(1, 2, 3))
    assert assess(s).health("t", 0) == Health.OFFLINE


def test_rf1_partitions_count_at_min_isr_like_kafkas_metric() -> None:
    r = assess(snap(healthy("dev.scratch", 3, rf=1)))
    assert r.counts.at_min_isr == 3
    assert r.topics["dev.scratch"].worst == Health.AT_MIN_ISR


def test_headroom_per_partition_and_per_topic() -> None:
    r = assess(every_class())
    assert r.partition("strict", 1).headroom == -1
    assert r.partition("strict", 2).headroom == 0
    assert r.partition("strict", 3).headroom == 1
    assert r.partition("strict", 0).headroom == -2  # offline: no writable ISR
    assert r.topics["strict"].min_headroom == -2
    assert r.topics["loose"].min_headroom == 1


def test_min_isr_source_chain() -> None:
    override = topic("override", [(1, R, R)], min_insync_replicas="3")
    inherited = topic("inherited", [(1, R, R)])
    s = snap(override, inherited, broker_configs={"min.insync.replicas": "2"})
    r = assess(s)
    assert (r.topics["override"].min_isr, r.topics["override"].min_isr_source) == (3, DYNAMIC_TOPIC_CONFIG)
    assert (r.topics["inherited"].min_isr, r.topics["inherited"].min_isr_source) == (2, STATIC_BROKER_CONFIG)
    assert r.health("override", 0) == Health.AT_MIN_ISR
    assert r.health("inherited", 0) == Health.HEALTHY
    assert r.partition("inherited", 0).min_isr_source == STATIC_BROKER_CONFIG

    # a dynamic broker config wins over nothing; no configs at all: Kafka's default, marked assumed
    dyn = snap(inherited)
    dyn = ClusterSnapshot(
        dyn.cluster_id,
        dyn.controller_id,
        dyn.brokers,
        dyn.topics,
        broker_configs={
            2: {"min.insync.replicas": ConfigValue("2", DYNAMIC_DEFAULT_BROKER_CONFIG)},
            1: {"min.insync.replicas": ConfigValue("2", DYNAMIC_BROKER_CONFIG)},
        },
    )
    assert assess(dyn).topics["inherited"].min_isr_source == DYNAMIC_BROKER_CONFIG
    bare = assess(snap(inherited)).topics["inherited"]
    assert (bare.min_isr, bare.min_isr_source) == (1, ASSUMED_DEFAULT)


def test_unreadable_min_isr_falls_back_to_assumed_default() -> None:
    r = assess(snap(topic("t", [(1, R, R)], min_insync_replicas="two")))
    assert (r.topics["t"].min_isr, r.topics["t"].min_isr_source) == (1, ASSUMED_DEFAULT)


def test_out_of_sync_replicas_carry_byte_and_offset_lag_from_log_dirs() -> None:
    logs = {("t", 0, 1): ReplicaLog(10_000, 0), ("t", 0, 2): ReplicaLog(10_000, 0), ("t", 0, 3): ReplicaLog(4_000, 120)}
    r = assess(snap(topic("t", [(1, R, [1, 2])]), log_dirs=logs))
    (oos,) = r.partition("t", 0).out_of_sync
    assert (oos.broker, oos.up, oos.byte_lag, oos.offset_lag) == (3, True, 6_000, 120)
    (unknown,) = assess(snap(topic("t", [(1, R, [1, 2])]))).partition("t", 0).out_of_sync
    assert unknown.byte_lag is None and unknown.offset_lag is None


@pytest.mark.parametrize(
    ("rf", "min_isr", "unclean", "isr", "loss", "writes", "blocked"),
    [
        (3, 2, "false", [1, 2, 3], 1, 1, False),  # the durable triple
        (3, 3, "false", [1, 2, 3], 2, 0, False),  # minISR == RF: durable, no write tolerance
        (3, 4, "false", [1, 2, 3], 2, 0, True),  # minISR > RF: writes blocked
        (3, 1, "false", [1, 2, 3], 0, 2, False),  # minISR 1: leader alone acknowledges
        (3, 2, "true", [1], 0, 1, False),  # unclean on, ISR of one: next failure loses data
        (3, 2, "false", [1], 1, 1, False),  # same ISR, unclean off: offline rather than loss
        (3, 2, "true", [1, 2, 3], 1, 1, False),  # unclean on, full ISR: structural bound
        (1, 1, "false", [1], 0, 0, False),
    ],
)
def test_durability(rf: int, min_isr: int, unclean: str, isr: list[int], loss: int, writes: int, blocked: bool) -> None:
    reps = R[:rf]
    t = topic("t", [(1, reps, isr)], min_insync_replicas=str(min_isr), unclean_leader_election_enable=unclean)
    th = assess(snap(t)).topics["t"]
    assert (th.loss_tolerance, th.write_tolerance, th.writes_blocked) == (loss, writes, blocked)
    assert th.unclean == (unclean == "true")


def test_topic_summary() -> None:
    t = topic(
        "mixed",
        [(1, R, R), (2, [2, 3], [2, 3]), (3, [3, 1, 2], [3])],
        min_insync_replicas="2",
        unclean_leader_election_enable="true",
    )
    th = assess(snap(t)).topics["mixed"]
    assert (th.rf, th.min_rf, th.partitions) == (3, 2, 3)
    assert th.worst == Health.UNDER_MIN_ISR
    assert th.count(Health.UNDER_MIN_ISR) == 1 and th.count(Health.AT_MIN_ISR) == 1 and th.affected == 2
    assert (th.unclean, th.unclean_source) == (True, DYNAMIC_TOPIC_CONFIG)
    assert th.write_tolerance == 0  # its RF 2 partition tolerates nothing with minISR 2


def test_internal_flag() -> None:
    r = assess(snap(topic("__consumer_offsets", [(1, R, R)]), healthy("orders", 1)))
    assert r.topics["__consumer_offsets"].internal and not r.topics["orders"].internal


def test_topics_sort_worst_first_then_breadth_then_name() -> None:
    s = snap(
        topic("b-two-offline", [(-1, R, [1]), (-1, R, [2])]),
        topic("a-one-offline", [(-1, R, [1]), (1, R, [1, 2])]),
        topic("c-one-offline", [(-1, R, [1])]),
        topic("under", [(1, R, [1])], min_insync_replicas="2"),
        healthy("z-fine", 2),
        healthy("y-fine", 2),
    )
    order = [t.name for t in sort_topics_worst_first(assess(s).topics.values())]
    assert order == ["b-two-offline", "a-one-offline", "c-one-offline", "under", "y-fine", "z-fine"]


def test_broker_counts_and_missing_from_all_isrs_signature() -> None:
    # broker 3 is up, in every replica list, in no ISR; broker 2 leads a partition preferred by 1
    t = topic("orders", [(1, R, [1, 2]), (2, [2, 3, 1], [2, 1]), (2, [1, 3, 2], [2, 1])], min_insync_replicas="2")
    r = assess(snap(t, healthy("other", 2, rf=2, brokers=2)))
    b1, b2, b3 = r.brokers[1], r.brokers[2], r.brokers[3]
    assert b3.up and b3.missing_from_all_isrs and b3.out_of_isr == 3 and b3.led == 0
    assert not b1.missing_from_all_isrs and not b2.missing_from_all_isrs
    assert (b1.hosted, b1.led, b1.preferred, b1.preferred_led) == (5, 2, 3, 2)
    assert (b2.led, b2.preferred_led) == (3, 2)
    assert b1.controller and not b2.controller
    assert r.brokers_worst_first()[0].id == 3


def test_missing_from_most_isrs() -> None:
    t = topic("t", [(1, R, [1, 2]), (1, R, [1, 2]), (1, R, R)])
    b3 = assess(snap(t)).brokers[3]
    assert b3.missing_from_most_isrs and not b3.missing_from_all_isrs


def test_offline_partitions_do_not_make_a_broker_look_missing() -> None:
    t = topic("t", [(-1, [3], [3]), (1, [1, 3], [1, 3])])
    assert not assess(snap(t)).brokers[3].missing_from_all_isrs


def test_absent_broker_is_known_from_replica_lists() -> None:
    s = snap(topic("t", [(1, [1, 4], [1]), (-1, [4], [4])]), brokers=(1, 2, 3))
    r = assess(s)
    b4 = r.brokers[4]
    assert not b4.up and b4.absent and b4.host is None and b4.hosted == 2
    assert r.counts.brokers_up == 3 and r.counts.brokers_total == 4 and r.counts.brokers_absent == (4,)


@pytest.mark.parametrize("refused", [frozenset(), frozenset({3}), frozenset({2}), frozenset({1, 4})])
def test_restart_numbers_match_restart_safety_for_every_broker(refused: frozenset[int]) -> None:
    """The broker table's restart column and the restart advice agree, also with brokers refusing
    connections (listed, down, not yet fenced)."""
    s = snap(
        topic("orders", [(1, R, [1, 2]), (2, [2, 3, 1], [2, 3]), (3, [3, 1, 2], [3, 1, 2])], min_insync_replicas="2"),
        topic("logs", [(1, [1], [1]), (2, [2, 3], [2])]),
        topic("ledger", [(1, R, [1])], min_insync_replicas="2"),
        brokers=(1, 2, 3, 4),
    )
    s = dataclasses.replace(s, refused=refused)
    r = assess(s)
    for b in (1, 2, 3, 4):
        rs = restart_safety(s, b)
        bh = r.brokers[b]
        assert (bh.restart_safe, bh.restart_under_min_isr, bh.restart_offline, bh.restart_topics) == (
            rs.safe,
            rs.under_min_isr,
            rs.offline,
            len(rs.topics),
        ), b
    if not refused:
        assert (r.brokers[1].restart_under_min_isr, r.brokers[1].restart_offline) == (1, 2)
        # orders-1 (ISR [2,3]) newly, and ledger-0 (ISR [1], min ISR 2) already under min ISR: broker 3
        # is catching up outside its ISR, and restarting it keeps that partition's acks=all writes failing
        assert r.brokers[3].restart_under_min_isr == 2 and r.brokers[3].restart_offline == 0


def test_partition_lookup_when_partitions_are_not_in_order() -> None:
    parts = (PartitionInfo("t", 2, 1, (1, 2), (1,)), PartitionInfo("t", 0, 1, (1, 2), (1, 2)))
    s = snap(TopicInfo("t", parts))
    r = assess(s)
    assert r.health("t", 2) == Health.AT_MIN_ISR  # ISR 1 == default minISR 1
    assert r.partition("t", 0).health == Health.HEALTHY
    with pytest.raises(KeyError):
        r.health("t", 1)


def test_partitions_iteration_filters_by_class() -> None:
    r = assess(every_class())
    names = [p.name for p in r.partitions(classes=[Health.OFFLINE, Health.UNDER_MIN_ISR])]
    assert names == ["strict-0", "strict-1"]
    assert len(list(r.partitions("loose"))) == 2
    (p,) = list(r.partitions("strict", [Health.NON_PREFERRED_LEADER]))
    assert p.non_preferred and p.preferred_leader == 2 and p.leader == 3
