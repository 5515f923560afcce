"""`kafkatui check --wait-restart-safe BROKER` and `kafkatui check --roll-plan`: rolling restarts.

The gate re-reads the cluster until restarting BROKER now keeps every partition with a replica on it
online with at least its effective min ISR + `--headroom` in sync, and the controller side healthy
(`kafkatui.model.restart_gate`). Exit codes: 0 safe, 24 still not safe at `--wait-timeout`, 25 waiting
cannot help (too few replicas: RF 1, min ISR = RF, min ISR above RF); 3-10 bad input and connection
errors as every command. Progress goes to stderr, the verdict to stdout (one JSON document with --json).

`--roll-plan` (read-only) prints the order of the brokers, the gate each step runs, and what would
block the roll today with its fix (`kafkatui.model.roll_plan`). Exit 0 nothing blocks, 1 the first
gates would wait now, 25 a topic cannot be rolled safely without a fix.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shlex
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from kafkatui.argparsing import whole
from kafkatui.kafka.errors import (
    AuthenticationError,
    AuthorizationDeniedError,
    KafkaTuiError,
    NotKafkaError,
    ProfileError,
    UsageError,
)

if TYPE_CHECKING:
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.model.health import HealthReport
    from kafkatui.model.restart_gate import Blocker, GateVerdict, Quorum
    from kafkatui.model.roll_plan import RollPlan
    from kafkatui.model.snapshot import ClusterSnapshot

SCHEMA_GATE = "kafkatui.restart-gate/1"
SCHEMA_PLAN = "kafkatui.roll-plan/1"
EXIT_SAFE = 0
EXIT_ROLL_WAITS = 1  # --roll-plan: the first gates would wait now
EXIT_DEADLINE = 24  # --wait-restart-safe: still not safe when --wait-timeout ran out
EXIT_CANNOT = 25  # waiting cannot help: a partition has too few replicas
DEFAULT_WAIT_S = 300.0
MAX_WAIT_S = 7 * 86400.0
POLL_S = 1.0  # between two reads (a read itself takes what the cluster takes)
PLAIN_EVERY_S = 10.0  # off a terminal: a progress line when something changed, or this often
QUORUM_MAX_LAG = 1000  # metadata records a voter may trail the leader by and count as caught up
JSON_PARTITIONS = 50  # the worst partitions listed in the JSON document
_FATAL = (UsageError, ProfileError, NotKafkaError, AuthenticationError, AuthorizationDeniedError)

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration(text: str) -> float:
    """An argparse type: `90`, `90s`, `5m`, `1m30s`, `1h`, `500ms` -> seconds in (0, 7 days]."""
    t = text.strip().lower()
    try:
        value = float(t)
    except ValueError:
        if not t or _PART.sub("", t):
            raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 5m, 1m30s, 1h)") from None
        value = sum(float(n) * _UNIT[u] for n, u in _PART.findall(t))
    if not 0 < value <= MAX_WAIT_S:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 7 days, got {text}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rolling restarts")
    g.add_argument(
        "--wait-restart-safe",
        type=whole(0, 2**31 - 1),
        default=None,
        metavar="BROKER",
        help="wait until restarting BROKER now keeps every partition online and at or above its min ISR "
        "(+ --headroom), and the controller quorum healthy; exit 0 safe, 24 deadline, 25 cannot become safe",
    )
    g.add_argument(
        "--headroom",
        type=whole(0, 1000),
        default=0,
        metavar="K",
        help="with --wait-restart-safe / --roll-plan: in-sync replicas to spare above min ISR after the restart "
        "(default 0)",
    )
    g.add_argument(
        "--wait-timeout",
        type=duration,
        default=None,
        metavar="DURATION",
        help=f"with --wait-restart-safe: how long to wait, e.g. 90s, 5m (default {DEFAULT_WAIT_S / 60:.0f}m)",
    )
    g.add_argument(
        "--roll-plan",
        action="store_true",
        help="print the order to restart the brokers in, what each step waits for, and what would block "
        "the roll today (read-only)",
    )


def wanted(ns: argparse.Namespace) -> bool:
    """Whether `check` was asked for the gate or the roll plan (or given one of their options)."""
    return (
        getattr(ns, "wait_restart_safe", None) is not None
        or bool(getattr(ns, "roll_plan", False))
        or getattr(ns, "wait_timeout", None) is not None
        or bool(getattr(ns, "headroom", 0))
    )


def _validate(ns: argparse.Namespace) -> None:
    gate_on = ns.wait_restart_safe is not None
    if gate_on and ns.roll_plan:
        raise UsageError("--wait-restart-safe and --roll-plan are two commands: give one")
    if not gate_on and ns.wait_timeout is not None:
        raise UsageError("--wait-timeout only applies to --wait-restart-safe")
    if not gate_on and not ns.roll_plan:
        raise UsageError("--headroom only applies to --wait-restart-safe and --roll-plan")
    if gate_on and ns.demo is not None:
        raise UsageError("--wait-restart-safe waits on a live cluster; --demo is frozen (try --roll-plan --demo)")
    if ns.at is not None and ns.demo is None:
        raise UsageError("--at only applies to --demo (how far into the simulated scenario to look)")
    for flag, given in (("--what-if-down", ns.what_if_down), ("--brief", ns.brief), ("--all", ns.all)):
        if given:
            raise UsageError(f"{flag} does not apply to --wait-restart-safe / --roll-plan")


def connection_words(ns: argparse.Namespace) -> str:
    """How printed commands connect: the bootstrap or profile the user gave (never -X values: secrets)."""
    if ns.profile:
        return f"--profile {shlex.quote(ns.profile)}"
    return f"--bootstrap {shlex.quote(ns.bootstrap or 'BROKER:9092')}"


def _extra(ns: argparse.Namespace) -> list[str]:
    return [f"--topic {shlex.quote(ns.topic)}"] if ns.topic else []


# ----------------------------------------------------------------------------- reading
def judge(
    source: KafkaClusterSource | None, snapshot: ClusterSnapshot, ns: argparse.Namespace, broker: int | None
) -> tuple[HealthReport, Quorum | None, int | None]:
    """The report of `snapshot` (after --topic), the controller side, and the quorum leader's id (KRaft)."""
    from kafkatui.check_cmd import filter_topics
    from kafkatui.model.health import assess
    from kafkatui.model.restart_gate import Quorum, is_kraft, kraft_quorum, zookeeper_quorum

    report = assess(filter_topics(snapshot, ns.topic))
    if not is_kraft(report):
        return report, zookeeper_quorum(report), None
    if source is None:
        return report, None, None
    try:
        answer = source.describe_quorum()
    except KafkaTuiError:
        try:  # once more: the broker asked may be the one restarting (the client then asks another)
            answer = source.describe_quorum()
        except KafkaTuiError as exc:
            return report, Quorum("kraft", False, f"controller quorum unreadable: {exc}"), None
    leader = None
    with contextlib.suppress(IndexError, KeyError, TypeError, ValueError):
        leader = int(answer["topics"][0]["partitions"][0]["leader_id"])
    return report, kraft_quorum(answer, broker, QUORUM_MAX_LAG), leader


