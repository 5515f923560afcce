"""Findings: catalog coverage, evidence, commands, grouping, order, JSON."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from kafkatui.model.findings import (
    FLAP_MIN_SHRINKS,
    Finding,
    fill,
    findings,
    findings_for_partition,
    human_bytes,
    kafkatopic_name,
    load_catalog,
    parse_catalog,
)
from kafkatui.model.health import assess
from kafkatui.model.snapshot import DEFAULT_CONFIG, ClusterSnapshot, ConfigValue, ReplicaLog, TopicInfo
from tests.model.builders import healthy, snap, topic

R = [1, 2, 3]
B = "kafka-1:9092"


def run(s: ClusterSnapshot, **kw: Any) -> list[Finding]:
    return findings(assess(s), s, bootstrap=B, **kw)


def by_id(found: list[Finding], fid: str, topic_name: str | None = None) -> Finding:
    hits = [f for f in found if f.id == fid and (topic_name is None or topic_name in f.topics)]
    assert len(hits) == 1, [(f.id, f.topics) for f in found]
    return hits[0]


def ids(found: list[Finding]) -> set[str]:
    return {f.id for f in found}


# --------------------------------------------------------------------------------------------- snapshots


def incident() -> ClusterSnapshot:
    """Broker 4 gone; offline, under/at minISR, under-replicated and non-preferred partitions."""
    logs = {
        ("orders", 3, 1): ReplicaLog(9_000_000, 0),
        ("orders", 3, 2): ReplicaLog(3_000_000, 40),
        ("orders", 3, 3): ReplicaLog(9_000_000, 0),
    }
    return snap(
        topic("ledger", [(-1, [4, 2, 1], [4]), (-1, [4, 1, 2], [4])], min_insync_replicas="2"),
        topic(
            "orders",
            [
                (1, [1, 4, 2], [1]),
                (2, [2, 4, 3], [2]),
                (3, [3, 4, 1], [3, 1]),
                (1, [1, 2, 3], [1, 3]),
                (1, [1, 2, 3], [1, 2, 3]),
            ],
            min_insync_replicas="2",
        ),
        topic(
            "events",
            [(1, [1, 2, 3], [1, 2]), (3, [2, 3, 1], [2, 3, 1]), (3, [2, 3, 1], [2, 3, 1])],
            min_insync_replicas="1",
        ),
        topic("__consumer_offsets", [(1, [1, 2, 4], [1])], internal=True, min_insync_replicas="2"),
        brokers=(1, 2, 3),
        log_dirs=logs,
        problems=("DescribeLogDirs: broker 4 unreachable",),
    )


def missing_broker() -> ClusterSnapshot:
    """4 brokers, RF 3, minISR 2: broker 3 up but out of every ISR (the simulator's scenario)."""

    def t(name: str, n: int) -> Any:
        specs = []
        for i in range(n):
            reps = [((i + j) % 4) + 1 for j in range(3)]
            isr = [r for r in reps if r != 3]
            specs.append((isr[0], reps, isr))
        return topic(name, specs)

    return snap(
        t("orders", 12),
        t("payments", 8),
        t("inventory", 8),
        t("audit-log", 4),
        brokers=(1, 2, 3, 4),
        broker_configs={"min.insync.replicas": "2", "num.replica.fetchers": "1"},
    )


def misconfigured() -> ClusterSnapshot:
    return snap(
        healthy("orders", 3, min_insync_replicas="2"),
        healthy("strict", 2, min_insync_replicas="3"),
        healthy("pairs", 2, rf=2, min_insync_replicas="2"),
        healthy("blocked", 2, min_insync_replicas="4"),
        healthy("dev.scratch", 2, rf=1),
        healthy("loose", 2, min_insync_replicas="1"),
        healthy("dev.clicks", 2, min_insync_replicas="2", unclean_leader_election_enable="true"),
        topic("racked", [(1, [1, 2, 3], [1, 2, 3]), (1, [1, 2], [1, 2])], min_insync_replicas="1"),
        healthy("billing", 2, rf=1),
        topic("__consumer_offsets", [(1, [1], [1])], internal=True),
        topic(
            "__transaction_state", [(1, R, [1, 2]), (2, [2, 3, 1], [2, 3, 1])], internal=True, min_insync_replicas="2"
        ),
        racks={1: "a", 2: "a", 3: "b"},
    )


def weak_cluster() -> ClusterSnapshot:
    """Broker settings below the floor and two of three replicas on one rack (3 racks, minISR 2)."""
    return snap(
        topic("orders", [(1, [1, 2, 3], [1, 2, 3]), (3, [3, 4, 1], [3, 4, 1])], min_insync_replicas="2"),
        brokers=(1, 2, 3, 4),
        racks={1: "a", 2: "a", 3: "b", 4: "c"},
        broker_configs={"replica.lag.time.max.ms": "5000", "default.replication.factor": "1"},
    )


def most_missing() -> ClusterSnapshot:
    return snap(topic("t", [(1, R, [1, 2]), (1, R, [1, 2]), (1, R, R)], min_insync_replicas="1"))


def spread_lag() -> ClusterSnapshot:
    specs = [(1, R, [1, 3]), (1, R, [1, 2]), (1, R, R), (1, R, R), (2, [2, 3, 1], [2, 3, 1]), (3, [3, 1, 2], [3, 1, 2])]
    return snap(topic("t", specs, min_insync_replicas="1"), broker_configs={"num.replica.fetchers": "2"})


# --------------------------------------------------------------------------------------------- coverage


def test_every_catalog_finding_is_raised_by_some_snapshot() -> None:
    seen = ids(run(incident())) | ids(run(missing_broker(), shrink_counts={3: 7})) | ids(run(misconfigured()))
    seen |= ids(run(most_missing())) | ids(run(spread_lag())) | ids(run(inherited_default()))
    seen |= ids(run(unclean_cluster())) | ids(run(weak_cluster()))
    seen |= ids(run(dataclasses.replace(snap(healthy("t", 3)), refused=frozenset({3}))))
    assert seen == set(load_catalog())


def test_catalog_rejects_bad_entries() -> None:
    with pytest.raises(ValueError, match="severity"):
        parse_catalog("x:\n  severity: fatal\n  title: t\n")
    with pytest.raises(ValueError, match="steps"):
        parse_catalog("x:\n  severity: info\n  title: t\n  steps: nope\n")


def test_fill_leaves_json_braces_and_refuses_unknown_names() -> None:
    assert (
        fill("""-p '{"spec":{"config":{"a":1}}}' {topic}""", {"topic": "t"}) == """-p '{"spec":{"config":{"a":1}}}' t"""
    )
    with pytest.raises(KeyError, match="nope"):
        fill("{nope}", {})


# --------------------------------------------------------------------------------------------- per class


def test_offline_finding_with_unclean_off() -> None:
    f = by_id(run(incident()), "offline", "ledger")
    assert f.severity == "critical" and f.partitions == ("ledger-0", "ledger-1") and f.brokers == (4,)
    assert "2 partition(s) offline" in f.title
    assert any("unclean.leader.election.enable=false" in e for e in f.evidence)
    assert any(s.startswith("Bring back broker 4: it is the last in-sync replica") for s in f.steps), f.steps
    assert any("KIP-460" in s and "lost" in s for s in f.steps)
    assert f"kafka-topics.sh --bootstrap-server {B} --describe --topic ledger --unavailable-partitions" in f.commands
    (file_cmd,) = [c for c in f.commands if c.startswith("printf")]
    assert '{"topic":"ledger","partition":0}' in file_cmd and '{"topic":"ledger","partition":1}' in file_cmd
    assert (
        f"kafka-leader-election.sh --bootstrap-server {B} --election-type UNCLEAN "
        "--path-to-json-file elect-unclean-ledger.json"
    ) in f.commands
    assert any(f"`kafkatui elect --bootstrap {B} --unclean --topic ledger --partition 0 --write`" in s for s in f.steps)


def test_offline_single_partition_and_no_live_replica() -> None:
    f = by_id(run(snap(topic("t", [(-1, [2, 1], [2]), (1, [1, 3], [1, 3])]), brokers=(1, 3))), "offline")
    assert (
        f"kafka-leader-election.sh --bootstrap-server {B} --election-type UNCLEAN --topic t --partition 0" in f.commands
    )
    gone = by_id(run(snap(topic("t", [(-1, [2], [2])]), brokers=(1, 3))), "offline")
    assert not any("UNCLEAN" in c for c in gone.commands)
    assert any("No replica of t-0 is alive" in s for s in gone.steps)


def test_offline_with_unclean_on_offers_no_unclean_election() -> None:
    s = snap(topic("t", [(-1, [2], [2])], unclean_leader_election_enable="true"), brokers=(1,))
    f = by_id(run(s), "offline")
    assert not any("UNCLEAN" in c for c in f.commands)
    assert any("no replica is alive" in st for st in f.steps)


def test_under_min_isr_finding() -> None:
    f = by_id(run(incident()), "under-min-isr", "orders")
    assert f.severity == "critical" and f.partitions == ("orders-0", "orders-1")
    assert "under minISR 2" in f.title
    assert "orders-0: leader 1, replicas [1, 4, 2], ISR [1]; out of sync: 4, 2" in f.evidence
    assert any(e.startswith("missing from these ISRs: broker 4 (2 partitions)") for e in f.evidence)
    assert any("Do NOT lower min.insync.replicas" in s for s in f.steps)
    assert f"kafka-topics.sh --bootstrap-server {B} --describe --topic orders --under-min-isr-partitions" in f.commands


def test_at_min_isr_finding_with_byte_lag() -> None:
    f = by_id(run(incident()), "at-min-isr", "orders")
    assert f.partitions == ("orders-2", "orders-3") and f.severity == "warning"
    assert "orders-3: leader 1, replicas [1, 2, 3], ISR [1, 3]; out of sync: 2 (5.7 MiB behind)" in f.evidence
    assert "largest replica lag: 5.7 MiB (orders-3, broker 2)" in f.evidence
    assert f"kafka-topics.sh --bootstrap-server {B} --describe --topic orders --at-min-isr-partitions" in f.commands


def test_at_min_isr_by_design_is_left_to_the_audit() -> None:
    found = run(snap(healthy("strict", 3, min_insync_replicas="3"), healthy("dev.one", 2, rf=1)))
    assert "at-min-isr" not in ids(found)
    assert {"min-isr-equals-rf", "rf-one"} <= ids(found)
    rf1 = by_id(found, "rf-one")
    assert any("2 partition(s) sit at minISR by design" in e for e in rf1.evidence)


def test_under_replicated_finding() -> None:
    f = by_id(run(incident()), "under-replicated", "events")
    assert f.partitions == ("events-0",) and f.brokers == (3,)
    assert (
        f"kafka-topics.sh --bootstrap-server {B} --describe --topic events --under-replicated-partitions" in f.commands
    )


def test_non_preferred_leader_finding() -> None:
    f = by_id(run(incident()), "non-preferred-leader", "events")
    assert f.severity == "info" and f.partitions == ("events-1", "events-2")
    assert "broker 3 leads 2 partition(s) preferred by broker 2" in f.evidence
    assert (
        f"kafka-leader-election.sh --bootstrap-server {B} --election-type PREFERRED --path-to-json-file elect-preferred-events.json"
        in f.commands
    )
    assert (
        f"kafka-leader-election.sh --bootstrap-server {B} --election-type PREFERRED --all-topic-partitions"
        in f.commands
    )
    assert any(f"`kafkatui elect --bootstrap {B} --preferred --topic events --write`" in s for s in f.steps)
    one = by_id(run(snap(topic("t", [(2, R, R), (1, R, R)]))), "non-preferred-leader")
    assert (
        f"kafka-leader-election.sh --bootstrap-server {B} --election-type PREFERRED --topic t --partition 0"
        in one.commands
    )
    assert not any(c.startswith("printf") for c in one.commands)


# --------------------------------------------------------------------------------------------- brokers


def test_top_finding_names_the_broker_missing_from_all_isrs() -> None:
    found = run(missing_broker())
    top = found[0]
    assert top.id == "broker-missing-from-isrs" and top.brokers == (3,)
    assert top.title.startswith("Broker 3 is up but missing from every ISR") and "24 partitions" in top.title
    assert "in none of the 24 ISRs it belongs to" in top.evidence
    assert "every other live broker is in all its ISRs" in top.evidence
    assert any("num.replica.fetchers" in c and "replica.fetch.max.bytes" in c for c in top.causes)
    assert f"kafka-log-dirs.sh --bootstrap-server {B} --describe --broker-list 3" in top.commands
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --describe --entity-type brokers --entity-name 3 --all"
        in top.commands
    )
    assert top.severity == "warning"  # its partitions are at minISR, still writable
    assert "shrinks-under-load" not in ids(found)  # one broker explains it


