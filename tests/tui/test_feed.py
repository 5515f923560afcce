"""The dashboard feed: stale data kept with its age, backoff, changes and flapping counts."""

from __future__ import annotations

from dataclasses import replace

from kafkatui.kafka.errors import CannotConnectError
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import BACKOFF, Feed
from tests.model.builders import healthy, snap, topic


class Script:
    """A source that plays a list of snapshots and failures."""

    def __init__(self, steps: list[ClusterSnapshot | Exception]) -> None:
        self.steps = steps
        self.closed = False

    def snapshot(self) -> ClusterSnapshot:
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    def close(self) -> None:
        self.closed = True


def test_refresh_keeps_last_good_data_when_the_cluster_stops_answering() -> None:
    good = replace(snap(healthy("orders", 3)), taken_at=1000.0)
    down = CannotConnectError("cannot connect to kafka-1:9092: connection refused")
    feed = Feed(Script([good, down, down, good]), clock=lambda: 1010.0)
    s1 = feed.refresh()
    assert s1.snapshot is good and not s1.stale and s1.error is None
    s2 = feed.refresh()
    assert s2.stale and s2.snapshot is good and "connection refused" in (s2.error or "")
    assert s2.age(1010.0) == 10.0 and s2.retry_in == BACKOFF[0]
    s3 = feed.refresh()
    assert s3.failures == 2 and s3.retry_in == BACKOFF[1]
    s4 = feed.refresh()
    assert not s4.stale and s4.failures == 0


def test_changes_and_shrink_counts_feed_the_flapping_finding() -> None:
    full = snap(topic("t", [(1, [1, 2, 3], [1, 2, 3])]))
    shrunk = snap(topic("t", [(1, [1, 2, 3], [1, 2])]))
    steps: list[ClusterSnapshot | Exception] = []
    for i in range(4):
        steps += [replace(full, taken_at=100.0 + 20 * i), replace(shrunk, taken_at=110.0 + 20 * i)]
    feed = Feed(Script(steps))
    for _ in range(8):
        state = feed.refresh()
    assert state.shrink_counts == {3: 4}
    (flap,) = [f for f in state.findings if f.id == "isr-flapping"]
    assert flap.brokers == (3,)


def test_one_crash_is_one_episode_not_flapping() -> None:
    full = snap(topic("t", [(1, [1, 2, 3], [1, 2, 3])] * 1 + [(2, [2, 3, 1], [2, 3, 1])] * 1), healthy("u", 30))
    shrunk = snap(
        topic("t", [(1, [1, 2, 3], [1, 2]), (2, [2, 3, 1], [2, 1])]),
        topic("u", [(p.leader, p.replicas, tuple(r for r in p.isr if r != 3)) for p in healthy("u", 30).partitions]),
    )
    feed = Feed(Script([replace(full, taken_at=100.0), replace(shrunk, taken_at=110.0)]))
    feed.refresh()
    state = feed.refresh()
    assert state.shrink_counts == {3: 1}
    assert not any(f.id == "isr-flapping" for f in state.findings)


def test_close_closes_the_source() -> None:
    src = Script([])
    Feed(src).close()
    assert src.closed


def test_the_dashboard_records_history_and_a_full_disk_does_not_stop_it(tmp_path: object) -> None:
    from pathlib import Path

    from kafkatui.history.record.recorder import Recorder, read_day

    directory = Path(str(tmp_path)) / "history"
    a = replace(snap(topic("t", [(1, [1, 2, 3], [1, 2, 3])])), taken_at=1_763_604_000.0)
    b = replace(snap(topic("t", [(1, [1, 2, 3], [1, 2])])), taken_at=1_763_604_010.0)
    down = CannotConnectError("cannot connect to kafka-1:9092: connection refused")
    feed = Feed(Script([a, down, b]), recorder=Recorder(directory), clock=lambda: 1_763_604_005.0)
    for _ in range(3):
        feed.refresh()
    records, _ = read_day(directory, "2025-11-20")
    assert [r["type"] for r in records][0] == "snapshot"
    assert "gap" in [r["type"] for r in records]
    assert any(r["type"] == "partition" and r["isr"] == [1, 2] for r in records)

    blocker = Path(str(tmp_path)) / "file"
    blocker.write_text("x")
    feed = Feed(Script([a]), recorder=Recorder(blocker / "history"))
    state = feed.refresh()
    assert state.snapshot is a and feed.record_error is not None


def test_backoff_never_exceeds_max_backoff() -> None:
    """The dashboard caps the wait between failing attempts (at two refreshes) so a returning cluster shows soon."""
    good = replace(snap(healthy("orders", 3)), taken_at=1000.0)
    down = CannotConnectError("cannot connect to kafka-1:9092: connection refused")
    feed = Feed(Script([good] + [down] * 6), max_backoff=4.0)
    feed.refresh()
    assert [feed.refresh().retry_in for _ in range(6)] == [1.0, 2.0, 4.0, 4.0, 4.0, 4.0]


def test_a_broker_that_keeps_going_down_is_not_flapping() -> None:
    """Issue 26: a broker crashed and restarted four times in the hour (out of the ISRs as it left the
    metadata, or moments before, as a controlled shutdown does) is down, not intermittent."""
    full = snap(topic("t", [(1, [1, 2, 3], [1, 2, 3])]), brokers=(1, 2, 3))
    leaving = snap(topic("t", [(1, [1, 2, 3], [1, 2])]), brokers=(1, 2, 3))
    gone = snap(topic("t", [(1, [1, 2, 3], [1, 2])]), brokers=(1, 2))
    steps: list[ClusterSnapshot | Exception] = []
    for i in range(4):
        t = 100.0 + 120 * i
        steps += [replace(full, taken_at=t)]
        steps += [replace(gone, taken_at=t + 20)] if i % 2 else [replace(leaving, taken_at=t + 20)]
        steps += [replace(gone, taken_at=t + 30)]
    steps += [replace(full, taken_at=700.0)]
    feed = Feed(Script(steps))
    for _ in range(len(steps)):
        state = feed.refresh()
    assert state.shrink_counts == {}
    assert not any(f.id == "isr-flapping" for f in state.findings)
    # the same shrinks with broker 3 staying in the metadata are flapping
    steps = [replace(full if i % 2 == 0 else leaving, taken_at=100.0 + 60 * i) for i in range(9)]
    feed = Feed(Script(steps))
    for _ in range(len(steps)):
        state = feed.refresh()
    assert state.shrink_counts == {3: 4}
    assert any(f.id == "isr-flapping" for f in state.findings)