# ----------------------------------------------------------------------------- the gate
def progress_line(v: GateVerdict, left_s: float) -> str:
    """What the wait prints while not safe: count, the worst partition (ISR, lag), the time left."""
    parts = [f"broker {v.broker}: {v.waiting_on} partition(s) not yet safe"]
    if v.blockers:
        parts.append("worst " + v.blockers[0].describe())
        if len(v.blockers) > 1:
            parts.append("next " + v.blockers[1].name)
    parts.extend(v.problems)
    return "; ".join(parts) + f"; {_clock(left_s)} left"


def _clock(s: float) -> str:
    s = max(0, int(s + 0.999))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class _Progress:
    """One updating line on a terminal, plain lines (on change, or every PLAIN_EVERY_S) otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last = ""
        self.last_at = 0.0
        self.drawn = False

    def show(self, line: str, key: str) -> None:
        if self.tty:
            import shutil

            width = shutil.get_terminal_size().columns - 1
            self.stream.write("\r\x1b[2K" + (line if len(line) <= width else line[: width - 1] + "…"))
            self.drawn = True
        elif key != self.last or time.monotonic() - self.last_at >= PLAIN_EVERY_S:
            self.stream.write(f"kafkatui: waiting: {line}\n")
            self.last, self.last_at = key, time.monotonic()
        self.stream.flush()

    def end(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.drawn = False


def _blocker_doc(x: Blocker) -> dict[str, Any]:
    return {
        "partition": x.name,
        "topic": x.topic,
        "id": x.partition,
        "leader": x.leader,
        "replicas": list(x.replicas),
        "isr": list(x.isr),
        "min_isr": x.min_isr,
        "needed": x.needed,
        "in_sync_without_broker": x.left,
        "cannot_become_safe": x.hopeless,
        "out_of_sync": [
            {"broker": r.broker, "up": r.up, "offset_lag": r.offset_lag, "byte_lag": r.byte_lag} for r in x.lag
        ],
    }


def gate_doc(
    v: GateVerdict | None, code: int, outcome: str, waited: float, reads: int, timeout: float, error: str | None
) -> dict[str, Any]:
    """The JSON document of `--wait-restart-safe --json` (schema kafkatui.restart-gate/1)."""
    return {
        "schema": SCHEMA_GATE,
        "broker": None if v is None else v.broker,
        "headroom": None if v is None else v.headroom,
        "outcome": outcome,
        "exit_code": code,
        "safe": v is not None and v.safe,
        "summary": error if v is None else v.summary(),
        "waited_seconds": round(waited, 3),
        "wait_timeout_seconds": timeout,
        "reads": reads,
        "partitions_on_broker": None if v is None else v.hosted,
        "not_safe": None if v is None else v.waiting_on,
        "partitions": [] if v is None else [_blocker_doc(x) for x in v.blockers[:JSON_PARTITIONS]],
        "problems": [] if v is None else list(v.problems),
        "quorum": None
        if v is None or v.quorum is None
        else {"kind": v.quorum.kind, "healthy": v.quorum.healthy, "detail": v.quorum.detail},
        "dashboard_restart_safe": None if v is None else v.model_safe,
        "last_error": error,
    }


def run_gate(ns: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Wait for the gate; the exit code (see the module docstring)."""
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.model.restart_gate import gate
    from kafkatui.options import connection_from

    out = out or sys.stdout
    err = err or sys.stderr
    broker: int = ns.wait_restart_safe
    timeout = DEFAULT_WAIT_S if ns.wait_timeout is None else ns.wait_timeout
    conn = connection_from(ns)
    for w in conn.warnings:
        err.write(f"kafkatui: warning: {w}\n")
    start = time.monotonic()
    deadline = start + timeout
    progress = _Progress(err)
    verdict: GateVerdict | None = None
    report: HealthReport | None = None
    error: str | None = None
    reads = 0
    with KafkaClusterSource(conn.settings, log_dirs="out-of-sync") as source:
        while True:
            try:
                snap = source.snapshot()
                report, quorum, _ = judge(source, snap, ns, broker)
                error = None
            except _FATAL:
                raise
            except KafkaTuiError as exc:  # unreachable for now (a restart under way): tried until the deadline
                error = str(exc)
                progress.show(
                    f"broker {broker}: cluster unreadable ({error}); {_clock(deadline - time.monotonic())} left", error
                )
            else:
                reads += 1
                if reads == 1 and broker not in report.brokers:
                    known = ", ".join(map(str, sorted(report.brokers))) or "none"
                    raise UsageError(f"--wait-restart-safe {broker}: no such broker in the cluster (brokers: {known})")
                verdict = gate(report, broker, ns.headroom, quorum)
                if verdict.safe or verdict.hopeless:
                    break
                progress.show(progress_line(verdict, deadline - time.monotonic()), _key(verdict))
            now = time.monotonic()
            if now >= deadline:
                break
            time.sleep(min(POLL_S, max(0.0, deadline - now)))
    progress.end()
    waited = time.monotonic() - start
    if verdict is not None and verdict.safe:
        code, outcome = EXIT_SAFE, "safe"
    elif verdict is not None and verdict.hopeless:
        code, outcome = EXIT_CANNOT, "cannot-become-safe"
    else:
        code, outcome = EXIT_DEADLINE, "deadline"
    if ns.json:
        doc = gate_doc(verdict, code, outcome, waited, reads, timeout, error)
        out.write(json.dumps(doc, indent=2 if out.isatty() else None) + "\n")
        return code
    _print_gate(out, verdict, code, waited, timeout, error, report, ns)
    return code


