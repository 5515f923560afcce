"""The columnar snapshot (issue 17): partitions as state ids of a shared table, judged per state.

`assess` must give exactly what the per-partition definition gives (the reference below is the
pre-columns implementation, kept as the oracle), whether the topics hold `PartitionInfo` tuples or
`Partitions` columns; views, diffs and filters must read the same as the objects they stand for.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import replace
from itertools import chain
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkatui.kafka.metadata_wire import MetadataColumns, from_client, partitions_of
from kafkatui.kafka.source import _add_elr
from kafkatui.model import durability as A
from kafkatui.model.changes import diff
from kafkatui.model.durability import audit, rack_cap
from kafkatui.model.health import Health, assess, effective_min_isr, effective_unclean
from kafkatui.model.restart_rule import Impact, kept_in_sync, restart_impact
from kafkatui.model.snapshot import (
    DYNAMIC_TOPIC_CONFIG,
    STATIC_BROKER_CONFIG,
    BrokerInfo,
    ClusterSnapshot,
    ConfigValue,
    PartitionExtra,
    PartitionInfo,
    Partitions,
    StateTable,
    TopicInfo,
    columns,
)


# ---------------------------------------------------------------------------------- the oracle
def reference(snapshot: ClusterSnapshot) -> tuple[dict[str, Any], dict[int, Any], dict[str, bytes]]:
    """Per topic (counts, rf, min_rf, smallest ISR, URP, non-preferred) and per broker counters, one
    partition at a time, as `assess` computed them before columns (commit 9835dba); the restart counts
    by `kafkatui.model.restart_rule` since issue 29."""
    live = frozenset(b.id for b in snapshot.brokers)
    check_leader = bool(live)
    absent = frozenset(r for t in snapshot.topics.values() for p in t.partitions for r in p.replicas) - live
    c: dict[str, Counter[int]] = {
        k: Counter()
        for k in ("led", "preferred", "preferred_led", "hosted", "out", "off_hosted", "off_out", "r_under", "r_off")
    }
    r_topics: dict[int, set[str]] = {}
    topics: dict[str, Any] = {}
    classes: dict[str, bytes] = {}
    for name in sorted(snapshot.topics):
        parts = snapshot.topics[name].partitions
        min_isr, _ = effective_min_isr(snapshot, name)
        cls = bytearray()
        counts = [0] * 6
        urp = nonpref = rf = 0
        smallest, min_rf = 1 << 30, 1 << 30
        c["hosted"].update(chain.from_iterable(p.replicas for p in parts))
        for p in parts:
            reps, isr, leader = p.replicas, p.isr, p.leader
            rf, min_rf = max(rf, len(reps)), min(min_rf, len(reps))
            pref = reps[0] if reps else -1
            c["preferred"][pref] += 1
            if leader < 0 or (check_leader and leader not in live):
                k, smallest = 0, 0
                c["off_hosted"].update(reps)
                c["off_out"].update(r for r in reps if r not in isr)
            else:
                c["led"][leader] += 1
                if leader == pref:
                    c["preferred_led"][leader] += 1
                else:
                    nonpref += 1
                smallest = min(smallest, len(isr))
                if len(isr) < len(reps):
                    urp += 1
                    c["out"].update(r for r in reps if r not in isr)
                k = (
                    1
                    if len(isr) < min_isr
                    else 2
                    if len(isr) == min_isr
                    else 3
                    if len(isr) < len(reps)
                    else 4
                    if leader != pref
                    else 5
                )
            # the restart rule, one partition and one replica at a time (issue 29: the gate's rule)
            led = not (leader < 0 or (check_leader and leader not in live))
            for b in reps:
                if b in live:
                    impact = restart_impact(kept_in_sync(isr, b, live, led), min_isr)
                    if impact:
                        c["r_off" if impact == Impact.OFFLINE else "r_under"][b] += 1
                        r_topics.setdefault(b, set()).add(name)
            cls.append(k)
            counts[k] += 1
        if not parts:
            smallest = min_rf = 0
        classes[name] = bytes(cls)
        topics[name] = (tuple(counts), rf, min_rf, smallest, urp, nonpref, min_isr, effective_unclean(snapshot, name))
    brokers = {
        b: (
            c["hosted"][b],
            c["led"][b],
            c["preferred"][b],
            c["preferred_led"][b],
            c["out"][b] + c["off_out"][b],
            c["hosted"][b] - c["off_hosted"][b],
            c["out"][b],
            c["r_under"][b],
            c["r_off"][b],
            len(r_topics.get(b, ())),
        )
        for b in sorted(live | absent)
    }
    return topics, brokers, classes


def summary(snapshot: ClusterSnapshot) -> tuple[dict[str, Any], dict[int, Any], dict[str, bytes]]:
    r = assess(snapshot)
    topics = {
        n: (
            t.counts,
            t.rf,
            t.min_rf,
            t.smallest_isr,
            t.under_replicated_total,
            t.non_preferred_total,
            t.min_isr,
            (t.unclean, t.unclean_source),
        )
        for n, t in r.topics.items()
    }
    brokers = {
        b: (
            h.hosted,
            h.led,
            h.preferred,
            h.preferred_led,
            h.out_of_isr,
            h.hosted_online,
            h.out_of_isr_online,
            h.restart_under_min_isr,
            h.restart_offline,
            h.restart_topics,
        )
        for b, h in r.brokers.items()
    }
    return topics, brokers, {n: bytes(r.class_codes(n)) for n in r.topics}


def as_columns(snapshot: ClusterSnapshot, table: StateTable | None = None) -> ClusterSnapshot:
    """The same snapshot with every topic's partitions as columns of one table (views not kept)."""
    table = table or StateTable()
    live = frozenset(b.id for b in snapshot.brokers)
    topics = {}
    for name, t in snapshot.topics.items():
        cols = columns(name, t.partitions, table, live)
        bare = Partitions(name, cols.ids, cols.states, table, live)  # views rebuilt from the states
        topics[name] = replace(t, partitions=bare)
    return replace(snapshot, topics=topics)


