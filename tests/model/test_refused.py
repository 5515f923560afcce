"""A listed broker refusing connections (killed, not yet fenced) counts as down where it matters.

Its ISRs still name it until the controller fences it, so the partition classes stay as the
metadata says; but restart advice and the what-if must not count on it: with broker 3 dead and
still in every ISR, "restart broker 1: safe" would be wrong the moment 3 is fenced.
"""

from __future__ import annotations

from dataclasses import replace

from kafkatui.model.findings import findings
from kafkatui.model.health import assess
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.whatif import restart_safety, what_if
from tests.model.builders import healthy, snap, topic


def cluster(refused: frozenset[int] = frozenset()) -> ClusterSnapshot:
    return replace(snap(healthy("orders", 6, min_insync_replicas="2")), refused=refused)


def test_a_refusing_broker_is_down_and_restarts_count_without_it() -> None:
    before = assess(cluster())
    assert before.brokers[1].restart_safe and before.counts.brokers_up == 3

    after = assess(cluster(frozenset({3})))
    assert after.brokers[3].up and after.brokers[3].refused  # listed, and down
    assert after.counts.brokers_up == 2 and after.counts.brokers_refused == (3,)
    assert after.counts.brokers_down == (3,) and after.counts.brokers_absent == ()
    # classes follow the metadata: every ISR still names broker 3 until it is fenced
    assert after.counts.healthy == 6
    # restarting 1 (or 2) now leaves partitions with 1 live in-sync copy, under minISR 2
    for b in (1, 2):
        assert not after.brokers[b].restart_safe
        assert after.brokers[b].restart_under_min_isr == 6  # RF 3 on 3 brokers: every partition


def test_the_what_if_counts_a_refusing_broker_as_down_already() -> None:
    s = cluster(frozenset({3}))
    nothing = what_if(s, set())
    assert nothing.already_down == {3} and nothing.safe
    one_more = what_if(s, {1})
    assert not one_more.safe and len(one_more.under_min_isr) == 6
    assert what_if(cluster(), {1}).safe


def test_restarting_a_refusing_broker_is_starting_a_down_one() -> None:
    advice = restart_safety(cluster(frozenset({3})), 3)
    assert advice.safe and "already down (it refuses connections" in advice.message
    assert not restart_safety(cluster(frozenset({3})), 1).safe


def test_a_refusing_broker_has_a_finding_saying_what_its_fencing_will_do() -> None:
    s = replace(
        snap(
            healthy("orders", 6, min_insync_replicas="2"),
            topic("solo", [(3, [3], [3])]),  # RF 1 on broker 3: no other copy
        ),
        refused=frozenset({3}),
    )
    found = [f for f in findings(assess(s), s, bootstrap="kafka-1:9092") if f.id == "broker-refusing-connections"]
    assert len(found) == 1
    f = found[0]
    assert f.severity == "critical" and f.brokers == (3,)  # solo-0 goes offline when 3 is fenced
    assert "Broker 3 refuses connections" in f.title and "7 replica(s) of 2 topic(s)" in f.title
    assert any("1 partition(s) have no other in-sync copy and go offline, 0 fall under minISR" in s for s in f.steps)
    assert "solo-0" in f.partitions
    # the finding replaces "missing from ISRs" for it, and nothing names it up
    assert not [
        g for g in findings(assess(s), s, bootstrap="k:9092") if g.id.startswith("broker-missing") and 3 in g.brokers
    ]


def test_the_what_if_starts_from_the_fencing_of_a_refusing_leader() -> None:
    """Nothing selected means no impact: a partition a refusing broker leads alone is already offline,
    one it leads with other in-sync copies is counted from the leader its fencing elects."""
    s = replace(
        snap(healthy("orders", 3, min_insync_replicas="2"), topic("solo", [(3, [3], [3])])),
        refused=frozenset({3}),
    )
    nothing = what_if(s, set())
    assert nothing.safe and not nothing.topics and nothing.already_offline == 1 and nothing.leaders_moved == 0
    one_more = what_if(s, {1})
    assert {p.topic for p in one_more.under_min_isr} == {"orders"} and not one_more.offline


def test_an_out_of_sync_replica_on_a_refusing_broker_is_down() -> None:
    s = replace(snap(topic("t", [(1, [1, 2, 3], [1, 2])], min_insync_replicas="2")), refused=frozenset({3}))
    (r,) = assess(s).partition("t", 0).out_of_sync
    assert r.broker == 3 and not r.up  # the partition screen: "✖ DOWN: its lag cannot be read"
