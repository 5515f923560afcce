"""Shared fixtures: simulated clusters on loopback that are always stopped."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatui.sim.runner import SimRunner
from tests.ci import cannot_run

FAST_CONFIGS = {
    # fence a dead broker after 1.5 s and drop a silent follower after 2 s, so tests stay quick
    "broker.session.timeout.ms": "1500",
    "replica.lag.time.max.ms": "2000",
}


@pytest.fixture
def sim_factory() -> Iterator[Callable[..., SimRunner]]:
    """Start simulated clusters (127.0.0.1, free ports); all are stopped at the end of the test."""
    started: list[SimRunner] = []

    def make(brokers: int = 3, **kwargs: Any) -> SimRunner:
        configs = dict(FAST_CONFIGS)
        configs.update(kwargs.pop("static_configs", {}))
        runner = SimRunner(brokers=brokers, static_configs=configs, **kwargs)
        started.append(runner)
        return runner.start()

    yield make
    for runner in started:
        runner.stop()


@pytest.fixture
def sim(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    """A healthy 3-broker cluster."""
    return sim_factory(3)


def kcat_path() -> str:
    path = shutil.which("kcat")
    if path is None:
        why = "kcat is not installed (Debian: apt-get install kcat; `make test` installs it when run as root)"
        cannot_run(why)
    return path


@pytest.fixture
def audit_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The audit log in a temporary file (KAFKATUI_AUDIT_LOG), and no user profiles file."""
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KAFKATUI_AUDIT_LOG", str(path))
    monkeypatch.delenv("KAFKATUI_PROFILES", raising=False)
    return path
