"""Helpers of the real-Kafka suite: a started lab per module, real clients, waiting for Kafka."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.errors import LabError
from kafkatui.lab.versions import KafkaRelease, release
from kafkatui.lab.zookeeper import lab_for
from tests.ci import cannot_run

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]


LINES_ENV = "KAFKATUI_LAB_LINES"
"""Comma-separated Kafka lines the real-Kafka suite runs on instead of its own choice (`make test-matrix`)."""

LINES: dict[str, tuple[str, ...]] = {
    "full": ("4.4",),  # every real-Kafka test
    "core": ("4.4", "3.9"),  # the core cases: faults, alter, dashboard, broker logs, twins
    "every": ("4.4", "3.9", "3.9-zk", "2.8"),  # the seeds, check and record: every mode and rule set
    "logs": ("4.4", "3.9"),  # broker-log replay, and ZK_BROKER_LOG_LINES
    "secure": ("4.4",),  # the secured lab (test_security*.py); `make test-matrix MATRIX=3.9-zk` for ZooKeeper mode
}
"""Which lines run which tests in `make test`."""

ZK_BROKER_LOG_LINES: tuple[str, ...] = ("3.9-zk", "2.8")
"""The ZooKeeper-mode lines whose live logs test_broker_logs.py parses too (the labs are started anyway for the
seeds and record); their recorded logs are also fixtures (tests/history/test_replay_zk_logs.py)."""


def lab_lines(kind: str) -> tuple[str, ...]:
    """The lines a kind of test runs on: `LINES[kind]`, or those named in $KAFKATUI_LAB_LINES (KRaft ones only
    for the KRaft-only kinds, full and core)."""
    chosen = os.environ.get(LINES_ENV, "").strip()
    if not chosen:
        return LINES[kind] + (ZK_BROKER_LOG_LINES if kind == "logs" else ())
    lines = tuple(dict.fromkeys(v.strip() for v in chosen.split(",") if v.strip()))
    if kind == "every":
        return lines
    if kind == "secure":  # 2.8 cannot serve the secured listeners (kafkatui.lab.security.refusal)
        from kafkatui.lab.security import refusal

        return tuple(v for v in lines if refusal(release(v)) is None)
    if kind == "logs":
        return tuple(v for v in lines if not release(v).zookeeper or v in ZK_BROKER_LOG_LINES)
    return tuple(v for v in lines if not release(v).zookeeper)


def elr_on(rel: KafkaRelease) -> bool:
    """True where a new cluster has eligible leader replicas (KIP-966): KRaft 4.1 and later."""
    major, minor = (int(x) for x in rel.line.split("."))
    return not rel.zookeeper and (major, minor) >= (4, 1)


def start_lab(root: Path, version: str, brokers: int = 3, racks: tuple[str, ...] = ()) -> LabCluster:
    """A started lab; in CI a failure fails the test, locally it skips with the reason printed."""
    lab = lab_for(root, release(version), brokers, racks)
    try:
        lab.prepare()
        lab.start()
    except (LabError, OSError) as exc:
        lab.stop()
        cannot_run(f"real Kafka {version} lab could not start: {exc}")
    return lab


def start_secure_lab(root: Path, version: str = "4.4", brokers: int = 3) -> LabCluster:
    """A started lab of `version` (KRaft or ZooKeeper mode) with every security mode's listener
    (kafkatui.lab.security)."""
    from kafkatui.lab.security import LabSecurity

    lab = lab_for(root, release(version), brokers, security=LabSecurity())
    try:
        lab.prepare()
        lab.start()
    except (LabError, OSError) as exc:
        lab.stop()
        cannot_run(f"real Kafka {version} lab with secured listeners could not start: {exc}")
    return lab


def lab_fixture(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    brokers: int = 3,
    racks: tuple[str, ...] = (),
) -> Iterator[LabCluster]:
    """Body of a module-scoped lab fixture parametrized by Kafka line."""
    version = str(request.param)
    lab = start_lab(tmp_path_factory.mktemp(f"lab{version.replace('.', '').replace('-', '')}"), version, brokers, racks)
    try:
        yield lab
    finally:
        lab.stop()


def wait_for(what: str, fn: Callable[[], T | None], timeout: float = 60.0, every: float = 0.5) -> T:
    """Poll `fn` until it returns something truthy; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(every)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})", pytrace=False)


