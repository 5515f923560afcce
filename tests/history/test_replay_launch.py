"""The launcher's process side without Spark: sources, the job's arguments, the one-line error, where
recordings end, the profile's replay target, and cancel ending a whole process group."""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import date
from pathlib import Path

from kafkatui.history.replay.launch import (
    JOB_NICENESS,
    Launch,
    LaunchSpec,
    Outcome,
    error_line,
    pid_alive,
    split_sources,
)
from kafkatui.history.replay.read import ReplayConfig, recording_ends
from kafkatui.kafka.profiles import ReplayTarget, load_profile

DAY = date(2026, 11, 20)
D0 = 1795132800000
H = 3_600_000


def test_sources_take_one_recording_directory_and_any_log_globs(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    history, globs, problem = split_sources(f"{tmp_path / 'a'}, {tmp_path}/logs/server.log*")
    assert (history, globs, problem) == (tmp_path / "a", (f"{tmp_path}/logs/server.log*",), None)
    assert "one recording directory" in str(split_sources(f"{tmp_path / 'a'},{tmp_path / 'b'}")[2])
    assert "no such directory or file" in str(split_sources(str(tmp_path / "nope"))[2])
    assert split_sources(" , ")[2] == "give a recording directory or a broker-log glob"


def test_the_job_gets_until_conf_and_progress_lines(tmp_path: Path) -> None:
    spec = LaunchSpec(DAY, tmp_path / "out", tmp_path, ("logs/*",), "spark://m:7077", (("a.b", "1"),), 123)
    argv = spec.argv()
    assert argv[:4] == [sys.executable, "-m", "kafkatui.cli", "replay"]
    for pair in (["--until", "123"], ["--conf", "a.b=1"], ["--master", "spark://m:7077"], ["--broker-logs", "logs/*"]):
        assert any(argv[i : i + 2] == pair for i in range(len(argv)))
    assert argv[-1] == "--progress-lines" and spec.log == tmp_path / "out.log"


def test_the_error_is_the_jobs_last_error_line(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("12:00 WARN something\nkafkatui replay: error: no ISR history for 2026-11-20 (UTC)\n")
    assert error_line(log, 3) == "no ISR history for 2026-11-20 (UTC)"
    log.write_text("Traceback ...\nMemoryError\n")
    assert error_line(log, 1) == "the replay job exited with status 1: MemoryError"
    assert error_line(tmp_path / "none.log", -9) == "the replay job was killed by signal 9"


def meta(kind: str, ts: int, reason: str | None = None, seq: int = 0) -> dict[str, object]:
    return {"type": kind, "ts_ms": ts, "reason": reason, "seq": seq}


def test_a_recording_ends_at_its_end_record_or_at_until() -> None:
    cfg = ReplayConfig(day=DAY, out=Path("out"))
    # stopped at 12:19, started again at 14:00: unknown in between; stopped for good at 20:00
    m = [meta("snapshot", D0 + 12 * H, "start"), meta("end", D0 + 12 * H + 19 * 60_000, seq=1)]
    m += [meta("snapshot", D0 + 14 * H, "start", 2), meta("end", D0 + 20 * H, seq=3)]
    assert recording_ends(m, cfg) == [(D0 + 12 * H + 19 * 60_000, D0 + 14 * H), (D0 + 20 * H, D0 + 24 * H)]
    # no end record: carried as before; today so far: ends at until, what came after is not read
    assert recording_ends(m[:1], cfg) == []
    today = ReplayConfig(day=DAY, out=Path("out"), until_ms=D0 + 13 * H)
    assert recording_ends(m, today) == [(D0 + 12 * H + 19 * 60_000, D0 + 24 * H)]
    assert recording_ends(m[:1], today) == [(D0 + 13 * H, D0 + 24 * H)]
    # an end the day before: unknown from 00:00 until the day's first snapshot
    yesterday = [meta("end", D0 - H), meta("snapshot", D0 + 2 * H, "start", 1)]
    assert recording_ends(yesterday, cfg) == [(D0, D0 + 2 * H)]


def test_a_profile_says_where_the_replay_runs(tmp_path: Path) -> None:
    path = tmp_path / "clusters.yaml"
    path.write_text(
        "profiles:\n  prod:\n    bootstrap: k1:9092\n    replay:\n      master: spark://sm:7077\n"
        "      conf: {spark.executor.memory: 2g, spark.dynamicAllocation.enabled: false}\n"
    )
    profile, _ = load_profile("prod", path=path, environ={})
    assert profile.replay == ReplayTarget(
        "spark://sm:7077", (("spark.executor.memory", "2g"), ("spark.dynamicAllocation.enabled", "false"))
    )


class FakeJob(LaunchSpec):
    """A 'job' that starts a grandchild (standing in for the JVM), says its pid, and never ends."""

    def argv(self) -> list[str]:
        code = (
            "import json, subprocess, sys, time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
            "print(json.dumps({'kind': 'jvm', 'pid': p.pid}), flush=True)\n"
            "print(json.dumps({'kind': 'progress', 'step': 1, 'tasks_done': 1, 'tasks_total': 4}), flush=True)\n"
            "time.sleep(600)\n"
        )
        return [sys.executable, "-c", code]


def test_cancel_ends_the_process_group_and_removes_the_output(tmp_path: Path) -> None:
    spec = FakeJob(DAY, tmp_path / "replays" / "out")
    lines: list[dict[str, object]] = []
    ended: list[Outcome] = []
    out_at_end: list[bool] = []

    def end(outcome: Outcome) -> None:  # the dashboard says "cancelled" only once the output is gone
        out_at_end.append(spec.out.exists())
        ended.append(outcome)

    launch = Launch(spec, on_line=lines.append, on_end=end)
    launch.start()
    spec.out.mkdir()
    (spec.out / "_KAFKATUI_REPLAY").write_text("claimed\n")
    deadline = time.monotonic() + 30
    while launch.jvm_pid is None or len(lines) < 2:
        assert time.monotonic() < deadline, lines
        time.sleep(0.05)
    pid = launch.jvm_pid
    assert pid_alive(pid) and lines[1]["tasks_total"] == 4
    # the job and its JVM yield the CPU to the dashboard (relative: the suite may itself run niced)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + JOB_NICENESS)
    launch.cancel()
    launch.wait(10)
    assert not pid_alive(pid) and not launch.running
    assert not spec.out.exists() and spec.log.exists()
    assert ended and ended[0].cancelled and out_at_end == [False]
    assert json.loads(json.dumps(lines[0]))["kind"] == "jvm"


def test_a_users_driver_java_options_come_after_the_jobs_own(tmp_path: Path) -> None:
    from kafkatui.history.replay.spark_session import driver_java_options

    log4j = tmp_path / "log4j2.properties"
    ours = driver_java_options(log4j)
    assert ours == f"-Dlog4j2.configurationFile=file:{log4j} -XX:+UseParallelGC"
    assert driver_java_options(log4j, " -Xss4m -XX:+UseG1GC ") == f"{ours} -Xss4m -XX:+UseG1GC"
    assert driver_java_options(log4j, "  ") == ours
