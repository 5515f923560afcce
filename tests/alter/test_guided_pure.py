"""Election and reassignment planning from hand-made snapshots: no network."""

from __future__ import annotations

import json
import shlex

import pytest

from kafkatui.alter.elect import (
    data_loss_warning,
    election_command,
    leader_counts,
    preferred_plan,
    select_topics,
    unclean_plan,
)
from kafkatui.alter.errors import NotApplicableError
from kafkatui.alter.reassign import (
    PartitionMove,
    moves_from_records,
    plan_replication_factor,
    progress,
    reassign_commands,
    reassignment_json,
    rf_risks,
)
from kafkatui.kafka.errors import UsageError
from kafkatui.model.snapshot import ReplicaLog
from tests.model.builders import healthy, snap, topic

SIX_ON_THREE_RACKS = {1: "a", 2: "b", 3: "c", 4: "a", 5: "b", 6: "c"}


# ----------------------------------------------------------------------------- preferred
def test_preferred_plan_moves_what_it_can_and_says_why_not_the_rest() -> None:
    s = snap(
        topic(
            "orders",
            [
                (2, [1, 2, 3], [1, 2, 3]),  # moves back to 1
                (2, [2, 3, 1], [2, 3, 1]),  # already preferred
                (3, [1, 2, 3], [2, 3]),  # 1 out of the ISR
                (3, [4, 3, 2], [3, 2]),
            ],
        ),  # 4 is down (not in metadata)
        brokers=(1, 2, 3),
    )
    plan = preferred_plan(s, ["orders"])
    assert [(m.name, m.leader, m.preferred) for m in plan.moves] == [("orders-0", 2, 1)]
    assert [(k.partition, k.reason) for k in plan.skipped] == [
        (2, "preferred replica 1 is not in the ISR [2, 3]"),
        (3, "preferred replica 4 is down"),
    ]
    assert plan.before == {1: 0, 2: 2, 3: 2, 4: 0}
    assert plan.after == {1: 1, 2: 1, 3: 2, 4: 0}


def test_preferred_plan_only_named_partitions() -> None:
    s = snap(topic("orders", [(2, [1, 2], [1, 2]), (1, [2, 1], [2, 1])]))
    assert [m.partition for m in preferred_plan(s, ["orders"], [1]).moves] == [1]
    with pytest.raises(UsageError, match="has no partition 5"):
        preferred_plan(s, ["orders"], [5])


def test_select_topics() -> None:
    s = snap(healthy("b", 1), healthy("a", 1))
    assert select_topics(s, [], True) == ["a", "b"]
    assert select_topics(s, ["b", "b"], False) == ["b"]
    with pytest.raises(UsageError, match="unknown topic 'zz'"):
        select_topics(s, ["zz"], False)
    with pytest.raises(UsageError):
        select_topics(s, [], False)


def test_leader_counts_list_brokers_that_lead_nothing() -> None:
    assert leader_counts(snap(topic("t", [(1, [1, 2], [1, 2]), (-1, [3], [3])]))) == {1: 1, 2: 0, 3: 0}


# ----------------------------------------------------------------------------- unclean
def test_unclean_plan_refuses_a_partition_with_a_leader() -> None:
    s = snap(healthy("orders", 2))
    with pytest.raises(NotApplicableError, match="orders-1 is not offline"):
        unclean_plan(s, "orders", 1)


def test_unclean_plan_refuses_when_no_replica_is_alive() -> None:
    s = snap(topic("orders", [(-1, [4, 5], [4])]), brokers=(1, 2, 3))
    with pytest.raises(NotApplicableError, match="none of its replicas"):
        unclean_plan(s, "orders", 0)


def test_a_leader_the_metadata_no_longer_lists_is_offline_not_led() -> None:
    """ZooKeeper mode can name a dead broker as the leader of a partition none of whose replicas is alive:
    the partition is offline (as the health model says), so the refusal names the missing replicas."""
    s = snap(topic("orders", [(4, [4], [4]), (5, [5, 1], [5])]), brokers=(1, 2, 3))
    with pytest.raises(NotApplicableError, match="orders-0 is offline and none of its replicas"):
        unclean_plan(s, "orders", 0)
    plan = unclean_plan(s, "orders", 1)  # its replica on broker 1 is alive: a candidate
    assert [c.broker for c in plan.candidates] == [1]


