"""``kafkatui alter``: change replication configs safely, headless.

Flow: plan (values validated offline) -> snapshot -> preview with risks -> validate-only request ->
typed confirmation -> IncrementalAlterConfigs -> re-describe to verify -> audit log -> summary.
``--export`` prints the change for kafka-configs.sh or Strimzi and changes nothing (no connection);
``--dry-run`` stops after the validate-only request.

Before anything is sent the cluster is read again: a change made meanwhile is shown and must be
confirmed again (with ``--yes`` it refuses, exit 23); the intent (before-values of that read) is
written to the audit log first, the outcomes after (`kafkatui.alter.journal`). Interrupted earlier
changes of the cluster are reported first. ``--revert-last`` / ``--revert N`` are compare-and-set
(`kafkatui.alter.revert`); ``--history`` lists the cluster's change sets.

Exit codes: 0 all applied (or dry run / export done); 3 bad input; 4-10 connection errors as for
every command; 12 writes disabled; 13 validate-only refused; 14 not confirmed; 15 some change failed
to apply or verify; 16 nothing to revert; 22 revert refused (the cluster no longer holds the change);
23 the cluster changed since the preview (see `kafkatui.alter.errors`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from kafkatui.alter import journal, revert
from kafkatui.alter.apply import ConfigAlterer, ResourceResult, Verified
from kafkatui.alter.config_write import apply_plan, conflicts
from kafkatui.alter.errors import NotConfirmedError, PartialFailureError, ValidationRefusedError
from kafkatui.alter.export import kafka_configs_commands, strimzi_yaml
from kafkatui.alter.guard import connect, typed_confirmation
from kafkatui.alter.plan import ChangePlan, build_plan, label, targets
from kafkatui.alter.render import age_text, expected_confirmation, render_history, render_preview
from kafkatui.alter.risk import preview
from kafkatui.argparsing import Parser
from kafkatui.kafka.errors import KafkaTuiError, UsageError
from kafkatui.model.health import assess
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.options import add_connection_arguments, connection_from

EPILOG = (
    "exit codes: 0 applied (or dry run / export), 3 bad input, 4-10 connection errors, 12 writes disabled, "
    "13 validate-only refused, 14 not confirmed, 15 some change failed, 16 nothing to revert, "
    "22 revert refused (the cluster changed since), 23 changed since the preview"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--topic", action="append", default=[], metavar="TOPIC", help="topic to change (repeatable)")
    p.add_argument(
        "--broker",
        action="append",
        default=[],
        type=int,
        metavar="ID",
        help="change this broker's dynamic config (repeatable)",
    )
    p.add_argument("--broker-default", action="store_true", help="change the cluster-wide broker default")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="min.insync.replicas=N or unclean.leader.election.enable=true|false (repeatable)",
    )
    p.add_argument(
        "--unset",
        dest="unsets",
        action="append",
        default=[],
        metavar="KEY",
        help="remove the override: back to the broker (or Kafka) default (repeatable)",
    )
    p.add_argument("--dry-run", action="store_true", help="preview and validate only; change nothing")
    p.add_argument("--yes", action="store_true", help="skip the typed confirmation")
    p.add_argument("--write", action="store_true", help="allow changes (or writes: true in the profile)")
    p.add_argument(
        "--export",
        choices=("kafka-configs", "strimzi"),
        help="print the change for kafka-configs.sh or Strimzi instead of applying it (no connection)",
    )
    p.add_argument("--namespace", default="kafka", help="Kubernetes namespace for --export strimzi (default kafka)")
    p.add_argument(
        "--strimzi-cluster",
        default="my-cluster",
        metavar="NAME",
        help="Strimzi Kafka cluster name for --export strimzi (default my-cluster)",
    )
    p.add_argument(
        "--revert-last",
        action="store_true",
        help="undo the newest change set of this cluster not undone yet (again: the one before); "
        "refused when the cluster no longer holds its values",
    )
    p.add_argument(
        "--revert",
        type=int,
        metavar="N",
        default=None,
        help="undo change set N of --history (1: the newest; an undo re-applies)",
    )
    p.add_argument("--history", action="store_true", help="list this cluster's config change sets, newest first")
    p.add_argument(
        "--strimzi", action="store_true", help="the topics are managed by Strimzi (warn against live changes)"
    )


def _plan(ns: argparse.Namespace, snapshot: ClusterSnapshot | None = None, bootstrap: str = "B") -> ChangePlan:
    if ns.revert_last or ns.revert is not None or ns.history:
        if ns.topic or ns.broker or ns.broker_default or ns.sets or ns.unsets:
            raise UsageError("--revert-last/--revert/--history take no --topic/--broker/--broker-default/--set/--unset")
        if sum((ns.revert_last, ns.revert is not None, ns.history)) > 1:
            raise UsageError("give one of --revert-last, --revert N, --history")
        if ns.revert is not None and ns.revert < 1:
            raise UsageError(f"--revert N counts from 1 (the newest change), got {ns.revert}")
        if ns.export:
            raise UsageError("--export goes with --topic/--broker/--broker-default and --set/--unset")
        if snapshot is None:
            return ChangePlan(())
        change, plan = revert.revertible_config(snapshot, ns.revert, bootstrap)
        ns.revert_of = change.command_id
        ns.revert_title = change.describe()
        return plan
    return build_plan(targets(ns.topic, ns.broker, ns.broker_default), ns.sets, ns.unsets)


def _errors(results: Sequence[ResourceResult]) -> list[str]:
    return [f"{label(r.kind, r.name)}: {r.error}" for r in results if not r.ok]


def confirm(plan: ChangePlan, stdin: TextIO, err: TextIO) -> None:
    """Ask for the answer `expected_confirmation` names; NotConfirmedError otherwise."""
    expected, what = expected_confirmation(plan)
    typed_confirmation(what, expected, stdin, err)


def _summary(verified: Sequence[Verified], out: TextIO) -> None:
    for v in verified:
        c = v.change
        if v.ok:
            after = v.after
            shown = f"{after.value} ({after.source})" if after is not None else "?"
            out.write(f"ok      {c.label} {c.key}: {v.before.value} ({v.before.source}) -> {shown}\n")
        else:
            out.write(f"FAILED  {c.label} {c.key}: {v.error}\n")
    ok = sum(v.ok for v in verified)
    out.write(f"{ok} of {len(verified)} changes applied and verified\n")


def run(
    ns: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr
    try:
        return _run(ns, stdin, out, err)
    except KafkaTuiError as exc:
        err.write(f"kafkatui: error: {exc}\n")
        return exc.exit_code


def _run(ns: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    if ns.export:
        plan = _plan(ns)
        if ns.export == "kafka-configs":
            bootstrap = ns.bootstrap or (connection_from(ns).settings.bootstrap_servers if ns.profile else "B")
            out.write("\n".join(kafka_configs_commands(plan, bootstrap)) + "\n")
        else:
            out.write(strimzi_yaml(plan, ns.namespace, ns.strimzi_cluster))
        return 0
    _plan(ns)  # bad values are refused before any connection
    conn = connect(ns, err, writes=not (ns.dry_run or ns.history))
    from kafkatui.kafka.source import KafkaClusterSource

    bootstrap = str(ns.bootstrap or conn.settings.bootstrap_servers)
    source = KafkaClusterSource(conn.settings, log_dirs="none", elr=False)
    try:
        snapshot = source.snapshot()
        for line in journal.settle(snapshot):
            err.write(f"kafkatui: warning: {line}\n")
        if ns.history:
            render_history(snapshot, out)
            return 0
        plan = _plan(ns, snapshot, bootstrap)
        extra = {"revert_of": ns.revert_of} if getattr(ns, "revert_of", None) else None
        if extra:
            out.write(f"revert of: {ns.revert_title}\n")
        items = preview(plan, snapshot, assess(snapshot), strimzi=ns.strimzi)
        render_preview(items, out)
        alterer = ConfigAlterer(conn.settings)
        try:
            checked = alterer.send(plan, validate_only=True)
        finally:
            alterer.close()
        problems = _errors(checked)
        if problems:
            for line in problems:
                out.write(f"refused  {line}\n")
            raise ValidationRefusedError(
                f"the brokers refused {len(problems)} of {len(checked)} resources in the validate-only "
                f"request: nothing changed ({problems[0]})"
            )
        n = len(plan.changes)
        out.write(f"validate-only: the brokers accept {'the change' if n == 1 else f'all {n} changes'}\n")
        if ns.dry_run:
            out.write("dry run: nothing changed\n")
            return 0
        seen = snapshot
        if not ns.yes:
            out.write(f"cluster state {age_text(snapshot)}; it is read again before anything is sent\n")
            out.flush()
            confirm(plan, stdin, err)
            seen = _reconfirm(plan, snapshot, source.snapshot(), stdin, out, err)
        applied = apply_plan(conn.settings, plan, source.snapshot, seen, extra)
    finally:
        source.close()
    verified = applied.verified
    _summary(verified, out)
    if applied.audit_error is not None:
        raise UsageError(applied.audit_error)
    failed = [v for v in verified if not v.ok]
    if failed:
        raise PartialFailureError(
            f"{len(failed)} of {len(verified)} changes failed: "
            + "; ".join(f"{v.change.label} {v.change.key}: {v.error}" for v in failed)
        )
    return 0


def _reconfirm(
    plan: ChangePlan, shown: ClusterSnapshot, now: ClusterSnapshot, stdin: TextIO, out: TextIO, err: TextIO
) -> ClusterSnapshot:
    """After the confirmation: when the cluster changed since the preview, show what changed and the new
    preview, and ask again. Returns the snapshot the user last saw."""
    diffs = conflicts(plan, shown, now)
    if not diffs:
        return shown
    out.write("! the cluster changed since the preview (someone else changed it):\n")
    for line in diffs:
        out.write(f"!   {line}\n")
    render_preview(preview(plan, now, assess(now)), out)
    out.flush()
    try:
        confirm(plan, stdin, err)
    except NotConfirmedError as exc:
        raise NotConfirmedError(f"not confirmed again after the cluster changed: {exc}") from None
    return now


def main_alter(argv: list[str], stdin: TextIO | None = None) -> int:
    p = Parser(
        prog="kafkatui alter",
        description="Change replication configs: preview, validate, confirm, "
        "apply with IncrementalAlterConfigs, verify, audit.",
        epilog=EPILOG,
    )
    add_arguments(p)
    return run(p.parse_args(argv), stdin=stdin)


__all__ = ["main_alter", "run"]
