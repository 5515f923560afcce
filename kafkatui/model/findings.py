"""Findings: what is wrong, why it matters, and the exact commands to fix it.

`findings(report, snapshot, bootstrap, shrink_counts)` turns a `HealthReport`, the durability audit
and (optionally) per-broker ISR-shrink history into `Finding`s. What each finding says — severity,
title, likely causes, remediation steps, command templates — is data in ``catalog.yaml``; this
module detects the problems, gathers the evidence from the snapshot and fills the templates.

Grouping: per-partition problems become one finding per (kind, topic) listing the partitions; broker
problems one finding per broker. Sorting: severity (critical, warning, info), then root causes (a
broker) before symptoms (a topic), then breadth (affected partitions, then topics), then id and name.
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
      "strimzi_patch": "spec:\\n  config:\\n    min.insync.replicas: 2\\n"   # or null
    }

`Finding.from_dict` reads it back.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from kafkatui.model import audit as A
from kafkatui.model.health import Health, HealthReport, TopicHealth
from kafkatui.model.snapshot import (
    DEFAULT_CONFIG,
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    STATIC_BROKER_CONFIG,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
)

SEVERITIES = ("critical", "warning", "info")
FLAP_MIN_SHRINKS = 3  # ISR shrinks of one broker in the caller's window that make it "flapping"
EXAMPLES = 4  # per-partition evidence lines before "... and N more"
INHERITED_GROUP = 5  # topics inheriting minISR 1 from one cluster-level source that become one finding
_CLUSTER_SOURCES = frozenset({DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG})
_SEV_RANK = {s: i for i, s in enumerate(SEVERITIES)}
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_K8S_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
_BROKER_SOURCES = frozenset({DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG})
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: the catalog in 4 ms instead of 45


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem, its evidence and its remedy."""

    id: str
    severity: str
    title: str
    topics: tuple[str, ...] = ()
    partitions: tuple[str, ...] = ()  # "topic-N"
    brokers: tuple[int, ...] = ()
    affected_partitions: int = 0
    evidence: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    strimzi_patch: str | None = None  # YAML fragment to merge into the KafkaTopic
    root_cause: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (shape in the module docstring)."""
        return {
            "id": self.id, "severity": self.severity, "title": self.title, "root_cause": self.root_cause,
            "resources": {"topics": list(self.topics), "partitions": list(self.partitions),
                          "brokers": list(self.brokers)},
            "affected_partitions": self.affected_partitions,
            "evidence": list(self.evidence), "causes": list(self.causes), "steps": list(self.steps),
            "commands": list(self.commands), "strimzi_patch": self.strimzi_patch,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        res = d["resources"]
        return cls(
            id=d["id"], severity=d["severity"], title=d["title"], topics=tuple(res["topics"]),
            partitions=tuple(res["partitions"]), brokers=tuple(int(b) for b in res["brokers"]),
            affected_partitions=int(d["affected_partitions"]), evidence=tuple(d["evidence"]),
            causes=tuple(d["causes"]), steps=tuple(d["steps"]), commands=tuple(d["commands"]),
            strimzi_patch=d["strimzi_patch"], root_cause=bool(d["root_cause"]),
        )

    def covers(self, topic: str, partition: int) -> bool:
        """True when the finding lists this partition, or is about the whole topic."""
        if self.partitions:
            return f"{topic}-{partition}" in self.partitions
        return topic in self.topics


# ---------------------------------------------------------------------------------------------- catalog

@dataclass(frozen=True, slots=True)
class _Item:
    text: str
    when: str | None = None
    unless: str | None = None

    def applies(self, ctx: dict[str, Any]) -> bool:
        if self.when is not None and not ctx[self.when]:
            return False
        return not (self.unless is not None and ctx[self.unless])


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One finding kind, as catalog.yaml describes it."""

    id: str
    severity: str
    title: str
    causes: tuple[_Item, ...]
    steps: tuple[_Item, ...]
    commands: tuple[_Item, ...]
    escalates: bool = False
    root_cause: bool = False
    strimzi_when: str | None = None
    strimzi_config: tuple[tuple[str, str], ...] = ()  # (topic config key, context key)


def _items(raw: Any, fid: str, key: str) -> tuple[_Item, ...]:
    if not isinstance(raw, list):
        raise ValueError(f"catalog {fid}: {key} must be a list")
    out = []
    for x in raw:
        if isinstance(x, str):
            out.append(_Item(x))
        elif isinstance(x, dict) and isinstance(x.get("text"), str):
            out.append(_Item(x["text"], x.get("when"), x.get("unless")))
        else:
            raise ValueError(f"catalog {fid}: bad {key} entry {x!r}")
    return tuple(out)


def parse_catalog(text: str) -> dict[str, CatalogEntry]:
    """Parse and check catalog YAML."""
    raw = yaml.load(text, Loader=_SAFE_LOADER)  # a safe loader (libyaml's when installed)
    if not isinstance(raw, dict):
        raise ValueError("catalog: top level must be a mapping of finding ids")
    out: dict[str, CatalogEntry] = {}
    for fid, e in raw.items():
        if not isinstance(e, dict) or e.get("severity") not in SEVERITIES or not isinstance(e.get("title"), str):
            raise ValueError(f"catalog {fid}: needs severity (one of {SEVERITIES}) and title")
        st = e.get("strimzi") or {}
        out[fid] = CatalogEntry(
            id=fid, severity=e["severity"], title=e["title"], causes=_items(e.get("causes", []), fid, "causes"),
            steps=_items(e.get("steps", []), fid, "steps"), commands=_items(e.get("commands", []), fid, "commands"),
            escalates=bool(e.get("escalates", False)), root_cause=bool(e.get("root_cause", False)),
            strimzi_when=st.get("when"), strimzi_config=tuple((st.get("config") or {}).items()),
        )
    return out


