"""`kafkatui record` against the simulator: snapshots, changes and gaps land in the history files."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from kafkatui.argparsing import Parser
from kafkatui.history.record import cmd as record_cmd
from kafkatui.history.record.recorder import read_day
from kafkatui.sim.runner import SimRunner


def parse(*args: str) -> object:
    p = Parser(prog="kafkatui record")
    record_cmd.add_arguments(p)
    return p.parse_args(list(args))


def test_records_changes_and_a_gap(sim_factory: Callable[..., SimRunner], tmp_path: Path) -> None:
    sim = sim_factory(3)
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    ns = parse("--bootstrap", sim.bootstrap, "--dir", str(tmp_path), "--interval", "0.3", "--timeout", "2")
    stop = threading.Event()
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(record_cmd.run(ns, stop)))  # type: ignore[arg-type]
    worker.start()
    try:
        time.sleep(1.0)
        sim.crash(3)
        assert sim.wait_for(lambda c: c.brokers[3].fenced, 10)
        time.sleep(1.0)
        for b in (1, 2):
            sim.hang(b)
        time.sleep(5.0)  # snapshots fail: a gap
        for b in (1, 2, 3):
            sim.restore(b)
        time.sleep(3.0)
    finally:
        stop.set()
        worker.join(30)
    assert result == [0]
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    records, stats = read_day(tmp_path, day)
    types = [r["type"] for r in records]
    assert types[0] == "snapshot"
    assert "gap" in types
    assert any(r["type"] == "broker" for r in records)
    assert any(r["type"] == "partition" and r.get("topic") == "orders" for r in records)
    assert stats.torn == 0


def test_unwritable_directory_is_one_line(tmp_path: Path, capsys: object) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    ns = parse("--bootstrap", "127.0.0.1:9", "--dir", str(blocker / "history"), "--count", "1")
    assert record_cmd.run(ns) == record_cmd.EXIT_RECORDER  # type: ignore[arg-type]


def test_stopped_while_the_cluster_is_down_the_gap_is_written(tmp_path: Path) -> None:
    # nothing listens on port 9: every snapshot fails, and stopping writes the outage as a gap
    ns = parse(
        "--bootstrap", "127.0.0.1:9", "--dir", str(tmp_path), "--count", "2", "--interval", "0.1", "--timeout", "1"
    )
    assert record_cmd.run(ns) == 0  # type: ignore[arg-type]
    records, _ = read_day(tmp_path, datetime.now(UTC).strftime("%Y-%m-%d"))
    # the outage as one gap, then where the recording ends
    assert [r["type"] for r in records] == ["gap", "end"] and records[0]["failures"] == 2
    assert "connection refused" in records[0]["reason"]
