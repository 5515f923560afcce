"""The shell commands kafkatui prints for a snapshot, and what they would change.

`printed_commands(snapshot)` is every Kafka CLI command the findings print (``check``, the findings,
topic and partition screens show the same ones), in order, each once, with the ``printf ... > file``
lines that write the JSON files the tools read. Run them in one directory with Apache Kafka's
``bin/`` on the PATH (``kafkatui lab`` does) to check that Kafka's own tools accept them.

`apply_commands(snapshot, commands)` models what the state-changing ones leave behind (config
overrides set or deleted, reassignments finished), so a test can audit the result: a recommended
change must not produce a configuration another rule flags.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafkatui.model.evaluation import evaluate
from kafkatui.model.findings import Finding
from kafkatui.model.snapshot import (
    DYNAMIC_BROKER_CONFIG,
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
    TopicInfo,
)

KAFKA_TOOLS = (
    "kafka-configs.sh",
    "kafka-reassign-partitions.sh",
    "kafka-leader-election.sh",
    "kafka-topics.sh",
    "kafka-log-dirs.sh",
    "kafka-broker-api-versions.sh",
    "kafka-consumer-groups.sh",
)
_FILE = re.compile(r"^printf '%s\\n' '(?P<json>.*)' > (?P<path>\S+)$")
_LOOP = re.compile(r"^for t in (?P<names>.+?); do (?P<body>.+); done$")


def is_kafka_command(cmd: str) -> bool:
    """A line for Kafka's CLI: a kafka-*.sh tool, or the printf writing a JSON file one of them reads."""
    return cmd.startswith("printf '%s\\n' '") or any(tool in cmd for tool in KAFKA_TOOLS)


def commands_of(found: Iterable[Finding], *, kafka_only: bool = True) -> list[str]:
    """The findings' commands in order, each once (Kafka CLI lines only unless `kafka_only` is false)."""
    seen: dict[str, None] = {}
    for f in found:
        for c in f.commands:
            if c and (not kafka_only or is_kafka_command(c)):
                seen.setdefault(c, None)
    return list(seen)


def printed_commands(
    snapshot: ClusterSnapshot,
    bootstrap: str = "localhost:9092",
    *,
    shrink_counts: dict[int, int] | None = None,
    kafka_only: bool = True,
) -> list[str]:
    """Every shell command kafkatui prints for `snapshot` (kafka-configs, the reassignment and election
    JSON files and their kafka-reassign-partitions / kafka-leader-election lines, kafka-topics ...),
    with `bootstrap` filled in, in the order the findings print them, each once."""
    return commands_of(evaluate(snapshot, shrink_counts, bootstrap=bootstrap).findings, kafka_only=kafka_only)


# ------------------------------------------------------------------------------------------ parsing


@dataclass(frozen=True, slots=True)
class ConfigCommand:
    """One key of a ``kafka-configs.sh --alter``: entity "topics" or "brokers"; name None = --entity-default;
    value None = --delete-config."""

    entity_type: str
    name: str | None
    key: str
    value: str | None


def expand(cmd: str) -> list[str]:
    """A ``for t in a b; do ... "$t" ...; done`` line as one command per name; any other line as itself."""
    m = _LOOP.match(cmd)
    if not m:
        return [cmd]
    return [m.group("body").replace('"$t"', shlex.quote(n)) for n in shlex.split(m.group("names"))]


