"""`kafkatui lab`: start a real Kafka cluster on 127.0.0.1 in the foreground; `lab ctl` breaks it."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from kafkatui.argparsing import Parser
from kafkatui.lab import control
from kafkatui.lab.errors import LabError
from kafkatui.lab.versions import DEFAULT, RELEASES, release

EXIT_USAGE = 3

DEMO_TOPICS: tuple[tuple[str, int, int, int], ...] = (
    ("orders", 6, 3, 2),  # the durable triple: RF 3, minISR 2, writes go on through one failure
    ("payments", 3, 3, 2),
    ("clickstream", 6, 2, 1),  # RF 2 / minISR 1: acks=all can be acknowledged by the leader alone
    ("audit-log", 1, 1, 1),  # one copy: any broker loss takes it offline
)
"""Topics a new lab gets (name, partitions, replication factor, min.insync.replicas), capped by brokers."""


def default_dir() -> Path:
    """`$XDG_STATE_HOME/kafkatui/lab` (default `~/.local/state/kafkatui/lab`)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kafkatui" / "lab"


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="kafkatui lab",
        description=(
            "Start a real Apache Kafka cluster (KRaft: one controller and N brokers; 2.8 and 3.9-zk: ZooKeeper "
            "and N brokers; each its own JVM) on 127.0.0.1 from Maven Central jars, fetched once into "
            "~/.cache/kafkatui/kafka. Stays in the "
            "foreground; Ctrl-C stops every JVM. Break it with `kafkatui lab ctl` from another terminal."
        ),
        epilog="lab ctl: kafkatui lab ctl [--dir DIR] {crash,shutdown,hang,restore,restart} NODE | status | "
        "load TOPIC [--rate N] [--seconds S]   (NODE: a broker id, b2, controller; zookeeper in ZooKeeper mode, "
        "where controller is the broker that is the controller now)",
    )
    p.add_argument(
        "--version",
        dest="kafka_version",
        default=DEFAULT,
        help=f"Kafka line or exact version: {', '.join(RELEASES)} (default {DEFAULT}: {RELEASES[DEFAULT].version}); "
        "2.8 and 3.9-zk run in ZooKeeper mode",
    )
    p.add_argument("--brokers", type=int, default=3, help="number of brokers, 1-9 (default 3)")
    p.add_argument("--racks", default=None, help="comma-separated racks assigned round-robin, e.g. a,b,c")
    p.add_argument(
        "--dir", type=Path, default=None, help=f"where each node's data, pid file and logs go (default {default_dir()})"
    )
    p.add_argument("--no-topics", action="store_true", help="do not create the demo topics")
    p.add_argument(
        "--security",
        default=None,
        metavar="MODE",
        help="also serve secured listeners with ACLs: sasl_ssl (SCRAM-SHA-512), ssl, mtls, oauthbearer "
        "(comma-separated, or all); prints the client settings (docs/lab.md)",
    )
    p.add_argument("--fetch-only", action="store_true", help="fetch the jars into the cache and exit")
    return p


def _ctl_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="kafkatui lab ctl",
        description="Break or inspect the lab running in --dir: crash "
        "(SIGKILL), shutdown (SIGTERM, controlled), hang (SIGSTOP), restore (SIGCONT or start again), "
        "restart, status; load keeps producing to a topic so that a hung follower leaves the ISR.",
    )
    p.add_argument("--dir", type=Path, default=None, help=f"the lab's directory (default {default_dir()})")
    p.add_argument("verb", choices=(*control.VERBS, "load"))
    p.add_argument("target", nargs="?", default="", help="NODE (broker id, bN or controller); TOPIC for load")
    p.add_argument("--rate", type=float, default=200.0, help="load: records per second (default 200)")
    p.add_argument("--seconds", type=float, default=None, help="load: stop after this long (default: Ctrl-C)")
    p.add_argument(
        "--acks",
        default="all",
        choices=("0", "1", "all"),
        help="load: producer acks (default all: under min ISR the writes fail with NOT_ENOUGH_REPLICAS)",
    )
    return p


def error(msg: str) -> None:
    """One plain line on stderr."""
    print(f"kafkatui: error: {msg}", file=sys.stderr)


def main_lab(argv: list[str]) -> int:
    """`kafkatui lab ...` and `kafkatui lab ctl ...`."""
    if argv and argv[0] == "ctl":
        return main_ctl(argv[1:])
    ns = _parser().parse_args(argv)
    try:
        rel = release(ns.kafka_version)
    except ValueError as exc:
        error(str(exc))
        return EXIT_USAGE
    if not 1 <= ns.brokers <= 9:
        error("--brokers takes 1 to 9")
        return EXIT_USAGE
    racks = tuple(r.strip() for r in ns.racks.split(",")) if ns.racks else ()
    if any(not r for r in racks):
        error("--racks takes non-empty names separated by commas, e.g. a,b,c")
        return EXIT_USAGE
    security = None
    if ns.security is not None:
        from kafkatui.lab.security import LabSecurity, parse_modes, refusal

        try:
            security = LabSecurity(parse_modes(ns.security))
        except ValueError as exc:
            error(f"--security: {exc}")
            return EXIT_USAGE
        why = refusal(rel)
        if why is not None:
            error(f"--security: {why}")
            return EXIT_USAGE
    from kafkatui.lab.fetch import ensure_jars, is_fetched
    from kafkatui.lab.zookeeper import lab_for

    try:
        if ns.fetch_only:
            print(f"Kafka {rel.version}: jars in {ensure_jars(rel, quiet=False)}")
            return 0
        root = (ns.dir or default_dir()).resolve()
        if not is_fetched(rel):
            print(f"fetching Kafka {rel.version}'s jars with Maven (once)...", flush=True)
        lab = lab_for(root, rel, ns.brokers, racks, security=security)
        return _run(lab, create_topics=not ns.no_topics)
    except LabError as exc:
        error(str(exc))
        return exc.exit_code
    except OSError as exc:
        error(f"cannot use {ns.dir or default_dir()}: {exc.strerror or exc}")
        return 17


