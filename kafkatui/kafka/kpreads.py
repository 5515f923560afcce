"""The kafka-python reads of a snapshot: DescribeLogDirs (replica sizes and offset lag, one
request per broker) and DescribeTopicPartitions (ELR, KIP-966, only for topics with a partition
under min ISR). Part of `kafkatui.kafka.source.KafkaClusterSource`; the requests are sent from its
`_details`, which waits for them alongside the configs.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kafkatui.kafka.answers import _describe_topic_partitions, _int, _kp_send, _storage
from kafkatui.kafka.clients import SourceClients
from kafkatui.kafka.diagnose import _kp_reason
from kafkatui.model.snapshot import ConfigValue, ReplicaLog

log = logging.getLogger(__name__)

LEARN_BROKERS_SECONDS = 1.0
"""At most this long a snapshot waits for kafka-python to learn a broker the metadata names and it does not."""
DTP_API_KEY = 75


def _learn_brokers(kadmin: Any, broker_ids: Sequence[int], wait: float) -> None:
    """Make kafka-python's broker list (refreshed every 30 s) hold every broker the metadata just named:
    a broker back from a crash would otherwise be "not in the cluster" to it, and its log dirs unknown,
    for up to 30 s after the events said it joined. Asks one refresh and waits at most `wait` seconds."""
    try:
        cluster = kadmin._manager.cluster
        if all(cluster.broker_metadata(bid) is not None for bid in broker_ids):
            return
        update = cluster.request_update()
    except Exception as exc:  # another kafka-python: its own refresh will do
        log.debug("kafka-python broker list not refreshed: %s", exc)
        return
    deadline = time.monotonic() + wait
    while not update.is_done and time.monotonic() < deadline:
        time.sleep(0.02)


def _describe_log_dirs(kadmin: Any, hosted: Mapping[str, list[int]], broker: int, timeout: float) -> list[Any]:
    """DescribeLogDirs of `hosted` ({topic: partitions}) asked of `broker`: its log dirs as kafka-python
    decoded them (kafka-python's own `describe_log_dirs` makes a dict of every entry, 0.2 s of the
    dashboard's refresh when a broker of a 100,000-partition cluster left 21,000 replicas behind)."""
    from kafka.protocol.admin import DescribeLogDirsRequest

    (response,) = _kp_send(kadmin, [DescribeLogDirsRequest(topics=list(hosted.items()))], broker, timeout)
    return list(response.results)


class KafkaPythonReads(SourceClients):
    """The kafka-python reads of `kafkatui.kafka.source.KafkaClusterSource`: log dirs and ELR."""

    def _log_dirs(
        self,
        futures: Mapping[int, cf.Future[Any]],
        hosted: Mapping[int, Mapping[str, list[int]]],
        budget: float,
        problems: list[str],
    ) -> dict[tuple[str, int, int], ReplicaLog] | None:
        out: dict[tuple[str, int, int], ReplicaLog] = {}
        answered = 0
        for bid, fut in futures.items():
            if not fut.done():
                problems.append(f"log dirs of broker {bid} unknown: no answer within {budget:.1f}s")
                continue
            exc = fut.exception()
            if exc is not None:
                problems.append(f"log dirs of broker {bid} unknown: {_kp_reason(exc, budget)}")
                continue
            dirs: list[Any] = fut.result()
            if not dirs and hosted.get(bid):
                problems.append(
                    f"log dirs of broker {bid} unknown: the answer listed no log dir "
                    "(DescribeLogDirs not authorized? it needs DESCRIBE on the CLUSTER resource)"
                )
                continue
            answered += 1
            for d in dirs:
                path = str(d.log_dir or "")
                code = int(d.error_code or 0)
                if code:
                    problems.append(f"broker {bid}: log dir {path} is unavailable (error {code}{_storage(code)})")
                    continue
                for t in d.topics or ():
                    name = t.name
                    for p in t.partitions or ():
                        if p.is_future_key:
                            continue  # a replica being moved between log dirs: the current one counts
                        out[(name, p.partition_index, bid)] = ReplicaLog(p.partition_size or 0, p.offset_lag or 0, path)
        return out if answered else None

    def _elr(
        self,
        kadmin: Any,
        md: Any,
        topic_configs: Mapping[str, Mapping[str, ConfigValue]],
        broker_configs: Mapping[int, Mapping[str, ConfigValue]],
        deadline: float,
        budget: float,
        problems: list[str],
        suspect: bool,
        node: int | None,
    ) -> dict[tuple[str, int], dict[str, Any]] | None:
        """ELR of partitions under min ISR (DescribeTopicPartitions); None if API 75 is unsupported.

        KIP-966 keeps an ELR only while the ISR is below min ISR, so only topics with such a
        partition are asked; every other partition's ELR is known to be empty. Without a `suspect`
        partition (one out of sync or leaderless) none is under min ISR and none is looked at.
        """
        try:
            supported = DTP_API_KEY in {int(k) for k in kadmin.api_versions()}
        except ValueError:
            # kafka-python 3.0.12 cannot name an API key newer than it knows ("93 is not a valid ApiKey" from
            # Kafka 4.4): such a broker is newer than DescribeTopicPartitions (3.8), so ask it
            supported = True
        except Exception:
            supported = False
        if not supported:
            return None
        default_min_isr = _int(
            next(
                (
                    c["min.insync.replicas"].value
                    for _, c in sorted(broker_configs.items())
                    if "min.insync.replicas" in c
                ),
                None,
            ),
            1,
        )
        wanted: list[str] = []
        for name, t in md.topics.items() if suspect else ():
            cv = topic_configs.get(name, {}).get("min.insync.replicas")
            if cv is not None:
                min_isr = _int(cv.value, default_min_isr)
            elif name in topic_configs:
                min_isr = default_min_isr
            else:  # configs unknown: ask for every under-replicated partition
                min_isr = 1 << 30
            for p in t.partitions.values():
                short = len(p.isrs)
                if (short < min_isr and short < len(p.replicas)) or p.leader < 0:
                    wanted.append(name)
                    break
        if not wanted:
            return {}
        key = "elr"
        previous = self._inflight.get(key)
        if previous is not None and not previous.done():
            problems.append("ELR unknown: an earlier DescribeTopicPartitions request is still unanswered")
            return None
        fut = self._pool().submit(_describe_topic_partitions, kadmin, wanted, deadline, node)
        self._inflight[key] = fut
        done, _ = cf.wait([fut], timeout=max(0.0, deadline - time.monotonic()))
        if not done:
            problems.append(f"ELR unknown for {len(wanted)} topic(s) under min ISR: no answer within {budget:.1f}s")
            return None
        exc = fut.exception()
        if exc is not None:
            problems.append(f"ELR unknown for {len(wanted)} topic(s) under min ISR: {_kp_reason(exc, budget)}")
            return None
        result: dict[tuple[str, int], dict[str, Any]] = fut.result()
        return result