def test_unclean_warning_names_the_candidate_and_its_lag() -> None:
    logs = {("pay", 0, 2): ReplicaLog(size=4096, offset_lag=120)}
    s = snap(topic("pay", [(-1, [1, 2, 3], [1])]), brokers=(2, 3), log_dirs=logs)
    plan = unclean_plan(s, "pay", 0)
    assert plan.likely.broker == 2 and [c.broker for c in plan.candidates] == [2, 3]
    text = "\n".join(data_loss_warning(plan))
    assert "candidate: broker 2 (replicas [1, 2, 3], last ISR [1])" in text
    assert "it is at least 120 offsets behind" in text and "it holds 4.0 KiB (4,096 bytes)" in text
    assert "last in-sync replica(s) [1] are down" in text
    assert "another live replica: broker 3 (? offsets behind)" in text
    zero = {("pay", 0, 2): ReplicaLog(size=0, offset_lag=0)}
    text = "\n".join(
        data_loss_warning(unclean_plan(snap(topic("pay", [(-1, [1, 2], [1])]), brokers=(2,), log_dirs=zero), "pay", 0))
    )
    assert "reports no offset lag" in text and "can show 0 and still be behind" in text


def test_election_commands_split_as_a_shell_would() -> None:
    one = shlex.split(election_command("unclean", "k:9092", {"pay": [0]}))
    assert one[one.index("--election-type") + 1] == "UNCLEAN" and one[-4:] == ["--topic", "pay", "--partition", "0"]
    assert election_command("preferred", "k:9092", None).endswith("--all-topic-partitions")
    many = election_command("preferred", "k:9092", {"a": [0, 1]})
    doc = json.loads(shlex.split(many)[1])
    assert doc == {"partitions": [{"topic": "a", "partition": 0}, {"topic": "a", "partition": 1}]}


# ----------------------------------------------------------------------------- reassignment planner
def test_raise_rf_spreads_racks_keeps_the_leader_first_and_picks_the_least_loaded() -> None:
    busy = topic("busy", [(2, [2], [2]), (2, [2], [2]), (3, [3], [3])])  # 2 and 3 carry load
    s = snap(topic("orders", [(1, [1], [1]), (5, [4, 5], [4, 5])]), busy, brokers=range(1, 7), racks=SIX_ON_THREE_RACKS)
    plan = plan_replication_factor(s, "orders", 3)
    first, second = plan.moves
    assert first.new[0] == 1 and set(first.adding) == {5, 6}  # b: 5 (not busy 2), c: 6 (not busy 3)
    assert second.new[:2] == (5, 4)  # the current leader first, existing replicas kept
    assert {SIX_ON_THREE_RACKS[r] for r in second.new} == {"a", "b", "c"}
    assert sorted(plan.rack_list(first.new)) == ["a", "b", "c"] and first.new[1] == 6  # 6 hosts nothing yet


def test_raise_rf_with_fewer_racks_than_replicas_balances_the_racks() -> None:
    s = snap(topic("t", [(1, [1], [1])]), brokers=(1, 2, 3, 4), racks={1: "a", 2: "b", 3: "a", 4: "b"})
    (move,) = plan_replication_factor(s, "t", 3).moves
    racks = [{1: "a", 2: "b", 3: "a", 4: "b"}[r] for r in move.new]
    assert sorted(racks) == ["a", "a", "b"] and move.new[0] == 1


def test_raise_rf_without_racks_uses_load_only_and_never_a_down_broker() -> None:
    s = snap(topic("t", [(1, [1], [1]), (1, [1], [1])]), healthy("x", 2, rf=1, brokers=2), brokers=(1, 2, 3, 4))
    plan = plan_replication_factor(s, "t", 2)
    assert [m.new for m in plan.moves] == [(1, 3), (1, 4)]  # 2 hosts x; 3 then 4 least loaded
    assert all(r in (1, 2, 3, 4) for m in plan.moves for r in m.new)


def test_lower_rf_keeps_the_leader_and_drops_out_of_sync_replicas_first() -> None:
    s = snap(topic("t", [(2, [1, 2, 3], [2, 3])]), brokers=(1, 2, 3))
    (move,) = plan_replication_factor(s, "t", 2).moves
    assert move.new == (2, 3) and move.removing == (1,)
    (move,) = plan_replication_factor(s, "t", 1).moves
    assert move.new == (2,)


