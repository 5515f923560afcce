"""`kafkatui sim --history-day DAY --out DIR`: a simulated day of ISR history, recorded and logged.

Plays the day script (`kafkatui/sim/days/default.yaml`, scenario format, time zero at 23:00 UTC of
the day before) through `SimCluster` on a manual `VirtualClock`, from 23:00 of the day before to
midnight after DAY, one replication step (100 ms) at a time, and writes the same events twice:

1. ``DIR/YYYY-MM-DD/HH.events.jsonl.gz``: `Recorder` fed a `ClusterSnapshot` after every step in
   which something happened (stamped with the simulated time), at every full hour, and at 23:00 of
   the day before (the "start" snapshot in the previous day's folder carries the state into midnight);
2. ``DIR/broker-logs/broker-B/server.log`` and ``state-change.log`` (hourly rotated, older hours
   gzipped): what each broker logs for each ISR change and leader election (`kafkatui.sim.brokerlog`).

Both come from the simulator's event log only, so both inputs of a replay tell the same story:
every broker-log line parses with `kafkatui.history.logparse`, and per partition the ISR rebuilt
from the logs equals the recorded one at the same milliseconds.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from pathlib import Path

from kafkatui.argparsing import whole
from kafkatui.history.record import schema
from kafkatui.history.record.recorder import Recorder, RecorderError
from kafkatui.sim import brokerlog as bl
from kafkatui.sim import scenario
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.cluster import STEP_MS, SimCluster
from kafkatui.sim.events import EventKind, SimEvent
from kafkatui.sim.snapshot import SnapshotBuilder
from kafkatui.sim.state import BrokerState

EXIT_OK = 0
EXIT_USAGE = 3
EXIT_UNWRITABLE = 17  # as `kafkatui record`: the output directory cannot be written
DAY_MS = 86_400_000
HOUR_MS = 3_600_000
FILLER_EVERY_MS = 600_000  # offsets.retention.check.interval.ms: the offsets cleaner's line
BASE_PORT = 19092  # where `kafkatui sim` would listen: broker B on BASE_PORT + B - 1
GZIP_BEFORE_HOUR = 12  # rotated broker logs of hours before noon of DAY are gzipped (logrotate)

_BROKER_KINDS = {
    EventKind.BROKER_DOWN,
    EventKind.BROKER_UP,
    EventKind.BROKER_FENCED,
    EventKind.BROKER_UNFENCED,
    EventKind.FAULT,
}
_TOPIC_KINDS = {EventKind.TOPIC_CREATED, EventKind.TOPIC_DELETED, EventKind.PARTITIONS_CREATED}
_QUIET_KINDS = {EventKind.SCENARIO, EventKind.FAULT}  # nothing a snapshot shows


class SimDayError(Exception):
    """Bad input for the day generator (one line); `exit_code` is what the command returns."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(slots=True)
class DayResult:
    """What a generated day holds."""

    day: str
    recording_files: list[Path] = field(default_factory=list)
    log_files: list[Path] = field(default_factory=list)
    records: int = 0
    log_lines: int = 0
    events: int = 0
    isr_changes: int = 0
    incidents: int = 0
    partitions: int = 0
    brokers: int = 0
    cluster_id: str = ""
    seconds: float = 0.0

    def summary(self) -> str:
        """The one line the command prints."""
        return (
            f"simulated {self.day}: {self.brokers} brokers, {self.partitions} partitions, {self.incidents} "
            f"incidents scripted, {self.events} events ({self.isr_changes} ISR changes); wrote "
            f"{len(self.recording_files)} recording files ({self.records} records) and {len(self.log_files)} "
            f"broker-log files ({self.log_lines} lines) in {self.seconds:.1f} s"
        )


def parse_day(text: str) -> date:
    """``YYYY-MM-DD`` -> date; SimDayError (exit 3) otherwise."""
    try:
        return datetime.strptime(text, schema.DAY_FORMAT).date()
    except ValueError:
        raise SimDayError(f"--history-day: not a date: {text!r} (use YYYY-MM-DD, e.g. 2026-11-20)") from None


def day_script() -> scenario.Scenario:
    """The shipped day script."""
    path = resources.files("kafkatui.sim") / "days" / "default.yaml"
    return scenario.load(str(path))


def incidents_scripted(sc: scenario.Scenario) -> int:
    """Scripted incidents: distinct notes (an incident's first step carries its note, repeats copy it)."""
    return len({str(s.args["note"]) for s in sc.timeline if s.args.get("note")})


