"""``kafkatui elect``: preferred leader elections and a one-off unclean election (KIP-460), headless.

Preferred: snapshot -> plan (partitions off their preferred leader whose preferred replica is
alive and in the ISR) -> preview with leaders per broker now and after -> typed confirmation ->
ElectLeaders -> per-partition results -> audit -> re-describe: leaders per broker after.

Unclean: one OFFLINE partition only -> data-loss warning naming the candidate and how far behind
it is -> two typed confirmations (the partition ``T-P``, then ``LOSE DATA``; ``--yes`` skips them
only together with ``--accept-data-loss``) -> ElectLeaders UNCLEAN -> audit -> verify the leader.

Exit codes: 0 done (or dry run / export / nothing to do); 3 bad input; 4-10 connection errors;
12 writes disabled; 14 not confirmed; 15 some election failed or did not verify; 18 not
applicable (the partition is not offline, or has no live replica); 23 the cluster changed since the
preview (a leader moved, the partition got a leader back). See `kafkatui.alter.errors`.

Both read the cluster again before sending and write the audit intent first (`kafkatui.alter.journal`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from kafkatui.alter import journal
from kafkatui.alter.elect import (
    PreferredPlan,
    UncleanPlan,
    data_loss_warning,
    election_command,
    leader_counts,
    preferred_plan,
    select_topics,
    unclean_plan,
)
from kafkatui.alter.elect_apply import leader_of, run_preferred, run_unclean
from kafkatui.alter.elect_render import BY_HAND_MAX, LOSE_DATA, counts_table, render_preferred
from kafkatui.alter.errors import NotConfirmedError, PartialFailureError
from kafkatui.alter.guard import connect, typed_confirmation
from kafkatui.alter.render import age_text
from kafkatui.argparsing import Parser
from kafkatui.kafka.errors import KafkaTuiError, UsageError
from kafkatui.kafka.profiles import ResolvedConnection
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.options import add_connection_arguments

EPILOG = (
    "exit codes: 0 done (or dry run / export / nothing to do), 3 bad input, 4-10 connection errors, "
    "12 writes disabled, 14 not confirmed, 15 some election failed, 18 not applicable (not offline, or no "
    "live replica), "
    "23 changed since the preview"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    kind = p.add_mutually_exclusive_group(required=True)
    kind.add_argument("--preferred", action="store_true", help="move leaders back to their preferred (first) replica")
    kind.add_argument(
        "--unclean",
        action="store_true",
        help="one-off unclean election for ONE offline partition (loses data; KIP-460)",
    )
    p.add_argument("--topic", action="append", default=[], metavar="TOPIC", help="topic (repeatable for --preferred)")
    p.add_argument("--all", dest="all_topics", action="store_true", help="--preferred: every topic")
    p.add_argument(
        "--partition",
        action="append",
        default=[],
        type=int,
        metavar="N",
        help="only this partition (required with --unclean; repeatable for --preferred with one --topic)",
    )
    p.add_argument("--dry-run", action="store_true", help="preview only; change nothing")
    p.add_argument("--yes", action="store_true", help="skip the typed confirmation")
    p.add_argument(
        "--accept-data-loss",
        action="store_true",
        help="--unclean with --yes: skip both confirmations (otherwise --yes is not enough)",
    )
    p.add_argument("--write", action="store_true", help="allow changes (or writes: true in the profile)")
    p.add_argument(
        "--export",
        action="store_true",
        help="print the kafka-leader-election.sh command for the planned election instead (read-only)",
    )


def _check_args(ns: argparse.Namespace) -> None:
    if any(n < 0 for n in ns.partition):
        raise UsageError(f"bad partition {min(ns.partition)}")
    if ns.unclean:
        if ns.all_topics or len(ns.topic) != 1 or len(ns.partition) != 1:
            raise UsageError("--unclean takes exactly one --topic T and one --partition P (never --all)")
    elif ns.partition and len(ns.topic) != 1:
        raise UsageError("--partition needs exactly one --topic")
    elif ns.all_topics and ns.topic:
        raise UsageError("give --topic T or --all, not both")
    elif not ns.all_topics and not ns.topic:
        raise UsageError("give --topic T (repeatable) or --all")


def _source(conn: ResolvedConnection, log_dirs: str = "none") -> KafkaClusterSource:
    # an unclean election reads log dirs, and ELR: on Kafka 4.1 the last in-sync copies are there, not in the ISR
    return KafkaClusterSource(conn.settings, log_dirs=log_dirs, elr=log_dirs != "none")


def run(
    ns: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr
    try:
        _check_args(ns)
        conn = connect(ns, err, writes=not (ns.dry_run or ns.export))
        if ns.unclean:
            return _unclean(ns, conn, stdin, out, err)
        return _preferred(ns, conn, stdin, out, err)
    except KafkaTuiError as exc:
        err.write(f"kafkatui: error: {exc}\n")
        return exc.exit_code


def _bootstrap(ns: argparse.Namespace, conn: ResolvedConnection) -> str:
    return str(ns.bootstrap or conn.settings.bootstrap_servers)


def _preferred(ns: argparse.Namespace, conn: ResolvedConnection, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    source = _source(conn)
    try:
        snapshot = source.snapshot()
        settle(snapshot, err)
        plan = preferred_plan(snapshot, select_topics(snapshot, ns.topic, ns.all_topics), ns.partition)
        targets: dict[str, list[int]] = {}
        for m in plan.moves:
            targets.setdefault(m.topic, []).append(m.partition)
        by_hand = election_command("preferred", _bootstrap(ns, conn), targets) if targets else None
        if ns.export:
            if by_hand is None:
                err.write("kafkatui: nothing to elect\n")
                return 0
            out.write(by_hand + "\n")
            return 0
        render_preferred(plan, out)
        if by_hand is not None:
            out.write(
                f"by hand: {by_hand}\n"
                if len(plan.moves) <= BY_HAND_MAX
                else "by hand: --export prints the kafka-leader-election.sh command with its JSON file\n"
            )
        if not plan.moves or ns.dry_run:
            out.write("dry run: nothing changed\n" if plan.moves else "")
            return 0
        if not ns.yes:
            out.write(f"cluster state {age_text(snapshot)}; it is read again before anything is sent\n")
            out.flush()
            _confirm_preferred(plan, stdin, err)
            plan = _reconfirm_preferred(ns, plan, source.snapshot(), stdin, out, err)
            if not plan.moves:
                out.write("nothing to elect any more: nothing changed\n")
                return 0
        outcome = run_preferred(conn.settings, plan, snapshot.cluster_id, source.snapshot)
    finally:
        source.close()
    failed = []
    for m in plan.moves:
        key = (m.topic, m.partition)
        error = outcome.errors[key]
        if error is None:
            out.write(f"ok      {m.name} leader {m.leader} -> {outcome.leaders[key]}\n")
        else:
            failed.append(f"{m.name}: {error}")
            out.write(f"FAILED  {m.name}: {error}\n")
    if outcome.audit_error is not None:
        raise UsageError(outcome.audit_error)
    after = outcome.after
    assert after is not None
    out.write("leaders per broker (re-described):\n")
    counts_table({"before": plan.before, "expected": plan.after, "now": leader_counts(after)}, out)
    out.write(f"{len(plan.moves) - len(failed)} of {len(plan.moves)} elections done and verified\n")
    if failed:
        raise PartialFailureError(f"{len(failed)} of {len(plan.moves)} elections failed: " + "; ".join(failed))
    return 0


def settle(snapshot: ClusterSnapshot, err: TextIO) -> None:
    """Report (and record) the interrupted changes of this cluster an earlier run left in the audit log."""
    for line in journal.settle(snapshot):
        err.write(f"kafkatui: warning: {line}\n")


def _confirm_preferred(plan: PreferredPlan, stdin: TextIO, err: TextIO) -> None:
    if len(plan.moves) == 1:
        typed_confirmation("the partition name", plan.moves[0].name, stdin, err)
    else:
        typed_confirmation("the number of partitions", str(len(plan.moves)), stdin, err)


def _reconfirm_preferred(
    ns: argparse.Namespace, plan: PreferredPlan, now: ClusterSnapshot, stdin: TextIO, out: TextIO, err: TextIO
) -> PreferredPlan:
    """After the confirmation: when leaders moved since the preview, show it and the new plan, and ask again."""
    moved = [
        f"{m.name} leader {m.leader} in the preview, {leader_of(now, (m.topic, m.partition))} now"
        for m in plan.moves
        if leader_of(now, (m.topic, m.partition)) != m.leader
    ]
    if not moved:
        return plan
    out.write("! the cluster changed since the preview:\n")
    for line in moved[:10]:
        out.write(f"!   {line}\n")
    if len(moved) > 10:
        out.write(f"!   ... and {len(moved) - 10} more\n")
    fresh = preferred_plan(now, select_topics(now, ns.topic, ns.all_topics), ns.partition)
    render_preferred(fresh, out)
    out.flush()
    if fresh.moves:
        try:
            _confirm_preferred(fresh, stdin, err)
        except NotConfirmedError as exc:
            raise NotConfirmedError(f"not confirmed again after the cluster changed: {exc}") from None
    return fresh


def confirm_unclean(plan: UncleanPlan, stdin: TextIO, err: TextIO) -> None:
    """Two typed confirmations: the partition name, then LOSE DATA."""
    typed_confirmation(f"the partition name ({plan.name})", plan.name, stdin, err, "to continue")
    typed_confirmation(
        f"'{LOSE_DATA}'",
        LOSE_DATA,
        stdin,
        err,
        f"to run the unclean election and accept that records of {plan.name} are deleted",
    )


def _unclean(ns: argparse.Namespace, conn: ResolvedConnection, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    topic, partition = ns.topic[0], ns.partition[0]
    if ns.export:
        out.write(election_command("unclean", _bootstrap(ns, conn), {topic: [partition]}) + "\n")
        return 0
    if ns.yes and not ns.accept_data_loss and not ns.dry_run:
        raise NotConfirmedError(
            "--yes alone does not confirm an unclean election: add --accept-data-loss "
            "(or confirm interactively); nothing changed"
        )
    source = _source(conn, log_dirs="out-of-sync")
    try:
        snapshot = source.snapshot()
        settle(snapshot, err)
        plan = unclean_plan(snapshot, topic, partition)
        for line in data_loss_warning(plan):
            out.write(f"! {line}\n")
        out.write(f"by hand: {election_command('unclean', _bootstrap(ns, conn), {topic: [partition]})}\n")
        if ns.dry_run:
            out.write("dry run: nothing changed\n")
            return 0
        if not ns.yes:
            out.write(f"cluster state {age_text(snapshot)}; it is read again before anything is sent\n")
            out.flush()
            confirm_unclean(plan, stdin, err)
        outcome = run_unclean(conn.settings, plan, snapshot.cluster_id, source.snapshot)
    finally:
        source.close()
    error, now = outcome.errors[(topic, partition)], outcome.leaders[(topic, partition)]
    if outcome.audit_error is not None:
        raise UsageError(outcome.audit_error)
    if error is not None:
        out.write(f"FAILED  {plan.name}: {error}\n")
        raise PartialFailureError(f"the unclean election of {plan.name} failed: {error}")
    out.write(f"ok      {plan.name} leader -1 -> {now} (unclean)\n")
    if now != plan.likely.broker:
        out.write(f"note: the controller chose broker {now}, not broker {plan.likely.broker}\n")
    return 0


def main_elect(argv: list[str], stdin: TextIO | None = None) -> int:
    p = Parser(
        prog="kafkatui elect",
        description="Leader elections: preferred (leaders back on their first "
        "replica) or a one-off unclean election for an offline partition: preview, confirm, elect, "
        "verify, audit.",
        epilog=EPILOG,
    )
    add_arguments(p)
    return run(p.parse_args(argv), stdin=stdin)


__all__ = ["confirm_unclean", "main_elect", "run"]
