"""Scenarios: a cluster shape, topics, producer load and a timeline of faults, from YAML.

A bad file gets a ScenarioError naming the file, the line and the problem.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from kafkatui import safeyaml
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.events import EventKind
from kafkatui.sim.kafkaversion import LINES

ACTIONS = {
    "crash": ("broker",),
    "restart": ("broker",),
    "restore": ("broker",),
    "shutdown": ("broker",),
    "hang": ("broker",),
    "isolate": ("broker",),
    "slow": ("broker", "factor"),
    "pause": ("broker", "duration"),
    "set_config": ("key",),
    "load": ("topic", "rate"),
    "create_topic": ("topic", "partitions"),
    "elect": ("type",),
}
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
COMPOUND = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*(?:ms|s|m|h)\s*)+$")  # 1m30s, 1h 15m
PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h)")
UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, None: 1000}
# what one simulator holds in memory and plays: the shipped `big` scenario (100,000 partitions on 30
# brokers) with room to spare; beyond, a typo (`partitions: 100000000`) would eat the machine
MAX_PARTITIONS = 250_000
MAX_BROKERS = 1_000
MAX_STEPS = 100_000
MAX_DURATION_MS = 366 * 24 * 3_600_000  # a year of simulated time
MAX_SCENARIO_BYTES = 4 * 1024 * 1024


class ScenarioError(Exception):
    """A scenario file that cannot be used; the message names file, line and problem."""


@dataclass(slots=True)
class TopicSpec:
    name: str
    partitions: int = 1
    replication_factor: int | None = None
    configs: dict[str, str] = field(default_factory=dict)
    assignment: dict[int, list[int]] | None = None


@dataclass(slots=True)
class Step:
    at_ms: int
    action: str
    args: dict[str, Any]
    line: int


@dataclass(slots=True)
class Scenario:
    """A parsed scenario, ready to build a cluster and play its timeline."""

    name: str
    description: str = ""
    brokers: int = 3
    racks: list[str] | None = None
    broker_configs: dict[str, str] = field(default_factory=dict)
    elr: bool = False
    kafka_version: str | None = None  # the release line the simulator answers as (None: its newest)
    topics: list[TopicSpec] = field(default_factory=list)
    loads: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[Step] = field(default_factory=list)
    bulk: dict[str, int] | None = None  # generated topics for scale: {topics, partitions, rf}
    source: str = "<scenario>"

    def build(
        self,
        clock: VirtualClock | None = None,
        brokers: int | None = None,
        racks: list[str] | None = None,
        cluster_id: str | None = None,
    ) -> SimCluster:
        """A new cluster in the scenario's starting state (before its timeline); a random cluster id unless
        `cluster_id` fixes one."""
        cluster = SimCluster(
            brokers=brokers or self.brokers,
            racks=racks or self.racks,
            clock=clock,
            static_configs=self.broker_configs,
            elr=self.elr,
            cluster_id=cluster_id,
            kafka_version=self.kafka_version,
        )
        for t in self.topics:
            cluster.create_topic(t.name, t.partitions, t.replication_factor, assignment=t.assignment, configs=t.configs)
        if self.bulk:
            n, parts, rf = self.bulk["topics"], self.bulk["partitions"], self.bulk.get("rf", 3)
            width = len(str(n))
            for i in range(n):
                cluster.create_topic(f"bulk-{i:0{width}d}", parts, rf)
        for ld in self.loads:
            cluster.set_load(ld["topic"], float(ld["rate"]), int(ld.get("acks", -1)))
        cluster.events.emit(_scenario_event(cluster, f"scenario {self.name} started"))
        return cluster


class ScenarioPlayer:
    """Applies a scenario's timeline to a cluster as simulated time passes."""

    def __init__(self, scenario: Scenario, cluster: SimCluster) -> None:
        self.scenario = scenario
        self.cluster = cluster
        self.start_ms = cluster.now_ms
        self._next = 0
        self._steps = sorted(scenario.timeline, key=lambda s: s.at_ms)

    @property
    def finished(self) -> bool:
        return self._next >= len(self._steps)

    @property
    def elapsed_ms(self) -> int:
        return self.cluster.now_ms - self.start_ms

    def poll(self) -> None:
        """Run every step that is due (call after each cluster tick)."""
        while self._next < len(self._steps) and self._steps[self._next].at_ms <= self.elapsed_ms:
            step = self._steps[self._next]
            self._next += 1
            apply_step(self.cluster, step)

    def advance(self, ms: int, step_ms: int = 100) -> None:
        """Advance a manual-clock cluster by `ms`, applying steps exactly when due (tests)."""
        target = self.cluster.now_ms + ms
        while self.cluster.now_ms < target:
            due = self._steps[self._next].at_ms + self.start_ms if not self.finished else target
            nxt = min(target, self.cluster.now_ms + step_ms, max(due, self.cluster.now_ms + 1))
            self.cluster.run_for(nxt - self.cluster.now_ms)
            self.poll()