def test_missing_broker_escalates_when_writes_fail() -> None:
    s = snap(topic("t", [(1, R, [1]), (2, [2, 3, 1], [2, 1])], min_insync_replicas="2"))
    f = run(s)[0]
    assert f.id == "broker-missing-from-isrs" and f.brokers == (3,) and f.severity == "critical"


def test_missing_from_most_isrs() -> None:
    f = by_id(run(most_missing()), "broker-missing-from-most-isrs")
    assert f.brokers == (3,) and "missing from 2 of the 3 ISRs" in f.title


def test_absent_broker_with_reassignment_plan_to_live_brokers() -> None:
    s = snap(topic("t", [(1, [1, 4, 2], [1]), (-1, [4], [4])], min_insync_replicas="2"), brokers=(1, 2, 3))
    f = by_id(run(s), "broker-absent")
    assert f.brokers == (4,) and f.severity == "critical" and f.root_cause
    assert "1 offline, 1 under minISR" in f.evidence[1]
    (plan,) = [c for c in f.commands if c.startswith("printf")]
    moves = json.loads(re.search(r"'(\{.*\})'", plan).group(1))["partitions"]  # type: ignore[union-attr]
    # broker 4 replaced in place by the least-loaded live broker not already a replica; t-1's only
    # replica is on broker 4: no move can finish, the finding says so instead of planning one
    assert {m["partition"]: m["replicas"] for m in moves} == {0: [1, 3, 2]}
    assert any(s.startswith("Not in the plan: t-1 (every replica is on absent broker(s) 4") for s in f.steps)
    assert (
        f"kafka-reassign-partitions.sh --bootstrap-server {B} --reassignment-json-file reassign-broker-4.json --verify"
        in f.commands
    )


