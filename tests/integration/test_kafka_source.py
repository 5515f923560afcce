"""KafkaClusterSource against the simulated cluster: what a snapshot holds, healthy and in trouble.

The source runs unchanged against the simulator's real wire protocol. A few tests wrap a
simulator handler (the protocol registry, restored after the test) to count requests or to
answer as a locked-down cluster would (authorization errors): that changes the server, never
the source.
"""

from __future__ import annotations

import dataclasses
import statistics
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kafkatui.kafka.errors import CannotConnectError, KafkaTuiError
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import BROKER_CONFIG_KEYS, TOPIC_CONFIG_KEYS, KafkaClusterSource
from kafkatui.model.snapshot import (
    ASSUMED_DEFAULT,
    DEFAULT_CONFIG,
    DYNAMIC_TOPIC_CONFIG,
    STATIC_BROKER_CONFIG,
)
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.protocol import REGISTRY, RequestContext
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(120)

Handler = Callable[[RequestContext, Any, Callable[[RequestContext, Any], Awaitable[Any]]], Awaitable[Any]]


@pytest.fixture
def source_factory() -> Iterator[Callable[..., KafkaClusterSource]]:
    """KafkaClusterSources, all closed at the end of the test."""
    sources: list[KafkaClusterSource] = []

    def make(sim: SimRunner, timeout: float = 10.0, **kwargs: Any) -> KafkaClusterSource:
        source = KafkaClusterSource(ConnectionSettings(sim.bootstrap, timeout=timeout), **kwargs)
        sources.append(source)
        return source

    yield make
    for source in sources:
        source.close()


@pytest.fixture
def wrap_api(monkeypatch: pytest.MonkeyPatch) -> Callable[[int, Handler], None]:
    """Wrap the simulator's handler for one API key (restored after the test)."""

    def wrap(api_key: int, fn: Handler) -> None:
        spec = REGISTRY[api_key]
        original = spec.handler

        async def handler(ctx: RequestContext, req: Any) -> Any:
            return await fn(ctx, req, original)

        monkeypatch.setitem(REGISTRY, api_key, dataclasses.replace(spec, handler=handler))

    return wrap


def settled(c: SimCluster) -> bool:
    ctrl = c.brokers.get(c.controller_id)
    return ctrl is not None and not ctrl.fenced and ctrl.serving_clients()


# --------------------------------------------------------------------------- healthy cluster
def test_healthy_cluster_snapshot(sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]) -> None:
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    sim.call(lambda c: c.create_topic("audit", 2, 1))
    sim.call(lambda c: c.create_topic("__consumer_offsets", 3, 3))
    snap = source_factory(sim).snapshot()

    assert not snap.partial and snap.problems == ()
    assert snap.cluster_id == sim.call(lambda c: c.cluster_id)
    assert snap.controller_id == sim.call(lambda c: c.controller_id) and snap.controller_id in snap.broker_ids
    assert [(b.id, b.host, b.port) for b in snap.brokers] == [(i, "127.0.0.1", sim.port_of(i)) for i in (1, 2, 3)]
    assert snap.bootstrap == sim.bootstrap and snap.fetch_seconds > 0 and abs(snap.taken_at - time.time()) < 60

    assert set(snap.topics) == {"orders", "audit", "__consumer_offsets"}
    assert snap.topics["__consumer_offsets"].internal and not snap.topics["orders"].internal
    expected = sim.call(
        lambda c: [(p.index, p.leader, tuple(p.replicas), tuple(p.isr)) for p in c.topics["orders"].partitions]
    )
    assert [(p.partition, p.leader, p.replicas, p.isr) for p in snap.topics["orders"].partitions] == expected
    assert all(p.offline_replicas == () and p.elr == () and p.error_code == 0 for p in snap.topics["orders"].partitions)
    assert snap.partition_count() == 11

    min_isr = snap.topics["orders"].configs["min.insync.replicas"]
    assert (min_isr.value, min_isr.source, min_isr.sensitive) == ("1", DEFAULT_CONFIG, False)
    assert snap.topics["orders"].configs["unclean.leader.election.enable"].value == "false"
    assert sorted(snap.broker_configs) == [1, 2, 3]
    # every key kafkatui asks for, but zookeeper.connect: a KRaft broker (4.x, the simulator) does not define it
    assert set(snap.broker_configs[1]) == BROKER_CONFIG_KEYS - {"zookeeper.connect"}
    lag = snap.broker_configs[2]["replica.lag.time.max.ms"]
    assert (lag.value, lag.source) == ("2000", STATIC_BROKER_CONFIG)  # the fixture's static config

    assert snap.log_dirs is not None
    for p in snap.topics["orders"].partitions:
        for r in p.replicas:
            log = snap.log_dirs[("orders", p.partition, r)]
            assert log.log_dir == f"/var/lib/kafka/data-{r}" and log.size == 0 and log.offset_lag == 0