def apply_step(cluster: SimCluster, step: Step) -> None:
    """Carry out one timeline step."""
    a = step.args
    name = step.action
    cluster.events.emit(_scenario_event(cluster, step.args.get("note") or f"{name} {_args_text(a)}"))
    if name in ("crash", "restart", "restore", "shutdown", "hang", "isolate"):
        getattr(cluster, name)(int(a["broker"]))
    elif name == "slow":
        cluster.slow(int(a["broker"]), float(a["factor"]))
    elif name == "pause":
        cluster.pause(int(a["broker"]), parse_duration(a["duration"]))
    elif name == "set_config":
        if a.get("topic"):
            resource = ("topic", str(a["topic"]))
        else:
            resource = ("broker", str(a.get("broker", "")) if a.get("broker") is not None else "")
        value = a.get("value")
        cluster.alter_configs(
            resource, [(str(a["key"]), 1 if value is None else 0, None if value is None else str(value))], False
        )
    elif name == "load":
        cluster.set_load(str(a["topic"]), float(a["rate"]), _acks(a.get("acks", "all")))
    elif name == "create_topic":
        cluster.create_topic(
            str(a["topic"]), int(a["partitions"]), a.get("replication_factor"), configs=a.get("configs") or {}
        )
    elif name == "elect":
        cluster.elect_leaders(1 if a["type"] == "unclean" else 0, None)


def _args_text(a: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in a.items() if k != "note")


def _scenario_event(cluster: SimCluster, text: str) -> Any:
    from kafkatui.sim.events import SimEvent

    return SimEvent(cluster.now_ms, EventKind.SCENARIO, detail={"text": text})


def _acks(value: Any) -> int:
    if value in ("all", -1, "-1"):
        return -1
    return int(value)


