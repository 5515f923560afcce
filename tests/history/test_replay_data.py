"""The replay loader: the cluster as it was at the end of any minute, from a hand-written OUT directory."""

from __future__ import annotations

import gzip
import json
import random
import time
from pathlib import Path

import pytest

from kafkatui.history.view.data import INFERRED, MINUTES, RECORDED, ReplayData, ReplayDataError
from kafkatui.history.view.frames import FrameParser
from kafkatui.model.health import Health
from tests.history.replay_fixture import DAY_START_MS, DayBuilder, at, incident_day


def minute(hm: str) -> int:
    h, m = hm.split(":")
    return int(h) * 60 + int(m)


def frame_lines(out: Path) -> int:
    return sum(len(gzip.decompress(p.read_bytes()).splitlines()) for p in (out / "frames" / "partitions").iterdir())


@pytest.fixture
def day(tmp_path: Path) -> ReplayData:
    return ReplayData.load(incident_day(tmp_path / "out"))


def classes(data: ReplayData, m: int) -> dict[str, Health]:
    snap, report = data.at(m)
    return {f"{t}-{p.partition}": report.health(t, p.partition) for t in snap.topics for p in snap.topics[t].partitions}


def test_state_at_the_end_of_each_minute(day: ReplayData) -> None:
    assert set(classes(day, minute("02:12")).values()) == {Health.HEALTHY}
    at_0213 = classes(day, minute("02:13"))
    assert at_0213["orders-0"] == Health.UNDER_MIN_ISR  # broker 2 left at 02:13:44.120
    assert at_0213["orders-1"] == Health.AT_MIN_ISR and at_0213["orders-2"] == Health.AT_MIN_ISR
    snap, report = day.at(minute("02:13"))
    assert report.counts.brokers_absent == (3,)
    assert report.partition("orders", 1).leader == 1 and report.partition("orders", 0).isr == (1,)
    # back in at 02:19:10.500: the minute's end shows it at minISR, though the timeline cell is under minISR
    assert classes(day, minute("02:19"))["orders-0"] == Health.AT_MIN_ISR
    assert day.summary.timeline[minute("02:19")].worst == Health.UNDER_MIN_ISR
    assert classes(day, minute("02:35"))["orders-1"] == Health.NON_PREFERRED_LEADER
    assert classes(day, minute("02:40"))["orders-1"] == Health.HEALTHY
    assert classes(day, minute("14:06"))["payments-0"] == Health.OFFLINE
    assert day.at(minute("14:06"))[1].counts.brokers_absent == (1,)
    assert classes(day, minute("14:10"))["payments-0"] == Health.UNDER_MIN_ISR
    assert classes(day, 1439)["payments-0"] == Health.NON_PREFERRED_LEADER


def test_assess_gives_the_classes_the_job_recorded_at_every_minute(day: ReplayData) -> None:
    for m in range(0, MINUTES, 1):
        for name, health in classes(day, m).items():
            topic, _, p = name.rpartition("-")
            assert day.recorded_class(topic, int(p), m) == health, (m, name)


def test_moving_backwards_and_jumping_give_the_same_state_as_a_fresh_load(day: ReplayData, tmp_path: Path) -> None:
    fresh = ReplayData.load(day.directory)
    expected = {m: fresh.at(m)[0].topics for m in (0, 133, 134, 139, 150, 845, 1439)}
    for m in (1439, 845, 139, 134, 133, 0, 150, 134):
        assert day.at(m)[0].topics == expected[m], m


def test_unknown_replicas_and_min_isr_follow_the_documented_rules(day: ReplayData) -> None:
    snap, report = day.at(0)
    logs = snap.topics["logs"]
    assert logs.partitions[0].replicas == (2, 1)  # the union of what the leader and ISRs showed that day
    assert logs.configs["min.insync.replicas"].value == "1"  # its at-minISR frames had an ISR of 1
    assert logs.configs["min.insync.replicas"].source == INFERRED
    assert snap.topics["orders"].configs["min.insync.replicas"].value == "2"
    assert snap.topics["orders"].configs["min.insync.replicas"].source == RECORDED


