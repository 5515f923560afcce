"""The advice, checked as a Kafka expert would, on every shipped scenario at many points in time.

For each snapshot (played in-process on a manual clock, the same state `check --demo S --at T` reads):

- every reassignment plan names live brokers only, no broker twice in a replica list, and no
  partition in two plans (two files touching one partition: the second --execute fails);
- a plan never moves a partition that cannot finish (offline, or no live replica);
- applying one finding's commands (config changes, reassignments) and auditing again flags no rule
  on its topics that was not flagged before (a fix must not create another weakness);
- no two findings on one topic contradict each other (table `CONTRADICTIONS`);
- the block `c` copies, for each finding and for every partition screen's findings together, is safe
  to paste whole: `bash -n` accepts it, every command is in it, and no line a shell would run changes
  the cluster (each change is commented out under a line saying when to run it).

The big scenario (100,000 partitions, about 25 s to build) is covered by a soak test.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from kafkatui.model import durability as A
from kafkatui.model.commands import (
    apply_commands,
    commands_of,
    config_changes,
    executed_reassignments,
    printed_commands,
    written_file,
)
from kafkatui.model.findings import Finding, findings, findings_for_partition
from kafkatui.model.health import assess
from kafkatui.model.paste import CHANGE, paste_block, paste_lines, runnable_changes
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim import scenario
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.snapshot import cluster_snapshot

S = 1000
M = 60 * S
# time points per scenario: every fault and recovery of the shipped timelines, and between them
TIMES: dict[str, list[int]] = {
    "incident": [
        0,
        70 * S,
        2 * M,
        3 * M,
        5 * M,
        6 * M,
        8 * M + 30 * S,
        11 * M,
        16 * M + 10 * S,
        16 * M + 40 * S,
        26 * M + 20 * S,
        28 * M,
        31 * M + 30 * S,
        37 * M,
        39 * M + 20 * S,
        41 * M,
        43 * M,
        55 * M + 20 * S,
    ],
}
DEFAULT_TIMES = [0, 20 * S, 40 * S, 70 * S, 100 * S, 2 * M, 3 * M, 4 * M + 30 * S, 6 * M, 8 * M, 10 * M + 30 * S]
SCENARIOS = sorted(n for n in scenario.shipped() if n != "big")

# (action, action) pairs that must not both be advised for one topic
CONTRADICTIONS = {
    frozenset({"lower-min-isr", "hold-min-isr"}),
    frozenset({"lower-min-isr", "raise-min-isr"}),
    frozenset({"enable-unclean", "disable-unclean"}),
}
AUDIT_OF = {"min-isr-one-default": A.MIN_ISR_ONE, "unclean-enabled-default": A.UNCLEAN_ENABLED}


def snapshots(name: str, times: list[int]) -> Iterator[tuple[int, ClusterSnapshot]]:
    sc = scenario.load(name)
    cluster = sc.build(clock=VirtualClock(manual=True))
    player = scenario.ScenarioPlayer(sc, cluster)
    done = 0
    for t in times:
        player.advance(t - done)
        done = t
        yield t, cluster_snapshot(cluster, time.time())


def _min_isr(s: ClusterSnapshot, topic: str) -> int:
    try:
        return int(s.topic_config(topic, "min.insync.replicas").value or 1)
    except ValueError:
        return 1


def actions(s: ClusterSnapshot, f: Finding) -> dict[str, set[str]]:
    """Per topic, what the finding advises: lower/raise/hold minISR, enable/disable unclean election."""
    out: dict[str, set[str]] = defaultdict(set)
    for c in f.commands:
        for ch in config_changes(c):
            names = (
                [ch.name]
                if ch.entity_type == "topics" and ch.name
                else ([t for t in s.topics if ch.name is None and ch.entity_type == "brokers"])
            )
            for t in names:
                if t not in s.topics:
                    continue
                if ch.key == "min.insync.replicas" and ch.value is not None:
                    cur, new = _min_isr(s, t), int(ch.value)
                    if new < cur:
                        out[t].add("lower-min-isr")
                    elif new > cur:
                        out[t].add("raise-min-isr")
                if ch.key == "unclean.leader.election.enable" and ch.value is not None:
                    out[t].add("enable-unclean" if ch.value == "true" else "disable-unclean")
    for step in f.steps:
        if "Do NOT lower min.insync.replicas" in step:
            for t in f.topics:
                out[t].add("hold-min-isr")
    return out


def audit_rules(s: ClusterSnapshot) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for issue in A.audit(s):
        out[issue.topic].add(issue.rule)
    return out


# what a shell line that changes the cluster looks like, said independently of kafkatui.model.paste
_CHANGES = re.compile(
    r"--alter\b|--execute\b|--verify\b|--cancel\b|--delete\b|kafka-leader-election|kubectl (patch|apply|edit)|"
    r"> *reassign-|> *elect-"
)


def _check_paste(where: str, blocks: dict[str, str], label: str, block: str, commands: list[str]) -> None:
    """`block` (what `c` copies for `commands`) runs nothing that changes the cluster when pasted whole."""
    lines = block.splitlines()
    running = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    bad = [ln for ln in running if _CHANGES.search(ln)]
    assert not bad, f"{where}: {label}: pasting runs a change: {bad[0][:200]}"
    assert not runnable_changes(block, commands), f"{where}: {label}"
    for c in commands:
        assert c in running or f"# {c}" in lines, f"{where}: {label}: {c[:120]} missing from the copied block"
    for i, ln in enumerate(lines):
        if ln.startswith("# ") and not ln.endswith(":"):  # a commented-out change follows its when-line
            assert any(x.endswith("then run (changes the cluster: uncomment to run):") for x in lines[:i]), where
    blocks.setdefault(block, f"{where}: {label}")


def bash_accepts(blocks: dict[str, str]) -> None:
    """`bash -n` (parse, run nothing) accepts every block."""
    bash = shutil.which("bash")
    assert bash is not None, "bash is needed to check the copied blocks"
    for block, where in blocks.items():
        proc = subprocess.run([bash, "-n"], input=block, text=True, capture_output=True, timeout=10)
        assert proc.returncode == 0, f"{where}: bash -n refuses the copied block: {proc.stderr}\n{block}"


def check_snapshot(where: str, s: ClusterSnapshot, blocks: dict[str, str] | None = None) -> None:
    report = assess(s)
    found = findings(report, s, bootstrap="localhost:9092")
    live = s.broker_ids
    cmds = commands_of(found)
    assert cmds == printed_commands(s, "localhost:9092"), where

    # plans: live brokers only, one plan per partition, same file = same content
    files: dict[str, dict[str, Any]] = {}
    owner: dict[tuple[str, int], str] = {}
    for c in cmds:
        w = written_file(c)
        if w is None:
            continue
        path, obj = w
        assert files.setdefault(path, obj) == obj, f"{where}: {path} printed with two contents"
        if not path.startswith("reassign-"):
            continue
        for m in obj["partitions"]:
            key = (m["topic"], m["partition"])
            reps = m["replicas"]
            assert set(reps) <= live, f"{where}: {path} names absent broker(s) {set(reps) - live} for {key}"
            assert len(set(reps)) == len(reps), f"{where}: {path} repeats a broker for {key}: {reps}"
            assert owner.setdefault(key, path) == path, f"{where}: {key} in {owner[key]} and {path}"
            p = s.topics[m["topic"]].partitions[m["partition"]]
            assert p.leader in live, f"{where}: {path} moves offline partition {key}"
    for c in cmds:
        if "--broker-list" in c:
            listed = {int(b) for b in c.split("--broker-list ")[1].split()[0].split(",")}
            assert listed <= live, f"{where}: {c}"
        if "--election-type UNCLEAN" in c and "--partition" in c:
            words = c.split()
            p = s.topics[words[words.index("--topic") + 1]].partitions[int(words[words.index("--partition") + 1])]
            assert p.leader < 0 and set(p.replicas) & live, f"{where}: unclean election on {c}"

    # a finding's fix creates no new weakness on its topics
    before = audit_rules(s)
    for f in found:
        if not any(config_changes(c) for c in f.commands) and not executed_reassignments(f.commands):
            continue
        after = audit_rules(apply_commands(s, f.commands))
        own = AUDIT_OF.get(f.id, f.id)
        for t in f.topics or list(s.topics):
            new = after[t] - before[t]
            assert not new, f"{where}: applying {f.id} on {t} makes the audit flag {sorted(new)}"
            if (
                own in (A.MIN_ISR_ABOVE_RF, A.MIN_ISR_EQUALS_RF, A.MIN_ISR_ONE, A.UNCLEAN_ENABLED)
                and not any("Not in the plan" in st for st in f.steps)
                and own in before[t]
                and not any("stopgap" in st for st in f.steps)
            ):
                assert own not in after[t], f"{where}: applying {f.id} on {t} does not fix it"

    # no two findings on one topic contradict each other
    per_topic: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for f in found:
        for t, acts in actions(s, f).items():
            for a in acts:
                per_topic[t][a].append(f.id)
    for t, advised in per_topic.items():
        for pair in CONTRADICTIONS:
            a, b = sorted(pair)
            assert not (a in advised and b in advised), f"{where}: {t}: {a} ({advised[a]}) vs {b} ({advised[b]})"

    # a partition's own findings come before broker- and cluster-wide ones on its screen
    for name in list(s.topics)[:3]:
        shown = findings_for_partition(found, name, 0)
        ranks = [0 if x.topics == (name,) else 1 for x in shown]
        assert ranks == sorted(ranks), where

    # what `c` copies is safe to paste whole: one finding (findings screen), a partition's (partition screen)
    blocks = {} if blocks is None else blocks
    for f in found:
        block = f.paste_block()
        assert block == paste_block(f.commands, f.change_when)
        if CHANGE in f.command_kinds:
            assert f.change_when, f"{where}: {f.id} changes the cluster without saying when (catalog change_when)"
        _check_paste(where, blocks, f.id, block, list(f.commands))
    for name, t in s.topics.items():
        for p in t.partitions[:1]:
            shown = findings_for_partition(found, name, p.partition)
            block = "\n".join(paste_lines((x.commands, x.change_when) for x in shown)) + "\n"
            _check_paste(
                where, blocks, f"partition {name}-{p.partition}", block, [c for x in shown for c in x.commands]
            )


@pytest.mark.parametrize("name", SCENARIOS)
def test_advice_is_consistent_on_every_scenario(name: str) -> None:
    blocks: dict[str, str] = {}
    for t, s in snapshots(name, TIMES.get(name, DEFAULT_TIMES)):
        check_snapshot(f"{name} at {t // 1000}s", s, blocks)
    bash_accepts(blocks)


@pytest.mark.soak
def test_advice_is_consistent_on_the_big_scenario() -> None:
    for t, s in snapshots("big", [90 * S]):
        check_snapshot(f"big at {t // 1000}s", s)


def test_printed_commands_are_the_kafka_cli_lines_each_once() -> None:
    from tests.model.builders import healthy, snap, topic

    s = snap(
        topic("orders", [(1, [1, 4, 2], [1]), (2, [2, 4, 3], [2, 3])], min_insync_replicas="2"),
        healthy("events", 2, rf=2, min_insync_replicas="2"),
        brokers=(1, 2, 3),
    )
    cmds = printed_commands(s, "kafka-1:9092")
    assert len(cmds) == len(set(cmds)) and cmds
    assert all(c.startswith("printf '%s\\n' '") or c.split()[0].startswith("kafka-") for c in cmds)
    assert not any(c.startswith(("kubectl", "grep")) for c in cmds)
    assert any(
        c.startswith(
            "kafka-reassign-partitions.sh --bootstrap-server kafka-1:9092 --reassignment-json-file "
            "reassign-broker-4.json --execute"
        )
        for c in cmds
    )
    # the broker-4 plan and the events RF plan are separate files, each written before it is executed
    plans = executed_reassignments(cmds)
    assert set(plans) == {"reassign-broker-4.json", "reassign-events.json"}
    after = apply_commands(s, cmds)
    assert {p.replicas for p in after.topics["orders"].partitions} <= {(1, 3, 2), (2, 1, 3)}
    assert all(len(p.replicas) == 3 for p in after.topics["events"].partitions)
    assert "min-isr-equals-rf" not in {i.rule for i in A.audit(after) if i.topic == "events"}


def test_apply_commands_follows_kafkas_config_precedence() -> None:
    from tests.model.builders import healthy, snap

    s = snap(healthy("a", 1), healthy("b", 1, min_insync_replicas="3"), broker_configs={"min.insync.replicas": "1"})
    s = dataclasses.replace(
        s,
        topics={
            n: dataclasses.replace(
                t,
                configs={
                    **t.configs,
                    **(
                        {}
                        if "min.insync.replicas" in t.configs
                        else {"min.insync.replicas": s.broker_config("min.insync.replicas")}
                    ),
                },
            )
            for n, t in s.topics.items()
        },
    )
    after = apply_commands(
        s,
        [
            "kafka-configs.sh --bootstrap-server B --alter --entity-type brokers --entity-default "
            "--add-config min.insync.replicas=2",
            "kafka-configs.sh --bootstrap-server B --alter --entity-type topics --entity-name b "
            "--delete-config min.insync.replicas",
        ],
    )
    assert after.topic_config("a", "min.insync.replicas").value == "2"  # inherited the new default
    assert after.topic_config("b", "min.insync.replicas").value == "2"  # override deleted: falls back