def test_flapping_needs_history_and_a_threshold() -> None:
    s = missing_broker()
    assert "isr-flapping" not in ids(run(s))
    assert "isr-flapping" not in ids(run(s, shrink_counts={2: FLAP_MIN_SHRINKS - 1}))
    f = by_id(run(s, shrink_counts={2: 9}), "isr-flapping")
    assert f.brokers == (2,) and "9 ISR shrinks" in f.title
    assert "broker 2 was removed from an ISR 9 times in the observed window" in f.evidence
    assert any("GC" in c for c in f.causes) and any("disk" in c for c in f.causes)


def test_shrinks_under_load_when_lag_is_spread() -> None:
    f = by_id(run(spread_lag()), "shrinks-under-load")
    assert f.brokers == (2, 3) and f.partitions == ("t-0", "t-1")
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type brokers --entity-default --add-config num.replica.fetchers=4"
        in f.commands
    )
    assert any("replica.fetch.max.bytes" in s and "read-only" in s for s in f.steps)


# --------------------------------------------------------------------------------------------- audit


def test_min_isr_above_rf_finding_and_strimzi_patch() -> None:
    f = by_id(findings(assess(misconfigured()), bootstrap=B, namespace="kafka-prod"), "min-isr-above-rf", "blocked")
    assert f.severity == "critical" and "minISR 4 > RF 3" in f.title
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type topics --entity-name blocked --add-config min.insync.replicas=2"
        in f.commands
    )
    assert (
        """kubectl patch kafkatopic blocked -n kafka-prod --type merge -p '{"spec":{"config":{"min.insync.replicas":2}}}'"""
        in f.commands
    )
    assert f.strimzi_patch == "spec:\n  config:\n    min.insync.replicas: 2\n"
    assert any("2 partition(s) under minISR now" in e for e in f.evidence)
    assert "under-min-isr" not in {x.id for x in run(misconfigured()) if "blocked" in x.topics}


