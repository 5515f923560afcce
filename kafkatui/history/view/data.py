"""Read a replay job's output directory (OUT) and rebuild the cluster as it was at any minute of the day.

OUT holds ``summary.json`` (schema ``kafkatui.replay/1``: timeline, incidents, gaps, brokers) and the
frames ``frames/partitions/part-*.json.gz`` and ``frames/brokers/part-*.json.gz`` (JSON Lines, any
order); see the replay contract in docs/history.md. No Spark, no Parquet, no textual here.

"The cluster at minute m" is its state at the END of the minute: every frame with
``ts_ms < day_start_ms + (m + 1) * 60_000`` applied. (The timeline counts a partition in a state
for a minute if it was in that state at any moment of the minute, so a cell can be red while the
table, at the minute's end, is already green again.)

Moving between minutes is incremental: frames are held in flat arrays sorted by time, each with the
index of the same partition's previous frame, so moving forward applies the frames in between and
moving backward undoes them, O(frames in between). A copy of the state every hour makes far jumps
(Home/End, an incident's start) cost at most half an hour of frames. Only topics with a changed
partition get a new `TopicInfo` in the next snapshot.

Rules where the frames say less than a snapshot would:

- replicas null (broker logs only): the union of every leader and ISR member seen for the partition
  that day, the first leader first;
- min ISR per topic: the largest recorded ``min_isr`` of its partitions at that minute (source
  ``RECORDED``); when none is recorded that day, inferred from an AT_MIN_ISR frame's ISR size (source
  ``INFERRED``); otherwise Kafka's default 1 (``ASSUMED_DEFAULT``), like the live dashboard;
- brokers: up or down as the broker frames say; a broker before its first frame is taken to be in the
  opposite state of that frame, and a broker never framed is up.
"""

from __future__ import annotations

import bisect
import operator
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from itertools import compress, islice
from pathlib import Path
from typing import Any

from kafkatui.history.replay.schema import MINUTE_MS, MINUTES, Gap, Incident, MinuteCounts, Summary, as_int
from kafkatui.history.view.files import (
    FrameStats,
    ReplayDataError,
    fail,
    frame_files,
    gz_chunks,
    has_hours,
    read_summary,
    records,
    time_sorted,
)
from kafkatui.history.view.frames import NO_CLASS, Columns, FrameParser
from kafkatui.model.flapping import WINDOW_S, unexplained_counts
from kafkatui.model.health import Health, HealthReport, assess
from kafkatui.model.snapshot import (
    ASSUMED_DEFAULT,
    BrokerInfo,
    ClusterSnapshot,
    ConfigValue,
    PartitionInfo,
    TopicInfo,
)

__all__ = [
    "MINUTES",
    "REPLAY_BOOTSTRAP",
    "Change",
    "FrameStats",
    "Gap",
    "Incident",
    "MinuteCounts",
    "ReplayData",
    "ReplayDataError",
    "Summary",
    "load",
]

CHECKPOINT_MINUTES = 60
_PROGRESS_MASK = (1 << 18) - 1
RECORDED = "RECORDED"  # min ISR as the replay's frames recorded it
INFERRED = "INFERRED"  # min ISR inferred from an at-minISR frame
# the replay does not know the cluster's address: its snapshots carry a placeholder, which the printed
# commands show
REPLAY_BOOTSTRAP = "BOOTSTRAP:9092"


@dataclass(frozen=True, slots=True)
class Change:
    """One frame of a partition: its state from `ts_ms` on."""

    ts_ms: int
    leader: int
    isr: tuple[int, ...]
    replicas: tuple[int, ...]
    health: Health | None


@dataclass(slots=True)
class _Frames:
    """Partition frames as flat arrays, sorted by time (index = frame)."""

    ts: array[int] = field(default_factory=lambda: array("q"))
    key: array[int] = field(default_factory=lambda: array("i"))
    leader: array[int] = field(default_factory=lambda: array("i"))
    isr: array[int] = field(default_factory=lambda: array("i"))  # into ReplayData._tuples
    replicas: array[int] = field(default_factory=lambda: array("i"))  # -1: unknown
    min_isr: array[int] = field(default_factory=lambda: array("i"))  # 0: unknown
    cls: bytearray = field(default_factory=bytearray)
    prev: array[int] = field(default_factory=lambda: array("i"))  # same partition's previous frame, -1


