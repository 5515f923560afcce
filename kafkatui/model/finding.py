"""Findings' data: the `Finding` type, the catalog (catalog.yaml) and the context the rule modules share.

`Context` holds one findings run (report, snapshot, catalog, planner) and renders a catalog entry into
a `Finding` (`make`); `state_findings` and `config_findings` add the rules. The JSON shape of a finding
is described in `kafkatui.model.findings`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from kafkatui.model.health import HealthReport, TopicHealth
from kafkatui.model.paste import CHANGE, command_kinds, paste_block
from kafkatui.model.reassign_plans import Planner, file_cmd
from kafkatui.model.snapshot import (
    ASSUMED_DEFAULT,
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
CLUSTER_SOURCES = frozenset({DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG})
_SEV_RANK = {s: i for i, s in enumerate(SEVERITIES)}
FIRST_IDS = frozenset({"offline"})  # findings ranked first within their severity: no leader, no reads or writes
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_K8S_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
BROKER_SOURCES = frozenset({DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG})
_CATALOG_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML has it: the catalog in ~5 ms instead of ~50 (`check` start-up)."""


@dataclass(frozen=True, slots=True)
class FindingText:
    """A finding's text: evidence, causes, steps, commands and their when, the Strimzi patch."""

    evidence: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    strimzi_patch: str | None = None  # YAML fragment to merge into the KafkaTopic
    change_when: str | None = None  # when to run the commands that change the cluster (kafkatui.model.paste)