def test_topic_config_source_after_alter(sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    source = source_factory(sim)
    before = source.snapshot().topics["orders"].configs["min.insync.replicas"]
    assert (before.value, before.source) == ("1", DEFAULT_CONFIG)
    sim.call(lambda c: c.alter_configs(("topic", "orders"), [("min.insync.replicas", 0, "2")], False))
    snap = source.snapshot()  # the same source, reused
    after = snap.topics["orders"].configs["min.insync.replicas"]
    assert (after.value, after.source) == ("2", DYNAMIC_TOPIC_CONFIG)
    assert snap.topic_config("orders", "min.insync.replicas") == after


def test_log_dirs_sizes_and_lag_of_a_slowed_follower(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    source = source_factory(sim)
    sim.call(lambda c: c.set_load("orders", 1000))
    assert sim.wait_for(lambda c: all(p.log.size_bytes > 0 for p in c.topics["orders"].partitions), 10)
    snap = source.snapshot()
    assert snap.log_dirs is not None
    assert all(snap.log_dirs[("orders", p.partition, p.leader)].size > 0 for p in snap.topics["orders"].partitions)

    sim.call(lambda c: c.slow(3, 0.0))  # broker 3 stops copying: it falls behind, then out of the ISR
    led_elsewhere = [p.index for p in sim.call(lambda c: c.topics["orders"].partitions) if p.leader != 3]

    def lagging(c: SimCluster) -> bool:
        return all(
            c.topics["orders"].partitions[i].log.end_offset - c.topics["orders"].partitions[i].leo.get(3, 0) > 100
            for i in led_elsewhere
        )

    assert sim.wait_for(lagging, 10)
    snap = source.snapshot()
    assert snap.log_dirs is not None and not snap.partial
    for i in led_elsewhere:
        leader = snap.topics["orders"].partitions[i].leader
        follower = snap.log_dirs[("orders", i, 3)]
        assert follower.offset_lag > 100
        assert follower.size < snap.log_dirs[("orders", i, leader)].size


def test_out_of_sync_mode_reads_only_lagging_partitions(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    sim.call(lambda c: c.create_topic("healthy", 2, 2, assignment={0: [1, 2], 1: [2, 1]}))
    source = source_factory(sim, log_dirs="out-of-sync")
    assert source.snapshot().log_dirs == {}  # nothing out of sync: nothing asked
    sim.call(lambda c: c.set_load("orders", 1000))
    sim.call(lambda c: c.slow(3, 0.0))
    assert sim.wait_for(lambda c: any(3 not in p.isr for p in c.topics["orders"].partitions), 10)
    snap = source.snapshot()
    assert snap.log_dirs is not None and snap.log_dirs
    assert {topic for topic, _, _ in snap.log_dirs} == {"orders"}
    for p in snap.topics["orders"].partitions:
        if len(p.isr) < len(p.replicas):
            assert {(t, i, b) for t, i, b in snap.log_dirs if i == p.partition} == {
                ("orders", p.partition, r) for r in p.replicas
            }
    assert KafkaClusterSource.__init__.__doc__ and "out-of-sync" in KafkaClusterSource.__init__.__doc__


def test_describe_configs_is_one_request_for_all_topics(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], wrap_api: Callable[[int, Handler], None]
) -> None:
    sim.call(lambda c: [c.create_topic(f"t{i:02d}", 2, 3) for i in range(40)])
    seen: list[tuple[int, list[tuple[int, str]]]] = []
    asked: list[tuple[Any, bool]] = []

    async def spy(ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]) -> Any:
        seen.append((ctx.broker.id, [(int(r.resource_type), r.resource_name) for r in req.resources]))
        asked.extend((r.configuration_keys, bool(req.include_synonyms)) for r in req.resources if r.resource_type == 2)
        return await original(ctx, req)

    wrap_api(32, spy)
    snap = source_factory(sim).snapshot()
    assert len(snap.topics) == 40 and not snap.partial
    topic_requests = [res for _, res in seen if any(kind == 2 for kind, _ in res)]
    # one request naming every topic (a second broker asked the same when the first trailed: the hedge)
    assert len(topic_requests) in (1, 2), seen
    assert all(sorted(name for _, name in res) == sorted(snap.topics) for res in topic_requests)
    # only the kept keys, without synonyms: a 15x smaller answer than every config with its synonyms
    assert {(tuple(keys), synonyms) for keys, synonyms in asked} == {(tuple(sorted(TOPIC_CONFIG_KEYS)), False)}
    assert snap.topic_config("t00", "min.insync.replicas").source == DEFAULT_CONFIG
    broker_requests = sorted((bid, res) for bid, res in seen if all(kind == 4 for kind, _ in res))
    assert broker_requests == [(1, [(4, "1")]), (2, [(4, "2")]), (3, [(4, "3")])]  # each asked of its own broker
    assert len(seen) == 3 + len(topic_requests)


def test_topic_configs_come_through_confluent_kafka_when_the_keyed_request_fails(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], wrap_api: Callable[[int, Handler], None]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    sim.call(lambda c: c.alter_configs(("topic", "orders"), [("min.insync.replicas", 0, "2")], False))
    keyed: list[int] = []

    async def drop_keyed(
        ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]
    ) -> Any:
        if any(r.resource_type == 2 and r.configuration_keys for r in req.resources):
            keyed.append(ctx.broker.id)
            raise ConnectionResetError("the broker closed the connection")
        return await original(ctx, req)

    wrap_api(32, drop_keyed)
    snap = source_factory(sim, log_dirs="none").snapshot()  # the dropped connection would take log dirs with it
    assert keyed, "the keyed request was never sent"
    assert not snap.partial, snap.problems
    cv = snap.topic_config("orders", "min.insync.replicas")
    assert (cv.value, cv.source) == ("2", DYNAMIC_TOPIC_CONFIG)


