"""Replica log dirs as kafkatui reads them from real Kafka, on every mode and rule set.

kafkatui sends DescribeLogDirs itself and reads kafka-python's decoded answer in place
(`kafkatui.kafka.kpreads._describe_log_dirs`): each replica's size, offset lag and log dir must be
what kafka-python's own `describe_log_dirs` says of the same partitions.
"""

from __future__ import annotations

import time

from kafkatui.lab.cluster import LabCluster
from tests.lab.support import create_topic, produce


def test_log_dirs_equal_kafka_pythons_own_reading(any_lab: LabCluster) -> None:
    from kafka.admin import KafkaAdminClient

    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource

    topic = f"logdirs-{time.monotonic_ns()}"
    create_topic(any_lab, topic, 3, rf=3, min_isr=2)
    for partition in range(3):
        assert produce(any_lab, topic, n=100, acks="all", partition=partition).acked == 100
    with KafkaClusterSource(ConnectionSettings(any_lab.bootstrap, timeout=10), log_dirs="all") as source:
        snap = source.snapshot()
    assert not snap.partial, snap.problems
    assert snap.log_dirs is not None
    ours = {k: (v.size, v.offset_lag, v.log_dir) for k, v in snap.log_dirs.items() if k[0] == topic}
    kadmin = KafkaAdminClient(bootstrap_servers=any_lab.bootstrap)
    try:
        theirs = {}
        for bid in sorted(snap.broker_ids):
            for entry in kadmin.describe_log_dirs({topic: [0, 1, 2]}, [bid]):
                for d in entry["log_dirs"]:
                    for t in d["topics"]:
                        for p in t["partitions"]:
                            key = (t["name"], p["partition_index"], bid)
                            theirs[key] = (p["partition_size"], p["offset_lag"], d["log_dir"])
    finally:
        kadmin.close()
    assert len(ours) == 9 and ours.keys() == theirs.keys()
    # sizes only grow between the two reads, and nothing is written meanwhile: equal
    assert ours == theirs
    assert all(size > 0 for size, _, _ in ours.values())
