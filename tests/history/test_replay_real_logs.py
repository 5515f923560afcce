"""`kafkatui replay --broker-logs` on real Kafka 4.1.1 / 3.9.1 logs (tests/history/fixtures/real-kafka-*/)
gives the class intervals `kafkatui record` saw in the same run, within one refresh, OFFLINE and the
unclean election included; and an incident's first broker out comes from the episode that led to it.

One replay job per Kafka line on the shared local SparkSession (a few seconds each)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.logparse import parse_logs
from kafkatui.history.replay.fs import HadoopFs
from kafkatui.history.replay.inputs import log_rows
from kafkatui.history.replay.job import ReplayConfig, ReplayResult, run_job
from kafkatui.history.replay.read import read_logs
from kafkatui.history.view.data import ReplayData
from kafkatui.history.view.files import FrameStats, frame_files, records
from tests.history import real_logs as rl
from tests.lab.broker_log_fixtures import MIN_ISR

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module", params=rl.LINES)
def replayed(
    request: pytest.FixtureRequest, spark: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, ReplayResult]:
    line = str(request.param)
    day = datetime.fromtimestamp(rl.run_info(line)["timeline"][0]["ts"], UTC).date()
    cfg = ReplayConfig(
        day=day, out=tmp_path_factory.mktemp(f"replay{line}") / "out", broker_logs=[rl.log_glob(line)], min_isr=2
    )  # the lab brokers' min.insync.replicas
    return line, run_job(spark, cfg)


def intervals(spark: Any, result: ReplayResult, topic: str) -> list[tuple[str, int, int]]:
    rows = (
        spark.read.parquet(str(Path(result.out) / "intervals"))
        .where(f"topic = '{topic}' and partition = 0")
        .orderBy("start_ms")
        .collect()
    )
    return [(r["class"], r["start_ms"], r["end_ms"]) for r in rows]


def test_intervals_match_the_recording(spark: Any, replayed: tuple[str, ReplayResult]) -> None:
    line, result = replayed
    assert result.summary["inputs"]["unparsed_log_lines"] == 0
    recs = rl.records(line)
    st = rl.stamps(recs)
    for topic in rl.TOPICS:
        recorded = rl.recorded_class_steps(recs, topic, MIN_ISR[topic])
        logged = rl.dedupe(
            [rl.Step(start, cls) for cls, start, _ in intervals(spark, result, topic) if start <= st[-1]]
        )
        assert rl.match(recorded, logged, st, st[-1]) == [], (topic, recorded, logged)
    classes = {cls for t in rl.TOPICS for cls, _, _ in intervals(spark, result, t)}
    assert {"OFFLINE", "AT_MIN_ISR", "HEALTHY"} <= classes


def test_offline_ends_with_the_unclean_election(spark: Any, replayed: tuple[str, ReplayResult]) -> None:
    line, result = replayed
    info = rl.run_info(line)
    elect_ms = next(t["ts"] for t in info["timeline"] if t["what"].startswith("elect exit 0")) * 1000
    off = [iv for iv in intervals(spark, result, "unclean") if iv[0] == "OFFLINE" and iv[1] < elect_ms]
    assert off, "unclean-0 never OFFLINE"
    cls, start, end = off[-1]
    assert 0 < elect_ms - end < 10_000  # elected within the command's run (it verifies, then returns)
    crash = next(t["ts"] for t in info["timeline"] if t["what"].startswith("crash b") and "unclean" in t["what"])
    assert 0 < start - crash * 1000 < 15_000  # the leader's fence, broker.session.timeout.ms after the crash


def test_incidents_and_their_first_broker_out(replayed: tuple[str, ReplayResult]) -> None:
    line, result = replayed
    info = rl.run_info(line)
    incidents = result.summary["incidents"]
    hang2 = next(t for t in info["timeline"] if t["what"].startswith("hang b") and "unclean" in t["what"])
    follower = int(hang2["what"].split()[1][1:])
    # the unclean-0 outage: its follower was hung first (shrunk out), then its leader crashed
    inc = next(i for i in incidents if "unclean" in i["topics"])
    assert inc["peak_offline"] >= 1
    assert inc["first_broker_out"] == follower and inc["first_out_ms"] >= hang2["ts"] * 1000
    # solo-0 (only replica on b1) went offline when b1, crashed, was fenced: b1 is its first out
    crash = next(t["ts"] for t in info["timeline"] if t["what"] == "crash b1") * 1000
    solo = next(i for i in incidents if i["topics"] == ["solo"])
    assert solo["first_broker_out"] == 1 and 0 < solo["first_out_ms"] - crash < 15_000


def test_a_crashed_broker_is_down_from_its_fence_to_its_unfence(replayed: tuple[str, ReplayResult]) -> None:
    """From broker logs alone, b1 is down in frames/brokers, and in the Replay screen's broker list, until
    the controller first registers it (the lab starting), and again from the controller fencing it after
    the fixture crashed it (its session timed out) until it was unfenced after the restart, when the
    recorder of the same run saw it come back."""
    line, result = replayed
    info = rl.run_info(line)
    started = round(info["timeline"][0]["ts"] * 1000)  # "lab ... started in N s"
    crash = round(next(t["ts"] for t in info["timeline"] if t["what"] == "crash b1") * 1000)
    restart = round(next(t["ts"] for t in info["timeline"] if t["what"] == "restart b1") * 1000)
    out = Path(result.out)
    d0 = result.summary["day_start_ms"]
    b1 = sorted((r["ts_ms"], r["up"]) for r in records(frame_files(out, "brokers"), FrameStats()) if r["broker"] == 1)
    down = [(ts, b1[i + 1][0] if i + 1 < len(b1) else None) for i, (ts, up) in enumerate(b1) if not up]
    assert down[0][0] == d0 and down[0][1] is not None  # not yet registered: the lab was starting
    assert started - info["lab_start_s"] * 1000 < down[0][1] <= started
    after = [(fenced, unfenced) for fenced, unfenced in down if fenced > crash]
    fenced, unfenced = after[0]
    assert 0 < fenced - crash < 15_000  # broker.session.timeout.ms after the crash
    assert unfenced is not None and restart < unfenced < restart + 60_000
    back = next(
        round(r["ts"] * 1000)
        for r in rl.records(line)
        if r["type"] == "broker" and r["broker"] == 1 and r["op"] == "up" and r["ts"] * 1000 > crash
    )
    assert abs(back - unfenced) <= rl.PROPAGATION_MS
    data = ReplayData.load(out)
    assert data.brokers_up(crash)[1] is True
    assert data.brokers_up(fenced + 1)[1] is False and data.brokers_up(unfenced + 1)[1] is True
    minute = data.minute_of(fenced)  # the Replay screen's minute holding the fence, when it ends fenced
    if data.end_ms(minute) < unfenced:
        assert 1 not in {b.id for b in data.at(minute)[0].brokers}


def _line(hms: str, text: str) -> str:
    return f"[2026-11-20 {hms},000] INFO {text}\n"


def test_first_out_is_the_start_of_the_episode_however_long_before(spark: Any, tmp_path: Path) -> None:
    """t-0 loses broker 3 at 10:00:10 (AT_MIN_ISR, no incident) and broker 2 at 10:05:00 (under min
    ISR): the incident's first broker out is 3, five minutes before it; an episode of u-0 that
    ended at 09:01 is not part of it. s-0's only replica, its leader, is fenced at 11:00: OFFLINE,
    first out its lost leader."""
    p = "(kafka.cluster.Partition)"
    sc = "(state.change.logger)"
    logs = tmp_path / "b1"
    logs.mkdir()
    (logs / "server.log").write_text(
        "".join(
            [
                _line(
                    "09:00:00",
                    f"[Partition u-0 broker=1] Shrinking ISR from 1,2,3 to 1,3. Leader: (highWatermark: 5, "
                    f"endOffset: 9). Out of sync replicas: (brokerId: 2, endOffset: 5, lastCaughtUpTimeMs: 1). {p}",
                ),
                _line("09:01:00", f"[Partition u-0 broker=1] ISR updated to 1,3,2  and version updated to 2 {p}"),
                _line(
                    "10:00:10",
                    f"[Partition t-0 broker=1] Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 5, "
                    f"endOffset: 9). Out of sync replicas: (brokerId: 3, endOffset: 5, lastCaughtUpTimeMs: 1). {p}",
                ),
                _line(
                    "10:05:00",
                    f"[Partition t-0 broker=1] Shrinking ISR from 1,2 to 1. Leader: (highWatermark: 5, "
                    f"endOffset: 9). Out of sync replicas: (brokerId: 2, endOffset: 5, lastCaughtUpTimeMs: 1). {p}",
                ),
                _line(
                    "10:05:00",
                    f"[Partition t-0 broker=1] ISR updated to 1 (under-min-isr) and version updated to 3 {p}",
                ),
                _line("10:06:00", f"[Partition t-0 broker=1] ISR updated to 1,2,3  and version updated to 4 {p}"),
            ]
        )
    )
    (logs / "state-change.log").write_text(
        "".join(
            [
                _line(
                    "08:00:00",
                    f"[Broker id=1] Leader {t}-0 with topic id Some(x) starts at leader epoch 0 from offset 0 with "
                    f"partition epoch 0, high watermark 0, ISR [1,2,3], adding replicas [] and removing replicas "
                    f"[] . Previous leader None and previous leader epoch was -1. {sc}",
                )
                for t in ("t", "u")
            ]
            + [
                _line(
                    "08:00:00",
                    f"[Broker id=2] Leader s-0 with topic id Some(y) starts at leader epoch 0 from offset 0 with "
                    f"partition epoch 0, high watermark 0, ISR [2], adding replicas [] and removing replicas [] . "
                    f"Previous leader None and previous leader epoch was -1. {sc}",
                )
            ]
        )
    )
    (tmp_path / "controller.log").write_text(
        _line(
            "11:00:00",
            "[QuorumController id=0] Replayed BrokerRegistrationChangeRecord modifying the registration for "
            "broker 2: BrokerRegistrationChangeRecord(brokerId=2, brokerEpoch=9, fenced=1, inControlledShutdown=0, "
            "logDirs=[]) (org.apache.kafka.controller.ClusterControlManager)",
        )
    )
    cfg = ReplayConfig(
        day=datetime(2026, 11, 20, tzinfo=UTC).date(),
        out=tmp_path / "out",
        broker_logs=[str(logs / "*.log"), str(tmp_path / "controller.log")],
        min_isr=2,
    )
    inc = run_job(spark, cfg).summary["incidents"]
    d0 = int(datetime(2026, 11, 20, tzinfo=UTC).timestamp() * 1000)
    assert [(i["topics"], i["first_broker_out"], (i["first_out_ms"] - d0) / 1000, i["peak_offline"]) for i in inc] == [
        (["t"], 3, 36010.0, 0),
        (["s"], 2, 39600.0, 1),
    ]


def _stale_logs(root: Path) -> str:
    """p-0: broker 1 leads, is replaced by 2 (a leader line) and, woken from a pause, still logs a
    shrink; then 2's only fellow ISR member 1 and 2 itself are fenced: OFFLINE at 2's fence."""
    p, sc = "(kafka.cluster.Partition)", "(state.change.logger)"
    reg = (
        "[QuorumController id=0] Replayed BrokerRegistrationChangeRecord modifying the registration for broker {b}: "
        "BrokerRegistrationChangeRecord(brokerId={b}, brokerEpoch=9, fenced={f}, inControlledShutdown=0, "
        "logDirs=[]) (org.apache.kafka.controller.ClusterControlManager)"
    )
    root.mkdir()
    (root / "server.log").write_text(
        _line(
            "10:00:05",
            (
                f"[Partition p-0 broker=1] Shrinking ISR from 1,2 to 1. Leader: (highWatermark: 5, endOffset: 9). "
                f"Out of sync replicas: (brokerId: 2, endOffset: 5, lastCaughtUpTimeMs: 1). {p}"
            ),
        )
    )
    (root / "state-change.log").write_text(
        "".join(
            _line(
                hms,
                f"[Broker id={b}] Leader p-0 with topic id Some(x) starts at leader epoch {e} from offset 0 with "
                f"partition epoch {e}, high watermark 0, ISR [1,2], adding replicas [] and removing replicas [] . "
                f"Previous leader None and previous leader epoch was -1. {sc}",
            )
            for hms, b, e in (("09:00:00", 1, 0), ("10:00:00", 2, 1))
        )
    )
    (root / "controller.log").write_text(
        "".join(
            _line(hms, reg.format(b=b, f=f))
            for hms, b, f in (("11:00:00", 1, 1), ("11:00:00", 2, 1), ("12:00:00", 1, -1))
        )
    )
    return str(root / "*.log")


@pytest.mark.parametrize("line", [*rl.LINES, "stale"])
def test_the_spark_log_stage_gives_the_reference_rows(spark: Any, tmp_path: Path, line: str) -> None:
    """The job's log stage (files parsed on executors, fence lines broadcast, OFFLINE derived per
    partition) gives the rows `log_rows` makes from `parse_logs`, which derives over all partitions
    at once: the fence-derived OFFLINE states and the dropped stale shrink included."""
    if line == "stale":
        glob, day = _stale_logs(tmp_path / "logs"), datetime(2026, 11, 20, tzinfo=UTC).date()
    else:
        glob, day = rl.log_glob(line), datetime.fromtimestamp(rl.run_info(line)["timeline"][0]["ts"], UTC).date()
    cfg = ReplayConfig(day=day, out=tmp_path / "out", broker_logs=[glob], min_isr=2)
    side = read_logs(spark, HadoopFs(spark), cfg)
    assert side.events is not None
    got = sorted(
        (r["ts"], r["topic"], r["partition"], r["leader"], tuple(r["isr"]), tuple(r["rset"]), r["min_isr"], r["weak"])
        for r in side.events.collect()
    )
    for c in side.cached:
        c.unpersist()
    events, report = parse_logs(glob)
    want = sorted(
        (r[0], r[1], r[2], r[3], tuple(r[4]), tuple(r[5]), r[6], r[8]) for r in log_rows(events, cfg.day_start, 2).rows
    )
    assert got == want
    assert report.derived >= 1 and any(r[3] == -1 for r in got)
    if line == "stale":
        assert report.stale == 1
        d0 = cfg.day_start
        assert [(r[0] - d0, r[3], r[4]) for r in got if not r[7]] == [
            (32_400_000, 1, (1, 2)),
            (36_000_000, 2, (1, 2)),
            (39_600_000, -1, (1, 2)),
        ]
