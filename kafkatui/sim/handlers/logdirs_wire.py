"""A broker's DescribeLogDirs answer written straight to bytes (versions 0-5), byte for byte what
kafka-python's `DescribeLogDirsResponse(...).encode(version=v)` gives (tests/sim/test_logdirs_wire.py).

After a broker of the bench's 105,000-partition cluster shuts down, the dashboard asks 28 brokers for
~21,000 replicas' log dirs; building a kafka-python object per replica and encoding it took the
simulator's single loop ~0.4 s, time a real broker does not take. This writes the same bytes in one pass.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from kafkatui.kafka.wire import uvarint

FLEXIBLE = 2
_PARTITION = struct.Struct(">iqq?")  # index, size, offset lag, is future key


def _length(n: int, flexible: bool) -> bytes:
    return uvarint(n + 1) if flexible else struct.pack(">i", n)


def _string(s: str, flexible: bool) -> bytes:
    raw = s.encode()
    return (uvarint(len(raw) + 1) if flexible else struct.pack(">h", len(raw))) + raw


def encode_answer(
    version: int,
    log_dir: str,
    topics: Sequence[tuple[str, Sequence[tuple[int, int, int]]]],
    total_bytes: int,
    usable_bytes: int,
) -> bytes:
    """The body of a one-log-dir answer without errors: `topics` is [(name, [(partition, size, lag)])]."""
    if not 0 <= version <= 5:  # v0 and v1 are written alike
        raise ValueError(f"DescribeLogDirs v{version} is not written here")
    flexible = version >= FLEXIBLE
    out: list[bytes] = [struct.pack(">i", 0)]  # throttle time
    add = out.append
    if version >= 3:
        add(b"\x00\x00")  # top-level error code
    add(_length(1, flexible))
    add(b"\x00\x00" + _string(log_dir, flexible))
    add(_length(len(topics), flexible))
    tail = b"\x00" if flexible else b""  # each record's empty tagged fields
    pack = _PARTITION.pack
    for name, parts in topics:
        add(_string(name, flexible))
        add(_length(len(parts), flexible))
        add(b"".join([pack(index, size, lag, False) + tail for index, size, lag in parts]))
        add(tail)
    if version >= 4:
        add(struct.pack(">qq", total_bytes, usable_bytes))
    if version >= 5:
        add(b"\x00")  # not cordoned
    add(tail)  # the result's
    add(tail)  # the answer's
    return b"".join(out)


__all__ = ["encode_answer"]
