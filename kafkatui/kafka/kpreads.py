"""The kafka-python reads of a snapshot: DescribeLogDirs (replica sizes and offset lag, one
request per broker), DescribeTopicPartitions (ELR, KIP-966, only for topics with a partition
under min ISR), and the topic configs' DescribeConfigs after a first read. Part of
`kafkatui.kafka.source.KafkaClusterSource`; the requests are sent from its `_details`, which waits
for them alongside the configs.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kafkatui.kafka import configs_wire, logdirs_wire, topicconfigs
from kafkatui.kafka.answers import _describe_topic_partitions, _int, _storage
from kafkatui.kafka.clients import SourceClients
from kafkatui.kafka.diagnose import _kp_reason
from kafkatui.kafka.logdirs_wire import LogDir
from kafkatui.model.snapshot import ConfigValue, Partitions, ReplicaLog

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


def _describe_log_dirs(kadmin: Any, hosted: Mapping[str, list[int]], broker: int, timeout: float) -> list[LogDir]:
    """DescribeLogDirs of `hosted` ({topic: partitions}) asked of `broker`: its log dirs. The request is
    written and the answer read by `kafkatui.kafka.logdirs_wire` (kafka-python's encoder and its container
    per replica took ~0.3 s of its IO thread when a broker of a 100,000-partition cluster left 21,000
    replicas behind)."""
    from kafka.protocol.admin import DescribeLogDirsRequest

    from kafkatui.kafka import kpraw

    request = kpraw.RawRequest(DescribeLogDirsRequest(topics=[]), lambda v: logdirs_wire.encode_request(hosted, v))
    version, body = kpraw.send(kadmin, request, broker, timeout).result(timeout=timeout + 1.0)
    return logdirs_wire.decode_response(body, version)


def _describe_topic_configs(
    kadmin: Any, names: Sequence[str], keys: frozenset[str], per_request: int, node: int | None, timeout: float
) -> topicconfigs.TopicConfigs:
    """The kept `keys` of the topics `names`, asked of broker `node` (None: kafka-python's least loaded),
    `per_request` topics a request, all sent at once. Written and read by `kafkatui.kafka.configs_wire`
    (kafka-python's encoder and decoder took ~0.13 s of its IO thread at every refresh of 2,001 topics); a v0
    answer (Kafka before 1.1) by kafka-python. Raises what kafka-python raises (a timeout, a lost connection)."""
    import io

    from kafka.protocol.admin import DescribeConfigsResponse

    from kafkatui.kafka import kpraw

    wanted = sorted(keys)
    chunks = [names[i : i + per_request] for i in range(0, len(names), per_request)]
    # kafka-python's own requests write a v0 body (the versions configs_wire does not)
    requests = topicconfigs.describe_requests(names, wanted, per_request)
    sent = [
        kpraw.send(kadmin, kpraw.RawRequest(req, functools.partial(_configs_body, req, chunk, wanted)), node, timeout)
        for req, chunk in zip(requests, chunks, strict=True)
    ]
    answers = [f.result(timeout=timeout + 1.0) for f in sent]
    if all(v in configs_wire.VERSIONS for v, _ in answers):
        return configs_wire.read_answers(answers, keys, timeout)
    decoded = [DescribeConfigsResponse.decode(io.BytesIO(b), version=v) for v, b in answers]
    return topicconfigs.read_responses(decoded, keys, timeout)


def _configs_body(request: Any, names: Sequence[str], keys: Sequence[str], version: int) -> bytes:
    """A DescribeConfigs body at the version kafka-python chose: configs_wire's, or `request`'s own for v0."""
    if version in configs_wire.VERSIONS:
        return configs_wire.encode_request([(topicconfigs.TOPIC_RESOURCE, n) for n in names], keys, version)
    return bytes(request.encode(version=version))


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
            dirs: list[LogDir] = fut.result()
            if not dirs and hosted.get(bid):
                problems.append(
                    f"log dirs of broker {bid} unknown: the answer listed no log dir "
                    "(DescribeLogDirs not authorized? it needs DESCRIBE on the CLUSTER resource)"
                )
                continue
            answered += 1
            for d in dirs:
                path, code = d.path, d.error_code
                if code:
                    problems.append(f"broker {bid}: log dir {path} is unavailable (error {code}{_storage(code)})")
                    continue
                for (name, pid), (size, lag) in d.replicas.items():  # future replicas (a move between dirs) left out
                    out[(name, pid, bid)] = ReplicaLog(size, lag, path)
        return out if answered else None

    def _elr(
        self,
        kadmin: Any,
        parts: Mapping[str, Partitions],
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
        if suspect:
            # each distinct state once: short of its replicas (by how much) or leaderless
            known = next(iter(parts.values())).table.states if parts else []
            used: set[int] = set().union(*(cols.states for cols in parts.values()))
            isr_of = {sid: len(known[sid][2]) for sid in used if len(known[sid][2]) < len(known[sid][1])}
            leaderless = {sid for sid in used if known[sid][0] < 0}
            suspects = isr_of.keys() | leaderless
            for name, cols in parts.items():
                hit = suspects.intersection(cols.states)
                if not hit:
                    continue
                cv = topic_configs.get(name, {}).get("min.insync.replicas")
                if cv is not None:
                    min_isr = _int(cv.value, default_min_isr)
                elif name in topic_configs:
                    min_isr = default_min_isr
                else:  # configs unknown: ask for every under-replicated partition
                    min_isr = 1 << 30
                if any(sid in leaderless or isr_of[sid] < min_isr for sid in hit):
                    wanted.append(name)
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
