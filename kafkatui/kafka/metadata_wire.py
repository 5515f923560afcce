"""A snapshot's metadata as columns: the brokers, and per topic its partition ids and state ids into the
source's `StateTable`, with no object per partition.

Two ways in: `from_client` reads librdkafka's `list_topics` answer (a Python object per partition, built
by confluent-kafka), `decode` reads the raw body of an all-topics Metadata answer (versions 1-13) as the
broker sent it. At 105,000 partitions confluent-kafka's objects cost ~0.35 s of CPU per read and the
columns another ~0.1 s; `decode` makes the columns from the bytes in one pass, reading only the leader
and the replica and ISR bytes of each partition and unpacking a state only the first time it is seen.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kafkatui.kafka.wire import Reader
from kafkatui.model.snapshot import PartitionExtra, Partitions, StateTable

FLEXIBLE = 9
"""The first Metadata version in Kafka's flexible encoding (compact arrays and strings, tagged fields)."""


@dataclass(frozen=True, slots=True)
class Listed:
    """A broker the metadata lists (librdkafka's `BrokerMetadata` has the same `host` and `port`)."""

    id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(slots=True)
class TopicColumns:
    """One topic's partitions: ids in the answer's order, their state ids, partition error codes by index."""

    error_code: int
    ids: list[int]
    states: array[int]
    errors: dict[int, int] | None = None


@dataclass(slots=True)
class MetadataColumns:
    """What the rest of a snapshot reads of the metadata."""

    brokers: dict[int, Listed]
    cluster_id: str | None
    controller_id: int
    topics: dict[str, TopicColumns]
    table: StateTable  # the state ids' table

    def partition_count(self) -> int:
        return sum(len(t.states) for t in self.topics.values())


def from_client(md: Any, table: StateTable) -> MetadataColumns:
    """librdkafka's `ClusterMetadata` as columns of `table`."""
    id_of = table.id_of
    flat: dict[tuple[int, ...], int] = {}  # (leader, len(replicas), *replicas, *isr) -> state id: one tuple to build
    topics: dict[str, TopicColumns] = {}
    for name, t in md.topics.items():
        states = array("i")
        add = states.append
        errors: dict[int, int] | None = None
        for i, p in enumerate(t.partitions.values()):
            reps = p.replicas
            key = (p.leader, len(reps), *reps, *p.isrs)
            sid = flat.get(key)
            if sid is None:
                sid = flat[key] = id_of(p.leader, reps, p.isrs)
            add(sid)
            if p.error is not None:
                if errors is None:
                    errors = {}
                errors[i] = p.error.code()
        topics[name] = TopicColumns(t.error.code() if t.error is not None else 0, list(t.partitions), states, errors)
    brokers = {bid: Listed(bid, b.host, b.port) for bid, b in md.brokers.items()}
    return MetadataColumns(brokers, md.cluster_id, md.controller_id, topics, table)


def decode(body: bytes, version: int, table: StateTable) -> MetadataColumns:
    """The body of an all-topics Metadata answer (after the response header) as columns of `table`."""
    if not 1 <= version <= 13:
        raise ValueError(f"Metadata v{version} is not read here")
    flexible = version >= FLEXIBLE
    r = Reader(body, flexible)
    if version >= 3:
        r.pos += 4  # throttle time
    brokers: dict[int, Listed] = {}
    for _ in range(r.length()):
        bid = r.int32()
        host = r.string() or ""
        port = r.int32()
        rack = r.string()
        r.tags()
        brokers[bid] = Listed(bid, host, port, rack)
    cluster_id = r.string() if version >= 2 else None
    controller_id = r.int32()
    topics: dict[str, TopicColumns] = {}
    for _ in range(max(0, r.length())):
        error = r.int16()
        name = r.string()
        if version >= 10:
            r.pos += 16  # topic id
        r.pos += 1  # is_internal
        cols = _partitions(r, version, table)
        if version >= 8:
            r.pos += 4  # topic authorized operations
        r.tags()
        if name is not None:
            cols.error_code = error
            topics[name] = cols
    if r.pos > len(body):
        raise ValueError("Metadata answer ends early")
    return MetadataColumns(brokers, cluster_id, controller_id, topics, table)


