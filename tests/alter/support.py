"""Helpers the elect and reassign tests share: a typed-into terminal, the audit log, snapshots."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.sim.runner import SimRunner


class Tty(io.StringIO):
    """A terminal's stdin: confirmations typed by the test."""

    def isatty(self) -> bool:
        return True


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def snapshot(sim: SimRunner, log_dirs: str = "none") -> ClusterSnapshot:
    with KafkaClusterSource(ConnectionSettings(sim.bootstrap), log_dirs=log_dirs, elr=False) as src:
        return src.snapshot()


def sim_leaders(sim: SimRunner) -> dict[tuple[str, int], int]:
    """Every partition's leader as the simulator itself holds it."""
    return sim.call(lambda c: {(p.topic, p.index): p.leader for p in c.partitions()})
