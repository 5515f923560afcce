"""The simulator's DescribeLogDirs answer, written straight to bytes, is byte for byte kafka-python's
encoding of the same response at every version it writes, and reads back through kafkatui's reader."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.protocol.admin.cluster import DescribeLogDirsResponse as DL

from kafkatui.kafka.logdirs_wire import decode_response
from kafkatui.sim.handlers.logdirs_wire import encode_answer

NAMES = st.text(alphabet="abcxyz._-0129", min_size=1, max_size=12)
ROWS = st.lists(st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**62), st.integers(0, 2**62)), max_size=40)
TOPICS = st.lists(st.tuples(NAMES, ROWS), max_size=6, unique_by=lambda t: t[0])


def kafka_pythons(
    version: int, log_dir: str, topics: list[tuple[str, list[tuple[int, int, int]]]], total: int, usable: int
) -> bytes:
    result = DL.DescribeLogDirsResult
    topic = result.DescribeLogDirsTopic
    partition = topic.DescribeLogDirsPartition
    answer = DL(
        version=version,
        throttle_time_ms=0,
        error_code=0,
        results=[
            result(
                error_code=0,
                log_dir=log_dir,
                topics=[
                    topic(
                        name=name,
                        partitions=[
                            partition(partition_index=i, partition_size=s, offset_lag=lag, is_future_key=False)
                            for i, s, lag in rows
                        ],
                    )
                    for name, rows in topics
                ],
                total_bytes=total,
                usable_bytes=usable,
                is_cordoned=False,
            )
        ],
    )
    return bytes(answer.encode(version=version))


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 5),
    st.text(alphabet="/abc-é1", min_size=1, max_size=20),
    TOPICS,
    st.integers(0, 2**62),
    st.integers(0, 2**62),
)
def test_the_answer_is_kafka_pythons_bytes(version: int, log_dir: str, topics: list, total: int, usable: int) -> None:
    body = encode_answer(version, log_dir, topics, total, usable)
    assert body == kafka_pythons(version, log_dir, topics, total, usable)
    (read,) = decode_response(body, max(1, version))  # v0 reads as v1: the same fields
    assert read.path == log_dir
    assert read.replicas == {(name, i): (s, lag) for name, rows in topics for i, s, lag in rows}
