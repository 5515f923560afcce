"""Durability audit: topic configurations that are wrong whatever the brokers are doing now.

Rules (the `rule` of each `AuditIssue`, also its finding id in the catalog):

- ``min-isr-above-rf``: minISR > RF of some partition: every acks=all write to it fails.
- ``min-isr-equals-rf``: minISR == RF (RF >= 2): a single broker loss stops acks=all writes, for no
  durability gain. (RF 1 is left to ``rf-one``.)
- ``rf-one``: a partition with a single replica: no redundancy, one broker loss takes it offline
  (left to ``min-isr-above-rf`` when minISR > 1: that fix raises the RF too).
- ``min-isr-one``: minISR 1 with RF >= 2: acks=all is acknowledged by the leader alone.
- ``unclean-enabled``: unclean.leader.election.enable=true: Kafka may elect an out-of-sync replica
  and silently drop acknowledged writes.
- ``single-rack``: every replica of a partition on one rack. Checked only when every replica's broker
  reports a rack and the cluster spans at least two racks (otherwise nothing could be moved).
- ``rack-concentrated``: one rack holds more than RF - minISR replicas of a partition (two of three
  with minISR 2): losing that rack (a zone outage) drops the ISR below minISR and stops acks=all
  writes. Checked only where the live racks could hold the replicas without it (racks x (RF - minISR)
  >= RF); partitions with every replica on one rack are ``single-rack`` instead.
- ``internal-weak-config``: ``__consumer_offsets`` / ``__transaction_state`` with RF < 3 or
  minISR < 2. It replaces ``rf-one``, ``min-isr-one`` and ``min-isr-equals-rf`` for those topics.
- ``internal-unavailable``: an internal topic with partitions offline or under minISR while replicas
  are missing (consumer groups cannot commit offsets, transactions fail).
- ``internal-under-replicated``: an internal topic with out-of-sync replicas, still writable (at
  minISR or above). The findings report these partitions here only, not also as ``at-min-isr`` or
  ``under-replicated``.
- ``dev-settings-on-prod``: dev settings (RF 1, or unclean election on) on a topic that looks like
  production. The cluster counts as production when at least one other non-internal topic has the
  durable triple (RF >= 3, 2 <= minISR <= RF, unclean off); a topic looks like production when its name
  carries no dev/test marker (a dot, dash or underscore separated word such as dev, test, tmp,
  sandbox, scratch, demo, staging, qa, poc). Such a topic gets this issue *instead of* ``rf-one`` and
  ``unclean-enabled`` (one issue, both reasons). Dev-named topics keep the plain rules.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from kafkatui.model.health import Health, HealthReport, TopicHealth, assess
from kafkatui.model.snapshot import ClusterSnapshot

MIN_ISR_ABOVE_RF = "min-isr-above-rf"
MIN_ISR_EQUALS_RF = "min-isr-equals-rf"
RF_ONE = "rf-one"
MIN_ISR_ONE = "min-isr-one"
UNCLEAN_ENABLED = "unclean-enabled"
SINGLE_RACK = "single-rack"
RACK_CONCENTRATED = "rack-concentrated"
INTERNAL_WEAK = "internal-weak-config"
INTERNAL_UNAVAILABLE = "internal-unavailable"
INTERNAL_UNDER_REPLICATED = "internal-under-replicated"
DEV_ON_PROD = "dev-settings-on-prod"

RULES = (
    MIN_ISR_ABOVE_RF,
    INTERNAL_UNAVAILABLE,
    MIN_ISR_EQUALS_RF,
    RF_ONE,
    MIN_ISR_ONE,
    UNCLEAN_ENABLED,
    DEV_ON_PROD,
    SINGLE_RACK,
    RACK_CONCENTRATED,
    INTERNAL_WEAK,
    INTERNAL_UNDER_REPLICATED,
)

DEV_MARKERS = frozenset(
    {
        "dev",
        "devel",
        "develop",
        "development",
        "test",
        "tests",
        "testing",
        "tmp",
        "temp",
        "sandbox",
        "scratch",
        "demo",
        "staging",
        "stg",
        "qa",
        "uat",
        "local",
        "playground",
        "poc",
        "sample",
        "example",
        "experiment",
        "experimental",
        "junk",
        "trial",
    }
)
_SPLIT = re.compile(r"[._\-]+")


@dataclass(frozen=True, slots=True)
class AuditIssue:
    """One rule broken by one topic."""

    rule: str
    topic: str
    detail: str  # one line for humans
    partitions: tuple[int, ...] = ()  # for partition-scoped rules (single-rack, internal-*)
    reasons: tuple[str, ...] = ()  # which settings are weak (internal-weak-config, dev-settings-on-prod)


def looks_like_dev(topic: str) -> bool:
    """True when a word of the topic's name marks it as dev/test data."""
    return any(w in DEV_MARKERS for w in _SPLIT.split(topic.lower()))


