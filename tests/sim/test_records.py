"""Tests for kafkatui.sim.records: v2 batch splitting, offset assignment and fetch slicing."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import overload

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatch
from kafka.record.memory_records import MemoryRecords, MemoryRecordsBuilder
from kafka.record.util import calc_crc32c

from kafkatui.sim.records import (
    CORRUPT_MESSAGE,
    UNSUPPORTED_FOR_MESSAGE_FORMAT,
    BatchInfo,
    RecordError,
    assign_offsets,
    fetch_slice,
    records_of,
    split_batches,
    synthetic_batch,
)

TS = 1_700_000_000_000
CODEC_GZIP = 1


def build(
    values: Sequence[bytes | None],
    *,
    keys: Sequence[bytes | None] | None = None,
    magic: int = 2,
    compression_type: int = 0,
    producer: tuple[int, int, int, bool] | None = None,
    headers: list[tuple[str, bytes | None]] | None = None,
) -> bytes:
    """A batch as a producer would send it (base offset 0), via kafka-python's builder."""
    builder = MemoryRecordsBuilder(magic=magic, compression_type=compression_type, batch_size=1 << 30, offset=0)
    if producer is not None:
        builder.set_producer_state(*producer)
    for i, value in enumerate(values):
        key = keys[i] if keys is not None else b"key-%d" % i
        assert builder.append(TS + i, key, value, headers) is not None
    builder.close()
    return bytes(builder.buffer())


def patch_and_recrc(raw: bytes, fmt: str, pos: int, value: int) -> bytes:
    """Change a CRC-covered header field and recompute the CRC so only that field is 'wrong'."""
    buf = bytearray(raw)
    struct.pack_into(fmt, buf, pos, value)
    struct.pack_into(">I", buf, 17, calc_crc32c(memoryview(buf)[21:]))
    return bytes(buf)


def decoded_batches(data: bytes) -> list[DefaultRecordBatch]:
    records = MemoryRecords(data)
    out = []
    while records.has_next():
        batch = records.next_batch()
        assert isinstance(batch, DefaultRecordBatch)
        out.append(batch)
    return out


# --------------------------------------------------------------------------- split_batches


def test_split_empty_input() -> None:
    assert split_batches(b"") == []
    assert split_batches(memoryview(b"")) == []


def test_split_single_batch_fields() -> None:
    raw = build([b"a", b"b", b"c"])
    [info] = split_batches(raw)
    assert info == BatchInfo(
        offset_in_buffer=0,
        size=len(raw),
        base_offset=0,
        last_offset_delta=2,
        record_count=3,
        magic=2,
        max_timestamp=TS + 2,
        first_timestamp=TS,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        is_transactional=False,
        is_control=False,
    )


def test_split_multiple_batches_with_producer_state_and_gzip() -> None:
    plain = build([b"p0", b"p1"])
    idempotent = build([b"i0"], producer=(4242, 3, 17, False))
    transactional = build([b"t0", b"t1", b"t2"], producer=(99, 1, 0, True))
    gz = build([b"x" * 200] * 5, compression_type=CODEC_GZIP)
    assert DefaultRecordBatch(gz).compression_type == CODEC_GZIP  # really compressed
    data = plain + idempotent + transactional + gz

    infos = split_batches(data)

    assert [i.offset_in_buffer for i in infos] == [
        0,
        len(plain),
        len(plain) + len(idempotent),
        len(plain) + len(idempotent) + len(transactional),
    ]
    assert [i.size for i in infos] == [len(plain), len(idempotent), len(transactional), len(gz)]
    assert [i.record_count for i in infos] == [2, 1, 3, 5]
    assert [(i.producer_id, i.producer_epoch, i.base_sequence) for i in infos] == [
        (-1, -1, -1),
        (4242, 3, 17),
        (99, 1, 0),
        (-1, -1, -1),
    ]
    assert [i.is_transactional for i in infos] == [False, False, True, False]
    assert not any(i.is_control for i in infos)


def test_split_accepts_memoryview_and_bytearray() -> None:
    raw = build([b"a"]) + build([b"b", b"c"])
    expected = split_batches(raw)
    assert split_batches(memoryview(raw)) == expected
    assert split_batches(bytearray(raw)) == expected


