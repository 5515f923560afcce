"""`check`, the dashboard's feed and the Replay screen reach the same verdict on the same snapshot and
history: all three go through `kafkatui.model.evaluation.evaluate` (issue 32)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from kafkatui import check_cmd as check
from kafkatui.demo_cluster import play
from kafkatui.history.record.recorder import Recorder
from kafkatui.history.record.shrinks import shrink_counts
from kafkatui.history.view.data import ReplayData
from kafkatui.model.evaluation import Assessment
from kafkatui.model.health import Health
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.snapshot import cluster_snapshot
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.replay_drill import ReplayMoment
from tests.history.replay_fixture import DAY_START_MS, DayBuilder, incident_day
from tests.model.builders import snap, topic

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
        # the same history: the dashboard's first refresh has none; the replay has the hour before it
        assert facts(check.evaluate(snapshot, check_ns())) == facts(feed.assessment), hm
        checked = check.evaluate(snapshot, check_ns(), data.shrink_counts(h * 60 + m))
        assert facts(checked) == facts(replayed), hm
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


def flapping_times() -> list[tuple[str, list[int]]]:
    """Broker 3 leaves the ISRs at :30 and is back at :00, four times from 10:00 (never down)."""
    out: list[tuple[str, list[int]]] = [("00:00:00", [1, 2, 3])]
    for m in (0, 2, 4, 6):
        out += [(f"10:{m:02d}:30", [1, 2]), (f"10:{m + 1:02d}:00", [1, 2, 3])]
    return out


def test_the_replay_counts_the_shrinks_check_and_the_dashboard_counted(tmp_path: Path) -> None:
    """The same flapping recorded (`check --history` reads it), replayed (the Replay screen), and
    watched minute by minute (the dashboard): the same shrinks, the same isr-flapping finding."""
    day = DayBuilder()
    recorder = Recorder(tmp_path / "history")
    for b in (1, 2, 3):
        day.broker("00:00:00", b, True)
    for when, isr in flapping_times():
        for p in (0, 1):
            day.partition(when, "orders", p, 1 + p, isr, [1, 2, 3], 2)
        h, m, sec = map(int, when.split(":"))
        ts = DAY_START_MS / 1000 + h * 3600 + m * 60 + sec
        reps = [(1, [1, 2, 3], isr), (2, [2, 3, 1], isr)]
        recorder.record(replace(snap(topic("orders", reps, min_insync_replicas="2")), taken_at=ts))
    recorder.close()
    data = ReplayData.load(day.write(tmp_path / "out"))
    end = 10 * 60 + 7
    feed = Feed(Fixed(data.at(9 * 60 + 59)[0]), bootstrap=data.at(0)[0].bootstrap)
    for minute in range(9 * 60 + 59, end + 1):
        feed.source = Fixed(data.at(minute)[0])
        watched = feed.refresh().assessment
    replayed = ReplayMoment.at(data, end).assessment
    assert watched is not None and dict(replayed.shrink_counts) == {3: 4}
    (flap,) = [f for f in replayed.findings if f.id == "isr-flapping"]
    assert flap.brokers == (3,)
    recorded = shrink_counts(tmp_path / "history", "test", data.end_ms(end) / 1000)
    checked = check.evaluate(replayed.snapshot, check_ns(), recorded)
    assert facts(checked) == facts(watched) == facts(replayed)
    # an hour later the window has let them go, in the replay as on the dashboard
    assert ReplayMoment.at(data, end + 60).assessment.shrink_counts == {}


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