@dataclass(frozen=True, slots=True, eq=False)
class Finding:
    """One problem, its evidence and its remedy.

    The identity (id, severity, title, resources, breadth) is built with the finding; the text
    (`FindingText`) may be a function, run once when the text is first read: an incident's 2,000
    per-topic findings are ranked and counted at every refresh, but few are ever shown."""

    id: str
    severity: str
    title: str
    topics: tuple[str, ...] = ()
    partitions: tuple[str, ...] = ()  # "topic-N"
    brokers: tuple[int, ...] = ()
    affected_partitions: int = 0
    root_cause: bool = False
    text: FindingText | Callable[[], FindingText] = FindingText()

    @property
    def details(self) -> FindingText:
        """The text, built now if it was left for later (two threads may both build it: the same value)."""
        text = self.text
        if isinstance(text, FindingText):
            return text
        built = text()
        object.__setattr__(self, "text", built)
        return built

    @property
    def evidence(self) -> tuple[str, ...]:
        return self.details.evidence

    @property
    def causes(self) -> tuple[str, ...]:
        return self.details.causes

    @property
    def steps(self) -> tuple[str, ...]:
        return self.details.steps

    @property
    def commands(self) -> tuple[str, ...]:
        return self.details.commands

    @property
    def strimzi_patch(self) -> str | None:
        return self.details.strimzi_patch

    @property
    def change_when(self) -> str | None:
        return self.details.change_when

    def _key(self) -> tuple[Any, ...]:
        return (
            self.id,
            self.severity,
            self.title,
            self.topics,
            self.partitions,
            self.brokers,
            self.affected_partitions,
            self.root_cause,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return self is other or (self._key() == other._key() and self.details == other.details)

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def command_kinds(self) -> list[str]:
        """The kind of each command, "read-only" or "change" (kafkatui.model.paste)."""
        return command_kinds(self.commands)

    def paste_block(self) -> str:
        """The commands as a block safe to paste whole: the changes commented out under `change_when`."""
        return paste_block(self.commands, self.change_when)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (shape in the module docstring)."""
        t = self.details
        return {
            "id": self.id,
            "severity": self.severity,
            "title": self.title,
            "root_cause": self.root_cause,
            "resources": {
                "topics": list(self.topics),
                "partitions": list(self.partitions),
                "brokers": list(self.brokers),
            },
            "affected_partitions": self.affected_partitions,
            "evidence": list(t.evidence),
            "causes": list(t.causes),
            "steps": list(t.steps),
            "commands": list(t.commands),
            "strimzi_patch": t.strimzi_patch,
            "command_kinds": command_kinds(t.commands),
            "change_when": t.change_when,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        res = d["resources"]
        return cls(
            id=d["id"],
            severity=d["severity"],
            title=d["title"],
            topics=tuple(res["topics"]),
            partitions=tuple(res["partitions"]),
            brokers=tuple(int(b) for b in res["brokers"]),
            affected_partitions=int(d["affected_partitions"]),
            root_cause=bool(d["root_cause"]),
            text=FindingText(
                evidence=tuple(d["evidence"]),
                causes=tuple(d["causes"]),
                steps=tuple(d["steps"]),
                commands=tuple(d["commands"]),
                strimzi_patch=d["strimzi_patch"],
                change_when=d.get("change_when"),
            ),
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
    change_when: str | None = None  # template: when to run the commands that change the cluster


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
    raw = yaml.load(text, Loader=_CATALOG_LOADER)  # a safe loader (SafeLoader or its libyaml twin)
    if not isinstance(raw, dict):
        raise ValueError("catalog: top level must be a mapping of finding ids")
    out: dict[str, CatalogEntry] = {}
    for fid, e in raw.items():
        if not isinstance(e, dict) or e.get("severity") not in SEVERITIES or not isinstance(e.get("title"), str):
            raise ValueError(f"catalog {fid}: needs severity (one of {SEVERITIES}) and title")
        st = e.get("strimzi") or {}
        out[fid] = CatalogEntry(
            id=fid,
            severity=e["severity"],
            title=e["title"],
            causes=_items(e.get("causes", []), fid, "causes"),
            steps=_items(e.get("steps", []), fid, "steps"),
            commands=_items(e.get("commands", []), fid, "commands"),
            escalates=bool(e.get("escalates", False)),
            root_cause=bool(e.get("root_cause", False)),
            strimzi_when=st.get("when"),
            strimzi_config=tuple((st.get("config") or {}).items()),
            change_when=e.get("change_when"),
        )
    return out


@lru_cache(maxsize=1)
def load_catalog() -> dict[str, CatalogEntry]:
    """The catalog shipped in the package."""
    return parse_catalog(resources.files("kafkatui.model").joinpath("catalog.yaml").read_text(encoding="utf-8"))


@lru_cache(maxsize=4096)
def _pieces(template: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`template` split once: its text before the first placeholder, then (name, text after it) pairs."""
    parts = _PLACEHOLDER.split(template)
    return parts[0], tuple(zip(parts[1::2], parts[2::2], strict=True))


def fill(template: str, ctx: dict[str, Any]) -> str:
    """Replace {name} placeholders (JSON braces are left alone); a missing name is a KeyError."""
    head, rest = _pieces(template)
    if not rest:
        return head
    out = [head]
    for key, text in rest:
        if key not in ctx:
            raise KeyError(f"no value for {{{key}}} in {template!r}")
        out += (str(ctx[key]), text)
    return "".join(out)


# ---------------------------------------------------------------------------------------------- helpers


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def partition_names(parts: Sequence[PartitionInfo]) -> str:
    """'orders-0, orders-3 ...': the first EXAMPLES partitions' names, '...' when there are more."""
    return ", ".join(f"{p.topic}-{p.partition}" for p in parts[:EXAMPLES]) + (" ..." if len(parts) > EXAMPLES else "")


def ids_text(ids: Iterable[int]) -> str:
    return ", ".join(str(i) for i in sorted(ids)) or "none"


def tally(c: Counter[int] | Counter[str], unit: str = "partition") -> str:
    """ "3 (5 partitions), 2 (1 partition)", most first."""
    return (
        ", ".join(
            f"{b} ({n} {unit}{'s' if n != 1 else ''})" for b, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        or "none"
    )


_FALLBACK_DEFAULTS = {
    "num.replica.fetchers": "1",
    "replica.fetch.max.bytes": "1048576",
    "replica.lag.time.max.ms": "30000",
}


def config_value(key: str, cv: ConfigValue) -> str:
    """A config's value, Kafka's default when the snapshot has none."""
    return cv.value if cv.value is not None else _FALLBACK_DEFAULTS.get(key, "?")


def config_text(key: str, cv: ConfigValue) -> str:
    """ "key=value (source)" for evidence; a value the brokers did not report reads as Kafka's default,
    said in words, never as "None (ASSUMED_DEFAULT)"."""
    if cv.source == ASSUMED_DEFAULT or cv.value is None:
        return f"{key}={config_value(key, cv)} (Kafka's default, assumed: the broker configs could not be read)"
    return f"{key}={cv.value} ({cv.source})"


def kafkatopic_name(topic: str) -> str:
    """The KafkaTopic resource name Strimzi uses for a topic (the topic itself when it is a valid name)."""
    if len(topic) <= 253 and _K8S_NAME.fullmatch(topic):
        return topic
    base = re.sub(r"[^a-z0-9.-]+", "-", topic.lower()).strip("-.") or "topic"
    return f"{base}---{hashlib.sha1(topic.encode()).hexdigest()}"


def election_ctx(topic: str, partitions: Sequence[int], kind: str) -> dict[str, Any]:
    """Context for kafka-leader-election.sh: one partition by flags, several by a JSON file."""
    if len(partitions) == 1:
        return {
            "election_target": f"--topic {topic} --partition {partitions[0]}",
            "election_file_cmd": "",
            "multi_partition": False,
        }
    path = f"elect-{kind}-{topic}.json"
    obj = {"partitions": [{"topic": topic, "partition": p} for p in sorted(partitions)]}
    return {
        "election_target": f"--path-to-json-file {path}",
        "election_file_cmd": file_cmd(obj, path),
        "multi_partition": True,
    }


def _yaml_scalar(v: Any) -> str:
    return json.dumps(v) if isinstance(v, bool | int | float) else json.dumps(str(v))


def _text(
    e: CatalogEntry, c: dict[str, Any], evidence: Iterable[str] | Callable[[], Iterable[str]], strimzi_ok: bool
) -> FindingText:
    """Entry `e`'s causes, steps, commands and Strimzi patch filled from `c`, beside `evidence`."""
    c = dict(c)
    patch = None
    config = {k: c[v] for k, v in e.strimzi_config}
    if config and strimzi_ok and (e.strimzi_when is None or c[e.strimzi_when]):
        c["strimzi"] = True
        c["strimzi_json"] = json.dumps({"spec": {"config": config}}, separators=(",", ":"))
        patch = "spec:\n  config:\n" + "".join(f"    {k}: {_yaml_scalar(v)}\n" for k, v in config.items())
    else:
        c["strimzi"] = False
    commands = tuple(fill(i.text, c) for i in e.commands if i.applies(c))
    changes = e.change_when is not None and CHANGE in command_kinds(commands)
    return FindingText(
        evidence=tuple(evidence() if callable(evidence) else evidence),
        causes=tuple(fill(i.text, c) for i in e.causes if i.applies(c)),
        steps=tuple(fill(i.text, c) for i in e.steps if i.applies(c)),
        commands=commands,
        strimzi_patch=patch,
        change_when=fill(e.change_when, c) if changes and e.change_when else None,
    )


# ---------------------------------------------------------------------------------------------- builder


class Context:
    """One findings run: the report, snapshot, catalog and planner every rule reads."""

    def __init__(self, report: HealthReport, snapshot: ClusterSnapshot, bootstrap: str, namespace: str) -> None:
        self.r = report
        self.s = snapshot
        self.cat = load_catalog()
        self.live = report.live
        self.planner = Planner(report, snapshot)
        self.base: dict[str, Any] = {"bootstrap": bootstrap, "namespace": namespace}

    # -- rendering
    def make(
        self,
        fid: str,
        ctx: dict[str, Any],
        *,
        evidence: Iterable[str] | Callable[[], Iterable[str]],
        later: Callable[[], dict[str, Any]] | None = None,
        topics: Iterable[str] = (),
        partitions: Iterable[str] = (),
        brokers: Iterable[int] = (),
        affected: int = 0,
        critical: bool = False,
        strimzi_ok: bool = True,
        severity: str | None = None,
    ) -> Finding:
        """The finding `fid` of the catalog, its title filled from `ctx`. Its text (causes, steps,
        commands from `ctx` and what `later` adds; `evidence`, a function when it costs) is built when
        first read."""
        e = self.cat[fid]
        c = {
            "planned": False,
            "has_unplanned": False,
            "unplanned": "",
            "raise_partial": False,
            "raise_complete": False,
            **self.base,
            **ctx,
        }
        lines = evidence if callable(evidence) else tuple(evidence)
        return Finding(
            id=fid,
            severity="critical" if critical and e.escalates else (severity or e.severity),
            title=fill(e.title, c),
            topics=tuple(topics),
            partitions=tuple(partitions),
            brokers=tuple(brokers),
            affected_partitions=affected,
            root_cause=e.root_cause,
            text=lambda: _text(e, c if later is None else {**c, **later()}, lines, strimzi_ok),
        )

    def topic_ctx(self, th: TopicHealth) -> dict[str, Any]:
        return {
            "topic": th.name,
            "kafkatopic": kafkatopic_name(th.name),
            "min_isr": th.min_isr,
            "min_isr_source": th.min_isr_source,
            "effective_min_isr": th.effective_min_isr,
            "rf": th.min_rf,
            "unclean_source": th.unclean_source,
            "unclean": th.unclean,
            "live_brokers": len(self.live),
        }

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
        if p.leader < 0 and not p.isr and p.elr:
            text += f" (eligible leader replicas {list(p.elr)})"
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
        """The largest lag of an out-of-sync replica of `parts` (as `lag_of`), or nothing when none is known."""
        if not self.s.log_dirs:
            return []
        worst: tuple[int, PartitionInfo, int] | None = None
        for p in parts:
            for r in p.replicas:
                if r not in p.isr:
                    lag = self.lag_of(p, r)
                    if lag is not None and (worst is None or lag > worst[0]):
                        worst = (lag, p, r)
        if worst is None:
            return []
        lag, p, r = worst
        return [f"largest replica lag: {human_bytes(lag)} ({p.topic}-{p.partition}, broker {r})"]


def finding_sort_key(f: Finding) -> tuple[int, int, int, int, str, tuple[str, ...], tuple[int, ...]]:
    """Severity, then partitions nobody can read or write (offline) before anything else, then root
    causes before symptoms, then breadth, then id and resource names."""
    return (
        _SEV_RANK[f.severity],
        0 if f.id in FIRST_IDS else 1 if f.root_cause else 2,
        -f.affected_partitions,
        -len(f.topics),
        f.id,
        f.topics[:1],
        f.brokers[:1],
    )


def named(label: str, names: list[str]) -> list[str]:
    """One evidence line naming the first EXAMPLES of `names` (nothing when there are none)."""
    if not names:
        return []
    more = f" and {len(names) - EXAMPLES} more" if len(names) > EXAMPLES else ""
    return [f"{label}: {len(names)} topic(s): {', '.join(names[:EXAMPLES])}{more}"]
