"""What-if (brokers taken down) and restart safety."""

from __future__ import annotations

from kafkatui.model.whatif import UNCLEAN_NOTE, restart_safety, what_if
from tests.model.builders import healthy, snap, topic

R = [1, 2, 3]


def rf3_min2() -> list[tuple[int, list[int], list[int]]]:
    """10 fully in-sync partitions and 2 whose ISR already lost broker 3."""
    specs = [
        (((i % 3) + 1), [((i + j) % 3) + 1 for j in range(3)], [((i + j) % 3) + 1 for j in range(3)]) for i in range(10)
    ]
    specs += [(1, R, [1, 2]), (2, [2, 1, 3], [2, 1])]
    return specs


def test_two_of_three_down_rf3_min_isr2_exact_counts() -> None:
    s = snap(topic("orders", rf3_min2(), min_insync_replicas="2"))
    w = what_if(s, {1, 2})
    # the 2 partitions whose only in-sync copies were on 1 and 2 go offline; the 10 others keep broker 3 alone
    assert sorted(p.name for p in w.offline) == ["orders-10", "orders-11"]
    assert len(w.under_min_isr) == 10
    assert len(w.single_in_sync_copy) == 10
    assert w.lost_last_in_sync_copy == w.offline
    assert not w.safe
    t = w.topics["orders"]
    assert (t.offline, t.under_min_isr, t.single_in_sync_copy) == (2, 10, 10)
    assert all(p.leader_after == 3 and p.live_isr == (3,) for p in w.under_min_isr)
    assert w.summary() == (
        "taking brokers 1, 2 down puts 10 partitions of 1 topic under minISR and takes 2 partitions of 1 topic offline"
    )


def test_offline_with_unclean_enabled_notes_data_loss() -> None:
    s = snap(topic("clicks", [(1, R, [1]), (1, [1], [1])], unclean_leader_election_enable="true"))
    w = what_if(s, {1})
    by_name = {p.name: p for p in w.offline}
    assert by_name["clicks-0"].unclean_possible and by_name["clicks-0"].note == UNCLEAN_NOTE
    assert not by_name["clicks-1"].unclean_possible  # no replica left at all
    assert UNCLEAN_NOTE in w.summary()


def test_offline_without_unclean_has_no_note() -> None:
    w = what_if(snap(topic("t", [(1, R, [1])])), {1})
    (p,) = w.offline
    assert not p.unclean_possible and p.note == ""


def test_new_leader_is_first_live_isr_member_in_replica_order() -> None:
    s = snap(topic("t", [(1, [1, 3, 2], [1, 2, 3])], min_insync_replicas="1"), brokers=(1, 2, 3))
    w = what_if(s, {1})
    assert w.leaders_moved == 1 and w.safe
    s2 = snap(topic("t", [(1, [1, 3, 2], [1, 2])], min_insync_replicas="2"))
    (p,) = what_if(s2, {1}).under_min_isr
    assert p.leader_after == 2  # 3 is not in the ISR


def test_already_down_brokers_are_counted_in() -> None:
    # broker 3 is absent from metadata; its stale ISR entry does not count as a live copy
    s = snap(topic("t", [(1, R, R)], min_insync_replicas="2"), brokers=(1, 2))
    w = what_if(s, {1})
    assert w.already_down == frozenset({3})
    assert len(w.under_min_isr) == 1 and not w.offline


def test_already_under_min_isr_is_not_counted_again_but_going_offline_is() -> None:
    s = snap(topic("t", [(1, R, [1]), (1, R, [1, 2])], min_insync_replicas="3"))
    w = what_if(s, {2})
    assert w.already_under_min_isr == 2
    assert not w.under_min_isr and not w.offline
    assert [p.name for p in what_if(s, {1}).offline] == ["t-0"]


def test_already_offline_partitions_are_apart() -> None:
    w = what_if(snap(topic("t", [(-1, R, [3]), (1, R, R)])), {3})
    assert w.already_offline == 1 and not w.offline and w.safe


def test_restart_safety_message_counts_partitions_and_topics() -> None:
    at_min = [(1, R, [1, 3]), (2, [2, 3, 1], [2, 3]), (3, [3, 1, 2], [3, 1])]
    s = snap(
        topic("orders", at_min, min_insync_replicas="2"),
        topic("payments", at_min[:2], min_insync_replicas="2"),
        healthy("logs", 3),
    )
    rs = restart_safety(s, 3)
    assert not rs.safe and rs.under_min_isr == 5 and rs.offline == 0
    assert rs.topics == ("orders", "payments")
    assert rs.message == "restarting broker 3 now puts 5 partitions of 2 topics under minISR"


def test_restart_safety_single_partition_and_offline_wording() -> None:
    s = snap(topic("orders", [(1, R, [1, 2])], min_insync_replicas="2"), topic("dev.x", [(1, [1], [1])]))
    rs = restart_safety(s, 1)
    assert rs.message == (
        "restarting broker 1 now puts 1 partition of 1 topic under minISR and takes 1 partition of 1 topic offline"
    )


def test_restart_safe_and_absent() -> None:
    s = snap(healthy("orders", 6, min_insync_replicas="2"))
    rs = restart_safety(s, 2)
    assert rs.safe and rs.message == "restarting broker 2 now keeps every partition online and at or above minISR"
    gone = restart_safety(snap(topic("t", [(1, [1, 9], [1])])), 9)
    assert gone.safe and "already down" in gone.message
    assert restart_safety(s, 42).message == "broker 42 is not in metadata and holds no replica"
