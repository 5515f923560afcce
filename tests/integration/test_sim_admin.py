"""Admin and config APIs of the simulated cluster, driven by real clients.

confluent-kafka's AdminClient covers topics, partitions, configs and leader elections;
kafka-python's KafkaAdminClient covers what confluent-kafka lacks (log dirs, partition
reassignments, DescribeTopicPartitions). A few wire-level checks use kafka-python's
protocol classes directly, for versions and fields neither admin client exposes.
"""

from __future__ import annotations

import socket
import struct
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest
from confluent_kafka import ElectionType, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    ResourceType,
)
from kafka import TopicPartition as KTopicPartition
from kafka.admin import KafkaAdminClient
from kafka.errors import NoReassignmentInProgressError
from kafka.protocol.admin.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafka.protocol.admin.topics import (
    CreateTopicsRequest,
    CreateTopicsResponse,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsResponse,
)

from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.runner import SimRunner

pytestmark = pytest.mark.timeout(60)

DEFAULT = ConfigSource.DEFAULT_CONFIG.value
DYNAMIC_TOPIC = ConfigSource.DYNAMIC_TOPIC_CONFIG.value
DYNAMIC_DEFAULT_BROKER = ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value


# --------------------------------------------------------------------------- helpers
@pytest.fixture
def admin(sim: SimRunner) -> AdminClient:
    """A confluent-kafka AdminClient on the healthy 3-broker `sim` (stopped by its fixture)."""
    return AdminClient({"bootstrap.servers": sim.bootstrap})


@pytest.fixture
def kadmin_factory() -> Iterator[Callable[[SimRunner], KafkaAdminClient]]:
    """kafka-python KafkaAdminClients, all closed at the end of the test."""
    clients: list[KafkaAdminClient] = []

    def make(runner: SimRunner) -> KafkaAdminClient:
        client = KafkaAdminClient(bootstrap_servers=runner.bootstrap, request_timeout_ms=10000)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def error_of(future: Future[Any]) -> KafkaError:
    """The KafkaError a confluent-kafka admin future fails with."""
    with pytest.raises(KafkaException) as info:
        future.result(timeout=10)
    err = info.value.args[0]
    assert isinstance(err, KafkaError)
    return err


def describe_topic(admin: AdminClient, topic: str) -> dict[str, ConfigEntry]:
    resource = ConfigResource(ResourceType.TOPIC, topic)
    result: dict[str, ConfigEntry] = admin.describe_configs([resource])[resource].result(timeout=10)
    return result


def alter(
    admin: AdminClient, resource_type: ResourceType, name: str, validate_only: bool = False, **values: str | None
) -> Future[Any]:
    """IncrementalAlterConfigs: SET each keyword (dots as underscores), DELETE for None."""
    entries = [
        ConfigEntry(
            key.replace("_", "."),
            value,
            incremental_operation=AlterConfigOpType.SET if value is not None else AlterConfigOpType.DELETE,
        )
        for key, value in values.items()
    ]
    resource = ConfigResource(resource_type, name, incremental_configs=entries)
    future: Future[Any] = admin.incremental_alter_configs([resource], validate_only=validate_only)[resource]
    return future


def partition_state(sim: SimRunner, topic: str) -> list[tuple[int, list[int], list[int]]]:
    """(leader, replicas, isr) of every partition, as the simulator holds them."""
    return sim.call(lambda c: [(p.leader, list(p.replicas), list(p.isr)) for p in c.topics[topic].partitions])


def settled(c: SimCluster) -> bool:
    """The controller is elected and its broker serves clients (safe moment for a new client)."""
    ctrl = c.brokers.get(c.controller_id)
    return ctrl is not None and not ctrl.fenced and ctrl.serving_clients()


def raw_call(port: int, request: Any, response_cls: Any, version: int) -> Any:
    """Send one request with kafka-python's protocol classes and decode the answer."""
    request.with_header(correlation_id=7, client_id="raw-test")
    data = bytes(request.encode(version=version, header=True, framed=True))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        (size,) = struct.unpack(">i", _read(s, 4))
        body = _read(s, size)
    return response_cls.decode(body, version=version, header=True)


