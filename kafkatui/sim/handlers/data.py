"""The data plane: Produce, Fetch, ListOffsets and InitProducerId."""

from __future__ import annotations

import asyncio
import bisect
from typing import Any

from kafka.protocol.consumer.fetch import FetchRequest, FetchResponse
from kafka.protocol.consumer.offsets import ListOffsetsRequest, ListOffsetsResponse
from kafka.protocol.producer.produce import ProduceRequest, ProduceResponse
from kafka.protocol.producer.transaction import InitProducerIdRequest, InitProducerIdResponse

from kafkatui.sim import errors as E
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.protocol import RequestContext, api
from kafkatui.sim.records import RecordError, assign_offsets, split_batches, synthetic_batch
from kafkatui.sim.state import Partition

POLL_SECONDS = 0.02


def _resolve_topic(cluster: SimCluster, name: str | None, topic_id: Any) -> tuple[str | None, int]:
    if name:
        return (name, E.NONE) if name in cluster.topics else (name, E.UNKNOWN_TOPIC_OR_PARTITION)
    if topic_id is not None:
        try:
            return cluster.topic_by_id(topic_id).name, E.NONE
        except E.SimError:
            return None, E.UNKNOWN_TOPIC_ID
    return None, E.UNKNOWN_TOPIC_OR_PARTITION


def _partition(cluster: SimCluster, name: str | None, index: int) -> Partition | None:
    t = cluster.topics.get(name or "")
    if t is None or not 0 <= index < len(t.partitions):
        return None
    return t.partitions[index]


# --------------------------------------------------------------------------- Produce
@api(ProduceRequest, ProduceResponse, min_version=3)
async def handle_produce(ctx: RequestContext, req: Any) -> Any:
    cluster = ctx.cluster
    R = ProduceResponse
    loop = asyncio.get_running_loop()
    acks = req.acks
    speed = cluster.clock.speed
    timeout_virtual = int(max(0, req.timeout_ms) * speed)
    results: list[tuple[Any, Any, list[tuple[int, Any]]]] = []  # (topic entry, name/id, [(index, result)])
    waits: list[asyncio.Future[int]] = []
    for td in req.topic_data:
        name, terr = _resolve_topic(cluster, getattr(td, "name", None), getattr(td, "topic_id", None))
        parts: list[tuple[int, Any]] = []
        for pd in td.partition_data:
            parts.append(
                (pd.index, _produce_one(ctx, name, terr, pd.index, pd.records, acks, timeout_virtual, loop, waits))
            )
        results.append((td, name, parts))
    if acks == 0:
        return None
    if waits:
        await asyncio.gather(*waits, return_exceptions=True)
    responses = []
    for td, _name, parts in results:
        presp = []
        for index, res in parts:
            if isinstance(res, asyncio.Future):
                code, base = res.result(), res.base  # type: ignore[attr-defined]
            else:
                code, base = res
            presp.append(
                R.TopicProduceResponse.PartitionProduceResponse(
                    index=index,
                    error_code=code,
                    base_offset=base if code == E.NONE else -1,
                    log_append_time_ms=-1,
                    log_start_offset=0 if code == E.NONE else -1,
                    record_errors=[],
                    error_message=None,
                )
            )
        responses.append(
            R.TopicProduceResponse(
                name=getattr(td, "name", None), topic_id=getattr(td, "topic_id", None), partition_responses=presp
            )
        )
    return R(version=ctx.version, responses=responses, throttle_time_ms=0, node_endpoints=[])