def test_a_dashboard_source_starts_kafka_python_only_from_its_second_snapshot(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], wrap_api: Callable[[int, Handler], None]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    keyed: list[bool] = []

    async def spy(ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]) -> Any:
        keyed.extend(bool(r.configuration_keys) for r in req.resources if r.resource_type == 2)
        return await original(ctx, req)

    wrap_api(32, spy)
    source = source_factory(sim, log_dirs="out-of-sync", defer_kafka_python=True)
    first = source.snapshot()
    # the kept keys, asked on the first read's own connection (kafkatui.kafka.firstread): no kafka-python yet;
    # asked of a second broker too when another broker's own config answer came first (hedged, at load)
    assert source._kadmin is None and keyed in ([True], [True, True])
    asked = len(keyed)
    second = source.snapshot()
    assert source._kadmin is not None and keyed[asked:] == [True]
    assert first.topics["orders"].configs == second.topics["orders"].configs


# --------------------------------------------------------------------------- brokers in trouble
def test_crashed_broker_is_absent_and_its_replicas_offline(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    source = source_factory(sim)
    assert source.snapshot().broker_ids == {1, 2, 3}
    sim.crash(3)
    assert sim.wait_for(lambda c: c.brokers[3].fenced, 10)  # the controller fenced it
    assert sim.wait_for(settled, 10)
    snap = source.snapshot()
    assert snap.broker_ids == {1, 2} and 3 in snap.referenced_brokers()
    assert not snap.partial, snap.problems  # brokers absent from metadata are not asked
    for p in snap.topics["orders"].partitions:
        assert p.offline_replicas == (3,) and 3 not in p.isr and p.leader in (1, 2)
    assert snap.log_dirs is not None and {b for _, _, b in snap.log_dirs} == {1, 2}
    assert sorted(snap.broker_configs) == [1, 2]


def test_broker_dying_mid_fetch_gives_a_partial_snapshot(
    sim_factory: Callable[..., SimRunner], source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})  # stays listed while dead
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    source = source_factory(sim, timeout=10.0)
    assert not source.snapshot().partial
    sim.crash(3)
    start = time.monotonic()
    snap = source.snapshot()
    # a refused connection says the broker is down: no waiting out the 10 s for its answer
    assert time.monotonic() - start < 5.0
    assert snap.partial and snap.broker_ids == {1, 2, 3}
    assert "configs of broker 3 unreadable: connection refused: the broker is down" in " ".join(snap.problems)
    assert any(p.startswith("log dirs of broker 3 unknown") for p in snap.problems), snap.problems
    assert sorted(snap.broker_configs) == [1, 2] and len(snap.topics["orders"].partitions) == 3
    assert snap.refused == {3}  # down, although listed until the controller fences it
    for _ in range(3):  # later reads too, when the client already knows the broker fails
        again = source.snapshot()
        assert again.refused == {3} and again.broker_ids == {1, 2, 3}, again.problems