def config_changes(cmd: str) -> list[ConfigCommand]:
    """The changes a ``kafka-configs.sh --alter`` line makes (none for any other line)."""
    out: list[ConfigCommand] = []
    for one in expand(cmd):
        words = shlex.split(one)
        if not words or not words[0].endswith("kafka-configs.sh") or "--alter" not in words:
            continue
        opt = {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")}
        etype = opt.get("--entity-type", "")
        name = None if "--entity-default" in words else opt.get("--entity-name")
        for pair in (opt.get("--add-config") or "").split(","):
            if "=" in pair:
                k, v = pair.split("=", 1)
                out.append(ConfigCommand(etype, name, k, v))
        for k in (opt.get("--delete-config") or "").split(","):
            if k:
                out.append(ConfigCommand(etype, name, k, None))
    return out


def written_file(cmd: str) -> tuple[str, dict[str, Any]] | None:
    """(path, JSON) of a ``printf ... > path`` line, else None."""
    m = _FILE.match(cmd)
    if not m:
        return None
    return m.group("path"), json.loads(m.group("json"))


def executed_reassignments(commands: Iterable[str]) -> dict[str, list[tuple[str, int, list[int]]]]:
    """Per reassignment file that some line ``--execute``s: its moves (topic, partition, replicas)."""
    files: dict[str, dict[str, Any]] = {}
    run: list[str] = []
    for c in commands:
        w = written_file(c)
        if w is not None:
            files[w[0]] = w[1]
        elif "kafka-reassign-partitions.sh" in c and "--execute" in c:
            words = shlex.split(c)
            run.append(words[words.index("--reassignment-json-file") + 1])
    out: dict[str, list[tuple[str, int, list[int]]]] = {}
    for path in run:
        parts = (files.get(path) or {}).get("partitions", [])
        out[path] = [
            (str(p["topic"]), int(p["partition"]), [int(r) for r in p["replicas"]])
            for p in parts
            if isinstance(p, dict)
        ]
    return out


# ------------------------------------------------------------------------------------------ applying


def apply_commands(snapshot: ClusterSnapshot, commands: Iterable[str]) -> ClusterSnapshot:
    """The snapshot as the commands would leave it: config overrides set or deleted (topic, per-broker
    and cluster default, with Kafka's precedence), reassignments finished (replicas = ISR = the new
    list, the leader kept when it stays a replica). Other lines change nothing."""
    cmds = list(commands)
    topics = dict(snapshot.topics)
    brokers = {b: dict(c) for b, c in snapshot.broker_configs.items()}
    for cmd in cmds:
        for ch in config_changes(cmd):
            if ch.entity_type == "topics" and ch.name in topics:
                t = topics[ch.name]
                cfg = dict(t.configs)
                if ch.value is None:
                    cfg.pop(ch.key, None)
                else:
                    cfg[ch.key] = ConfigValue(ch.value, DYNAMIC_TOPIC_CONFIG)
                topics[ch.name] = dataclasses.replace(t, configs=cfg)
            elif ch.entity_type == "brokers":
                _apply_broker(topics, brokers, snapshot, ch)
    for moves in executed_reassignments(cmds).values():
        for topic, partition, replicas in moves:
            info = topics.get(topic)
            if info is None or partition >= len(info.partitions):
                continue
            parts = list(info.partitions)
            p = parts[partition]
            leader = p.leader if p.leader in replicas else replicas[0]
            parts[partition] = PartitionInfo(
                p.topic, p.partition, leader, tuple(replicas), tuple(replicas), leader_epoch=p.leader_epoch
            )
            topics[topic] = TopicInfo(info.name, tuple(parts), info.internal, info.configs, info.error_code)
    return dataclasses.replace(snapshot, topics=topics, broker_configs=brokers)


def _apply_broker(
    topics: dict[str, TopicInfo],
    brokers: dict[int, dict[str, ConfigValue]],
    snapshot: ClusterSnapshot,
    ch: ConfigCommand,
) -> None:
    source = DYNAMIC_DEFAULT_BROKER_CONFIG if ch.name is None else DYNAMIC_BROKER_CONFIG
    targets = sorted(brokers or {b.id: {} for b in snapshot.brokers}) if ch.name is None else [int(ch.name)]
    for b in targets:
        cfg = brokers.setdefault(b, {})
        cur = cfg.get(ch.key)
        if ch.name is None and cur is not None and cur.source == DYNAMIC_BROKER_CONFIG:
            continue  # a per-broker override wins over the cluster default
        if ch.value is None:
            cfg.pop(ch.key, None)
        else:
            cfg[ch.key] = ConfigValue(ch.value, source)
    if ch.value is None or ch.name is not None:
        return
    for name, info in list(topics.items()):
        cv = info.configs.get(ch.key)
        if cv is not None and cv.source not in (DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG):
            cfg = dict(info.configs)
            cfg[ch.key] = ConfigValue(ch.value, DYNAMIC_DEFAULT_BROKER_CONFIG)
            topics[name] = dataclasses.replace(info, configs=cfg)
