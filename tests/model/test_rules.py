"""The version rules and the class table (kafkatui.model.rules)."""

from __future__ import annotations

import dataclasses

import pytest

from kafkatui.model import rules
from kafkatui.model.health import Health, assess
from kafkatui.model.rules import KafkaVersion, combine, version_from_api_versions
from tests.model.builders import snap, topic

# ApiVersions answers of real brokers (api key -> (min, max)) for the markers' APIs, as Kafka's own
# message schemas give them at each release tag; 4 LeaderAndIsr only on ZooKeeper-mode brokers
ZK = {4: (0, 7)}
ANSWERS = {
    "2.8": {0: (0, 9), 1: (0, 12), 2: (0, 6), 11: (0, 7), 24: (0, 3), 29: (0, 2), 35: (0, 2), 60: (0, 0)},
    "3.3": {0: (0, 9), 1: (0, 13), 2: (0, 7), 11: (0, 9), 24: (0, 3), 29: (0, 3), 35: (0, 4), 60: (0, 0)},
    "3.6": {0: (0, 9), 1: (0, 15), 2: (0, 8), 11: (0, 9), 24: (0, 4), 29: (0, 3), 35: (0, 4), 60: (0, 0)},
    "3.7": {0: (0, 10), 1: (0, 16), 2: (0, 8), 11: (0, 9), 24: (0, 4), 29: (0, 3), 35: (0, 4), 60: (0, 1)},
    "3.9": {0: (0, 11), 1: (0, 17), 2: (0, 9), 11: (0, 9), 24: (0, 5), 29: (0, 3), 35: (0, 4), 60: (0, 1)},
    "4.1": {0: (0, 13), 1: (4, 18), 2: (1, 10), 11: (0, 9), 24: (0, 5), 29: (1, 3), 35: (1, 4), 60: (0, 2)},
    "4.3": {0: (0, 13), 1: (4, 18), 2: (1, 11), 11: (0, 9), 24: (0, 5), 29: (1, 3), 35: (1, 5), 60: (0, 2)},
    "4.4": {0: (0, 13), 1: (4, 18), 2: (1, 11), 11: (0, 9), 24: (0, 5), 28: (0, 6), 29: (1, 3), 35: (1, 5), 42: (0, 3)},
}


@pytest.mark.parametrize(
    ("line", "label", "caps"),
    [
        ("2.8", "2.8", False),
        ("3.3", "3.3-3.4", False),
        ("3.6", "3.6", False),
        ("3.7", "3.7", True),
        ("3.9", "3.9", True),
        ("4.1", "4.1", True),
        ("4.3", "4.3", True),
        ("4.4", "4.4+", True),
    ],
)
def test_version_from_api_versions(line: str, label: str, caps: bool) -> None:
    v = version_from_api_versions(ANSWERS[line])
    assert (v.label, v.caps_min_isr, v.mode) == (label, caps, rules.KRAFT)
    zk = version_from_api_versions({**ANSWERS[line], **ZK})
    assert (zk.label, zk.mode) == (label, rules.ZOOKEEPER)


def test_older_than_2_8_and_unknown() -> None:
    assert version_from_api_versions({0: (0, 8), 1: (0, 11)}).label == "2.7 or older"
    assert rules.UNKNOWN.label == "unknown" and rules.UNKNOWN.caps_min_isr is None and not rules.UNKNOWN.capped
    assert "assumed" in rules.UNKNOWN.rule_note


def test_rolling_upgrade_across_3_7_keeps_the_raw_rule() -> None:
    mixed = combine([version_from_api_versions(ANSWERS["3.6"]), version_from_api_versions(ANSWERS["3.9"])])
    assert mixed.label == "3.6-3.9" and mixed.caps_min_isr is None and not mixed.capped
    assert "straddles 3.7" in mixed.rule_note
    both = combine([version_from_api_versions(ANSWERS["3.7"]), version_from_api_versions(ANSWERS["4.4"])])
    assert both.label == "3.7+" and both.capped and both.brokers == 2


def test_mode_from_roles() -> None:
    assert rules.mode_from_roles(["broker", "broker"]) == rules.KRAFT
    assert rules.mode_from_roles(["", None]) == rules.ZOOKEEPER
    assert rules.mode_from_roles([]) is None
    assert combine([], rules.ZOOKEEPER).mode == rules.ZOOKEEPER