def test_min_isr_equals_rf_lowers_or_raises_rf() -> None:
    found = run(misconfigured())
    strict = by_id(found, "min-isr-equals-rf", "strict")
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type topics --entity-name strict --add-config min.insync.replicas=2"
        in strict.commands
    )
    pairs = by_id(found, "min-isr-equals-rf", "pairs")
    assert not any("--add-config min.insync.replicas" in c for c in pairs.commands)
    (plan,) = [c for c in pairs.commands if c.startswith("printf")]
    assert '"topic":"pairs"' in plan and plan.endswith("> reassign-pairs.json")
    for m in json.loads(re.search(r"'(\{.*\})'", plan).group(1))["partitions"]:  # type: ignore[union-attr]
        assert len(set(m["replicas"])) == 3


def test_rf_one_finding() -> None:
    f = by_id(run(misconfigured()), "rf-one", "dev.scratch")
    (plan,) = [c for c in f.commands if c.startswith("printf")]
    moves = json.loads(re.search(r"'(\{.*\})'", plan).group(1))["partitions"]  # type: ignore[union-attr]
    assert [m["replicas"][0] for m in moves] == [1, 2]  # preferred leaders kept
    assert all(sorted(m["replicas"]) == [1, 2, 3] for m in moves)
    assert any(
        f"`kafkatui reassign --bootstrap {B} --topic dev.scratch --replication-factor 3 --write`" in s for s in f.steps
    )
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type topics --entity-name dev.scratch --add-config min.insync.replicas=2"
        in f.commands
    )
    alone = by_id(run(snap(healthy("dev.x", 2, rf=1, brokers=1), brokers=(1,))), "rf-one")
    assert alone.commands == () and any("1 live broker(s), too few for RF 3" in s for s in alone.steps)


def test_min_isr_one_finding() -> None:
    f = by_id(run(misconfigured()), "min-isr-one", "loose")
    assert "RF 3" in f.title
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type topics --entity-name loose --add-config min.insync.replicas=2"
        in f.commands
    )
    rf2 = by_id(run(snap(healthy("events", 2, rf=2))), "min-isr-one")
    # RF raised before minISR: the plan, then minISR 2 (never minISR 2 on RF 2, which stops writes at one loss)
    cmds = list(rf2.commands)
    plan_at = next(i for i, c in enumerate(cmds) if c.startswith("printf"))
    set_at = next(i for i, c in enumerate(cmds) if "--add-config min.insync.replicas=2" in c)
    assert plan_at < set_at and sum("--add-config" in c for c in cmds) == 1


