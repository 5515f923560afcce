"""The three passes of `kafkatui.model.health.assess`: states, then topics, then brokers.

`assess` lays every topic's partitions out as columns of state ids over one table of distinct
(leader, replicas, ISR) states (`kafkatui.model.snapshot.columns`), then:

1. `state_pass` judges each distinct state once: its facts (replica count, ISR size when led,
   under-replicated, non-preferred, offline, live ISR members) as lists indexed by state id, and the
   per-broker counts weighted by how many partitions are in that state.
2. `topic_pass` classifies each topic's partitions under the topic's min ISR (`kafkatui.model.rules`)
   through a table of every state's class per min ISR, sums the topic's facts into a `TopicHealth`,
   and counts for each broker the partitions its restart would stop (`kafkatui.model.restart_rule`).
3. `broker_pass` turns the per-broker counts into a `BrokerHealth` each, and `cluster_counts` sums
   the cluster's totals.

Each pass reads what the one before computed and nothing of the snapshot's internals but the columns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from kafkatui.model import rules
from kafkatui.model.health import (
    BrokerHealth,
    ClusterCounts,
    Health,
    TopicHealth,
    _min_isr,
    _unclean,
    is_internal,
)
from kafkatui.model.restart_rule import Impact, restart_impact
from kafkatui.model.snapshot import BrokerInfo, ClusterSnapshot, Partitions

_ALL = tuple(Health)
State = tuple[int, tuple[int, ...], tuple[int, ...]]  # (leader, replicas, ISR)


@dataclass(slots=True)
class StateFacts:
    """What the state pass found: each referenced state's facts (lists indexed by state id) and the
    per-broker counts, each state weighted by its multiplicity."""

    states: Sequence[State]
    mult: Counter[int]  # state id -> partitions in that state
    absent: frozenset[int]  # named by replica lists, not listed in metadata
    serving: frozenset[int]  # listed and not refusing connections
    n_rep: list[int]
    isr_if_led: list[int]  # ISR size, 0 when offline (a topic's smallest ISR)
    urp: list[int]  # led with ISR < replicas
    nonpref: list[int]  # led by another broker than the first replica
    live_isr: list[int]  # serving ISR members of a led partition (restart impact)
    offline: bytearray
    led: Counter[int] = field(default_factory=Counter)
    preferred: Counter[int] = field(default_factory=Counter)
    preferred_led: Counter[int] = field(default_factory=Counter)
    hosted: Counter[int] = field(default_factory=Counter)
    out_of_isr: Counter[int] = field(default_factory=Counter)
    offline_hosted: Counter[int] = field(default_factory=Counter)
    offline_out: Counter[int] = field(default_factory=Counter)


@dataclass(slots=True)
class TopicPass:
    """What the topic pass found: every topic's verdict and class codes, the cluster's totals per class,
    and per broker the partitions (and their topics) a restart would stop."""

    topics: dict[str, TopicHealth] = field(default_factory=dict)
    classes: dict[str, bytearray] = field(default_factory=dict)
    totals: list[int] = field(default_factory=lambda: [0] * len(_ALL))
    urp_total: int = 0
    nonpref_total: int = 0
    restart_under: Counter[int] = field(default_factory=Counter)
    restart_off: Counter[int] = field(default_factory=Counter)
    restart_topics: dict[int, set[str]] = field(default_factory=dict)


def state_pass(
    snapshot: ClusterSnapshot, cols: dict[str, Partitions], states: Sequence[State], live: frozenset[int]
) -> StateFacts:
    """Each distinct state once, and the per-broker counts it contributes."""
    check_leader = bool(live)
    mult: Counter[int] = Counter()
    for c in cols.values():
        mult.update(c.states)
    referenced: set[int] = set()
    for sid in mult:
        referenced.update(states[sid][1])
    absent = frozenset(referenced) - live
    # down for a restart's impact: absent, or listed but refusing connections (not yet fenced, so its
    # ISRs still name it: they lose it at the fencing, and a restart now counts without it)
    gone = absent | (snapshot.refused & live)
    serving = live - gone

    n = len(states)
    f = StateFacts(
        states=states,
        mult=mult,
        absent=absent,
        serving=serving,
        n_rep=[0] * n,
        isr_if_led=[0] * n,
        urp=[0] * n,
        nonpref=[0] * n,
        live_isr=[0] * n,
        offline=bytearray(n),
    )
    n_rep, isr_if_led, urp, nonpref, live_isr, offline = f.n_rep, f.isr_if_led, f.urp, f.nonpref, f.live_isr, f.offline
    led, preferred, preferred_led, hosted = f.led, f.preferred, f.preferred_led, f.hosted
    out_of_isr, offline_hosted, offline_out = f.out_of_isr, f.offline_hosted, f.offline_out
    for sid, m in mult.items():
        leader, reps, isr = states[sid]
        nr = len(reps)
        ni = len(isr)
        n_rep[sid] = nr
        pref = reps[0] if reps else -1
        preferred[pref] += m
        for r in reps:
            hosted[r] += m
        if leader < 0 or (check_leader and leader not in live):
            offline[sid] = 1
            for r in reps:
                offline_hosted[r] += m
                if r not in isr:
                    offline_out[r] += m
            continue
        isr_if_led[sid] = ni
        led[leader] += m
        if leader == pref:
            preferred_led[leader] += m
        else:
            nonpref[sid] = 1
        if ni < nr:
            urp[sid] = 1
            for r in reps:
                if r not in isr:
                    out_of_isr[r] += m
        live_isr[sid] = ni if not gone or gone.isdisjoint(isr) else sum(1 for b in isr if b in serving)
    return f


def topic_pass(snapshot: ClusterSnapshot, cols: dict[str, Partitions], f: StateFacts) -> TopicPass:
    """Every topic's verdict from its states' facts under its min ISR, and each broker's restart impact."""
    states, mult, n_rep, offline, live_isr = f.states, f.mult, f.n_rep, f.offline, f.live_isr
    isr_if_led, urp, nonpref, serving = f.isr_if_led, f.urp, f.nonpref, f.serving
    capped = snapshot.kafka.capped  # min ISR capped at RF by the brokers (3.7+): `rules`
    n = len(states)
    class_of: dict[int, bytes] = {}  # min ISR -> every state's class
    # min ISR -> states a restart can stop (restart_rule): the impact on an ISR member's and on another
    # replica's restart
    risky_of: dict[int, dict[int, tuple[Impact, Impact]]] = {}

    def tables(min_isr: int) -> tuple[bytes, dict[int, tuple[Impact, Impact]]]:
        cls = bytearray(n)
        risky = {}
        class_index, effective = rules.class_index, rules.effective_min_isr
        for sid in mult:
            leader, reps, isr = states[sid]
            eff = effective(min_isr, n_rep[sid], capped)
            cls[sid] = class_index(leader, reps, len(isr), eff, bool(offline[sid]))
            # restart impact: an ISR member's restart keeps one fewer than the live ISR (restart_rule)
            if offline[sid] or live_isr[sid] - 1 < eff:
                kept = 0 if offline[sid] else live_isr[sid]
                risky[sid] = (restart_impact(max(0, kept - 1), eff), restart_impact(kept, eff))
        class_of[min_isr] = bytes(cls)
        risky_of[min_isr] = risky
        return class_of[min_isr], risky_of[min_isr]

    min_isr_default = snapshot.broker_config("min.insync.replicas")
    unclean_default = snapshot.broker_config("unclean.leader.election.enable")
    out = TopicPass()
    topics, classes, totals = out.topics, out.classes, out.totals
    restart_under, restart_off, restart_topics = out.restart_under, out.restart_off, out.restart_topics
    urp_total = 0
    nonpref_total = 0
    # topics with the same states and min ISR (replica layouts repeat) share one computation
    seen: dict[tuple[bytes, int], tuple[bytes, tuple[int, ...], int, int, int, int, int, list[tuple[int, int]]]] = {}
    for name, c in cols.items():
        t = snapshot.topics[name]
        sts = c.states
        min_isr, min_src = _min_isr(t.configs.get("min.insync.replicas", min_isr_default))
        unclean, unclean_src = _unclean(t.configs.get("unclean.leader.election.enable", unclean_default))
        key = (sts.tobytes(), min_isr)
        agg = seen.get(key)
        if agg is None:
            if min_isr in class_of:
                cls_table, risky = class_of[min_isr], risky_of[min_isr]
            else:
                cls_table, risky = tables(min_isr)
            codes = bytes(map(cls_table.__getitem__, sts))
            if sts:
                rf = max(map(n_rep.__getitem__, sts))
                min_rf = min(map(n_rep.__getitem__, sts))
                smallest_isr = min(map(isr_if_led.__getitem__, sts))
                t_urp = sum(map(urp.__getitem__, sts))
                t_nonpref = sum(map(nonpref.__getitem__, sts))
            else:
                rf = min_rf = smallest_isr = t_urp = t_nonpref = 0
            hits = [(sid, sts.count(sid)) for sid in risky.keys() & sts] if risky else []
            agg = seen[key] = (
                codes,
                tuple(codes.count(k) for k in range(6)),
                rf,
                min_rf,
                smallest_isr,
                t_urp,
                t_nonpref,
                hits,
            )
        codes, counts, rf, min_rf, smallest_isr, t_urp, t_nonpref, hits = agg
        for sid, k in hits:
            _, reps, isr = states[sid]
            in_isr, other = risky_of[min_isr][sid]
            for b in reps:
                if b not in serving:
                    continue
                impact = in_isr if b in isr else other
                if impact:
                    (restart_off if impact == Impact.OFFLINE else restart_under)[b] += k
                    restart_topics.setdefault(b, set()).add(name)
        cls = bytearray(codes)
        for k in range(6):
            totals[k] += counts[k]
        urp_total += t_urp
        nonpref_total += t_nonpref
        worst = next((h for h in _ALL if counts[h]), Health.HEALTHY)
        base = min(min_rf, min_isr)
        loss = base - 1 if not unclean else min(base, smallest_isr) - 1
        eff = rules.effective_min_isr(min_isr, min_rf, capped)
        classes[name] = cls
        topics[name] = TopicHealth(
            name=name,
            internal=is_internal(t),
            partitions=len(sts),
            worst=worst,
            counts=counts,
            rf=rf,
            min_rf=min_rf,
            min_isr=min_isr,
            min_isr_source=min_src,
            min_headroom=(smallest_isr - eff) if sts else 0,
            smallest_isr=smallest_isr,
            unclean=unclean,
            unclean_source=unclean_src,
            loss_tolerance=max(0, loss),
            write_tolerance=max(0, min_rf - eff),
            writes_blocked=rules.writes_blocked(min_isr, min_rf, capped) and bool(sts),
            under_replicated_total=t_urp,
            non_preferred_total=t_nonpref,
            effective_min_isr=eff,
        )
    out.urp_total = urp_total
    out.nonpref_total = nonpref_total
    return out