def is_production_triple(th: TopicHealth) -> bool:
    """RF >= 3, 2 <= minISR <= RF, unclean off: a durable configuration someone chose on purpose."""
    return th.min_rf >= 3 and 2 <= th.min_isr <= th.min_rf and not th.unclean


def audit(snapshot: ClusterSnapshot, report: HealthReport | None = None) -> list[AuditIssue]:
    """Every rule broken, topic by topic (name order), rules in `RULES` order within a topic."""
    if report is None:
        report = assess(snapshot)
    racks = {b.id: b.rack for b in snapshot.brokers}
    rack_aware = len({r for r in racks.values() if r}) >= 2
    rack_of_set: dict[tuple[int, ...], str | None] = {}  # replica sets repeat across topics: decide each once
    one_rack = partial(_shared_rack, racks, rack_of_set)
    n_racks = len({r for r in racks.values() if r})
    crowded_tests: dict[int, Callable[[tuple[int, ...]], bool]] = {}  # per min ISR: one test, memoised per state

    def crowded_test(min_isr: int) -> Callable[[tuple[int, ...]], bool]:
        test = crowded_tests.get(min_isr)
        if test is None:
            test = crowded_tests[min_isr] = partial(_crowded, racks, n_racks, min_isr, one_rack)
        return test

    prod_topics = [n for n, th in report.topics.items() if not th.internal and is_production_triple(th)]
    issues: list[AuditIssue] = []
    for name in sorted(report.topics):
        th = report.topics[name]
        if th.partitions == 0:
            continue
        found: dict[str, AuditIssue] = {}
        rf, mi = th.min_rf, th.min_isr
        src = th.min_isr_source
        if mi > rf:
            effect = (
                f"the brokers hold acks=all to RF {rf}"
                if report.snapshot.kafka.capped
                else "every acks=all write fails"
            )
            found[MIN_ISR_ABOVE_RF] = AuditIssue(MIN_ISR_ABOVE_RF, name, f"minISR {mi} ({src}) > RF {rf}: {effect}")
        if th.internal:
            _internal(report, th, found)
        else:
            if mi == rf and rf >= 2:
                found[MIN_ISR_EQUALS_RF] = AuditIssue(
                    MIN_ISR_EQUALS_RF, name, f"minISR {mi} ({src}) == RF {rf}: one broker loss stops acks=all writes"
                )
            if rf == 1 and mi <= 1:
                found[RF_ONE] = AuditIssue(
                    RF_ONE, name, "RF 1: no redundancy, one broker loss takes partitions offline"
                )
            if mi == 1 and rf >= 2:
                found[MIN_ISR_ONE] = AuditIssue(
                    MIN_ISR_ONE, name, f"minISR 1 ({src}) with RF {rf}: acks=all is acknowledged by the leader alone"
                )
        if th.unclean:
            found[UNCLEAN_ENABLED] = AuditIssue(
                UNCLEAN_ENABLED,
                name,
                f"unclean.leader.election.enable=true ({th.unclean_source}): acknowledged writes can be lost",
            )
        if not th.internal and (rf == 1 or th.unclean) and not looks_like_dev(name):
            others = [n for n in prod_topics if n != name]
            if others:
                reasons = tuple(r for r, on in (("RF 1", rf == 1), ("unclean election on", th.unclean)) if on)
                found.pop(RF_ONE, None)
                found.pop(UNCLEAN_ENABLED, None)
                found[DEV_ON_PROD] = AuditIssue(
                    DEV_ON_PROD,
                    name,
                    f"{' and '.join(reasons)} on a production-looking topic next to {len(others)} topic(s) "
                    f"with RF >= 3, minISR >= 2 (e.g. {others[0]})",
                    reasons=reasons,
                )
        if rack_aware:
            same = _single_rack(report, name, one_rack)
            if same:
                rack_names = sorted(set(same.values()))
                found[SINGLE_RACK] = AuditIssue(
                    SINGLE_RACK,
                    name,
                    f"{len(same)} partition(s) with every replica on one rack ({', '.join(rack_names)})",
                    partitions=tuple(sorted(same)),
                )
            crowded = [partition for partition, _ in report.replica_lists_where(name, crowded_test(mi))]
            if crowded:
                found[RACK_CONCENTRATED] = AuditIssue(
                    RACK_CONCENTRATED,
                    name,
                    f"{len(crowded)} partition(s) with more than RF - minISR replicas on one rack: losing that "
                    "rack stops acks=all writes",
                    partitions=tuple(sorted(crowded)),
                )
        issues.extend(found[r] for r in RULES if r in found)
    return issues


