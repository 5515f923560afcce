"""The same simulated day, replayed from kafkatui's recordings and from the brokers' own logs, gives the
same incidents, with the scripted times and the first broker out (see kafkatui/sim/days/default.yaml)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.replay.job import ReplayConfig, ReplayResult, run_job
from kafkatui.sim.simday import generate

DAY = date(2026, 11, 20)


@pytest.fixture(scope="module")
def simday(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("simday")
    generate(DAY, out, partitions=60)
    return out


@pytest.fixture(scope="module")
def from_recordings(spark: Any, simday: Path, tmp_path_factory: pytest.TempPathFactory) -> ReplayResult:
    return run_job(spark, ReplayConfig(day=DAY, out=tmp_path_factory.mktemp("rec-out"), history=simday))


@pytest.fixture(scope="module")
def from_logs(spark: Any, simday: Path, tmp_path_factory: pytest.TempPathFactory) -> ReplayResult:
    logs = [str(simday / "broker-logs" / "*" / "*.log*")]
    # the operator knows the cluster's min.insync.replicas (2); clickstream's override to 1 shows in the logs
    return run_job(spark, ReplayConfig(day=DAY, out=tmp_path_factory.mktemp("log-out"), broker_logs=logs, min_isr=2))


def _hhmmss(ms: int) -> str:
    s = (ms - int(datetime(DAY.year, DAY.month, DAY.day, tzinfo=UTC).timestamp() * 1000)) / 1000
    return f"{int(s // 3600):02d}:{int(s % 3600 // 60):02d}:{s % 60:06.3f}"


def test_recordings_show_the_scripted_incidents(from_recordings: ReplayResult) -> None:
    found = [
        (_hhmmss(i["start_ms"]), _hhmmss(i["end_ms"]), i["duration_s"], i["first_broker_out"])
        for i in from_recordings.summary["incidents"]
    ]
    assert found == [
        ("02:13:44.120", "02:19:10.500", 326.38, 3),  # broker 3 crashes, then broker 5
        ("10:40:45.000", "10:43:00.100", 135.1, 6),  # broker 6 shut down, then broker 1
    ]
    assert from_recordings.summary["inputs"]["torn_lines"] == 0


def test_broker_logs_alone_give_the_same_incidents(from_recordings: ReplayResult, from_logs: ReplayResult) -> None:
    assert from_logs.summary["inputs"]["unparsed_log_lines"] == 0
    keys = (
        "start_ms",
        "end_ms",
        "duration_s",
        "first_broker_out",
        "first_out_ms",
        "topics",
        "partitions",
        "peak_under_min_isr",
    )
    assert [{k: i[k] for k in keys} for i in from_logs.summary["incidents"]] == [
        {k: i[k] for k in keys} for i in from_recordings.summary["incidents"]
    ]
    # the timeline agrees minute by minute on what refused acks=all writes
    assert [m["under_min_isr"] for m in from_logs.summary["timeline"]] == [
        m["under_min_isr"] for m in from_recordings.summary["timeline"]
    ]


def test_racks_come_through_the_replay(from_recordings: ReplayResult) -> None:
    """Snapshot records list each broker's rack; a broker down at midnight keeps the rack it had."""
    from kafkatui.history.view.data import ReplayData
    from tests.history.test_replay_job import frames

    rack = {1: "eu-west-1a", 2: "eu-west-1b", 3: "eu-west-1c", 4: "eu-west-1a", 5: "eu-west-1b", 6: "eu-west-1c"}
    day_start = int(datetime(DAY.year, DAY.month, DAY.day, tzinfo=UTC).timestamp() * 1000)
    at_midnight = {
        f["broker"]: (f["up"], f.get("rack")) for f in frames(from_recordings, "brokers") if f["ts_ms"] == day_start
    }
    assert at_midnight == {b: (b != 6, r) for b, r in rack.items()}  # broker 6: disk swap since 23:40
    data = ReplayData.load(from_recordings.out)
    snapshot, report = data.at(2 * 60 + 15)  # 02:15: brokers 3 and 5 crashed at 02:13 (5 back at 02:19)
    assert {b.id: b.rack for b in snapshot.brokers} == {b: r for b, r in rack.items() if b not in (3, 5)}
    assert report.brokers[1].rack == "eu-west-1a"