def test_min_isr_is_inferred_from_an_at_min_isr_frame(tmp_path: Path) -> None:
    b = DayBuilder()
    b.partition("00:00:00", "t", 0, 1, [1, 2, 3], None, None, "HEALTHY")
    b.partition("01:00:00", "t", 0, 1, [1, 2], None, None, "AT_MIN_ISR")
    b.partition("01:05:00", "t", 0, 1, [1], None, None, "UNDER_MIN_ISR")
    data = ReplayData.load(b.write(tmp_path / "out"))
    assert data.at(minute("01:03"))[0].topics["t"].configs["min.insync.replicas"].value == "2"
    assert classes(data, minute("01:03"))["t-0"] == Health.AT_MIN_ISR
    assert classes(data, minute("01:06"))["t-0"] == Health.UNDER_MIN_ISR


def test_summary_incidents_gaps_and_history(day: ReplayData) -> None:
    s = day.summary
    assert s.day == "2026-11-20" and s.day_start_ms == DAY_START_MS and len(s.timeline) == MINUTES
    first = s.incidents[0]
    assert first.duration_s == 326.38 and first.first_broker_out == 3 and first.topics == ("orders",)
    assert day.minute_of(first.start_ms) == minute("02:13")
    assert day.gap_at(minute("20:05")) is not None and day.gap_at(minute("20:10")) is None
    assert s.timeline[minute("20:05")].gap
    hist = day.history("orders", 0)
    assert [c.ts_ms for c in hist] == [
        at("00:00:00"),
        at("02:13:30"),
        at("02:13:44.120"),
        at("02:19:10.500"),
        at("02:31:00"),
        at("14:05:00"),
        at("14:20:00"),
    ]
    assert [c.health for c in hist] == [
        Health.HEALTHY,
        Health.AT_MIN_ISR,
        Health.UNDER_MIN_ISR,
        Health.AT_MIN_ISR,
        Health.HEALTHY,
        Health.AT_MIN_ISR,
        Health.NON_PREFERRED_LEADER,
    ]
    assert day.history("nope", 0) == []


def test_a_truncated_part_file_keeps_its_complete_lines_and_counts_the_torn_one(tmp_path: Path) -> None:
    out = incident_day(tmp_path / "out")
    total = frame_lines(out)
    part = sorted((out / "frames" / "partitions").iterdir())[1]
    with gzip.open(part, "rb") as fh:
        lines = fh.read().splitlines()
    raw = part.read_bytes()
    part.write_bytes(raw[: len(raw) * 2 // 3])
    data = ReplayData.load(out)
    assert data.stats.torn == 1
    assert 0 < data.frames < total and data.frames >= total - len(lines)
    data.at(minute("02:13"))  # still replays


def test_garbled_frame_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    out = incident_day(tmp_path / "out")
    total = frame_lines(out)
    with gzip.open(out / "frames" / "partitions" / "part-00009-x.json.gz", "wt") as fh:
        fh.write('{"ts_ms": "soon", "topic": "x"}\nnot json\n')
    data = ReplayData.load(out)
    assert data.stats.garbled == 2 and data.frames == total


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda out: None, "no such directory"),
        (lambda out: out.mkdir(), "no summary.json"),
        (lambda out: (out.mkdir(), (out / "summary.json").write_text('{"schema": "kafk')), "not valid JSON"),
        (
            lambda out: (out.mkdir(), (out / "summary.json").write_text('{"schema": "kafkatui.replay/2", "day": "x"}')),
            "newer than this kafkatui reads",
        ),
        (
            lambda out: (
                out.mkdir(),
                (out / "summary.json").write_text('{"schema": "kafkatui.replay/1", "day": "20 Nov"}'),
            ),
            "malformed",
        ),
        (lambda out: (out.mkdir(), (out / "summary.json").write_text("[1, 2]")), "not a JSON object"),
    ],
)
def test_unusable_directories_give_one_line_errors(tmp_path: Path, setup: object, message: str) -> None:
    out = tmp_path / "out"
    setup(out)  # type: ignore[operator]
    with pytest.raises(ReplayDataError) as err:
        ReplayData.load(out)
    assert message in str(err.value) and "\n" not in str(err.value) and str(out) in str(err.value)
    assert err.value.exit_code == 3