def broker_pass(
    snapshot: ClusterSnapshot, listed: dict[int, BrokerInfo], f: StateFacts, t: TopicPass
) -> dict[int, BrokerHealth]:
    """Every broker listed in metadata or named by a replica list, in id order."""
    hosted, offline_hosted, out_of_isr = f.hosted, f.offline_hosted, f.out_of_isr
    restart_under, restart_off, restart_topics = t.restart_under, t.restart_off, t.restart_topics
    brokers: dict[int, BrokerHealth] = {}
    for bid in sorted(listed.keys() | f.absent):
        info = listed.get(bid)
        h_online = hosted[bid] - offline_hosted[bid]
        o_online = out_of_isr[bid]
        all_missing = h_online > 0 and o_online == h_online
        under = restart_under[bid]
        off = restart_off[bid]
        brokers[bid] = BrokerHealth(
            id=bid,
            up=info is not None,
            host=info.host if info else None,
            port=info.port if info else None,
            rack=info.rack if info else None,
            controller=bid == snapshot.controller_id,
            hosted=hosted[bid],
            led=f.led[bid],
            preferred=f.preferred[bid],
            preferred_led=f.preferred_led[bid],
            out_of_isr=o_online + f.offline_out[bid],
            hosted_online=h_online,
            out_of_isr_online=o_online,
            missing_from_all_isrs=all_missing,
            missing_from_most_isrs=not all_missing and h_online > 0 and o_online * 2 > h_online,
            restart_safe=under == 0 and off == 0,
            restart_under_min_isr=under,
            restart_offline=off,
            restart_topics=len(restart_topics.get(bid, ())),
            refused=info is not None and bid in snapshot.refused,
            unresponsive=bid in snapshot.unresponsive,
        )
    return brokers


def cluster_counts(snapshot: ClusterSnapshot, live: frozenset[int], f: StateFacts, t: TopicPass) -> ClusterCounts:
    """The cluster's totals (each partition counted once, in its class)."""
    absent, totals, led = f.absent, t.totals, f.led
    return ClusterCounts(
        brokers_up=len(live - snapshot.refused),
        brokers_total=len(live | absent),
        brokers_absent=tuple(sorted(absent)),
        brokers_refused=tuple(sorted(live & snapshot.refused)),
        leader_refused=sum(led[b] for b in live & snapshot.refused),
        controller_id=snapshot.controller_id,
        topics=len(t.topics),
        partitions=sum(totals),
        offline=totals[0],
        under_min_isr=totals[1],
        at_min_isr=totals[2],
        under_replicated=totals[3],
        non_preferred_leader=totals[4],
        healthy=totals[5],
        under_replicated_total=t.urp_total,
        non_preferred_total=t.nonpref_total,
    )