def _read(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed")
        buf += chunk
    return buf


# --------------------------------------------------------------------------- topics (confluent-kafka)
def test_list_topics_shows_brokers_and_partitions(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    sim.call(lambda c: c.create_topic("audit", 1, 1))
    md = admin.list_topics(timeout=10)
    assert sorted(md.brokers) == [1, 2, 3]
    assert {"orders", "audit"} <= set(md.topics)
    for p in md.topics["orders"].partitions.values():
        assert sorted(p.replicas) == [1, 2, 3] and sorted(p.isrs) == [1, 2, 3]
    assert len(md.topics["audit"].partitions[0].replicas) == 1


def test_create_topics_rf3_and_explicit_assignment(sim: SimRunner, admin: AdminClient) -> None:
    futures = admin.create_topics(
        [
            NewTopic("orders", 6, 3, config={"min.insync.replicas": "2"}),
            NewTopic("pinned", 2, replica_assignment=[[3, 1], [2, 3]]),
        ]
    )
    for f in futures.values():
        assert f.result(timeout=10) is None
    orders = partition_state(sim, "orders")
    assert len(orders) == 6 and all(sorted(replicas) == [1, 2, 3] for _, replicas, _ in orders)
    assert {leader for leader, _, _ in orders} == {1, 2, 3}
    assert [replicas for _, replicas, _ in partition_state(sim, "pinned")] == [[3, 1], [2, 3]]
    assert [leader for leader, _, _ in partition_state(sim, "pinned")] == [3, 2]
    entry = describe_topic(admin, "orders")["min.insync.replicas"]
    assert (entry.value, entry.source) == ("2", DYNAMIC_TOPIC)
    md = admin.list_topics(timeout=10)
    assert md.topics["pinned"].partitions[1].replicas == [2, 3]


def test_create_topics_validate_only_creates_nothing(sim: SimRunner, admin: AdminClient) -> None:
    futures = admin.create_topics([NewTopic("dry", 4, 3)], validate_only=True)
    assert futures["dry"].result(timeout=10) is None
    assert sim.call(lambda c: "dry" not in c.topics and not c.configs.has_topic("dry"))
    # validation still applies
    err = error_of(admin.create_topics([NewTopic("dry", 1, 5)], validate_only=True)["dry"])
    assert err.code() == KafkaError.INVALID_REPLICATION_FACTOR


def test_create_topics_errors(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 1))
    futures = admin.create_topics(
        [
            NewTopic("orders", 1, 1),
            NewTopic("too-wide", 1, 4),
            NewTopic("bad-config", 1, 1, config={"min.insync.replicas": "abc"}),
            NewTopic("bad/name", 1, 1),
        ]
    )
    exists = error_of(futures["orders"])
    assert exists.code() == KafkaError.TOPIC_ALREADY_EXISTS
    assert exists.str() == "Topic 'orders' already exists."
    wide = error_of(futures["too-wide"])
    assert wide.code() == KafkaError.INVALID_REPLICATION_FACTOR
    assert "replication factor of 4" in wide.str() and "only 3 broker(s)" in wide.str()
    assert error_of(futures["bad-config"]).code() == KafkaError.INVALID_CONFIG
    assert error_of(futures["bad/name"]).code() == KafkaError.TOPIC_EXCEPTION
    assert sim.call(lambda c: sorted(c.topics)) == ["orders"]


def test_delete_topics(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("old", 2, 3))
    sim.call(lambda c: c.create_topic("keep", 1, 1))
    futures = admin.delete_topics(["old", "never-was"], operation_timeout=10)
    assert futures["old"].result(timeout=10) is None
    assert error_of(futures["never-was"]).code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    assert sim.call(lambda c: sorted(c.topics)) == ["keep"]
    assert "old" not in admin.list_topics(timeout=10).topics


def test_create_partitions(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    futures = admin.create_partitions([NewPartitions("orders", 5)])
    assert futures["orders"].result(timeout=10) is None
    state = partition_state(sim, "orders")
    assert len(state) == 5 and all(len(set(replicas)) == 3 for _, replicas, _ in state)
    pinned = admin.create_partitions([NewPartitions("orders", 6, replica_assignment=[[2, 3, 1]])])
    assert pinned["orders"].result(timeout=10) is None
    assert partition_state(sim, "orders")[5][1] == [2, 3, 1]
    shrink = error_of(admin.create_partitions([NewPartitions("orders", 2)])["orders"])
    assert shrink.code() == KafkaError.INVALID_PARTITIONS
    assert "would not be an increase" in shrink.str()
    wrong_rf = error_of(admin.create_partitions([NewPartitions("orders", 7, replica_assignment=[[1]])])["orders"])
    assert wrong_rf.code() == KafkaError.INVALID_REPLICA_ASSIGNMENT
    assert len(admin.list_topics(timeout=10).topics["orders"].partitions) == 6


# --------------------------------------------------------------------------- configs (confluent-kafka)
def test_describe_configs_topic_and_broker(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 3))
    entry = describe_topic(admin, "orders")["min.insync.replicas"]
    assert (entry.value, entry.source, entry.is_read_only) == ("1", DEFAULT, False)
    assert [(s.name, s.value, s.source) for s in entry.synonyms.values()] == [("min.insync.replicas", "1", DEFAULT)]

    broker = ConfigResource(ResourceType.BROKER, "2")
    configs = admin.describe_configs([broker])[broker].result(timeout=10)
    assert configs["broker.id"].value == "2"
    assert (configs["min.insync.replicas"].value, configs["min.insync.replicas"].source) == ("1", DEFAULT)

    assert alter(admin, ResourceType.TOPIC, "orders", min_insync_replicas="2").result(timeout=10) is None
    entry = describe_topic(admin, "orders")["min.insync.replicas"]
    assert (entry.value, entry.source) == ("2", DYNAMIC_TOPIC)
    assert sim.call(lambda c: c.configs.min_insync_replicas("orders")) == 2

    # a per-broker dynamic value (confluent-kafka sends it to broker 2 itself)
    assert alter(admin, ResourceType.BROKER, "2", message_max_bytes="2000000").result(timeout=10) is None
    configs = admin.describe_configs([broker])[broker].result(timeout=10)
    max_bytes = configs["message.max.bytes"]
    assert (max_bytes.value, max_bytes.source) == ("2000000", ConfigSource.DYNAMIC_BROKER_CONFIG.value)


def test_describe_configs_unknown_topic(admin: AdminClient) -> None:
    resource = ConfigResource(ResourceType.TOPIC, "ghost")
    err = error_of(admin.describe_configs([resource])[resource])
    assert err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART


def test_incremental_alter_validate_only_and_invalid_value(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 3))
    assert alter(admin, ResourceType.TOPIC, "orders", validate_only=True, min_insync_replicas="2").result(10) is None
    entry = describe_topic(admin, "orders")["min.insync.replicas"]
    assert (entry.value, entry.source) == ("1", DEFAULT)

    err = error_of(alter(admin, ResourceType.TOPIC, "orders", min_insync_replicas="abc"))
    assert err.code() == KafkaError.INVALID_CONFIG
    assert "abc" in err.str()
    assert describe_topic(admin, "orders")["min.insync.replicas"].value == "1"

    # DELETE removes the override again
    assert alter(admin, ResourceType.TOPIC, "orders", min_insync_replicas="2").result(timeout=10) is None
    assert alter(admin, ResourceType.TOPIC, "orders", min_insync_replicas=None).result(timeout=10) is None
    assert describe_topic(admin, "orders")["min.insync.replicas"].source == DEFAULT


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning")
def test_legacy_alter_configs_drops_other_overrides(sim: SimRunner, admin: AdminClient) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 3, configs={"min.insync.replicas": "2", "retention.ms": "60000"}))
    before = describe_topic(admin, "orders")
    assert before["retention.ms"].source == DYNAMIC_TOPIC and before["min.insync.replicas"].source == DYNAMIC_TOPIC
    resource = ConfigResource(ResourceType.TOPIC, "orders", set_config={"cleanup.policy": "compact"})
    assert admin.alter_configs([resource])[resource].result(timeout=10) is None
    after = describe_topic(admin, "orders")
    # Kafka's legacy AlterConfigs replaces the whole override set: the others are gone
    assert (after["cleanup.policy"].value, after["cleanup.policy"].source) == ("compact", DYNAMIC_TOPIC)
    assert (after["min.insync.replicas"].value, after["min.insync.replicas"].source) == ("1", DEFAULT)
    assert after["retention.ms"].source == DEFAULT
    assert sim.call(lambda c: c.configs.topic_overrides("orders")) == {"cleanup.policy": "compact"}


