"""Findings about what the brokers are doing now: partition classes (offline, under/at minISR,
under-replicated, non-preferred leader), brokers (missing from ISRs, absent, flapping, shrinks under
load) and an incomplete snapshot. A mixin over `Context`; `kafkatui.model.findings` combines it."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from functools import cache
from typing import Any

from kafkatui.model.election_order import restore_advice, restore_brokers
from kafkatui.model.finding import (
    EXAMPLES,
    FLAP_MIN_SHRINKS,
    Context,
    Finding,
    config_text,
    config_value,
    election_ctx,
    human_bytes,
    ids_text,
    partition_names,
    tally,
)
from kafkatui.model.health import Health, TopicHealth
from kafkatui.model.mode import controller_restart_note, snapshot_mode, words
from kafkatui.model.rules import effective_min_isr, writes_blocked
from kafkatui.model.snapshot import PartitionInfo, partition_at

FROZEN_CAUSE = (
    "its port accepts connections but it does not answer: frozen (a long GC pause, a stuck disk, SIGSTOP), "
    "so the controller fenced it"
)


ISR_LABELS = {
    "under-min-isr": "ISR below minISR",
    "at-min-isr": "ISR exactly at minISR",
    "under-replicated": "ISR smaller than the replica list",
}


class StateFindings(Context):
    """Per-topic class findings and per-broker findings."""

    # -- per-topic class findings
    def class_findings(self) -> list[Finding]:
        out: list[Finding] = []
        serving = {b for b, bh in self.r.brokers.items() if bh.serving}
        for name in sorted(self.r.topics):
            th = self.r.topics[name]
            if th.worst == Health.HEALTHY:
                continue
            groups: dict[int, list[PartitionInfo]] = defaultdict(list)
            cls = self.r.class_codes(name)
            at = partition_at(self.s.topics[name].partitions)  # builds only the partitions named
            healthy = int(Health.HEALTHY)
            for i in [i for i, c in enumerate(cls) if c < healthy]:
                groups[cls[i]].append(at(i))
            if groups[Health.OFFLINE]:
                out.append(self.offline(th, groups[Health.OFFLINE]))
            # a partition whose writes are blocked by minISR > RF (before 3.7) is min-isr-above-rf's
            capped = self.s.kafka.capped
            under = [p for p in groups[Health.UNDER_MIN_ISR] if not writes_blocked(th.min_isr, len(p.replicas), capped)]
            if under:
                out.append(self.isr_finding("under-min-isr", th, under))
            # internal topics' lagging partitions are the audit's internal-under-replicated finding
            at_min = [p for p in groups[Health.AT_MIN_ISR] if len(p.isr) < len(p.replicas) and not th.internal]
            if at_min:
                out.append(self.isr_finding("at-min-isr", th, at_min))
            if groups[Health.UNDER_REPLICATED] and not th.internal:
                out.append(self.isr_finding("under-replicated", th, groups[Health.UNDER_REPLICATED]))
            # every led partition whose leader is not its first replica, whatever its worse class (the
            # summary's count): those a preferred election can move back (the preferred replica in sync
            # and serving) are listed, the rest counted, so that the two numbers add up to the summary's
            moved = [
                p
                for c in (Health.UNDER_MIN_ISR, Health.AT_MIN_ISR, Health.UNDER_REPLICATED, Health.NON_PREFERRED_LEADER)
                for p in groups[c]
                if p.replicas and p.leader != p.replicas[0]
            ]
            electable = [p for p in moved if p.replicas[0] in p.isr and p.replicas[0] in serving]
            if electable:
                electable.sort(key=lambda p: p.partition)
                out.append(self.non_preferred(th, electable, len(moved) - len(electable)))
        return out

    def offline(self, th: TopicHealth, parts: list[PartitionInfo]) -> Finding:
        live = self.live
        with_live = [p for p in parts if any(r in live for r in p.replicas)]
        none_alive = [p for p in parts if p not in with_live]
        restore = {b for p in parts for b in p.isr if b not in live} or {
            b for p in parts for b in p.replicas if b not in live
        }
        has_live = not th.unclean and bool(with_live)
        # by the controller's election order (ISR, ELR, last known leader): not any replica that was down
        advice = restore_advice(parts)
        next_up = restore_brokers(none_alive)
        el = election_ctx(th.name, [p.partition for p in with_live] or [parts[0].partition], "unclean")
        ctx = {
            **self.topic_ctx(th),
            "count": len(parts),
            "restore_brokers": ids_text(restore),
            "restore_advice": advice[:1].upper() + advice[1:],
            "replica_brokers": ids_text(next_up or {b for p in none_alive for b in p.replicas}),
            "no_live_clean": bool(none_alive) and bool(next_up),
            "no_live_unclean": bool(none_alive) and not next_up,
            "none_alive": partition_names(none_alive),
            "has_live_replica": has_live,
            "no_live_replica": bool(none_alive),
            "unclean_multi": has_live and el["multi_partition"],
            "unclean_target": el["election_target"],
            "unclean_partition": (with_live or parts)[0].partition,
            "election_file_cmd": el["election_file_cmd"],
        }
        ev = [
            f"{len(parts)} of {th.partitions} partitions have no leader (minISR {th.min_isr}, RF {th.rf})",
            *self.examples(parts),
            f"unclean.leader.election.enable={str(th.unclean).lower()} ({th.unclean_source})",
        ]
        absent = sorted({b for p in parts for b in p.replicas if b not in live})
        if absent:
            ev.append(f"replica brokers absent from metadata: {ids_text(absent)}")
        if with_live:
            ev.append(f"{len(with_live)} partition(s) still have a live out-of-sync replica")
        elr = [p for p in parts if p.elr]
        if elr:
            ev.append(
                "eligible leader replicas (KIP-966): "
                + ", ".join(f"{p.topic}-{p.partition} {list(p.elr or ())}" for p in elr[:EXAMPLES])
            )
        return self.make(
            "offline",
            ctx,
            evidence=ev,
            topics=(th.name,),
            partitions=[f"{p.topic}-{p.partition}" for p in parts],
            brokers=sorted(restore),
            affected=len(parts),
        )

    def isr_finding(self, fid: str, th: TopicHealth, parts: list[PartitionInfo]) -> Finding:
        # a topic's partitions share few (replicas, ISR) pairs: each pair is counted once
        pairs = Counter((p.replicas, p.isr) for p in parts)
        missing: Counter[int] = Counter()
        in_isr: set[int] = set()
        for (replicas, isr), n in pairs.items():
            in_isr.update(isr)
            for r in replicas:
                if r not in isr:
                    missing[r] += n
        smallest = min((len(isr) for _, isr in pairs), default=0)
        caps = self.s.kafka.caps_min_isr
        alone = th.effective_min_isr <= 1
        config_min_isr = th.min_isr >= th.min_rf >= 3
        ctx = {
            **self.topic_ctx(th),
            "count": len(parts),
            # 3.7+ (KAFKA-15583): a leader under its effective min ISR holds the high watermark, so
            # consumers see no new acks=0/1 write until the ISR is back; before 3.7 they read them
            "hw_held": caps is True,
            "hw_moves": caps is False,
            "hw_unknown": caps is None,
            "leader_alone": alone,
            "not_leader_alone": not alone,
            "unclean_on": th.unclean,
            "copies": "a single copy" if smallest <= 1 else f"{smallest} copies",
            # minISR >= RF is a configuration problem whose fix lowers minISR (min-isr-equals-rf):
            # the "do not lower" advice would contradict it
            "config_min_isr": config_min_isr,
            "hold_min_isr": not config_min_isr,
            "suggested_min_isr": max(1, th.min_rf - 1),
            "consequence": (
                "ISR is the leader alone: one more failure takes them offline"
                if alone
                else "one more failure stops acks=all writes"
            ),
        }

        def evidence() -> list[str]:
            ev = [
                f"{len(parts)} of {th.partitions} partitions: {ISR_LABELS[fid]} (minISR {th.min_isr} from "
                f"{th.min_isr_source}, RF {th.rf})",
                *self.examples(parts),
                f"missing from these ISRs: broker {tally(missing)}",
            ]
            down = sorted(b for b in missing if b not in self.live)
            if down:
                ev.append(f"absent from metadata: broker {ids_text(down)}")
            return ev + self.lag_line(parts)

        return self.make(
            fid,
            ctx,
            evidence=evidence,
            later=lambda: {"missing_brokers": ids_text(missing), "isr_brokers": ids_text(in_isr)},
            topics=(th.name,),
            partitions=[f"{p.topic}-{p.partition}" for p in parts],
            brokers=sorted(missing),
            affected=len(parts),
        )

    def non_preferred(self, th: TopicHealth, parts: list[PartitionInfo], stuck: int = 0) -> Finding:
        """`parts`: led by another broker than their in-sync, serving first replica; `stuck`: how many
        more are led elsewhere while their first replica is out of the ISR or down (no election helps)."""
        shift: Counter[tuple[int, int]] = Counter((p.leader, p.replicas[0]) for p in parts)
        lines = [
            f"broker {lead} leads {n} partition(s) preferred by broker {pref}"
            for (lead, pref), n in sorted(shift.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        ]
        ctx = {
            **self.topic_ctx(th),
            "count": len(parts),
            "leader_shift": "; ".join(lines),
            **election_ctx(th.name, [p.partition for p in parts], "preferred"),
        }
        ev = [
            f"{len(parts)} of {th.partitions} partitions led by a broker other than their first replica",
            *lines,
            *[
                f"{p.topic}-{p.partition}: leader {p.leader}, preferred {p.replicas[0]}, ISR {list(p.isr)}"
                for p in parts[:EXAMPLES]
            ],
            *(
                [
                    f"{stuck} more partition(s) led elsewhere while their preferred replica is out of the ISR or "
                    "down: no election can move them back until it catches up"
                ]
                if stuck
                else []
            ),
        ]
        led = Counter(p.leader for p in parts)
        return self.make(
            "non-preferred-leader",
            ctx,
            evidence=ev,
            topics=(th.name,),
            partitions=[f"{p.topic}-{p.partition}" for p in parts],
            brokers=sorted(set(led) | {p.replicas[0] for p in parts}),
            affected=len(parts),
        )

    # -- broker findings
    def broker_findings(self, shrink_counts: dict[int, int] | None) -> list[Finding]:
        r = self.r
        flagged = {
            b for b, bh in r.brokers.items() if bh.serving and (bh.missing_from_all_isrs or bh.missing_from_most_isrs)
        }
        absent = set(r.counts.brokers_absent)
        oos: dict[int, list[tuple[PartitionInfo, int]]] = defaultdict(list)
        absent_hits: dict[int, list[tuple[PartitionInfo, int]]] = defaultdict(list)
        for name, th in r.topics.items():
            if th.worst == Health.HEALTHY:
                continue
            cls = r.class_codes(name)
            at = partition_at(self.s.topics[name].partitions)
            lagging, offline = int(Health.UNDER_REPLICATED), int(Health.OFFLINE)
            for i in [i for i, c in enumerate(cls) if c <= lagging]:
                c = cls[i]
                p = at(i)
                for b in p.replicas:
                    if b in absent:
                        absent_hits[b].append((p, c))
                    elif c != offline and b not in p.isr:
                        oos[b].append((p, c))
        out: list[Finding] = []
        for b in sorted(flagged):
            out.append(self.missing_broker(b, oos[b]))
        if absent:
            ids = sorted(absent)
            path = (
                f"reassign-broker-{ids[0]}.json"
                if len(ids) == 1
                else f"reassign-brokers-{'-'.join(map(str, ids))}.json"
            )
            # tested once per distinct state; only the partitions named are built
            on_absent = list(self.s.partitions_where(lambda _leader, reps, _isr: not absent.isdisjoint(reps)))
            # the moves and their text when first read (the planner makes them in their turn)
            made = self.planner.later("replace_absent", on_absent, path)
            plan = cache(lambda: made().ctx())
            for b in ids:
                topics = sorted({p.topic for p in on_absent if b in p.replicas})
                out.append(self.absent_broker(b, absent_hits[b], plan, ids, topics))
        out.extend(self.refusing_broker(b) for b in sorted(r.counts.brokers_refused))
        for b, n in sorted((shrink_counts or {}).items()):
            if n >= FLAP_MIN_SHRINKS:
                out.append(self.flapping(b, n))
        spread = Counter({b: len(v) for b, v in oos.items() if b in self.live and v})
        if len(spread) >= 2 and not flagged:
            out.append(self.under_load(spread, {b: oos[b] for b in spread}))
        return out

    def _broker_evidence(self, b: int) -> list[str]:
        bh = self.r.brokers[b]
        where = f"{bh.host}:{bh.port}" + (f", rack {bh.rack}" if bh.rack else "")
        return [
            f"broker {b} is listed in metadata ({where}){', controller' if bh.controller else ''}",
            f"leads {bh.led} partition(s); preferred leader of {bh.preferred}",
        ]

    def missing_broker(self, b: int, hits: list[tuple[PartitionInfo, int]]) -> Finding:
        bh = self.r.brokers[b]
        per_topic = Counter(p.topic for p, _ in hits)
        others = {o: x.out_of_isr_online for o, x in self.r.brokers.items() if o != b and x.up and x.out_of_isr_online}
        parts = [p for p, _ in hits]
        ev = self._broker_evidence(b)
        if bh.missing_from_all_isrs:
            fid = "broker-missing-from-isrs"
            ev.append(f"in none of the {bh.hosted_online} ISRs it belongs to")
        else:
            fid = "broker-missing-from-most-isrs"
            ev.append(f"missing from {bh.out_of_isr_online} of the {bh.hosted_online} ISRs it belongs to")
        ev.append(
            "out of sync in: "
            + ", ".join(f"{t} ({n})" for t, n in sorted(per_topic.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
        )
        ev.append(
            "every other live broker is in all its ISRs"
            if not others
            else f"other live brokers out of ISRs: {tally(Counter(others), 'replica')}"
        )
        lags = [lag for p in parts if (lag := self.lag_of(p, b)) is not None]
        if lags:
            ev.append(f"{human_bytes(sum(lags))} behind in total, worst partition {human_bytes(max(lags))}")
        classes = Counter(c for _, c in hits)
        ev.append("its partitions now: " + ", ".join(f"{n} {Health(c).label}" for c, n in sorted(classes.items())))
        leaders: Counter[int] = Counter(p.leader for p in parts)
        ctx = {
            "broker": b,
            "count": bh.out_of_isr_online,
            "hosted": bh.hosted_online,
            "topic_count": len(per_topic),
            "num_replica_fetchers": config_value("num.replica.fetchers", self.broker_cfg("num.replica.fetchers", b)),
            "lagging_leaders": tally(leaders),
            "others_clean": not others,
        }
        critical = any(c <= Health.UNDER_MIN_ISR for c in classes)
        return self.make(
            fid,
            ctx,
            evidence=ev,
            topics=sorted(per_topic),
            partitions=[f"{p.topic}-{p.partition}" for p in parts],
            brokers=(b,),
            affected=len(parts),
            critical=critical,
        )

    def absent_broker(
        self,
        b: int,
        hits: list[tuple[PartitionInfo, int]],
        plan: Callable[[], dict[str, Any]],
        absent: list[int],
        topics: list[str],
    ) -> Finding:
        """Broker `b`, named in replica lists of `topics` but absent from metadata."""
        bh = self.r.brokers[b]
        offline = [p for p, c in hits if c == Health.OFFLINE]
        under = [p for p, c in hits if c == Health.UNDER_MIN_ISR]
        ctx = {
            "broker": b,
            "count": bh.hosted,
            "topic_count": len(topics),
            "offline_count": len(offline),
            "under_count": len(under),
            "several_absent": len(absent) > 1,
            "absent_brokers": ids_text(absent),
            "absent_cause": FROZEN_CAUSE if b in self.s.unresponsive else words(snapshot_mode(self.s)).absent_cause,
            "frozen": b in self.s.unresponsive,
        }
        ev = [
            f"broker {b} is named in {bh.hosted} replica list(s) of {len(topics)} topic(s) but not listed "
            f"in metadata ({self.r.counts.brokers_up} of {self.r.counts.brokers_total} brokers up)",
            f"partitions with a replica on it: {len(offline)} offline, {len(under)} under minISR, "
            f"{len(hits) - len(offline) - len(under)} otherwise degraded",
        ]
        if offline:
            ev.append("offline: " + partition_names(offline))
        if b == self.s.controller_id:
            ev.append("metadata still names it as controller")
        return self.make(
            "broker-absent",
            ctx,
            evidence=ev,
            later=lambda: {**plan(), "can_reassign": plan()["planned"]},
            topics=topics,
            partitions=[f"{p.topic}-{p.partition}" for p, _ in hits],
            brokers=(b,),
            affected=bh.hosted,
            critical=bool(offline or under),
        )

    def refusing_broker(self, b: int) -> Finding:
        """Broker `b`, listed in metadata, whose port refused connections: what its fencing will do."""
        bh = self.r.brokers[b]
        gone = frozenset(self.r.counts.brokers_down)  # absent or refusing: the report has them
        on_b = list(self.s.partitions_where(lambda _leader, reps, _isr: b in reps))
        offline, under = [], []
        for p in on_b:
            left = [x for x in p.isr if x not in gone]
            if p.leader >= 0 and not left:
                offline.append(p)
            elif p.leader >= 0 and len(left) < effective_min_isr(
                self.r.topics[p.topic].min_isr, len(p.replicas), self.s.kafka.capped
            ):
                under.append(p)
        topics = sorted({p.topic for p in on_b})
        mode = snapshot_mode(self.s)
        said = words(mode)
        note = controller_restart_note(mode, b, self.s.controller_id)
        ctx = {
            "broker": b,
            "host": bh.host or "?",
            "port": bh.port or "?",
            "count": len(on_b),
            "topic_count": len(topics),
            "led_count": bh.led,
            "leads": bh.led > 0,
            "offline_count": len(offline),
            "under_count": len(under),
            "listed_until": said.listed_until,
            "removed_when": said.removed_when,
            "once_removed": said.once_removed,
            "controller_note": note or "",
            "is_zk_controller": note is not None,
        }
        ev = [
            f"broker {b} ({bh.host}:{bh.port}) is listed in metadata but its port refused a TCP connection",
            f"leads {bh.led} partition(s); in {len(on_b) - bh.out_of_isr} ISR(s) that lose it when it is "
            f"{said.removal_verb}",
        ]
        if offline:
            ev.append("no other in-sync copy: " + partition_names(offline))
        led = [p for p in on_b if p.leader == b]
        if led:  # they cannot take writes now, as offline partitions cannot
            ev.append(f"leader down, not yet moved (writes fail): {partition_names(led)}")
        return self.make(
            "broker-refusing-connections",
            ctx,
            evidence=ev,
            topics=topics,
            partitions=[f"{p.topic}-{p.partition}" for p in led + [p for p in offline + under if p not in led]],
            brokers=(b,),
            affected=len(on_b),
            critical=bool(offline or under or led),
        )

    def flapping(self, b: int, n: int) -> Finding:
        bh = self.r.brokers.get(b)
        lag_cfg = self.broker_cfg("replica.lag.time.max.ms", b)
        ctx = {
            "broker": b,
            "shrinks": n,
            "replica_lag_time_max_ms": config_value("replica.lag.time.max.ms", lag_cfg),
            "num_replica_fetchers": config_value("num.replica.fetchers", self.broker_cfg("num.replica.fetchers", b)),
        }
        ev = [f"broker {b} was removed from an ISR {n} times in the observed window"]
        if bh is not None:
            ev.append(
                f"now out of {bh.out_of_isr_online} of the {bh.hosted_online} ISRs it belongs to"
                + ("" if bh.up else "; absent from metadata")
            )
        ev.append(config_text("replica.lag.time.max.ms", lag_cfg))
        return self.make("isr-flapping", ctx, evidence=ev, brokers=(b,), affected=bh.hosted if bh is not None else 0)

    def under_load(self, spread: Counter[int], hits: dict[int, list[tuple[PartitionInfo, int]]]) -> Finding:
        fetchers = self.broker_cfg("num.replica.fetchers")
        fetch_max = self.broker_cfg("replica.fetch.max.bytes")
        try:
            current = int(config_value("num.replica.fetchers", fetchers))
        except ValueError:
            current = 1
        parts = {(p.topic, p.partition): p for v in hits.values() for p, _ in v}
        ctx = {
            "broker_count": len(spread),
            "spread": tally(spread, "replica"),
            "num_replica_fetchers": config_value("num.replica.fetchers", fetchers),
            "replica_fetch_max_bytes": config_value("replica.fetch.max.bytes", fetch_max),
            "suggested_fetchers": max(2, current * 2),
        }
        ev = [
            f"out-of-sync replicas on {len(spread)} live brokers, none missing from most of its ISRs: "
            f"{tally(spread, 'replica')}",
            f"{config_text('num.replica.fetchers', fetchers)}, {config_text('replica.fetch.max.bytes', fetch_max)}",
            *self.lag_line(parts.values()),
        ]
        return self.make(
            "shrinks-under-load",
            ctx,
            evidence=ev,
            topics=sorted({t for t, _ in parts}),
            partitions=[f"{t}-{p}" for t, p in sorted(parts)],
            brokers=sorted(spread),
            affected=len(parts),
        )

    def partial(self) -> list[Finding]:
        if not (self.s.partial or self.s.problems):
            return []
        problems = self.s.problems or ("the source marked the snapshot partial",)
        return [self.make("partial-snapshot", {"count": len(problems)}, evidence=problems)]