# ---------------------------------------------------------------------------------- clusters
@st.composite
def clusters(draw: st.DrawFn) -> ClusterSnapshot:
    listed = draw(st.lists(st.integers(1, 6), unique=True, max_size=6))
    pool = list(range(1, 8))  # 7 is never listed: absent when named
    topics = {}
    for ti in range(draw(st.integers(0, 4))):
        name = f"t{ti}"
        parts = []
        for pi in range(draw(st.integers(0, 6))):
            reps = tuple(draw(st.lists(st.sampled_from(pool), unique=True, max_size=4)))
            isr = tuple(r for r in reps if draw(st.booleans()))
            leader = draw(st.sampled_from([-1, *isr, *pool[:2]]))
            parts.append(PartitionInfo(name, pi, leader, reps, isr))
        configs = {}
        mi = draw(st.sampled_from([None, "1", "2", "3", "x"]))
        if mi is not None:
            configs["min.insync.replicas"] = ConfigValue(mi, DYNAMIC_TOPIC_CONFIG)
        if draw(st.booleans()):
            configs["unclean.leader.election.enable"] = ConfigValue("true", DYNAMIC_TOPIC_CONFIG)
        topics[name] = TopicInfo(name, tuple(parts), configs=configs)
    bcfg = {"min.insync.replicas": ConfigValue(draw(st.sampled_from(["1", "2"])), STATIC_BROKER_CONFIG)}
    return ClusterSnapshot(
        "c",
        1,
        tuple(BrokerInfo(b, "h", 9092) for b in sorted(listed)),
        topics,
        broker_configs={b: dict(bcfg) for b in listed},
    )


@settings(max_examples=300, deadline=None)
@given(clusters())
def test_assess_is_the_per_partition_definition_for_objects_and_columns(snapshot: ClusterSnapshot) -> None:
    expected = reference(snapshot)
    assert summary(snapshot) == expected
    assert summary(as_columns(snapshot)) == expected


@settings(max_examples=100, deadline=None)
@given(clusters(), clusters())
def test_diff_of_columns_is_the_diff_of_their_partitions(a: ClusterSnapshot, b: ClusterSnapshot) -> None:
    table = StateTable()
    ca, cb = as_columns(a, table), as_columns(b, table)
    assert diff(ca, replace(cb, taken_at=5.0)) == diff(a, replace(b, taken_at=5.0))
    assert diff(cb, cb) == []