def _key(v: GateVerdict) -> str:
    """What must change for a plain progress line to be printed again before PLAIN_EVERY_S."""
    worst = v.blockers[0] if v.blockers else None
    return f"{v.waiting_on}|{worst.name if worst else ''}|{worst.left if worst else ''}|{'|'.join(v.problems)}"


def _print_gate(
    out: TextIO,
    v: GateVerdict | None,
    code: int,
    waited: float,
    timeout: float,
    error: str | None,
    report: HealthReport | None,
    ns: argparse.Namespace,
) -> None:
    if v is None:
        out.write(f"broker {ns.wait_restart_safe}: the cluster could not be read in {_clock(timeout)}: {error}\n")
        return
    if code == EXIT_SAFE:
        out.write(f"{v.summary()} (waited {waited:.1f} s)\n")
        return
    if code == EXIT_DEADLINE:
        out.write(f"still not safe after {_clock(timeout)}: {v.summary()}\n")
        if error:
            out.write(f"  the last read failed: {error}\n")
    else:
        out.write(v.summary() + "\n")
    for x in v.blockers[:10]:
        out.write(f"  {x.describe()}\n")
    if len(v.blockers) > 10:
        out.write(f"  ... and {len(v.blockers) - 10} more (--json lists {JSON_PARTITIONS})\n")
    if code == EXIT_CANNOT and report is not None:
        from kafkatui.model.roll_plan import blockers_of

        for b in blockers_of(report, {v.broker: v}, ns.headroom, connection_words(ns)):
            if b.kind == "cannot":
                out.write(f"  fix {', '.join(b.topics)}: {b.fix}\n")
                for cmd in b.commands:
                    out.write(f"    $ {cmd}\n")


