"""What a postmortem says, computed from a replayed day (OUT) and kafkatui's audit log. No textual.

Per incident (summary.json's windows with a partition under min ISR or offline):

- the topics whose partitions could not take acks=all writes (class OFFLINE or UNDER_MIN_ISR at any
  moment of the incident), with the time during which at least one of each topic's partitions could
  not (`TopicOutage.unavailable_ms`, the union over its partitions) and the summed partition time;
- the brokers' departures and returns from the window's start (and the first broker out, if it left
  before) to its end;
- ISR shrinks and expands per broker (a broker removed from / added to an ISR between two consecutive
  states of a partition inside the window);
- the partitions that flapped: lost acks=all writes two or more times in the window;
- the changes made through kafkatui (alter, elect, reassign, throttles) in the window, from the audit log.

A partition's last state lasts until the end of the recording when the summary says where that is
(``recording_ends``), else until midnight. An incident the job marks ``ongoing`` (or that reaches that
end) is *ongoing when the recording ends*, not over.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kafkatui.history.view.data import Change, Incident, ReplayData
from kafkatui.model.finding import Finding
from kafkatui.model.health import Health

DAY_MS = 86_400_000
UNAVAILABLE = frozenset({Health.OFFLINE, Health.UNDER_MIN_ISR})
FLAP_TIMES = 2  # losing acks=all writes this many times in one incident counts as flapping


@dataclass(frozen=True, slots=True)
class TopicOutage:
    """One topic's lost acks=all writes during an incident."""

    topic: str
    partitions: tuple[int, ...]  # partitions that could not take acks=all writes at some moment
    unavailable_ms: int  # time during which at least one of them could not (union)
    partition_ms: int  # the same, summed partition by partition


@dataclass(frozen=True, slots=True)
class BrokerEvent:
    """A broker leaving (up False) or returning to the cluster."""

    ts_ms: int
    broker: int
    up: bool


@dataclass(frozen=True, slots=True)
class ChangeMade:
    """One change made through kafkatui, as the audit log recorded it."""

    ts_ms: int
    user: str
    what: str  # "alter", "elect-preferred", "reassign", ...
    target: str  # "topic orders", "partition orders-0", "broker 2"
    detail: str  # "min.insync.replicas 1 -> 2"
    result: str  # "ok" or the error


@dataclass(frozen=True, slots=True)
class IncidentFacts:
    """One incident, everything the report says about it."""

    incident: Incident
    ongoing: bool  # still open when the recording ends
    outages: tuple[TopicOutage, ...]  # worst first
    broker_events: tuple[BrokerEvent, ...]
    shrinks: tuple[tuple[int, int], ...]  # (broker, count), most first
    expands: tuple[tuple[int, int], ...]
    flapped: tuple[tuple[str, int], ...]  # ("topic-N", times writes were lost), most first
    changes: tuple[ChangeMade, ...]


@dataclass(frozen=True, slots=True)
class Postmortem:
    """A replayed day, as the report presents it."""

    data: ReplayData
    end_ms: int  # where the recording ends (or midnight)
    incidents: tuple[IncidentFacts, ...]
    broker_events: tuple[BrokerEvent, ...]
    changes: tuple[ChangeMade, ...]  # the whole day's
    findings: tuple[Finding, ...]  # configuration findings from the recorded state
    findings_minute: int | None  # the minute whose state the findings were read from
    kafka: str  # version range and mode, when the inputs say; else ""
    audit_source: str  # the audit log read, or why none

    @property
    def day(self) -> str:
        return self.data.summary.day


def recording_end_ms(data: ReplayData) -> int:
    """Where the day's data ends: the last of the recordings' ends the job wrote (`recording_ends`),
    else midnight."""
    start = data.summary.day_start_ms
    ends = [e for e in data.summary.recording_ends if start < e <= start + DAY_MS]
    return max(ends) if ends else start + DAY_MS


