"""The shipped scenarios show what they promise, at the moments they promise it.

Every scenario is built on a manual clock and played with ScenarioPlayer.advance, then checked
the way an operator would look at it: counts from summary(), which broker is missing from the
ISRs, who leads what, producer counters, and the events that explain it. The scenario files'
error messages are tested too (file and line of the problem).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

from kafkatui.sim import errors as E
from kafkatui.sim import scenario
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.events import EventKind, SimEvent
from kafkatui.sim.scenario import Scenario, ScenarioError, ScenarioPlayer, parse_duration
from kafkatui.sim.state import BrokerState, Partition

START_MS = 1_763_600_000_000

SHIPPED = {
    "healthy",
    "slow-follower",
    "one-broker-down",
    "two-brokers-down",
    "min-isr-equals-rf",
    "min-isr-above-rf",
    "broker-missing-from-isrs",
    "isr-flapping",
    "unclean-election",
    "non-preferred-leaders",
    "dev-cluster",
    "incident",
    "big",
}


# --------------------------------------------------------------------------- helpers
class Play:
    """A shipped scenario on a manual clock, advanced to named moments of its timeline."""

    def __init__(self, name: str) -> None:
        self.scenario: Scenario = scenario.load(name)
        self.cluster: SimCluster = self.scenario.build(VirtualClock(manual=True, start_ms=START_MS))
        self.player = ScenarioPlayer(self.scenario, self.cluster)

    def at(self, moment: str) -> SimCluster:
        """Advance to `moment` after the scenario started (e.g. '2m30s')."""
        target = parse_duration(moment)
        assert target >= self.player.elapsed_ms, f"{moment} is in the past"
        self.player.advance(target - self.player.elapsed_ms)
        return self.cluster

    def counters(self) -> dict[str, tuple[int, int]]:
        """(accepted, rejected) per loaded topic."""
        return {t: (ld.accepted, ld.rejected) for t, ld in self.cluster.loads.items()}

    def events(self, kind: EventKind, since: str = "0s") -> list[SimEvent]:
        after = START_MS + parse_duration(since)
        return [e for e in self.cluster.events.of_kind(kind) if e.ts_ms >= after]


def partitions(c: SimCluster, topics: Iterable[str] | None = None) -> list[Partition]:
    wanted = set(topics) if topics is not None else None
    return [p for p in c.partitions() if wanted is None or p.topic in wanted]


def missing_from_isr(c: SimCluster) -> Counter[int]:
    """How many ISRs each broker is missing from (among the partitions it hosts)."""
    return Counter(r for p in c.partitions() for r in p.replicas if r not in p.isr)


def leaders(c: SimCluster) -> Counter[int]:
    return Counter(p.leader for p in c.partitions())


def not_preferred(c: SimCluster) -> list[Partition]:
    return [p for p in c.partitions() if p.leader != p.preferred_leader]


def delta(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]], topic: str) -> tuple[int, int]:
    """Records accepted and rejected for `topic` between two counter snapshots."""
    return after[topic][0] - before[topic][0], after[topic][1] - before[topic][1]


def healthy(c: SimCluster) -> None:
    s = c.summary()
    assert (s["offline"], s["under_min_isr"], s["under_replicated"]) == (0, 0, 0), s
    for p in c.partitions():
        assert sorted(p.isr) == sorted(p.replicas), p.name


# --------------------------------------------------------------------------- catalogue
def test_the_shipped_scenarios_are_the_documented_set() -> None:
    assert set(scenario.shipped()) == SHIPPED


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_scenario_loads_and_explains_itself(name: str) -> None:
    sc = scenario.load(name)
    assert sc.name == name
    assert len(sc.description.split()) >= 25, "the description should tell an operator what they will see"
    for step in sc.timeline:
        broker = step.args.get("broker")
        assert broker is None or 1 <= broker <= sc.brokers
    names = {t.name for t in sc.topics}
    assert {ld["topic"] for ld in sc.loads} <= names
    if name != "big":  # big is built by its own test (it takes a couple of seconds)
        c = sc.build(VirtualClock(manual=True, start_ms=START_MS))
        assert set(c.topics) == names
        assert c.summary()["offline"] == 0


def test_scenarios_use_business_topic_names() -> None:
    business = {"orders", "payments", "clickstream", "audit-log", "inventory", "invoices", "telemetry"}
    for name in SHIPPED - {"big"}:
        topics = [t.name.removeprefix("dev.") for t in scenario.load(name).topics]
        assert any(t.startswith(tuple(business)) for t in topics), name


# --------------------------------------------------------------------------- healthy
def test_healthy_stays_green_through_the_traffic_peak() -> None:
    play = Play("healthy")
    c = play.at("1m")
    healthy(c)
    assert not not_preferred(c)
    assert Counter(leaders(c).values()).most_common(1)[0][1] >= 2  # leadership spread evenly
    before = play.counters()
    play.at("5m")  # inside the 3m-8m peak
    peak = play.counters()
    healthy(c)
    for topic in before:
        accepted, rejected = delta(before, peak, topic)
        assert accepted > 0 and rejected == 0, topic
    assert delta(before, peak, "clickstream")[0] > 30000 * 120  # the peak rate was applied
    play.at("10m")
    healthy(c)
    assert all(ld.rejected == 0 for ld in c.loads.values())
    assert not play.events(EventKind.ISR_SHRINK) and not play.events(EventKind.LEADER_CHANGE)


# --------------------------------------------------------------------------- slow-follower
def test_slow_follower_drops_out_of_the_busy_topic_and_returns_when_restored() -> None:
    play = Play("slow-follower")
    c = play.at("1m15s")  # back from its restart, caught up, leading nothing yet
    healthy(c)
    assert leaders(c)[3] == 0

    c = play.at("2m30s")  # one minute after the slowdown
    assert c.brokers[3].state == BrokerState.UP and not c.brokers[3].fenced
    for p in partitions(c, ["clickstream"]):
        assert 3 not in p.isr and len(p.isr) == 2, p.name
    for p in partitions(c, ["orders", "payments", "audit-log"]):
        assert 3 in p.isr, f"{p.name}: a slow follower keeps up with a quiet topic"
    assert set(missing_from_isr(c)) == {3}
    s = c.summary()
    assert s["under_replicated"] == s["at_min_isr"] == len(c.topics["clickstream"].partitions)
    assert s["under_min_isr"] == 0
    shrinks = [e for e in play.events(EventKind.ISR_SHRINK, since="1m30s") if e.detail["out"] == [3]]
    assert {e.topic for e in shrinks} == {"clickstream"}
    assert all(e.detail["reason"] == "lag" for e in shrinks)
    # shrunk 30 s (replica.lag.time.max.ms) after it stopped keeping up, not earlier
    assert min(e.ts_ms for e in shrinks) - START_MS >= parse_duration("2m")
    assert all(ld.rejected == 0 for ld in c.loads.values())

    c = play.at("5m15s")  # restored at 5m
    healthy(c)
    expands = [e for e in play.events(EventKind.ISR_EXPAND, since="5m") if e.detail["in"] == [3]]
    assert {(e.topic, e.partition) for e in expands} == {(e.topic, e.partition) for e in shrinks}
    assert not_preferred(c), "leadership does not return before the automatic rebalance"
    c = play.at("6m")
    assert not not_preferred(c)
    assert {e.detail["reason"] for e in play.events(EventKind.LEADER_CHANGE, since="5m")} == {"auto_rebalance"}


# --------------------------------------------------------------------------- one-broker-down
def test_one_broker_down_acks_all_writes_continue() -> None:
    play = Play("one-broker-down")
    play.at("1m")
    c = play.at("1m15s")
    assert c.brokers[2].fenced
    s = c.summary()
    assert s["at_min_isr"] == s["under_replicated"] == s["partitions"]
    assert s["under_min_isr"] == s["offline"] == 0
    assert leaders(c)[2] == 0
    before = play.counters()
    play.at("3m50s")
    after = play.counters()
    for topic in ("orders", "payments", "clickstream"):
        accepted, rejected = delta(before, after, topic)
        assert accepted > 0 and rejected == 0, topic
    # the only rejected writes: those to broker 2's partitions until the controller fenced it (9 s)
    fenced_after = play.events(EventKind.BROKER_FENCED)[0].ts_ms - START_MS - parse_duration("1m")
    assert parse_duration("9s") < fenced_after <= parse_duration("9.2s")
    led_by_2 = {
        t: sum(1 for p in c.topics[t].partitions if p.preferred_leader == 2) / len(c.topics[t].partitions)
        for t in c.loads
    }
    expected = sum(ld.rate * led_by_2[t] * fenced_after / 1000 for t, ld in c.loads.items())
    assert sum(r for _, r in before.values()) == pytest.approx(expected, rel=0.02)

    c = play.at("4m30s")  # back at 4m
    healthy(c)
    assert leaders(c)[2] == 0 and not_preferred(c)
    c = play.at("6m30s")  # automatic leader rebalance, 300 s after the failover
    assert not not_preferred(c)
    assert leaders(c)[2] == 10


# --------------------------------------------------------------------------- two-brokers-down
def test_two_brokers_down_rejects_acks_all_where_both_were_replicas_and_acks_1_goes_on() -> None:
    play = Play("two-brokers-down")
    c = play.at("2m")
    assert c.brokers[2].fenced and c.brokers[3].fenced
    both = [p for p in c.partitions() if {2, 3} <= set(p.replicas)]
    assert both, "some partitions live on both crashed brokers"
    for p in both:
        assert len(p.isr) == 1 and p.leader == p.isr[0] and p.leader not in (2, 3), p.name
    s = c.summary()
    assert s["under_min_isr"] == len(both)
    assert s["offline"] == 0
    assert s["at_min_isr"] == sum(1 for p in c.partitions() if len({2, 3} & set(p.replicas)) == 1)

    orders = next(p for p in both if p.topic == "orders")
    assert c.append(orders.leader, "orders", orders.index, b"x", 1, -1, 30_000) == (E.NOT_ENOUGH_REPLICAS, -1)
    code, _ = c.append(orders.leader, "orders", orders.index, b"x", 1, 1, 30_000)
    assert code == E.NONE

    before = play.counters()
    play.at("4m30s")
    after = play.counters()
    for topic in ("orders", "payments"):
        accepted, rejected = delta(before, after, topic)
        assert rejected > 0 and accepted > 0, topic  # only the partitions on both brokers fail
        share = sum(1 for p in both if p.topic == topic) / len(c.topics[topic].partitions)
        assert rejected / (accepted + rejected) == pytest.approx(share, abs=0.02)
    for topic in ("clickstream", "telemetry"):
        accepted, rejected = delta(before, after, topic)
        assert accepted > 0 and rejected == 0, f"acks=1 on {topic} keeps being accepted"

    c = play.at("5m30s")  # broker 3 back at 5m: acks=all resumes everywhere
    assert c.summary()["under_min_isr"] == 0
    before = play.counters()
    c = play.at("6m")
    assert all(delta(before, play.counters(), t)[1] == 0 for t in c.loads)
    c = play.at("7m")
    healthy(c)


# --------------------------------------------------------------------------- min ISR misconfigurations
def test_min_isr_equals_rf_one_broker_restart_stops_payments() -> None:
    play = Play("min-isr-equals-rf")
    c = play.at("50s")
    healthy(c)
    assert c.summary()["at_min_isr"] == len(c.topics["payments"].partitions)  # zero headroom, already
    assert all(ld.rejected == 0 for ld in c.loads.values())

    play.at("1m10s")  # broker 3 shut down at 1m
    before = play.counters()
    c = play.at("2m50s")
    after = play.counters()
    assert delta(before, after, "payments") == (0, 600 * 100)  # every payments write rejected
    accepted, rejected = delta(before, after, "orders")
    assert accepted == 1200 * 100 and rejected == 0  # same brokers, minISR 2: fine
    assert c.summary()["under_min_isr"] == len(c.topics["payments"].partitions)

    play.at("3m30s")
    before = play.counters()
    c = play.at("4m")
    assert delta(before, play.counters(), "payments") == (600 * 30, 0)
    healthy(c)


def test_min_isr_above_rf_rejects_every_acks_all_write_on_a_healthy_cluster() -> None:
    play = Play("min-isr-above-rf")
    c = play.at("2m")
    invoices = c.topics["invoices"].partitions
    for p in invoices:
        assert len(p.replicas) == 2 and sorted(p.isr) == sorted(p.replicas), "nothing is down"
    s = c.summary()
    assert s["under_replicated"] == s["offline"] == 0
    assert s["under_min_isr"] == len(invoices)
    assert c.loads["invoices"].accepted == 0 and c.loads["invoices"].rejected == 200 * 120
    assert c.loads["orders"].rejected == 0 and c.loads["orders"].accepted == 1200 * 120
    p = invoices[0]
    assert c.append(p.leader, "invoices", 0, b"x", 1, -1, 30_000) == (E.NOT_ENOUGH_REPLICAS, -1)


# --------------------------------------------------------------------------- broker-missing-from-isrs
def test_broker_missing_from_every_isr_it_belongs_to() -> None:
    play = Play("broker-missing-from-isrs")
    for moment in ("3m", "9m50s"):
        c = play.at(moment)
        b3 = c.brokers[3]
        assert b3.state == BrokerState.UP and not b3.fenced and b3 in c.live_brokers()
        hosted = [p for p in c.partitions() if 3 in p.replicas]
        assert hosted and len(hosted) < len(list(c.partitions()))
        assert all(3 not in p.isr for p in hosted), moment
        assert leaders(c)[3] == 0
        assert set(missing_from_isr(c)) == {3}
        s = c.summary()
        assert s["under_replicated"] == len(hosted) and s["under_min_isr"] == 0
    assert not play.events(EventKind.ISR_EXPAND, since="1m5s"), "it never catches up while slow"

    c = play.at("10m20s")  # disk replaced at 10m
    healthy(c)
    assert leaders(c)[3] == 0
    c = play.at("11m")  # automatic rebalance gives it its preferred leaderships back
    assert not not_preferred(c) and leaders(c)[3] > 0


# --------------------------------------------------------------------------- isr-flapping
def test_isr_flapping_repeats_shrink_and_expand_without_fencing() -> None:
    play = Play("isr-flapping")
    c = play.at("1m12s")  # 12 s into the first 14 s pause (replica.lag.time.max.ms is 10 s)
    assert set(missing_from_isr(c)) == {3}
    assert c.summary()["under_replicated"] == sum(1 for p in c.partitions() if 3 in p.replicas and p.leader != 3)
    c = play.at("1m18s")  # pause over: back in every ISR
    healthy(c)

    c = play.at("10m")
    healthy(c)
    shrinks = [e for e in play.events(EventKind.ISR_SHRINK) if e.detail["out"] == [3]]
    expands = [e for e in play.events(EventKind.ISR_EXPAND) if e.detail["in"] == [3]]
    cycle = parse_duration("40s")
    first = START_MS + parse_duration("1m")
    shrink_cycles = Counter((e.ts_ms - first) // cycle for e in shrinks)
    expand_cycles = Counter((e.ts_ms - first) // cycle for e in expands)
    assert sorted(shrink_cycles) == sorted(expand_cycles) == list(range(12))
    assert len(set(shrink_cycles.values())) == 1, "the same partitions flap every time"
    for e in shrinks:  # each shrink comes just after replica.lag.time.max.ms of silence
        into_pause = (e.ts_ms - first) % cycle
        assert parse_duration("10s") <= into_pause <= parse_duration("11s")
        assert e.detail["reason"] == "lag"
    assert not [e for e in play.events(EventKind.BROKER_FENCED) if e.broker == 3]
    assert not play.events(EventKind.LEADER_CHANGE), "a pause shorter than the session timeout moves no leader"
    assert c.loads["orders"].rejected > 0  # writes to partitions broker 3 leads stall in each pause


# --------------------------------------------------------------------------- unclean-election
def test_unclean_election_loses_records_while_the_safe_topic_waits() -> None:
    play = Play("unclean-election")
    c = play.at("2m50s")  # replication crawling since 1m: every ISR shrank to its leader
    for p in c.partitions():
        assert p.isr == [p.leader], p.name
    before = play.counters()
    c = play.at("2m59s")
    after = play.counters()
    assert delta(before, after, "clickstream") == (6000 * 9, 0)  # acks=1, minISR 1: still accepted
    assert delta(before, after, "payments") == (0, 300 * 9)  # acks=all, minISR 2: NOT_ENOUGH_REPLICAS
    led_by_1 = {p.name: p.log.end_offset for p in c.partitions() if p.leader == 1}
    assert {n.rsplit("-", 1)[0] for n in led_by_1} == {"clickstream", "payments"}

    c = play.at("3m20s")  # broker 1 crashed at 3m, fenced 9 s later
    unclean = play.events(EventKind.UNCLEAN_ELECTION)
    assert {f"{e.topic}-{e.partition}" for e in unclean} == {n for n in led_by_1 if n.startswith("clickstream")}
    for e in unclean:
        assert e.detail["lost_records"] > 0 and e.broker in (2, 3)
        p = c.partition(e.topic or "", e.partition or 0)
        assert p.leader == e.broker and p.log.end_offset < led_by_1[p.name]
    assert c.lost_records == sum(e.detail["lost_records"] for e in unclean) > 0
    offline = [p for p in c.partitions() if p.leader == -1]
    assert {p.name for p in offline} == {n for n in led_by_1 if n.startswith("payments")}
    assert all(p.isr == [1] for p in offline), "the ISR keeps the last in-sync replica"

    c = play.at("5m30s")  # broker 1 back at 5m: payments returns with every record
    assert c.summary()["offline"] == 0
    for p in c.partitions():
        if p.name in led_by_1 and p.topic == "payments":
            assert p.leader == 1 and p.log.end_offset >= led_by_1[p.name]
    assert not [e for e in play.events(EventKind.UNCLEAN_ELECTION) if e.topic == "payments"]
    healthy(c)


# --------------------------------------------------------------------------- non-preferred-leaders
def test_non_preferred_leaders_persist_without_auto_rebalance() -> None:
    play = Play("non-preferred-leaders")
    c = play.at("6m30s")  # the rolling restart is over
    healthy(c)
    off = not_preferred(c)
    assert len(off) >= len(list(c.partitions())) // 3
    count = leaders(c)
    assert count[3] == 0 and count[1] == 2 * count[2]
    c = play.at("20m")  # auto.leader.rebalance.enable=false: nothing moves them back
    assert {p.name for p in not_preferred(c)} == {p.name for p in off}
    assert not [e for e in play.events(EventKind.LEADER_CHANGE) if e.detail["reason"] == "auto_rebalance"]
    # the remedy: a preferred leader election (kafka-leader-election.sh --election-type PREFERRED)
    results = c.elect_leaders(0, None)
    assert len(results) == len(off) and all(code == E.NONE for code, _ in results.values())
    assert not not_preferred(c)


# --------------------------------------------------------------------------- dev-cluster
def test_dev_cluster_rf1_topics_go_offline_while_prod_topics_carry_on() -> None:
    play = Play("dev-cluster")
    c = play.at("1m")
    healthy(c)
    prod, dev_rf1 = ["orders", "payments"], ["dev.orders-sandbox", "dev.payments-test"]
    for p in partitions(c, dev_rf1):
        assert len(p.replicas) == 1
    assert c.configs.unclean_enabled("dev.clickstream-test") and not c.configs.unclean_enabled("orders")

    for crashed, moment, later in ((2, "2m30s", "2m55s"), (3, "6m20s", "9m50s")):
        c = play.at(moment)
        offline = {p.name for p in c.partitions() if p.leader == -1}
        assert offline == {p.name for p in partitions(c, dev_rf1) if p.replicas == [crashed]}
        before = play.counters()
        c = play.at(later)
        after = play.counters()
        for topic in prod:
            accepted, rejected = delta(before, after, topic)
            assert accepted > 0 and rejected == 0, topic
        assert delta(before, after, "dev.orders-sandbox")[1] > 0
        for p in partitions(c, ["dev.clickstream-test"]):
            assert p.leader != -1 and (crashed not in p.isr)
    c = play.at("10m30s")
    healthy(c)


# --------------------------------------------------------------------------- incident (the demo)
def test_incident_unfolds_and_recovers() -> None:
    play = Play("incident")
    c = play.at("50s")
    healthy(c)
    assert len(c.brokers) == 6 and {b.rack for b in c.brokers.values()} == {"eu-west-1a", "eu-west-1b", "eu-west-1c"}
    assert len(c.topics) >= 10
    weak = {t: (len(c.topics[t].partitions[0].replicas), c.configs.min_insync_replicas(t)) for t in c.topics}
    assert weak["payments"] == (3, 3) and weak["fraud-scores"][0] == 1 and c.configs.unclean_enabled("clickstream")
    assert all(ld.rejected == 0 for ld in c.loads.values())

    # 1m-4m30s: broker 4 restarted onto a failing disk, out of the busy topics' ISRs
    c = play.at("3m30s")
    assert c.brokers[4].state == BrokerState.UP and not c.brokers[4].fenced
    for p in partitions(c, ["clickstream", "orders", "inventory", "search-indexing"]):
        assert 4 not in p.isr or p.leader == 4, p.name
    quiet = [p for p in partitions(c, ["audit-log", "customer-profiles", "__consumer_offsets"]) if 4 in p.replicas]
    assert quiet and all(4 in p.isr for p in quiet), "it keeps up with the quiet topics"
    assert play.events(EventKind.ISR_SHRINK, since="1m40s")

    # 4m30s: broker 2 crashes; partitions on 2 and 4 go under min ISR, acks=all fails there
    c = play.at("5m")
    assert c.brokers[2].fenced
    s = c.summary()
    assert s["under_min_isr"] > 0 and s["offline"] > 0
    assert any(p.leader == -1 for p in partitions(c, ["fraud-scores"]))
    before = play.counters()
    c = play.at("7m")
    after = play.counters()
    for topic in ("orders", "inventory"):
        accepted, rejected = delta(before, after, topic)
        assert rejected > 0 and accepted > rejected, f"{topic}: part of the writes fail"
    assert delta(before, after, "clickstream")[1] == 0  # acks=1, minISR 1

    # 8m broker 2 back, 10m broker 4 restored: all green, then leaders rebalanced
    c = play.at("11m")
    healthy(c)
    c = play.at("12m")
    assert not not_preferred(c)

    # 16m-21m: GC pauses longer than the session timeout get broker 5 fenced three times
    c = play.at("22m")
    fenced = [e for e in play.events(EventKind.BROKER_FENCED, since="16m") if e.broker == 5]
    unfenced = [e for e in play.events(EventKind.BROKER_UNFENCED, since="16m") if e.broker == 5]
    assert len(fenced) == len(unfenced) == 3
    healthy(c)

    # 26m: rack eu-west-1c (brokers 3 and 6) loses power; rack-aware placement saves RF 3 topics
    play.at("26m30s")
    before = play.counters()
    c = play.at("29m30s")
    after = play.counters()
    for p in c.partitions():
        if len(p.replicas) == 3:
            assert len(p.isr) == 2 and p.leader not in (3, 6), p.name
    assert delta(before, after, "payments") == (0, 800 * 180)  # minISR 3: nothing gets through
    for topic in ("orders", "inventory", "audit-log", "shipments", "__consumer_offsets"):
        assert delta(before, after, topic)[1] == 0, topic
    assert {p.name for p in c.partitions() if p.leader == -1} == {
        p.name for p in partitions(c, ["fraud-scores"]) if p.replicas[0] in (3, 6)
    }

    # 36m: broker 1's link degrades; its ISRs shrink to itself; 39m it dies
    c = play.at("38m50s")
    led = [p for p in c.partitions() if p.leader == 1]
    busy = [p for p in led if p.topic in ("clickstream", "orders", "inventory")]
    assert busy and all(p.isr == [1] for p in busy)
    c = play.at("39m30s")
    unclean = play.events(EventKind.UNCLEAN_ELECTION)
    assert unclean and {e.topic for e in unclean} == {"clickstream"}
    assert all(e.detail["lost_records"] > 0 for e in unclean)
    offline = {p.topic for p in c.partitions() if p.leader == -1}
    assert "orders" in offline and "clickstream" not in offline

    # 42m: broker 1 replaced; by the end everything is healthy and balanced again
    c = play.at("43m")
    assert c.summary()["offline"] == 0
    c = play.at("62m")
    healthy(c)
    assert not not_preferred(c)
    assert c.lost_records > 0 and play.player.finished


# --------------------------------------------------------------------------- big
def test_big_builds_100k_partitions_quickly_and_survives_a_crash() -> None:
    sc = scenario.load("big")
    t0 = time.perf_counter()
    c = sc.build(VirtualClock(manual=True, start_ms=START_MS))
    build_s = time.perf_counter() - t0
    # a hang guard, not a speed target (bench/sim_scale.py measures the speed): ~8 s quiet, 30+ s under load
    assert build_s < 120, f"building 100,000 partitions took {build_s:.1f} s"
    assert len(c.brokers) == 30 and len({b.rack for b in c.brokers.values()}) == 3
    assert len(c.topics) == 2000
    all_partitions = list(c.partitions())
    assert len(all_partitions) == 100_000
    for p in all_partitions[::97]:
        assert len({c.brokers[r].rack for r in p.replicas}) == 3, f"{p.name}: replicas on one rack"
    assert not c.loads

    player = ScenarioPlayer(sc, c)
    t0 = time.perf_counter()
    player.advance(parse_duration("1m15s"), step_ms=5_000)
    run_s = time.perf_counter() - t0
    assert run_s < 120, f"75 s of simulated time took {run_s:.1f} s"
    assert c.brokers[7].fenced
    hosted = [p for p in all_partitions if 7 in p.replicas]
    s = c.summary()
    assert s["under_replicated"] == s["at_min_isr"] == len(hosted) and 9_000 < len(hosted) < 11_000
    assert s["offline"] == s["under_min_isr"] == 0
    assert leaders(c)[7] == 0


# --------------------------------------------------------------------------- player and durations
def test_durations() -> None:
    assert parse_duration("1m30s") == 90_000
    assert parse_duration("1h 15m") == 4_500_000
    assert parse_duration("250ms") == 250
    assert parse_duration(90) == 90_000
    assert parse_duration("45") == 45_000
    for bad in ("5 minutes", "1m30", "-3s", -1, "soon"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_player_applies_each_step_when_it_is_due() -> None:
    sc = scenario.parse(
        "cluster: {brokers: 3}\n"
        "topics: [{name: orders, partitions: 3, rf: 3}]\n"
        "timeline:\n"
        "  - {at: 1m30s, action: crash, broker: 2}\n"
        "  - {at: 2m, action: restart, broker: 2, repeat: {every: 250ms, times: 2}}\n",
        "inline.yaml",
    )
    c = sc.build(VirtualClock(manual=True, start_ms=START_MS))
    player = ScenarioPlayer(sc, c)
    player.advance(parse_duration("3m"), step_ms=7_000)  # big strides still stop at each step
    down = c.events.of_kind(EventKind.BROKER_DOWN)
    assert [e.ts_ms - START_MS for e in down] == [90_000]
    texts = [(e.ts_ms - START_MS, e.detail["text"]) for e in c.events.of_kind(EventKind.SCENARIO)]
    assert texts[1:] == [(90_000, "crash broker=2"), (120_000, "restart broker=2"), (120_250, "restart broker=2")]
    assert player.finished


# --------------------------------------------------------------------------- file errors
def load_error(tmp_path: Path, text: str) -> tuple[str, str]:
    """The ScenarioError for `text` as a file: (path, message)."""
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        scenario.load(str(path))
    return str(path), str(info.value)


GOOD_HEAD = """\
name: broken
description: a scenario with one mistake
cluster:
  brokers: 3
