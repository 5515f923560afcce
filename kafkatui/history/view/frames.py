"""Frame lines of a replay OUT directory -> columns (ts, partition, leader, ISR, replicas, min ISR, class).

The job's own layout (Spark's JSON writer: fixed key order, no spaces) is parsed a block of lines at a
time by one regex `findall` and converted column by column; a block with any other line goes line by
line: other JSON layouts decoded, lines that are not a frame counted as garbled. Frames before a given
instant only, for time-sorted files. No textual here.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import Any

from kafkatui.history.view.files import FrameStats
from kafkatui.model.health import Health

NO_CLASS = 255  # a frame without a class (the code in the class column)
CLASS_CODES = {h.name: int(h) for h in Health}

# a partition frame as the replay job writes it (Spark's JSON writer, fixed key order), one line, in three
# parts: ts, the partition ("topic":..,"partition":..) and its state (leader to class). A day has
# few distinct states (leader, ISR, replicas, min ISR, class: 139 in hour 0 of the bench day), so each
# is decoded once; a block of such lines is parsed by one `findall`
_FRAME = re.compile(
    rb'^\{"ts_ms":(\d+),("topic":"[^"\\\n]*","partition":\d+),"leader":(-?\d+,"isr":\[[\d,]*\],'
    rb'"replicas":(?:null|\[[\d,]*\]),"min_isr":(?:null|\d+),"class":(?:null|"[A-Z_]+"))\}$',
    re.MULTILINE,
)
_KEY = re.compile(rb'"topic":"([^"\\\n]*)","partition":(\d+)')
_STATE = re.compile(
    rb'(-?\d+),"isr":\[([\d,]*)\],"replicas":(null|\[[\d,]*\]),"min_isr":(null|\d+),"class":(null|"[A-Z_]+")'
)
_BAD = -1  # a state this kafkatui cannot use (unknown class, broken ids): its lines are garbled


def _ids(raw: bytes) -> tuple[int, ...]:
    """Broker ids as the job writes them, inside brackets or not ("1,2,3", "[1,2,3]")."""
    raw = raw.strip(b"[]")
    return tuple(map(int, raw.split(b","))) if raw else ()


Columns = tuple[list[int], list[int], list[int], list[int], list[int], list[int], list[int]]
"""Frames as read, column by column: ts, key id, leader, ISR tuple id, replicas tuple id (-1: null),
min ISR (0: null), class code."""


class FrameParser:
    """Blocks of frame lines -> columns. A block whose every line is in the job's layout is parsed by
    one regex `findall` and converted column by column (maps over C-level lookups, no per-line
    Python); any other block line by line, JSON-decoding lines in another layout, counting the
    garbled ones. The hot path of a big day."""

    def __init__(self, stats: FrameStats, key_id: Callable[[str, int], int], tuple_id: Callable[[Any], int]) -> None:
        self.stats = stats
        self.key_id = key_id  # (topic, partition) -> key id
        self.tuple_id = tuple_id  # broker ids -> tuple id (ValueError when not integers)
        self.keys: dict[bytes, int] = {}  # '"topic":"t","partition":0' as written -> key id
        self.states: dict[bytes, int] = {}  # a state as written -> its index in the columns below, or _BAD
        # per state: leader, ISR tuple id, replicas tuple id, min ISR, class code
        self.state_cols: tuple[list[int], list[int], list[int], list[int], list[int]] = ([], [], [], [], [])
        self.codes = {b'"' + name.encode() + b'"': code for name, code in CLASS_CODES.items()} | {b"null": NO_CLASS}

    def block(self, block: bytes, cols: Columns, until_ms: int | None) -> bool:
        """Append the block's frames (those before `until_ms`) to `cols`; True when a frame at or
        after `until_ms` was met (the rest of a time-sorted file is not wanted)."""
        rows = _FRAME.findall(block)
        n = block.count(b"\n")
        if len(rows) != n or not rows:
            return self._lines(block, cols, until_ms)
        ts_c, key_c, state_c = zip(*rows, strict=True)
        ts = list(map(int, ts_c))
        stop = until_ms is not None and ts[-1] >= until_ms
        if stop:
            assert until_ms is not None
            n = (
                bisect.bisect_left(ts, until_ms)
                if ts == sorted(ts)
                else next(i for i, t in enumerate(ts) if t >= until_ms)
            )
            del ts[n:]
        states = self.states
        sid = list(map(states.get, state_c[:n]))
        if None in sid:
            for i in [i for i, v in enumerate(sid) if v is None]:
                sid[i] = self._state(state_c[i])
        if _BAD in sid:  # a line this kafkatui cannot use: the block line by line
            return self._lines(b"".join(line + b"\n" for line in block.split(b"\n")[:n]), cols, None) or stop
        self.stats.lines += n
        keys = self.keys
        kid = list(map(keys.get, key_c[:n]))
        if None in kid:
            for i in [i for i, k in enumerate(kid) if k is None]:
                kid[i] = self._key(key_c[i])
        t, k_l, lead_l, isr_l, rep_l, mi_l, cls_l = cols
        t.extend(ts)
        k_l.extend(kid)  # type: ignore[arg-type]
        for col, per_state in zip((lead_l, isr_l, rep_l, mi_l, cls_l), self.state_cols, strict=True):
            col.extend(map(per_state.__getitem__, sid))  # type: ignore[arg-type]
        return stop

    def _key(self, raw: bytes) -> int:
        kid = self.keys.get(raw)
        if kid is None:
            m = _KEY.fullmatch(raw)
            assert m is not None  # _FRAME matched it
            kid = self.keys[raw] = self.key_id(m.group(1).decode(), int(m.group(2)))
        return kid

    def _state(self, raw: bytes) -> int:
        """The index of a state as written (decoded on first sight), or _BAD."""
        sid = self.states.get(raw)
        if sid is not None:
            return sid
        m = _STATE.fullmatch(raw)
        assert m is not None  # _FRAME matched it
        leader_b, isr_b, reps_b, mi_b, cls_b = m.groups()
        try:
            values = (
                int(leader_b),
                self.tuple_id(_ids(isr_b)),
                -1 if reps_b == b"null" else self.tuple_id(_ids(reps_b)),
                0 if mi_b == b"null" else int(mi_b),
                self.codes[cls_b],
            )
        except (ValueError, KeyError):
            sid = _BAD
        else:
            sid = len(self.state_cols[0])
            for col, value in zip(self.state_cols, values, strict=True):
                col.append(value)
        self.states[raw] = sid
        return sid

    def _row(self, m: re.Match[bytes]) -> tuple[int, int, int, int, int, int, int]:
        """One line in the job's layout; ValueError when it cannot be used."""
        ts_b, key_b, state_b = m.groups()
        sid = self._state(state_b)
        if sid == _BAD:
            raise ValueError("not a valid frame")
        leader, isr, reps, mi, code = (col[sid] for col in self.state_cols)
        return int(ts_b), self._key(key_b), leader, isr, reps, mi, code

    def _decoded(self, line: bytes) -> tuple[int, int, int, int, int, int, int]:
        """A frame line in any other JSON layout: (ts, key id, leader, isr id, replicas id, min ISR, class
        code); ValueError, TypeError, KeyError or AttributeError when it is not a valid frame."""
        rec = json.loads(line)
        ts, part, leader = rec["ts_ms"], rec["partition"], rec["leader"]
        if type(ts) is not int or type(part) is not int or type(leader) is not int:
            raise ValueError("not an integer")
        isr = self.tuple_id(rec["isr"])
        reps = rec.get("replicas")
        rid = -1 if reps is None else self.tuple_id(reps)
        mi = rec.get("min_isr")
        if mi is not None and type(mi) is not int:
            raise ValueError("min_isr is not an integer")
        c = rec.get("class")
        code = NO_CLASS if c is None else CLASS_CODES[c]
        return ts, self.key_id(str(rec["topic"]), part), leader, isr, rid, mi or 0, code

    def _lines(self, block: bytes, cols: Columns, until_ms: int | None) -> bool:
        """The block line by line: the job's layout by the regex, any other JSON layout decoded."""
        st = self.stats
        for line in block.split(b"\n"):
            if not line.strip():
                continue
            st.lines += 1
            m = _FRAME.fullmatch(line)
            try:
                frame = self._row(m) if m is not None else self._decoded(line)
            except (ValueError, TypeError, KeyError, AttributeError):
                st.garbled += 1
                continue
            if until_ms is not None and frame[0] >= until_ms:
                st.lines -= 1
                return True
            for col, value in zip(cols, frame, strict=True):
                col.append(value)
        return False
