"""`kafkatui record` on real Kafka (every mode: KRaft, ZooKeeper, 2.8) while a broker fails and comes back:
the ISR history it writes holds the shrink out of the ISR with the class the partition had (at min ISR),
the broker going and coming, and the expansion back to a whole ISR, in order."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from kafkatui.history.record.recorder import read_day
from kafkatui.lab.cluster import LabCluster
from tests.lab.support import ROOT, create_topic, describe, wait_for
from tests.procs import sigint_as_at_a_terminal


def test_record_follows_a_crash_and_the_return(any_lab: LabCluster, tmp_path: Path) -> None:
    lab = any_lab
    topic = f"recorded-{lab.rel.key.replace('.', '')}"
    create_topic(lab, topic, 2, rf=3, min_isr=2, assignment=[[1, 2, 3], [2, 1, 3]])
    history = tmp_path / "history"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafkatui.cli",
            "record",
            "--bootstrap",
            lab.bootstrap,
            "--dir",
            str(history),
            "--interval",
            "1",
            "--timeout",
            "5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=sigint_as_at_a_terminal,
    )
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    try:
        wait_for("the first snapshot recorded", lambda: history.exists() and any(history.rglob("*.jsonl*")), 60)
        lab.crash("3")
        wait_for("broker 3 out of the ISRs", lambda: all(3 not in p["isr"] for p in describe(lab, topic)), 60)
        time.sleep(3)  # a few snapshots of the degraded state
        lab.restore("3")
        wait_for("the ISRs whole again", lambda: all(len(p["isr"]) == 3 for p in describe(lab, topic)), 120)
        time.sleep(3)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    records, stats = read_day(history, day)
    assert stats.torn == stats.garbled == 0
    mine = [r for r in records if r.get("type") == "partition" and r.get("topic") == topic]
    for part in (0, 1):
        seq = [(r["class"], sorted(r["isr"])) for r in mine if r["partition"] == part]
        shrunk = [i for i, (cls, isr) in enumerate(seq) if 3 not in isr]
        assert shrunk, seq
        first = shrunk[0]
        assert seq[first][0] == "AT_MIN_ISR", seq  # RF 3, minISR 2, ISR of 2
        assert any(isr == [1, 2, 3] for _, isr in seq[first:]), f"back in sync after the shrink: {seq}"
    ops = [(r["broker"], r["op"]) for r in records if r.get("type") == "broker" and r.get("broker") == 3]
    assert (
        (3, "down") in ops and ops.index((3, "down")) < len(ops) - 1 and (3, "up") in ops[ops.index((3, "down")) :]
    ), ops
