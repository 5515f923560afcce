"""Offline advice follows Kafka's election order: ISR, then ELR (KIP-966, Kafka 4.1), then the last known
leader, then an unclean election; the finding names the broker that brings the partition back."""

from __future__ import annotations

import dataclasses

from kafkatui.model.election_order import IN_ELR, IN_ISR, LAST_LEADER, UNCLEAN, next_leaders, restore_advice
from kafkatui.model.findings import findings
from kafkatui.model.health import assess
from kafkatui.model.snapshot import PartitionInfo, TopicInfo
from tests.model.builders import snap


def leaderless(pid: int, replicas: tuple[int, ...], isr: tuple[int, ...] = (), **kw: object) -> PartitionInfo:
    return PartitionInfo("clickstream", pid, -1, replicas, isr, **kw)  # type: ignore[arg-type]


def test_the_order_is_isr_then_elr_then_last_known_leader_then_unclean() -> None:
    assert next_leaders(leaderless(0, (2, 3), (3,))) == next_leaders(leaderless(0, (2, 3), (3,), elr=()))
    assert next_leaders(leaderless(0, (2, 3), (3,))).rule == IN_ISR
    elr = next_leaders(leaderless(0, (1, 2, 3), (), elr=(3,), last_known_elr=(2,)))
    assert (elr.brokers, elr.rule) == ((3,), IN_ELR)  # not 2, though it was in the ISR once too
    assert next_leaders(leaderless(0, (1, 2, 3), (), elr=(3, 2))).brokers == (2, 3)  # replica order
    last = next_leaders(leaderless(0, (1, 2, 3), (), elr=(), last_known_elr=(3,)))
    assert (last.brokers, last.rule) == ((3,), LAST_LEADER)
    assert next_leaders(leaderless(0, (1, 2), (), elr=(), last_known_elr=())).rule == UNCLEAN


def test_advice_names_the_eligible_leader_replica_only() -> None:
    assert restore_advice([leaderless(1, (1, 2, 3), (), elr=(3,))]) == (
        "bring back broker 3: it is the eligible leader replica (KIP-966): it becomes leader with every "
        "acknowledged write"
    )
    both = restore_advice([leaderless(1, (2, 3), (), elr=(3,)), leaderless(2, (2, 3), (2,))])
    assert "for clickstream-1, bring back broker 3: it is the eligible leader replica" in both
    assert "for clickstream-2, bring back broker 2: it is the last in-sync replica" in both


def test_the_offline_finding_names_the_elr_broker_not_every_down_replica() -> None:
    """The walk's clickstream-1: brokers 2 and 3 down, ELR [3]. It said "bring back a broker that was
    in the ISR (2, 3)" and "only bringing back one of brokers 2, 3 helps"; only 3 brought it back."""
    parts = (
        leaderless(0, (1, 2, 3), (), elr=(3,), last_known_elr=(2,)),
        PartitionInfo("clickstream", 1, 1, (1, 2, 3), (1,), elr=(), last_known_elr=()),
    )
    s = snap(TopicInfo("clickstream", parts), brokers=(1,))
    s = dataclasses.replace(s, topics={"clickstream": TopicInfo("clickstream", parts)})
    f = next(f for f in findings(assess(s), s, bootstrap="kafka:9092") if f.id == "offline")
    assert (
        "Bring back broker 3: it is the eligible leader replica (KIP-966): it becomes leader with every "
        "acknowledged write." in f.steps
    )
    assert not any("2, 3" in step for step in f.steps), f.steps
    dead = (leaderless(0, (2, 3), (), elr=(3,)),)
    s = dataclasses.replace(s, topics={"clickstream": TopicInfo("clickstream", dead)})
    f = next(f for f in findings(assess(s), s, bootstrap="kafka:9092") if f.id == "offline")
    assert "No replica of clickstream-0 is alive: only broker(s) 3 bring them back as leader" in " ".join(f.steps)


def test_without_elr_the_last_isr_member_is_named() -> None:
    parts = (leaderless(0, (1, 2, 3), (2,)),)
    s = snap(TopicInfo("t", parts), brokers=(1,))
    f = next(f for f in findings(assess(s), s, bootstrap="kafka:9092") if f.id == "offline")
    assert any(st.startswith("Bring back broker 2: it is the last in-sync replica") for st in f.steps), f.steps