@dataclass(frozen=True, slots=True)
class _Spans:
    """One partition's states as spans [start, end) in time order, with their starts (for bisect)."""

    starts: list[int]
    spans: list[tuple[int, int, Change]]

    @classmethod
    def of(cls, changes: Sequence[Change], end_ms: int) -> _Spans:
        spans = []
        for i, c in enumerate(changes):
            nxt = changes[i + 1].ts_ms if i + 1 < len(changes) else end_ms
            if nxt > c.ts_ms:
                spans.append((c.ts_ms, nxt, c))
        return cls([s for s, _, _ in spans], spans)


def _union(intervals: list[tuple[int, int]]) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None and cur_s is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None and cur_s is not None:
        total += cur_e - cur_s
    return total


def _incident(
    data: ReplayData,
    inc: Incident,
    spans_of: Callable[[str], Iterable[tuple[int, _Spans]]],
    moved_topics: Collection[str],
    brokers: Sequence[BrokerEvent],
    changes: Sequence[ChangeMade],
    end_ms: int,
) -> IncidentFacts:
    lo, hi = inc.start_ms, inc.end_ms
    lost: dict[str, dict[int, list[tuple[int, int]]]] = {}
    shrinks, expands = data.isr_moves(lo, hi, moved_topics)
    flaps: Counter[str] = Counter()
    for topic in inc.topics:  # only the incident's topics, only the spans near it: a big day has 300+ incidents
        for partition, sp in spans_of(topic):
            j = bisect.bisect_right(sp.starts, lo) - 1  # the span in force at `lo` (or the first after it)
            j = max(j, 0)
            while j < len(sp.spans) and sp.spans[j][1] <= lo:
                j += 1
            prev: Change | None = sp.spans[j - 1][2] if j > 0 else None
            was_down = prev is not None and prev.health in UNAVAILABLE
            for s, e, c in sp.spans[j:]:
                if s >= hi:
                    break
                down = c.health in UNAVAILABLE
                if down:
                    lost.setdefault(topic, {}).setdefault(partition, []).append((max(s, lo), min(e, hi)))
                    if not was_down:
                        flaps[f"{topic}-{partition}"] += 1
                prev, was_down = c, down
    outages = []
    for topic, parts in lost.items():
        spans = [iv for ivs in parts.values() for iv in ivs]
        outages.append(
            TopicOutage(topic, tuple(sorted(parts)), _union(spans), sum(_union(ivs) for ivs in parts.values()))
        )
    outages.sort(key=lambda o: (-o.unavailable_ms, o.topic))
    since = min(lo, inc.first_out_ms) if inc.first_out_ms is not None else lo
    return IncidentFacts(
        inc,
        ongoing=inc.ongoing or hi >= end_ms,
        outages=tuple(outages),
        broker_events=tuple(b for b in brokers if since <= b.ts_ms <= hi),
        shrinks=tuple(sorted(shrinks.items(), key=lambda kv: (-kv[1], kv[0]))),
        expands=tuple(sorted(expands.items(), key=lambda kv: (-kv[1], kv[0]))),
        flapped=tuple(sorted(((n, k) for n, k in flaps.items() if k >= FLAP_TIMES), key=lambda x: (-x[1], x[0]))),
        changes=tuple(c for c in changes if since <= c.ts_ms <= hi),
    )


def _broker_events(data: ReplayData) -> list[BrokerEvent]:
    """Departures and returns only: a broker's first frame of the day (up) is not an event."""
    out: list[BrokerEvent] = []
    state: dict[int, bool] = {}
    for ts, broker, up in data.broker_events():
        before = state.get(broker)
        state[broker] = up
        if before is None and up:
            continue
        if before != up:
            out.append(BrokerEvent(ts, broker, up))
    return out


def _ts(value: Any) -> int | None:
    try:
        return int(datetime.fromisoformat(str(value)).timestamp() * 1000)
    except (TypeError, ValueError):
        return None


