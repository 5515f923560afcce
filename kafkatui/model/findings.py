"""Findings: what is wrong, why it matters, and the exact commands to fix it.

`findings(report, snapshot, bootstrap, shrink_counts)` turns a `HealthReport`, the durability audit
and (optionally) per-broker ISR-shrink history into `Finding`s. What each finding says — severity,
title, likely causes, remediation steps, command templates — is data in ``catalog.yaml``; this
module detects the problems, gathers the evidence from the snapshot and fills the templates.

Grouping: per-partition problems become one finding per (kind, topic) listing the partitions; broker
problems one finding per broker. Sorting: severity (critical, warning, info), then offline partitions
(no leader: no reads or writes) first, then root causes (a broker) before symptoms (a topic), then
breadth (affected partitions, then topics), then id and name.
Findings about a broker (missing from ISRs, absent) start at the catalog's severity and become
critical when a partition they explain is offline or under minISR.

Class findings leave configuration problems to the audit: ``under-min-isr`` lists only partitions
whose replica count could satisfy minISR (minISR > RF is ``min-isr-above-rf``), and ``at-min-isr``
only partitions that lost an in-sync replica (a full ISR at minISR is ``min-isr-equals-rf`` or
``rf-one``, which say how to fix the configuration).

`Finding.to_dict()` gives this JSON shape (stable; keys always present)::

    {
      "id": "under-min-isr",                 # catalog id
      "severity": "critical",                # "critical" | "warning" | "info"
      "title": "orders: 3 partition(s) under minISR 2, acks=all writes failing",
      "root_cause": false,                   # true for findings about a broker
      "resources": {
        "topics": ["orders"],
        "partitions": ["orders-0", "orders-3"],   # "topic-N"; empty when the whole topic is meant
        "brokers": [3]
      },
      "affected_partitions": 3,              # breadth, used for sorting
      "evidence": ["..."],                   # short lines, numbers from the snapshot
      "causes": ["..."],
      "steps": ["..."],
      "commands": ["kafka-topics.sh --bootstrap-server B ..."],
      "strimzi_patch": "spec:\\n  config:\\n    min.insync.replicas: 2\\n",  # or null
      "command_kinds": ["read-only"],        # per command: "read-only" | "change" (kafkatui.model.paste)
      "change_when": null                    # when to run the changes ("If broker 2 is gone for good") or null
    }

`Finding.from_dict` reads it back.

Modules: `finding` (the type, the catalog, the shared context), `state_findings` (what the brokers
are doing now), `config_findings` (the audit's configuration rules), `plans` (reassignment plans:
live brokers only, one plan per partition). This module runs them in order and sorts the result.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafkatui.model import durability as A
from kafkatui.model.config_findings import ConfigFindings
from kafkatui.model.finding import (
    EXAMPLES,
    FLAP_MIN_SHRINKS,
    INHERITED_GROUP,
    SEVERITIES,
    CatalogEntry,
    Finding,
    fill,
    finding_sort_key,
    human_bytes,
    kafkatopic_name,
    load_catalog,
    parse_catalog,
)
from kafkatui.model.health import HealthReport
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.state_findings import StateFindings

__all__ = [
    "EXAMPLES",
    "FLAP_MIN_SHRINKS",
    "INHERITED_GROUP",
    "SEVERITIES",
    "CatalogEntry",
    "Finding",
    "fill",
    "finding_sort_key",
    "findings",
    "findings_for_partition",
    "human_bytes",
    "kafkatopic_name",
    "load_catalog",
    "parse_catalog",
]


class _Builder(StateFindings, ConfigFindings):
    """Every rule over one run's context."""


def findings(
    report: HealthReport,
    snapshot: ClusterSnapshot | None = None,
    bootstrap: str = "B",
    shrink_counts: dict[int, int] | None = None,
    *,
    namespace: str = "kafka",
) -> list[Finding]:
    """Every finding for the report, worst first.

    `shrink_counts` maps a broker id to how many times it was removed from an ISR in the window the
    caller observed (history); brokers with at least FLAP_MIN_SHRINKS get an `isr-flapping` finding.
    `namespace` fills the Strimzi `kubectl patch` commands.
    """
    snap = snapshot if snapshot is not None else report.snapshot
    b = _Builder(report, snap, bootstrap, namespace)
    out = b.class_findings() + b.broker_findings(shrink_counts)
    out += b.audit_findings(A.audit(snap, report)) + b.cluster_config_findings() + b.partial()
    return sorted(b.built(b.group_inherited(out)), key=finding_sort_key)


def config_findings(report: HealthReport, snapshot: ClusterSnapshot, bootstrap: str = "B") -> list[Finding]:
    """The configuration findings alone (min ISR, RF, unclean election, racks, cluster defaults), worst
    first: what a postmortem lists as "fix so that it does not happen again"."""
    b = _Builder(report, snapshot, bootstrap, "kafka")
    out = b.audit_findings(A.audit(snapshot, report)) + b.cluster_config_findings()
    return sorted(b.built(b.group_inherited(out)), key=finding_sort_key)


def findings_for_partition(found: Iterable[Finding], topic: str, partition: int) -> list[Finding]:
    """The findings that concern one partition: those listing it, and whole-topic findings for its topic.

    The partition's own findings (about its topic alone) come first, then the ones about its topic, then
    broker and cluster-wide ones (an absent broker's plan, say), each group in `found`'s order."""

    def rank(f: Finding) -> int:
        if f.topics == (topic,):
            return 0 if f.partitions else 1
        return 2

    return sorted((f for f in found if f.covers(topic, partition)), key=rank)
