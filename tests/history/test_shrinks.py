"""ISR shrinks from recorded history feed the isr-flapping finding in `kafkatui check --history`."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from kafkatui.check_cmd import history_shrinks
from kafkatui.history.record.recorder import Recorder
from kafkatui.history.record.shrinks import shrink_counts
from kafkatui.model.findings import findings
from kafkatui.model.health import assess
from kafkatui.model.snapshot import ClusterSnapshot
from tests.model.builders import snap, topic

T0 = 1_764_000_000.0  # 2025-11-24 16:00 UTC


def at(isr: list[int], ts: float) -> ClusterSnapshot:
    s = snap(
        topic("orders", [(1, [1, 2, 3], isr), (2, [2, 3, 1], isr[::-1] if 2 in isr else isr)], min_insync_replicas="2")
    )
    return dataclasses.replace(s, taken_at=ts)


def record_flapping(directory: Path, flaps: int) -> float:
    """Broker 3 leaves every ISR and comes back `flaps` times, a minute apart; returns the last time."""
    rec = Recorder(directory)
    ts = T0
    rec.record(at([1, 2, 3], ts))
    for _ in range(flaps):
        ts += 30
        rec.record(at([1, 2], ts))
        ts += 30
        rec.record(at([1, 2, 3], ts))
    rec.close(ts)
    return ts


def test_recorded_shrinks_count_one_episode_per_broker_and_time(tmp_path: Path) -> None:
    now = record_flapping(tmp_path, 4)
    assert shrink_counts(tmp_path, "test", now) == {3: 4}  # two partitions per shrink: one episode each
    assert shrink_counts(tmp_path, "test", now, window_s=70) == {3: 1}  # only the last shrink, 30 s before the end
    assert shrink_counts(tmp_path, "other-cluster", now) is None
    assert shrink_counts(tmp_path / "missing", "test", now) is None


def test_check_with_history_raises_isr_flapping_and_says_what_it_read(tmp_path: Path) -> None:
    now = record_flapping(tmp_path, 4)
    s = dataclasses.replace(at([1, 2, 3], now), taken_at=now)
    counts, note = history_shrinks(argparse.Namespace(history=str(tmp_path)), s)
    assert counts == {3: 4} and "4 shrink(s) in the last hour" in note
    (f,) = [f for f in findings(assess(s), s, shrink_counts=counts) if f.id == "isr-flapping"]
    assert f.brokers == (3,) and "4 ISR shrinks" in f.title
    counts, note = history_shrinks(argparse.Namespace(history=None), s)
    assert counts is None and "--history DIR" in note and "dashboard" in note


def test_recorded_crashes_of_a_broker_are_not_flapping(tmp_path: Path) -> None:
    """Issue 26: `check --history` called a crashed broker "6 ISR shrinks ... (intermittent)". Broker 3
    leaves the ISRs as it leaves the metadata (a crash), or 10 s before (a controlled shutdown), four times."""
    rec = Recorder(tmp_path)
    ts = T0
    up = at([1, 2, 3], ts)
    rec.record(up)
    for i in range(4):
        ts += 60
        if i % 2:
            rec.record(dataclasses.replace(at([1, 2], ts), brokers=up.brokers[:2]))
        else:
            rec.record(at([1, 2], ts))
            ts += 10
            rec.record(dataclasses.replace(at([1, 2], ts), brokers=up.brokers[:2]))
        ts += 60
        rec.record(at([1, 2, 3], ts))
    rec.close(ts)
    assert shrink_counts(tmp_path, "test", ts) == {}
    s = at([1, 2, 3], ts)
    counts, _ = history_shrinks(argparse.Namespace(history=str(tmp_path)), s)
    assert not [f for f in findings(assess(s), s, shrink_counts=counts) if f.id == "isr-flapping"]
