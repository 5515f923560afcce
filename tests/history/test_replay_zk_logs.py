"""`kafkatui replay --broker-logs` on real ZooKeeper-mode logs (Kafka 3.9.1 and 2.8.2, the controller's
broker killed under load: tests/history/fixtures/real-kafka-3.9-zk/, real-kafka-2.8/) shows the
partitions that went offline when they did, and the incident and its first broker out within one
recording interval of what `kafkatui record` saw in the same run (its recording replayed alone).

2.8 logs carry no min-ISR marker: without ``--min-isr`` the summary says min ISR was unknown, never a
silent "no incident". Two replay jobs per version on the shared local SparkSession (a few seconds each on
an idle host)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kafkatui.history.replay.job import ReplayConfig, ReplayResult, run_job
from tests.history import real_logs as rl

pytestmark = pytest.mark.timeout(900)

MIN_ISR = {"3.9-zk": 2, "2.8": None}
"""--min-isr per version: the brokers' value for 3.9 (its lines carry the marker anyway); none for 2.8."""


def _day(line: str) -> Any:
    return datetime.fromtimestamp(rl.run_info(line)["timeline"][0]["ts"], UTC).date()


@pytest.fixture(scope="module", params=rl.ZK_LINES)
def replays(
    request: pytest.FixtureRequest, spark: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, ReplayResult, ReplayResult]:
    line = str(request.param)
    tmp = tmp_path_factory.mktemp(f"zk{line}")
    logs = run_job(
        spark, ReplayConfig(day=_day(line), out=tmp / "logs", broker_logs=[rl.log_glob(line)], min_isr=MIN_ISR[line])
    )
    rec = run_job(spark, ReplayConfig(day=_day(line), out=tmp / "rec", history=rl.fixture_dir(line) / "history"))
    return line, logs, rec


def offline_starts(spark: Any, result: ReplayResult) -> dict[str, int]:
    """Each partition's first OFFLINE interval start (ms)."""
    rows = spark.read.parquet(str(Path(result.out) / "intervals")).where("class = 'OFFLINE'").collect()
    out: dict[str, int] = {}
    for r in rows:
        key = f"{r['topic']}-{r['partition']}"
        out[key] = min(out.get(key, r["start_ms"]), r["start_ms"])
    return out


def test_the_partitions_that_went_offline_in_the_minute_they_did(
    spark: Any, replays: tuple[str, ReplayResult, ReplayResult]
) -> None:
    line, logs, _ = replays
    assert logs.summary["inputs"]["unparsed_log_lines"] == 0
    recs = rl.records(line)
    st = rl.stamps(recs)
    recorded: dict[str, int] = {}
    for r in recs:
        if r["type"] == "partition" and r["class"] == "OFFLINE":
            recorded.setdefault(f"{r['topic']}-{r['partition']}", round(r["ts"] * 1000))
    logged = {k: v for k, v in offline_starts(spark, logs).items() if v <= st[-1]}
    assert recorded and set(logged) >= set(recorded), (recorded, logged)
    for key, ts in recorded.items():
        lo, hi = rl.window(st, ts)
        assert lo <= logged[key] <= hi, (key, ts, logged[key])
        assert abs(logged[key] - ts) < 60_000  # the same minute, give or take a refresh
    crash = next(t["ts"] for t in rl.run_info(line)["timeline"] if t["what"].startswith("crash b")) * 1000
    assert any(v > crash for v in logged.values())  # the controller's broker killed: its partitions


def test_the_offline_incident_and_its_first_broker_out_match_the_recording(
    replays: tuple[str, ReplayResult, ReplayResult],
) -> None:
    line, logs, rec = replays
    st = rl.stamps(rl.records(line))
    crash = next(t for t in rl.run_info(line)["timeline"] if t["what"].startswith("crash b"))
    killed = int(crash["what"].split()[1][1:])

    # the first partition the recorder saw offline after the crash, and the refresh around it
    t_off = min(
        round(r["ts"] * 1000)
        for r in rl.records(line)
        if r["type"] == "partition" and r["class"] == "OFFLINE" and r["ts"] > crash["ts"]
    )
    hi = rl.window(st, t_off)[1]

    def offline_incident(result: ReplayResult) -> dict[str, Any]:
        """The last incident with an offline partition that began by then."""
        return max(
            (i for i in result.summary["incidents"] if i["peak_offline"] >= 1 and i["start_ms"] <= hi),
            key=lambda i: i["start_ms"],
        )

    seen, read = offline_incident(rec), offline_incident(logs)
    if read["first_out_ms"] < st[0]:
        # 2.8: the loaded recorder's first snapshot came 20 s after the crash; the logs' episode began
        # with the hung follower, whose ISRs the logs show whole again only after the crash
        hang = next(t for t in rl.run_info(line)["timeline"] if t["what"].startswith("controller is b"))
        hung = int(hang["what"].split("hang b")[1][0])
        assert read["first_broker_out"] == hung and hang["ts"] * 1000 < read["first_out_ms"] < crash["ts"] * 1000
        assert read["peak_offline"] >= 1 and seen["peak_offline"] >= 1
        return
    assert read["first_broker_out"] == seen["first_broker_out"] == killed
    lo, hi = rl.window(st, seen["first_out_ms"])
    assert lo - rl.PROPAGATION_MS <= read["first_out_ms"] <= hi, (read, seen)


def test_without_a_min_isr_marker_the_summary_says_min_isr_was_unknown(
    replays: tuple[str, ReplayResult, ReplayResult],
) -> None:
    line, logs, _ = replays
    i = logs.summary["inputs"]
    if line == "2.8":  # 2.x writes no (under-min-isr) marker and no --min-isr was given
        assert i["log_topics_without_min_isr_marker"] == ["isr", "pair", "solo"]
        assert i["min_isr_unknown_topics"] == ["isr", "pair", "solo"]
        assert "min ISR unknown for 3 topics" in i["min_isr_note"] and "--min-isr" in i["min_isr_note"]
    else:
        assert i["min_isr_unknown_topics"] == [] and "min_isr_note" not in i
