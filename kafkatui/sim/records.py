"""Magic-v2 record batch helpers for the simulator's Produce and Fetch handlers.

The simulator stores the producer's record batches as raw bytes and serves them
back verbatim on Fetch, the way a Kafka broker does.  Encoding and decoding of
records is left to kafka-python's ``kafka.record``; this module only reads and
patches the fixed-size v2 batch header::

    baseOffset           int64   @0    (outside the CRC)
    batchLength          int32   @8    (bytes after this field)
    partitionLeaderEpoch int32   @12   (outside the CRC)
    magic                int8    @16
    crc                  uint32  @17   (CRC-32C over attributes..end)
    attributes           int16   @21
    lastOffsetDelta      int32   @23
    firstTimestamp       int64   @27
    maxTimestamp         int64   @35
    producerId           int64   @43
    producerEpoch        int16   @51
    baseSequence         int32   @53
    recordCount          int32   @57
    records                      @61

Assigning offsets only rewrites ``baseOffset`` and ``partitionLeaderEpoch``, so
the CRC stays valid and compressed batches are never re-encoded.
"""

from __future__ import annotations

import struct
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from kafka.record.default_records import DefaultRecordBatch
from kafka.record.memory_records import MemoryRecords, MemoryRecordsBuilder
from kafka.record.util import calc_crc32c

__all__ = [
    "CORRUPT_MESSAGE",
    "UNSUPPORTED_FOR_MESSAGE_FORMAT",
    "BatchInfo",
    "RecordError",
    "assign_offsets",
    "fetch_slice",
    "records_of",
    "split_batches",
    "synthetic_batch",
]

# Kafka error codes raised through RecordError.
CORRUPT_MESSAGE = 2
UNSUPPORTED_FOR_MESSAGE_FORMAT = 43

# Header field offsets (see module docstring).
_BASE_OFFSET_POS = 0
_LENGTH_POS = 8
_LEADER_EPOCH_POS = 12
_MAGIC_POS = 16
_CRC_POS = 17
_ATTRIBUTES_POS = 21
_MAX_TIMESTAMP_POS = 35

LOG_OVERHEAD = 12  # baseOffset + batchLength: bytes not counted by batchLength
HEADER_SIZE = 61  # full v2 batch header, records start here
_MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD

_CODEC_MASK = 0x07
_MAX_CODEC = 4  # zstd
_TIMESTAMP_TYPE_MASK = 0x08
_TRANSACTIONAL_MASK = 0x10
_CONTROL_MASK = 0x20

# attributes .. recordCount, i.e. everything after the CRC in the header.
_HEADER_TAIL = struct.Struct(">hiqqqhii")
_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_INT16 = struct.Struct(">h")

assert DefaultRecordBatch.HEADER_STRUCT.size == HEADER_SIZE
assert DefaultRecordBatch.ATTRIBUTES_OFFSET == _ATTRIBUTES_POS


class RecordError(Exception):
    """A record set that a Produce request must reject, with its Kafka error code."""

    error_code: int

    def __init__(self, message: str, error_code: int = CORRUPT_MESSAGE) -> None:
        super().__init__(message)
        self.error_code = error_code


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """Header fields of one v2 batch and where it sits in its buffer."""

    offset_in_buffer: int
    size: int  # total bytes incl. the 12-byte log overhead
    base_offset: int
    last_offset_delta: int
    record_count: int
    magic: int
    max_timestamp: int
    first_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    is_transactional: bool
    is_control: bool


