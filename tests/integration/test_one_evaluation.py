"""`check`, the dashboard's feed and the Replay screen reach the same verdict on the same snapshot and
history: all three go through `kafkatui.model.evaluation.evaluate` (issue 32)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kafkatui import check
from kafkatui.demo_cluster import play
from kafkatui.history.recorder import Recorder
from kafkatui.history.replay_data import ReplayData
from kafkatui.model.evaluation import Assessment
from kafkatui.model.health import Health
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.snapshot import cluster_snapshot
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.replayed import ReplayMoment
from tests.history.replay_fixture import incident_day

T0_MS = 1_764_000_000_000  # 2025-11-24 16:00 UTC: the simulated cluster's clock starts here


class Fixed:
    """A ClusterSource answering with one snapshot."""

    def __init__(self, snapshot: ClusterSnapshot) -> None:
        self.snap = snapshot

    def snapshot(self) -> ClusterSnapshot:
        return self.snap

    def close(self) -> None:
        pass


def facts(a: Assessment) -> dict[str, Any]:
    """What a user sees of an assessment, comparable with ==."""
    r = a.report
    assert r.snapshot is a.snapshot
    return {
        "verdict": a.verdict,
        "bootstrap": a.bootstrap,
        "shrinks": dict(a.shrink_counts),
        "counts": r.counts,
        "topics": r.topics,
        "brokers": r.brokers,
        "classes": {t: bytes(r.class_codes(t)) for t in sorted(r.topics)},
        "findings": [f.to_dict() for f in a.findings],
        "what_if": None if a.what_if is None else (sorted(a.what_if.down), a.what_if.summary()),
    }


def check_ns(history: Path | None = None, what_if_down: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(topic=None, what_if_down=what_if_down, history=None if history is None else str(history))


def test_check_the_feed_and_the_replay_agree_on_every_replayed_minute(tmp_path: Path) -> None:
    data = ReplayData.load(incident_day(tmp_path / "out"))
    verdicts: set[str] = set()
    worst: set[Health] = set()
    for hm in ("02:12", "02:13", "02:19", "02:35", "14:05", "14:06", "14:10", "23:59"):
        h, m = map(int, hm.split(":"))
        moment = ReplayMoment.at(data, h * 60 + m)
        replayed = moment.assessment
        snapshot = moment.snapshot
        feed = Feed(Fixed(snapshot), bootstrap=snapshot.bootstrap).refresh()
        assert feed.assessment is not None and feed.findings == feed.assessment.findings
        checked = check.evaluate(snapshot, check_ns())
        assert facts(checked) == facts(feed.assessment) == facts(replayed), hm
        verdicts.add(replayed.verdict)
        worst.add(replayed.report.counts.worst)
    # the minutes cover every verdict and the worst classes: the comparison is not of empty reports
    assert {"critical", "warning"} <= verdicts and {Health.OFFLINE, Health.UNDER_MIN_ISR, Health.AT_MIN_ISR} <= worst


def test_check_and_the_feed_agree_with_the_same_isr_history(tmp_path: Path) -> None:
    """The isr-flapping scenario watched by the dashboard (which records its history); `check --history`
    then reads that history and must count the same shrinks and say the same things."""
    player = play("isr-flapping", VirtualClock(manual=True, start_ms=T0_MS))
    cluster = player.cluster
    recorder = Recorder(tmp_path)
    feed = Feed(Fixed(cluster_snapshot(cluster, cluster.now_ms / 1000)), recorder=recorder)
    for _ in range(int(4 * 60 / 2)):  # 4 minutes, a refresh every 2 s
        player.advance(2000)
        feed.source = Fixed(cluster_snapshot(cluster, cluster.now_ms / 1000))
        state = feed.refresh()
    watched = state.assessment
    assert watched is not None and watched.shrink_counts.get(3, 0) >= 4
    assert "isr-flapping" in {f.id for f in watched.findings}
    shrinks, _ = check.history_shrinks(check_ns(tmp_path), watched.snapshot)
    checked = check.evaluate(watched.snapshot, check_ns(tmp_path), shrinks)
    assert facts(checked) == facts(watched)


def test_checks_what_if_is_part_of_its_assessment() -> None:
    player = play("incident", VirtualClock(manual=True, start_ms=T0_MS))
    player.advance(6 * 60_000)
    snapshot = cluster_snapshot(player.cluster, player.cluster.now_ms / 1000)
    plain = check.evaluate(snapshot, check_ns())
    assert plain.what_if is None
    for down in ("2", "1,3"):
        checked = check.evaluate(snapshot, check_ns(what_if_down=down))
        assert checked.what_if is not None and checked.what_if.down == {int(b) for b in down.split(",")}
        assert facts(plain) | {"what_if": None} == facts(checked) | {"what_if": None}
