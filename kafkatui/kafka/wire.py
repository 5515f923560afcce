"""Kafka's primitive types on the wire, for the answers kafkatui writes or reads itself (`metadata_wire`,
`logdirs_wire`, `configs_wire`, `firstread`, and the simulator's `metadata_wire`): unsigned varints,
lengths and strings in the fixed-size and the flexible (compact) encodings, tagged fields."""

from __future__ import annotations

import struct


def uvarint(n: int) -> bytes:
    """An unsigned varint (the flexible encoding's lengths and counts)."""
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


class Reader:
    """A position in an answer's bytes, read in one version's encoding (`flexible`: v9+ of Metadata, v2+
    of DescribeLogDirs...)."""

    __slots__ = ("buf", "pos", "flexible")

    def __init__(self, buf: bytes, flexible: bool, pos: int = 0) -> None:
        self.buf = buf
        self.pos = pos
        self.flexible = flexible

    def fixed(self, fmt: struct.Struct) -> tuple[int, ...]:
        got = fmt.unpack_from(self.buf, self.pos)
        self.pos += fmt.size
        return got

    def int16(self) -> int:
        (v,) = _I16.unpack_from(self.buf, self.pos)
        self.pos += 2
        return int(v)

    def int32(self) -> int:
        (v,) = _I32.unpack_from(self.buf, self.pos)
        self.pos += 4
        return int(v)

    def uvarint(self) -> int:
        buf, pos = self.buf, self.pos
        shift = result = 0
        while True:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                return result
            shift += 7

    def length(self) -> int:
        """An array's length (-1: null)."""
        return self.uvarint() - 1 if self.flexible else self.int32()

    def string(self) -> str | None:
        n = self.uvarint() - 1 if self.flexible else self.int16()
        if n < 0:
            return None
        start = self.pos
        self.pos += n
        return self.buf[start : self.pos].decode()

    def tags(self) -> None:
        """Skip a tagged-fields section (flexible encodings only)."""
        if not self.flexible:
            return
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self.pos += self.uvarint()


__all__ = ["Reader", "uvarint"]
