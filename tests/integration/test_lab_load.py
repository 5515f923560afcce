"""`kafkatui lab ctl load` counts what the brokers acknowledged (run here against the simulator)."""

from __future__ import annotations

from kafkatui.lab.load import produce
from kafkatui.sim.runner import SimRunner


def test_load_reports_acked_records(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("load", 2, 3))
    report = produce(sim.bootstrap, "load", rate=100, seconds=1.0, acks="all")
    assert report.sent > 0
    assert (report.acked, report.failed, report.last_error) == (report.sent, 0, "")