_stop_signal: list[int] = []


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    _stop_signal.append(signum)


def _run(lab: Any, create_topics: bool) -> int:
    """Start, narrate, serve `lab ctl`, and stop every JVM on Ctrl-C or SIGTERM."""
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    started = time.monotonic()
    server = None
    try:
        lab.prepare()
        print(lab.banner(), flush=True)
        print("timings (shortened so that ISR changes show within seconds):", flush=True)
        for line in lab.timings_lines():
            print(f"  {line}", flush=True)
        lab.start()
        if _stop_signal:
            return 130
        if create_topics:
            print(_create_demo_topics(lab.bootstrap, lab.brokers), flush=True)
        server = control.ControlServer(lambda verb, node: _handle(lab, verb, node))
        lab.control_port = server.port
        lab.save()
        print(
            f"ready in {time.monotonic() - started:.1f} s; logs in {lab.root}/<node>/logs; "
            f"break it with `kafkatui lab ctl --dir {lab.root} crash 2`",
            flush=True,
        )
        print(f"bootstrap: {lab.bootstrap}", flush=True)
        if lab.security is not None:
            from kafkatui.lab.security import banner

            print(banner(lab.security), flush=True)
        while not _stop_signal:
            server.poll(0.5)
            for node in lab.exited_unexpectedly():
                print(
                    f"{time.strftime('%H:%M:%S')} {node.spec.name} exited by itself "
                    f"(code {node.proc.returncode}); see {node.logs / 'server.log'}",
                    flush=True,
                )
        print("stopping every Kafka node...", flush=True)
        return 0
    finally:
        if server is not None:
            server.close()
        lab.stop()
        for s, h in old.items():
            signal.signal(s, h)


def _handle(lab: Any, verb: str, node: str) -> dict[str, Any]:
    try:
        if verb == "status":
            return {"ok": True, "message": "", "status": lab.status(), "bootstrap": lab.bootstrap}
        if not node:
            return {"ok": False, "message": f"{verb} needs a node: a broker id, bN or controller"}
        msg = getattr(lab, verb)(node)
    except LabError as exc:
        return {"ok": False, "message": str(exc)}
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)
    return {"ok": True, "message": msg}


def _create_demo_topics(bootstrap: str, brokers: int) -> str:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [
        NewTopic(
            name, parts, replication_factor=min(rf, brokers), config={"min.insync.replicas": str(min(isr, brokers))}
        )
        for name, parts, rf, isr in DEMO_TOPICS
    ]
    made = []
    for name, fut in admin.create_topics(topics, operation_timeout=30).items():
        try:
            fut.result(60)
            made.append(name)
        except Exception as exc:  # noqa: BLE001 - a topic that cannot be made is said, the lab goes on
            made.append(f"{name} (not created: {exc})")
    return "topics: " + ", ".join(made)


def main_ctl(argv: list[str]) -> int:
    """`kafkatui lab ctl`."""
    ns = _ctl_parser().parse_args(argv)
    root = (ns.dir or default_dir()).resolve()
    try:
        if ns.verb == "load":
            return _load(root, ns)
        if ns.verb != "status" and not ns.target:
            error(f"`lab ctl {ns.verb}` needs a node: a broker id, bN or controller")
            return EXIT_USAGE
        reply = control.request(root, ns.verb, ns.target)
    except LabError as exc:
        error(str(exc))
        return exc.exit_code
    if not reply.get("ok"):
        error(str(reply.get("message")))
        return 33
    if ns.verb == "status":
        print(f"bootstrap: {reply.get('bootstrap')}")
        for row in reply.get("status", []):
            rack = f" rack {row['rack']}" if row.get("rack") else ""
            role = f"  ({row['role']})" if row.get("role") not in (None, "broker", row["name"]) else ""
            print(
                f"{row['name']:<10} id {row['id']}  port {row['port']}{rack}  pid {row['pid'] or '-'}  {row['state']}"
                f"{role}"
            )
    else:
        print(reply.get("message"))
    return 0


def _load(root: Path, ns: argparse.Namespace) -> int:
    from kafkatui.lab.cluster import read_state
    from kafkatui.lab.load import produce

    if not ns.target:
        error("`lab ctl load` needs a topic")
        return EXIT_USAGE
    if not ns.rate > 0 or ns.rate == float("inf") or (ns.seconds is not None and not 0 < ns.seconds < 1e7):
        error("--rate takes a positive number and --seconds a positive number of seconds")
        return EXIT_USAGE
    state = read_state(root)
    bootstrap = str(state["bootstrap"])
    print(f"producing ~{ns.rate:g} records/s to {ns.target} (acks={ns.acks}) at {bootstrap}; Ctrl-C stops", flush=True)

    def tick(r: Any) -> None:
        if int(time.monotonic()) % 5 == 0:
            extra = f", last error {r.last_error}" if r.last_error else ""
            print(f"{time.strftime('%H:%M:%S')} sent {r.sent}, acked {r.acked}, failed {r.failed}{extra}", flush=True)

    try:
        report = produce(bootstrap, ns.target, ns.rate, ns.seconds, ns.acks, tick)
    except KeyboardInterrupt:
        print("load stopped")
        return 0
    print(f"load done: sent {report.sent}, acked {report.acked}, failed {report.failed}")
    return 0