def test_hung_broker_gives_a_partial_snapshot_within_the_timeout(
    sim_factory: Callable[..., SimRunner], source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim = sim_factory(3, static_configs={"broker.session.timeout.ms": "60000"})  # a hung broker stays listed
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    source = source_factory(sim, timeout=2.0)
    assert not source.snapshot().partial  # connections to every broker are up
    sim.hang(3)
    for _ in range(2):  # the second one meets the first one's requests still outstanding
        start = time.monotonic()
        snap = source.snapshot()
        elapsed = time.monotonic() - start
        assert elapsed < 2.0 + 1.5, elapsed  # timeout + MIN_PHASE_SECONDS + slack
        assert snap.partial and snap.broker_ids == {1, 2, 3}
        assert any("broker 3" in p for p in snap.problems) and all("broker 1" not in p for p in snap.problems)
        assert all("\n" not in p for p in snap.problems)
        assert len(snap.topics["orders"].partitions) == 6
        assert not snap.refused  # it takes connections: silent, not shown down
    sim.restore(3)
    deadline = time.monotonic() + 10
    while source.snapshot().partial:  # requests still held by the hung broker drain first
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_describe_configs_denied_gives_a_partial_snapshot(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], wrap_api: Callable[[int, Handler], None]
) -> None:
    from kafkatui.sim.handlers.configs import DC, DCResult

    sim.call(lambda c: c.create_topic("orders", 3, 3))

    async def deny_topics(
        ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]
    ) -> Any:
        response = await original(ctx, req)
        results = [
            DCResult(
                error_code=29,
                error_message="Authorization failed.",
                resource_type=r.resource_type,
                resource_name=r.resource_name,
                configs=[],
            )
            if int(r.resource_type) == 2
            else r
            for r in response.results
        ]
        return DC(version=ctx.version, throttle_time_ms=0, results=results)

    wrap_api(32, deny_topics)
    snap = source_factory(sim).snapshot()
    assert snap.partial and len(snap.problems) == 1
    assert snap.problems[0].startswith("configs of 1 topic(s) unreadable: not authorized (TOPIC_AUTHORIZATION_FAILED")
    assert snap.topics["orders"].configs == {} and len(snap.topics["orders"].partitions) == 3
    assert snap.topic_config("orders", "min.insync.replicas").value == "1"  # the broker's, as the model falls back
    assert sorted(snap.broker_configs) == [1, 2, 3]


def test_log_dirs_denied_gives_a_partial_snapshot(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], wrap_api: Callable[[int, Handler], None]
) -> None:
    from kafka.protocol.admin.cluster import DescribeLogDirsResponse as DL

    sim.call(lambda c: c.create_topic("orders", 3, 3))

    async def deny(ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]) -> Any:
        return DL(version=ctx.version, throttle_time_ms=0, error_code=31, results=[])

    wrap_api(35, deny)
    snap = source_factory(sim).snapshot()
    assert snap.partial and snap.log_dirs is None
    assert len(snap.problems) == 3 and all("not authorized?" in p for p in snap.problems)
    assert snap.topics["orders"].configs  # the rest is there