def parse_duration(value: Any) -> int:
    """'30s', '2m', '1h', '250ms', '1m30s' or a number of seconds -> milliseconds (at most a year)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"not a duration: {value!r} (a duration is a finite number >= 0)")
        ms = value * 1000
    else:
        text = str(value)
        m = DURATION.match(text)
        if m:
            ms = float(m.group(1)) * UNITS[m.group(2)]
        elif COMPOUND.match(text):
            ms = sum(float(n) * UNITS[unit] for n, unit in PART.findall(text))
        else:
            raise ValueError(f"not a duration: {value!r} (use e.g. 30s, 2m, 1m30s, 1h, 250ms)")
    if not ms <= MAX_DURATION_MS:  # also inf and nan
        raise ValueError(f"duration {value!r} is longer than the simulator plays (at most 366 days, 8784h)")
    return int(ms)


MAX_FAST_FORWARD_MS = 3_600_000
"""check --demo --at plays the scenario step by step: 1h takes 13 s here, 2h over 2 minutes."""


def parse_fast_forward(value: str) -> int:
    """How far `check --demo --at` plays a scenario, in ms (ValueError beyond an hour)."""
    ms = parse_duration(value)
    if ms > MAX_FAST_FORWARD_MS:
        raise ValueError(
            f"--at {value}: check --demo plays at most 1h of a scenario (every shipped scenario "
            "has happened by then); give a shorter time"
        )
    return ms


# --------------------------------------------------------------------------- loading
def shipped() -> dict[str, Path]:
    """Scenarios that ship with kafkatui, by name."""
    folder = resources.files("kafkatui.sim") / "scenarios"
    out: dict[str, Path] = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".yaml"):
            out[entry.name[:-5]] = Path(str(entry))
    return dict(sorted(out.items()))


def load(name_or_path: str) -> Scenario:
    """Load a shipped scenario by name, or a YAML file by path."""
    known = shipped()
    if name_or_path in known:
        path = known[name_or_path]
    else:
        path = Path(name_or_path)
        if not path.exists():
            raise ScenarioError(
                f"{name_or_path}: no such scenario file or shipped scenario (known: {', '.join(known)})"
            )
    try:
        text = safeyaml.read_text_bounded(path, MAX_SCENARIO_BYTES)
    except safeyaml.InputError as exc:
        raise ScenarioError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return parse(text, str(path))


class _Loader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, node: yaml.Node | None, msg: str) -> ScenarioError:
        line = node.start_mark.line + 1 if node is not None else 1
        return ScenarioError(f"{self.source}:{line}: {msg}")

    def mapping(self, node: yaml.Node, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping")
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for k, v in node.value:
            if not isinstance(k, yaml.ScalarNode):
                raise self.fail(k, f"{what}: keys must be plain names")
            out[k.value] = (k, v)
        return out

    def scalar(self, node: yaml.Node, what: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, f"{what} must be a single value")
        return safeyaml.load(yaml.serialize(node))

    def integer(self, node: yaml.Node, what: str, minimum: int = 0, maximum: int | None = None) -> int:
        value = self.scalar(node, what)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(node, f"{what} must be an integer >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.fail(node, f"{what}: {value:,} is more than the simulator holds (at most {maximum:,})")
        return value

    def strings(self, node: yaml.Node, what: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, (_, v) in self.mapping(node, what).items():
            value = self.scalar(v, f"{what}.{key}")
            out[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return out

    def check_keys(self, m: dict[str, tuple[yaml.Node, yaml.Node]], allowed: set[str], what: str) -> None:
        for key, (k, _) in m.items():
            if key not in allowed:
                raise self.fail(k, f"{what}: unknown key '{key}' (allowed: {', '.join(sorted(allowed))})")


def parse(text: str, source: str = "<scenario>") -> Scenario:
    """Parse scenario YAML; every problem is reported with its line."""
    ld = _Loader(source)
    try:
        root = safeyaml.compose(text)
    except yaml.YAMLError as exc:
        line, problem = safeyaml.yaml_problem(exc)
        kind = "" if isinstance(exc, safeyaml.LimitError) else "invalid YAML: "
        raise ScenarioError(f"{source}:{line or 1}: {kind}{problem}") from None
    if root is None:
        raise ScenarioError(f"{source}:1: empty scenario")
    top = ld.mapping(root, "scenario")
    ld.check_keys(top, {"name", "description", "cluster", "topics", "bulk", "load", "timeline"}, "scenario")
    sc = Scenario(name=Path(source).stem, source=source)
    if "name" in top:
        sc.name = str(ld.scalar(top["name"][1], "name"))
    if "description" in top:
        sc.description = str(ld.scalar(top["description"][1], "description")).strip()
    if "cluster" in top:
        c = ld.mapping(top["cluster"][1], "cluster")
        ld.check_keys(c, {"brokers", "racks", "configs", "elr", "kafka_version"}, "cluster")
        if "brokers" in c:
            sc.brokers = ld.integer(c["brokers"][1], "cluster.brokers", 1, MAX_BROKERS)
        if "racks" in c:
            node = c["racks"][1]
            if not isinstance(node, yaml.SequenceNode):
                raise ld.fail(node, "cluster.racks must be a list")
            sc.racks = [str(ld.scalar(n, "cluster.racks[]")) for n in node.value]
        if "configs" in c:
            sc.broker_configs = ld.strings(c["configs"][1], "cluster.configs")
        if "elr" in c:
            sc.elr = bool(ld.scalar(c["elr"][1], "cluster.elr"))
        if "kafka_version" in c:
            node = c["kafka_version"][1]
            sc.kafka_version = str(ld.scalar(node, "cluster.kafka_version"))
            if sc.kafka_version not in LINES:
                raise ld.fail(node, f"cluster.kafka_version must be one of {', '.join(LINES)}")
    if "topics" in top:
        node = top["topics"][1]
        if not isinstance(node, yaml.SequenceNode):
            raise ld.fail(node, "topics must be a list")
        for i, tn in enumerate(node.value):
            sc.topics.append(_topic(ld, tn, f"topics[{i}]", sc.brokers))
    if "bulk" in top:
        b = ld.mapping(top["bulk"][1], "bulk")
        ld.check_keys(b, {"topics", "partitions", "rf"}, "bulk")
        sc.bulk = {k: ld.integer(v, f"bulk.{k}", 1, MAX_PARTITIONS) for k, (_, v) in b.items()}
        if sc.bulk.get("topics", 0) * sc.bulk.get("partitions", 0) > MAX_PARTITIONS:
            raise ld.fail(
                top["bulk"][1],
                f"bulk: {sc.bulk['topics']:,} topics x {sc.bulk['partitions']:,} "
                f"partitions is more than the simulator holds ({MAX_PARTITIONS:,})",
            )
    if "load" in top:
        node = top["load"][1]
        if not isinstance(node, yaml.SequenceNode):
            raise ld.fail(node, "load must be a list")
        names = {t.name for t in sc.topics}
        for i, ln in enumerate(node.value):
            m = ld.mapping(ln, f"load[{i}]")
            ld.check_keys(m, {"topic", "rate", "acks"}, f"load[{i}]")
            if "topic" not in m or "rate" not in m:
                raise ld.fail(ln, f"load[{i}] needs topic and rate")
            topic = str(ld.scalar(m["topic"][1], f"load[{i}].topic"))
            if topic not in names:
                raise ld.fail(m["topic"][1], f"load[{i}].topic: no topic '{topic}' in this scenario")
            acks = ld.scalar(m["acks"][1], f"load[{i}].acks") if "acks" in m else "all"
            if acks not in ("all", -1, 0, 1):
                raise ld.fail(m["acks"][1], f"load[{i}].acks must be all, 1 or 0")
            rate = ld.scalar(m["rate"][1], f"load[{i}].rate")
            if isinstance(rate, bool) or not isinstance(rate, int | float) or not math.isfinite(rate) or rate < 0:
                raise ld.fail(m["rate"][1], f"load[{i}].rate must be a number >= 0")
            sc.loads.append({"topic": topic, "rate": rate, "acks": _acks(acks)})
    if "timeline" in top:
        node = top["timeline"][1]
        if not isinstance(node, yaml.SequenceNode):
            raise ld.fail(node, "timeline must be a list")
        for i, sn in enumerate(node.value):
            sc.timeline.extend(_steps(ld, sn, f"timeline[{i}]", sc))
            if len(sc.timeline) > MAX_STEPS:
                raise ld.fail(
                    sn,
                    f"timeline: more than {MAX_STEPS:,} steps (repeats counted); the simulator plays at most that many",
                )
    total = sum(t.partitions for t in sc.topics) + (sc.bulk["topics"] * sc.bulk["partitions"] if sc.bulk else 0)
    total += sum(int(s.args["partitions"]) for s in sc.timeline if s.action == "create_topic")
    if total > MAX_PARTITIONS:
        raise ScenarioError(
            f"{source}:1: {total:,} partitions in all is more than the simulator holds (at most {MAX_PARTITIONS:,})"
        )
    return sc


def _topic(ld: _Loader, node: yaml.Node, what: str, brokers: int) -> TopicSpec:
    m = ld.mapping(node, what)
    ld.check_keys(m, {"name", "partitions", "replication_factor", "rf", "configs", "assignment"}, what)
    if "name" not in m:
        raise ld.fail(node, f"{what} needs a name")
    spec = TopicSpec(name=str(ld.scalar(m["name"][1], f"{what}.name")))
    if "partitions" in m:
        spec.partitions = ld.integer(m["partitions"][1], f"{what}.partitions", 1, MAX_PARTITIONS)
    for key in ("replication_factor", "rf"):
        if key in m:
            rf = ld.integer(m[key][1], f"{what}.{key}", 1)
            if rf > brokers:
                raise ld.fail(m[key][1], f"{what}.{key}: {rf} is more than the {brokers} brokers of this cluster")
            spec.replication_factor = rf
    if "configs" in m:
        spec.configs = ld.strings(m["configs"][1], f"{what}.configs")
    if "assignment" in m:
        an = m["assignment"][1]
        if not isinstance(an, yaml.SequenceNode):
            raise ld.fail(an, f"{what}.assignment must be a list of replica lists")
        spec.assignment = {}
        for i, rn in enumerate(an.value):
            reps = (
                ld.scalar(rn, f"{what}.assignment[{i}]")
                if isinstance(rn, yaml.ScalarNode)
                else [ld.integer(x, f"{what}.assignment[{i}][]", 1) for x in getattr(rn, "value", [])]
            )
            if not isinstance(reps, list) or any(not 1 <= r <= brokers for r in reps):
                raise ld.fail(rn, f"{what}.assignment[{i}]: replicas must be broker ids 1..{brokers}")
            spec.assignment[i] = reps
        spec.partitions = len(spec.assignment)
    return spec


def _steps(ld: _Loader, node: yaml.Node, what: str, sc: Scenario) -> list[Step]:
    m = ld.mapping(node, what)
    if "at" not in m or "action" not in m:
        raise ld.fail(node, f"{what} needs 'at' and 'action'")
    action = str(ld.scalar(m["action"][1], f"{what}.action"))
    if action not in ACTIONS:
        raise ld.fail(m["action"][1], f"{what}.action: unknown action '{action}' (known: {', '.join(ACTIONS)})")
    allowed = {
        "at",
        "action",
        "note",
        "repeat",
        "broker",
        "topic",
        "key",
        "value",
        "factor",
        "duration",
        "rate",
        "acks",
        "partitions",
        "replication_factor",
        "configs",
        "type",
    }
    ld.check_keys(m, allowed, what)
    args: dict[str, Any] = {}
    for key, (_, v) in m.items():
        if key in ("at", "action", "repeat"):
            continue
        args[key] = ld.strings(v, f"{what}.{key}") if key == "configs" else ld.scalar(v, f"{what}.{key}")
    for req in ACTIONS[action]:
        if req not in args:
            raise ld.fail(node, f"{what}: action '{action}' needs '{req}'")
    if "broker" in args and args["broker"] is not None:
        b = args["broker"]
        if isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= sc.brokers:
            raise ld.fail(m["broker"][1], f"{what}.broker: {b!r} is not a broker of this cluster (1..{sc.brokers})")
    topics = {t.name for t in sc.topics} | {s.args.get("topic") for s in sc.timeline if s.action == "create_topic"}
    if "topic" in args and action not in ("create_topic",) and args["topic"] not in topics and not sc.bulk:
        raise ld.fail(m["topic"][1], f"{what}.topic: no topic '{args['topic']}' in this scenario")
    for key in ("duration",):
        if key in args:
            try:
                parse_duration(args[key])
            except ValueError as exc:
                raise ld.fail(m[key][1], f"{what}.{key}: {exc}") from None
    if action == "elect" and args["type"] not in ("preferred", "unclean"):
        raise ld.fail(m["type"][1], f"{what}.type must be preferred or unclean")
    # values the step's action would only trip over when it runs, minutes into a live demo
    for key in ("factor", "rate"):
        value = args.get(key)
        if key in args and (
            isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0
        ):
            raise ld.fail(m[key][1], f"{what}.{key} must be a number >= 0, got {value!r}")
    if "acks" in args and args["acks"] not in ("all", -1, 0, 1):
        raise ld.fail(m["acks"][1], f"{what}.acks must be all, 1 or 0")
    if action == "create_topic":
        ld.integer(m["partitions"][1], f"{what}.partitions", 1, MAX_PARTITIONS)
        if args.get("replication_factor") is not None:
            rf = ld.integer(m["replication_factor"][1], f"{what}.replication_factor", 1)
            if rf > sc.brokers:
                raise ld.fail(
                    m["replication_factor"][1],
                    f"{what}.replication_factor: {rf} is more than the {sc.brokers} brokers of this cluster",
                )
    try:
        at = parse_duration(ld.scalar(m["at"][1], f"{what}.at"))
    except ValueError as exc:
        raise ld.fail(m["at"][1], f"{what}.at: {exc}") from None
    steps = [Step(at, action, args, node.start_mark.line + 1)]
    if "repeat" in m:
        r = ld.mapping(m["repeat"][1], f"{what}.repeat")
        ld.check_keys(r, {"every", "times"}, f"{what}.repeat")
        if "every" not in r or "times" not in r:
            raise ld.fail(m["repeat"][1], f"{what}.repeat needs every and times")
        try:
            every = parse_duration(ld.scalar(r["every"][1], f"{what}.repeat.every"))
        except ValueError as exc:
            raise ld.fail(r["every"][1], f"{what}.repeat.every: {exc}") from None
        times = ld.integer(r["times"][1], f"{what}.repeat.times", 1, MAX_STEPS)
        if at + every * (times - 1) > MAX_DURATION_MS:
            raise ld.fail(m["repeat"][1], f"{what}.repeat: the last repeat would be after a year of simulated time")
        steps.extend(Step(at + every * k, action, dict(args), steps[0].line) for k in range(1, times))
    return steps
