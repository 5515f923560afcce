"""kafkatui on a secured real cluster: every read and write path, on every security mode, through both
client libraries (confluent-kafka for metadata, configs and writes; kafka-python for log dirs, ELR,
reassignments and the keyed topic configs).

One lab (`secure_lab`, 3 brokers of 4.4; of each line of `make test-matrix MATRIX=...`, 3.9-zk in
ZooKeeper mode) serves the four modes at once, each on its own
listener: SASL_SSL/SCRAM-SHA-512, SSL, SSL with client certificates required, SASL_SSL/OAUTHBEARER with
tokens checked by Kafka's OIDC validator. `admin` is a super user; `reader` may only describe and read,
so every write of hers is refused, by Kafka, with its error named.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from kafkatui.kafka.settings import ConnectionSettings, parse_x_options
from kafkatui.lab.cluster import LabCluster
from tests.lab.support import create_topic, describe, kafkatui, produce, wait_for

MODES = ("sasl_ssl", "ssl", "mtls", "oauthbearer")
READERS = ("sasl_ssl", "mtls", "oauthbearer")  # ssl has no client identity: every client is ANONYMOUS
WHO = [(m, "admin") for m in MODES] + [(m, "reader") for m in READERS]


def x_args(lab: LabCluster, mode: str, user: str = "admin") -> list[str]:
    """``-b ... -X ...`` as `kafkatui lab --security` prints them."""
    assert lab.security is not None
    args = ["-b", lab.security.bootstrap(mode)]
    for key, value in lab.security.client_settings(mode, user).items():
        args += ["-X", f"{key}={value}"]
    return args


def settings(lab: LabCluster, mode: str, user: str = "admin") -> ConnectionSettings:
    assert lab.security is not None
    conf = lab.security.client_settings(mode, user)
    extra = parse_x_options([f"{k}={v}" for k, v in conf.items()])
    return ConnectionSettings(lab.security.bootstrap(mode), extra=extra, timeout=10)


def _attempt() -> str:
    """A suffix for topic names: a rerun of a test (the lab suite reruns a failure once) makes its own."""
    return f"{time.monotonic_ns() % 10**8:08d}"


def one_error_line(stderr: str, stdout: str = "") -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr + stdout
    return lines[0]


@pytest.fixture(scope="module")
def guarded(secure_lab: LabCluster) -> str:
    create_topic(secure_lab, "guarded", 3, rf=3, min_isr=2)
    assert produce(secure_lab, "guarded", 30).acked == 30
    return "guarded"


# --------------------------------------------------------------------------- reads
@pytest.mark.parametrize(("mode", "user"), WHO, ids=[f"{m}-{u}" for m, u in WHO])
def test_every_read_is_complete(secure_lab: LabCluster, guarded: str, mode: str, user: str) -> None:
    """check --json, then the snapshot twice through kafkatui's source: metadata and configs (confluent-kafka),
    the keyed topic configs and log dirs (kafka-python), and DescribeTopicPartitions, ELR's request (KRaft
    3.7 and later; a ZooKeeper-mode broker does not serve it, and kafkatui does not ask it)."""
    from kafkatui.kafka.answers import _describe_topic_partitions
    from kafkatui.kafka.kpreads import DTP_API_KEY
    from kafkatui.kafka.source import KafkaClusterSource

    proc = kafkatui("check", *x_args(secure_lab, mode, user), "--json", "--timeout", "10")
    assert proc.returncode in (0, 1, 2) and "Traceback" not in proc.stderr, proc.stderr
    doc = json.loads(proc.stdout)
    assert not doc["cluster"]["partial"], doc["cluster"]
    assert guarded in [t["name"] for t in doc["topics"]]

    with KafkaClusterSource(settings(secure_lab, mode, user)) as source:
        source.snapshot()
        snap = source.snapshot()  # the second reads the topic configs through kafka-python, by key
        assert source._kadmin is not None, "kafka-python connected"
        assert not snap.problems, snap.problems
        assert snap.topics[guarded].configs["min.insync.replicas"].value == "2"
        assert snap.log_dirs is not None
        assert {(t, p) for (t, p, _b) in snap.log_dirs if t == guarded} == {(guarded, 0), (guarded, 1), (guarded, 2)}
        if secure_lab.rel.zookeeper:
            assert DTP_API_KEY not in {int(k) for k in source._kadmin.api_versions()}
            return
        described = _describe_topic_partitions(source._kadmin, [guarded], time.monotonic() + 10, None)
        assert sorted(p for (_t, p) in described) == [0, 1, 2]


def test_record_and_the_dashboard(secure_lab: LabCluster, guarded: str, tmp_path: Path) -> None:
    """`record` writes ISR history over OAUTHBEARER; the dashboard (Pilot) shows a complete snapshot over mTLS."""
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.feed import Feed

    rec = kafkatui(
        "record", *x_args(secure_lab, "oauthbearer"), "--dir", str(tmp_path / "h"), "--count", "2", "--interval", "0.5"
    )
    assert rec.returncode == 0 and "Traceback" not in rec.stderr, rec.stderr
    assert list((tmp_path / "h").rglob("*.events.jsonl.gz")), "history written"

    source = KafkaClusterSource(settings(secure_lab, "mtls", "reader"))
    app = KafkaTuiApp(Feed(source, bootstrap=secure_lab.security.bootstrap("mtls")), auto_refresh=False)  # type: ignore[union-attr]
    seen: list[Any] = []

    async def main() -> None:
        async with app.run_test(size=(140, 40)) as pilot:
            for _ in range(400):
                if app.state.snapshot is not None or app.state.error is not None:
                    break
                await pilot.pause(0.05)
            seen.append(app.state)
            seen.append(app.export_screenshot())

    try:
        asyncio.run(main())
    finally:
        source.close()
    state, svg = seen
    assert state.error is None and state.snapshot is not None and not state.snapshot.problems
    assert guarded in svg and "PARTIAL" not in svg


# --------------------------------------------------------------------------- writes
def _unpreferred(lab: LabCluster, topic: str) -> None:
    """Reorder topic-0's replicas so that its leader is not the preferred one (nothing stops)."""
    from kafka import TopicPartition

    from kafkatui.kafka.source import _new_kafka_python_admin

    p0 = describe(lab, topic)[0]
    others = [b for b in p0["replicas"] if b != p0["leader"]]
    kadmin = _new_kafka_python_admin({"bootstrap_servers": lab.bootstrap.split(",")})
    try:
        kadmin.alter_partition_reassignments({TopicPartition(topic, 0): [others[0], p0["leader"], *others[1:]]})
    finally:
        kadmin.close()
    wait_for(f"{topic}-0 reordered", lambda: describe(lab, topic)[0]["replicas"][0] == others[0], 60)


