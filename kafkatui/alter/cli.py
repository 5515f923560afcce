"""``kafkatui alter``: change replication configs safely, headless.

Flow: plan (values validated offline) -> snapshot -> preview with risks -> validate-only request ->
typed confirmation -> IncrementalAlterConfigs -> re-describe to verify -> audit log -> summary.
``--export`` prints the change for kafka-configs.sh or Strimzi and changes nothing (no connection);
``--dry-run`` stops after the validate-only request.

Exit codes: 0 all applied (or dry run / export done); 3 bad input; 4-10 connection errors as for
every command; 12 writes disabled; 13 validate-only refused; 14 not confirmed; 15 some change failed
to apply or verify; 16 nothing to revert (see `kafkatui.alter.errors`).
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence
from typing import TextIO

from kafkatui.alter import audit
from kafkatui.alter.apply import ConfigAlterer, ResourceResult, Verified, verify
from kafkatui.alter.errors import PartialFailureError, ValidationRefusedError
from kafkatui.alter.export import kafka_configs_commands, strimzi_yaml
from kafkatui.alter.guard import connect, typed_confirmation
from kafkatui.alter.plan import ChangePlan, build_plan, label, targets
from kafkatui.alter.risk import ChangePreview, preview
from kafkatui.argparsing import Parser
from kafkatui.kafka.errors import KafkaTuiError, UsageError
from kafkatui.model.health import assess
from kafkatui.options import add_connection_arguments, connection_from

EPILOG = ("exit codes: 0 applied (or dry run / export), 3 bad input, 4-10 connection errors, 12 writes disabled, "
          "13 validate-only refused, 14 not confirmed, 15 some change failed, 16 nothing to revert")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--topic", action="append", default=[], metavar="TOPIC", help="topic to change (repeatable)")
    p.add_argument("--broker", action="append", default=[], type=int, metavar="ID",
                   help="change this broker's dynamic config (repeatable)")
    p.add_argument("--broker-default", action="store_true", help="change the cluster-wide broker default")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="min.insync.replicas=N or unclean.leader.election.enable=true|false (repeatable)")
    p.add_argument("--unset", dest="unsets", action="append", default=[], metavar="KEY",
                   help="remove the override: back to the broker (or Kafka) default (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="preview and validate only; change nothing")
    p.add_argument("--yes", action="store_true", help="skip the typed confirmation")
    p.add_argument("--write", action="store_true", help="allow changes (or writes: true in the profile)")
    p.add_argument("--export", choices=("kafka-configs", "strimzi"),
                   help="print the change for kafka-configs.sh or Strimzi instead of applying it (no connection)")
    p.add_argument("--namespace", default="kafka", help="Kubernetes namespace for --export strimzi (default kafka)")
    p.add_argument("--strimzi-cluster", default="my-cluster", metavar="NAME",
                   help="Strimzi Kafka cluster name for --export strimzi (default my-cluster)")
    p.add_argument("--revert-last", action="store_true",
                   help="undo the last successful change set in the audit log (same preview and confirmation)")
    p.add_argument("--strimzi", action="store_true", help="the topics are managed by Strimzi (warn against live changes)")


def _plan(ns: argparse.Namespace, cluster_id: str | None = None) -> ChangePlan:
    if ns.revert_last:
        if ns.topic or ns.broker or ns.broker_default or ns.sets or ns.unsets:
            raise UsageError("--revert-last takes no --topic/--broker/--broker-default/--set/--unset")
        return audit.revert_last(cluster_id=cluster_id)
    return build_plan(targets(ns.topic, ns.broker, ns.broker_default), ns.sets, ns.unsets)


def render_preview(items: Sequence[ChangePreview], out: TextIO) -> None:
    """The preview table (resource, key, current (source), new) and the risks under each row."""
    rows = [("resource", "key", "current (source)", "new")]
    for it in items:
        c = it.change
        rows.append((c.label, c.key, f"{it.current.value} ({it.current.source})", c.shown_value))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for n, row in enumerate(rows):
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")
        if n:
            for risk in items[n - 1].risks:
                out.write(f"    ! {risk}\n")
    if not any(it.risks for it in items):
        out.write("no risks found\n")


def _errors(results: Sequence[ResourceResult]) -> list[str]:
    return [f"{label(r.kind, r.name)}: {r.error}" for r in results if not r.ok]


def expected_confirmation(plan: ChangePlan) -> tuple[str, str]:
    """What the user must type to apply `plan`, and how to ask for it: the topic name (one topic),
    the broker id, ``default``, or the number of resources. The TUI asks the same."""
    resources = list(plan.resources())
    if len(resources) == 1:
        kind, name = resources[0]
        expected = name if kind != "broker-default" else "default"
        what = {"topic": "the topic name", "broker": "the broker id", "broker-default": "'default'"}[kind]
    else:
        expected = str(len(resources))
        what = f"the number of resources ({'topics' if all(k == 'topic' for k, _ in resources) else 'resources'})"
    return expected, what


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


def run(ns: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None,
        err: TextIO | None = None) -> int:
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
    if not ns.revert_last:
        _plan(ns)  # bad values are refused before any connection
    conn = connect(ns, err, writes=not ns.dry_run)
    from kafkatui.kafka.source import KafkaClusterSource

    source = KafkaClusterSource(conn.settings, log_dirs="none", elr=False)
    try:
        snapshot = source.snapshot()
        plan = _plan(ns, snapshot.cluster_id)
        items = preview(plan, snapshot, assess(snapshot), strimzi=ns.strimzi)
        render_preview(items, out)
        alterer = ConfigAlterer(conn.settings)
        try:
            checked = alterer.send(plan, validate_only=True)
            problems = _errors(checked)
            if problems:
                for line in problems:
                    out.write(f"refused  {line}\n")
                raise ValidationRefusedError(
                    f"the brokers refused {len(problems)} of {len(checked)} resources in the validate-only "
                    f"request: nothing changed ({problems[0]})")
            n = len(plan.changes)
            out.write(f"validate-only: the brokers accept {'the change' if n == 1 else f'all {n} changes'}\n")
            if ns.dry_run:
                out.write("dry run: nothing changed\n")
                return 0
            if not ns.yes:
                confirm(plan, stdin, err)
            results = alterer.send(plan, validate_only=False)
        finally:
            alterer.close()
        verified = verify(plan, results, snapshot, source.snapshot)
    finally:
        source.close()
    audit.append(audit.make_records(verified, snapshot.cluster_id, str(uuid.uuid4())))
    _summary(verified, out)
    failed = [v for v in verified if not v.ok]
    if failed:
        raise PartialFailureError(f"{len(failed)} of {len(verified)} changes failed: "
                                  + "; ".join(f"{v.change.label} {v.change.key}: {v.error}" for v in failed))
    return 0


def main_alter(argv: list[str], stdin: TextIO | None = None) -> int:
    p = Parser(prog="kafkatui alter", description="Change replication configs: preview, validate, confirm, "
               "apply with IncrementalAlterConfigs, verify, audit.", epilog=EPILOG)
    add_arguments(p)
    return run(p.parse_args(argv), stdin=stdin)


__all__ = ["expected_confirmation", "main_alter", "render_preview", "run"]
