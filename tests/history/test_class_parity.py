"""One class rule, three users: assess, the recorder and the Spark replay job must agree on every case."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from kafkatui.history.record import recorder
from kafkatui.model import rules
from kafkatui.model.health import assess
from kafkatui.model.snapshot import PartitionInfo
from tests.model.builders import snap, topic

LIVE = (1, 2, 3)
V39 = rules.KafkaVersion((3, 9), (3, 9), rules.KRAFT, 3)  # caps min ISR at RF
V28 = rules.KafkaVersion((2, 8), (2, 8), rules.ZOOKEEPER, 3)  # does not


def _cases() -> list[tuple[int, tuple[int, ...], tuple[int, ...], int]]:
    """(leader, replicas, isr, configured min ISR): every leader (none, live, not live) over RF 1-3
    replica lists, ISR subsets and min ISR 1-4."""
    out = []
    for reps in [(1,), (2,), (1, 2), (2, 1), (1, 2, 3), (3, 1, 2), (4, 1, 2)]:
        subsets = [s for n in range(1, len(reps) + 1) for s in itertools.combinations(reps, n)]
        for isr, leader, min_isr in itertools.product(subsets, (-1, *reps), (1, 2, 3, 4)):
            if leader >= 0 and leader not in isr:
                continue
            out.append((leader, reps, isr, min_isr))
    return out


CASES = _cases()


def _assess(version: rules.KafkaVersion) -> list[str]:
    topics = [
        topic(f"t{i}", [(leader, reps, isr)], min_insync_replicas=str(m))
        for i, (leader, reps, isr, m) in enumerate(CASES)
    ]
    report = assess(dataclasses.replace(snap(*topics, brokers=LIVE), kafka=version))
    return [report.health(f"t{i}", 0).name for i in range(len(CASES))]


def _recorder(version: rules.KafkaVersion) -> list[str]:
    out = []
    for leader, reps, isr, m in CASES:
        p = PartitionInfo("t", 0, leader, reps, isr)
        out.append(recorder.classify(p, recorder.effective(p, m, version.capped), frozenset(LIVE)).name)
    return out


def _spark(spark: Any, version: rules.KafkaVersion) -> list[str]:
    from pyspark.sql import functions as F

    from kafkatui.history.replay.read import effective_min_isr
    from kafkatui.history.replay.stages import class_expression

    rows = [
        (i, leader, list(isr), list(reps), m, version.capped, leader >= 0 and leader not in LIVE)
        for i, (leader, reps, isr, m) in enumerate(CASES)
    ]
    df = spark.createDataFrame(
        rows, "i int, leader int, isr array<int>, replicas array<int>, cfg int, capped boolean, offline boolean"
    )
    df = (
        df.withColumn("min_isr", effective_min_isr(F.col("cfg"), F.size("replicas"), F.col("capped")))
        .withColumn("rset", F.lit(None).cast("array<int>"))
        .withColumn("unknown", F.lit(False))
    )
    got = {r["i"]: r["class"] for r in df.select("i", class_expression().alias("class")).collect()}
    return [got[i] for i in range(len(CASES))]


@pytest.mark.parametrize("version", [V39, V28, rules.UNKNOWN], ids=["3.9", "2.8", "unknown"])
def test_assess_recorder_and_spark_agree(spark: Any, version: rules.KafkaVersion) -> None:
    a, r, s = _assess(version), _recorder(version), _spark(spark, version)
    for case, x, y, z in zip(CASES, a, r, s, strict=True):
        assert x == y == z, f"{case} under {version.label}: assess {x}, recorder {y}, spark {z}"
    # the grid reaches every class, and the version changes some answers
    assert set(a) == set(rules.CLASS_NAMES)


def test_the_rule_differs_between_lines() -> None:
    old, new = _assess(V28), _assess(V39)
    changed = [c for c, x, y in zip(CASES, old, new, strict=True) if x != y]
    assert changed and all(c[3] > len(c[1]) for c in changed)  # only min ISR above RF differs
