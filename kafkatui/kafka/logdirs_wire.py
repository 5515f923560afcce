"""DescribeLogDirs written and read by kafkatui (versions 1-5): the request naming a broker's replicas, and its
answer read straight into per-replica sizes and lags.

When a broker of a 100,000-partition cluster goes away, the next refresh asks every other broker for the
log dirs of ~21,000 out-of-sync replicas: kafka-python's encoder took ~0.16 s for those requests and its
decoder another ~0.16 s (a container per replica), on its IO thread, beside the refresh's own work. The
bytes are what kafka-python writes and reads (tests/integration/test_logdirs_wire.py checks both ways).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafkatui.kafka.wire import Reader, uvarint

FLEXIBLE = 2
_PARTITION = struct.Struct(">iqq?")


@dataclass(frozen=True, slots=True)
class LogDir:
    """One log dir of a broker's answer: its error code, its path, and (topic, partition) -> (size, lag) of
    the replicas it holds (a future replica, being moved between log dirs, is left out)."""

    error_code: int
    path: str
    replicas: dict[tuple[str, int], tuple[int, int]]


def encode_request(hosted: Mapping[str, Sequence[int]], version: int) -> bytes:
    """The body of a DescribeLogDirs request naming `hosted` ({topic: partitions})."""
    if not 1 <= version <= 5:
        raise ValueError(f"DescribeLogDirs v{version} is not written here")
    flexible = version >= FLEXIBLE
    out: list[bytes] = []
    add = out.append
    if flexible:
        add(uvarint(len(hosted) + 1))
        for topic, parts in hosted.items():
            raw = topic.encode()
            add(uvarint(len(raw) + 1) + raw + uvarint(len(parts) + 1))
            add(struct.pack(f">{len(parts)}i", *parts))
            add(b"\x00")
        add(b"\x00")
    else:
        add(struct.pack(">i", len(hosted)))
        for topic, parts in hosted.items():
            raw = topic.encode()
            add(struct.pack(">h", len(raw)) + raw + struct.pack(f">i{len(parts)}i", len(parts), *parts))
    return b"".join(out)


def decode_response(body: bytes, version: int) -> list[LogDir]:
    """The body of a DescribeLogDirs answer (after the response header): its log dirs (none when the broker
    refused the whole request: its top-level error, v3+, comes with no results)."""
    if not 1 <= version <= 5:
        raise ValueError(f"DescribeLogDirs v{version} is not read here")
    flexible = version >= FLEXIBLE
    r = Reader(body, flexible)
    r.pos += 4  # throttle time
    if version >= 3:
        r.pos += 2  # top-level error code
    dirs: list[LogDir] = []
    unpack = _PARTITION.unpack_from
    step = _PARTITION.size
    for _ in range(max(0, r.length())):
        code = r.int16()
        path = r.string() or ""
        replicas: dict[tuple[str, int], tuple[int, int]] = {}
        for _ in range(max(0, r.length())):
            name = r.string() or ""
            n = r.length()
            buf, pos = r.buf, r.pos
            for _ in range(max(0, n)):
                pid, size, lag, future = unpack(buf, pos)
                pos += step
                if flexible:
                    if buf[pos] == 0:
                        pos += 1
                    else:
                        r.pos = pos
                        r.tags()
                        pos = r.pos
                if not future:
                    replicas[(name, pid)] = (size, lag)
            r.pos = pos
            r.tags()
        if version >= 4:
            r.pos += 16  # total and usable bytes
        if version >= 5:
            r.pos += 1  # is cordoned
        r.tags()
        dirs.append(LogDir(int(code), path, replicas))
    r.tags()
    if r.pos > len(body):
        raise ValueError("DescribeLogDirs answer ends early")
    return dirs


__all__ = ["LogDir", "decode_response", "encode_request"]