@settings(max_examples=100, deadline=None)
@given(clusters())
def test_columns_read_like_their_partitions(snapshot: ClusterSnapshot) -> None:
    cols = as_columns(snapshot)
    for name, t in snapshot.topics.items():
        parts = cols.topics[name].partitions
        assert len(parts) == len(t.partitions)
        assert isinstance(parts, Partitions)
        alone = [parts.view(i) for i in range(len(parts))]  # built one by one, views not built yet
        assert alone == list(parts)
        # offline replicas come from the brokers metadata lists, as the source always derived them
        assert tuple(parts) == tuple(
            replace(p, offline_replicas=tuple(r for r in p.replicas if r not in {b.id for b in snapshot.brokers}))
            for p in t.partitions
        )
    test = lambda _leader, reps, isr: 3 in reps and 3 not in isr  # noqa: E731
    assert list(cols.partitions_where(test)) == [
        p for n in sorted(cols.topics) for p in cols.topics[n].partitions if test(p.leader, p.replicas, p.isr)
    ]
    assert cols.referenced_brokers() == snapshot.referenced_brokers()
    report = assess(cols)
    for name in cols.topics:
        assert [p.partition for p in report.partition_infos(name, Health.UNDER_REPLICATED)] == [
            p.partition for p in report.partitions(name) if p.health == Health.UNDER_REPLICATED
        ]


def crowded_reference(snapshot: ClusterSnapshot, topic: str, min_isr: int, single: set[int]) -> list[int]:
    """`rack-concentrated`'s partitions one partition at a time, as the audit found them before it asked
    each distinct state once (commit 5220d80)."""
    racks = {b.id: b.rack for b in snapshot.brokers}
    n_racks = len({r for r in racks.values() if r})
    out = []
    for p in snapshot.topics[topic].partitions:
        if p.partition in single or len(set(p.replicas)) < 2:
            continue
        cap = rack_cap(len(p.replicas), min_isr, n_racks)
        rs = [racks.get(r) for r in p.replicas]
        if cap is not None and None not in rs and max(Counter(rs).values()) > cap:
            out.append(p.partition)
    return out


@st.composite
def racked(draw: st.DrawFn) -> ClusterSnapshot:
    """Brokers 1-6 on racks a-c (or none), partitions of 2-4 replicas of brokers 1-7 (7 absent)."""
    racks = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=6, max_size=6))
    topics = {}
    for ti in range(draw(st.integers(1, 3))):
        name = f"t{ti}"
        parts = []
        for pi in range(draw(st.integers(1, 6))):
            reps = tuple(draw(st.lists(st.integers(1, 7), unique=True, min_size=2, max_size=4)))
            parts.append(PartitionInfo(name, pi, reps[0], reps, reps))
        mi = draw(st.sampled_from(["1", "2", "3"]))
        topics[name] = TopicInfo(
            name, tuple(parts), configs={"min.insync.replicas": ConfigValue(mi, DYNAMIC_TOPIC_CONFIG)}
        )
    return ClusterSnapshot("c", 1, tuple(BrokerInfo(b, "h", 9092, racks[b - 1]) for b in range(1, 7)), topics)


@settings(max_examples=150, deadline=None)
@given(racked())
def test_rack_rules_judged_per_state_are_the_per_partition_rules(snapshot: ClusterSnapshot) -> None:
    for snap in (snapshot, as_columns(snapshot)):
        report = assess(snap)
        issues = {(i.rule, i.topic): i.partitions for i in audit(snap, report)}
        for name, th in report.topics.items():
            single = set(issues.get((A.SINGLE_RACK, name), ()))
            expected = crowded_reference(snap, name, th.min_isr, single)
            assert list(issues.get((A.RACK_CONCENTRATED, name), ())) == sorted(expected)


# ---------------------------------------------------------------------------------- from librdkafka
def _md(topics: dict[str, dict[int, tuple[int, list[int], list[int], int | None]]]) -> Any:
    """An object shaped like confluent-kafka's ClusterMetadata (topics -> partitions by id)."""

    def part(pid: int, leader: int, reps: list[int], isr: list[int], err: int | None) -> Any:
        error = None if err is None else SimpleNamespace(code=lambda: err)
        return SimpleNamespace(id=pid, leader=leader, replicas=reps, isrs=isr, error=error)

    return SimpleNamespace(
        topics={
            name: SimpleNamespace(partitions={pid: part(pid, *spec) for pid, spec in parts.items()}, error=None)
            for name, parts in topics.items()
        },
        brokers={},
        cluster_id="c",
        controller_id=1,
    )