def build_cluster(
    sc: scenario.Scenario, start_ms: int, partitions: int | None, brokers: int | None, seed: int
) -> SimCluster:
    """The script's cluster at `start_ms`, topics scaled to about `partitions` in all, ids from `seed`."""
    n = brokers if brokers is not None else sc.brokers
    if n < sc.brokers:
        raise SimDayError(f"--brokers must be at least {sc.brokers} (the day's script uses brokers 1-{sc.brokers})")
    total = sum(t.partitions for t in sc.topics)
    if partitions is not None and partitions < len(sc.topics):
        raise SimDayError(f"--partitions must be at least {len(sc.topics)} (one per topic of the day's script)")
    cluster = SimCluster(
        brokers=n,
        racks=sc.racks,
        clock=VirtualClock(manual=True, start_ms=start_ms),
        static_configs=sc.broker_configs,
        elr=sc.elr,
        seed=seed,
        # the day has no steady load (it would cost its speed): its followers leave
        # idle ISRs after the lag time, as the simulator did before the twin tests
        # (real Kafka keeps a caught-up follower of an idle partition in the ISR)
        idle_followers_shrink=True,
    )
    for b in cluster.brokers.values():
        b.port = BASE_PORT + b.id - 1
    rng = random.Random(seed)
    for t in sc.topics:
        count = t.partitions if partitions is None else max(1, round(t.partitions * partitions / total))
        topic = cluster.create_topic(t.name, count, t.replication_factor, configs=t.configs)
        assert topic is not None
        topic.topic_id = uuid.UUID(int=rng.getrandbits(128), version=4)  # uuid4 would differ per run
    for ld in sc.loads:
        cluster.set_load(ld["topic"], float(ld["rate"]), int(ld.get("acks", -1)))
    return cluster


