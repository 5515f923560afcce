"""Findings folded into a cluster-wide one are never built (issue 17), and the result is the same."""

from __future__ import annotations

from kafkatui.model import durability as A
from kafkatui.model.finding import Finding, finding_sort_key
from kafkatui.model.findings import _Builder, findings
from kafkatui.model.health import assess
from kafkatui.model.snapshot import DEFAULT_CONFIG, ClusterSnapshot, ConfigValue
from tests.model.builders import healthy, snap


def built_then_folded(s: ClusterSnapshot) -> list[Finding]:
    """The findings as made before: every audit finding built, then grouped."""
    r = assess(s)
    b = _Builder(r, s, "B", "kafka")
    out = b.class_findings() + b.broker_findings(None)
    out += [b.audit_finding(i) for i in A.audit(s, r)] + b.cluster_config_findings() + b.partial()
    return sorted(b.group_inherited(out), key=finding_sort_key)


def cluster() -> ClusterSnapshot:
    """Eight topics on Kafka's default minISR 1 (two RF 2), all with unclean election on by a static broker
    setting, three with their own minISR 1 override: folds of both kinds."""
    default = {"min.insync.replicas": ConfigValue("1", DEFAULT_CONFIG)}
    topics = [healthy(f"app.{i}", 3) for i in range(6)] + [healthy(f"rf2.{i}", 2, rf=2) for i in range(2)]
    topics = [t.__class__(t.name, t.partitions, configs=dict(default)) for t in topics]
    topics += [healthy(f"own.{i}", 2, min_insync_replicas="1") for i in range(3)]
    return snap(*topics, broker_configs={"unclean.leader.election.enable": "true"})


def test_folded_findings_are_the_same_without_building_them() -> None:
    s = cluster()
    found = findings(assess(s), s, "B")
    assert found == built_then_folded(s)
    ids = [f.id for f in found]
    assert "min-isr-one-default" in ids and "unclean-enabled-default" in ids
    assert "min-isr-one" in ids  # the topics with their own minISR 1 keep theirs
    assert all(f.title for f in found)  # no stand-in left


def test_a_stand_in_the_grouping_does_not_fold_is_built_for_real() -> None:
    s = cluster()
    r = assess(s)
    b = _Builder(r, s, "B", "kafka")
    made = b.audit_findings(A.audit(s, r))
    stand_ins = [f for f in made if not f.title]
    assert len(stand_ins) >= 5
    rebuilt = b.built(stand_ins)  # as if the grouping had kept them
    assert [f.id for f in rebuilt] == [f.id for f in stand_ins] and all(f.title and f.commands for f in rebuilt)