def test_split_accepts_control_batch() -> None:
    # A commit marker: key = (version 0, type 1); the control and transactional bits are set
    # in the header (kafka-python's builder never sets them itself).
    raw = build([b"\x00\x00\x00\x00\x00\x00"], keys=[struct.pack(">hh", 0, 1)], producer=(7, 0, 0, True))
    (attributes,) = struct.unpack_from(">h", raw, 21)
    control = patch_and_recrc(raw, ">h", 21, attributes | 0x20)

    [info] = split_batches(control)

    assert info.is_control and info.is_transactional
    [batch] = decoded_batches(control)
    assert batch.is_control_batch and batch.validate_crc()
    [record] = list(batch)
    assert record.commit


def test_corrupted_crc_is_corrupt_message() -> None:
    raw = bytearray(build([b"hello", b"world"]))
    raw[-1] ^= 0xFF  # flip a byte of the last record
    with pytest.raises(RecordError) as exc:
        split_batches(bytes(raw))
    assert exc.value.error_code == CORRUPT_MESSAGE == 2
    # The header is still fine, so without CRC checking it splits.
    assert len(split_batches(bytes(raw), verify_crc=False)) == 1


def test_corrupted_stored_crc_is_corrupt_message() -> None:
    raw = bytearray(build([b"hello"]))
    raw[17] ^= 0x01
    with pytest.raises(RecordError) as exc:
        split_batches(bytes(raw))
    assert exc.value.error_code == CORRUPT_MESSAGE


@pytest.mark.parametrize(
    "cut",
    [
        pytest.param(1, id="last-byte"),
        pytest.param(30, id="inside-records"),
    ],
)
def test_truncated_batch_is_corrupt_message(cut: int) -> None:
    good = build([b"first"])
    data = good + build([b"v" * 40, b"w" * 40])[:-cut]
    with pytest.raises(RecordError) as exc:
        split_batches(data)
    assert exc.value.error_code == CORRUPT_MESSAGE


@pytest.mark.parametrize("tail", [1, 11, 12, 16, 17, 40, 60])
def test_truncated_header_is_corrupt_message(tail: int) -> None:
    raw = build([b"abc"])
    with pytest.raises(RecordError) as exc:
        split_batches(raw + raw[:tail])
    assert exc.value.error_code == CORRUPT_MESSAGE


@pytest.mark.parametrize("length", [-1, 0, 48, -(2**31)])
def test_bad_batch_length_is_corrupt_message(length: int) -> None:
    buf = bytearray(build([b"abc"]))
    struct.pack_into(">i", buf, 8, length)
    with pytest.raises(RecordError) as exc:
        split_batches(bytes(buf))
    assert exc.value.error_code == CORRUPT_MESSAGE


def test_batch_length_past_end_is_corrupt_message() -> None:
    buf = bytearray(build([b"abc"]))
    struct.pack_into(">i", buf, 8, len(buf))  # 12 bytes more than there are
    with pytest.raises(RecordError) as exc:
        split_batches(bytes(buf))
    assert exc.value.error_code == CORRUPT_MESSAGE


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_magic_is_unsupported_for_message_format(magic: int) -> None:
    legacy = build([b"old", b"format"], magic=magic)
    assert legacy[16] == magic
    with pytest.raises(RecordError) as exc:
        split_batches(legacy)
    assert exc.value.error_code == UNSUPPORTED_FOR_MESSAGE_FORMAT == 43
    # Also when it follows a good v2 batch.
    with pytest.raises(RecordError) as exc:
        split_batches(build([b"new"]) + legacy)
    assert exc.value.error_code == UNSUPPORTED_FOR_MESSAGE_FORMAT


@pytest.mark.parametrize("magic", [3, 127, -1])
def test_unknown_magic_is_corrupt_message(magic: int) -> None:
    buf = bytearray(build([b"abc"]))
    struct.pack_into(">b", buf, 16, magic)
    with pytest.raises(RecordError) as exc:
        split_batches(bytes(buf))
    assert exc.value.error_code == CORRUPT_MESSAGE