def test_elr_from_describe_topic_partitions(
    sim_factory: Callable[..., SimRunner], source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim = sim_factory(3, elr=True)
    sim.call(lambda c: c.create_topic("strict", 1, assignment={0: [1, 2, 3]}, configs={"min.insync.replicas": "3"}))
    sim.call(lambda c: c.create_topic("calm", 2, 3))
    sim.call(lambda c: c.shutdown(3))  # the ISR drops below minISR: broker 3 becomes an eligible leader replica
    assert sim.wait_for(lambda c: c.topics["strict"].partitions[0].elr == [3], 10)
    assert sim.wait_for(settled, 10)
    snap = source_factory(sim).snapshot()
    (p,) = snap.topics["strict"].partitions
    assert sorted(p.isr) == [1, 2] and p.elr == (3,) and p.last_known_elr == (3,), snap.problems
    assert p.offline_replicas == (3,) and p.leader_epoch >= 0
    assert all(q.elr == () for q in snap.topics["calm"].partitions)  # ISR >= minISR: no ELR possible
    assert not snap.partial, snap.problems


def test_elr_is_asked_of_a_live_broker_after_one_left(
    sim_factory: Callable[..., SimRunner],
    source_factory: Callable[..., KafkaClusterSource],
    wrap_api: Callable[[int, Handler], None],
) -> None:
    """kafka-python's own node choice comes from its broker list, refreshed every 30 s: just after a broker
    left, that can be the dead one (seen in the demo: "ELR of 6 topic(s) under minISR (the broker refused
    the connection)"). DescribeTopicPartitions goes to a broker that has just answered instead."""
    sim = sim_factory(3, elr=True)
    sim.call(lambda c: c.create_topic("strict", 1, assignment={0: [1, 2, 3]}, configs={"min.insync.replicas": "3"}))
    source = source_factory(sim)
    assert not source.snapshot().partial  # kafka-python now knows brokers 1, 2 and 3
    asked: list[int] = []

    async def spy(ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]) -> Any:
        asked.append(ctx.broker.id)
        return await original(ctx, req)

    wrap_api(75, spy)
    sim.call(lambda c: c.shutdown(3))
    assert sim.wait_for(lambda c: c.topics["strict"].partitions[0].elr == [3], 10)
    assert sim.wait_for(settled, 10)
    for _ in range(12):  # kafka-python's own choice hit the dead broker in 1 of 3 runs of 6
        snap = source.snapshot()
        assert not snap.partial, snap.problems
        assert snap.topics["strict"].partitions[0].elr == (3,)
    assert len(asked) == 12 and set(asked) <= {1, 2}, asked  # brokers that had just answered


def test_elr_unknown_when_not_asked(sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 3))
    snap = source_factory(sim, elr=False, log_dirs="none").snapshot()
    assert snap.topics["orders"].partitions[0].elr is None and snap.log_dirs is None and not snap.partial


# --------------------------------------------------------------------------- lifecycle
def native_threads() -> int | None:
    status = Path("/proc/self/status")
    if not status.exists():
        return None
    for line in status.read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return None


def test_no_thread_or_client_leaks_over_20_cycles(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    settings = ConnectionSettings(sim.bootstrap, timeout=10)
    with KafkaClusterSource(settings) as warm:  # first use imports and warms up everything
        warm.snapshot()
    python_before, native_before = threading.active_count(), native_threads()
    for _ in range(20):
        source = KafkaClusterSource(settings)
        assert not source.snapshot().partial
        source.close()
        source.close()  # idempotent
    deadline = time.monotonic() + 5
    while threading.active_count() > python_before or (native_threads() or 0) > (native_before or 0):
        assert time.monotonic() < deadline, (threading.enumerate(), native_threads(), native_before)
        time.sleep(0.05)


def test_snapshots_from_worker_threads_share_one_source(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 6, 3))
    source = source_factory(sim)
    results: list[int] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(5):
                results.append(source.snapshot().partition_count())
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and results == [6] * 15


def test_closed_source_refuses_snapshots(sim: SimRunner) -> None:
    source = KafkaClusterSource(ConnectionSettings(sim.bootstrap))
    source.close()
    with pytest.raises(KafkaTuiError, match="closed"):
        source.snapshot()