def test_effective_min_isr_and_writes_blocked() -> None:
    assert rules.effective_min_isr(2, 1, capped=True) == 1
    assert rules.effective_min_isr(2, 1, capped=False) == 2
    assert rules.effective_min_isr(2, 3, capped=True) == 2
    assert rules.writes_blocked(2, 1, capped=False)
    assert not rules.writes_blocked(2, 1, capped=True)
    assert not rules.writes_blocked(2, 2, capped=False)


def test_class_table_order_is_health() -> None:
    assert tuple(h.name for h in Health) == rules.CLASS_NAMES


@pytest.mark.parametrize(
    ("leader", "replicas", "isr", "min_isr", "capped", "expected"),
    [
        (-1, (1, 2, 3), (1,), 2, True, "OFFLINE"),
        (4, (4, 2, 3), (4, 2, 3), 2, True, "OFFLINE"),  # leader not live
        (1, (1,), (1,), 2, False, "UNDER_MIN_ISR"),  # RF 1 under minISR 2 before 3.7
        (1, (1,), (1,), 2, True, "AT_MIN_ISR"),  # 3.7+: effective min ISR 1
        (1, (1, 2), (1, 2), 3, True, "AT_MIN_ISR"),
        (1, (1, 2, 3), (1, 2), 1, True, "UNDER_REPLICATED"),
        (2, (1, 2, 3), (1, 2, 3), 2, True, "NON_PREFERRED_LEADER"),
        (1, (1, 2, 3), (1, 2, 3), 2, True, "HEALTHY"),
    ],
)
def test_classify(
    leader: int, replicas: tuple[int, ...], isr: tuple[int, ...], min_isr: int, capped: bool, expected: str
) -> None:
    assert rules.classify(leader, replicas, isr, min_isr, frozenset({1, 2, 3}), capped) == expected


def _with(version: KafkaVersion, *topics: object) -> object:
    return dataclasses.replace(snap(*topics), kafka=version)  # type: ignore[arg-type]


def test_assess_follows_the_version() -> None:
    t = topic("rf1", [(1, (1,), (1,))], min_insync_replicas="2")
    old = assess(_with(version_from_api_versions(ANSWERS["2.8"]), t))  # type: ignore[arg-type]
    new = assess(_with(version_from_api_versions(ANSWERS["3.9"]), t))  # type: ignore[arg-type]
    o, n = old.topics["rf1"], new.topics["rf1"]
    assert (o.worst, o.writes_blocked, o.min_isr, o.effective_min_isr) == (Health.UNDER_MIN_ISR, True, 2, 2)
    assert (n.worst, n.writes_blocked, n.min_isr, n.effective_min_isr) == (Health.AT_MIN_ISR, False, 2, 1)
    assert new.partition("rf1", 0).headroom == 0 and old.partition("rf1", 0).headroom == -1
    assert new.partition("rf1", 0).effective_min_isr == 1
    assert n.write_tolerance == 0 and n.loss_tolerance == 0


def test_assess_restart_safety_uses_the_effective_min_isr() -> None:
    # RF 2 under minISR 3: on 3.7+ the leader holds it to 2, so losing a broker puts it under min ISR
    t = topic("rf2", [(1, (1, 2), (1, 2))], min_insync_replicas="3")
    new = assess(_with(version_from_api_versions(ANSWERS["3.9"]), t))  # type: ignore[arg-type]
    assert new.topics["rf2"].worst == Health.AT_MIN_ISR
    assert not new.brokers[2].restart_safe and new.brokers[2].restart_under_min_isr == 1


def test_non_preferred_finding_adds_up_to_the_summary_count() -> None:
    from kafkatui.model.findings import findings

    t = topic(
        "orders",
        [
            (2, (1, 2, 3), (1, 2, 3)),  # in sync, led by 2: electable
            (2, (1, 2, 3), (1, 2)),  # under-replicated, preferred 1 in sync: electable
            (2, (1, 2, 3), (2, 3)),  # preferred 1 out of the ISR: no election helps yet
            (1, (1, 2, 3), (1, 2, 3)),
        ],
    )
    report = assess(snap(t))
    assert report.counts.non_preferred_total == 3
    (f,) = [f for f in findings(report) if f.id == "non-preferred-leader"]
    assert f.partitions == ("orders-0", "orders-1")
    assert any(e.startswith("1 more partition(s) led elsewhere") for e in f.evidence)