def _internal(report: HealthReport, th: TopicHealth, found: dict[str, AuditIssue]) -> None:
    name = th.name
    reasons = []
    if th.min_rf < 3:
        reasons.append(f"RF {th.min_rf} < 3")
    if th.min_isr < 2:
        reasons.append(f"minISR {th.min_isr} ({th.min_isr_source}) < 2")
    if reasons:
        found[INTERNAL_WEAK] = AuditIssue(INTERNAL_WEAK, name, "; ".join(reasons), reasons=tuple(reasons))
    down = [
        p.partition
        for h in (Health.OFFLINE, Health.UNDER_MIN_ISR)
        for p in report.partition_infos(name, h)
        if h == Health.OFFLINE or len(p.isr) < len(p.replicas)
    ]
    if down:
        found[INTERNAL_UNAVAILABLE] = AuditIssue(
            INTERNAL_UNAVAILABLE,
            name,
            f"{len(down)} partition(s) offline or under minISR",
            partitions=tuple(sorted(down)),
        )
    lagging = [
        p.partition
        for h in (Health.AT_MIN_ISR, Health.UNDER_REPLICATED)
        for p in report.partition_infos(name, h)
        if len(p.isr) < len(p.replicas)
    ]
    if lagging:
        found[INTERNAL_UNDER_REPLICATED] = AuditIssue(
            INTERNAL_UNDER_REPLICATED,
            name,
            f"{len(lagging)} partition(s) with out-of-sync replicas",
            partitions=tuple(sorted(lagging)),
        )


def _single_rack(report: HealthReport, topic: str, one_rack: Callable[[tuple[int, ...]], str | None]) -> dict[int, str]:
    """Partitions (with >= 2 distinct replicas, all racks known) whose replicas share one rack."""
    return {
        partition: rack for partition, key in report.replica_lists_where(topic, one_rack) if (rack := one_rack(key))
    }


def rack_cap(rf: int, min_isr: int, n_racks: int) -> int | None:
    """Most replicas of one partition a rack should hold so that losing the rack keeps acks=all writes
    going (RF - minISR), when `n_racks` racks can hold RF replicas that way; else None."""
    cap = rf - min_isr
    if cap < 1 or n_racks * cap < rf:
        return None
    return cap


def _crowded(
    racks: dict[int, str | None],
    n_racks: int,
    min_isr: int,
    one_rack: Callable[[tuple[int, ...]], str | None],
    reps: tuple[int, ...],
) -> bool:
    """More than `rack_cap` of the replicas `reps` on one rack (>= 2 distinct replicas, racks all known,
    not all on one rack: that is `single-rack`)."""
    if len(set(reps)) < 2 or one_rack(reps):
        return False
    cap = rack_cap(len(reps), min_isr, n_racks)
    if cap is None:
        return False
    rs = [racks.get(r) for r in reps]
    if None in rs:
        return False
    return max(Counter(rs).values()) > cap


def _shared_rack(
    racks: dict[int, str | None], seen: dict[tuple[int, ...], str | None], key: tuple[int, ...]
) -> str | None:
    """The one rack of every replica in `key` (>= 2 distinct replicas, all racks known), else None;
    memoised per replica tuple in `seen`."""
    if key in seen:
        return seen[key]
    rack = None
    reps = set(key)
    if len(reps) >= 2:
        rs = {racks.get(r) for r in reps}
        if len(rs) == 1:
            (rack,) = rs
    seen[key] = rack
    return rack
