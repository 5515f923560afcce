"""Findings about configuration (the durability audit's rules), with the fix for each.

`RULE_BUILDERS` maps each audit rule to the method that turns an `AuditIssue` into a `Finding`.
A mixin over `Context`; `kafkatui.model.findings` combines it."""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from kafkatui.model import durability as A
from kafkatui.model.finding import (
    BROKER_SOURCES,
    CLUSTER_SOURCES,
    EXAMPLES,
    INHERITED_GROUP,
    Context,
    Finding,
    file_cmd,
    ids_text,
    named,
    tally,
)
from kafkatui.model.health import Health, HealthReport, TopicHealth
from kafkatui.model.snapshot import ASSUMED_DEFAULT, STATIC_BROKER_CONFIG, ClusterSnapshot, PartitionInfo

KAFKA_LAG_DEFAULT_MS = 30000
LAG_FLOOR_MS = 15000
"""replica.lag.time.max.ms below this (half Kafka's default) turns GC pauses and network blips into ISR shrinks."""


class ConfigFindings(Context):
    """Audit issues as findings."""

    def __init__(self, report: HealthReport, snapshot: ClusterSnapshot, bootstrap: str, namespace: str) -> None:
        super().__init__(report, snapshot, bootstrap, namespace)
        self._stand_ins: dict[int, A.AuditIssue] = {}  # id() of a stand-in finding -> its issue

    # -- audit findings
    def audit_findings(self, issues: list[A.AuditIssue]) -> list[Finding]:
        """A finding per issue; those `group_inherited` will fold into a cluster-wide finding are stand-ins
        (id and topic, what the grouping reads), not built: 2,000 topics on Kafka's default minISR made
        2,000 findings (and their plans) only to drop them. `built` builds any stand-in left over."""
        stand_ins = {
            (i.rule, i.topic): Finding(i.rule, "info", "", topics=(i.topic,))
            for i in issues
            if i.rule in self._FOLDED_RULES
        }
        folded: set[tuple[str, str]] = set()
        for fid, source_of in self._FOLDED:
            _, groups = self._inherited(list(stand_ins.values()), fid, source_of)
            folded.update((fid, th.name) for ths in groups.values() for th in ths)
        out = []
        for issue in issues:
            if (issue.rule, issue.topic) in folded:
                stand_in = stand_ins[(issue.rule, issue.topic)]
                self._stand_ins[id(stand_in)] = issue
                out.append(stand_in)
            else:
                out.append(self.audit_finding(issue))
        return out

    def audit_finding(self, issue: A.AuditIssue) -> Finding:
        """The finding of one audit issue."""
        return RULE_BUILDERS[issue.rule](self, issue, self.r.topics[issue.topic])

    def built(self, found: list[Finding]) -> list[Finding]:
        """`found` with any stand-in `group_inherited` left unfolded built for real (none while both
        decide by `_FOLDED`)."""
        stand_ins = self._stand_ins
        if not stand_ins:
            return found
        return [self.audit_finding(stand_ins[id(f)]) if id(f) in stand_ins else f for f in found]

    def _raise_plan(self, th: TopicHealth, target: int) -> dict[str, Any]:
        """A plan raising the topic's RF to `target` on live brokers (see `plans.Planner.raise_rf`)."""
        plan = self.planner.raise_rf(self.s.topics[th.name].partitions, target, f"reassign-{th.name}.json")
        ctx = plan.ctx()
        # minISR 2 goes on only once every partition can have the new RF (minISR 2 on an RF-2 leftover
        # would stop its writes at any broker loss)
        return {
            "target_rf": target,
            **ctx,
            "raise_complete": ctx["planned"] and not ctx["has_unplanned"],
            "raise_partial": ctx["planned"] and ctx["has_unplanned"],
        }

    def _cfg_evidence(self, th: TopicHealth) -> list[str]:
        rf = f"RF {th.rf}" if th.rf == th.min_rf else f"RF {th.min_rf}..{th.rf}"
        return [
            f"min.insync.replicas={th.min_isr} ({th.min_isr_source}), {rf}, {th.partitions} partition(s)",
            f"tolerates {th.write_tolerance} broker failure(s) with acks=all writes going on, "
            f"{th.loss_tolerance} without losing acknowledged writes",
        ]

    def _topic_finding(
        self,
        fid: str,
        th: TopicHealth,
        ctx: dict[str, Any],
        ev: list[str],
        issue: A.AuditIssue | None = None,
        brokers: Iterable[int] = (),
        later: Callable[[], dict[str, Any]] | None = None,
    ) -> Finding:
        parts = [f"{th.name}-{p}" for p in issue.partitions] if issue is not None else []
        return self.make(
            fid,
            ctx,
            evidence=ev,
            later=later,
            topics=(th.name,),
            partitions=parts,
            brokers=brokers,
            affected=len(parts) or th.partitions,
            strimzi_ok=not th.internal,
        )

    def audit_min_isr_above_rf(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        """RF below 3: raise it to 3 (plan) and set minISR 2 (the durable triple). RF 3 or more: minISR
        RF - 1. Meanwhile (before 3.7, where no acks=all write gets through) minISR = RF, never lower:
        minISR 1 on RF 2 would let the leader alone acknowledge. On 3.7+ the brokers already hold the
        topic to min(minISR, RF): writes go on, and the finding is a warning that the config promises
        more copies than an acknowledged write has."""
        rf = th.min_rf
        capped = self.s.kafka.capped
        plan = (
            self._raise_plan(th, 3)
            if rf < 3
            else {"target_rf": rf, "planned": False, "raise_complete": False, "raise_partial": False}
        )
        raise_rf = bool(plan["planned"])
        meanwhile = rf - 1 if rf >= 3 else rf
        final = 2 if plan["raise_complete"] else meanwhile
        ctx = {
            **self.topic_ctx(th),
            **plan,
            "raise_rf": raise_rf,
            "suggested_min_isr": final,
            "suggested_why": "RF - 1" if final == rf - 1 else ("= RF" if final == rf else "RF 3 / minISR 2"),
            "meanwhile_min_isr": meanwhile,
            # before 3.7 writes are blocked until min ISR <= RF: lift the block first, at RF (never lower)
            "meanwhile": raise_rf and not capped and (meanwhile != final or bool(plan["raise_complete"])),
            "stopgap": not raise_rf and rf < 3,
            "rf_one": rf == 1,
            "capped": capped,
            "blocked": not capped,
            "kafka_version": self.s.kafka.label,
            "effect": f"brokers hold acks=all to RF {rf}" if capped else "every acks=all write fails",
            "through_one_loss": final < rf,
            "not_through_one_loss": final >= rf,
        }
        ev = [
            *self._cfg_evidence(th),
            f"{th.count(Health.UNDER_MIN_ISR)} partition(s) under minISR now",
            f"{len(self.live)} live broker(s)",
            *([f"{self.s.kafka.describe()}: {self.s.kafka.rule_note}"] if capped else []),
        ]
        return self.make(
            A.MIN_ISR_ABOVE_RF,
            ctx,
            evidence=ev,
            topics=(th.name,),
            affected=th.partitions,
            strimzi_ok=not th.internal,
            severity="warning" if capped else None,
        )

    def audit_min_isr_equals_rf(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        lower = th.min_rf >= 3
        plan = self._raise_plan(th, 3) if not lower else {"target_rf": th.min_rf + 1, "planned": False}
        ctx = {
            **self.topic_ctx(th),
            "suggested_min_isr": max(1, th.min_rf - 1),
            "lower_min_isr": lower,
            **plan,
            "raise_rf": not lower and bool(plan["planned"]),
            "rf_minus_one": th.min_rf - 1,
            "cannot_raise": not lower and not plan["planned"],
            "loss_now": th.min_rf - 1,
            "suggested_loss": max(0, th.min_rf - 2),
        }
        ev = [
            *self._cfg_evidence(th),
            f"{th.count(Health.AT_MIN_ISR)} partition(s) at minISR and {th.count(Health.UNDER_MIN_ISR)} under it now",
        ]
        return self._topic_finding(A.MIN_ISR_EQUALS_RF, th, ctx, ev)

    def audit_rf_one(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        plan = self._raise_plan(th, 3)
        ctx = {
            **self.topic_ctx(th),
            **plan,
            "can_raise_rf": bool(plan["planned"]),
            "suggested_min_isr": 2,
            "set_after_raise": bool(plan["raise_complete"]) and th.min_isr != 2,
            "default_rf": self._default_rf(),
        }
        ev = [
            *self._cfg_evidence(th),
            f"{th.count(Health.OFFLINE)} partition(s) offline now",
            f"{th.count(Health.AT_MIN_ISR)} partition(s) sit at minISR by design (Kafka's AtMinIsrPartitionCount "
            "counts them)",
        ]
        return self._topic_finding(A.RF_ONE, th, ctx, ev)

    def audit_min_isr_one(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        set_now = th.min_rf >= 3
        plan = self._raise_plan(th, 3) if not set_now else {"target_rf": th.min_rf, "planned": False}
        ctx = {
            **self.topic_ctx(th),
            "suggested_min_isr": 2,
            "set_min_isr": set_now,
            **plan,
            "raise_rf": not set_now and bool(plan["planned"]),
            "raise_complete": not set_now and bool(plan.get("raise_complete")),
            "raise_partial": not set_now and bool(plan.get("raise_partial")),
            "cannot_raise": not set_now and not plan["planned"],
        }
        return self._topic_finding(A.MIN_ISR_ONE, th, ctx, self._cfg_evidence(th))

    def audit_unclean_enabled(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        ctx = {**self.topic_ctx(th), "broker_level": th.unclean_source in BROKER_SOURCES, "unclean_off": False}
        ev = [f"unclean.leader.election.enable=true ({th.unclean_source})", *self._cfg_evidence(th)]
        return self._topic_finding(A.UNCLEAN_ENABLED, th, ctx, ev)

    def _rack_parts(self, issue: A.AuditIssue, th: TopicHealth) -> tuple[list[PartitionInfo], dict[int, str | None]]:
        wanted = set(issue.partitions)
        return (
            [p for p in self.s.topics[th.name].partitions if p.partition in wanted],
            {b.id: b.rack for b in self.s.brokers},
        )

    def _rack_plan(
        self, th: TopicHealth, parts: list[PartitionInfo], rack: dict[int, str | None]
    ) -> Callable[[], dict[str, Any]]:
        """The text's part of a rack finding: its plan, made when the text is first read (in its turn)."""
        n_racks = len({r for r in rack.values() if r})
        cap = A.rack_cap(th.min_rf, th.min_isr, n_racks) or max(1, th.min_rf - 1)
        made = self.planner.later("spread_racks", parts, cap, f"reassign-{th.name}-racks.json")
        topics_file = f"topics-{th.name}.json"

        def ctx() -> dict[str, Any]:
            return {
                **made().ctx(),
                "rack_cap": cap,
                "topics_file": topics_file,
                "topics_file_cmd": file_cmd({"version": 1, "topics": [{"topic": th.name}]}, topics_file),
                "broker_list": ",".join(str(b) for b in sorted(self.live)),
            }

        return ctx

    def audit_single_rack(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        parts, rack = self._rack_parts(issue, th)
        racks = sorted({str(rack.get(p.replicas[0])) for p in parts})
        ctx = {**self.topic_ctx(th), "count": len(parts), "racks": ", ".join(racks)}
        all_racks = sorted({r for r in rack.values() if r})
        ev = [
            f"{len(parts)} of {th.partitions} partitions keep every replica on one rack; cluster racks: "
            f"{', '.join(all_racks)}",
            *[
                f"{p.topic}-{p.partition}: replicas {list(p.replicas)} all on rack {rack.get(p.replicas[0])}"
                for p in parts[:EXAMPLES]
            ],
        ]
        return self._topic_finding(A.SINGLE_RACK, th, ctx, ev, issue, later=self._rack_plan(th, parts, rack))

    def audit_rack_concentrated(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        parts, rack = self._rack_parts(issue, th)
        crowded: Counter[str] = Counter()
        lines = []
        for p in parts:
            rk, n = Counter(str(rack.get(r)) for r in p.replicas).most_common(1)[0]
            crowded[rk] += 1
            lines.append(f"{p.topic}-{p.partition}: replicas {list(p.replicas)}, {n} on rack {rk}")
        ctx = {
            **self.topic_ctx(th),
            "count": len(parts),
            "racks": ", ".join(sorted(crowded)),
            "write_tolerance": th.min_rf - th.min_isr,
        }
        ev = [
            f"{len(parts)} of {th.partitions} partitions hold more than RF {th.min_rf} - minISR {th.min_isr} = "
            f"{th.min_rf - th.min_isr} replica(s) on one rack: rack {tally(crowded)}",
            *lines[:EXAMPLES],
        ]
        if len(lines) > EXAMPLES:
            ev.append(f"... and {len(lines) - EXAMPLES} more")
        return self._topic_finding(A.RACK_CONCENTRATED, th, ctx, ev, issue, later=self._rack_plan(th, parts, rack))

    def _inherited(
        self, found: list[Finding], fid: str, source_of: Callable[[TopicHealth], str]
    ) -> tuple[list[Finding], dict[str, list[TopicHealth]]]:
        """Per-topic `fid` findings of INHERITED_GROUP or more topics that take the setting from the same
        cluster-level source: (the findings without them, their topics per source, sorted). One
        cluster-wide change fixes them and the topics created later, where a finding per topic would
        bury the rest of a big cluster's list."""
        by_source: dict[str, list[TopicHealth]] = defaultdict(list)
        for f in found:
            th = self.r.topics.get(f.topics[0]) if f.id == fid and f.topics else None
            if th is not None and source_of(th) in CLUSTER_SOURCES:
                by_source[source_of(th)].append(th)
        grouped = {
            src: sorted(ths, key=lambda t: t.name)
            for src, ths in sorted(by_source.items())
            if len(ths) >= INHERITED_GROUP
        }
        gone = {th.name for ths in grouped.values() for th in ths}
        return [f for f in found if not (f.id == fid and f.topics and f.topics[0] in gone)], grouped

    _FOLDED: tuple[tuple[str, Callable[[TopicHealth], str]], ...] = (
        (A.MIN_ISR_ONE, lambda t: t.min_isr_source),
        (A.UNCLEAN_ENABLED, lambda t: t.unclean_source),
    )
    """The per-topic findings `group_inherited` folds, and the source each is grouped by."""
    _FOLDED_RULES = frozenset(fid for fid, _ in _FOLDED)

    def group_inherited(self, found: list[Finding]) -> list[Finding]:
        """`min-isr-one` and `unclean-enabled` of many topics inheriting the value: `...-default` findings."""
        out, by_source = self._inherited(found, *self._FOLDED[0])
        for source, ths in by_source.items():
            rf2 = [t.name for t in ths if t.min_rf < 3]
            rf3 = [t.name for t in ths if t.min_rf >= 3]
            parts = sum(t.partitions for t in ths)
            ctx = {
                "count": len(ths),
                "partitions": parts,
                "min_isr_source": source,
                "has_rf2": bool(rf2),
                "rf2_count": len(rf2),
                "rf2_topics": " ".join(shlex.quote(t) for t in rf2),
            }
            ev = [
                f"min.insync.replicas=1 ({source}) on {len(ths)} topics, {parts} partitions, none set per topic",
                *named("RF 3 or more", rf3),
                *named("RF 2", rf2),
            ]
            out.append(
                self.make(
                    "min-isr-one-default",
                    ctx,
                    evidence=ev,
                    topics=[t.name for t in ths],
                    affected=parts,
                    strimzi_ok=False,
                )
            )
        out, by_source = self._inherited(out, *self._FOLDED[1])
        for source, ths in by_source.items():
            parts = sum(t.partitions for t in ths)
            ctx = {
                "count": len(ths),
                "partitions": parts,
                "unclean_source": source,
                "static": source == STATIC_BROKER_CONFIG,
            }
            ev = [
                f"unclean.leader.election.enable=true ({source}) on {len(ths)} topics, {parts} partitions, "
                "none set per topic",
                *named("topics", [t.name for t in ths]),
            ]
            out.append(
                self.make(
                    "unclean-enabled-default",
                    ctx,
                    evidence=ev,
                    topics=[t.name for t in ths],
                    affected=parts,
                    strimzi_ok=False,
                )
            )
        return out

    def _internal_ctx(self, th: TopicHealth) -> dict[str, Any]:
        keys: tuple[str, ...]
        if th.name == "__transaction_state":
            keys = ("transaction.state.log.replication.factor", "transaction.state.log.min.isr")
            short = "transactions cannot complete"
            impact = (
                "Transactional (exactly-once) producers record their state in __transaction_state: "
                "when it is unavailable, transactions cannot begin, commit or abort."
            )
        else:
            keys = ("offsets.topic.replication.factor",)
            short = "consumer groups cannot commit offsets"
            impact = (
                "Consumer groups commit offsets to __consumer_offsets: when a partition is unavailable "
                "its groups cannot commit or rebalance; losing it rewinds or skips their progress."
            )
        vals = [(k, self.s.broker_config(k)) for k in keys]
        targets = {
            "offsets.topic.replication.factor": 3,
            "transaction.state.log.replication.factor": 3,
            "transaction.state.log.min.isr": 2,
        }
        return {
            "impact": impact,
            "impact_short": short,
            "creation_configs": ", ".join(f"{k}={cv.value} ({cv.source})" for k, cv in vals),
            "creation_keys": " and ".join(f"{k}={targets[k]}" for k in keys),
        }

    def audit_internal_weak_config(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        plan = self._raise_plan(th, 3) if th.min_rf < 3 else {"target_rf": th.min_rf, "planned": False}
        raise_rf = bool(plan["planned"])
        ctx = {
            **self.topic_ctx(th),
            **self._internal_ctx(th),
            **plan,
            "reasons": "; ".join(issue.reasons),
            "raise_rf": raise_rf,
            "fix_min_isr": th.min_isr < 2 and (th.min_rf >= 3 or bool(plan.get("raise_complete"))),
            "cannot_raise": th.min_rf < 3 and not raise_rf,
        }
        ev = [
            *self._cfg_evidence(th),
            f"broker settings: {ctx['creation_configs']}",
            f"{len(self.live)} live broker(s)",
        ]
        return self._topic_finding(A.INTERNAL_WEAK, th, ctx, ev)

    def _internal_state(self, fid: str, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        wanted = set(issue.partitions)
        parts = [p for p in self.s.topics[th.name].partitions if p.partition in wanted]
        missing: Counter[int] = Counter(r for p in parts for r in p.replicas if r not in p.isr)
        at_min = [
            p for p in parts if p.leader >= 0 and len(p.isr) == self.r.partition(th.name, p.partition).effective_min_isr
        ]
        ctx = {
            **self.topic_ctx(th),
            **self._internal_ctx(th),
            "count": len(parts),
            "missing_brokers": ids_text(missing),
            "at_min_count": len(at_min),
            "at_min": bool(at_min),
            "leader_alone": th.effective_min_isr <= 1,
            "isr_brokers": ids_text({b for p in at_min for b in p.isr}),
        }
        state = "offline or under minISR" if fid == A.INTERNAL_UNAVAILABLE else "with out-of-sync replicas"
        ev = [
            f"{len(parts)} of {th.partitions} partitions {state} (minISR {th.min_isr}, RF {th.rf})"
            + (f"; {len(at_min)} of them exactly at minISR" if at_min and fid != A.INTERNAL_UNAVAILABLE else ""),
            *self.examples(parts),
            f"missing from these ISRs: broker {tally(missing)}",
        ]
        return self._topic_finding(fid, th, ctx, ev, issue, brokers=sorted(missing))

    def audit_internal_unavailable(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        return self._internal_state(A.INTERNAL_UNAVAILABLE, issue, th)

    def audit_internal_under_replicated(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        return self._internal_state(A.INTERNAL_UNDER_REPLICATED, issue, th)

    def _default_rf(self) -> str:
        cv = self.s.broker_config("default.replication.factor")
        return f"{cv.value} from {cv.source}"

    def audit_dev_settings_on_prod(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        prod = sorted(
            n for n, t in self.r.topics.items() if n != th.name and not t.internal and A.is_production_triple(t)
        )
        rf_one = th.min_rf == 1
        plan = self._raise_plan(th, 3) if rf_one else {"target_rf": 3, "planned": False}
        raise_rf = rf_one and bool(plan["planned"])
        ctx = {
            **self.topic_ctx(th),
            **plan,
            "reasons": " and ".join(issue.reasons),
            "rf_one": rf_one,
            "raise_rf": raise_rf,
            "cannot_raise": rf_one and not raise_rf,
            "set_min_isr": bool(plan.get("raise_complete")) and th.min_isr != 2,
            "unclean_off": False,
            "prod_example": prod[0] if prod else "",
            "prod_count": len(prod),
            "default_rf": self._default_rf(),
        }
        ev = [
            *self._cfg_evidence(th),
            f"unclean.leader.election.enable={str(th.unclean).lower()} ({th.unclean_source})",
            f"{len(prod)} production-configured topic(s) on this cluster: {', '.join(prod[:5])}"
            + (" ..." if len(prod) > 5 else ""),
        ]
        return self._topic_finding(A.DEV_ON_PROD, th, ctx, ev)

    # -- broker-level configuration
    def cluster_config_findings(self) -> list[Finding]:
        """Broker settings that weaken every topic: replica.lag.time.max.ms far below Kafka's default,
        default.replication.factor 1 on a cluster of three or more brokers."""
        out: list[Finding] = []
        low: dict[int, tuple[int, str]] = {}
        for b in sorted(self.live):
            cv = self.broker_cfg("replica.lag.time.max.ms", b)
            ms = _int(cv.value)
            if ms is not None and ms < LAG_FLOOR_MS and cv.source != ASSUMED_DEFAULT:
                low[b] = (ms, cv.source)
        if low:
            values = sorted({v for v, _ in low.values()})
            ctx = {
                "brokers_text": ids_text(low),
                "lag_ms": values[0],
                "count": len(low),
                "default_ms": KAFKA_LAG_DEFAULT_MS,
            }
            ev = [f"replica.lag.time.max.ms={v} ms ({src}) on broker {b}" for b, (v, src) in sorted(low.items())][
                :EXAMPLES
            ]
            if len(low) > EXAMPLES:
                ev.append(f"... and {len(low) - EXAMPLES} more brokers")
            ev.append(
                f"Kafka's default is {KAFKA_LAG_DEFAULT_MS} ms (since 2.5); a follower that does not catch up "
                "within this time leaves the ISR"
            )
            # a choice by itself (info); a warning once followers on those brokers are out of ISRs now
            lagging = sorted(b for b in low if self.r.brokers[b].out_of_isr_online)
            if lagging:
                ev.append(f"out of ISRs now: broker {ids_text(lagging)}")
            out.append(
                self.make(
                    "replica-lag-time-low",
                    ctx,
                    evidence=ev,
                    brokers=sorted(low),
                    severity="warning" if lagging else None,
                )
            )
        cv = self.s.broker_config("default.replication.factor")
        if _int(cv.value) == 1 and cv.source != ASSUMED_DEFAULT and self.r.counts.brokers_total >= 3:
            rf_one = sorted(n for n, th in self.r.topics.items() if th.min_rf == 1 and not th.internal)
            total = self.r.counts.brokers_total
            ctx = {"default_rf_source": cv.source, "live_brokers": total, "rf_one_count": len(rf_one)}
            ev = [
                f"default.replication.factor=1 ({cv.source}) on a cluster of {total} brokers",
                *named("topics with RF 1 now", rf_one),
            ]
            out.append(self.make("default-rf-one", ctx, evidence=ev))
        return out


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


RuleBuilder = Callable[[ConfigFindings, A.AuditIssue, TopicHealth], Finding]
RULE_BUILDERS: dict[str, RuleBuilder] = {
    A.MIN_ISR_ABOVE_RF: ConfigFindings.audit_min_isr_above_rf,
    A.MIN_ISR_EQUALS_RF: ConfigFindings.audit_min_isr_equals_rf,
    A.RF_ONE: ConfigFindings.audit_rf_one,
    A.MIN_ISR_ONE: ConfigFindings.audit_min_isr_one,
    A.UNCLEAN_ENABLED: ConfigFindings.audit_unclean_enabled,
    A.SINGLE_RACK: ConfigFindings.audit_single_rack,
    A.RACK_CONCENTRATED: ConfigFindings.audit_rack_concentrated,
    A.INTERNAL_WEAK: ConfigFindings.audit_internal_weak_config,
    A.INTERNAL_UNAVAILABLE: ConfigFindings.audit_internal_unavailable,
    A.INTERNAL_UNDER_REPLICATED: ConfigFindings.audit_internal_under_replicated,
    A.DEV_ON_PROD: ConfigFindings.audit_dev_settings_on_prod,
}
"""Each audit rule's finding builder (every rule in `audit.RULES` has one; a test checks)."""
