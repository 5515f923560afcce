"""A recording carries the min ISR Kafka acts on, and a replay classifies by it (Kafka 3.7+ cap min ISR
at RF; older brokers and old recordings keep the configured value)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.record.recorder import Recorder, read_day
from kafkatui.history.replay.inputs import parse_day
from kafkatui.history.replay.job import run_job
from kafkatui.history.replay.read import ReplayConfig
from kafkatui.model import rules
from kafkatui.model.snapshot import ClusterSnapshot
from tests.model.builders import snap, topic

DAY = "2026-11-20"
T0 = datetime(2026, 11, 20, 2, 0, 0, tzinfo=UTC).timestamp()
V39 = rules.KafkaVersion((3, 9), (3, 9), rules.ZOOKEEPER, 3)
V28 = rules.KafkaVersion((2, 8), (2, 8), rules.ZOOKEEPER, 3)


def cluster(version: rules.KafkaVersion, ts: float, isr2: tuple[int, ...] = (2, 3)) -> ClusterSnapshot:
    s = snap(
        topic("rf1-scratch", [(1, (1,), (1,))], min_insync_replicas="2"),
        topic("rf2", [(2, (2, 3), isr2)], min_insync_replicas="3"),
    )
    return dataclasses.replace(s, kafka=version, taken_at=ts)


def record(root: Path, version: rules.KafkaVersion) -> list[dict[str, Any]]:
    rec = Recorder(root)
    rec.record(cluster(version, T0))
    rec.record(cluster(version, T0 + 60, isr2=(2,)))  # rf2 loses a replica
    records, _ = read_day(root, DAY)
    return records


def test_a_3_9_recording_carries_the_capped_min_isr(tmp_path: Path) -> None:
    records = record(tmp_path, V39)
    (snapshot,) = [r for r in records if r["type"] == "snapshot"]
    assert snapshot["min_isr_capped"] is True and snapshot["kafka"] == "3.9" and snapshot["mode"] == "zookeeper"
    classes = {t: [p[5] for p in v["partitions"]] for t, v in snapshot["topics"].items()}
    assert classes == {"rf1-scratch": ["AT_MIN_ISR"], "rf2": ["AT_MIN_ISR"]}
    (change,) = [r for r in records if r["type"] == "partition"]
    assert (change["topic"], change["min_isr"], change["effective_min_isr"], change["class"]) == (
        "rf2",
        3,
        2,
        "UNDER_MIN_ISR",
    )


def test_a_2_8_recording_keeps_the_configured_min_isr(tmp_path: Path) -> None:
    records = record(tmp_path, V28)
    (snapshot,) = [r for r in records if r["type"] == "snapshot"]
    assert snapshot["min_isr_capped"] is False
    assert {t: [p[5] for p in v["partitions"]] for t, v in snapshot["topics"].items()} == {
        "rf1-scratch": ["UNDER_MIN_ISR"],
        "rf2": ["UNDER_MIN_ISR"],
    }


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("version", "rf1_class"), [(V39, "AT_MIN_ISR")])
def test_the_replay_classifies_as_the_recorder_did(
    spark: Any, tmp_path: Path, version: rules.KafkaVersion, rf1_class: str
) -> None:
    record(tmp_path / "history", version)
    result = run_job(spark, ReplayConfig(day=parse_day(DAY), out=tmp_path / "out", history=tmp_path / "history"))
    rows = spark.read.parquet(str(result.out / "intervals")).collect()
    got = {(r["topic"], r["class"]) for r in rows}
    assert ("rf1-scratch", rf1_class) in got
    # the RF-1 topic never went under min ISR on 3.9 (the raw rule would have said it was all day)
    under = {r["topic"] for r in rows if r["class"] == "UNDER_MIN_ISR"}
    assert under == {"rf2"}