def kafka_default(t: TopicInfo) -> TopicInfo:
    """The topic as DescribeConfigs reports one without an override: min.insync.replicas=1, DEFAULT_CONFIG."""
    return dataclasses.replace(t, configs={"min.insync.replicas": ConfigValue("1", DEFAULT_CONFIG)})


def inherited_default() -> ClusterSnapshot:
    """Seven topics on Kafka's default minISR 1 (two of them RF 2), one with its own override to 1."""
    topics = [healthy(f"app.{i}", 2) for i in range(5)] + [healthy(f"rf2.{i}", 2, rf=2) for i in range(2)]
    return snap(*map(kafka_default, topics), healthy("pinned", 2, min_insync_replicas="1"))


def test_topics_inheriting_min_isr_one_get_one_cluster_wide_finding() -> None:
    found = run(inherited_default())
    f = by_id(found, "min-isr-one-default")
    assert f.title.startswith("7 topics inherit minISR 1 from DEFAULT_CONFIG (14 partitions)")
    assert f.topics == ("app.0", "app.1", "app.2", "app.3", "app.4", "rf2.0", "rf2.1") and f.affected_partitions == 14
    assert f.covers("app.3", 1) and not f.covers("pinned", 0)
    # RF 2 topics are pinned at 1 first, or the new default would stop their writes on one broker loss
    assert f.commands == (
        f"for t in rf2.0 rf2.1; do kafka-configs.sh --bootstrap-server {B} --alter --entity-type topics "
        '--entity-name "$t" --add-config min.insync.replicas=1; done',
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type brokers --entity-default "
        "--add-config min.insync.replicas=2",
    )
    assert "RF 2: 2 topic(s): rf2.0, rf2.1" in f.evidence
    # a topic's own override is its own decision: it keeps a finding of its own
    assert [x.topics for x in found if x.id == "min-isr-one"] == [("pinned",)]
    few = run(snap(*[kafka_default(healthy(f"app.{i}", 2)) for i in range(4)]))
    assert "min-isr-one-default" not in ids(few) and sum(x.id == "min-isr-one" for x in few) == 4


def test_unclean_enabled_finding_topic_and_broker_level() -> None:
    f = by_id(run(misconfigured()), "unclean-enabled", "dev.clicks")
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type topics --entity-name dev.clicks --add-config unclean.leader.election.enable=false"
        in f.commands
    )
    assert not any("--entity-default" in c for c in f.commands)
    assert f.strimzi_patch == "spec:\n  config:\n    unclean.leader.election.enable: false\n"
    inherited = by_id(
        run(
            snap(
                healthy("dev.y", 1, min_insync_replicas="2"), broker_configs={"unclean.leader.election.enable": "true"}
            )
        ),
        "unclean-enabled",
    )
    assert (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type brokers --entity-default --add-config unclean.leader.election.enable=false"
        in inherited.commands
    )


def unclean_cluster() -> ClusterSnapshot:
    """Six topics inheriting unclean election from server.properties; one turns it on itself."""
    topics = [healthy(f"t{i}", 2, min_insync_replicas="2") for i in range(6)]
    own = healthy("mine", 2, min_insync_replicas="2", unclean_leader_election_enable="true")
    return snap(*topics, own, broker_configs={"unclean.leader.election.enable": "true"})


def test_many_topics_inheriting_unclean_election_get_one_cluster_wide_finding() -> None:
    found = run(unclean_cluster())
    f = by_id(found, "unclean-enabled-default")
    assert f.title == "6 topics inherit unclean leader election from STATIC_BROKER_CONFIG (12 partitions)"
    assert f.topics == ("t0", "t1", "t2", "t3", "t4", "t5") and f.affected_partitions == 12
    assert f.commands == (
        f"kafka-configs.sh --bootstrap-server {B} --alter --entity-type brokers --entity-default "
        "--add-config unclean.leader.election.enable=false",
    )
    assert any("server.properties: remove the line on every broker" in step for step in f.steps)
    assert "topics: 6 topic(s): t0, t1, t2, t3 and 2 more" in f.evidence
    # a topic's own override is its own decision: it keeps a finding of its own
    assert [x.topics for x in found if x.id == "unclean-enabled"] == [("mine",)] and not f.covers("mine", 0)