@lru_cache(maxsize=1)
def load_catalog() -> dict[str, CatalogEntry]:
    """The catalog shipped in the package."""
    return parse_catalog(resources.files("kafkatui.model").joinpath("catalog.yaml").read_text(encoding="utf-8"))


def fill(template: str, ctx: dict[str, Any]) -> str:
    """Replace {name} placeholders (JSON braces are left alone); a missing name is a KeyError."""
    def sub(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in ctx:
            raise KeyError(f"no value for {{{key}}} in {template!r}")
        return str(ctx[key])
    return _PLACEHOLDER.sub(sub, template)


# ---------------------------------------------------------------------------------------------- helpers

def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(str(i) for i in sorted(ids)) or "none"


def _tally(c: Counter[int], unit: str = "partition") -> str:
    """"3 (5 partitions), 2 (1 partition)", most first."""
    return ", ".join(f"{b} ({n} {unit}{'s' if n != 1 else ''})" for b, n in
                     sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"


def kafkatopic_name(topic: str) -> str:
    """The KafkaTopic resource name Strimzi uses for a topic (the topic itself when it is a valid name)."""
    if len(topic) <= 253 and _K8S_NAME.fullmatch(topic):
        return topic
    base = re.sub(r"[^a-z0-9.-]+", "-", topic.lower()).strip("-.") or "topic"
    return f"{base}---{hashlib.sha1(topic.encode()).hexdigest()}"


def _file_cmd(obj: Any, path: str) -> str:
    return f"printf '%s\\n' '{json.dumps(obj, separators=(',', ':'))}' > {path}"


def _election(topic: str, partitions: Sequence[int], kind: str) -> dict[str, Any]:
    """Context for kafka-leader-election.sh: one partition by flags, several by a JSON file."""
    if len(partitions) == 1:
        return {"election_target": f"--topic {topic} --partition {partitions[0]}", "election_file_cmd": "",
                "multi_partition": False}
    path = f"elect-{kind}-{topic}.json"
    obj = {"partitions": [{"topic": topic, "partition": p} for p in sorted(partitions)]}
    return {"election_target": f"--path-to-json-file {path}", "election_file_cmd": _file_cmd(obj, path),
            "multi_partition": True}


class _Planner:
    """Reassignment proposals: least-loaded live brokers, spreading racks."""

    def __init__(self, report: HealthReport) -> None:
        self.live = sorted(report.live)
        self.rack = {b.id: b.rack for b in report.snapshot.brokers}
        self.load = {b: report.brokers[b].hosted for b in self.live}

    def pick(self, exclude: Iterable[int], avoid_racks: set[str | None], strict_rack: bool = False) -> int | None:
        ex = set(exclude)
        cands = [b for b in self.live if b not in ex]
        if strict_rack:
            cands = [b for b in cands if self.rack.get(b) is not None and self.rack.get(b) not in avoid_racks]
        if not cands:
            return None
        best = min(cands, key=lambda b: (self.rack.get(b) in avoid_racks and self.rack.get(b) is not None,
                                         self.load[b], b))
        self.load[best] += 1
        return best

    def raise_rf(self, parts: Iterable[PartitionInfo], target: int) -> list[tuple[str, int, list[int]]] | None:
        moves = []
        for p in parts:
            new = list(p.replicas)
            while len(new) < target:
                b = self.pick(new, {self.rack.get(r) for r in new})
                if b is None:
                    return None
                new.append(b)
            if len(new) != len(p.replicas):
                moves.append((p.topic, p.partition, new))
        return moves

    def replace(self, parts: Iterable[PartitionInfo], broker: int) -> list[tuple[str, int, list[int]]] | None:
        moves = []
        for p in parts:
            keep = [r for r in p.replicas if r != broker]
            b = self.pick(p.replicas, {self.rack.get(r) for r in keep})
            if b is None:
                return None
            moves.append((p.topic, p.partition, [b if r == broker else r for r in p.replicas]))
        return moves

    def spread_racks(self, parts: Iterable[PartitionInfo]) -> list[tuple[str, int, list[int]]] | None:
        moves = []
        for p in parts:
            racks = {self.rack.get(r) for r in p.replicas}
            b = self.pick(p.replicas, racks, strict_rack=True)
            if b is None:
                return None
            moves.append((p.topic, p.partition, [*p.replicas[:-1], b]))
        return moves


def _reassign_ctx(moves: list[tuple[str, int, list[int]]] | None, path: str) -> dict[str, Any]:
    if not moves:
        return {"reassign_file": path, "reassign_file_cmd": "", "planned": False}
    obj = {"version": 1, "partitions": [{"topic": t, "partition": p, "replicas": r} for t, p, r in moves]}
    return {"reassign_file": path, "reassign_file_cmd": _file_cmd(obj, path), "planned": True}


def _yaml_scalar(v: Any) -> str:
    return json.dumps(v) if isinstance(v, bool | int | float) else json.dumps(str(v))


# ---------------------------------------------------------------------------------------------- builder

class _Builder:
    def __init__(self, report: HealthReport, snapshot: ClusterSnapshot, bootstrap: str, namespace: str) -> None:
        self.r = report
        self.s = snapshot
        self.cat = load_catalog()
        self.live = report.live
        self.base: dict[str, Any] = {"bootstrap": bootstrap, "namespace": namespace}
        self.stand_ins: dict[int, A.AuditIssue] = {}  # id() of a stand-in finding -> its issue

    # -- rendering
    def make(self, fid: str, ctx: dict[str, Any], *, evidence: Iterable[str], topics: Iterable[str] = (),
             partitions: Iterable[str] = (), brokers: Iterable[int] = (), affected: int = 0,
             critical: bool = False, strimzi_ok: bool = True) -> Finding:
        e = self.cat[fid]
        c = {**self.base, **ctx}
        patch = None
        config = {k: c[v] for k, v in e.strimzi_config}
        if config and strimzi_ok and (e.strimzi_when is None or c[e.strimzi_when]):
            c["strimzi"] = True
            c["strimzi_json"] = json.dumps({"spec": {"config": config}}, separators=(",", ":"))
            patch = "spec:\n  config:\n" + "".join(f"    {k}: {_yaml_scalar(v)}\n" for k, v in config.items())
        else:
            c["strimzi"] = False
        severity = "critical" if critical and e.escalates else e.severity
        return Finding(
            id=fid, severity=severity, title=fill(e.title, c), topics=tuple(topics), partitions=tuple(partitions),
            brokers=tuple(brokers), affected_partitions=affected, evidence=tuple(evidence),
            causes=tuple(fill(i.text, c) for i in e.causes if i.applies(c)),
            steps=tuple(fill(i.text, c) for i in e.steps if i.applies(c)),
            commands=tuple(fill(i.text, c) for i in e.commands if i.applies(c)),
            strimzi_patch=patch, root_cause=e.root_cause,
        )

    def topic_ctx(self, th: TopicHealth) -> dict[str, Any]:
        return {"topic": th.name, "kafkatopic": kafkatopic_name(th.name), "min_isr": th.min_isr,
                "min_isr_source": th.min_isr_source, "rf": th.min_rf, "unclean_source": th.unclean_source,
                "unclean": th.unclean, "live_brokers": len(self.live)}

    def broker_cfg(self, key: str, broker: int | None = None) -> ConfigValue:
        if broker is not None:
            cv = self.s.broker_configs.get(broker, {}).get(key)
            if cv is not None:
                return cv
        return self.s.broker_config(key)

    def lag_of(self, p: PartitionInfo, r: int) -> int | None:
        logs = self.s.log_dirs
        if not logs or p.leader < 0:
            return None
        lead = logs.get((p.topic, p.partition, p.leader))
        mine = logs.get((p.topic, p.partition, r))
        return max(0, lead.size - mine.size) if lead is not None and mine is not None else None

    def describe(self, p: PartitionInfo) -> str:
        oos = [r for r in p.replicas if r not in p.isr]
        head = f"{p.topic}-{p.partition}: " + (f"leader {p.leader}" if p.leader >= 0 else "no leader")
        text = f"{head}, replicas {list(p.replicas)}, {'ISR' if p.leader >= 0 else 'last ISR'} {list(p.isr)}"
        if oos:
            bits = []
            for r in oos:
                lag = self.lag_of(p, r)
                bits.append(f"{r}" + (f" ({human_bytes(lag)} behind)" if lag is not None else ""))
            text += "; out of sync: " + ", ".join(bits)
        return text

    def examples(self, parts: Sequence[PartitionInfo]) -> list[str]:
        lines = [self.describe(p) for p in parts[:EXAMPLES]]
        if len(parts) > EXAMPLES:
            lines.append(f"... and {len(parts) - EXAMPLES} more")
        return lines

    def lag_line(self, parts: Iterable[PartitionInfo]) -> list[str]:
        worst: tuple[int, str, int] | None = None
        for p in parts:
            for r in p.replicas:
                if r not in p.isr:
                    lag = self.lag_of(p, r)
                    if lag is not None and (worst is None or lag > worst[0]):
                        worst = (lag, f"{p.topic}-{p.partition}", r)
        if worst is None:
            return []
        return [f"largest replica lag: {human_bytes(worst[0])} ({worst[1]}, broker {worst[2]})"]

    # -- per-topic class findings
    def class_findings(self) -> list[Finding]:
        out: list[Finding] = []
        for name in sorted(self.r.topics):
            th = self.r.topics[name]
            if th.worst == Health.HEALTHY:
                continue
            groups: dict[int, list[PartitionInfo]] = defaultdict(list)
            cls = self.r.class_codes(name)
            parts = self.s.topics[name].partitions
            for i, c in enumerate(cls):
                if c < Health.HEALTHY:
                    groups[c].append(parts[i])
            if groups[Health.OFFLINE]:
                out.append(self.offline(th, groups[Health.OFFLINE]))
            under = [p for p in groups[Health.UNDER_MIN_ISR] if len(p.replicas) >= th.min_isr]
            if under:
                out.append(self.isr_finding("under-min-isr", th, under))
            at_min = [p for p in groups[Health.AT_MIN_ISR] if len(p.isr) < len(p.replicas)]
            if at_min:
                out.append(self.isr_finding("at-min-isr", th, at_min))
            if groups[Health.UNDER_REPLICATED]:
                out.append(self.isr_finding("under-replicated", th, groups[Health.UNDER_REPLICATED]))
            if groups[Health.NON_PREFERRED_LEADER]:
                out.append(self.non_preferred(th, groups[Health.NON_PREFERRED_LEADER]))
        return out

    def offline(self, th: TopicHealth, parts: list[PartitionInfo]) -> Finding:
        live = self.live
        with_live = [p for p in parts if any(r in live for r in p.replicas)]
        none_alive = [p for p in parts if p not in with_live]
        restore = {b for p in parts for b in p.isr if b not in live} or \
                  {b for p in parts for b in p.replicas if b not in live}
        has_live = not th.unclean and bool(with_live)
        el = _election(th.name, [p.partition for p in with_live] or [parts[0].partition], "unclean")
        ctx = {**self.topic_ctx(th), "count": len(parts), "restore_brokers": _ids(restore),
               "replica_brokers": _ids({b for p in none_alive for b in p.replicas}),
               "none_alive": ", ".join(f"{p.topic}-{p.partition}" for p in none_alive[:EXAMPLES])
               + (" ..." if len(none_alive) > EXAMPLES else ""),
               "has_live_replica": has_live, "no_live_replica": bool(none_alive),
               "unclean_multi": has_live and el["multi_partition"], "unclean_target": el["election_target"],
               "unclean_partition": (with_live or parts)[0].partition,
               "election_file_cmd": el["election_file_cmd"]}
        ev = [f"{len(parts)} of {th.partitions} partitions have no leader (minISR {th.min_isr}, RF {th.rf})",
              *self.examples(parts),
              f"unclean.leader.election.enable={str(th.unclean).lower()} ({th.unclean_source})"]
        absent = sorted({b for p in parts for b in p.replicas if b not in live})
        if absent:
            ev.append(f"replica brokers absent from metadata: {_ids(absent)}")
        if with_live:
            ev.append(f"{len(with_live)} partition(s) still have a live out-of-sync replica")
        elr = [p for p in parts if p.elr]
        if elr:
            ev.append("eligible leader replicas (KIP-966): "
                      + ", ".join(f"{p.topic}-{p.partition} {list(p.elr or ())}" for p in elr[:EXAMPLES]))
        return self.make("offline", ctx, evidence=ev, topics=(th.name,),
                         partitions=[f"{p.topic}-{p.partition}" for p in parts],
                         brokers=sorted(restore), affected=len(parts))

    def isr_finding(self, fid: str, th: TopicHealth, parts: list[PartitionInfo]) -> Finding:
        missing: Counter[int] = Counter(r for p in parts for r in p.replicas if r not in p.isr)
        isr_brokers = sorted({b for p in parts for b in p.isr})
        label = {"under-min-isr": "ISR below minISR", "at-min-isr": "ISR exactly at minISR",
                 "under-replicated": "ISR smaller than the replica list"}[fid]
        ctx = {**self.topic_ctx(th), "count": len(parts), "missing_brokers": _ids(missing),
               "isr_brokers": _ids(isr_brokers)}
        ev = [f"{len(parts)} of {th.partitions} partitions: {label} (minISR {th.min_isr} from "
              f"{th.min_isr_source}, RF {th.rf})",
              *self.examples(parts),
              f"missing from these ISRs: broker {_tally(missing)}"]
        down = sorted(b for b in missing if b not in self.live)
        if down:
            ev.append(f"absent from metadata: broker {_ids(down)}")
        ev += self.lag_line(parts)
        return self.make(fid, ctx, evidence=ev, topics=(th.name,),
                         partitions=[f"{p.topic}-{p.partition}" for p in parts], brokers=sorted(missing),
                         affected=len(parts))

    def non_preferred(self, th: TopicHealth, parts: list[PartitionInfo]) -> Finding:
        shift: Counter[tuple[int, int]] = Counter((p.leader, p.replicas[0]) for p in parts)
        lines = [f"broker {lead} leads {n} partition(s) preferred by broker {pref}"
                 for (lead, pref), n in sorted(shift.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]
        ctx = {**self.topic_ctx(th), "count": len(parts), "leader_shift": "; ".join(lines),
               **_election(th.name, [p.partition for p in parts], "preferred")}
        ev = [f"{len(parts)} of {th.partitions} partitions led by a broker other than their first replica",
              *lines,
              *[f"{p.topic}-{p.partition}: leader {p.leader}, preferred {p.replicas[0]}, ISR {list(p.isr)}"
                for p in parts[:EXAMPLES]]]
        led = Counter(p.leader for p in parts)
        return self.make("non-preferred-leader", ctx, evidence=ev, topics=(th.name,),
                         partitions=[f"{p.topic}-{p.partition}" for p in parts],
                         brokers=sorted(set(led) | {p.replicas[0] for p in parts}), affected=len(parts))

    # -- broker findings
    def broker_findings(self, shrink_counts: dict[int, int] | None) -> list[Finding]:
        r = self.r
        flagged = {b for b, bh in r.brokers.items() if bh.up and (bh.missing_from_all_isrs or bh.missing_from_most_isrs)}
        absent = set(r.counts.brokers_absent)
        oos: dict[int, list[tuple[PartitionInfo, int]]] = defaultdict(list)
        absent_hits: dict[int, list[tuple[PartitionInfo, int]]] = defaultdict(list)
        for name, th in r.topics.items():
            if th.worst == Health.HEALTHY:
                continue
            cls = r.class_codes(name)
            parts = self.s.topics[name].partitions
            for i, c in enumerate(cls):
                if c > Health.UNDER_REPLICATED:
                    continue
                p = parts[i]
                for b in p.replicas:
                    if b in absent:
                        absent_hits[b].append((p, c))
                    elif c != Health.OFFLINE and b not in p.isr:
                        oos[b].append((p, c))
        out: list[Finding] = []
        for b in sorted(flagged):
            out.append(self.missing_broker(b, oos[b]))
        for b in sorted(absent):
            out.append(self.absent_broker(b, absent_hits[b]))
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
        return [f"broker {b} is listed in metadata ({where}){', controller' if bh.controller else ''}",
                f"leads {bh.led} partition(s); preferred leader of {bh.preferred}"]

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
        ev.append("out of sync in: " + ", ".join(f"{t} ({n})" for t, n in
                                                  sorted(per_topic.items(), key=lambda kv: (-kv[1], kv[0]))[:8]))
        ev.append("every other live broker is in all its ISRs" if not others else
                  f"other live brokers out of ISRs: {_tally(Counter(others), 'replica')}")
        lags = [lag for p in parts if (lag := self.lag_of(p, b)) is not None]
        if lags:
            ev.append(f"{human_bytes(sum(lags))} behind in total, worst partition {human_bytes(max(lags))}")
        classes = Counter(c for _, c in hits)
        ev.append("its partitions now: " + ", ".join(f"{n} {Health(c).label}" for c, n in sorted(classes.items())))
        leaders: Counter[int] = Counter(p.leader for p in parts)
        ctx = {"broker": b, "count": bh.out_of_isr_online, "hosted": bh.hosted_online,
               "topic_count": len(per_topic),
               "num_replica_fetchers": self.broker_cfg("num.replica.fetchers", b).value or "1",
               "lagging_leaders": _tally(leaders), "others_clean": not others}
        critical = any(c <= Health.UNDER_MIN_ISR for c in classes)
        return self.make(fid, ctx, evidence=ev, topics=sorted(per_topic),
                         partitions=[f"{p.topic}-{p.partition}" for p in parts], brokers=(b,),
                         affected=len(parts), critical=critical)

    def absent_broker(self, b: int, hits: list[tuple[PartitionInfo, int]]) -> Finding:
        bh = self.r.brokers[b]
        all_parts = [p for t in self.s.topics.values() for p in t.partitions if b in p.replicas]
        topics = sorted({p.topic for p in all_parts})
        offline = [p for p, c in hits if c == Health.OFFLINE]
        under = [p for p, c in hits if c == Health.UNDER_MIN_ISR]
        moves = _Planner(self.r).replace(all_parts, b)
        ctx = {"broker": b, "count": bh.hosted, "topic_count": len(topics), "offline_count": len(offline),
               "under_count": len(under), **_reassign_ctx(moves, f"reassign-broker-{b}.json")}
        ctx["can_reassign"] = ctx["planned"]
        ev = [f"broker {b} is named in {bh.hosted} replica list(s) of {len(topics)} topic(s) but not listed "
              f"in metadata ({self.r.counts.brokers_up} of {self.r.counts.brokers_total} brokers up)",
              f"partitions with a replica on it: {len(offline)} offline, {len(under)} under minISR, "
              f"{len(hits) - len(offline) - len(under)} otherwise degraded"]
        if offline:
            ev.append("offline: " + ", ".join(f"{p.topic}-{p.partition}" for p in offline[:EXAMPLES])
                      + (" ..." if len(offline) > EXAMPLES else ""))
        if b == self.s.controller_id:
            ev.append("metadata still names it as controller")
        return self.make("broker-absent", ctx, evidence=ev, topics=topics,
                         partitions=[f"{p.topic}-{p.partition}" for p, _ in hits], brokers=(b,),
                         affected=bh.hosted, critical=bool(offline or under))

    def flapping(self, b: int, n: int) -> Finding:
        bh = self.r.brokers.get(b)
        lag_cfg = self.broker_cfg("replica.lag.time.max.ms", b)
        ctx = {"broker": b, "shrinks": n, "replica_lag_time_max_ms": lag_cfg.value,
               "num_replica_fetchers": self.broker_cfg("num.replica.fetchers", b).value or "1"}
        ev = [f"broker {b} was removed from an ISR {n} times in the observed window"]
        if bh is not None:
            ev.append(f"now out of {bh.out_of_isr_online} of the {bh.hosted_online} ISRs it belongs to"
                      + ("" if bh.up else "; absent from metadata"))
        ev.append(f"replica.lag.time.max.ms={lag_cfg.value} ({lag_cfg.source})")
        return self.make("isr-flapping", ctx, evidence=ev, brokers=(b,),
                         affected=bh.hosted if bh is not None else 0)

    def under_load(self, spread: Counter[int], hits: dict[int, list[tuple[PartitionInfo, int]]]) -> Finding:
        fetchers = self.broker_cfg("num.replica.fetchers")
        fetch_max = self.broker_cfg("replica.fetch.max.bytes")
        try:
            current = int(fetchers.value or 1)
        except ValueError:
            current = 1
        parts = {(p.topic, p.partition): p for v in hits.values() for p, _ in v}
        ctx = {"broker_count": len(spread), "spread": _tally(spread, "replica"),
               "num_replica_fetchers": fetchers.value or "1", "replica_fetch_max_bytes": fetch_max.value or "1048576",
               "suggested_fetchers": max(2, current * 2)}
        ev = [f"out-of-sync replicas on {len(spread)} live brokers, none missing from most of its ISRs: "
              f"{_tally(spread, 'replica')}",
              f"num.replica.fetchers={fetchers.value} ({fetchers.source}), "
              f"replica.fetch.max.bytes={fetch_max.value} ({fetch_max.source})",
              *self.lag_line(parts.values())]
        return self.make("shrinks-under-load", ctx, evidence=ev, topics=sorted({t for t, _ in parts}),
                         partitions=[f"{t}-{p}" for t, p in sorted(parts)], brokers=sorted(spread),
                         affected=len(parts))

    def partial(self) -> list[Finding]:
        if not (self.s.partial or self.s.problems):
            return []
        problems = self.s.problems or ("the source marked the snapshot partial",)
        return [self.make("partial-snapshot", {"count": len(problems)}, evidence=problems)]

    # -- audit findings
    def audit_findings(self, issues: list[A.AuditIssue]) -> list[Finding]:
        # a finding `group_inherited` folds into a cluster-wide one is not built (2,000 topics on Kafka's
        # default minISR: 2,000 findings made to be dropped): a stand-in carries the id and topic it reads
        stand_ins = {(i.rule, i.topic): Finding(i.rule, "info", "", topics=(i.topic,)) for i in issues}
        folded: set[tuple[str, str]] = set()
        for fid, source_of in self._FOLDED:
            _, groups = self._inherited(list(stand_ins.values()), fid, source_of)
            folded.update((fid, th.name) for ths in groups.values() for th in ths)
        out = []
        for issue in issues:
            if (issue.rule, issue.topic) in folded:
                stand_in = stand_ins[(issue.rule, issue.topic)]
                self.stand_ins[id(stand_in)] = issue
                out.append(stand_in)
            else:
                out.append(self.audit_finding(issue))
        return out

    def audit_finding(self, issue: A.AuditIssue) -> Finding:
        return getattr(self, "audit_" + issue.rule.replace("-", "_"))(issue, self.r.topics[issue.topic])  # type: ignore[no-any-return]

    def built(self, found: list[Finding]) -> list[Finding]:
        """`found` with any stand-in left unfolded built for real (none while both use `_FOLDED`)."""
        return [self.audit_finding(self.stand_ins[id(f)]) if id(f) in self.stand_ins else f for f in found]

    def _raise_plan(self, th: TopicHealth, target: int) -> dict[str, Any]:
        moves = _Planner(self.r).raise_rf(self.s.topics[th.name].partitions, target) if len(self.live) >= target else None
        return {"target_rf": target, **_reassign_ctx(moves, f"reassign-{th.name}.json")}

    def _cfg_evidence(self, th: TopicHealth) -> list[str]:
        rf = f"RF {th.rf}" if th.rf == th.min_rf else f"RF {th.min_rf}..{th.rf}"
        return [f"min.insync.replicas={th.min_isr} ({th.min_isr_source}), {rf}, {th.partitions} partition(s)",
                f"tolerates {th.write_tolerance} broker failure(s) with acks=all writes going on, "
                f"{th.loss_tolerance} without losing acknowledged writes"]

    def _topic_finding(self, fid: str, th: TopicHealth, ctx: dict[str, Any], ev: list[str],
                       issue: A.AuditIssue | None = None, brokers: Iterable[int] = ()) -> Finding:
        parts = [f"{th.name}-{p}" for p in issue.partitions] if issue is not None else []
        return self.make(fid, ctx, evidence=ev, topics=(th.name,), partitions=parts, brokers=brokers,
                         affected=len(parts) or th.partitions, strimzi_ok=not th.internal)

    def audit_min_isr_above_rf(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        ctx = {**self.topic_ctx(th), "suggested_min_isr": max(1, th.min_rf - 1)}
        ev = [*self._cfg_evidence(th), f"{th.count(Health.UNDER_MIN_ISR)} partition(s) under minISR now"]
        return self._topic_finding(A.MIN_ISR_ABOVE_RF, th, ctx, ev)

    def audit_min_isr_equals_rf(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        lower = th.min_rf >= 3
        plan = self._raise_plan(th, 3) if not lower else {"target_rf": th.min_rf}
        ctx = {**self.topic_ctx(th), "suggested_min_isr": max(1, th.min_rf - 1), "lower_min_isr": lower,
               **plan, "raise_rf": not lower and plan.get("planned", False)}
        ev = [*self._cfg_evidence(th),
              f"{th.count(Health.AT_MIN_ISR)} partition(s) at minISR and {th.count(Health.UNDER_MIN_ISR)} under it now"]
        return self._topic_finding(A.MIN_ISR_EQUALS_RF, th, ctx, ev)

    def audit_rf_one(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        target = min(3, len(self.live))
        plan = self._raise_plan(th, target)
        ctx = {**self.topic_ctx(th), **plan, "can_raise_rf": target >= 2 and plan["planned"],
               "suggested_min_isr": 2 if target >= 3 else 1, "default_rf": self._default_rf()}
        ev = [*self._cfg_evidence(th), f"{th.count(Health.OFFLINE)} partition(s) offline now",
              f"{th.count(Health.AT_MIN_ISR)} partition(s) sit at minISR by design (Kafka's AtMinIsrPartitionCount "
              "counts them)"]
        return self._topic_finding(A.RF_ONE, th, ctx, ev)

    def audit_min_isr_one(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        set_now = th.min_rf >= 3
        plan = self._raise_plan(th, 3) if not set_now else {"target_rf": th.min_rf}
        ctx = {**self.topic_ctx(th), "suggested_min_isr": 2, "set_min_isr": set_now, **plan,
               "raise_rf": not set_now and plan.get("planned", False)}
        return self._topic_finding(A.MIN_ISR_ONE, th, ctx, self._cfg_evidence(th))

    def audit_unclean_enabled(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        ctx = {**self.topic_ctx(th), "broker_level": th.unclean_source in _BROKER_SOURCES, "unclean_off": False}
        ev = [f"unclean.leader.election.enable=true ({th.unclean_source})", *self._cfg_evidence(th)]
        return self._topic_finding(A.UNCLEAN_ENABLED, th, ctx, ev)

    def audit_single_rack(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        wanted = set(issue.partitions)
        parts = [p for p in self.s.topics[th.name].partitions if p.partition in wanted]
        rack = {b.id: b.rack for b in self.s.brokers}
        racks = sorted({str(rack.get(p.replicas[0])) for p in parts})
        moves = _Planner(self.r).spread_racks(parts)
        topics_file = f"topics-{th.name}.json"
        ctx = {**self.topic_ctx(th), "count": len(parts), "racks": ", ".join(racks),
               **_reassign_ctx(moves, f"reassign-{th.name}-racks.json"),
               "topics_file": topics_file,
               "topics_file_cmd": _file_cmd({"version": 1, "topics": [{"topic": th.name}]}, topics_file),
               "broker_list": ",".join(str(b) for b in sorted(self.live))}
        all_racks = sorted({r for r in rack.values() if r})
        ev = [f"{len(parts)} of {th.partitions} partitions keep every replica on one rack; cluster racks: "
              f"{', '.join(all_racks)}",
              *[f"{p.topic}-{p.partition}: replicas {list(p.replicas)} all on rack {rack.get(p.replicas[0])}"
                for p in parts[:EXAMPLES]]]
        return self._topic_finding(A.SINGLE_RACK, th, ctx, ev, issue)

    def _inherited(self, found: list[Finding], fid: str, source_of: Callable[[TopicHealth], str]
                   ) -> tuple[list[Finding], dict[str, list[TopicHealth]]]:
        """Per-topic `fid` findings of INHERITED_GROUP or more topics that take the setting from the same
        cluster-level source: (the findings without them, their topics per source, sorted). One
        cluster-wide change fixes them and the topics created later, where a finding per topic would
        bury the rest of a big cluster's list."""
        by_source: dict[str, list[TopicHealth]] = defaultdict(list)
        for f in found:
            th = self.r.topics.get(f.topics[0]) if f.id == fid and f.topics else None
            if th is not None and source_of(th) in _CLUSTER_SOURCES:
                by_source[source_of(th)].append(th)
        grouped = {src: sorted(ths, key=lambda t: t.name) for src, ths in sorted(by_source.items())
                   if len(ths) >= INHERITED_GROUP}
        gone = {th.name for ths in grouped.values() for th in ths}
        return [f for f in found if not (f.id == fid and f.topics and f.topics[0] in gone)], grouped

    _FOLDED: tuple[tuple[str, Callable[[TopicHealth], str]], ...] = (
        (A.MIN_ISR_ONE, lambda t: t.min_isr_source), (A.UNCLEAN_ENABLED, lambda t: t.unclean_source))
    """The per-topic findings `group_inherited` folds, and the source each is grouped by."""

    def group_inherited(self, found: list[Finding]) -> list[Finding]:
        """`min-isr-one` and `unclean-enabled` of many topics inheriting the value: `...-default` findings."""
        out, by_source = self._inherited(found, *self._FOLDED[0])
        for source, ths in by_source.items():
            rf2 = [t.name for t in ths if t.min_rf < 3]
            rf3 = [t.name for t in ths if t.min_rf >= 3]
            parts = sum(t.partitions for t in ths)
            ctx = {"count": len(ths), "partitions": parts, "min_isr_source": source, "has_rf2": bool(rf2),
                   "rf2_count": len(rf2), "rf2_topics": " ".join(shlex.quote(t) for t in rf2)}
            ev = [f"min.insync.replicas=1 ({source}) on {len(ths)} topics, {parts} partitions, none set per topic",
                  *_named("RF 3 or more", rf3), *_named("RF 2", rf2)]
            out.append(self.make("min-isr-one-default", ctx, evidence=ev, topics=[t.name for t in ths],
                                 affected=parts, strimzi_ok=False))
        out, by_source = self._inherited(out, *self._FOLDED[1])
        for source, ths in by_source.items():
            parts = sum(t.partitions for t in ths)
            ctx = {"count": len(ths), "partitions": parts, "unclean_source": source,
                   "static": source == STATIC_BROKER_CONFIG}
            ev = [f"unclean.leader.election.enable=true ({source}) on {len(ths)} topics, {parts} partitions, "
                  "none set per topic", *_named("topics", [t.name for t in ths])]
            out.append(self.make("unclean-enabled-default", ctx, evidence=ev, topics=[t.name for t in ths],
                                 affected=parts, strimzi_ok=False))
        return out

    def _internal_ctx(self, th: TopicHealth) -> dict[str, Any]:
        keys: tuple[str, ...]
        if th.name == "__transaction_state":
            keys = ("transaction.state.log.replication.factor", "transaction.state.log.min.isr")
            short = "transactions cannot complete"
            impact = ("Transactional (exactly-once) producers record their state in __transaction_state: "
                      "when it is unavailable, transactions cannot begin, commit or abort.")
        else:
            keys = ("offsets.topic.replication.factor",)
            short = "consumer groups cannot commit offsets"
            impact = ("Consumer groups commit offsets to __consumer_offsets: when a partition is unavailable "
                      "its groups cannot commit or rebalance; losing it rewinds or skips their progress.")
        vals = [(k, self.s.broker_config(k)) for k in keys]
        targets = {"offsets.topic.replication.factor": 3, "transaction.state.log.replication.factor": 3,
                   "transaction.state.log.min.isr": 2}
        return {"impact": impact, "impact_short": short,
                "creation_configs": ", ".join(f"{k}={cv.value} ({cv.source})" for k, cv in vals),
                "creation_keys": " and ".join(f"{k}={targets[k]}" for k in keys)}

    def audit_internal_weak_config(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        want = th.min_rf < 3 and len(self.live) >= 3
        plan = self._raise_plan(th, 3) if want else {"target_rf": 3}
        raise_rf = want and bool(plan.get("planned", False))
        ctx = {**self.topic_ctx(th), **self._internal_ctx(th), **plan, "reasons": "; ".join(issue.reasons),
               "raise_rf": raise_rf, "fix_min_isr": th.min_isr < 2 and (th.min_rf >= 3 or raise_rf)}
        ev = [*self._cfg_evidence(th), f"broker settings: {ctx['creation_configs']}",
              f"{len(self.live)} live broker(s)"]
        return self._topic_finding(A.INTERNAL_WEAK, th, ctx, ev)

    def _internal_state(self, fid: str, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        wanted = set(issue.partitions)
        parts = [p for p in self.s.topics[th.name].partitions if p.partition in wanted]
        missing: Counter[int] = Counter(r for p in parts for r in p.replicas if r not in p.isr)
        ctx = {**self.topic_ctx(th), **self._internal_ctx(th), "count": len(parts), "missing_brokers": _ids(missing)}
        state = "offline or under minISR" if fid == A.INTERNAL_UNAVAILABLE else "with out-of-sync replicas"
        ev = [f"{len(parts)} of {th.partitions} partitions {state} (minISR {th.min_isr}, RF {th.rf})",
              *self.examples(parts), f"missing from these ISRs: broker {_tally(missing)}"]
        return self._topic_finding(fid, th, ctx, ev, issue, brokers=sorted(missing))

    def audit_internal_unavailable(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        return self._internal_state(A.INTERNAL_UNAVAILABLE, issue, th)

    def audit_internal_under_replicated(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        return self._internal_state(A.INTERNAL_UNDER_REPLICATED, issue, th)

    def _default_rf(self) -> str:
        cv = self.s.broker_config("default.replication.factor")
        return f"{cv.value} from {cv.source}"

    def audit_dev_settings_on_prod(self, issue: A.AuditIssue, th: TopicHealth) -> Finding:
        prod = sorted(n for n, t in self.r.topics.items()
                      if n != th.name and not t.internal and A.is_production_triple(t))
        raise_rf = th.min_rf == 1 and len(self.live) >= 3
        plan = self._raise_plan(th, 3) if raise_rf else {"target_rf": 3}
        ctx = {**self.topic_ctx(th), **plan, "reasons": " and ".join(issue.reasons),
               "raise_rf": raise_rf and plan.get("planned", False), "unclean_off": False,
               "prod_example": prod[0] if prod else "", "prod_count": len(prod), "default_rf": self._default_rf()}
        ev = [*self._cfg_evidence(th),
              f"unclean.leader.election.enable={str(th.unclean).lower()} ({th.unclean_source})",
              f"{len(prod)} production-configured topic(s) on this cluster: {', '.join(prod[:5])}"
              + (" ..." if len(prod) > 5 else "")]
        return self._topic_finding(A.DEV_ON_PROD, th, ctx, ev)


def finding_sort_key(f: Finding) -> tuple[int, int, int, int, str, tuple[str, ...], tuple[int, ...]]:
    """Severity, then root causes before symptoms, then breadth, then id and resource names."""
    return (_SEV_RANK[f.severity], 0 if f.root_cause else 1, -f.affected_partitions, -len(f.topics),
            f.id, f.topics[:1], f.brokers[:1])


def _named(label: str, names: list[str]) -> list[str]:
    """One evidence line naming the first EXAMPLES of `names` (nothing when there are none)."""
    if not names:
        return []
    more = f" and {len(names) - EXAMPLES} more" if len(names) > EXAMPLES else ""
    return [f"{label}: {len(names)} topic(s): {', '.join(names[:EXAMPLES])}{more}"]


def findings(report: HealthReport, snapshot: ClusterSnapshot | None = None, bootstrap: str = "B",
             shrink_counts: dict[int, int] | None = None, *, namespace: str = "kafka") -> list[Finding]:
    """Every finding for the report, worst first.

    `shrink_counts` maps a broker id to how many times it was removed from an ISR in the window the
    caller observed (history); brokers with at least FLAP_MIN_SHRINKS get an `isr-flapping` finding.
    `namespace` fills the Strimzi `kubectl patch` commands.
    """
    snap = snapshot if snapshot is not None else report.snapshot
    b = _Builder(report, snap, bootstrap, namespace)
    out = b.class_findings() + b.broker_findings(shrink_counts)
    out += b.audit_findings(A.audit(snap, report)) + b.partial()
    return sorted(b.built(b.group_inherited(out)), key=finding_sort_key)


def findings_for_partition(found: Iterable[Finding], topic: str, partition: int) -> list[Finding]:
    """The findings that concern one partition: those listing it, and whole-topic findings for its topic."""
    return [f for f in found if f.covers(topic, partition)]
