"""Plain state of the simulated cluster: brokers, topics, partitions and their logs."""

from __future__ import annotations

import bisect
import uuid
from dataclasses import dataclass, field
from enum import StrEnum

SYNTHETIC_RECORD_BYTES = 100
"""Bytes counted per record of simulated load (records the simulator made up, not a client)."""


class BrokerState(StrEnum):
    """Process state of a simulated broker."""

    UP = "up"
    DOWN = "down"  # crashed or shut down: its listener is gone
    HUNG = "hung"  # accepts connections, answers nothing, replicates nothing
    ISOLATED = "isolated"  # clients reach it; other brokers and the controller do not


@dataclass(slots=True)
class Broker:
    """One simulated broker and the faults applied to it."""

    id: int
    host: str
    port: int
    rack: str | None = None
    state: BrokerState = BrokerState.UP
    fenced: bool = False
    last_heartbeat_ms: int = 0
    slow_factor: float = 1.0  # replication speed multiplier (slow disk/network < 1)
    paused_until_ms: int = 0  # GC-like pause: nothing happens on this broker until then
    response_delay_s: float = 0.0  # every answer to a client comes this many real seconds late
    log_dir: str = "/var/lib/kafka/data"

    def paused(self, now_ms: int) -> bool:
        return now_ms < self.paused_until_ms

    def replicating(self, now_ms: int) -> bool:
        """True when this broker can fetch from and serve fetches to the other brokers."""
        return self.state == BrokerState.UP and not self.paused(now_ms) and not self.fenced

    def heartbeating(self, now_ms: int) -> bool:
        """True when the controller hears from this broker."""
        return self.state == BrokerState.UP and not self.paused(now_ms)

    def serving_clients(self) -> bool:
        return self.state in (BrokerState.UP, BrokerState.ISOLATED)


class PartitionLog:
    """The leader's log: whole record batches in offset order.

    A batch is either the bytes a client produced (offsets assigned) or a run of records the
    simulator generated as load, kept as a count and turned into bytes only when fetched.
    """

    __slots__ = ("bases", "lasts", "payloads", "times", "size_bytes", "start_offset")

    def __init__(self) -> None:
        self.bases: list[int] = []
        self.lasts: list[int] = []
        self.payloads: list[bytes | None] = []
        self.times: list[int] = []  # max timestamp of each batch
        self.size_bytes = 0
        self.start_offset = 0

    @property
    def end_offset(self) -> int:
        return self.lasts[-1] + 1 if self.lasts else self.start_offset

    def append(self, base: int, last: int, payload: bytes | None, max_timestamp: int = -1) -> None:
        self.bases.append(base)
        self.lasts.append(last)
        self.payloads.append(payload)
        self.times.append(max_timestamp)
        self.size_bytes += len(payload) if payload is not None else (last - base + 1) * SYNTHETIC_RECORD_BYTES

    def cut_at(self, offset: int) -> int:
        """Make `offset` a batch boundary where that is free, and return the boundary used.

        A generated batch nobody has fetched yet (payload None) is only a count of records, so it
        splits at any offset; a batch of real bytes cannot, and the answer is the boundary at or
        below `offset` (replicas hold whole batches).
        """
        if offset >= self.end_offset:
            return self.end_offset
        i = bisect.bisect_right(self.bases, offset) - 1
        if i < 0:
            return self.start_offset
        base, last = self.bases[i], self.lasts[i]
        if base == offset or last < offset:
            return base if base == offset else last + 1
        if self.payloads[i] is not None:
            return base
        self.bases.insert(i + 1, offset)
        self.lasts.insert(i + 1, last)
        self.payloads.insert(i + 1, None)
        self.times.insert(i + 1, self.times[i])
        self.lasts[i] = offset - 1
        return offset

    def truncate(self, offset: int) -> None:
        """Drop every batch at or above `offset` (which must be a batch boundary)."""
        i = bisect.bisect_left(self.bases, offset)
        for payload, base, last in zip(self.payloads[i:], self.bases[i:], self.lasts[i:], strict=True):
            self.size_bytes -= len(payload) if payload is not None else (last - base + 1) * SYNTHETIC_RECORD_BYTES
        del self.bases[i:], self.lasts[i:], self.payloads[i:], self.times[i:]

    def materialize(self, i: int, payload: bytes) -> None:
        """Replace a synthetic batch by the bytes that were generated for it."""
        base, last = self.bases[i], self.lasts[i]
        self.size_bytes += len(payload) - (last - base + 1) * SYNTHETIC_RECORD_BYTES
        self.payloads[i] = payload

    def offset_for_time(self, timestamp: int) -> int | None:
        """First offset of the earliest batch whose max timestamp is >= `timestamp`."""
        for i, t in enumerate(self.times):
            if t >= timestamp:
                return self.bases[i]
        return None

    def size_below(self, offset: int) -> int:
        """Approximate bytes a replica whose log ends at `offset` holds."""
        if offset >= self.end_offset:
            return self.size_bytes
        if not self.bases:
            return 0
        frac = (offset - self.start_offset) / max(1, self.end_offset - self.start_offset)
        return int(self.size_bytes * frac)


@dataclass(slots=True)
class Partition:
    """Replication state of one partition."""

    topic: str
    index: int
    replicas: list[int]
    isr: list[int]
    leader: int
    leader_epoch: int = 0
    partition_epoch: int = 0
    leo: dict[int, int] = field(default_factory=dict)
    last_caught_up_ms: dict[int, int] = field(default_factory=dict)
    hw: int = 0
    elr: list[int] = field(default_factory=list)
    last_known_elr: list[int] = field(default_factory=list)
    adding: list[int] = field(default_factory=list)
    removing: list[int] = field(default_factory=list)
    reassign_from: list[int] = field(default_factory=list)  # replica list before a running reassignment
    log: PartitionLog = field(default_factory=PartitionLog)
    acked_end: int = 0  # every acks=all record below this offset was acknowledged to a producer
    load_credit: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.index}"

    @property
    def preferred_leader(self) -> int:
        return self.replicas[0] if self.replicas else -1


@dataclass(slots=True)
class Topic:
    """A topic and its partitions."""

    name: str
    partitions: list[Partition]
    topic_id: uuid.UUID = field(default_factory=uuid.uuid4)
    internal: bool = False
    labels: dict[str, str] = field(default_factory=dict)