@pytest.mark.parametrize("mode", MODES)
def test_admin_writes_alter_revert_elect_reassign(secure_lab: LabCluster, mode: str, tmp_path: Path) -> None:
    env = {"KAFKATUI_AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    x = x_args(secure_lab, mode)
    topic = f"w-{mode}-{_attempt()}"
    create_topic(secure_lab, topic, 1, rf=3, min_isr=2, assignment=[[1, 2, 3]])

    alter = kafkatui("alter", "--topic", topic, "--set", "min.insync.replicas=1", *x, "--write", "--yes", env=env)
    assert alter.returncode == 0, alter.stdout + alter.stderr
    revert = kafkatui("alter", "--revert-last", *x, "--write", "--yes", env=env)
    assert revert.returncode == 0, revert.stdout + revert.stderr

    _unpreferred(secure_lab, topic)
    elect = kafkatui("elect", "--preferred", "--topic", topic, *x, "--write", "--yes", env=env)
    assert elect.returncode == 0, elect.stdout + elect.stderr
    parts = describe(secure_lab, topic)
    assert parts[0]["leader"] == parts[0]["replicas"][0]

    grow = f"g-{mode}-{_attempt()}"
    create_topic(secure_lab, grow, 1, rf=1, min_isr=1)
    moved = kafkatui(
        "reassign", "--topic", grow, "--replication-factor", "2", "--throttle", "10000000", *x,
        "--write", "--yes", "--wait-timeout", "120", env=env, timeout=240,
    )  # fmt: skip
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert len(describe(secure_lab, grow)[0]["replicas"]) == 2
    audit = (tmp_path / "audit.jsonl").read_text()
    assert audit.count('"result"') >= 4


@pytest.mark.parametrize("mode", READERS)
def test_reader_writes_are_refused_by_kafka_with_its_error(
    secure_lab: LabCluster, guarded: str, mode: str, tmp_path: Path
) -> None:
    env = {"KAFKATUI_AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    x = x_args(secure_lab, mode, "reader")
    topic = f"r-{mode}-{_attempt()}"
    create_topic(secure_lab, topic, 1, rf=2, min_isr=1, assignment=[[1, 2]])
    before = describe(secure_lab, topic)

    alter = kafkatui("alter", "--topic", topic, "--set", "min.insync.replicas=2", *x, "--write", "--yes", env=env)
    assert alter.returncode == 13
    assert "TOPIC_AUTHORIZATION_FAILED" in one_error_line(alter.stderr)

    _unpreferred(secure_lab, topic)
    elect = kafkatui("elect", "--preferred", "--topic", topic, *x, "--write", "--yes", env=env)
    line = one_error_line(elect.stderr, elect.stdout)
    assert elect.returncode in (9, 15) and "AUTHORIZATION_FAILED" in line, (elect.returncode, line)

    moved = kafkatui(
        "reassign", "--topic", topic, "--replication-factor", "3", "--throttle", "1000000", *x,
        "--write", "--yes", "--wait-timeout", "30", env=env,
    )  # fmt: skip
    line = one_error_line(moved.stderr, moved.stdout)
    assert moved.returncode in (9, 13, 15) and "AUTHORIZATION_FAILED" in line, (moved.returncode, line)
    after = describe(secure_lab, topic)
    assert [p["replicas"] for p in after] == [[2, 1]] and after[0]["leader"] == before[0]["leader"] == 1


# --------------------------------------------------------------------------- what the lab prints
def test_the_printed_profiles_connect(secure_lab: LabCluster, guarded: str, tmp_path: Path) -> None:
    from kafkatui.lab.security import banner

    assert secure_lab.security is not None
    text = banner(secure_lab.security)
    for user in ("admin", "reader"):
        for secret_file in ("password", "client-secret", "key.password"):
            secret = (secure_lab.security.home / f"{user}.{secret_file}").read_text().strip()
            assert secret not in text
    snippets = text.split("clusters.yaml; for reader, write reader for admin):\n", 1)[1]
    profiles = tmp_path / "clusters.yaml"
    profiles.write_text("profiles:\n" + snippets + "\n")
    profiles.chmod(0o600)
    for mode in MODES:
        name = f"lab-{mode.replace('_', '-')}-admin"
        proc = kafkatui(
            "check", "--profile", name, "--topic", guarded, "--all", env={"KAFKATUI_PROFILES": str(profiles)}
        )
        assert proc.returncode in (0, 1, 2) and "Traceback" not in proc.stderr, (mode, proc.stderr)
        assert guarded in proc.stdout and "PARTIAL" not in proc.stdout, proc.stdout
