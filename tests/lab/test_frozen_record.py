"""`kafkatui record --interval 1` with a follower frozen (SIGSTOP) under writes on real Kafka: the recording
starts the incident within 2 s of the leader's "Shrinking ISR" line (issue 26; the walk measured +12.7 s).

The topic's min ISR is 3, so the shrink makes the partition UNDER_MIN_ISR: its first such record is where a
replay of the recording starts the incident (`kafkatui.history.replay.job.incidents`: the earliest bad
interval). Measured before the fix (+6.4 s): the broker froze just after answering its own config request,
the topic configs were on their way to it, and that snapshot waited out the whole timeout; and a client
that had found a broker frozen later sent it a metadata request, which waited out an attempt (1.1-1.6 s)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.history.record.recorder import read_day
from kafkatui.lab.cluster import LabCluster
from tests.lab.support import ROOT, create_topic, describe, wait_for
from tests.lab.test_faults import loaded, shrink_lines
from tests.procs import sigint_as_at_a_terminal

_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\]")


def log_time(line: str) -> float:
    """Epoch seconds of a log4j line (the lab's JVMs log local time, as this process reads it)."""
    m = _STAMP.match(line)
    assert m, line
    return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp() + int(m.group(2)) / 1000


def test_recording_starts_a_frozen_follower_incident_within_2_s_of_the_shrink(
    full_lab: LabCluster, tmp_path: Path
) -> None:
    lab = full_lab
    topic = f"walk-frozen-{uuid.uuid4().hex[:8]}"  # its own topic each run: the test can be repeated on one lab
    create_topic(lab, topic, 1, rf=3, min_isr=3, assignment=[[1, 2, 3]])
    history = tmp_path / "history"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafkatui.cli", "record", "--bootstrap", lab.bootstrap, "--dir", str(history)]
        + ["--interval", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=sigint_as_at_a_terminal,
    )
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    before = len(shrink_lines(lab, 1, topic))
    try:
        wait_for("the first snapshot recorded", lambda: history.exists() and any(history.rglob("*.jsonl*")), 60)
        with loaded(lab, topic):
            try:
                lab.hang("3")
                wait_for("broker 3 out of the ISR", lambda: describe(lab, topic)[0]["isr"] == [1, 2], 60)
                wait_for("the leader's shrink line", lambda: len(shrink_lines(lab, 1, topic)) > before, 30)

                def recorded() -> dict[str, Any] | None:
                    records, _ = read_day(history, day)
                    return next(
                        (
                            r
                            for r in records
                            if r.get("type") == "partition" and r.get("topic") == topic and 3 not in r["isr"]
                        ),
                        None,
                    )

                shrink = wait_for("the shrink recorded", recorded, 30)
            finally:
                lab.restore("3")
            wait_for("broker 3 back in the ISR", lambda: describe(lab, topic)[0]["isr"] == [1, 2, 3], 120)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    shrunk = log_time(shrink_lines(lab, 1, topic)[before])
    assert shrink["class"] == "UNDER_MIN_ISR" and shrink["isr"] == [1, 2], shrink
    late = shrink["ts"] - shrunk
    print(f"\nshrink logged at {shrunk:.3f}, recorded at {shrink['ts']:.3f}: {late:+.1f} s")
    assert -0.5 <= late <= 2.0, f"the recording starts the incident {late:+.1f} s from the leader's shrink line"