# ------------------------------------------------------------------------------------------------ model
class ReplayData:
    """A replayed day: the summary, and the cluster at any minute (`at(minute)`)."""

    def __init__(self, directory: Path, summary: Summary) -> None:
        self.directory = directory
        self.summary = summary
        self.stats = FrameStats()
        self._tuples: list[tuple[int, ...]] = []
        self._tuple_ids: dict[tuple[int, ...], int] = {}
        self._keys: list[tuple[str, int]] = []
        self._key_ids: dict[tuple[str, int], int] = {}
        self._f = _Frames()
        self._last: array[int] = array("i")  # per partition: its last frame of the day
        self._union: list[tuple[int, ...]] = []  # per partition: replicas when the frames say null
        self._topic_keys: dict[str, list[int]] = {}  # topic -> its partitions' key ids, by partition
        self._inferred_min_isr: dict[str, tuple[int, str]] = {}
        self._named: frozenset[int] = frozenset()  # every broker a frame names
        self._brokers: dict[int, tuple[list[int], list[bool]]] = {}  # id -> (ts list, up list)
        self._racks: dict[int, list[str | None]] = {}  # id -> rack of each of its frames (older outputs: None)
        # the moving state
        self._cur: array[int] = array("i")  # per partition: the frame in force (-1: not seen yet)
        self._pos = 0  # frames applied (a prefix of the sorted frames)
        self._checkpoints: dict[int, tuple[int, array[int]]] = {}  # minute -> (pos, cur)
        self._topic_cache: dict[str, TopicInfo | None] = {}
        self._dirty: set[str] = set()
        self._cache: tuple[int, ClusterSnapshot, HealthReport] | None = None
        self._pframe: array[int] = array("i")  # per partition: the frame its cached PartitionInfo shows
        self._pinfo: list[PartitionInfo | None] = []
        self._lock = threading.Lock()  # `at` may run in a worker thread
        self.window: tuple[int, int] | None = None  # the minutes a `load_hour` view covers; None: all

    # -- loading -------------------------------------------------------------------------------------
    @classmethod
    def load(cls, directory: str | Path, progress: Callable[[int], None] | None = None) -> ReplayData:
        """Read OUT (summary and frames); ReplayDataError when it cannot be used. Torn lines are counted.

        `progress` gets the number of partition frames read so far, every 262,144 frames (a day of a
        50,000-partition cluster has millions).
        """
        path = Path(directory).expanduser()
        data = cls(path, read_summary(path))
        data._read_partitions(frame_files(path, "partitions"), progress)
        data._read_brokers(frame_files(path, "brokers"))
        if not data._keys and not data.summary.incidents and not any(not m.gap for m in data.summary.timeline):
            raise fail(path, "no frames and an empty timeline: nothing to replay")
        data._index()
        return data

    @classmethod
    def load_hour(cls, directory: str | Path, hour: int, until: int | None = None) -> ReplayData | None:
        """The day as far as one hour shows it: every partition's state at H:00 and the frames of
        hour H, enough for any minute of that hour (`covers`), read in a fraction of `load`'s time.
        `until` (a minute of that hour): when the job wrote each file in time order (`time_sorted`),
        only the frames up to that minute's end are read, and the view covers H:00 to that minute.
        None when OUT has no per-hour frames (outputs of an older job)."""
        path = Path(directory).expanduser()
        if not has_hours(path):
            return None
        hour = max(0, min(23, hour))
        last = hour * 60 + 59
        if until is not None and hour * 60 <= until < last and time_sorted(path):
            last = until
        data = cls(path, read_summary(path))
        until_ms = data.end_ms(last) if last < hour * 60 + 59 else None
        data._read_partitions(
            frame_files(path, "at_hour", hour) + frame_files(path, "partitions", hour), None, until_ms
        )
        data._read_brokers(frame_files(path, "brokers"))
        data._index()
        data.window = (hour * 60, last)
        return data

    def covers(self, minute: int) -> bool:
        """True when `at(minute)` is the whole truth (a `load_hour` view knows only its hour)."""
        return self.window is None or self.window[0] <= minute <= self.window[1]

    def _tuple(self, values: Any) -> int:
        t = tuple(values)
        tid = self._tuple_ids.get(t)
        if tid is None:
            if not all(type(v) is int for v in t):
                raise ValueError("broker ids must be integers")
            tid = self._tuple_ids[t] = len(self._tuples)
            self._tuples.append(t)
        return tid

    def _key_id(self, topic: str, partition: int) -> int:
        key = (topic, partition)
        kid = self._key_ids.get(key)
        if kid is None:
            kid = self._key_ids[key] = len(self._keys)
            self._keys.append(key)
        return kid

    def _read_partitions(
        self, files: list[Path], progress: Callable[[int], None] | None = None, until_ms: int | None = None
    ) -> None:
        """Frames into flat arrays sorted by time. `until_ms`: the files are each in time order and
        only frames before it are wanted (a file is read up to there)."""
        cols: Columns = ([], [], [], [], [], [], [])
        parse = FrameParser(self.stats, self._key_id, self._tuple)
        reported = 0
        for path in files:
            for block in gz_chunks(path, self.stats):
                stop = parse.block(block, cols, until_ms)
                while progress is not None and len(cols[0]) >= reported + _PROGRESS_MASK + 1:
                    reported += _PROGRESS_MASK + 1  # each multiple passed, as if counted frame by frame
                    progress(reported)
                if stop:
                    break
        ts_l, key_l, leader_l, isr_l, rep_l, mi_l, cls_l = cols
        f = self._f
        if len(ts_l) < 2 or all(map(operator.le, ts_l, islice(ts_l, 1, None))):
            f.ts, f.key, f.leader, f.isr = array("q", ts_l), array("i", key_l), array("i", leader_l), array("i", isr_l)
            f.replicas, f.min_isr, f.cls = array("i", rep_l), array("i", mi_l), bytearray(cls_l)
            return
        # stable: ties keep file order; time-sorted part files are runs that the sort merges
        pick = operator.itemgetter(*sorted(range(len(ts_l)), key=ts_l.__getitem__))
        f.ts, f.key, f.leader, f.isr = (
            array("q", pick(ts_l)),
            array("i", pick(key_l)),
            array("i", pick(leader_l)),
            array("i", pick(isr_l)),
        )
        f.replicas, f.min_isr, f.cls = array("i", pick(rep_l)), array("i", pick(mi_l)), bytearray(pick(cls_l))

    def _read_brokers(self, files: list[Path]) -> None:
        events: list[tuple[int, int, bool, str | None]] = []
        for rec in records(files, self.stats):
            try:
                rack = rec.get("rack")
                events.append(
                    (
                        as_int(rec["ts_ms"], "ts_ms"),
                        as_int(rec["broker"], "broker"),
                        bool(rec["up"]),
                        None if rack is None else str(rack),
                    )
                )
            except (ValueError, TypeError, KeyError, AttributeError):
                self.stats.garbled += 1
        events.sort(key=lambda e: e[0])
        for ts, broker, up, rack in events:
            times, ups = self._brokers.setdefault(broker, ([], []))
            times.append(ts)
            ups.append(up)
            self._racks.setdefault(broker, []).append(rack)

    def _index(self) -> None:
        """Previous-frame links, replica unions, topics, inferred min ISR, hourly checkpoints."""
        f = self._f
        n_keys = len(self._keys)
        last = array("i", [-1]) * n_keys
        prev = array("i", [-1]) * len(f.ts)
        for i, k in enumerate(f.key):
            prev[i] = last[k]
            last[k] = i
        f.prev = prev
        self._last = last
        tuples = self._tuples
        # replicas unknown (broker logs only): the union of the leaders and ISRs seen, first leader first
        seen: dict[int, dict[int, None]] = {}
        for i in [i for i, r in enumerate(f.replicas) if r < 0] if -1 in f.replicas else ():
            members = seen.setdefault(f.key[i], {})
            if f.leader[i] >= 0:
                members[f.leader[i]] = None
            members.update(dict.fromkeys(tuples[f.isr[i]]))
        self._union = [tuple(seen.get(k, ())) for k in range(n_keys)]
        self._named = frozenset(
            {b for m in seen.values() for b in m} | {b for rid in set(f.replicas) if rid >= 0 for b in tuples[rid]}
        )
        for kid, (topic, _) in enumerate(self._keys):
            self._topic_keys.setdefault(topic, []).append(kid)
        for kids in self._topic_keys.values():
            kids.sort(key=lambda k: self._keys[k][1])
        recorded = {self._keys[k][0] for k in set(compress(f.key, f.min_isr))}
        at_min: dict[str, Counter[int]] = {}
        for i in [i for i, mi in enumerate(f.min_isr) if not mi] if 0 in f.min_isr else ():
            topic = self._keys[f.key[i]][0]
            if topic not in recorded and f.cls[i] == Health.AT_MIN_ISR:
                at_min.setdefault(topic, Counter())[len(tuples[f.isr[i]])] += 1
        for topic, counts in at_min.items():
            self._inferred_min_isr[topic] = (counts.most_common(1)[0][0], INFERRED)
        self._cur = array("i", [-1]) * n_keys
        self._pframe = array("i", [-1]) * n_keys
        self._pinfo = [None] * n_keys
        self._pos = 0
        self._topic_cache = {t: None for t in self._topic_keys}
        cur, key = self._cur, f.key
        for m in range(CHECKPOINT_MINUTES - 1, MINUTES, CHECKPOINT_MINUTES):
            target = self._target(m)
            for i in range(self._pos, target):  # `_advance` without marking topics: all are marked next
                cur[key[i]] = i
            self._pos = target
            self._checkpoints[m] = (self._pos, array("i", cur))
        self._restore(-1)

    # -- moving ----------------------------------------------------------------------------------------
    def end_ms(self, minute: int) -> int:
        """The end of `minute` (exclusive): the state shown for it is the state just before."""
        return self.summary.day_start_ms + (minute + 1) * MINUTE_MS

    def minute_of(self, ts_ms: int) -> int:
        """The minute of the day holding `ts_ms`, clamped to 0..1439."""
        return max(0, min(MINUTES - 1, (ts_ms - self.summary.day_start_ms) // MINUTE_MS))

    def _target(self, minute: int) -> int:
        return bisect.bisect_left(self._f.ts, self.end_ms(minute))

    def _advance(self, target: int) -> None:
        f, cur, keys, dirty = self._f, self._cur, self._keys, self._dirty
        for i in range(self._pos, target):
            k = f.key[i]
            cur[k] = i
            dirty.add(keys[k][0])
        for i in range(self._pos - 1, target - 1, -1):  # backwards: undo
            k = f.key[i]
            cur[k] = f.prev[i]
            dirty.add(keys[k][0])
        self._pos = target

    def _restore(self, minute: int) -> None:
        if minute < 0:
            self._pos, self._cur = 0, array("i", [-1]) * len(self._keys)
        else:
            pos, cur = self._checkpoints[minute]
            self._pos, self._cur = pos, array("i", cur)
        self._dirty = set(self._topic_keys)

    def _move(self, minute: int) -> None:
        target = self._target(minute)
        best = abs(target - self._pos)
        start: int | None = None
        for m in (-1, *self._checkpoints):
            pos = self._checkpoints[m][0] if m >= 0 else 0
            if abs(target - pos) + len(self._keys) // 4 < best:  # a restore costs a pass over the partitions
                best, start = abs(target - pos) + len(self._keys) // 4, m
        if start is not None:
            self._restore(start)
        self._advance(target)

    # -- state -------------------------------------------------------------------------------------------
    def at(self, minute: int) -> tuple[ClusterSnapshot, HealthReport]:
        """The cluster at the end of `minute` (0..1439) and its health report (thread-safe)."""
        minute = max(0, min(MINUTES - 1, minute))
        with self._lock:
            if self._cache is not None and self._cache[0] == minute:
                return self._cache[1], self._cache[2]
            self._move(minute)
            snapshot = self._snapshot(minute)
            report = assess(snapshot)
            self._cache = (minute, snapshot, report)
            return snapshot, report

    def brokers_up(self, ts_ms: int) -> dict[int, bool]:
        """Every framed broker: up at `ts_ms` (its last frame before), or the opposite of its first frame."""
        out: dict[int, bool] = {}
        for broker, (times, ups) in sorted(self._brokers.items()):
            i = bisect.bisect_left(times, ts_ms)
            out[broker] = ups[i - 1] if i else not ups[0]
        return out

    def rack_of(self, broker: int, ts_ms: int) -> str | None:
        """The broker's rack as of `ts_ms` (its first frame's before it), or None when never said."""
        racks = self._racks.get(broker)
        if not racks:
            return None
        i = bisect.bisect_left(self._brokers[broker][0], ts_ms)
        return racks[i - 1] if i else racks[0]

    def _snapshot(self, minute: int) -> ClusterSnapshot:
        end = self.end_ms(minute)
        for topic in self._dirty:
            self._topic_cache[topic] = self._topic_info(topic)
        self._dirty = set()
        topics = {name: t for name, t in self._topic_cache.items() if t is not None}
        up = self.brokers_up(end)
        live = sorted({b for b, u in up.items() if u} | (self._named - up.keys()))
        return ClusterSnapshot(
            cluster_id=f"replay {self.summary.day}",
            controller_id=-1,
            brokers=tuple(BrokerInfo(b, "", 0, self.rack_of(b, end)) for b in live),
            topics=topics,
            taken_at=end / 1000,
            bootstrap=REPLAY_BOOTSTRAP,
        )

    def _topic_info(self, topic: str) -> TopicInfo | None:
        f, cur = self._f, self._cur
        parts: list[PartitionInfo] = []
        min_isr = 0
        for kid in self._topic_keys[topic]:
            i = cur[kid]
            if i < 0:
                continue
            parts.append(self._partition(kid, i))
            min_isr = max(min_isr, f.min_isr[i])
        if not parts:
            return None
        if min_isr:
            configs = {"min.insync.replicas": ConfigValue(str(min_isr), RECORDED)}
        elif topic in self._inferred_min_isr:
            value, source = self._inferred_min_isr[topic]
            configs = {"min.insync.replicas": ConfigValue(str(value), source)}
        else:
            configs = {"min.insync.replicas": ConfigValue("1", ASSUMED_DEFAULT)}
        return TopicInfo(topic, tuple(parts), configs=configs)

    def _partition(self, kid: int, i: int) -> PartitionInfo:
        """Frame `i` of partition `kid` as a PartitionInfo (the last one built per partition is kept)."""
        if self._pframe[kid] == i:
            info = self._pinfo[kid]
            assert info is not None
            return info
        f = self._f
        topic, partition = self._keys[kid]
        rid = f.replicas[i]
        replicas = self._tuples[rid] if rid >= 0 else self._union[kid]
        info = PartitionInfo(topic, partition, f.leader[i], replicas, self._tuples[f.isr[i]])
        self._pframe[kid] = i
        self._pinfo[kid] = info
        return info

    # -- queries ------------------------------------------------------------------------------------------
    @property
    def partitions(self) -> int:
        """Partitions framed that day."""
        return len(self._keys)

    @property
    def frames(self) -> int:
        """Partition frames read."""
        return len(self._f.ts)

    def recorded_class(self, topic: str, partition: int, minute: int) -> Health | None:
        """The class the job wrote for the partition's frame in force at the end of `minute`."""
        kid = self._key_ids.get((topic, partition))
        if kid is None:
            return None
        with self._lock:
            self._move(max(0, min(MINUTES - 1, minute)))
            i = self._cur[kid]
        if i < 0 or self._f.cls[i] == NO_CLASS:
            return None
        return Health(self._f.cls[i])

    def history(self, topic: str, partition: int) -> list[Change]:
        """Every frame of one partition that day, oldest first."""
        kid = self._key_ids.get((topic, partition))
        if kid is None:
            return []
        f = self._f
        out: list[Change] = []
        i = self._last[kid]
        while i >= 0:
            rid = f.replicas[i]
            out.append(
                Change(
                    f.ts[i],
                    f.leader[i],
                    self._tuples[f.isr[i]],
                    self._tuples[rid] if rid >= 0 else self._union[kid],
                    None if f.cls[i] == NO_CLASS else Health(f.cls[i]),
                )
            )
            i = f.prev[i]
        out.reverse()
        return out

    def isr_moves(
        self, start_ms: int, end_ms: int, topics: Collection[str] | None = None
    ) -> tuple[Counter[int], Counter[int]]:
        """Per broker, how many times it left an ISR (shrinks) and joined one (expands) in the frames of
        [start_ms, end_ms) (of `topics`, or of every topic), each frame against its partition's previous
        one. Reads only that window's frames: a big day's report asks this once per incident."""
        f, tuples = self._f, self._tuples
        kids = None if topics is None else {k for t in topics for k in self._topic_keys.get(t, ())}
        shrinks: Counter[int] = Counter()
        expands: Counter[int] = Counter()
        for i in range(bisect.bisect_left(f.ts, start_ms), bisect.bisect_left(f.ts, end_ms)):
            p = f.prev[i]
            if p < 0 or (kids is not None and f.key[i] not in kids) or f.isr[p] == f.isr[i]:
                continue
            before, after = set(tuples[f.isr[p]]), set(tuples[f.isr[i]])
            shrinks.update(before - after)
            expands.update(after - before)
        return shrinks, expands

    def shrink_counts(self, minute: int, window_s: float = WINDOW_S) -> dict[int, int]:
        """ISR shrink episodes per broker in the `window_s` before the end of `minute` (within the day)
        that its being down does not explain: what the dashboard counted live and `check --history`
        counts from the recording (`kafkatui.model.flapping`), one episode per (time, broker)."""
        end = self.end_ms(minute)
        f, tuples = self._f, self._tuples
        episodes: set[tuple[int, int]] = set()
        lost_of: dict[tuple[int, int], tuple[int, ...]] = {}  # (ISR before, ISR after) -> brokers lost: pairs repeat
        ts, isrs, prev = f.ts, f.isr, f.prev
        for i in range(bisect.bisect_left(ts, end - int(window_s * 1000)), bisect.bisect_left(ts, end)):
            p = prev[i]
            if p < 0 or isrs[p] == isrs[i]:
                continue
            pair = (isrs[p], isrs[i])
            lost = lost_of.get(pair)
            if lost is None:
                lost = lost_of[pair] = tuple(set(tuples[pair[0]]).difference(tuples[pair[1]]))
            for b in lost:
                episodes.add((ts[i], b))
        if not episodes:
            return {}
        transitions = {
            b: [(t / 1000, not up) for t, up in zip(times, ups, strict=True)]
            for b, (times, ups) in self._brokers.items()
        }
        return unexplained_counts(sorted((t / 1000, b) for t, b in episodes), transitions)

    def partition_keys(self) -> list[tuple[str, int]]:
        """Every partition framed that day, as (topic, partition), in the order first read."""
        return list(self._keys)

    def broker_events(self) -> list[tuple[int, int, bool]]:
        """Every broker frame of the day as (ts_ms, broker, up), in time order (ties by broker id)."""
        out = [(ts, b, up) for b, (times, ups) in self._brokers.items() for ts, up in zip(times, ups, strict=True)]
        return sorted(out)

    def gap_at(self, minute: int) -> Gap | None:
        """The recorder gap overlapping `minute`, if any."""
        start = self.summary.day_start_ms + minute * MINUTE_MS
        end = start + MINUTE_MS
        return next((g for g in self.summary.gaps if g.start_ms < end and g.end_ms > start), None)


def load(directory: str | Path) -> ReplayData:
    """`ReplayData.load`."""
    return ReplayData.load(directory)