def admin(lab: LabCluster) -> Any:
    """A confluent-kafka AdminClient on the lab."""
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": lab.bootstrap, "socket.timeout.ms": 5000})


def create_topic(
    lab: LabCluster,
    name: str,
    partitions: int,
    rf: int,
    min_isr: int,
    assignment: list[list[int]] | None = None,
    **configs: str,
) -> None:
    """Create a topic and wait until every partition has a leader."""
    from confluent_kafka.admin import NewTopic

    conf = {"min.insync.replicas": str(min_isr), **{k.replace("_", "."): v for k, v in configs.items()}}
    if assignment is not None:
        topic = NewTopic(
            name, num_partitions=len(assignment), replication_factor=-1, replica_assignment=assignment, config=conf
        )
    else:
        topic = NewTopic(name, partitions, replication_factor=rf, config=conf)
    client = admin(lab)  # kept alive until the future resolves (a destroyed handle fails it)
    if name in client.list_topics(timeout=10).topics:  # left by a failed attempt, now rerun (conftest.py)
        client.delete_topics([name], operation_timeout=30)[name].result(60)
        wait_for(
            f"{name} deleted before it is created again", lambda: name not in admin(lab).list_topics(timeout=10).topics
        )
    client.create_topics([topic], operation_timeout=30)[name].result(60)
    wait_for(f"leaders for {name}", lambda: all(p["leader"] >= 0 for p in describe(lab, name)) or None)


def describe(lab: LabCluster, topic: str) -> list[dict[str, Any]]:
    """Each partition's leader, replicas and ISR as the metadata says now."""
    md = admin(lab).list_topics(topic, timeout=10)
    t = md.topics[topic]
    return [
        {"partition": p.id, "leader": p.leader, "replicas": list(p.replicas), "isr": sorted(p.isrs)}
        for p in sorted(t.partitions.values(), key=lambda p: p.id)
    ]


@dataclass
class Produced:
    """The outcome of producing records."""

    acked: int
    errors: list[str]


def produce(
    lab: LabCluster,
    topic: str,
    n: int = 20,
    acks: str = "all",
    retries: int = 0,
    partition: int | None = None,
    timeout_ms: int = 15000,
) -> Produced:
    """Produce `n` records with a real producer; retries=0 so that broker errors surface as they are."""
    from confluent_kafka import Producer

    errors: list[str] = []
    acked = 0

    def cb(err: Any, _msg: Any) -> None:
        nonlocal acked
        if err is None:
            acked += 1
        else:
            errors.append(err.name())

    conf: dict[str, Any] = {
        "bootstrap.servers": lab.bootstrap,
        "acks": acks,
        "retries": retries,
        "message.timeout.ms": timeout_ms,
        "enable.idempotence": False,
        "socket.timeout.ms": 5000,
        "log_level": 0,
    }
    p = Producer(conf)
    for i in range(n):
        kwargs: dict[str, Any] = {} if partition is None else {"partition": partition}
        p.produce(topic, value=f"v{i}".encode(), on_delivery=cb, **kwargs)
    p.flush(timeout_ms / 1000 + 10)
    return Produced(acked, errors)


def kafkatui(
    *args: str, timeout: float = 180.0, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the `kafkatui` command as a user would (a new process)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "kafkatui.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        cwd=ROOT,
        input=stdin,
    )


def check_json(lab: LabCluster, *extra: str) -> tuple[int, dict[str, Any]]:
    """`kafkatui check --json` on the lab: exit code and document."""
    proc = kafkatui("check", "--bootstrap", lab.bootstrap, "--json", "--timeout", "10", *extra)
    assert proc.stdout.strip(), f"check printed nothing; stderr: {proc.stderr}"
    return proc.returncode, json.loads(proc.stdout)


def topic_doc(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """One topic of a check --json document."""
    return next(t for t in doc["topics"] if t["name"] == name)


def snapshot(lab: LabCluster) -> Any:
    """What kafkatui reads from the lab (a ClusterSnapshot, through its real Kafka source)."""
    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource

    with KafkaClusterSource(ConnectionSettings(lab.bootstrap, timeout=10)) as source:
        return source.snapshot()