def _produce_one(
    ctx: RequestContext,
    name: str | None,
    topic_error: int,
    index: int,
    records: Any,
    acks: int,
    timeout_virtual: int,
    loop: asyncio.AbstractEventLoop,
    waits: list[asyncio.Future[int]],
) -> Any:
    cluster = ctx.cluster
    if topic_error != E.NONE:
        return (topic_error, -1)
    p = _partition(cluster, name, index)
    if p is None:
        return (E.UNKNOWN_TOPIC_OR_PARTITION, -1)
    if p.leader != ctx.broker.id:
        return (E.NOT_LEADER_OR_FOLLOWER, -1)
    data = bytes(records or b"")
    try:
        infos = split_batches(data)
    except RecordError as exc:
        return (exc.error_code, -1)
    if not infos:
        return (E.CORRUPT_MESSAGE, -1)
    count = sum(i.last_offset_delta + 1 for i in infos)
    max_ts = max(i.max_timestamp for i in infos)
    payload, _next = assign_offsets(data, infos, p.log.end_offset, p.leader_epoch)
    fut: asyncio.Future[int] | None = None
    callback = None
    if acks == -1:
        fut = loop.create_future()

        def callback(code: int, fut: asyncio.Future[int] = fut) -> None:
            if not fut.done():
                fut.set_result(code)

    code, base = cluster.append(
        ctx.broker.id, name or "", index, payload, count, acks, timeout_virtual, callback, max_timestamp=max_ts
    )
    if fut is None or code != E.NONE:
        return (code, base)
    fut.base = base  # type: ignore[attr-defined]
    waits.append(fut)
    return fut


# --------------------------------------------------------------------------- Fetch
def _slice(cluster: SimCluster, p: Partition, offset: int, max_bytes: int) -> bytes:
    """Whole batches from `offset` up to the high watermark, at least one, about `max_bytes`."""
    log = p.log
    i = bisect.bisect_left(log.lasts, offset)
    out: list[bytes] = []
    total = 0
    while i < len(log.bases) and log.bases[i] < p.hw:
        payload = log.payloads[i]
        if payload is None:
            count = log.lasts[i] - log.bases[i] + 1
            payload = synthetic_batch(log.bases[i], count, log.times[i], p.leader_epoch)
            log.materialize(i, payload)
        if out and total + len(payload) > max_bytes:
            break
        out.append(payload)
        total += len(payload)
        i += 1
    return b"".join(out)


def _fetch_partition(
    ctx: RequestContext, name: str | None, fp: Any, budget: int
) -> tuple[int, Partition | None, bytes]:
    cluster = ctx.cluster
    p = _partition(cluster, name, fp.partition)
    if p is None:
        return E.UNKNOWN_TOPIC_OR_PARTITION, None, b""
    if p.leader != ctx.broker.id:
        return E.NOT_LEADER_OR_FOLLOWER, p, b""
    epoch = getattr(fp, "current_leader_epoch", -1)
    if epoch is not None and epoch >= 0:
        if epoch > p.leader_epoch:
            return E.UNKNOWN_LEADER_EPOCH, p, b""
        if epoch < p.leader_epoch:
            return E.FENCED_LEADER_EPOCH, p, b""
    offset = fp.fetch_offset
    if offset < p.log.start_offset or offset > p.log.end_offset:
        return E.OFFSET_OUT_OF_RANGE, p, b""
    if offset >= p.hw:
        return E.NONE, p, b""
    return E.NONE, p, _slice(cluster, p, offset, min(fp.partition_max_bytes, budget))


@api(FetchRequest, FetchResponse)
async def handle_fetch(ctx: RequestContext, req: Any) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0, req.max_wait_ms) / 1000.0
    min_bytes = max(1, req.min_bytes)
    while True:
        budget = req.max_bytes if ctx.version >= 3 else 0x7FFFFFFF
        topics = []
        total = 0
        for ft in req.topics:
            name, terr = _resolve_topic(ctx.cluster, getattr(ft, "topic", None), getattr(ft, "topic_id", None))
            parts = []
            for fp in ft.partitions:
                if terr != E.NONE:
                    code, p, data = terr, None, b""
                else:
                    code, p, data = _fetch_partition(ctx, name, fp, max(1, budget - total))
                total += len(data)
                parts.append((fp.partition, code, p, data))
            topics.append((ft, parts))
        if total >= min_bytes or loop.time() >= deadline or any(c != E.NONE for _, ps in topics for _, c, _, _ in ps):
            break
        await asyncio.sleep(POLL_SECONDS)
        if ctx.broker.state.value == "down":
            return None
    return _fetch_response(ctx, topics)


