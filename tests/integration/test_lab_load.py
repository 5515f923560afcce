"""`kafkatui lab ctl load` counts what the brokers acknowledged (run here against the simulator)."""

from __future__ import annotations

import threading
import time

from kafkatui.lab.load import produce
from kafkatui.sim.runner import SimRunner


def test_load_reports_acked_records(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("load", 2, 3))
    report = produce(sim.bootstrap, "load", rate=100, seconds=1.0, acks="all")
    assert report.sent > 0
    assert (report.acked, report.failed, report.last_error) == (report.sent, 0, "")


def test_load_names_not_enough_replicas_and_clears_it_after_recovery(sim: SimRunner) -> None:
    """acks=all (the `lab ctl load` default) under min ISR: the broker's own error, by name (a few quick retries,
    not the message timeout); once writes succeed again, no "last error" is left behind."""
    from confluent_kafka.admin import AdminClient

    sim.call(lambda c: c.create_topic("strict", 1, 3, configs={"min.insync.replicas": "3"}))
    sim.crash(3)
    admin = AdminClient({"bootstrap.servers": sim.bootstrap})

    def isr() -> list[int]:
        return list(admin.list_topics("strict", timeout=10).topics["strict"].partitions[0].isrs)

    deadline = time.monotonic() + 60
    while 3 in isr() and time.monotonic() < deadline:
        time.sleep(0.2)
    seen: list[str] = []
    restore = threading.Timer(4.0, sim.restore, args=(3,))
    restore.start()
    try:
        report = produce(
            sim.bootstrap, "strict", rate=20, seconds=12.0, acks="all", tick=lambda r: seen.append(r.last_error)
        )
    finally:
        restore.cancel()
    assert "NOT_ENOUGH_REPLICAS" in seen, seen
    assert report.failed > 0 and report.acked > 0 and report.last_error == "", (report, seen)