# ----------------------------------------------------------------------------- the roll plan
def plan_doc(p: RollPlan, report: HealthReport, code: int) -> dict[str, Any]:
    """The JSON document of `--roll-plan --json` (schema kafkatui.roll-plan/1)."""
    return {
        "schema": SCHEMA_PLAN,
        "cluster": {"id": report.snapshot.cluster_id, "controller": report.snapshot.controller_id},
        "exit_code": code,
        "steps": [
            {
                "broker": s.broker,
                "rack": s.rack,
                "controller": s.controller,
                "wait": s.wait,
                "safe_now": p.verdicts[s.broker].safe,
            }
            for s in p.steps
        ],
        "final_wait": p.final_wait,
        "controller_note": p.controller_note,
        "blockers": [
            {
                "kind": b.kind,
                "what": b.what,
                "fix": b.fix,
                "topics": list(b.topics),
                "brokers": list(b.brokers),
                "commands": list(b.commands),
            }
            for b in p.blockers
        ],
    }


def run_plan(ns: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the roll plan; exit 0 nothing blocks, 1 the gates would wait now, 25 a topic cannot roll."""
    from kafkatui.model.roll_plan import plan

    out = out or sys.stdout
    if ns.demo is not None:
        from kafkatui.check_cmd import demo_snapshot

        snap = demo_snapshot(ns.demo, ns.at or "6m", 10.0 if ns.timeout is None else ns.timeout)
        report, quorum, leader = judge(None, snap, ns, None)
    else:
        from kafkatui.kafka.source import KafkaClusterSource
        from kafkatui.options import connection_from

        conn = connection_from(ns)
        for w in conn.warnings:
            sys.stderr.write(f"kafkatui: warning: {w}\n")
        with KafkaClusterSource(conn.settings, log_dirs="out-of-sync") as source:
            report, quorum, leader = judge(source, source.snapshot(), ns, None)
    brokers = {b for b, h in report.brokers.items() if h.up}
    if quorum is not None and quorum.kind == "zookeeper":
        ctl = report.snapshot.controller_id if report.snapshot.controller_id in brokers else None
        note = (
            f"broker {ctl} is the active controller: it goes last, so the controller moves once"
            if ctl is not None
            else "no active controller in the metadata"
        )
    else:
        ctl = leader if leader in brokers else None
        if ctl is not None:
            note = f"broker {ctl} leads the KRaft controller quorum: it goes last, so the leadership moves once"
        else:
            who = f" (leader {leader})" if leader is not None and leader >= 0 else ""
            note = (
                f"the KRaft controllers{who} are not among these brokers: roll them apart, one at a time and the "
                "leader last, each after `kafka-metadata-quorum.sh --bootstrap-server BROKER describe --replication` "
                "shows every voter caught up"
            )
    p = plan(report, quorum, connection_words(ns), ns.headroom, ctl, note, _extra(ns))
    code = EXIT_CANNOT if p.cannot else EXIT_ROLL_WAITS if p.waits else EXIT_SAFE
    if ns.json:
        out.write(json.dumps(plan_doc(p, report, code), indent=2 if out.isatty() else None) + "\n")
        return code
    _print_plan(out, p)
    return code


def _print_plan(out: TextIO, p: RollPlan) -> None:
    racks = {s.rack for s in p.steps}
    by_rack = len(racks) > 1 or None not in racks
    out.write(
        f"Roll plan: {len(p.steps)} broker(s)"
        + (", one rack at a time" if by_rack else "")
        + " (read-only: nothing was restarted)\n"
    )
    out.write(f"  {p.controller_note}\n")
    for i, s in enumerate(p.steps, 1):
        where = f" (rack {s.rack})" if s.rack else ""
        ctl = " - controller, last" if s.controller else ""
        now = "safe now" if p.verdicts[s.broker].safe else "would wait now"
        out.write(f"{i}. broker {s.broker}{where}{ctl}: {now}\n")
        out.write(f"   wait:    {s.wait}\n")
        out.write(f"   then:    restart broker {s.broker} (a controlled shutdown: SIGTERM / systemctl restart)\n")
    if p.final_wait:
        out.write(f"{len(p.steps) + 1}. wait until the cluster could lose a broker again:\n   {p.final_wait}\n")
    if not p.blockers:
        out.write("Nothing blocks the roll today.\n")
        return
    out.write("What would block the roll today:\n")
    for b in p.blockers:
        head = "CANNOT ROLL SAFELY" if b.kind == "cannot" else "WOULD WAIT"
        out.write(f"- {head}: {b.what}\n")
        out.write(f"  fix: {b.fix}\n")
        for cmd in b.commands:
            out.write(f"    $ {cmd}\n")


def run_rolling(ns: argparse.Namespace) -> int:
    """`check --wait-restart-safe` or `check --roll-plan`: errors as one line and their exit code."""
    try:
        _validate(ns)
        if ns.topic:
            from kafkatui.check_cmd import filter_topics
            from kafkatui.model.snapshot import ClusterSnapshot

            filter_topics(ClusterSnapshot(None, -1, (), {}), ns.topic)
        if ns.roll_plan:
            return run_plan(ns)
        return run_gate(ns)
    except KafkaTuiError as exc:
        sys.stderr.write(f"kafkatui: error: {exc}\n")
        return exc.exit_code