def test_single_rack_finding_moves_one_replica_to_another_rack() -> None:
    f = by_id(run(misconfigured()), "single-rack", "racked")
    assert f.partitions == ("racked-1",) and "rack (a)" in f.title
    # racked-1 (RF 2) is already in the min-isr-one plan raising its RF: no second plan touches it
    assert not any(c.startswith("printf") and "reassign-racked-racks" in c for c in f.commands)
    assert any("racked-1 (already in reassign-racked.json" in s for s in f.steps)
    assert (
        f"kafka-reassign-partitions.sh --bootstrap-server {B} --topics-to-move-json-file topics-racked.json --broker-list 1,2,3 --generate"
        in f.commands
    )
    # RF 3 / minISR 2 all on rack a, racks b and c free: two replicas move, one per rack, leader kept
    s = snap(
        topic("orders", [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="2"),
        brokers=(1, 2, 3, 4, 5),
        racks={1: "a", 2: "a", 3: "a", 4: "b", 5: "c"},
    )
    f = by_id(run(s), "single-rack")
    (plan, _) = [c for c in f.commands if c.startswith("printf")]
    moves = json.loads(re.search(r"'(\{.*\})'", plan).group(1))["partitions"]  # type: ignore[union-attr]
    assert moves == [{"topic": "orders", "partition": 0, "replicas": [1, 5, 4]}]
    assert "rack-concentrated" not in ids(run(s))


def test_plans_made_when_first_read_are_those_of_the_eager_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The absent-broker and rack plans are made when their text is first read: whatever finding is read
    first, every plan holds what making them all at once, in the findings' order, gives (a partition is
    in the first plan that claims it, the others say where it is)."""
    from kafkatui.model.reassign_plans import Planner

    racked = [
        (1, [1, 2, 3], [1, 2]),
        (2, [2, 1, 4], [2, 1]),
        (1, [1, 2], [1, 2]),
        (4, [4, 1, 2], [4, 1, 2]),
        (1, [1, 3], [1]),
    ]
    s = snap(
        topic("racked", racked, min_insync_replicas="1"),
        topic("orders", [(1, [1, 3, 2], [1, 2]), (2, [2, 3, 4], [2, 4])], min_insync_replicas="2"),
        brokers=(1, 2, 4, 5, 6),
        racks={1: "a", 2: "a", 3: "b", 4: "a", 5: "b", 6: "c"},
    )
    lazy = run(s)
    for f in reversed(lazy):
        assert f.details is not None
    monkeypatch.setattr(Planner, "later", lambda self, kind, *a: (lambda made: lambda: made)(getattr(self, kind)(*a)))
    eager = run(s)
    assert [f.to_dict() for f in lazy] == [f.to_dict() for f in eager]
    absent = by_id(eager, "broker-absent")
    assert any(c.startswith("printf") and "reassign-broker-3.json" in c for c in absent.commands)
    # racked-4 (RF 2, a replica on broker 3) is the absent-broker plan's, racked-2 the RF plan's
    assert any("racked-4 (already in reassign-broker-3.json" in step for step in by_id(eager, "min-isr-one").steps)
    assert any("racked-2 (already in reassign-racked.json" in step for step in by_id(eager, "single-rack").steps)


def test_two_of_three_replicas_on_one_rack_is_flagged_when_a_rack_loss_stops_writes() -> None:
    f = by_id(run(weak_cluster()), "rack-concentrated")
    assert f.partitions == ("orders-0",) and "if one rack fails (a)" in f.title
    (plan, _) = [c for c in f.commands if c.startswith("printf")]
    assert '"replicas":[1,4,3]' in plan
    # two racks only: RF 3 / minISR 2 cannot survive a rack loss with writes whatever the layout
    two = snap(topic("orders", [(1, [1, 2, 3], [1, 2, 3])], min_insync_replicas="2"), racks={1: "a", 2: "a", 3: "b"})
    assert "rack-concentrated" not in ids(run(two))


def test_broker_settings_below_the_floor() -> None:
    found = run(weak_cluster())
    lag = by_id(found, "replica-lag-time-low")
    assert lag.brokers == (1, 2, 3, 4) and "5000 ms" in lag.title
    assert not any("--alter" in c for c in lag.commands)  # read-only in Kafka: server.properties and a roll
    rf = by_id(found, "default-rf-one")
    assert "default.replication.factor is 1" in rf.title and not any("--alter" in c for c in rf.commands)
    # Kafka's default 30000 and an unread config are not flagged
    assert not (
        {"replica-lag-time-low", "default-rf-one"} & ids(run(snap(healthy("orders", 2, min_insync_replicas="2"))))
    )


def test_internal_topic_findings() -> None:
    found = run(misconfigured())
    weak = by_id(found, "internal-weak-config", "__consumer_offsets")
    assert weak.strimzi_patch is None and not any("kubectl" in c for c in weak.commands)
    assert any("offsets.topic.replication.factor=3" in s for s in weak.steps)
    lag = by_id(found, "internal-under-replicated", "__transaction_state")
    assert lag.partitions == ("__transaction_state-0",) and "transactions cannot complete" in lag.steps[0]
    down = by_id(run(incident()), "internal-unavailable")
    assert (
        down.severity == "critical" and "consumer groups cannot commit offsets" in down.title and down.brokers == (2, 4)
    )


def test_dev_settings_on_prod_finding() -> None:
    f = by_id(run(misconfigured()), "dev-settings-on-prod", "billing")
    assert "RF 1" in f.title
    assert any("such as orders" in c for c in f.causes)
    assert "rf-one" not in {x.id for x in run(misconfigured()) if "billing" in x.topics}


def test_dev_settings_on_prod_with_only_unclean_election_says_what_is_true() -> None:
    s = snap(
        healthy("orders", 2, min_insync_replicas="2"),
        healthy("clicks", 2, min_insync_replicas="2", unclean_leader_election_enable="true"),
    )
    f = by_id(run(s), "dev-settings-on-prod", "clicks")
    text = " ".join(f.steps + f.causes)
    assert "will not" not in text and "a single broker loss still elects cleanly" in text
    assert "default.replication.factor" not in text  # not the cause of unclean election being on
    assert "--entity-name clicks --add-config unclean.leader.election.enable=false" in " ".join(f.commands)


def test_consumer_offsets_lagging_is_one_finding_not_two() -> None:
    s = snap(
        topic("__consumer_offsets", [(1, R, [1, 2])] * 3, internal=True, min_insync_replicas="2"),
        healthy("orders", 2, min_insync_replicas="2"),
    )
    found = run(s)
    about = sorted(
        f.id
        for f in found
        if "__consumer_offsets" in f.topics
        and f.id not in ("broker-missing-from-isrs", "broker-missing-from-most-isrs")
    )
    assert about == ["internal-under-replicated"]
    f = by_id(found, "internal-under-replicated")
    assert "(3 at minISR 2)" in f.title and any("stops their commits" in st for st in f.steps)


def test_at_min_isr_with_min_isr_one_means_one_failure_from_offline() -> None:
    s = snap(topic("events", [(1, R, [1]), (1, R, R)], min_insync_replicas="1"))
    f = by_id(run(s), "at-min-isr")
    assert "ISR is the leader alone: one more failure takes them offline" in f.title
    assert not any("stops acks=all writes" in st for st in f.steps)


def test_under_min_isr_names_both_errors_single_copy_writes_and_the_producer_checklist() -> None:
    f = by_id(run(incident()), "under-min-isr", "orders")
    text = " ".join(f.steps)
    assert "NOT_ENOUGH_REPLICAS (19)" in text and "NOT_ENOUGH_REPLICAS_AFTER_APPEND (20)" in text
    assert "acks=0 and acks=1 producers are not refused" in text and "a single copy" in text
    assert "(the brokers' version is not known here)" in text  # which rule holds the high watermark
    for item in (
        "acks=all",
        "enable.idempotence=true",
        "retries",
        "delivery.timeout.ms",
        "max.in.flight.requests.per.connection at most 5",
    ):
        assert item in text


def test_min_isr_equal_to_rf_under_min_isr_does_not_say_do_not_lower() -> None:
    """payments RF 3 / minISR 3 with a replica out: one screen must not say both "Do NOT lower" and "Lower"."""
    s = snap(topic("payments", [(1, R, [1, 2]), (2, [2, 3, 1], [2, 3, 1])], min_insync_replicas="3"))
    found = run(s)
    shown = findings_for_partition(found, "payments", 0)
    assert [f.id for f in shown][:2] == ["under-min-isr", "min-isr-equals-rf"]
    steps = " ".join(st for f in shown for st in f.steps)
    assert "Do NOT lower" not in steps and "Lowering it to 2 is the configuration fix" in steps
    eq = by_id(found, "min-isr-equals-rf")
    assert "no durability gained" not in " ".join(eq.steps)
    assert any("an acknowledged write survives 2 failure(s)" in st for st in eq.steps)
    # RF 3 / minISR 2 keeps the warning against lowering
    ok = run(snap(topic("orders", [(1, R, [1])], min_insync_replicas="2")))
    assert any("Do NOT lower min.insync.replicas" in st for st in by_id(ok, "under-min-isr").steps)


def test_min_isr_above_rf_raises_rf_then_sets_two_never_one() -> None:
    s = snap(healthy("invoices", 3, rf=2), broker_configs={"min.insync.replicas": "3"})
    f = by_id(run(s), "min-isr-above-rf")
    cmds = [c for c in f.commands if not c.startswith("kubectl")]
    i_plan = next(i for i, c in enumerate(cmds) if c.startswith("printf"))
    assert cmds[-1].endswith("--add-config min.insync.replicas=2") and i_plan < len(cmds) - 1
    # meanwhile minISR = RF 2, so writes go on (said in a step); never 1, which lets the leader alone acknowledge
    assert cmds[0].endswith("--add-config min.insync.replicas=2")
    assert not any(c.endswith("min.insync.replicas=1") for c in cmds)
    assert any("while the reassignment runs" in st for st in f.steps)
    # two brokers: RF 3 cannot be planned; minISR RF - 1 is said to be a stopgap
    two = snap(healthy("invoices", 2, rf=2, brokers=2), brokers=(1, 2), broker_configs={"min.insync.replicas": "3"})
    g = by_id(run(two), "min-isr-above-rf")
    assert not any(c.startswith("printf") for c in g.commands) and any("stopgap" in st for st in g.steps)


def test_unread_broker_configs_are_worded_not_printed_raw() -> None:
    f = by_id(run(spread_lag()), "shrinks-under-load")
    assert not any("None" in e or "(ASSUMED_DEFAULT)" in e for e in f.evidence)
    assert any("replica.fetch.max.bytes=1048576 (Kafka's default, assumed" in e for e in f.evidence)


def test_partial_snapshot_finding() -> None:
    f = by_id(run(incident()), "partial-snapshot")
    assert f.severity == "info" and f.evidence == ("DescribeLogDirs: broker 4 unreachable",)


# --------------------------------------------------------------------------------------------- shape


def test_one_finding_per_kind_and_topic_listing_partitions() -> None:
    specs = [(1, R, [1, 2])] * 100
    found = run(snap(topic("big", specs), topic("small", specs[:3])))
    urp = [f for f in found if f.id == "under-replicated"]
    assert len(urp) == 2
    big = by_id(found, "under-replicated", "big")
    assert big.affected_partitions == 100 and big.partitions == tuple(f"big-{i}" for i in range(100))
    assert "... and 96 more" in big.evidence


def test_sorted_by_severity_then_offline_then_root_cause_then_breadth() -> None:
    found = run(incident())
    ranks = [("critical", "warning", "info").index(f.severity) for f in found]
    assert ranks == sorted(ranks)
    crit = [f for f in found if f.severity == "critical"]
    # issue 26: partitions nobody can read or write come first, then the cause before its other symptoms
    assert [f.id for f in crit[:2]] == ["offline", "broker-absent"]
    topic_crit = [f.affected_partitions for f in crit if not f.root_cause and f.id != "offline"]
    assert topic_crit == sorted(topic_crit, reverse=True)


def test_json_round_trip() -> None:
    found = run(incident()) + run(misconfigured()) + run(missing_broker(), shrink_counts={3: 4})
    for f in found:
        d = json.loads(json.dumps(f.to_dict()))
        assert set(d) == {
            "id",
            "severity",
            "title",
            "root_cause",
            "resources",
            "affected_partitions",
            "evidence",
            "causes",
            "steps",
            "commands",
            "strimzi_patch",
            "command_kinds",
            "change_when",
        }
        assert len(d["command_kinds"]) == len(d["commands"])
        assert (d["change_when"] is None) == ("change" not in d["command_kinds"])
        assert set(d["resources"]) == {"topics", "partitions", "brokers"}
        assert Finding.from_dict(d) == f


def test_findings_for_partition() -> None:
    found = run(missing_broker())
    hit = findings_for_partition(found, "orders", 0)
    assert {f.id for f in hit} == {"broker-missing-from-isrs", "at-min-isr"}
    assert all("orders" in f.topics for f in hit)
    assert findings_for_partition(found, "orders", 3) == []  # broker 3 holds no replica of orders-3
    whole_topic = findings_for_partition(run(misconfigured()), "blocked", 1)
    assert {f.id for f in whole_topic} == {"min-isr-above-rf"}


def test_helpers() -> None:
    assert human_bytes(512) == "512 B" and human_bytes(6_000_000) == "5.7 MiB"
    assert kafkatopic_name("orders.v1") == "orders.v1"
    name = kafkatopic_name("Orders_V1")
    assert name.startswith("orders-v1---") and len(name) == len("orders-v1---") + 40


@pytest.mark.parametrize(("line", "held"), [("3.9", True), ("2.8", False)])
def test_under_min_isr_says_whether_consumers_see_acks_1_writes(line: str, held: bool) -> None:
    """3.7+ holds the high watermark under min ISR (what a consumer of the lab's 4.4, 3.9 and 3.9-ZK
    clusters sees, tests/lab/test_seeds.py); 2.8 lets acks=1 writes through to consumers."""
    from kafkatui.model.rules import version_from_api_versions
    from tests.model.test_rules import ANSWERS

    s = dataclasses.replace(incident(), kafka=version_from_api_versions(ANSWERS[line]))
    text = " ".join(by_id(run(s), "under-min-isr", "orders").steps)
    assert ("consumers do not see their writes" in text) is held
    assert ("consumers read their writes" in text) is not held
    assert "version is not known" not in text
