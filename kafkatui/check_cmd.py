"""`kafkatui check`: a headless verdict on a cluster's replication health, for people and cron.

Exit codes: 0 healthy, 1 warnings, 2 critical (partitions offline or under minISR, or any other
critical finding); connection and input problems have their own codes (kafkatui.kafka.errors).
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import threading
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kafkatui.argparsing import Parser
from kafkatui.kafka.errors import EXIT_CRITICAL, EXIT_HEALTHY, EXIT_WARNINGS, KafkaTuiError, UsageError
from kafkatui.model.health import Health, HealthReport
from kafkatui.model.mode import snapshot_mode
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.model.unfenced import SHORT as UNFENCED_SHORT
from kafkatui.model.unfenced import SYMBOL as UNFENCED_SYMBOL
from kafkatui.model.unfenced import per_topic, writes_failing_first
from kafkatui.options import add_connection_arguments, connection_from
from kafkatui.textfilter import FilterTooSlow, select

if TYPE_CHECKING:
    from rich.console import Console

    from kafkatui.model.evaluation import Assessment
    from kafkatui.model.finding import Finding
    from kafkatui.model.whatif import WhatIf

# Start-up (issue 17): `check --json` imports neither rich (tables, messages) nor the what-if model unless
# it uses them, and imports the findings and their catalog on a thread while the cluster answers. The
# columns (`kafkatui.columns`, which import the findings through `kafkatui.present`) are imported once the
# cluster has answered: at the top they put 0.1 s of imports before the first request.

SCHEMA = "kafkatui.check/1"
TOPIC_FILTER_BUDGET_S = 2.0
BRIEF_FINDINGS = 5  # findings `--brief` lists (the rest are counted)
PIPE_WIDTH = 1000  # off a terminal: tables at their natural width, never cut at 80 columns


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--topic", metavar="REGEX", help="only topics whose name matches this regular expression")
    p.add_argument(
        "--what-if-down", metavar="IDS", help="also report what taking these brokers down would do, e.g. 2,3"
    )
    p.add_argument("--json", action="store_true", help="print JSON (schema kafkatui.check/1) instead of tables")
    p.add_argument("--all", action="store_true", help="list healthy topics and brokers too")
    p.add_argument(
        "--brief", action="store_true", help="the verdict, the counts and the top findings in about ten lines"
    )
    p.add_argument(
        "--demo",
        nargs="?",
        const="incident",
        metavar="SCENARIO",
        help="check an in-process simulated cluster playing SCENARIO (default incident)",
    )
    p.add_argument(
        "--at", default=None, metavar="DURATION", help="with --demo: how far into the scenario to look (default 6m)"
    )
    p.add_argument(
        "--history",
        default=None,
        metavar="DIR",
        help="ISR history written by `kafkatui record` (or the dashboard): counts the last hour's ISR "
        "shrinks per broker for the isr-flapping finding",
    )
    from kafkatui import check_gate

    check_gate.add_arguments(p)


# ----------------------------------------------------------------------------- verdict
def verdict(found: list[Finding]) -> tuple[str, int]:
    """('critical'|'warning'|'healthy', exit code) from the findings."""
    from kafkatui.present import verdict_of

    level = verdict_of(f.severity for f in found)
    return level, {"critical": EXIT_CRITICAL, "warning": EXIT_WARNINGS}.get(level, EXIT_HEALTHY)


def filter_topics(snapshot: ClusterSnapshot, pattern: str | None) -> ClusterSnapshot:
    if not pattern:
        return snapshot
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise UsageError(f"--topic: not a regular expression: {pattern!r} ({exc})") from None
    names = list(snapshot.topics)
    try:
        keep = {names[i] for i in select(rx, names, budget=TOPIC_FILTER_BUDGET_S)}
    except FilterTooSlow as exc:
        raise UsageError(f"--topic: regular expression {pattern!r} not used: {exc}") from None
    return replace(snapshot, topics={n: t for n, t in snapshot.topics.items() if n in keep})


def parse_ids(text: str | None) -> set[int]:
    if not text:
        return set()
    try:
        return {int(x) for x in text.split(",") if x.strip()}
    except ValueError:
        raise UsageError(f"--what-if-down takes broker ids like 2,3; got {text!r}") from None


# ----------------------------------------------------------------------------- JSON
def to_json(snapshot: ClusterSnapshot, report: HealthReport, found: list[Finding], wi: WhatIf | None) -> dict[str, Any]:
    """The documented, stable JSON document of `kafkatui check --json`."""
    from kafkatui.columns import BROKERS, TOPICS, Context

    c = report.counts
    level, code = verdict(found)
    context = Context(leader_down=per_topic(snapshot) if c.leader_refused else {})
    return {
        "schema": SCHEMA,
        "cluster": {
            "id": snapshot.cluster_id,
            "controller": snapshot.controller_id,
            "bootstrap": snapshot.bootstrap,
            "taken_at": datetime.fromtimestamp(snapshot.taken_at, UTC).isoformat(),
            "fetch_seconds": round(snapshot.fetch_seconds, 3),
            "partial": snapshot.partial,
            "problems": list(snapshot.problems),
            "kafka_version": snapshot.kafka.label if snapshot.kafka.known else None,
            "mode": snapshot.kafka.mode,
        },
        "summary": {
            "verdict": level,
            "exit_code": code,
            "brokers_up": c.brokers_up,
            "brokers_total": c.brokers_total,
            "brokers_absent": list(c.brokers_absent),
            "brokers_refusing_connections": list(c.brokers_refused),
            "topics": c.topics,
            "partitions": c.partitions,
            "offline": c.offline,
            "under_min_isr": c.under_min_isr,
            "at_min_isr": c.at_min_isr,
            "under_replicated": c.under_replicated_total,
            "non_preferred_leader": c.non_preferred_total,
            "leader_down_not_moved": c.leader_refused,
        },
        "brokers": [BROKERS.record(b, context) for b in sorted(report.brokers.values(), key=lambda b: b.id)],
        "topics": [TOPICS.record(t, context) for t in report.topics_worst_first()],
        "findings": [f.to_dict() for f in found],
        "what_if": None
        if wi is None
        else {
            "down": sorted(wi.down),
            "summary": wi.summary(),
            "safe": wi.safe,
            "offline": [p.name for p in wi.offline],
            "under_min_isr": [p.name for p in wi.under_min_isr],
            "single_in_sync_copy": [p.name for p in wi.single_in_sync_copy],
            "topics": {
                name: {
                    "offline": t.offline,
                    "under_min_isr": t.under_min_isr,
                    "single_in_sync_copy": t.single_in_sync_copy,
                }
                for name, t in sorted(wi.topics.items())
            },
        },
    }


# ----------------------------------------------------------------------------- tables
def render(
    out: Console,
    snapshot: ClusterSnapshot,
    report: HealthReport,
    found: list[Finding],
    wi: WhatIf | None,
    show_all: bool = False,
) -> None:
    """Summary, brokers, topics and findings as rich tables (meaning never rests on colour alone)."""
    from rich.text import Text

    from kafkatui.columns import BROKERS, TOPICS, Context
    from kafkatui.present import SEVERITY_STYLE, brokers_down_phrase

    c = report.counts
    mode = snapshot_mode(snapshot)
    level, _ = verdict(found)
    when = datetime.fromtimestamp(snapshot.taken_at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    absent = brokers_down_phrase(c)
    out.print(
        f"cluster [bold]{snapshot.cluster_id or '?'}[/]  controller {snapshot.controller_id}  "
        f"brokers {c.brokers_up}/{c.brokers_total} up{absent}  {c.topics} topics  {c.partitions} partitions  "
        f"read {when} in {snapshot.fetch_seconds:.2f} s",
        highlight=False,
    )
    out.print(f"{snapshot.kafka.describe()}; {snapshot.kafka.rule_note}", highlight=False, markup=False)
    if snapshot.partial:
        out.print(Text("PARTIAL: " + "; ".join(snapshot.problems), style="yellow"))
    line = Text("verdict ")
    line.append(f"{level.upper()}", style=SEVERITY_STYLE.get(level, "bold green"))
    line.append(
        f"  offline {c.offline}  under minISR {c.under_min_isr}  at minISR {c.at_min_isr}  "
        f"under-replicated {c.under_replicated_total}  non-preferred leaders {c.non_preferred_total}"
    )
    if c.leader_refused:  # led by a broker refusing connections: no writes until the controller moves them
        line.append(f"  leader down, not yet moved (writes fail) {c.leader_refused}", style="bold red")
    out.print(line)

    down = per_topic(snapshot) if c.leader_refused else {}
    context = Context(mode=mode, leader_down=down)
    out.print(BROKERS.text_table("Brokers", sorted(report.brokers.values(), key=lambda b: b.id), context))
    ordered = writes_failing_first(report.topics_worst_first(), down)
    shown = [t for t in ordered if show_all or t.worst != Health.HEALTHY or t.name in down]
    hidden = len(report.topics) - len(shown)
    out.print(TOPICS.text_table("Topics, worst first", shown, context))
    legend = (
        "offl offline, <min under minISR, =min at minISR, URP under-replicated; headroom: in-sync replicas "
        "above the effective minISR (worst partition; 3.7+ brokers cap minISR at RF: shown as config→effective); "
        "tolerates: broker failures acks=all writes go on through, by design (RF - minISR) and now (the worst "
        "partition's ISR above minISR)"
    )
    out.print(legend + (f"; {hidden} healthy topics not shown (--all)" if hidden else ""), style="dim", soft_wrap=True)

    if found:
        out.print(Text("Findings", style="bold"))
    for i, f in enumerate(found, 1):
        head = Text(f"{i}. ")
        head.append(f.severity.upper(), style=SEVERITY_STYLE[f.severity])
        head.append(f"  {f.title}")
        out.print(head)
        for label, items in (("evidence", f.evidence), ("likely causes", f.causes), ("what to do", f.steps)):
            if items:
                out.print(f"   {label}:", style="dim")
                for item in items:
                    out.print(f"     - {item}", markup=False, highlight=False, soft_wrap=True)
        for cmd in f.paste_block().splitlines():  # changes commented out, under when to run them
            style = "dim" if cmd.startswith("#") else "bold"
            out.print(f"     {cmd}", markup=False, highlight=False, soft_wrap=True, style=style)
        if f.strimzi_patch:
            out.print("     Strimzi KafkaTopic patch:", style="dim")
            for ln in f.strimzi_patch.rstrip().splitlines():
                out.print(f"       {ln}", markup=False, highlight=False, soft_wrap=True)
    if wi is not None:
        out.print(Text(f"What if: {wi.summary()}", style="green" if wi.safe else "bold red"))


def render_brief(out: Console, snapshot: ClusterSnapshot, report: HealthReport, found: list[Finding]) -> None:
    """About ten lines for a chat message or a pager: verdict, counts, worst topics, top findings."""
    from rich.text import Text

    from kafkatui.present import SEVERITY_STYLE, SHORT_LABEL, brokers_down_phrase, plural

    c = report.counts
    level, code = verdict(found)
    when = datetime.fromtimestamp(snapshot.taken_at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    head = Text("verdict ")
    head.append(level.upper(), style=SEVERITY_STYLE.get(level, "bold green"))
    absent = brokers_down_phrase(c)
    head.append(
        f"  cluster {snapshot.cluster_id or '?'}  brokers {c.brokers_up}/{c.brokers_total} up{absent}  "
        f"{plural(c.partitions, 'partition')}  read {when}"
    )
    out.print(head, highlight=False)
    if snapshot.partial:
        out.print(
            Text(
                f"PARTIAL: {plural(len(snapshot.problems), 'part')} of the snapshot could not be read "
                "(the full report says which)",
                style="yellow",
            )
        )
    out.print(
        f"offline {c.offline} · under minISR {c.under_min_isr} · at minISR {c.at_min_isr} · "
        f"under-replicated {c.under_replicated_total} · non-preferred leaders {c.non_preferred_total}",
        highlight=False,
    )
    down = per_topic(snapshot) if c.leader_refused else {}
    worst = [
        t
        for t in writes_failing_first(report.topics_worst_first(), down)
        if t.worst != Health.HEALTHY or t.name in down
    ]
    if worst:
        names = ", ".join(
            f"{t.name} ({UNFENCED_SYMBOL} {UNFENCED_SHORT})"
            if t.name in down
            else f"{t.name} ({t.worst.symbol} {SHORT_LABEL[t.worst]})"
            for t in worst[:4]
        )
        more = f" +{len(worst) - 4} more" if len(worst) > 4 else ""
        out.print(f"worst topics: {names}{more}", markup=False, highlight=False, soft_wrap=True)
    counts = {sev: sum(1 for f in found if f.severity == sev) for sev in ("critical", "warning", "info")}
    summary = ", ".join(f"{n} {sev}" for sev, n in counts.items() if n) or "none"
    shown = min(BRIEF_FINDINGS, len(found))
    out.print(
        f"findings: {summary}" + (f"; the top {shown}:" if shown > 1 else (":" if shown else "")), highlight=False
    )
    for i, f in enumerate(found[:BRIEF_FINDINGS], 1):
        line = Text(f"  {i}. ")
        line.append(f.severity.upper(), style=SEVERITY_STYLE[f.severity])
        line.append(f"  {f.title}")
        out.print(line, soft_wrap=True)
    out.print(f"exit {code}; the full report without --brief (commands included), --json for scripts", style="dim")


# ----------------------------------------------------------------------------- running
def history_shrinks(ns: argparse.Namespace, snapshot: ClusterSnapshot) -> tuple[dict[int, int] | None, str]:
    """ISR shrinks per broker from `--history` (None without it), and one line saying what was used."""
    directory = getattr(ns, "history", None)
    if not directory:
        return None, (
            "isr-flapping is judged from ISR history, which one check run does not have: pass "
            "--history DIR (written by `kafkatui record` or the dashboard), or watch the dashboard"
        )
    from kafkatui.history.record.shrinks import WINDOW_S, shrink_counts

    counts = shrink_counts(directory, snapshot.cluster_id, snapshot.taken_at, WINDOW_S)
    if counts is None:
        return None, f"no ISR history of cluster {snapshot.cluster_id or '?'} in the last hour under {directory}"
    total = sum(counts.values())
    return counts, f"ISR history from {directory}: {total} shrink(s) in the last hour"


def _warm_findings(kafka_python: bool) -> None:
    """Import the findings and parse their catalog: start-up CPU work that needs no cluster, done on a
    thread while the cluster answers (its network waits release the GIL). With `kafka_python`, kafka-python
    first: the snapshot's topic configs wait for it unless the first read has its own connection
    (`kafkatui.kafka.firstread`; then its ~0.2 s import would only compete with the metadata's reading)."""
    try:
        if kafka_python:
            from kafkatui.kafka.clients import import_kafka_python

            import_kafka_python()
        from kafkatui.model.finding import load_catalog
        from kafkatui.model.findings import findings  # noqa: F401  (imported for its cost)

        load_catalog()
    except Exception:  # evaluate() imports them again and reports there what it must
        pass


def evaluate(snapshot: ClusterSnapshot, ns: argparse.Namespace, shrinks: dict[int, int] | None = None) -> Assessment:
    """The one evaluation (`kafkatui.model.evaluation`) of the topics `--topic` selects, with the
    `--history` shrinks and the `--what-if-down` brokers."""
    from kafkatui.model.evaluation import evaluate as evaluate_snapshot

    return evaluate_snapshot(filter_topics(snapshot, ns.topic), shrinks, what_if_down=parse_ids(ns.what_if_down))


def demo_snapshot(scenario_name: str, at: str, timeout: float) -> ClusterSnapshot:
    """Play a scenario on a frozen clock up to `at`, serve it on loopback and read it like any cluster."""
    from kafkatui.demo_cluster import play
    from kafkatui.kafka.settings import ConnectionSettings
    from kafkatui.kafka.source import KafkaClusterSource
    from kafkatui.sim import scenario
    from kafkatui.sim.clock import VirtualClock
    from kafkatui.sim.runner import SimRunner

    player = play(scenario_name, VirtualClock(manual=True))
    try:
        at_ms = scenario.parse_fast_forward(at)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    player.advance(at_ms)
    with SimRunner(player.cluster) as sim:
        source = KafkaClusterSource(
            ConnectionSettings(bootstrap=tuple(sim.bootstrap.split(",")), timeout=timeout), log_dirs="out-of-sync"
        )
        try:
            return source.snapshot()
        finally:
            source.close()


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True, highlight=False)


