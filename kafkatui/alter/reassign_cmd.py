"""``kafkatui reassign``: change a topic's replication factor through a rack-aware reassignment, headless.

Flow: snapshot -> plan (`kafkatui.alter.reassign`) -> the plan per partition (old -> new replicas,
racks) -> typed confirmation (the topic name) -> AlterPartitionReassignments -> one audit record per
partition -> progress until every new replica is in its ISR (``--no-wait`` returns at once).
``--export`` prints the kafka-reassign-partitions.sh JSON instead (stdout; the command lines and
the rollback JSON on stderr); ``--cancel`` cancels the topic's reassignment in flight;
``--revert-last`` moves the partitions of the last audited reassignment back. ``--throttle``
sets a replication throttle (`kafkatui.alter.throttle`) before the moves and removes it once they
finished (or on ``--cancel``; ``--clear-throttle`` removes it by hand).

Exit codes: 0 done (or dry run / export / nothing to do / started with --no-wait); 3 bad input;
4-10 connection errors; 12 writes disabled; 13 the throttle refused by the validate-only request;
14 not confirmed; 15 some partition refused;
16 nothing to revert; 18 not applicable (more replicas than live brokers, a reassignment already
running, nothing to cancel); 19 still running when waiting stopped; 22 revert refused (the partitions'
replicas are no longer what that reassignment left); 21 replicas changed since the preview (see
`kafkatui.alter.errors`). ``--revert-last`` walks back: each run undoes the newest reassignment not
undone yet (`kafkatui.alter.revert`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import uuid
from collections.abc import Iterable, Sequence
from typing import TextIO

from kafkatui.alter import audit, journal, revert, throttle_apply
from kafkatui.alter.config_write import changed_meanwhile
from kafkatui.alter.errors import (
    NotApplicableError,
    NothingToRevertError,
    PartialFailureError,
    StillRunningError,
    ValidationRefusedError,
)
from kafkatui.alter.guard import connect, typed_confirmation
from kafkatui.alter.reassign import (
    PartitionMove,
    Progress,
    ReassignPlan,
    ids_text,
    moves_from_records,
    plan_replication_factor,
    reassign_commands,
    reassignment_json,
    rf_risks,
)
from kafkatui.alter.reassign_apply import Reassigner, moved_meanwhile, start_audited, wait
from kafkatui.alter.reassign_cancel import cancel, clear_throttle
from kafkatui.alter.reassign_render import render_plan
from kafkatui.alter.render import age_text
from kafkatui.alter.throttle import parse_rate, throttle_plan
from kafkatui.argparsing import Parser, seconds
from kafkatui.kafka.errors import KafkaTuiError, UsageError
from kafkatui.kafka.profiles import ResolvedConnection
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.options import add_connection_arguments

EPILOG = (
    "exit codes: 0 done (or dry run / export / --no-wait), 3 bad input, 4-10 connection errors, "
    "12 writes disabled, 13 throttle refused (validate-only), 14 not confirmed, 15 some partition refused, 16 "
    "nothing to revert, "
    "18 not applicable, 19 still running when waiting stopped, 22 revert refused (changed since), "
    "23 changed since the preview"
)
WAIT_SECONDS = 600.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--topic", metavar="TOPIC", help="the topic to reassign (or whose reassignment to cancel)")
    p.add_argument(
        "--replication-factor",
        "--rf",
        dest="rf",
        type=int,
        metavar="N",
        help="the new replication factor (raise or lower)",
    )
    p.add_argument(
        "--cancel", action="store_true", help="cancel the topic's reassignment in progress (and remove its throttle)"
    )
    p.add_argument(
        "--throttle",
        metavar="BYTES_PER_SEC",
        help="limit the replication traffic of the moves (removed once they finish)",
    )
    p.add_argument(
        "--clear-throttle",
        action="store_true",
        help="remove the replication throttle of the topic and the brokers' throttle rates",
    )
    p.add_argument(
        "--revert-last",
        action="store_true",
        help="move the partitions of the last audited reassignment back to their previous replicas",
    )
    p.add_argument("--dry-run", action="store_true", help="show the plan only; change nothing")
    p.add_argument("--yes", action="store_true", help="skip the typed confirmation")
    p.add_argument("--write", action="store_true", help="allow changes (or writes: true in the profile)")
    p.add_argument(
        "--export",
        action="store_true",
        help="print the kafka-reassign-partitions.sh JSON (stdout) and commands (stderr) instead (read-only)",
    )
    p.add_argument("--no-wait", action="store_true", help="return once the reassignment has started")
    p.add_argument(
        "--wait-timeout",
        type=seconds(7 * 86400),
        default=WAIT_SECONDS,
        metavar="SECONDS",
        help=f"how long to wait for the new replicas to join the ISR (default {WAIT_SECONDS:.0f})",
    )


def _check_args(ns: argparse.Namespace) -> str:
    """The mode: ``rf``, ``cancel``, ``clear`` or ``revert``; UsageError for a bad combination."""
    if sum((ns.cancel, ns.revert_last, ns.clear_throttle)) > 1:
        raise UsageError("give one of --cancel, --revert-last, --clear-throttle")
    if ns.throttle is not None:
        if ns.cancel or ns.clear_throttle:
            raise UsageError("--throttle goes with --replication-factor or --revert-last")
        ns.throttle_rate = parse_rate(ns.throttle)
    if ns.revert_last:
        if ns.topic or ns.rf is not None:
            raise UsageError("--revert-last takes no --topic or --replication-factor")
        if ns.export:
            raise UsageError("--export with --revert-last: export the plan of a new reassignment instead")
        return "revert"
    if not ns.topic:
        raise UsageError("give --topic T (with --replication-factor N, or --cancel)")
    if ns.cancel or ns.clear_throttle:
        if ns.rf is not None or ns.export:
            raise UsageError(f"--{'cancel' if ns.cancel else 'clear-throttle'} takes only --topic")
        return "cancel" if ns.cancel else "clear"
    if ns.rf is None:
        raise UsageError("give --replication-factor N (or --cancel, or --revert-last)")
    if ns.rf < 1:
        raise UsageError(f"--replication-factor must be >= 1, got {ns.rf}")
    if ns.wait_timeout <= 0:
        raise UsageError(f"--wait-timeout must be > 0, got {ns.wait_timeout:g}")
    return "rf"


def run(
    ns: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr
    try:
        mode = _check_args(ns)
        conn = connect(ns, err, writes=not (ns.dry_run or ns.export))
        source = KafkaClusterSource(conn.settings, log_dirs="none", elr=False)
        try:
            snapshot = source.snapshot()  # first: connection failures get their own exit codes (5-9)
            for line in journal.settle(snapshot):
                err.write(f"kafkatui: warning: {line}\n")
            reassigner = Reassigner(conn.settings)
            try:
                if mode == "cancel":
                    return cancel(ns, conn, snapshot, source, reassigner, stdin, out, err)
                if mode == "clear":
                    return clear_throttle(ns, conn, snapshot, stdin, out, err)
                return _reassign(ns, conn, mode, snapshot, source, reassigner, stdin, out, err)
            finally:
                reassigner.close()
        finally:
            source.close()
    except KafkaTuiError as exc:
        err.write(f"kafkatui: error: {exc}\n")
        return exc.exit_code


def _plan(
    ns: argparse.Namespace, mode: str, snapshot: ClusterSnapshot, reassigner: Reassigner
) -> tuple[ReassignPlan, str, dict[str, object]]:
    """The plan, its title and the extra audit fields: an RF change, or the revert of the last reassignment."""
    if mode == "revert":
        sets = revert.history("reassign", snapshot.cluster_id)
        if not sets:
            raise NothingToRevertError(
                f"no reassignment in the audit log {audit.audit_path()} for cluster {snapshot.cluster_id}"
            )
        last = revert.pick(sets, None, revert.where(None, snapshot.cluster_id))
        plan = ReassignPlan(moves_from_records(last.records), {b.id: b.rack for b in snapshot.brokers})
        _refuse_if_running(reassigner, {m.topic for m in plan.moves})
        differs = revert.replica_differences(last, snapshot)
        if differs:
            by_hand = (
                f"echo {shlex.quote(reassignment_json(plan.moves))} > revert.json && "
                + reassign_commands(str(ns.bootstrap or "B"), "revert.json")[0]
            )
            raise revert.refuse(last, differs, by_hand)
        title = (
            f"revert of reassignment {last.command_id[:8]} ({last.describe()}): {len(plan.moves)} "
            "partition(s) move back"
        )
        return plan, title, {"revert_of": last.command_id}
    if ns.topic in snapshot.topics and not ns.export:
        _refuse_if_running(reassigner, [ns.topic])
    plan = plan_replication_factor(snapshot, ns.topic, ns.rf)
    olds = sorted({len(m.old) for m in plan.moves})
    title = (
        f"reassignment of {ns.topic}: replication factor {'/'.join(map(str, olds))} -> {ns.rf} "
        f"({len(plan.moves)} partition(s))"
    )
    return plan, title, {}


def _export(ns: argparse.Namespace, conn: ResolvedConnection, plan: ReassignPlan, out: TextIO, err: TextIO) -> int:
    out.write(reassignment_json(plan.moves) + "\n")
    bootstrap = str(ns.bootstrap or conn.settings.bootstrap_servers)
    err.write("# save the JSON above as reassign.json, then:\n")
    for line in reassign_commands(bootstrap, throttle=getattr(ns, "throttle_rate", None)):
        err.write(f"#   {line}\n")
    err.write(f"# rollback.json (the current assignment): {reassignment_json(plan.moves, rollback=True)}\n")
    return 0


def _reassign(
    ns: argparse.Namespace,
    conn: ResolvedConnection,
    mode: str,
    snapshot: ClusterSnapshot,
    source: KafkaClusterSource,
    reassigner: Reassigner,
    stdin: TextIO,
    out: TextIO,
    err: TextIO,
) -> int:
    plan, title, extra = _plan(ns, mode, snapshot, reassigner)
    if not plan.moves:
        out.write(
            f"nothing to do: every partition of {ns.topic} has {ns.rf} replica(s)\n"
            if mode == "rf"
            else "nothing to do: the last reassignment in the audit log names no partition\n"
        )
        return 0
    if ns.export:
        return _export(ns, conn, plan, out, err)
    render_plan(plan, snapshot, out, title)
    if mode == "rf":
        for risk in rf_risks(snapshot, ns.topic, ns.rf):
            out.write(f"  ! {risk}\n")
    rate = getattr(ns, "throttle_rate", None)
    throttle = throttle_plan(plan.moves, rate) if rate else None
    if throttle is not None:
        out.write(
            f"  throttle: {rate} bytes/s on brokers {ids_text(sorted(_brokers(plan.moves)))}, "
            "removed once every move finished\n"
        )
        problems = throttle_apply.send(conn.settings, throttle, validate_only=True)
        if problems:
            raise ValidationRefusedError(
                f"the brokers refused the throttle in the validate-only request: nothing changed ({problems[0]})"
            )
    if ns.dry_run:
        out.write("dry run: nothing changed\n")
        return 0
    if not ns.yes:
        out.write(f"cluster state {age_text(snapshot)}; it is read again before anything is sent\n")
        out.flush()
        if len(plan.topics) == 1:
            typed_confirmation("the topic name", plan.topics[0], stdin, err)
        else:
            typed_confirmation("the number of partitions", str(len(plan.moves)), stdin, err)
        moved = moved_meanwhile(plan.moves, source.snapshot())
        if moved:
            out.write("! the cluster changed since the preview:\n" + "".join(f"!   {m}\n" for m in moved))
            raise changed_meanwhile(moved)
    command_id = str(uuid.uuid4())
    if throttle is not None:
        problems = throttle_apply.send(
            conn.settings, throttle, False, "throttle", snapshot.cluster_id, command_id, snapshot
        )
        if problems:
            raise PartialFailureError("setting the throttle failed, no partition was moved: " + "; ".join(problems))
    results = start_audited(reassigner, plan.moves, snapshot.cluster_id, command_id, extra, source.snapshot)
    started = [m for m in plan.moves if results[(m.topic, m.partition)] is None]
    failed = [f"{m.name}: {results[(m.topic, m.partition)]}" for m in plan.moves if m not in started]
    for line in failed:
        out.write(f"FAILED  {line}\n")
    out.write(f"started {len(started)} of {len(plan.moves)} partition moves (audit id {command_id})\n")
    if throttle is not None and not started:
        out.write(
            throttle_apply.remove(
                conn.settings, plan.topics, _brokers(plan.moves), snapshot.cluster_id, command_id, snapshot
            )
            + "\n"
        )
    elif started:
        _follow(
            ns,
            conn,
            plan,
            started,
            snapshot.cluster_id,
            command_id,
            throttle is not None,
            source,
            reassigner,
            out,
            err,
            fail_quietly=bool(failed),
        )
    if failed:
        raise PartialFailureError(f"{len(failed)} of {len(plan.moves)} partition moves refused: " + "; ".join(failed))
    return 0


def _follow(
    ns: argparse.Namespace,
    conn: ResolvedConnection,
    plan: ReassignPlan,
    started: Sequence[PartitionMove],
    cluster_id: str | None,
    command_id: str,
    throttled: bool,
    source: KafkaClusterSource,
    reassigner: Reassigner,
    out: TextIO,
    err: TextIO,
    fail_quietly: bool,
) -> None:
    """Wait for the started moves (unless --no-wait), then remove the throttle; StillRunningError when unfinished."""
    clear_hint = (
        f"the throttle stays until you remove it once the moves finished: "
        f"`kafkatui reassign --topic {plan.topics[0]} --clear-throttle --write`"
    )
    if ns.no_wait:
        out.write("not waiting: follow it with `kafka-reassign-partitions.sh --verify` or re-run without --no-wait\n")
        if throttled:
            out.write(clear_hint + "\n")
        return
    try:
        state = _wait_with_bar(started, source, reassigner, ns.wait_timeout, err)
    except StillRunningError as exc:  # Ctrl-C
        if throttled:
            out.write(clear_hint + "\n")
        raise exc from None
    joined = f": {state.in_isr} of {state.adding} new replicas in the ISR" if state.adding else ""
    out.write(f"{state.finished} of {state.partitions} partitions finished{joined}\n")
    if throttled and state.done:
        out.write(
            throttle_apply.remove(conn.settings, plan.topics, _brokers(plan.moves), cluster_id, command_id) + "\n"
        )
    elif throttled:
        out.write(clear_hint + "\n")
    if not state.done and not fail_quietly:
        raise StillRunningError(
            f"{len(state.pending)} partition(s) still copying after {ns.wait_timeout:g}s "
            f"({', '.join(state.pending[:5])}{' ...' if len(state.pending) > 5 else ''}): the reassignment "
            f"goes on in the cluster; `kafkatui reassign --topic {started[0].topic} --cancel` stops it"
        )


def _refuse_if_running(reassigner: Reassigner, topics: Iterable[str]) -> None:
    running = reassigner.ongoing(topics)
    if running:
        names = ", ".join(f"{t}-{p}" for t, p in sorted(running))
        raise NotApplicableError(
            f"a reassignment is already in progress for {names}: wait for it or cancel it "
            "with --cancel; nothing changed"
        )


def _wait_with_bar(
    moves: Sequence[PartitionMove], source: KafkaClusterSource, reassigner: Reassigner, seconds: float, err: TextIO
) -> Progress:
    """Wait for the moves with a rich progress bar on stderr (new replicas in the ISR, or partitions done)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    console = Console(file=err, highlight=False)
    adding = sum(len(m.adding) for m in moves)
    unit = "new replicas in ISR" if adding else "partitions done"
    with Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TextColumn("{task.fields[parts]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task("reassigning", total=adding or len(moves), parts="")

        def update(state: Progress) -> None:
            bar.update(
                task,
                completed=state.in_isr if adding else state.finished,
                parts=f"{state.finished}/{state.partitions} partitions done" if adding else "",
            )

        try:
            return wait(moves, source.snapshot, reassigner, seconds, update)
        except KeyboardInterrupt:
            raise StillRunningError(
                "interrupted while waiting: the reassignment goes on in the cluster; "
                f"`kafkatui reassign --topic {moves[0].topic} --cancel` stops it"
            ) from None


def _brokers(moves: Sequence[PartitionMove]) -> set[int]:
    return {b for m in moves for b in (*m.old, *m.new)}


def main_reassign(argv: list[str], stdin: TextIO | None = None) -> int:
    p = Parser(
        prog="kafkatui reassign",
        description="Change a topic's replication factor through a rack-aware "
        "partition reassignment: plan, confirm, start, follow until the new replicas are in sync, audit.",
        epilog=EPILOG,
    )
    add_arguments(p)
    return run(p.parse_args(argv), stdin=stdin)


__all__ = ["main_reassign", "run"]