# --------------------------------------------------------------------------- leader elections (confluent-kafka)
def test_elect_leaders_preferred_after_failover(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    preferred_1 = [i for i, (_, replicas, _) in enumerate(partition_state(sim, "orders")) if replicas[0] == 1]
    assert preferred_1
    sim.call(lambda c: c.shutdown(1))
    assert sim.wait_for(lambda c: all(p.leader != 1 for p in c.topics["orders"].partitions), 10)
    sim.call(lambda c: c.restart(1))
    assert sim.wait_for(lambda c: all(1 in p.isr for p in c.topics["orders"].partitions) and settled(c), 10)
    assert all(partition_state(sim, "orders")[i][0] != 1 for i in preferred_1)

    admin = AdminClient({"bootstrap.servers": sim.bootstrap})
    # no request_timeout / operation_timeout kwargs: confluent-kafka 2.16.1 crashes with them
    result = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition("orders", i) for i in range(3)]).result(10)
    for tp, err in result.items():
        if tp.partition in preferred_1:
            assert err is None
        else:
            assert err is not None and err.code() == KafkaError.ELECTION_NOT_NEEDED
    state = partition_state(sim, "orders")
    assert all(leader == replicas[0] for leader, replicas, _ in state)
    # every partition has its preferred leader: an all-partitions election has nothing to report
    assert admin.elect_leaders(ElectionType.PREFERRED, None).result(10) == {}


