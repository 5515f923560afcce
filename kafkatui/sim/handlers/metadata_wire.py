"""The all-topics Metadata answer encoded straight from the cluster's state, byte for byte what
kafka-python's `MetadataResponse(...).encode(version=v)` gives (tests/sim/test_metadata_wire.py).

A broker answers Metadata from its metadata cache at the cost of writing the bytes; the simulator built a
kafka-python object per partition and encoded it: about 2 s per version at 105,000 partitions, paid again
after every state change (a broker shutdown, an ISR shrink), so a client's first Metadata after an
incident waited seconds that a real broker does not take. This writes the same bytes in one pass.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Sequence

from kafkatui.kafka.wire import uvarint
from kafkatui.sim.state import Partition

_AUTHORIZED_OPS_UNSET = -2147483648  # INT32_MIN: "authorized operations not requested"
LEADER_NOT_AVAILABLE = 5
FLEXIBLE = 9


class _Writer:
    """The encodings of one version: lengths, strings and int32 arrays (arrays cached by value)."""

    def __init__(self, version: int) -> None:
        self.flexible = version >= FLEXIBLE
        self._arrays: dict[tuple[int, ...], bytes] = {}

    def length(self, n: int) -> bytes:
        return uvarint(n + 1) if self.flexible else struct.pack(">i", n)

    def string(self, s: str | None) -> bytes:
        if s is None:
            return b"\x00" if self.flexible else b"\xff\xff"
        raw = s.encode()
        return (uvarint(len(raw) + 1) if self.flexible else struct.pack(">h", len(raw))) + raw

    def int32s(self, values: Sequence[int]) -> bytes:
        key = tuple(values)
        got = self._arrays.get(key)
        if got is None:
            got = self._arrays[key] = self.length(len(key)) + struct.pack(f">{len(key)}i", *key)
        return got


def encode_partitions(parts: Iterable[Partition], version: int, offline: frozenset[int], w: _Writer) -> bytes:
    """One topic's partitions array; `offline`: the brokers whose replicas are offline (fenced or down)."""
    head = struct.Struct(">hiii" if version >= 7 else ">hii").pack
    tag = b"\x00" if w.flexible else b""
    ints, with_offline, with_epoch = w.int32s, version >= 5, version >= 7
    none = ints(())
    chunks: list[bytes] = []
    add = chunks.append
    n = 0
    for p in parts:
        n += 1
        leader = p.leader
        err = LEADER_NOT_AVAILABLE if leader == -1 else 0
        add(head(err, p.index, leader, p.leader_epoch) if with_epoch else head(err, p.index, leader))
        add(ints(p.replicas))
        add(ints(p.isr))
        if with_offline:
            add(ints([r for r in p.replicas if r in offline]) if offline else none)
        add(tag)
    return w.length(n) + b"".join(chunks)


def encode_metadata(
    version: int,
    brokers: Sequence[tuple[int, str, int, str | None]],
    cluster_id: str | None,
    controller_id: int,
    topics: Sequence[tuple[str, uuid.UUID, bool, Sequence[Partition]]],
    offline: frozenset[int],
) -> bytes:
    """The response body (no header) of an all-topics Metadata request at `version` (0-13)."""
    w = _Writer(version)
    tag = b"\x00" if w.flexible else b""
    out: list[bytes] = []
    add = out.append
    if version >= 3:
        add(struct.pack(">i", 0))  # throttle time
    add(w.length(len(brokers)))
    for node_id, host, port, rack in brokers:
        add(struct.pack(">i", node_id) + w.string(host) + struct.pack(">i", port))
        if version >= 1:
            add(w.string(rack))
        add(tag)
    if version >= 2:
        add(w.string(cluster_id))
    if version >= 1:
        add(struct.pack(">i", controller_id))
    add(w.length(len(topics)))
    for name, topic_id, internal, parts in topics:
        add(b"\x00\x00" + w.string(name))
        if version >= 10:
            add(topic_id.bytes)
        if version >= 1:
            add(b"\x01" if internal else b"\x00")
        add(encode_partitions(parts, version, offline, w))
        if version >= 8:
            add(struct.pack(">i", _AUTHORIZED_OPS_UNSET))
        add(tag)
    if 8 <= version <= 10:
        add(struct.pack(">i", _AUTHORIZED_OPS_UNSET))
    if version >= 13:
        add(b"\x00\x00")
    add(tag)
    return b"".join(out)


__all__ = ["encode_metadata", "encode_partitions"]
