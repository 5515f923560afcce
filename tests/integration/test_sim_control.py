"""Driving a running simulator: the loopback control endpoint and `kafkatui sim ctl`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from kafkatui.sim import control
from kafkatui.sim.runner import SimRunner
from kafkatui.sim.state import BrokerState


@pytest.fixture
def controlled() -> Iterator[tuple[SimRunner, int]]:
    runner = SimRunner(brokers=3, static_configs={"broker.session.timeout.ms": "1500"})
    ctl = control.ControlServer(runner.cluster, 0)
    runner.extras.append(ctl)
    runner.start()
    try:
        runner.call(lambda c: c.create_topic("orders", 3, 3))
        yield runner, ctl.port
    finally:
        runner.stop()


def ctl(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", "sim", "ctl", "--control-port", str(port), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_crash_and_restore_through_the_cli(controlled: tuple[SimRunner, int]) -> None:
    sim, port = controlled
    assert ctl(port, "crash", "2").returncode == 0
    assert sim.call(lambda c: c.brokers[2].state) == BrokerState.DOWN
    assert sim.wait_for(lambda c: c.brokers[2].fenced, 10)
    status = ctl(port, "status")
    assert status.returncode == 0 and "down" in status.stdout
    assert ctl(port, "restore", "2").returncode == 0
    assert sim.wait_for(lambda c: all(sorted(p.isr) == [1, 2, 3] for p in c.topic("orders").partitions), 15)
    events = ctl(port, "events", "50")
    assert "broker 2 down" in events.stdout and "fenced" in events.stdout


def test_every_fault_and_setting_over_the_endpoint(controlled: tuple[SimRunner, int]) -> None:
    sim, port = controlled
    assert control.send(port, {"cmd": "slow", "broker": 3, "factor": 0.1})["ok"]
    assert sim.call(lambda c: c.brokers[3].slow_factor) == 0.1
    assert control.send(port, {"cmd": "pause", "broker": 3, "seconds": 2})["ok"]
    assert sim.call(lambda c: c.brokers[3].paused(c.now_ms))
    assert control.send(port, {"cmd": "hang", "broker": 1})["ok"]
    assert sim.call(lambda c: c.brokers[1].state) == BrokerState.HUNG
    assert control.send(port, {"cmd": "isolate", "broker": 2})["ok"]
    assert sim.call(lambda c: c.brokers[2].state) == BrokerState.ISOLATED
    assert control.send(port, {"cmd": "set-config", "topic": "orders", "key": "min.insync.replicas", "value": "2"})[
        "ok"
    ]
    assert sim.call(lambda c: c.configs.min_insync_replicas("orders")) == 2
    assert control.send(port, {"cmd": "load", "topic": "orders", "rate": 50, "acks": 1})["ok"]
    assert sim.call(lambda c: c.loads["orders"].rate) == 50
    assert control.send(port, {"cmd": "speed", "speed": 5})["speed"] == 5


def test_bad_requests_get_errors_not_crashes(controlled: tuple[SimRunner, int]) -> None:
    _, port = controlled
    assert not control.send(port, {"cmd": "crash"})["ok"]
    assert "unknown command" in control.send(port, {"cmd": "explode"})["error"]
    assert not control.send(port, {"cmd": "crash", "broker": 99})["ok"]
    assert not control.send(port, {"cmd": "set-config", "topic": "orders", "key": "min.insync.replicas", "value": "x"})[
        "ok"
    ]
    proc = ctl(port, "crash")
    assert proc.returncode == 3 and "needs a broker id" in proc.stderr
    assert control.send(port, {"cmd": "status"})["ok"]  # still serving