def test_elect_leaders_unclean_on_offline_partition(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("risky", 1, assignment={0: [1, 2]}))
    sim.call(lambda c: c.append(1, "risky", 0, None, 100, 1, 1000))
    assert sim.wait_for(lambda c: c.topics["risky"].partitions[0].hw == 100, 10)
    sim.call(lambda c: c.shutdown(2))  # the follower leaves the ISR ...
    sim.call(lambda c: c.shutdown(1))  # ... then the last ISR member goes: the partition is offline
    sim.call(lambda c: c.restart(2))
    assert sim.wait_for(lambda c: not c.brokers[2].fenced and settled(c), 10)
    assert partition_state(sim, "risky") == [(-1, [1, 2], [1])]

    admin = AdminClient({"bootstrap.servers": sim.bootstrap})
    tp = TopicPartition("risky", 0)
    preferred = admin.elect_leaders(ElectionType.PREFERRED, [tp]).result(10)
    assert preferred[tp].code() == KafkaError.PREFERRED_LEADER_NOT_AVAILABLE
    unclean = admin.elect_leaders(ElectionType.UNCLEAN, [tp]).result(10)
    assert list(unclean.values()) == [None]
    assert partition_state(sim, "risky") == [(2, [1, 2], [2])]
    again = admin.elect_leaders(ElectionType.UNCLEAN, [tp]).result(10)
    assert list(again.values())[0].code() == KafkaError.ELECTION_NOT_NEEDED
    unknown = admin.elect_leaders(ElectionType.UNCLEAN, [TopicPartition("ghost", 0)]).result(10)
    assert list(unknown.values())[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


# --------------------------------------------------------------------------- kafka-python admin
def test_describe_log_dirs_sizes_and_lag(
    sim: SimRunner, kadmin_factory: Callable[[SimRunner], KafkaAdminClient]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, assignment={0: [1, 2, 3]}))
    sim.call(lambda c: c.slow(3, 0.0))  # broker 3 stops copying
    sim.call(lambda c: c.append(1, "orders", 0, None, 10_000, 1, 1000))
    assert sim.wait_for(lambda c: c.topics["orders"].partitions[0].leo.get(2) == 10_000, 10)
    size = sim.call(lambda c: c.topics["orders"].partitions[0].log.size_bytes)
    assert size > 0

    dirs = kadmin_factory(sim).describe_log_dirs()
    by_broker = {d["broker"]: d["log_dirs"] for d in dirs}
    assert sorted(by_broker) == [1, 2, 3]
    seen: dict[int, tuple[int, int]] = {}
    for broker_id, log_dirs in by_broker.items():
        assert len(log_dirs) == 1
        (log_dir,) = log_dirs
        assert log_dir["error_code"] == 0 and log_dir["log_dir"] == f"/var/lib/kafka/data-{broker_id}"
        assert log_dir["total_bytes"] > 0 and log_dir["usable_bytes"] <= log_dir["total_bytes"]
        for topic in log_dir["topics"]:
            if topic["name"] == "orders":
                (p,) = topic["partitions"]
                assert p["partition_index"] == 0 and p["is_future_key"] is False
                seen[broker_id] = (p["partition_size"], p["offset_lag"])
    assert seen == {1: (size, 0), 2: (size, 0), 3: (0, 10_000)}