def split_batches(data: bytes | bytearray | memoryview, verify_crc: bool = True) -> list[BatchInfo]:
    """Split one partition's Produce record set into batches, validating each header.

    Raises RecordError: UNSUPPORTED_FOR_MESSAGE_FORMAT (43) for magic 0/1 message
    sets, CORRUPT_MESSAGE (2) for truncation, a bad batchLength, an unknown magic
    or compression codec, a CRC mismatch, or inconsistent record counts.
    """
    view = memoryview(data)
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    end = len(view)
    infos: list[BatchInfo] = []
    pos = 0
    while pos < end:
        remaining = end - pos
        if remaining <= _MAGIC_POS:
            raise RecordError(f"truncated batch header at byte {pos}: {remaining} bytes left", CORRUPT_MESSAGE)
        magic = view[pos + _MAGIC_POS]
        if magic > 127:
            magic -= 256
        if magic in (0, 1):
            raise RecordError(
                f"message format v{magic} at byte {pos}: only magic 2 record batches are supported",
                UNSUPPORTED_FOR_MESSAGE_FORMAT,
            )
        if magic != 2:
            raise RecordError(f"invalid magic {magic} at byte {pos}", CORRUPT_MESSAGE)
        (batch_length,) = _INT32.unpack_from(view, pos + _LENGTH_POS)
        if batch_length < _MIN_BATCH_LENGTH:
            raise RecordError(
                f"batchLength {batch_length} at byte {pos} is below the minimum {_MIN_BATCH_LENGTH}",
                CORRUPT_MESSAGE,
            )
        size = LOG_OVERHEAD + batch_length
        if size > remaining:
            raise RecordError(
                f"truncated batch at byte {pos}: batchLength says {size} bytes, {remaining} left",
                CORRUPT_MESSAGE,
            )
        (base_offset,) = _INT64.unpack_from(view, pos + _BASE_OFFSET_POS)
        (
            attributes,
            last_offset_delta,
            first_timestamp,
            max_timestamp,
            producer_id,
            producer_epoch,
            base_sequence,
            record_count,
        ) = _HEADER_TAIL.unpack_from(view, pos + _ATTRIBUTES_POS)
        if verify_crc:
            (stored_crc,) = _UINT32.unpack_from(view, pos + _CRC_POS)
            actual_crc = calc_crc32c(view[pos + _ATTRIBUTES_POS : pos + size])
            if stored_crc != actual_crc:
                raise RecordError(
                    f"CRC mismatch in batch at byte {pos}: stored {stored_crc:#010x}, computed {actual_crc:#010x}",
                    CORRUPT_MESSAGE,
                )
        codec = attributes & _CODEC_MASK
        if codec > _MAX_CODEC:
            raise RecordError(f"unknown compression codec {codec} at byte {pos}", CORRUPT_MESSAGE)
        is_control = bool(attributes & _CONTROL_MASK)
        if record_count < 0 or last_offset_delta < 0:
            raise RecordError(
                f"negative recordCount ({record_count}) or lastOffsetDelta ({last_offset_delta}) at byte {pos}",
                CORRUPT_MESSAGE,
            )
        if not is_control and (record_count < 1 or last_offset_delta != record_count - 1):
            raise RecordError(
                f"batch at byte {pos} has recordCount {record_count} but lastOffsetDelta {last_offset_delta}",
                CORRUPT_MESSAGE,
            )
        infos.append(
            BatchInfo(
                offset_in_buffer=pos,
                size=size,
                base_offset=base_offset,
                last_offset_delta=last_offset_delta,
                record_count=record_count,
                magic=magic,
                max_timestamp=max_timestamp,
                first_timestamp=first_timestamp,
                producer_id=producer_id,
                producer_epoch=producer_epoch,
                base_sequence=base_sequence,
                is_transactional=bool(attributes & _TRANSACTIONAL_MASK),
                is_control=is_control,
            )
        )
        pos += size
    return infos