_HEAD = struct.Struct(">hii")
_HEAD_EPOCH = struct.Struct(">hiiii")
_HEAD_NO_EPOCH = struct.Struct(">hiii")
_COUNT = struct.Struct(">i")


def _partitions(r: Reader, version: int, table: StateTable) -> TopicColumns:
    """A topic's partitions array. A state's key is the leader's and the replica and ISR arrays' bytes
    (the leader epoch and offline replicas are not part of it): unpacked once per distinct key."""
    if r.flexible:
        return _flexible_partitions(r, version, table)
    buf = r.buf
    n = r.length()
    pos = r.pos
    keys = table.memo.setdefault(False, {})  # the two encodings' keys differ
    epoch = 4 if version >= 7 else 0
    head = (_HEAD_EPOCH if epoch else _HEAD_NO_EPOCH).unpack_from  # error, id, leader, [epoch,] replica count
    count = _COUNT.unpack_from
    offline = version >= 5
    ids: list[int] = []
    states = array("i")
    errors: dict[int, int] | None = None
    for i in range(max(0, n)):
        got = head(buf, pos)
        err, pid, reps = got[0], got[1], got[-1]
        start = pos + 6
        rep_start = pos + 10 + epoch
        pos = rep_start + 4 + 4 * reps
        (isr,) = count(buf, pos)
        pos += 4 + 4 * isr
        if reps < 0 or isr < 0:
            raise ValueError("a null replica list")
        key = buf[start : start + 4] + buf[rep_start:pos]
        sid = keys.get(key)
        if sid is None:
            sid = keys[key] = _state_of(buf, start, rep_start, pos, False, table)
        ids.append(pid)
        states.append(sid)
        if err:
            if errors is None:
                errors = {}
            errors[i] = err
        if offline:  # offline replicas: derived from the listed brokers, as for librdkafka's answer
            (c,) = count(buf, pos)
            pos += 4 + 4 * max(0, c)
    r.pos = pos
    return TopicColumns(0, ids, states, errors)


def _flexible_partitions(r: Reader, version: int, table: StateTable) -> TopicColumns:
    """`_partitions` in the flexible encoding (v9+): arrays counted by a varint of length + 1 (one byte
    below 127 entries), a tagged-fields byte after each partition."""
    buf = r.buf
    n = r.length()
    pos = r.pos
    keys = table.memo.setdefault(True, {})
    head = _HEAD.unpack_from
    ids: list[int] = []
    states = array("i")
    errors: dict[int, int] | None = None
    n = max(0, n)
    i = 0
    while i < n:
        # runs of records of one shape in one unpack; one partition at a time where the shape changes
        done, pos, errors = _uniform_run(buf, pos, i, n, keys, ids, states, errors, table)
        i += done
        if i == n:
            break
        err, pid, _leader = head(buf, pos)
        start = pos + 6
        pos += 14  # with the leader epoch (v7+)
        rep_start = pos
        for _ in (0, 1):  # replicas, ISR
            c = buf[pos]
            if c & 0x80:
                r.pos = pos
                c = r.uvarint()
                pos = r.pos
            else:
                pos += 1
            if c > 1:
                pos += 4 * (c - 1)
        key = buf[start : start + 4] + buf[rep_start:pos]
        sid = keys.get(key)
        if sid is None:
            sid = keys[key] = _state_of(buf, start, rep_start, pos, True, table)
        ids.append(pid)
        states.append(sid)
        if err:
            if errors is None:
                errors = {}
            errors[i] = err
        c = buf[pos]  # offline replicas: derived from the listed brokers, as for librdkafka's answer
        if c & 0x80:
            r.pos = pos
            c = r.uvarint()
            pos = r.pos
        else:
            pos += 1
        if c > 1:
            pos += 4 * (c - 1)
        if buf[pos] == 0:  # no tagged fields
            pos += 1
        else:
            r.pos = pos
            r.tags()
            pos = r.pos
        i += 1
    r.pos = pos
    return TopicColumns(0, ids, states, errors)