def test_source_recovers_after_the_cluster_comes_back(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    source = source_factory(sim, timeout=4.0)
    assert not source.snapshot().partial
    for b in (1, 2, 3):
        sim.crash(b)
    with pytest.raises(CannotConnectError) as info:
        source.snapshot()
    assert "connection refused" in str(info.value) and info.value.exit_code == 5
    for b in (1, 2, 3):
        sim.restore(b)
    assert sim.wait_for(settled, 10)
    deadline = time.monotonic() + 15
    while True:
        try:
            snap = source.snapshot()
            break
        except KafkaTuiError:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    assert snap.broker_ids <= {1, 2, 3} and "orders" in snap.topics


def test_a_request_lost_with_its_broker_handle_is_not_the_reported_failure(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], monkeypatch: pytest.MonkeyPatch
) -> None:
    """librdkafka re-bootstraps when every broker is down and fails the requests waiting on the
    brokers it drops with _DESTROY_BROKER (seen in CI): the user must still read "connection refused"."""
    import concurrent.futures as cf

    from confluent_kafka import KafkaError, KafkaException

    sim.call(lambda c: c.create_topic("orders", 1, 3))
    source = source_factory(sim, timeout=4.0)
    assert not source.snapshot().partial
    admin = source._admin_client()

    def lost(**_: Any) -> cf.Future[Any]:
        fut: cf.Future[Any] = cf.Future()
        fut.set_exception(KafkaException(KafkaError(KafkaError._DESTROY_BROKER)))
        return fut

    monkeypatch.setattr(admin, "describe_cluster", lost)
    for b in (1, 2, 3):
        sim.crash(b)
    for _ in range(10):  # the disconnections are old news by the next refresh
        admin.poll(0.05)
    with pytest.raises(CannotConnectError) as info:
        source.snapshot()
    assert "connection refused" in str(info.value) and info.value.exit_code == 5


def test_snapshot_time_of_a_100_partition_cluster(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource]
) -> None:
    sim.call(lambda c: [c.create_topic(f"topic-{i}", 10, 3) for i in range(10)])
    source = source_factory(sim)
    first = source.snapshot()
    assert first.partition_count() == 100 and first.log_dirs is not None and len(first.log_dirs) == 300
    times = []
    for _ in range(5):
        start = time.perf_counter()
        source.snapshot()
        times.append(time.perf_counter() - start)
    print(
        f"\n3 brokers, 100 partitions: first {first.fetch_seconds * 1000:.0f} ms, "
        f"warm median {statistics.median(times) * 1000:.0f} ms"
    )
    assert statistics.median(times) < 1.0


def test_config_fallback_when_topic_configs_are_missing(
    sim: SimRunner, source_factory: Callable[..., KafkaClusterSource], wrap_api: Callable[[int, Handler], None]
) -> None:
    from kafkatui.sim.handlers.configs import DC, DCResult

    sim.call(lambda c: c.create_topic("orders", 1, 3))

    async def deny_all(ctx: RequestContext, req: Any, original: Callable[[RequestContext, Any], Awaitable[Any]]) -> Any:
        results = [
            DCResult(
                error_code=31,
                error_message="Cluster authorization failed.",
                resource_type=r.resource_type,
                resource_name=r.resource_name,
                configs=[],
            )
            for r in req.resources
        ]
        return DC(version=ctx.version, throttle_time_ms=0, results=results)

    wrap_api(32, deny_all)
    snap = source_factory(sim).snapshot()
    assert snap.partial and snap.broker_configs == {}
    assert any("CLUSTER_AUTHORIZATION_FAILED" in p and "DESCRIBE on the CLUSTER" in p for p in snap.problems)
    assert snap.topic_config("orders", "min.insync.replicas").source == ASSUMED_DEFAULT


def test_each_broker_answers_topic_configs_with_its_own_static_settings() -> None:
    """The simulator shares topic-config answers between brokers set alike (a real broker has no cold
    cache to warm); a broker whose server.properties differ still answers with its own values."""
    from kafka.admin import KafkaAdminClient

    from kafkatui.kafka.kpreads import _describe_topic_configs

    cluster = SimCluster(2)
    cluster.add_broker(3, static={"min.insync.replicas": "2"})
    cluster.create_topic("orders", 1, 3)
    sim = SimRunner(cluster).start()
    kadmin = None
    try:
        kadmin = KafkaAdminClient(bootstrap_servers=sim.bootstrap)
        seen = {}
        for node in (1, 3, 2, 3):
            got = _describe_topic_configs(kadmin, ["orders"], frozenset({"min.insync.replicas"}), 10, node, 10.0)
            cv = got.configs["orders"]["min.insync.replicas"]
            seen[node] = (cv.value, cv.source)
        assert seen == {1: ("1", DEFAULT_CONFIG), 2: ("1", DEFAULT_CONFIG), 3: ("2", STATIC_BROKER_CONFIG)}
    finally:
        if kadmin is not None:
            kadmin.close()
        sim.stop()