def test_moving_a_minute_on_a_big_day_is_incremental(tmp_path: Path) -> None:
    """10,000 partitions, 60,000 frames: a step rebuilds only the topics that changed during the minute."""
    out = tmp_path / "big"
    rng = random.Random(3)
    n_topics, per_topic = 500, 20
    frames = []
    for t in range(n_topics):
        for p in range(per_topic):
            frames.append(
                {
                    "ts_ms": DAY_START_MS,
                    "topic": f"t{t}",
                    "partition": p,
                    "leader": 1,
                    "isr": [1, 2, 3],
                    "replicas": [1, 2, 3],
                    "min_isr": 2,
                    "class": "HEALTHY",
                }
            )
    for _ in range(50_000):
        isr = rng.choice(([1, 2, 3], [1, 2], [1]))
        frames.append(
            {
                "ts_ms": DAY_START_MS + rng.randrange(86_400_000),
                "topic": f"t{rng.randrange(n_topics)}",
                "partition": rng.randrange(per_topic),
                "leader": 1,
                "isr": isr,
                "replicas": [1, 2, 3],
                "min_isr": 2,
                "class": "HEALTHY",
            }
        )
    (out / "frames" / "partitions").mkdir(parents=True)
    with gzip.open(out / "frames" / "partitions" / "part-00000.json.gz", "wt", compresslevel=1) as fh:
        fh.writelines(json.dumps(f) + "\n" for f in frames)
    timeline = [{"minute": m, "worst": "HEALTHY"} for m in range(MINUTES)]
    (out / "summary.json").write_text(
        json.dumps({"schema": "kafkatui.replay/1", "day": "2026-11-20", "timeline": timeline})
    )
    data = ReplayData.load(out)

    def changed_during(m: int) -> set[str]:
        lo, hi = DAY_START_MS + m * 60_000, DAY_START_MS + (m + 1) * 60_000
        return {f["topic"] for f in frames if lo <= f["ts_ms"] < hi}

    before = data.at(600)[0].topics
    t0 = time.perf_counter()
    after = data.at(601)[0].topics
    step = time.perf_counter() - t0
    same = {name for name in after if after[name] is before[name]}
    assert same == set(after) - changed_during(601) and len(same) > 400  # the others kept their TopicInfo
    back = data.at(600)[0].topics
    assert {n for n in back if back[n] is after[n]} == set(back) - changed_during(601)
    assert back == before
    t0 = time.perf_counter()
    assert data.at(1439)[0].partition_count() == data.at(0)[0].partition_count() == 10_000
    jumps = time.perf_counter() - t0
    assert step < 1.0 and jumps < 3.0, (step, jumps)  # about 0.03 s and 0.2 s on an idle 2-core machine


def test_loading_reports_how_many_frames_it_has_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`kafkatui --replay` shows a count while a big day loads (every 262,144 frames; every 2 here)."""
    from kafkatui.history.view import data as replay_data

    out = incident_day(tmp_path)
    monkeypatch.setattr(replay_data, "_PROGRESS_MASK", 1)
    seen: list[int] = []
    data = ReplayData.load(out, seen.append)
    assert seen == list(range(2, data.frames + 1, 2)) and data.frames == frame_lines(out) > 2


def test_the_jobs_own_layout_is_read_without_json_and_gives_the_same_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames as Spark writes them take a regex fast path (twice as fast on a 5M-frame day); any other
    JSON layout is decoded. Both give the same cluster at every minute."""
    spaced = ReplayData.load(incident_day(tmp_path / "spaced"))
    decoded: list[bytes] = []
    real = FrameParser._decoded

    def spy(self: FrameParser, line: bytes) -> tuple[int, int, int, int, int, int, int]:
        decoded.append(line)
        return real(self, line)

    monkeypatch.setattr(FrameParser, "_decoded", spy)
    compact = ReplayData.load(incident_day(tmp_path / "compact", compact=True))
    assert decoded == [] and compact.frames == spaced.frames > 0
    for m in range(0, MINUTES, 7):
        a, b = spaced.at(m)[0], compact.at(m)[0]
        assert a.topics == b.topics and a.brokers == b.brokers, m