def test_planner_refusals_and_nothing_to_do() -> None:
    s = snap(healthy("t", 2, rf=3))
    with pytest.raises(NotApplicableError, match="only 3 broker"):
        plan_replication_factor(s, "t", 4)
    with pytest.raises(UsageError):
        plan_replication_factor(s, "t", 0)
    with pytest.raises(UsageError, match="unknown topic"):
        plan_replication_factor(s, "nope", 2)
    assert plan_replication_factor(s, "t", 3).moves == ()


def test_reassignment_json_and_its_rollback_parse() -> None:
    moves = [PartitionMove("t", 0, (1,), (1, 2, 3))]
    doc = json.loads(reassignment_json(moves))
    assert doc == {
        "version": 1,
        "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 2, 3], "log_dirs": ["any", "any", "any"]}],
    }
    assert json.loads(reassignment_json(moves, rollback=True))["partitions"][0]["replicas"] == [1]
    execute, verify, rollback = (
        shlex.split(line.split("   #")[0]) for line in reassign_commands("k:9092", throttle=5000)
    )
    assert execute[-4:] == ["reassign.json", "--execute", "--throttle", "5000"] and verify[-1] == "--verify"
    assert rollback[-2:] == ["rollback.json", "--execute"] and "--throttle" not in reassign_commands("k:9092")[0]


def test_moves_from_audit_records_go_back() -> None:
    rec = {"resource": {"topic": "t", "partition": 2}, "before": {"replicas": [1]}, "after": {"replicas": [1, 2]}}
    assert moves_from_records([rec]) == (PartitionMove("t", 2, (1, 2), (1,)),)


def test_progress_counts_replicas_in_the_isr_and_finished_partitions() -> None:
    moves = [PartitionMove("t", 0, (1,), (1, 2, 3)), PartitionMove("t", 1, (2,), (2, 3, 1))]
    s = snap(topic("t", [(1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2])]))
    state = progress(moves, s, ongoing=[("t", 1)])
    assert (state.finished, state.in_isr, state.adding, state.pending) == (1, 2, 4, ("t-1",))
    assert not state.done
    assert progress(moves[:1], s, ongoing=[("t", 0)]).finished == 0  # still listed as ongoing
    # a kept replica on a down broker (4) does not hold the partition up; a lowered one finishes with its set
    kept = [PartitionMove("u", 0, (4,), (4, 1)), PartitionMove("u", 1, (1, 2, 3), (1, 2))]
    down = snap(topic("u", [(1, [4, 1], [1]), (1, [1, 2], [1, 2])]))
    assert progress(kept, down, ongoing=[]).done


@pytest.mark.parametrize(
    ("rf", "min_isr", "fragment"),
    [
        (1, "2", "every acks=all write to t will fail"),
        (2, "2", "any broker loss stops acks=all writes"),
        (1, "1", "RF 1: t keeps a single copy"),
        (3, "1", "acknowledged by the leader alone"),
        (3, "2", None),
    ],
)
def test_rf_risks(rf: int, min_isr: str, fragment: str | None) -> None:
    risks = rf_risks(snap(topic("t", [(1, [1], [1])], min_insync_replicas=min_isr)), "t", rf)
    assert (fragment is None and risks == []) or (len(risks) == 1 and fragment in risks[0])


@pytest.mark.parametrize(
    "racks",
    [SIX_ON_THREE_RACKS, None, {1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}],
    ids=["3 racks", "none", "pairs"],
)
def test_the_findings_planner_and_reassign_place_replicas_by_one_rule(racks: dict[int, str] | None) -> None:
    """Raising RF 1 -> 3 with `kafkatui reassign` and with the findings' rf plan picks the same brokers."""
    from kafkatui.model.health import assess
    from kafkatui.model.reassign_plans import Planner

    busy = topic("busy", [(2, [2], [2]), (2, [2, 4], [2, 4]), (3, [3], [3])])
    s = snap(topic("t", [(1, [1], [1]), (5, [5], [5]), (6, [6], [6])]), busy, brokers=range(1, 7), racks=racks)
    by_reassign = [m.new for m in plan_replication_factor(s, "t", 3).moves]
    planner = Planner(assess(s), s)
    by_findings = [tuple(new) for _, _, new in planner.raise_rf(s.topics["t"].partitions, 3, "rf.json").moves]
    assert by_reassign == by_findings and len(by_reassign) == 3