class EventTap:
    """Listens to the cluster's events: marks what the next snapshot must rebuild, writes broker-log lines."""

    def __init__(self, cluster: SimCluster, builder: SnapshotBuilder, logs: bl.BrokerLogWriter) -> None:
        self.cluster = cluster
        self.builder = builder
        self.logs = logs
        self.changed = False
        self.events = 0
        self.isr_changes = 0
        self._pending: list[tuple[tuple[int, str, int], int, str, str]] = []

    def __call__(self, ev: SimEvent) -> None:
        self.events += 1
        k = ev.kind
        if k not in _QUIET_KINDS:
            self.changed = True
        if ev.partition is not None:
            self.builder.touch(ev.topic, ev.partition)
        elif k in _TOPIC_KINDS:
            self.builder.touch(ev.topic)
        if k in _BROKER_KINDS and ev.broker is not None:
            self.builder.touch_broker(ev.broker)
        if k == EventKind.CONFIG_CHANGE:
            self.builder.touch_configs()
        write = _WRITERS.get(k)
        if write is not None:
            write(self, ev)

    def logs_now(self, broker: int) -> bool:
        """A broker whose process runs writes its logs (a crashed one does not)."""
        b = self.cluster.brokers.get(broker)
        return b is not None and b.state != BrokerState.DOWN

    def _write(self, broker: int, name: str, text: str, order: tuple[int, str, int] = (0, "", 0)) -> None:
        if self.logs_now(broker):
            self._pending.append((order, broker, name, text))

    def flush(self) -> None:
        """Write this step's lines: broker lines, then partitions by name, then shutdowns.

        The simulator steps partitions in set order, which differs between processes; sorting
        (stably: one partition's lines keep their order) makes the files the same on every run.
        """
        now = self.cluster.now_ms
        for _, broker, name, text in sorted(self._pending, key=lambda x: x[0]):
            self.logs.write(broker, name, now, text)
        self._pending.clear()

    # -- ISR and leaders -----------------------------------------------------------------------------

    def shrink(self, ev: SimEvent) -> None:
        self.isr_changes += 1
        d, topic, index = ev.detail, str(ev.topic), int(ev.partition or 0)
        p = self.cluster.partition(topic, index)
        leader, now = int(d["leader"]), ev.ts_ms
        new, out = list(d["new_isr"]), list(d["out"])
        under = len(new) < int(d["min_isr"])
        if d.get("reason") == "lag":  # the leader's own AlterPartition
            lag, caught = d.get("lag", {}), d.get("last_caught_up_ms", {})
            oos = [(r, int(d["leo"]) - int(lag.get(r, 0)), int(caught.get(r, 0))) for r in out]
            self._write(
                leader,
                bl.SERVER_LOG,
                bl.shrink(now, leader, topic, index, d["old_isr"], new, int(d["hw"]), int(d["leo"]), oos),
                (1, topic, index),
            )
            self._write(
                leader,
                bl.SERVER_LOG,
                bl.isr_updated(now, leader, topic, index, new, under, p.partition_epoch),
                (1, topic, index),
            )
        elif leader not in out and leader >= 0:
            # the controller removed a fenced / shutting-down broker; the leader learns it from the metadata
            topic_id = self.cluster.topic(topic).topic_id
            self._write(
                leader,
                bl.STATE_CHANGE_LOG,
                bl.leader_told_isr(
                    now, leader, topic, index, topic_id, p.leader_epoch, p.partition_epoch, p.hw, new, p.replicas
                ),
                (1, topic, index),
            )
        # else: the removed broker led the partition; the new leader's line that follows carries the ISR

    def expand(self, ev: SimEvent) -> None:
        self.isr_changes += 1
        d, topic, index = ev.detail, str(ev.topic), int(ev.partition or 0)
        p = self.cluster.partition(topic, index)
        leader, new = int(d["leader"]), list(d["new_isr"])
        self._write(
            leader,
            bl.SERVER_LOG,
            bl.isr_updated(ev.ts_ms, leader, topic, index, new, len(new) < int(d["min_isr"]), p.partition_epoch),
            (1, topic, index),
        )

    def leader(self, ev: SimEvent) -> None:
        d, topic, index = ev.detail, str(ev.topic), int(ev.partition or 0)
        p = self.cluster.partition(topic, index)
        leader, isr = int(d["leader"]), list(d["isr"])
        under = len(isr) < self.cluster.configs.min_insync_replicas(topic)
        self._write(
            leader,
            bl.STATE_CHANGE_LOG,
            bl.leader_starts(
                ev.ts_ms,
                leader,
                topic,
                index,
                self.cluster.topic(topic).topic_id,
                int(d["epoch"]),
                p.log.end_offset,
                p.partition_epoch,
                p.hw,
                isr,
                under,
                int(d["was"]),
            ),
            (1, topic, index),
        )

    # -- brokers -------------------------------------------------------------------------------------

    def fenced(self, ev: SimEvent) -> None:
        b = int(ev.broker or 0)
        if ev.detail.get("controlled"):
            self._write(b, bl.SERVER_LOG, bl.controlled_shutdown(ev.ts_ms, b))
        elif self.cluster.controller_id >= 0:
            c = self.cluster.controller_id
            self._write(c, bl.SERVER_LOG, bl.fencing(ev.ts_ms, c, b))

    def down(self, ev: SimEvent) -> None:
        b = int(ev.broker or 0)
        if self.cluster.brokers[b].fenced:  # a controlled shutdown (a crash leaves no line)
            self._pending.append(((2, "", 0), b, bl.SERVER_LOG, bl.shut_down(ev.ts_ms, b)))

    def up(self, ev: SimEvent) -> None:
        b = int(ev.broker or 0)
        self._write(b, bl.SERVER_LOG, bl.started(ev.ts_ms, b))

    def unfenced(self, ev: SimEvent) -> None:
        b = int(ev.broker or 0)
        self._write(b, bl.SERVER_LOG, bl.unfenced(ev.ts_ms, b))

    def filler(self, now: int) -> None:
        """The offsets cleaner's periodic line on every running broker."""
        for b in sorted(self.cluster.brokers):
            self._write(b, bl.SERVER_LOG, bl.offsets_cleaner(now, b))


_WRITERS: dict[EventKind, Callable[[EventTap, SimEvent], None]] = {
    EventKind.ISR_SHRINK: EventTap.shrink,
    EventKind.ISR_EXPAND: EventTap.expand,
    EventKind.LEADER_CHANGE: EventTap.leader,
    EventKind.BROKER_FENCED: EventTap.fenced,
    EventKind.BROKER_DOWN: EventTap.down,
    EventKind.BROKER_UP: EventTap.up,
    EventKind.BROKER_UNFENCED: EventTap.unfenced,
}


def _day_start_ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()) * 1000


