"""Durability audit rules."""

from __future__ import annotations

from typing import Any

from kafkatui.model import durability as A
from kafkatui.model.durability import audit, looks_like_dev
from kafkatui.model.health import assess
from kafkatui.model.snapshot import TopicInfo
from tests.model.builders import healthy, snap, topic

R = [1, 2, 3]


def rules(*topics: TopicInfo, **kw: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for i in audit(snap(*topics, **kw)):
        out.setdefault(i.topic, set()).add(i.rule)
    return out


def test_durable_triple_is_clean() -> None:
    assert rules(healthy("orders", 3, min_insync_replicas="2")) == {}


def test_min_isr_above_rf() -> None:
    found = audit(snap(healthy("orders", 3, rf=2, min_insync_replicas="3")))
    assert [(i.rule, i.topic) for i in found] == [(A.MIN_ISR_ABOVE_RF, "orders")]
    assert "every acks=all write fails" in found[0].detail and "3" in found[0].detail  # version unknown: raw rule


def test_min_isr_equals_rf_but_not_for_rf1() -> None:
    r = rules(healthy("orders", 2, min_insync_replicas="3"), healthy("dev.x", 2, rf=1))
    assert r == {"orders": {A.MIN_ISR_EQUALS_RF}, "dev.x": {A.RF_ONE}}


def test_min_isr_one_with_rf2_or_more() -> None:
    assert rules(healthy("dev.a", 2, rf=2), healthy("dev.b", 2, rf=3)) == {
        "dev.a": {A.MIN_ISR_ONE},
        "dev.b": {A.MIN_ISR_ONE},
    }


def test_unclean_enabled_and_its_source() -> None:
    (issue,) = audit(snap(healthy("dev.clicks", 2, min_insync_replicas="2", unclean_leader_election_enable="true")))
    assert issue.rule == A.UNCLEAN_ENABLED and "DYNAMIC_TOPIC_CONFIG" in issue.detail
    inherited = audit(
        snap(healthy("dev.y", 2, min_insync_replicas="2"), broker_configs={"unclean.leader.election.enable": "true"})
    )
    assert [i.rule for i in inherited] == [A.UNCLEAN_ENABLED] and "STATIC_BROKER_CONFIG" in inherited[0].detail


def test_single_rack_only_when_racks_known_and_several() -> None:
    t = topic("orders", [(1, [1, 2], [1, 2]), (1, [1, 3], [1, 3]), (2, [2, 1], [2, 1])], min_insync_replicas="1")
    found = [i for i in audit(snap(t, racks={1: "a", 2: "a", 3: "b"})) if i.rule == A.SINGLE_RACK]
    assert len(found) == 1 and found[0].partitions == (0, 2) and "(a)" in found[0].detail
    # racks unknown for one broker of the partition: no verdict on it
    assert not [i for i in audit(snap(t, racks={1: "a", 3: "b"})) if i.rule == A.SINGLE_RACK and 0 in i.partitions]
    # one rack for the whole cluster: nothing could be moved, nothing to report
    assert not [i for i in audit(snap(t, racks={1: "a", 2: "a", 3: "a"})) if i.rule == A.SINGLE_RACK]
    assert not [i for i in audit(snap(t)) if i.rule == A.SINGLE_RACK]


def test_internal_topics_weak_config_replaces_generic_rules() -> None:
    weak = topic("__consumer_offsets", [(1, [1], [1])], internal=True)
    found = audit(snap(weak))
    assert [i.rule for i in found] == [A.INTERNAL_WEAK]
    assert found[0].reasons == ("RF 1 < 3", "minISR 1 (ASSUMED_DEFAULT) < 2")
    ok = topic("__transaction_state", [(1, R, R)], internal=True, min_insync_replicas="2")
    assert audit(snap(ok)) == []


def test_internal_topic_unavailable_or_under_replicated() -> None:
    down = topic(
        "__consumer_offsets", [(1, R, [1]), (-1, R, [2]), (1, R, [1, 2, 3])], internal=True, min_insync_replicas="2"
    )
    found = {i.rule: i for i in audit(snap(down))}
    assert found[A.INTERNAL_UNAVAILABLE].partitions == (0, 1)
    lag = topic("__transaction_state", [(1, R, [1, 2]), (1, R, R)], internal=True, min_insync_replicas="2")
    found = {i.rule: i for i in audit(snap(lag))}
    assert found[A.INTERNAL_UNDER_REPLICATED].partitions == (0,)


def test_dev_settings_on_a_production_looking_topic() -> None:
    prod = healthy("orders", 3, min_insync_replicas="2")
    r = rules(
        prod,
        healthy("billing", 2, rf=1),
        healthy("dev.sandbox", 2, rf=1),
        healthy("invoices", 2, min_insync_replicas="2", unclean_leader_election_enable="true"),
    )
    assert r["billing"] == {A.DEV_ON_PROD}  # replaces rf-one
    assert r["invoices"] == {A.DEV_ON_PROD}  # replaces unclean-enabled
    assert r["dev.sandbox"] == {A.RF_ONE}  # says it is disposable
    assert "orders" not in r


def test_dev_settings_need_production_topics_next_to_them() -> None:
    assert rules(healthy("billing", 2, rf=1), healthy("events", 2, rf=2)) == {
        "billing": {A.RF_ONE},
        "events": {A.MIN_ISR_ONE},
    }


def test_dev_markers() -> None:
    assert looks_like_dev("dev.orders-sandbox") and looks_like_dev("payments_test") and looks_like_dev("tmp-x")
    assert not looks_like_dev("devices") and not looks_like_dev("orders") and not looks_like_dev("contest")


def test_audit_accepts_a_precomputed_report() -> None:
    s = snap(healthy("orders", 2, rf=2, min_insync_replicas="3"))
    assert audit(s, assess(s)) == audit(s)