topics:
  - name: orders
    partitions: 6
    rf: 3
"""


@pytest.mark.parametrize(
    ("tail", "line", "words"),
    [
        # invalid YAML: an unclosed flow list
        ("load:\n  - {topic: orders, rate: [100}\n", 10, "invalid YAML"),
        # invalid YAML: a tab where indentation is expected
        ("timeline:\n\t- at: 1m\n", 10, "invalid YAML"),
        # unknown keys, at every level
        ("colour: blue\n", 9, "unknown key 'colour'"),
        ("timeline:\n  - at: 1m\n    action: crash\n    broker: 2\n    severity: high\n", 13, "unknown key 'severity'"),
        ("load:\n  - topic: orders\n    rate: 100\n    ack: all\n", 12, "unknown key 'ack'"),
        # unknown action
        ("timeline:\n  - at: 1m\n    action: reboot\n    broker: 2\n", 11, "unknown action 'reboot'"),
        # a broker id that is not in the cluster
        ("timeline:\n  - at: 1m\n    action: crash\n    broker: 7\n", 12, "7 is not a broker of this cluster (1..3)"),
        ("timeline:\n  - {at: 1m, action: slow, broker: 0, factor: 0.1}\n", 10, "0 is not a broker of this cluster"),
        # bad durations
        ("timeline:\n  - at: 5 minutes\n    action: crash\n    broker: 2\n", 10, "not a duration: '5 minutes'"),
        ("timeline:\n  - at: 1m\n    action: pause\n    broker: 2\n    duration: soon\n", 13, "not a duration: 'soon'"),
        (
            "timeline:\n  - at: 1m\n    action: crash\n    broker: 2\n    repeat: {every: often, times: 3}\n",
            13,
            "not a duration: 'often'",
        ),
        # a load on an unknown topic: top-level and in the timeline
        ("load:\n  - topic: orders\n    rate: 100\n  - topic: payments\n    rate: 100\n", 12, "no topic 'payments'"),
        ("timeline:\n  - at: 1m\n    action: load\n    topic: paymnets\n    rate: 10\n", 12, "no topic 'paymnets'"),
        # values an action would only trip over minutes into a demo
        ("timeline:\n  - {at: 1m, action: slow, broker: 2, factor: fast}\n", 10, "factor must be a number"),
        ("timeline:\n  - at: 1m\n    action: load\n    topic: orders\n    rate: 10\n    acks: 2\n", 14, "acks must be"),
        ("topics2: []\n", 9, "unknown key 'topics2'"),
    ],
)
def test_scenario_errors_name_the_file_and_line(tmp_path: Path, tail: str, line: int, words: str) -> None:
    path, message = load_error(tmp_path, GOOD_HEAD + tail)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message


def test_scenario_error_for_a_replica_assignment_on_a_missing_broker(tmp_path: Path) -> None:
    text = "cluster: {brokers: 3}\ntopics:\n  - name: orders\n    assignment:\n      - [1, 2]\n      - [2, 9]\n"
    path, message = load_error(tmp_path, text)
    assert message.startswith(f"{path}:6: ") and "broker ids 1..3" in message


def test_scenario_error_for_a_replication_factor_above_the_broker_count(tmp_path: Path) -> None:
    path, message = load_error(tmp_path, "cluster:\n  brokers: 2\ntopics:\n  - name: orders\n    rf: 3\n")
    assert message.startswith(f"{path}:5: ") and "more than the 2 brokers" in message


def test_unknown_scenario_name_lists_the_shipped_ones() -> None:
    with pytest.raises(ScenarioError) as info:
        scenario.load("no-such-scenario")
    assert "no-such-scenario" in str(info.value) and "incident" in str(info.value)