@pytest.mark.parametrize(
    ("fmt", "pos", "value"),
    [
        pytest.param(">i", 57, 0, id="record-count-zero"),
        pytest.param(">i", 57, 5, id="record-count-too-big"),
        pytest.param(">i", 57, -1, id="record-count-negative"),
        pytest.param(">i", 23, 1, id="last-offset-delta-too-small"),
        pytest.param(">i", 23, 7, id="last-offset-delta-too-big"),
        pytest.param(">i", 23, -1, id="last-offset-delta-negative"),
    ],
)
def test_inconsistent_record_count_is_corrupt_message(fmt: str, pos: int, value: int) -> None:
    raw = patch_and_recrc(build([b"a", b"b", b"c"]), fmt, pos, value)
    with pytest.raises(RecordError) as exc:
        split_batches(raw)
    assert exc.value.error_code == CORRUPT_MESSAGE


def test_unknown_compression_codec_is_corrupt_message() -> None:
    raw = patch_and_recrc(build([b"a"]), ">h", 21, 0x07)
    with pytest.raises(RecordError) as exc:
        split_batches(raw)
    assert exc.value.error_code == CORRUPT_MESSAGE


# --------------------------------------------------------------------------- assign_offsets


def test_assign_offsets_round_trip() -> None:
    batches = [
        build([b"p0", b"p1"], keys=[None, b"k1"]),
        build([b"i0"], producer=(4242, 3, 17, False)),
        build([b"t0", None, b"t2"], producer=(99, 1, 0, True)),
        build([b"gz-%d" % i * 50 for i in range(6)], compression_type=CODEC_GZIP),
    ]
    assert DefaultRecordBatch(batches[3]).compression_type == CODEC_GZIP
    data = b"".join(batches)
    before = records_of(data)
    infos = split_batches(data)

    out, next_offset = assign_offsets(data, infos, base_offset=1000, leader_epoch=7)

    assert next_offset == 1000 + 2 + 1 + 3 + 6
    assert len(out) == len(data)
    decoded = decoded_batches(out)
    assert [b.base_offset for b in decoded] == [1000, 1002, 1003, 1006]
    assert [b.last_offset for b in decoded] == [1001, 1002, 1005, 1011]
    for batch in decoded:
        assert batch.leader_epoch == 7
        assert batch.validate_crc()  # baseOffset/epoch are outside the CRC
    assert decoded[1].producer_id == 4242 and decoded[1].base_sequence == 17
    assert decoded[2].is_transactional
    assert decoded[3].compression_type == CODEC_GZIP  # not recompressed
    # Offsets are now absolute; keys and values are unchanged.
    after = records_of(out)
    assert [o for o, _, _ in after] == list(range(1000, 1012))
    assert [(k, v) for _, k, v in after] == [(k, v) for _, k, v in before]
    # The rewritten set is itself a valid produce record set.
    assert [i.size for i in split_batches(out)] == [len(b) for b in batches]


def test_assign_offsets_does_not_touch_other_bytes() -> None:
    data = build([b"a", b"b"]) + build([b"c"], compression_type=CODEC_GZIP)
    out, _ = assign_offsets(data, split_batches(data), base_offset=2**40, leader_epoch=3)
    changed = {i for i, (a, b) in enumerate(zip(data, out, strict=True)) if a != b}
    second = len(build([b"a", b"b"]))
    allowed = (
        set(range(0, 8)) | set(range(12, 16)) | set(range(second, second + 8)) | set(range(second + 12, second + 16))
    )
    assert changed <= allowed


def test_assign_offsets_accepts_memoryview_and_returns_bytes() -> None:
    data = build([b"a", b"b"])
    out, next_offset = assign_offsets(memoryview(data), split_batches(data), 5, 0)
    assert isinstance(out, bytes)
    assert next_offset == 7
    assert data[:8] == b"\x00" * 8  # input untouched
    assert [o for o, _, _ in records_of(out)] == [5, 6]


def test_assign_offsets_empty() -> None:
    assert assign_offsets(b"", [], 42, 1) == (b"", 42)