def _check_out(out: Path, day: date) -> None:
    """Refuse to mix a new day into files that already exist (the recorder and the logs append)."""
    before = (day - timedelta(days=1)).strftime(schema.DAY_FORMAT)
    taken = [out / day.strftime(schema.DAY_FORMAT), out / before / f"23{schema.FILE_SUFFIX}", out / "broker-logs"]
    for path in taken:
        if path.exists():
            raise SimDayError(f"{path} already exists: choose an empty --out directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".kafkatui-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SimDayError(f"cannot write to {out}: {exc.strerror or exc}", EXIT_UNWRITABLE) from None


def generate(
    day: date,
    out: str | Path,
    *,
    partitions: int | None = None,
    brokers: int | None = None,
    seed: int = 0,
    script: scenario.Scenario | None = None,
) -> DayResult:
    """Simulate `day` and write its recordings and broker logs under `out` (SimDayError on bad input)."""
    started = time.monotonic()
    out = Path(out)
    sc = script or day_script()
    day_start = _day_start_ms(day)
    start, end = day_start - HOUR_MS, day_start + DAY_MS
    cluster = build_cluster(sc, start, partitions, brokers, seed)
    _check_out(out, day)
    builder = SnapshotBuilder(cluster, bootstrap=f"127.0.0.1:{BASE_PORT}")
    recorder = Recorder(out)
    logs = bl.BrokerLogWriter(out / "broker-logs")
    tap = EventTap(cluster, builder, logs)
    cluster.events.subscribe(tap)
    player = scenario.ScenarioPlayer(sc, cluster)
    due = sorted(start + s.at_ms for s in sc.timeline)
    k = 0
    result = DayResult(
        day.strftime(schema.DAY_FORMAT),
        incidents=incidents_scripted(sc),
        partitions=sum(len(t.partitions) for t in cluster.topics.values()),
        brokers=len(cluster.brokers),
        cluster_id=cluster.cluster_id,
    )
    try:
        recorder.record(builder.snapshot(start / 1000))  # the evening before: the "start" snapshot
        tap.changed = False
        now = start
        next_tick = start + FILLER_EVERY_MS
        while now < end:
            while k < len(due) and due[k] <= now:
                k += 1
            limit = min(due[k] if k < len(due) else end, next_tick, end)
            quiet = cluster.quiet_until(limit)  # a stretch in which no step changes anything: one jump
            target = quiet if quiet > now else min(now + STEP_MS, limit)
            cluster.run_for(target - now)
            now = target
            player.poll()
            tap.flush()
            hour = now % HOUR_MS == 0
            if now == next_tick:
                next_tick += FILLER_EVERY_MS
                if now < end:
                    tap.filler(now)
                    tap.flush()
            if (tap.changed or hour) and now < end:
                recorder.record(builder.snapshot(now / 1000))
                tap.changed = False
        result.log_files = logs.close(gzip_before_ms=day_start + GZIP_BEFORE_HOUR * HOUR_MS)
    except (RecorderError, OSError) as exc:
        msg = str(exc) if isinstance(exc, RecorderError) else f"cannot write broker logs: {exc.strerror or exc}"
        raise SimDayError(msg, EXIT_UNWRITABLE) from None
    finally:
        cluster.events.unsubscribe(tap)
    before = day - timedelta(days=1)
    result.recording_files = sorted((out / before.strftime(schema.DAY_FORMAT)).glob(f"*{schema.FILE_SUFFIX}")) + sorted(
        (out / result.day).glob(f"*{schema.FILE_SUFFIX}")
    )
    result.records = recorder.records_written
    result.log_lines = logs.lines
    result.events = tap.events
    result.isr_changes = tap.isr_changes
    result.seconds = time.monotonic() - started
    return result


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options `kafkatui sim` adds for a simulated day (`--brokers` is the simulator's own)."""
    p.add_argument(
        "--history-day",
        metavar="YYYY-MM-DD",
        default=None,
        help="simulate that UTC day of incidents and write its ISR recordings and broker logs to --out",
    )
    p.add_argument("--out", type=Path, default=None, help="with --history-day: the directory to write")
    p.add_argument(
        "--partitions",
        type=whole(1, scenario.MAX_PARTITIONS),
        default=None,
        help="with --history-day: about this many partitions in all (default 602)",
    )
    p.add_argument("--seed", type=int, default=0, help="with --history-day: seed for the cluster and topic ids")


def run(ns: argparse.Namespace, print_line: Callable[[str], None] = print) -> int:
    """`kafkatui sim --history-day`: generate, print one summary line; errors are one line on stderr."""
    try:
        if ns.out is None:
            raise SimDayError("--history-day needs --out DIR")
        day = parse_day(ns.history_day)
        result = generate(day, ns.out, partitions=ns.partitions, brokers=ns.brokers, seed=ns.seed)
    except SimDayError as exc:
        sys.stderr.write(f"kafkatui: error: {exc}\n")
        return exc.exit_code
    print_line(f"kafkatui sim: {result.summary()}; in {ns.out}")
    return EXIT_OK