def _fetch_response(
    ctx: RequestContext, topics: list[tuple[Any, list[tuple[int, int, Partition | None, bytes]]]]
) -> Any:
    R = FetchResponse
    PD = R.FetchableTopicResponse.PartitionData
    responses = []
    for ft, parts in topics:
        pdata = []
        for index, code, p, data in parts:
            leader = R.FetchableTopicResponse.PartitionData.LeaderIdAndEpoch(
                leader_id=p.leader if p is not None else -1, leader_epoch=p.leader_epoch if p is not None else -1
            )
            pdata.append(
                PD(
                    partition_index=index,
                    error_code=code,
                    high_watermark=p.hw if p is not None else -1,
                    last_stable_offset=p.hw if p is not None else -1,
                    log_start_offset=p.log.start_offset if p is not None else -1,
                    aborted_transactions=[] if ctx.version >= 4 else None,
                    preferred_read_replica=-1,
                    records=data,
                    **(
                        {"current_leader": leader}
                        if code in (E.NOT_LEADER_OR_FOLLOWER, E.FENCED_LEADER_EPOCH) and ctx.version >= 12
                        else {}
                    ),
                )
            )
        responses.append(
            R.FetchableTopicResponse(
                topic=getattr(ft, "topic", None), topic_id=getattr(ft, "topic_id", None), partitions=pdata
            )
        )
    return R(
        version=ctx.version, throttle_time_ms=0, error_code=E.NONE, session_id=0, responses=responses, node_endpoints=[]
    )


# --------------------------------------------------------------------------- ListOffsets
LATEST, EARLIEST, MAX_TIMESTAMP = -1, -2, -3


@api(ListOffsetsRequest, ListOffsetsResponse)
async def handle_list_offsets(ctx: RequestContext, req: Any) -> Any:
    R = ListOffsetsResponse
    cluster = ctx.cluster
    topics = []
    for t in req.topics:
        parts = []
        for lp in t.partitions:
            code, ts, off, epoch = E.NONE, -1, -1, -1
            p = _partition(cluster, t.name, lp.partition_index)
            if p is None:
                code = E.UNKNOWN_TOPIC_OR_PARTITION
            elif p.leader != ctx.broker.id:
                code = E.NOT_LEADER_OR_FOLLOWER
            else:
                epoch = p.leader_epoch
                if lp.timestamp == LATEST:
                    off = p.hw
                elif lp.timestamp == EARLIEST:
                    off = p.log.start_offset
                elif lp.timestamp == MAX_TIMESTAMP:
                    if p.log.lasts and p.hw > 0:
                        i = bisect.bisect_left(p.log.lasts, p.hw - 1)
                        off, ts = min(p.log.lasts[min(i, len(p.log.lasts) - 1)], p.hw - 1), max(p.log.times[: i + 1])
                else:
                    found = p.log.offset_for_time(lp.timestamp)
                    if found is not None and found < p.hw:
                        off, ts = found, lp.timestamp
            parts.append(
                R.ListOffsetsTopicResponse.ListOffsetsPartitionResponse(
                    partition_index=lp.partition_index,
                    error_code=code,
                    old_style_offsets=[off] if off >= 0 else [],
                    timestamp=ts,
                    offset=off,
                    leader_epoch=epoch,
                )
            )
        topics.append(R.ListOffsetsTopicResponse(name=t.name, partitions=parts))
    return R(version=ctx.version, throttle_time_ms=0, topics=topics)


# --------------------------------------------------------------------------- InitProducerId
@api(InitProducerIdRequest, InitProducerIdResponse)
async def handle_init_producer_id(ctx: RequestContext, req: Any) -> Any:
    pid = req.producer_id if getattr(req, "producer_id", -1) not in (None, -1) else ctx.cluster.next_producer_id()
    epoch = (req.producer_epoch + 1) if getattr(req, "producer_epoch", -1) not in (None, -1) else 0
    return InitProducerIdResponse(
        version=ctx.version,
        throttle_time_ms=0,
        error_code=E.NONE,
        producer_id=pid,
        producer_epoch=epoch,
        ongoing_txn_producer_id=-1,
        ongoing_txn_producer_epoch=-1,
    )