def _read_partitions(
    md: Any, names: list[str], live: frozenset[int], table: StateTable
) -> tuple[dict[str, Partitions], bool]:
    cols: MetadataColumns = from_client(md, table)
    return partitions_of(cols, names, live)


def test_metadata_is_read_into_columns_with_errors_offline_replicas_and_elr() -> None:
    md = _md(
        {
            "a": {1: (1, [1, 2, 3], [1, 2, 3], None), 0: (2, [2, 3, 9], [2, 3], None)},
            "b": {0: (-1, [9], [9], 5), 2: (1, [1, 2], [1], None)},  # partition 1 missing: ids kept
        }
    )
    table = StateTable()
    parts, lagging = _read_partitions(md, ["a", "b"], frozenset({1, 2, 3}), table)
    assert lagging
    assert isinstance(parts["a"].ids, range) and parts["b"].ids == (0, 2)
    assert list(parts["a"]) == [
        PartitionInfo("a", 0, 2, (2, 3, 9), (2, 3), (9,)),
        PartitionInfo("a", 1, 1, (1, 2, 3), (1, 2, 3)),
    ]
    assert list(parts["b"]) == [
        PartitionInfo("b", 0, -1, (9,), (9,), (9,), error_code=5),
        PartitionInfo("b", 2, 1, (1, 2), (1,)),
    ]
    # the same states read again get the same ids: a source's snapshots share its table
    again, _ = _read_partitions(md, ["a", "b"], frozenset({1, 2, 3}), table)
    assert again["a"].same_states(parts["a"]) and len(table) == 4

    _add_elr(
        again,
        {
            ("b", 0): {
                "leader_epoch": 7,
                "eligible_leader_replicas": [3],
                "last_known_elr": [],
                "offline_replicas": [9, 4],
            }
        },
    )
    b0, b2 = again["b"]
    assert b0 == PartitionInfo("b", 0, -1, (9,), (9,), (9, 4), 7, (3,), (), 5)
    assert b2.elr == () and b2.last_known_elr == ()  # known: empty
    assert again["a"][0].elr == ()
    assert parts["a"][0].elr is None  # no ELR answer: unknown


def test_views_come_from_states_and_extras() -> None:
    table = StateTable()
    sts = array("i", [table.id_of(1, (1, 2), (1, 2)), table.id_of(-1, (3, 4), (3,)), table.id_of(1, (1, 2), (1, 2))])
    cols = Partitions(
        "t",
        range(3),
        sts,
        table,
        frozenset({1, 2, 3}),
        elr_known=True,
        extras={1: PartitionExtra(error_code=2, elr=(4,))},
    )
    assert len(table) == 2 and cols[0].replicas is cols[2].replicas  # one state, interned lists
    assert cols[1] == PartitionInfo("t", 1, -1, (3, 4), (3,), (4,), -1, (4,), (), 2)
    assert cols[0] == PartitionInfo("t", 0, 1, (1, 2), (1, 2), (), -1, (), ())
    assert cols[1:] == (cols[1], cols[2])


def test_a_few_partitions_are_built_alone_and_kept() -> None:
    table = StateTable()
    live = frozenset({1, 2, 3})
    sts = array("i", [table.id_of(1, (1, 2), (1, 2))] * 50 + [table.id_of(1, (1, 4), (1,))])
    cols = Partitions("t", range(51), sts, table, live)
    snap = ClusterSnapshot("c", 1, tuple(BrokerInfo(b, "h", 9092) for b in sorted(live)), {"t": TopicInfo("t", cols)})
    (found,) = snap.partitions_where(lambda _leader, reps, _isr: 4 in reps)
    assert found == PartitionInfo("t", 50, 1, (1, 4), (1,), (4,))
    assert cols._views is None  # the other 50 were not built
    assert cols.view(50) is found and cols.views()[50] is found  # the same object, built once