def assign_offsets(
    data: bytes | bytearray | memoryview,
    infos: list[BatchInfo],
    base_offset: int,
    leader_epoch: int,
    log_append_time: int | None = None,
) -> tuple[bytes, int]:
    """Give the batches of ``data`` consecutive offsets from ``base_offset``.

    ``infos`` must come from ``split_batches(data)``.  Each batch's baseOffset and
    partitionLeaderEpoch are patched in place (both lie outside the CRC, so the CRC
    stays valid and compressed payloads are untouched).  With ``log_append_time``
    the batches are switched to LOG_APPEND_TIME with that maxTimestamp, as a
    broker with ``message.timestamp.type=LogAppendTime`` does; that changes
    CRC-covered bytes, so only then is the CRC recomputed.

    Returns the rewritten bytes and the next offset to assign.
    """
    buf = bytearray(data)
    next_offset = base_offset
    for info in infos:
        pos = info.offset_in_buffer
        if pos < 0 or pos + info.size > len(buf):
            raise ValueError(f"batch at byte {pos} ({info.size} bytes) lies outside the buffer")
        _INT64.pack_into(buf, pos + _BASE_OFFSET_POS, next_offset)
        _INT32.pack_into(buf, pos + _LEADER_EPOCH_POS, leader_epoch)
        if log_append_time is not None:
            (attributes,) = _INT16.unpack_from(buf, pos + _ATTRIBUTES_POS)
            _INT16.pack_into(buf, pos + _ATTRIBUTES_POS, attributes | _TIMESTAMP_TYPE_MASK)
            _INT64.pack_into(buf, pos + _MAX_TIMESTAMP_POS, log_append_time)
            crc = calc_crc32c(memoryview(buf)[pos + _ATTRIBUTES_POS : pos + info.size])
            _UINT32.pack_into(buf, pos + _CRC_POS, crc)
        next_offset += info.last_offset_delta + 1
    return bytes(buf), next_offset


def _synthetic_value(offset: int, value_size: int) -> bytes:
    return (b"sim-load-%d" % offset).ljust(value_size, b".")[:value_size]


def synthetic_batch(
    base_offset: int,
    count: int,
    timestamp_ms: int,
    leader_epoch: int = 0,
    value_size: int = 64,
    key: bytes | None = None,
) -> bytes:
    """Build a valid uncompressed v2 batch of ``count`` generated records.

    Record ``i`` gets offset ``base_offset + i``, timestamp ``timestamp_ms`` and the
    value ``b"sim-load-<offset>"`` padded with dots (or cut) to ``value_size`` bytes.
    """
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    if value_size < 0:
        raise ValueError(f"value_size must be >= 0, got {value_size}")
    # Offsets are written as deltas from 0; the real base goes into the header below.
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=2**31 - 1, offset=0)
    for i in range(count):
        if builder.append(timestamp_ms, key, _synthetic_value(base_offset + i, value_size)) is None:
            raise ValueError(f"record {i} did not fit in the batch")
    builder.close()
    buf = builder.buffer()
    _INT64.pack_into(buf, _BASE_OFFSET_POS, base_offset)
    _INT32.pack_into(buf, _LEADER_EPOCH_POS, leader_epoch)
    return bytes(buf)


def _last_offset(batch: tuple[int, int, bytes]) -> int:
    return batch[1]


def fetch_slice(
    batches: Sequence[tuple[int, int, bytes]],
    fetch_offset: int,
    max_bytes: int,
    high_watermark: int,
) -> bytes:
    """Whole batches to serve for a Fetch at ``fetch_offset``.

    ``batches`` are ``(base_offset, last_offset, raw)`` in offset order.  Starts at
    the first batch whose last offset is >= ``fetch_offset`` (found by bisection),
    stops before the first batch at/after ``high_watermark``, and adds batches while
    the total stays within ``max_bytes`` -- except that the first batch is always
    returned whatever its size (KIP-74), so a consumer can make progress.
    """
    start = bisect_left(batches, fetch_offset, key=_last_offset)
    parts: list[bytes] = []
    total = 0
    for i in range(start, len(batches)):
        base, _last, raw = batches[i]
        if base >= high_watermark:
            break
        if parts and total + len(raw) > max_bytes:
            break
        parts.append(raw)
        total += len(raw)
    return b"".join(parts)


def records_of(data: bytes | bytearray | memoryview) -> list[tuple[int, bytes | None, bytes | None]]:
    """Decode every record of a record set as ``(offset, key, value)``; for tests and debugging."""
    out: list[tuple[int, bytes | None, bytes | None]] = []
    records = MemoryRecords(bytes(data))
    while records.has_next():
        batch = records.next_batch()
        for record in batch:
            out.append((record.offset, record.key, record.value))
    return out