def _value(v: Any) -> str:
    if isinstance(v, Mapping):
        for key in ("value", "leader", "replicas"):
            if key in v:
                x = v[key]
                return ",".join(map(str, x)) if isinstance(x, list) else ("(default)" if x is None else str(x))
    return "-"


def audit_changes(
    records: Iterable[Mapping[str, Any]], start_ms: int, end_ms: int, clusters: Collection[str] = ()
) -> list[ChangeMade]:
    """The audit log's outcome records in [start_ms, end_ms), oldest first: of the recorded `clusters`
    when they are known (a record that names no cluster is kept), else of every cluster."""
    out: list[ChangeMade] = []
    for r in records:
        if "result" not in r or r.get("type") == "intent":
            continue
        ts = _ts(r.get("time"))
        if ts is None or not start_ms <= ts < end_ms:
            continue
        if clusters and r.get("cluster_id") is not None and r.get("cluster_id") not in clusters:
            continue
        raw = r.get("resource")
        res: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        target = f"{res.get('kind', '?')} {res.get('name', '?')}"
        action = str(r.get("action") or "alter")
        key = r.get("key")
        detail = f"{_value(r.get('before'))} -> {_value(r.get('after'))}"
        if key:
            detail = f"{key} {detail}"
        elif action.startswith("elect"):
            detail = f"leader {detail}"
        elif action.startswith("reassign"):
            detail = f"replicas {detail}"
        out.append(ChangeMade(ts, str(r.get("user") or "?"), action, target, detail, str(r.get("result"))))
    out.sort(key=lambda c: c.ts_ms)
    return out


def build(data: ReplayData, audit: Iterable[Mapping[str, Any]] = (), audit_source: str = "") -> Postmortem:
    """The postmortem of `data`, with the changes of `audit` (records of kafkatui's audit log) made to the
    cluster the day recorded."""
    from kafkatui.model.findings import config_findings

    s = data.summary
    end = recording_end_ms(data)
    clusters = s.inputs.get("clusters")
    recorded = [c for c in clusters if isinstance(c, str)] if isinstance(clusters, list) else []
    changes = audit_changes(audit, s.day_start_ms, s.day_start_ms + DAY_MS, recorded)
    brokers = _broker_events(data)
    by_topic: dict[str, list[int]] = {}
    for topic, partition in data.partition_keys():
        by_topic.setdefault(topic, []).append(partition)
    cache: dict[str, list[tuple[int, _Spans]]] = {}

    def spans_of(topic: str) -> list[tuple[int, _Spans]]:
        if topic not in cache:
            cache[topic] = [(p, _Spans.of(data.history(topic, p), end)) for p in sorted(by_topic.get(topic, ()))]
        return cache[topic]

    hit = {t for i in s.incidents for t in i.topics}  # ISR shrinks and expands are counted over these topics
    incidents = tuple(_incident(data, i, spans_of, hit, brokers, changes, end) for i in s.incidents)
    # the configuration as the recording last saw it (after recovery: advice counts the brokers that are back)
    minute = _last_recorded_minute(data, end)
    found: tuple[Finding, ...] = ()
    if minute is not None:
        snapshot, report = data.at(minute)
        found = tuple(config_findings(report, snapshot, bootstrap="BOOTSTRAP"))
    kafka = str(s.inputs.get("kafka_version") or "")
    mode = str(s.inputs.get("mode") or "")
    return Postmortem(
        data,
        end,
        incidents,
        tuple(brokers),
        tuple(changes),
        found,
        minute,
        ", ".join(x for x in (kafka, mode) if x),
        audit_source,
    )


def _last_recorded_minute(data: ReplayData, end_ms: int) -> int | None:
    last = data.minute_of(end_ms - 1)
    known = [m.minute for m in data.summary.timeline if not m.gap and m.minute <= last]
    return known[-1] if known else None