def test_partition_reassignment_raises_rf_1_to_3(
    sim: SimRunner, kadmin_factory: Callable[[SimRunner], KafkaAdminClient]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, assignment={0: [1]}))
    sim.call(lambda c: c.append(1, "orders", 0, None, 20_000, 1, 1000))
    sim.call(lambda c: c.slow(3, 0.0))  # hold the reassignment open until we have looked at it
    kadmin = kadmin_factory(sim)
    tp = KTopicPartition("orders", 0)
    assert kadmin.list_partition_reassignments() == {}
    # cancelling when nothing runs is a per-partition error
    assert kadmin.alter_partition_reassignments({tp: None}) == {tp: NoReassignmentInProgressError}

    assert kadmin.alter_partition_reassignments({tp: [1, 2, 3]}) == {tp: None}
    ongoing = kadmin.list_partition_reassignments()
    assert ongoing == {tp: {"replicas": [1, 2, 3], "adding_replicas": [2, 3], "removing_replicas": []}}
    assert kadmin.list_partition_reassignments({"orders": [0]}) == ongoing
    assert kadmin.list_partition_reassignments({"other": [0]}) == {}

    sim.call(lambda c: c.restore(3))
    deadline = time.monotonic() + 10
    while kadmin.list_partition_reassignments() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert kadmin.list_partition_reassignments() == {}
    assert sim.wait_for(lambda c: sorted(c.topics["orders"].partitions[0].isr) == [1, 2, 3], 10)
    (leader, replicas, isr) = partition_state(sim, "orders")[0]
    assert (leader, replicas, sorted(isr)) == (1, [1, 2, 3], [1, 2, 3])


def test_partition_reassignment_cancel(sim: SimRunner, kadmin_factory: Callable[[SimRunner], KafkaAdminClient]) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, assignment={0: [1]}))
    sim.call(lambda c: c.append(1, "orders", 0, None, 20_000, 1, 1000))
    sim.call(lambda c: c.slow(2, 0.0))
    kadmin = kadmin_factory(sim)
    tp = KTopicPartition("orders", 0)
    assert kadmin.alter_partition_reassignments({tp: [1, 2]}) == {tp: None}
    assert kadmin.list_partition_reassignments()[tp]["adding_replicas"] == [2]
    assert kadmin.alter_partition_reassignments({tp: None}) == {tp: None}
    assert kadmin.list_partition_reassignments() == {}
    assert sim.call(lambda c: list(c.topics["orders"].partitions[0].isr)) == [1]


def test_isr_has_no_duplicates_during_a_reassignment(
    sim: SimRunner, admin: AdminClient, kadmin_factory: Callable[[SimRunner], KafkaAdminClient]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, assignment={0: [1]}))
    sim.call(lambda c: c.append(1, "orders", 0, None, 1000, 1, 1000))
    sim.call(lambda c: c.slow(3, 0.0))
    tp = KTopicPartition("orders", 0)
    assert kadmin_factory(sim).alter_partition_reassignments({tp: [1, 2, 3]}) == {tp: None}
    assert sim.wait_for(lambda c: 2 in c.topics["orders"].partitions[0].isr, 10)
    isr = admin.list_topics("orders", timeout=10).topics["orders"].partitions[0].isrs
    assert sorted(isr) == [1, 2]