def test_assign_offsets_log_append_time() -> None:
    data = build([b"a", b"b", b"c"]) + build([b"d" * 100] * 4, compression_type=CODEC_GZIP)
    out, next_offset = assign_offsets(data, split_batches(data), 10, 2, log_append_time=TS + 5000)
    assert next_offset == 17
    for batch in decoded_batches(out):
        assert batch.validate_crc()
        assert batch.timestamp_type == 1
        assert batch.max_timestamp == TS + 5000
        assert all(r.timestamp == TS + 5000 for r in batch)
    assert [i.max_timestamp for i in split_batches(out)] == [TS + 5000, TS + 5000]


def test_assign_offsets_rejects_infos_from_other_buffer() -> None:
    big = build([b"x" * 100])
    with pytest.raises(ValueError):
        assign_offsets(build([b"a"]), split_batches(big), 0, 0)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=12), min_size=0, max_size=12),
    base=st.integers(min_value=0, max_value=2**48),
    epoch=st.integers(min_value=0, max_value=2**31 - 1),
    gzip_mask=st.integers(min_value=0, max_value=2**12 - 1),
)
def test_assign_offsets_gives_contiguous_offsets(sizes: list[int], base: int, epoch: int, gzip_mask: int) -> None:
    data = b"".join(
        build([b"v%d" % j * 20 for j in range(n)], compression_type=CODEC_GZIP if gzip_mask >> i & 1 else 0)
        for i, n in enumerate(sizes)
    )
    out, next_offset = assign_offsets(data, split_batches(data), base, epoch)

    assert next_offset == base + sum(sizes)
    assert [o for o, _, _ in records_of(out)] == list(range(base, next_offset))
    infos = split_batches(out)  # CRCs still valid
    expected_bases = [base + sum(sizes[:i]) for i in range(len(sizes))]
    assert [i.base_offset for i in infos] == expected_bases
    assert all(b.leader_epoch == epoch for b in decoded_batches(out))


# --------------------------------------------------------------------------- synthetic_batch


def test_synthetic_batch_decodes() -> None:
    raw = synthetic_batch(500, 25, TS, leader_epoch=4, value_size=32, key=b"sim")
    [batch] = decoded_batches(raw)
    assert batch.validate_crc()
    assert batch.base_offset == 500 and batch.last_offset == 524
    assert batch.leader_epoch == 4
    assert batch.records_count == 25
    assert batch.compression_type == 0
    records = list(batch)
    assert [r.offset for r in records] == list(range(500, 525))
    assert all(r.key == b"sim" for r in records)
    assert all(r.timestamp == TS for r in records)
    assert all(len(r.value) == 32 for r in records)
    assert records[3].value.startswith(b"sim-load-503")
    # Passes the same validation as producer bytes, and is deterministic.
    [info] = split_batches(raw)
    assert info.base_offset == 500 and info.record_count == 25 and info.size == len(raw)
    assert synthetic_batch(500, 25, TS, leader_epoch=4, value_size=32, key=b"sim") == raw


def test_synthetic_batch_defaults_and_small_values() -> None:
    default = records_of(synthetic_batch(0, 3, TS))
    assert [(o, k) for o, k, _ in default] == [(0, None), (1, None), (2, None)]
    assert all(v is not None and len(v) == 64 for _, _, v in default)
    tiny = records_of(synthetic_batch(123456, 2, TS, value_size=4))
    assert [v for _, _, v in tiny] == [b"sim-", b"sim-"]
    empty = records_of(synthetic_batch(9, 1, TS, value_size=0))
    assert empty == [(9, None, b"")]


def test_synthetic_batch_rejects_bad_count() -> None:
    with pytest.raises(ValueError):
        synthetic_batch(0, 0, TS)


# --------------------------------------------------------------------------- fetch_slice


def log_of(counts: Sequence[int], base: int = 0) -> list[tuple[int, int, bytes]]:
    log = []
    offset = base
    for n in counts:
        raw = synthetic_batch(offset, n, TS, value_size=20)
        log.append((offset, offset + n - 1, raw))
        offset += n
    return log


def raws(log: Sequence[tuple[int, int, bytes]], *idx: int) -> bytes:
    return b"".join(log[i][2] for i in idx)