def _uniform_run(
    buf: bytes,
    pos: int,
    first: int,
    n: int,
    keys: dict[bytes, int],
    ids: list[int],
    states: array[int],
    errors: dict[int, int] | None,
    table: StateTable,
) -> tuple[int, int, dict[int, int] | None]:
    """From partition `first` of `n`, the partitions of a flexible partitions array that share its replica
    and ISR counts (under 127 each), with no offline replicas nor tagged fields: records of one size, read
    by one `struct.iter_unpack` (about half the cost per partition of `_flexible_partitions`' own loop). Each
    record's count bytes are checked before it is used, so the run stops at the first that differs, which
    starts where a record of this size ends. (Partitions read, the position after them, errors by index.)"""
    if pos + 16 > len(buf):
        return 0, pos, errors
    rc1 = buf[pos + 14]  # replica count + 1
    if rc1 == 0 or rc1 & 0x80 or pos + 15 + 4 * (rc1 - 1) >= len(buf):
        return 0, pos, errors
    cut = 1 + 4 * (rc1 - 1)  # the ISR count's offset within the arrays' bytes
    ic1 = buf[pos + 14 + cut]
    if ic1 == 0 or ic1 & 0x80:
        return 0, pos, errors
    arrays = cut + 1 + 4 * (ic1 - 1)
    stride = 14 + arrays + 2  # error, id, leader, epoch, the arrays, offline count (0), tagged fields (none)
    k = min(n - first, (len(buf) - pos) // stride)
    if k <= 0:
        return 0, pos, errors
    add_id, add_state, get = ids.append, states.append, keys.get
    i = 0
    for err, pid, lead, arr, off, tag in struct.iter_unpack(
        f">hi4s4x{arrays}sBB", memoryview(buf)[pos : pos + k * stride]
    ):
        if arr[0] != rc1 or arr[cut] != ic1 or off != 1 or tag:
            break
        key = lead + arr
        sid = get(key)
        if sid is None:
            at = pos + i * stride
            sid = keys[key] = _state_of(buf, at + 6, at + 14, at + 14 + arrays, True, table)
        add_id(pid)
        add_state(sid)
        if err:
            if errors is None:
                errors = {}
            errors[first + i] = err
        i += 1
    return i, pos + i * stride, errors


def _state_of(buf: bytes, leader_at: int, arrays_at: int, end: int, flexible: bool, table: StateTable) -> int:
    """The state id of a partition whose leader and replica/ISR arrays sit at these offsets."""
    (leader,) = struct.unpack_from(">i", buf, leader_at)
    r = Reader(buf, flexible)
    r.pos = arrays_at
    lists: list[tuple[int, ...]] = []
    for _ in (0, 1):
        c = max(0, r.length())
        lists.append(struct.unpack_from(f">{c}i", buf, r.pos))
        r.pos += 4 * c
    assert r.pos == end
    return table.id_of(leader, lists[0], lists[1])


def partitions_of(
    md: MetadataColumns, names: Sequence[str], live: frozenset[int]
) -> tuple[dict[str, Partitions], bool]:
    """Every named topic's partitions as `Partitions` of the metadata's table (ids sorted), and whether any partition
    has an out-of-sync replica. Offline replicas are derived by the views from `live` (replicas on brokers
    absent from the metadata: fenced or dead), plus any DescribeTopicPartitions names."""
    out: dict[str, Partitions] = {}
    table = md.table
    for name in names:
        t = md.topics[name]
        pids, states, errors = t.ids, t.states, t.errors
        if pids != sorted(pids):
            order = sorted(range(len(pids)), key=pids.__getitem__)
            states = array("i", [states[i] for i in order])
            pids = [pids[i] for i in order]
            if errors is not None:
                where = {old: new for new, old in enumerate(order)}
                errors = {where[i]: code for i, code in errors.items()}
        n = len(pids)
        ids: Sequence[int] = range(n) if not pids or (pids[0] == 0 and pids[-1] == n - 1) else tuple(pids)
        extras = {i: PartitionExtra(error_code=code) for i, code in errors.items()} if errors else None
        out[name] = Partitions(name, ids, states, table, live, extras=extras)
    known = table.states
    used: set[int] = set().union(*(p.states for p in out.values()))
    return out, any(len(known[sid][2]) < len(known[sid][1]) for sid in used)


__all__ = ["Listed", "MetadataColumns", "TopicColumns", "decode", "from_client", "partitions_of"]