def test_cancelled_reassignment_restores_the_replica_set(
    sim: SimRunner, admin: AdminClient, kadmin_factory: Callable[[SimRunner], KafkaAdminClient]
) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, assignment={0: [1]}))
    sim.call(lambda c: c.append(1, "orders", 0, None, 1000, 1, 1000))
    sim.call(lambda c: c.slow(2, 0.0))
    kadmin = kadmin_factory(sim)
    tp = KTopicPartition("orders", 0)
    assert kadmin.alter_partition_reassignments({tp: [1, 2]}) == {tp: None}
    assert kadmin.alter_partition_reassignments({tp: None}) == {tp: None}
    assert admin.list_topics("orders", timeout=10).topics["orders"].partitions[0].replicas == [1]


def test_describe_topic_partitions_pages_with_a_cursor(
    sim: SimRunner, kadmin_factory: Callable[[SimRunner], KafkaAdminClient]
) -> None:
    sim.call(lambda c: c.create_topic("p1", 3, 3))
    sim.call(lambda c: c.create_topic("p2", 2, 2))
    kadmin = kadmin_factory(sim)
    page1 = kadmin.describe_topic_partitions(["p2", "p1"], response_partition_limit=2)
    assert [(t["name"], [p["partition_index"] for p in t["partitions"]]) for t in page1["topics"]] == [("p1", [0, 1])]
    assert page1["next_cursor"] == {"topic_name": "p1", "partition_index": 2}
    page2 = kadmin.describe_topic_partitions(["p1", "p2"], response_partition_limit=2, cursor=page1["next_cursor"])
    assert [(t["name"], [p["partition_index"] for p in t["partitions"]]) for t in page2["topics"]] == [
        ("p1", [2]),
        ("p2", [0]),
    ]
    assert page2["next_cursor"] == {"topic_name": "p2", "partition_index": 1}
    page3 = kadmin.describe_topic_partitions(["p1", "p2"], response_partition_limit=2, cursor=page2["next_cursor"])
    assert [(t["name"], [p["partition_index"] for p in t["partitions"]]) for t in page3["topics"]] == [("p2", [1])]
    assert page3["next_cursor"] is None

    everything = kadmin.describe_topic_partitions(["p1", "p2", "ghost"])
    by_name = {t["name"]: t for t in everything["topics"]}
    assert by_name["ghost"]["error_code"] == 3
    assert by_name["p1"]["error_code"] == 0 and len(by_name["p1"]["partitions"]) == 3
    p = by_name["p1"]["partitions"][0]
    assert sorted(p["replica_nodes"]) == [1, 2, 3] and sorted(p["isr_nodes"]) == [1, 2, 3]
    assert p["eligible_leader_replicas"] is None and p["offline_replicas"] == []
    assert by_name["p1"]["topic_id"] == sim.call(lambda c: c.topics["p1"].topic_id)


def test_describe_topic_partitions_shows_elr(
    sim_factory: Callable[..., SimRunner], kadmin_factory: Callable[[SimRunner], KafkaAdminClient]
) -> None:
    sim = sim_factory(3, elr=True)
    sim.call(lambda c: c.create_topic("strict", 1, assignment={0: [1, 2, 3]}, configs={"min.insync.replicas": "3"}))
    sim.call(lambda c: c.shutdown(3))  # the ISR drops below minISR: broker 3 becomes an eligible leader replica
    assert sim.wait_for(lambda c: c.topics["strict"].partitions[0].elr == [3], 10)
    assert sim.wait_for(settled, 10)
    result = kadmin_factory(sim).describe_topic_partitions(["strict"])
    (topic,) = result["topics"]
    (p,) = topic["partitions"]
    assert sorted(p["isr_nodes"]) == [1, 2]
    assert p["eligible_leader_replicas"] == [3]
    assert p["last_known_elr"] == [3]
    assert p["offline_replicas"] == [3]


