"""kafkatui's own writers and readers of the big answers are byte for byte kafka-python's encoding: the
Metadata answer read into columns (`metadata_wire.decode`, versions 1-13), DescribeLogDirs both ways
(`logdirs_wire`, versions 1-5) and DescribeConfigs both ways (`configs_wire`, versions 1-3), on random
clusters."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.protocol.admin import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    DescribeLogDirsRequest,
    DescribeLogDirsResponse,
)
from kafka.protocol.metadata import MetadataRequest, MetadataResponse

from kafkatui.kafka import configs_wire, firstread, logdirs_wire, metadata_wire, topicconfigs
from kafkatui.model.snapshot import DEFAULT_CONFIG, DYNAMIC_TOPIC_CONFIG, StateTable

BROKERS = st.lists(st.integers(0, 300), min_size=0, max_size=5, unique=True)
PARTITION = st.tuples(st.integers(-1, 300), BROKERS, BROKERS, BROKERS, st.sampled_from([0, 0, 0, 5, 9]))
TOPICS = st.dictionaries(
    st.text("abc-_.XYZé", min_size=1, max_size=8), st.lists(PARTITION, max_size=6), min_size=0, max_size=5
)


# runs of partitions of one shape (three replicas, ISR of two or three, no offline replica), now and then one
# that differs: the flexible reader's one-unpack runs (`metadata_wire._uniform_run`) and where they stop
TRIPLE = st.lists(st.integers(0, 300), min_size=3, max_size=3, unique=True)
RUN_PARTITION = st.one_of(
    st.tuples(
        st.integers(-1, 300), TRIPLE, st.lists(st.integers(0, 300), min_size=2, max_size=3), st.just([]), st.just(0)
    ),
    st.tuples(st.integers(-1, 300), TRIPLE, TRIPLE, st.just([]), st.just(0)),
    PARTITION,
)
RUN_TOPICS = st.dictionaries(
    st.text("abc", min_size=1, max_size=4), st.lists(RUN_PARTITION, max_size=40), min_size=1, max_size=3
)


@settings(max_examples=60, deadline=None)
@given(TOPICS, st.integers(1, 13), st.booleans())
def test_metadata_answer_read_into_columns(topics: dict, version: int, shuffled: bool) -> None:
    _read_into_columns(topics, version, shuffled)


@settings(max_examples=80, deadline=None)
@given(RUN_TOPICS, st.integers(9, 13), st.booleans())
def test_runs_of_one_shape_read_into_columns(topics: dict, version: int, shuffled: bool) -> None:
    _read_into_columns(topics, version, shuffled)


def _read_into_columns(topics: dict, version: int, shuffled: bool) -> None:
    """Encoded by kafka-python, read by `metadata_wire.decode`: the same brokers, topics and partitions."""
    R = MetadataResponse
    RTopic = R.MetadataResponseTopic
    entries = []
    for name, parts in topics.items():
        order = list(range(len(parts)))[::-1] if shuffled else range(len(parts))
        entries.append(
            RTopic(
                error_code=3 if name.startswith("X") else 0,
                name=name,
                topic_id=uuid.uuid4(),
                is_internal=name.startswith("_"),
                partitions=[
                    RTopic.MetadataResponsePartition(
                        error_code=parts[i][4],
                        partition_index=i,
                        leader_id=parts[i][0],
                        leader_epoch=7,
                        replica_nodes=parts[i][1],
                        isr_nodes=parts[i][2],
                        offline_replicas=parts[i][3],
                    )
                    for i in order
                ],
                authorized_operations=None,
            )
        )
    brokers = [
        R.MetadataResponseBroker(node_id=b, host=f"h{b}", port=9000 + b, rack=None if b % 2 else "r") for b in (1, 2)
    ]
    body = bytes(
        R(
            version=version,
            throttle_time_ms=0,
            brokers=brokers,
            cluster_id="cid",
            controller_id=2,
            topics=entries,
            authorized_operations=None,
            error_code=0,
        ).encode(version=version)
    )
    table = StateTable()
    md = metadata_wire.decode(body, version, table)
    assert md.controller_id == 2 and md.cluster_id == ("cid" if version >= 2 else None)
    assert {b: (x.host, x.port) for b, x in md.brokers.items()} == {1: ("h1", 9001), 2: ("h2", 9002)}
    parts_of, _ = metadata_wire.partitions_of(md, sorted(md.topics), frozenset({1, 2}))
    assert sorted(md.topics) == sorted(topics)
    for name, parts in topics.items():
        assert md.topics[name].error_code == (3 if name.startswith("X") else 0)
        got = [(p.partition, p.leader, list(p.replicas), list(p.isr), p.error_code) for p in parts_of[name]]
        assert got == [(i, leader, reps, isr, err) for i, (leader, reps, isr, _, err) in enumerate(parts)]
    # read again into the same table: the same state ids
    again, _ = metadata_wire.partitions_of(metadata_wire.decode(body, version, table), sorted(topics), frozenset())
    assert all(again[n].states == parts_of[n].states for n in topics)


HOSTED = st.dictionaries(
    st.text("abcdé-", min_size=1, max_size=6), st.lists(st.integers(0, 10_000), min_size=1, max_size=8, unique=True)
)


@settings(max_examples=60, deadline=None)
@given(HOSTED, st.integers(1, 5))
def test_log_dirs_request_is_kafka_pythons(hosted: dict, version: int) -> None:
    request = DescribeLogDirsRequest(topics=list(hosted.items()))
    assert logdirs_wire.encode_request(hosted, version) == bytes(request.encode(version=version))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 0, 56]), HOSTED), max_size=3), st.integers(1, 5))
def test_log_dirs_answer_read(dirs: list, version: int) -> None:
    R = DescribeLogDirsResponse
    Result = R.DescribeLogDirsResult
    Topic = Result.DescribeLogDirsTopic
    Part = Topic.DescribeLogDirsPartition
    results = [
        Result(
            error_code=code,
            log_dir=f"/data/{i}",
            topics=[
                Topic(
                    name=name,
                    partitions=[
                        Part(partition_index=p, partition_size=p * 1000, offset_lag=p % 7, is_future_key=p % 5 == 0)
                        for p in parts
                    ],
                )
                for name, parts in hosted.items()
            ],
            total_bytes=10,
            usable_bytes=5,
            is_cordoned=False,
        )
        for i, (code, hosted) in enumerate(dirs)
    ]
    body = bytes(R(version=version, throttle_time_ms=0, error_code=0, results=results).encode(version=version))
    got = logdirs_wire.decode_response(body, version)
    assert [(d.error_code, d.path) for d in got] == [(code, f"/data/{i}") for i, (code, _) in enumerate(dirs)]
    for d, (_, hosted) in zip(got, dirs, strict=True):
        assert d.replicas == {
            (name, p): (p * 1000, p % 7) for name, parts in hosted.items() for p in parts if p % 5 != 0
        }


CONFIG = st.tuples(
    st.sampled_from(["min.insync.replicas", "retention.ms", "cleanup.policy", "other.key", "long." * 30]),
    st.none() | st.text("0123abc", max_size=5) | st.just("x" * 130),
    st.booleans(),
    st.integers(1, 5),
    st.booleans(),
    st.booleans(),  # with a synonym
    st.none() | st.just("doc"),  # documentation
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abcdé-", min_size=1, max_size=6), max_size=5), st.sampled_from(configs_wire.VERSIONS))
def test_describe_configs_request_is_kafka_pythons(topics: list, version: int) -> None:
    keys = ["cleanup.policy", "min.insync.replicas"]
    request = DescribeConfigsRequest(resources=[(2, t, keys) for t in topics], include_synonyms=False)
    assert configs_wire.encode_request([(2, t) for t in topics], keys, version) == bytes(
        request.encode(version=version)
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text("abcdé", min_size=1, max_size=5), st.sampled_from([0, 0, 3, 29]), st.lists(CONFIG, max_size=4)
        ),
        max_size=4,
    ),
    st.sampled_from(configs_wire.VERSIONS),
)
def test_describe_configs_answer_read_as_kafka_pythons(results: list, version: int) -> None:
    R = DescribeConfigsResponse
    Result = R.DescribeConfigsResult
    Config = Result.DescribeConfigsResourceResult
    response = R(
        version=version,
        throttle_time_ms=0,
        results=[
            Result(
                error_code=code,
                error_message="no" if code else None,
                resource_type=2,
                resource_name=name,
                configs=[
                    Config(
                        name=k,
                        value=v,
                        read_only=ro,
                        config_source=src,
                        is_sensitive=sens,
                        synonyms=[Config.DescribeConfigsSynonym(name=k, value=v, source=src)] if syn else [],
                        config_type=2,
                        documentation=doc,
                    )
                    for k, v, ro, src, sens, syn, doc in configs
                ],
            )
            for name, code, configs in results
        ],
    )
    body = bytes(response.encode(version=version))
    keys = frozenset({"min.insync.replicas", "retention.ms", "cleanup.policy"})
    ours = topicconfigs.read_results(configs_wire.decode_response(body, version), keys, 1.0)
    theirs = topicconfigs.read_responses([R[version].decode(body)], keys, 1.0)
    assert (ours.configs, ours.failed, ours.deleted) == (theirs.configs, theirs.failed, theirs.deleted)
    read = configs_wire.read_answers([(version, body), (version, body)], keys, 1.0)  # the second from memory
    assert read.configs == theirs.configs
    assert (read.failed, read.deleted) == ({r: ts * 2 for r, ts in theirs.failed.items()}, theirs.deleted * 2)


def test_a_truncated_configs_answer_is_one_clear_error() -> None:
    """An answer cut short reads as a ValueError (the caller's one problem line), never an IndexError."""
    R = DescribeConfigsResponse
    Result = R.DescribeConfigsResult
    Config = Result.DescribeConfigsResourceResult
    config = Config(name="min.insync.replicas", value="2", read_only=False, config_source=5, is_sensitive=False)
    result = Result(error_code=0, error_message=None, resource_type=2, resource_name="orders", configs=[config])
    body = bytes(R(version=4, throttle_time_ms=0, results=[result]).encode(version=4))
    for cut in range(len(body) - 1):
        with pytest.raises(ValueError):
            configs_wire.read_answers([(4, body[:cut])], frozenset({"min.insync.replicas"}), 1.0)


def test_a_v0_configs_answer_reads_defaults_and_values_set_on_the_topic() -> None:
    """DescribeConfigs v0 has no source, only "is default": a default reads as Kafka's default, another
    value as set where the caller says (the topic), not as an unknown source."""
    R = DescribeConfigsResponse
    Result = R.DescribeConfigsResult
    Config = Result.DescribeConfigsResourceResult
    configs = [
        Config(name="min.insync.replicas", value="2", read_only=False, is_default=False, is_sensitive=False),
        Config(name="retention.ms", value="604800000", read_only=False, is_default=True, is_sensitive=False),
    ]
    response = R(
        version=0,
        throttle_time_ms=0,
        results=[Result(error_code=0, error_message=None, resource_type=2, resource_name="orders", configs=configs)],
    )
    body = bytes(response.encode(version=0))
    got = topicconfigs.read_responses([R[0].decode(body)], frozenset({"min.insync.replicas", "retention.ms"}), 1.0)
    values = got.configs["orders"]
    assert (values["min.insync.replicas"].value, values["min.insync.replicas"].source) == ("2", DYNAMIC_TOPIC_CONFIG)
    assert (values["retention.ms"].value, values["retention.ms"].source) == ("604800000", DEFAULT_CONFIG)


def test_first_read_metadata_request_is_kafka_pythons() -> None:
    request = MetadataRequest(
        topics=None,
        allow_auto_topic_creation=False,
        include_cluster_authorized_operations=False,
        include_topic_authorized_operations=False,
    )
    request.API_VERSION = firstread.METADATA_VERSION
    request.with_header(correlation_id=0x6B75, client_id="kafkatui")
    assert firstread.metadata_frame(0x6B75) == bytes(request.encode(framed=True, header=True))


def test_a_first_read_goes_on_our_own_connection_only_as_the_same_principal() -> None:
    assert firstread.usable({})
    assert firstread.usable({"security.protocol": "ssl", "ssl.certificate.location": "c.pem", "ssl.key.location": "k"})
    # a client certificate Python's ssl is not given: the broker could take us for another principal
    assert not firstread.usable({"security.protocol": "SSL", "ssl.keystore.location": "client.p12"})
    assert not firstread.usable({"security.protocol": "SSL", "ssl.certificate.pem": "-----BEGIN"})
    assert not firstread.usable({"security.protocol": "SSL", "enable.ssl.certificate.verification": "false"})
    assert not firstread.usable({"security.protocol": "SASL_SSL"})
    assert not firstread.usable({"security.protocol": "SASL_PLAINTEXT"})