def _stdout() -> Console:
    """Standard output for tables: piped or redirected, at their natural width (rich would cut every
    table at 80 columns)."""
    import os

    from kafkatui.pipes import pipe_console

    wide = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
    return pipe_console(width=PIPE_WIDTH) if wide else pipe_console()


def run(ns: argparse.Namespace, out: Console | None = None) -> int:
    from kafkatui import check_gate

    if check_gate.wanted(ns):
        return check_gate.run_rolling(ns)
    try:
        parse_ids(ns.what_if_down)
        filter_topics(ClusterSnapshot(None, -1, (), {}), ns.topic)  # reject a bad --topic before connecting
        if ns.at is not None and ns.demo is None:
            raise UsageError("--at only applies to --demo (how far into the simulated scenario to look)")
        if ns.demo is not None:
            snapshot = demo_snapshot(ns.demo, ns.at or "6m", 10.0 if ns.timeout is None else ns.timeout)
        else:
            conn = connection_from(ns)
            for w in conn.warnings:
                _stderr().print(f"kafkatui: warning: {w}", markup=False)
            from kafkatui.kafka.source import KafkaClusterSource

            source = KafkaClusterSource(conn.settings, log_dirs="out-of-sync")
            from kafkatui.kafka.firstread import usable

            own = usable(conn.settings.to_confluent())
            threading.Thread(target=_warm_findings, args=(not own,), name="kafkatui-warm", daemon=True).start()
            try:
                snapshot = source.snapshot()
            finally:
                source.close()
        shrinks, history_note = history_shrinks(ns, snapshot)
        assessed = evaluate(snapshot, ns, shrinks)
        report, found, wi = assessed.report, list(assessed.findings), assessed.what_if
    except KafkaTuiError as exc:
        _stderr().print(f"kafkatui: error: {exc}", markup=False)
        return exc.exit_code
    _, code = verdict(found)
    if ns.json:
        doc = to_json(snapshot, report, found, wi)
        # indented for a person at a terminal; compact (and 10x faster: the C encoder) for pipes and files
        text = json.dumps(doc, indent=2) if sys.stdout.isatty() else json.dumps(doc, separators=(",", ":"))
        from kafkatui.pipes import write_stdout

        write_stdout(text + "\n")
    elif getattr(ns, "brief", False):
        render_brief(out or _stdout(), snapshot, report, found)
    else:
        out = out or _stdout()
        render(out, snapshot, report, found, wi, show_all=ns.all)
        out.print(history_note, style="dim", markup=False, highlight=False, soft_wrap=True)
    return code


def main_check(argv: list[str]) -> int:
    p = Parser(
        prog="kafkatui check",
        description="Replication-health verdict for a Kafka cluster.",
        epilog="exit codes: 0 healthy, 1 warnings, 2 critical; 3-9 input and connection errors; "
        "--wait-restart-safe: 0 safe, 24 not safe by --wait-timeout, 25 cannot become safe (see docs/exit-codes.md)",
    )
    add_arguments(p)
    # one short run: the cyclic collector would only walk the cluster's metadata (librdkafka's 100,000
    # partition objects) again and again; reference counting frees what the command drops
    collecting = gc.isenabled()
    gc.disable()
    try:
        return run(p.parse_args(argv))
    finally:
        if collecting:
            gc.enable()


__all__ = ["main_check", "render", "render_brief", "run", "to_json", "verdict"]
