"""kafkatui's writes and dashboard against real brokers: alter and --revert-last (topic and broker
default), preferred election, an RF change with a throttle, and the dashboard driven by Pilot
through a broker loss down to the under-minISR partition's findings."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafkatui.lab.cluster import LabCluster
from tests.lab.support import check_json, create_topic, describe, elr_on, kafkatui, produce, topic_doc, wait_for


@pytest.fixture
def audit(tmp_path: Path) -> dict[str, str]:
    return {"KAFKATUI_AUDIT_LOG": str(tmp_path / "audit.jsonl")}


def min_isr(lab: LabCluster, topic: str) -> tuple[int, str]:
    _, doc = check_json(lab, "--topic", topic)
    t = topic_doc(doc, topic)
    return t["min_isr"], t["min_isr_source"]


def test_alter_and_revert_last_on_a_topic(lab: LabCluster, audit: dict[str, str]) -> None:
    create_topic(lab, "ledger", 2, rf=3, min_isr=1)
    assert min_isr(lab, "ledger") == (1, "DYNAMIC_TOPIC_CONFIG")
    b = lab.bootstrap
    refused = kafkatui(
        "alter", "--topic", "ledger", "--set", "min.insync.replicas=2", "--bootstrap", b, "--yes", env=audit
    )
    assert refused.returncode == 12, "read-only unless --write"
    done = kafkatui(
        "alter", "--topic", "ledger", "--set", "min.insync.replicas=2", "--bootstrap", b, "--write", "--yes", env=audit
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert min_isr(lab, "ledger") == (2, "DYNAMIC_TOPIC_CONFIG")
    back = kafkatui("alter", "--revert-last", "--bootstrap", b, "--write", "--yes", env=audit)
    assert back.returncode == 0, back.stdout + back.stderr
    assert min_isr(lab, "ledger") == (1, "DYNAMIC_TOPIC_CONFIG")


def test_broker_default_alter_reaches_topics_without_override(lab: LabCluster, audit: dict[str, str]) -> None:
    create_topic(lab, "plain", 1, rf=3, min_isr=2)
    b = lab.bootstrap
    unset = kafkatui(
        "alter", "--topic", "plain", "--unset", "min.insync.replicas", "--bootstrap", b, "--write", "--yes", env=audit
    )
    assert unset.returncode == 0, unset.stdout + unset.stderr
    # Kafka 4.1+ with ELR turns the controller's static min.insync.replicas into a cluster-wide dynamic default
    # (it overrides the brokers' own server.properties); 3.9 reads the broker's static config
    source = "DYNAMIC_DEFAULT_BROKER_CONFIG" if elr_on(lab.rel) else "STATIC_BROKER_CONFIG"
    assert min_isr(lab, "plain") == (2, source)
    done = kafkatui(
        "alter",
        "--broker-default",
        "--set",
        "unclean.leader.election.enable=true",
        "--bootstrap",
        b,
        "--write",
        "--yes",
        env=audit,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    _, doc = check_json(lab, "--topic", "plain")
    assert topic_doc(doc, "plain")["unclean_leader_election"] is True
    back = kafkatui("alter", "--revert-last", "--bootstrap", b, "--write", "--yes", env=audit)
    assert back.returncode == 0, back.stdout + back.stderr
    _, doc = check_json(lab, "--topic", "plain")
    assert topic_doc(doc, "plain")["unclean_leader_election"] is False


def test_replication_factor_one_to_three_with_a_throttle(lab: LabCluster, audit: dict[str, str]) -> None:
    create_topic(lab, "grow", 3, rf=1, min_isr=1)
    assert produce(lab, "grow", 300, acks="1").acked == 300
    done = kafkatui(
        "reassign",
        "--topic",
        "grow",
        "--replication-factor",
        "3",
        "--throttle",
        "10000000",
        "--bootstrap",
        lab.bootstrap,
        "--write",
        "--yes",
        "--wait-timeout",
        "120",
        env=audit,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    parts = describe(lab, "grow")
    assert all(len(p["replicas"]) == 3 and len(p["isr"]) == 3 for p in parts), parts
    assert all(p["leader"] == p["replicas"][0] for p in parts), "the existing replica stays the leader"
    # the throttle is lifted once the new replicas are in sync
    from confluent_kafka.admin import ConfigResource

    from tests.lab.support import admin

    res = ConfigResource("topic", "grow")
    client = admin(lab)
    configs = client.describe_configs([res])[res].result(30)
    assert not configs["leader.replication.throttled.replicas"].value
    assert not configs["follower.replication.throttled.replicas"].value


def test_dashboard_follows_a_broker_loss_to_the_partition_findings(lab: LabCluster) -> None:
    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.feed import Feed
    from kafkatui.tui.screens.partition import PartitionScreen
    from kafkatui.tui.screens.topic import TopicScreen
    from kafkatui.tui.widgets.vtable import VirtualTable

    create_topic(lab, "thin", 2, rf=2, min_isr=2, assignment=[[1, 3], [3, 1]])
    source = KafkaClusterSource(ConnectionSettings(bootstrap=tuple(lab.bootstrap.split(",")), timeout=5.0))
    feed = Feed(source, bootstrap=lab.bootstrap)
    app = KafkaTuiApp(feed, refresh_seconds=1.0, source_label="lab")

    def thin_under_min(report: Any) -> int:
        parts = report.snapshot.topics["thin"].partitions
        return sum(1 for p in parts if report.health("thin", p.partition).name == "UNDER_MIN_ISR")

    async def until(pilot: Any, pred: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred():
                return True
            await pilot.pause(0.2)
        return pred()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await until(pilot, lambda: app.state.report is not None, 60)
            lab.crash("3")
            assert await until(
                pilot,
                lambda: (
                    app.state.report is not None
                    and app.state.report.counts.brokers_up == 2
                    and thin_under_min(app.state.report) == 2  # the shared lab holds other tests' topics too
                ),
                60,
            ), "broker 3 down, thin under minISR"
            topics = app.screen.query_one("#topics", VirtualTable)
            assert topics.move_cursor_to("thin")
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen) and app.screen.topic == "thin"
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PartitionScreen) and screen.topic == "thin"
            ids = {f.id for f in screen.findings}
            assert "under-min-isr" in ids, ids
            await pilot.press("escape", "escape")

    try:
        asyncio.run(scenario())
    finally:
        feed.close()
        lab.restore("3")
        wait_for("thin whole again", lambda: all(len(p["isr"]) == 2 for p in describe(lab, "thin")), 90)