# --------------------------------------------------------------------------- wire-level checks
def test_create_topics_v7_reports_the_created_topic(sim: SimRunner) -> None:
    T = CreateTopicsRequest.CreatableTopic
    request = CreateTopicsRequest(
        topics=[
            T(
                name="a",
                num_partitions=2,
                replication_factor=3,
                assignments=[],
                configs=[T.CreatableTopicConfig(name="min.insync.replicas", value="2")],
            ),
            T(name="b", num_partitions=-1, replication_factor=-1, assignments=[], configs=[]),
            T(name="b", num_partitions=1, replication_factor=1, assignments=[], configs=[]),
            T(
                name="c",
                num_partitions=3,
                replication_factor=1,
                assignments=[T.CreatableReplicaAssignment(partition_index=0, broker_ids=[1])],
                configs=[],
            ),
        ],
        timeout_ms=5000,
        validate_only=False,
    )
    response = raw_call(sim.port_of(2), request, CreateTopicsResponse, 7)
    by_name = {t.name: t for t in response.topics}
    a = by_name["a"]
    assert (a.error_code, a.num_partitions, a.replication_factor) == (0, 2, 3)
    assert a.topic_id == sim.call(lambda c: c.topics["a"].topic_id)
    configs = {c.name: (c.value, c.config_source) for c in a.configs}
    assert configs["min.insync.replicas"] == ("2", DYNAMIC_TOPIC)
    assert configs["cleanup.policy"] == ("delete", DEFAULT)
    assert (by_name["b"].error_code, by_name["b"].error_message) == (42, "Duplicate topic name.")
    assert by_name["c"].error_code == 42 and "was not set to -1" in (by_name["c"].error_message or "")
    assert sim.call(lambda c: sorted(c.topics)) == ["a"]

    dry = CreateTopicsRequest(
        topics=[T(name="d", num_partitions=-1, replication_factor=-1, assignments=[], configs=[])],
        timeout_ms=5000,
        validate_only=True,
    )
    (d,) = raw_call(sim.port_of(1), dry, CreateTopicsResponse, 7).topics
    assert (d.error_code, d.num_partitions, d.replication_factor) == (0, 1, 1) and d.configs
    assert sim.call(lambda c: "d" not in c.topics and not c.configs.has_topic("d"))


def test_delete_topics_v6_by_topic_id(sim: SimRunner) -> None:
    topic = sim.call(lambda c: c.create_topic("by-id", 1, 1))
    assert topic is not None
    topic_id = topic.topic_id
    D = DeleteTopicsRequest.DeleteTopicState
    unknown = uuid.uuid4()
    request = DeleteTopicsRequest(
        topics=[D(name=None, topic_id=topic_id), D(name=None, topic_id=unknown)], timeout_ms=5000
    )
    results = {
        (r.name, r.topic_id): (r.error_code, r.error_message)
        for r in raw_call(sim.port_of(3), request, DeleteTopicsResponse, 6).responses
    }
    assert results == {
        ("by-id", topic_id): (0, None),
        (None, unknown): (100, "This server does not host this topic ID."),
    }
    assert sim.call(lambda c: "by-id" not in c.topics)


def test_describe_configs_v4_types_docs_and_broker_checks(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 1))
    R = DescribeConfigsRequest.DescribeConfigsResource
    request = DescribeConfigsRequest(
        resources=[
            R(resource_type=2, resource_name="orders", configuration_keys=["min.insync.replicas"]),
            R(resource_type=4, resource_name="3", configuration_keys=None),
            R(resource_type=4, resource_name="1", configuration_keys=[]),
            R(resource_type=8, resource_name="1", configuration_keys=None),
        ],
        include_synonyms=True,
        include_documentation=True,
    )
    results = raw_call(sim.port_of(1), request, DescribeConfigsResponse, 4).results
    topic, other_broker, own_broker, logger = results
    (entry,) = topic.configs
    assert (entry.name, entry.value, entry.config_type) == ("min.insync.replicas", "1", 3)  # INT
    assert entry.documentation
    assert other_broker.error_code == 42
    assert other_broker.error_message == "Unexpected broker id, expected 1 or empty string, but received 3"
    assert own_broker.error_code == 0 and len(own_broker.configs) > 10  # empty key list = every config
    assert logger.error_code == 42 and logger.configs == []


