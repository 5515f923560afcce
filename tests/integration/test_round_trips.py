"""How many requests a read waits for one after another, with every broker answering late.

From a bastion far from the cluster each request in sequence costs a full round trip, so the count
is what a user waits for (`bench/check_vs_kcat.py --latency` times it at 100 ms). Counted from the
simulator's request log (`requests_in_sequence`), not timed: a regression that adds a request to the
chain fails here whatever the machine's load.

Where the counts come from (issue 31; librdkafka 2.10+ drops its bootstrap connection once the first
Metadata names the brokers): a first read waits for ApiVersions, librdkafka's own Metadata, the learnt
broker's ApiVersions and Metadata, then the metadata of every topic (5), then the topic configs on the
kafka-python connection opened meanwhile (6); a broker config queued behind librdkafka's Metadata
requests on the same connection can make it 7. A refresh: the metadata, then the configs (2-3; a
topic config request on a new kafka-python connection: 4).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.runner import SimRunner
from kafkatui.sim.server import requests_in_sequence

pytestmark = pytest.mark.timeout(120)

DELAY = 0.05
"""Seconds every broker waits before answering: far above the simulator's own answer time."""
FIRST_READ_MAX = 7
REFRESH_MAX = 4


@pytest.fixture(scope="module")
def late_sim() -> Iterator[SimRunner]:
    cluster = SimCluster(4, racks=["rack-a", "rack-b"])
    for i in range(8):
        cluster.create_topic(f"t{i}", 6, 3)
    with SimRunner(cluster) as sim:
        for bid in sorted(cluster.brokers):
            sim.delay_responses(bid, DELAY)
        yield sim


def test_a_first_read_and_a_refresh_wait_for_few_requests_in_sequence(late_sim: SimRunner) -> None:
    first_boot = late_sim.bootstrap.split(",")[0]  # one bootstrap server, as `check --bootstrap host:port`
    source = KafkaClusterSource(ConnectionSettings(first_boot, timeout=10), log_dirs="out-of-sync")
    try:
        late_sim.server.request_log = []
        snap = source.snapshot()
        first = list(late_sim.server.request_log)
        late_sim.server.request_log = []
        again = source.snapshot()
        refresh = list(late_sim.server.request_log)
    finally:
        late_sim.server.request_log = None
        source.close()
    for s in (snap, again):  # fewer round trips, the same complete read
        assert not s.partial, s.problems
        assert len(s.broker_configs) == 4 and all(s.broker_configs.values())
        assert {b.rack for b in s.brokers} == {"rack-a", "rack-b"}
        assert len(s.topics) == 8 and all(t.configs.get("min.insync.replicas") for t in s.topics.values())
    assert requests_in_sequence(first) <= FIRST_READ_MAX, sorted(first)
    assert requests_in_sequence(refresh) <= REFRESH_MAX, sorted(refresh)