def test_one_hour_read_alone_gives_the_whole_days_state_for_its_minutes(tmp_path: Path) -> None:
    """The Replay screen opens on `load_hour` (every partition's state at H:00 plus hour H's frames)."""
    out = incident_day(tmp_path / "out", compact=True, by_hour=True)
    whole = ReplayData.load(out)
    assert whole.frames == ReplayData.load(incident_day(tmp_path / "flat", compact=True)).frames
    for hour in (0, 2, 9, 14, 20, 23):
        view = ReplayData.load_hour(out, hour)
        assert view is not None and view.window == (hour * 60, hour * 60 + 59)
        assert view.covers(hour * 60 + 30) and not view.covers((hour * 60 + 60) % 1440)
        for minute in range(hour * 60, hour * 60 + 60, 7):
            (got, _), (want, _) = view.at(minute), whole.at(minute)
            assert got.brokers == want.brokers, minute
            for name in ("orders", "payments"):  # recorded topics: the same in every detail
                assert got.topics[name] == want.topics[name], (minute, name)
            # from broker logs only, replicas and min ISR are inferred from the whole day's frames: until the
            # day is read, the view infers from what it has; leaders and ISRs are the same
            assert [(p.leader, p.isr) for p in got.topics["logs"].partitions] == [
                (p.leader, p.isr) for p in want.topics["logs"].partitions
            ], minute
    assert ReplayData.load_hour(tmp_path / "flat", 2) is None  # an older job's output: the whole day it is


def test_a_time_sorted_hour_is_read_up_to_the_minute_shown(tmp_path: Path) -> None:
    """`load_hour(out, H, until)` on the job's time-sorted layout reads hour H only up to the end of
    minute `until` (fewer frames) and gives the whole day's state there; an hour laid out without
    ``frames/layout.json`` (layout 1) is read whole."""
    out = incident_day(tmp_path / "out", compact=True, by_hour=True, time_sorted=True)
    whole = ReplayData.load(out)
    hour = ReplayData.load_hour(out, 14)
    assert hour is not None and hour.window == (840, 899)
    for minute in (840, 844, 845, 847, 855, 898):
        view = ReplayData.load_hour(out, 14, minute)
        assert view is not None and view.window == (840, minute) and view.covers(minute)
        assert not view.covers(minute + 1)
        (got, _), (want, _) = view.at(minute), whole.at(minute)
        assert (got.topics["orders"], got.topics["payments"]) == (want.topics["orders"], want.topics["payments"])
        assert [(p.leader, p.isr) for p in got.topics["logs"].partitions] == [  # min ISR: inferred from the day
            (p.leader, p.isr) for p in want.topics["logs"].partitions
        ], minute
        assert got.brokers == want.brokers, minute
        assert view.stats.garbled == view.stats.torn == 0
    early = ReplayData.load_hour(out, 14, 844)
    assert early is not None and early.frames < hour.frames  # 14:04:50 and later not read for 14:04
    old = ReplayData.load_hour(incident_day(tmp_path / "layout1", compact=True, by_hour=True), 14, 844)
    assert old is not None and old.window == (840, 899) and old.frames == hour.frames


def test_a_bad_line_in_a_block_of_the_jobs_layout_is_counted_and_the_others_kept(tmp_path: Path) -> None:
    """The block parser falls back to line by line for a block with a line it cannot use: an unknown
    class and broken broker ids are garbled, their neighbours read."""
    out = incident_day(tmp_path / "out", compact=True)
    total = frame_lines(out)
    good = (
        '{"ts_ms":1795132800000,"topic":"extra","partition":%d,"leader":1,"isr":[1],"replicas":[1],'
        '"min_isr":1,"class":"HEALTHY"}'
    )
    lines = [good % 0, good.replace('"HEALTHY"', '"PURPLE"') % 1, good.replace("[1],", "[1,,2],", 1) % 2, good % 3]
    with gzip.open(out / "frames" / "partitions" / "part-00009-x.json.gz", "wt") as fh:
        fh.write("\n".join(lines) + "\n")
    data = ReplayData.load(out)
    assert data.stats.garbled == 2 and data.frames == total + 2
    assert [p.partition for p in data.at(0)[0].topics["extra"].partitions] == [0, 3]