def test_admin_requests_time_out_on_a_broker_cut_off_from_the_controller(sim: SimRunner) -> None:
    sim.isolate(2)
    assert sim.wait_for(lambda c: c.controller_id != 2, 5)
    T = CreateTopicsRequest.CreatableTopic
    request = CreateTopicsRequest(
        topics=[T(name="stuck", num_partitions=1, replication_factor=1, assignments=[], configs=[])],
        timeout_ms=300,
        validate_only=False,
    )
    started = time.monotonic()
    (result,) = raw_call(sim.port_of(2), request, CreateTopicsResponse, 5).topics
    assert result.error_code == 7 and time.monotonic() - started >= 0.25
    assert sim.call(lambda c: "stuck" not in c.topics)
    # any other broker forwards it (no NOT_CONTROLLER in KRaft)
    (ok,) = raw_call(sim.port_of(3), request, CreateTopicsResponse, 5).topics
    assert ok.error_code == 0


def test_alter_configs_cluster_default_and_broker_checks(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("orders", 1, 1))
    A = IncrementalAlterConfigsRequest.AlterConfigsResource
    C = A.AlterableConfig
    request = IncrementalAlterConfigsRequest(
        resources=[
            A(
                resource_type=4,
                resource_name="",
                configs=[C(name="log.retention.ms", config_operation=0, value="3600000")],
            ),
            A(
                resource_type=4,
                resource_name="3",
                configs=[C(name="log.cleaner.threads", config_operation=0, value="2")],
            ),
            A(
                resource_type=2,
                resource_name="orders",
                configs=[C(name="retention.ms", config_operation=0, value=None)],
            ),
            A(resource_type=2, resource_name="dup", configs=[]),
            A(resource_type=2, resource_name="dup", configs=[]),
        ],
        validate_only=False,
    )
    responses = raw_call(sim.port_of(1), request, IncrementalAlterConfigsResponse, 1).responses
    assert [(r.resource_name, r.error_code, r.error_message) for r in responses] == [
        ("", 0, None),
        ("3", 42, "Unexpected broker id, expected 1, but received 3"),
        ("orders", 42, "Null value not supported for : retention.ms"),
        ("dup", 42, "Each resource must appear at most once."),
        ("dup", 42, "Each resource must appear at most once."),
    ]
    R = DescribeConfigsRequest.DescribeConfigsResource
    describe = DescribeConfigsRequest(
        resources=[
            R(resource_type=4, resource_name="", configuration_keys=None),
            R(resource_type=2, resource_name="orders", configuration_keys=["retention.ms"]),
        ],
        include_synonyms=True,
        include_documentation=False,
    )
    cluster_default, topic = raw_call(sim.port_of(2), describe, DescribeConfigsResponse, 1).results
    assert [(e.name, e.value, e.config_source) for e in cluster_default.configs] == [
        ("log.retention.ms", "3600000", DYNAMIC_DEFAULT_BROKER)
    ]
    (retention,) = topic.configs
    assert (retention.value, retention.config_source) == ("3600000", DYNAMIC_DEFAULT_BROKER)
    assert [(s.name, s.source) for s in retention.synonyms][0] == ("log.retention.ms", DYNAMIC_DEFAULT_BROKER)


def test_describe_topic_partitions_cursor_must_name_a_requested_topic(sim: SimRunner) -> None:
    sim.call(lambda c: c.create_topic("p1", 1, 1))
    request = DescribeTopicPartitionsRequest(
        topics=[DescribeTopicPartitionsRequest.TopicRequest(name="p1")],
        response_partition_limit=10,
        cursor=DescribeTopicPartitionsRequest.Cursor(topic_name="p9", partition_index=0),
    )
    response = raw_call(sim.port_of(1), request, DescribeTopicPartitionsResponse, 0)
    assert [(t.name, t.error_code) for t in response.topics] == [("p1", 42)]