def test_fetch_from_middle_of_batch_returns_whole_batch() -> None:
    log = log_of([5, 5, 5])  # 0-4, 5-9, 10-14
    out = fetch_slice(log, 7, 1 << 20, high_watermark=15)
    assert out == raws(log, 1, 2)
    assert records_of(out)[0][0] == 5  # the consumer skips 5 and 6 itself


def test_fetch_at_batch_boundaries() -> None:
    log = log_of([5, 5, 5])
    assert fetch_slice(log, 0, 1 << 20, 15) == raws(log, 0, 1, 2)
    assert fetch_slice(log, 4, 1 << 20, 15) == raws(log, 0, 1, 2)
    assert fetch_slice(log, 5, 1 << 20, 15) == raws(log, 1, 2)
    assert fetch_slice(log, 14, 1 << 20, 15) == raws(log, 2)


def test_fetch_max_bytes_smaller_than_first_batch_still_returns_it() -> None:
    log = log_of([50, 1, 1])
    assert len(log[0][2]) > 100
    assert fetch_slice(log, 0, 100, 52) == raws(log, 0)
    assert fetch_slice(log, 0, 1, 52) == raws(log, 0)
    assert fetch_slice(log, 0, 0, 52) == raws(log, 0)


def test_fetch_max_bytes_limits_following_batches() -> None:
    log = log_of([3, 3, 3, 3])
    size = len(log[0][2])
    assert all(len(raw) == size for _, _, raw in log)
    assert fetch_slice(log, 0, 2 * size, 12) == raws(log, 0, 1)  # exactly fits
    assert fetch_slice(log, 0, 2 * size + 1, 12) == raws(log, 0, 1)
    assert fetch_slice(log, 0, 3 * size - 1, 12) == raws(log, 0, 1)
    assert fetch_slice(log, 3, 3 * size, 12) == raws(log, 1, 2, 3)


def test_fetch_nothing_at_or_after_high_watermark() -> None:
    log = log_of([5, 5, 5])
    assert fetch_slice(log, 10, 1 << 20, high_watermark=10) == b""
    assert fetch_slice(log, 12, 1 << 20, high_watermark=10) == b""
    assert fetch_slice(log, 0, 1 << 20, high_watermark=10) == raws(log, 0, 1)
    assert fetch_slice(log, 0, 1 << 20, high_watermark=0) == b""
    # A batch that starts below the HW is served whole.
    assert fetch_slice(log, 0, 1 << 20, high_watermark=6) == raws(log, 0, 1)


def test_fetch_past_end_or_empty_log() -> None:
    log = log_of([5, 5])
    assert fetch_slice(log, 10, 1 << 20, 10) == b""
    assert fetch_slice(log, 1000, 1 << 20, 2000) == b""
    assert fetch_slice([], 0, 1 << 20, 0) == b""


def test_fetch_before_first_batch_starts_at_first_batch() -> None:
    log = log_of([5, 5], base=100)
    assert fetch_slice(log, 0, 1 << 20, 110) == raws(log, 0, 1)


class CountingLog(Sequence[tuple[int, int, bytes]]):
    """A sequence that counts element reads, to prove fetch_slice does not scan linearly."""

    def __init__(self, items: list[tuple[int, int, bytes]]) -> None:
        self.items = items
        self.reads = 0

    @overload
    def __getitem__(self, i: int) -> tuple[int, int, bytes]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[int, int, bytes]]: ...
    def __getitem__(self, i: int | slice) -> tuple[int, int, bytes] | Sequence[tuple[int, int, bytes]]:
        self.reads += 1
        return self.items[i]

    def __len__(self) -> int:
        return len(self.items)


def test_fetch_uses_bisection_on_large_log() -> None:
    raw = b"x" * 100  # fetch_slice never parses the bytes
    items = [(i * 10, i * 10 + 9, raw) for i in range(100_000)]
    log = CountingLog(items)

    out = fetch_slice(log, 777_777, 250, high_watermark=1_000_000)

    assert out == raw * 2
    assert log.reads < 40  # ~17 for the bisection + the few batches served
