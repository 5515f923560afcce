"""A broker that rejoins the cluster is read at once: the snapshot that lists it again is not PARTIAL
for want of its log dirs (kafka-python's broker list is refreshed only every 30 s; the source asks it
to learn the brokers the metadata names before it sends them anything)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def source_factory() -> Iterator[Callable[..., KafkaClusterSource]]:
    sources: list[KafkaClusterSource] = []

    def make(sim: SimRunner, timeout: float = 10.0, **kwargs: Any) -> KafkaClusterSource:
        source = KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=timeout), **kwargs)
        sources.append(source)
        return source

    yield make
    for source in sources:
        source.close()


def settled(c: SimCluster) -> bool:
    ctrl = c.brokers.get(c.controller_id)
    return ctrl is not None and not ctrl.fenced and ctrl.serving_clients()


def test_a_rejoined_broker_is_not_missing_from_the_next_snapshot(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    source = source_factory(sim, log_dirs="all")
    assert not source.snapshot().partial
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[3].fenced, 10)
    assert sim.wait_for(settled, 10)
    # read while it is out, long enough for kafka-python's own broker list (refreshed every 30 s) to
    # lose broker 3 too: the refresh is asked for here rather than waited for
    gone = source.snapshot()
    assert gone.broker_ids == {1, 2} and not gone.partial, gone.problems
    cluster = source._kadmin._manager.cluster
    cluster.request_update()
    deadline = time.monotonic() + 10
    while 3 in {b.node_id for b in cluster.brokers()}:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    sim.restore(3)
    assert sim.wait_for(lambda c: not c.brokers[3].fenced, 15)
    deadline = time.monotonic() + 10
    while (snap := source.snapshot()).broker_ids != {1, 2, 3}:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    # the first snapshot that lists broker 3 again reads it: no "broker is no longer in the cluster"
    assert not any("no longer) in the cluster" in p for p in snap.problems), snap.problems
    assert snap.log_dirs is not None and 3 in {b for _, _, b in snap.log_dirs}, snap.problems
