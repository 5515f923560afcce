"""`kafkatui sim`: run a simulated cluster in the foreground and narrate what happens."""

from __future__ import annotations

import argparse
import errno
import queue
import signal
import ssl
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from kafkatui.argparsing import Parser, number, whole
from kafkatui.safeyaml import InputError, read_text_bounded
from kafkatui.sim import control, scenario, simday
from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.events import EventKind, SimEvent
from kafkatui.sim.runner import SimRunner
from kafkatui.sim.security import MECHANISMS, PROTOCOLS, SecurityConfig

EXIT_OK = 0
EXIT_USAGE = 3  # bad arguments (as every kafkatui command)
EXIT_SCENARIO = 3  # a scenario that cannot be used is bad input too
EXIT_CONTROL = 5  # no simulator on the control port: cannot connect
EXIT_PORT = 11  # cannot listen: a port is in use

QUIET_KINDS = {EventKind.CONFIG_CHANGE}


def add_sim_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--brokers",
        type=whole(1, scenario.MAX_BROKERS),
        default=None,
        help="number of brokers (default: the scenario's, else 3)",
    )
    p.add_argument(
        "--base-port",
        type=int,
        default=19092,
        help="port of broker 1; broker N listens on base+N-1 (0: any free ports)",
    )
    p.add_argument(
        "--control-port",
        type=int,
        default=None,
        help="loopback control port for `kafkatui sim ctl` (default: base-port - 1)",
    )
    p.add_argument("--racks", default=None, help="comma-separated racks assigned round-robin, e.g. a,b,c")
    p.add_argument("--scenario", default="healthy", help="shipped scenario name or a YAML file (see --list)")
    p.add_argument(
        "--speed",
        type=number(0, 100_000, low_open=True),
        default=1.0,
        help="simulated seconds per real second (60: a minute per second)",
    )
    p.add_argument("--list", action="store_true", help="list the shipped scenarios and exit")
    p.add_argument(
        "--quiet",
        action="store_true",
        help="print only the bootstrap and control lines, not every event (`kafkatui sim ctl events 20` "
        "lists the last events, `kafkatui sim ctl status` the state)",
    )
    sec = p.add_argument_group("listener security (default PLAINTEXT)")
    sec.add_argument(
        "--security-protocol",
        type=str.upper,
        choices=PROTOCOLS,
        default="PLAINTEXT",
        help="every broker listener's protocol",
    )
    sec.add_argument(
        "--sasl-user",
        action="append",
        default=[],
        metavar="USER:PASSWORD",
        help="a SASL user (repeatable); other users can read command lines, so for anything but a "
        "test password use --sasl-users-file",
    )
    sec.add_argument(
        "--sasl-users-file", type=Path, default=None, metavar="FILE", help="SASL users, one USER:PASSWORD per line"
    )
    sec.add_argument(
        "--sasl-mechanisms",
        default=",".join(MECHANISMS),
        metavar="M1,M2",
        help=f"SASL mechanisms enabled (default {','.join(MECHANISMS)})",
    )
    sec.add_argument("--tls-cert", default=None, metavar="PEM", help="the brokers' certificate (SSL, SASL_SSL)")
    sec.add_argument("--tls-key", default=None, metavar="PEM", help="its private key")
    sec.add_argument("--tls-ca", default=None, metavar="PEM", help="CA that signs client certificates (mTLS)")
    sec.add_argument("--require-client-cert", action="store_true", help="mTLS: refuse clients without a certificate")
    p.add_argument(
        "--cluster-id",
        default=None,
        metavar="ID",
        help="a fixed cluster id (default: a new random one per start, so audit histories never mix)",
    )
    simday.add_arguments(p)


MAX_USERS_FILE_BYTES = 256 * 1024


def security_from(ns: argparse.Namespace) -> SecurityConfig:
    """The listeners' security from the command line (ValueError with one line)."""
    users: dict[str, str] = {}
    lines: list[tuple[str, str]] = [(entry, "--sasl-user") for entry in ns.sasl_user]
    if ns.sasl_users_file is not None:
        try:
            text = read_text_bounded(ns.sasl_users_file, MAX_USERS_FILE_BYTES)
        except InputError as exc:
            raise ValueError(f"--sasl-users-file {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(
                f"--sasl-users-file {ns.sasl_users_file}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        lines += [
            (ln.strip(), f"{ns.sasl_users_file}:{i}")
            for i, ln in enumerate(text.splitlines(), 1)
            if ln.strip() and not ln.lstrip().startswith("#")
        ]
    for entry, where in lines:
        user, sep, password = entry.partition(":")
        if not sep or not user.strip() or not password:
            raise ValueError(f"{where}: expected USER:PASSWORD, got {user.strip() or '(nothing)'}:***")
        users[user.strip()] = password
    protocol = ns.security_protocol
    if users and not protocol.startswith("SASL_"):
        raise ValueError(f"SASL users given but --security-protocol is {protocol}: use SASL_PLAINTEXT or SASL_SSL")
    tls_files = ns.tls_cert or ns.tls_key or ns.tls_ca or ns.require_client_cert
    if tls_files and protocol not in ("SSL", "SASL_SSL"):
        raise ValueError(f"TLS files given but --security-protocol is {protocol}: use SSL or SASL_SSL")
    if protocol.startswith("SASL_") and not users:
        raise ValueError(f"--security-protocol {protocol} needs users: --sasl-user USER:PASSWORD or --sasl-users-file")
    if protocol in ("SSL", "SASL_SSL") and not (ns.tls_cert and ns.tls_key):
        raise ValueError(f"--security-protocol {protocol} needs --tls-cert and --tls-key (PEM files)")
    mechanisms = [m.strip().upper() for m in ns.sasl_mechanisms.split(",") if m.strip()]
    for name in ("tls_cert", "tls_key", "tls_ca"):
        path = getattr(ns, name)
        if path is not None and not Path(path).is_file():
            raise ValueError(f"--{name.replace('_', '-')} {path}: no such file")
    config = SecurityConfig(
        protocol=protocol,
        users=users,
        mechanisms=mechanisms,
        certfile=ns.tls_cert,
        keyfile=ns.tls_key,
        cafile=ns.tls_ca,
        require_client_cert=ns.require_client_cert,
    )
    try:
        config.ssl_context()  # a key that does not match its certificate, a file that is not PEM
    except (ssl.SSLError, OSError) as exc:
        why = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc
        raise ValueError(
            f"cannot use --tls-cert {ns.tls_cert} with --tls-key {ns.tls_key}: not a PEM certificate "
            f"and its key ({why})"
        ) from None
    return config


def describe_security(config: SecurityConfig) -> str:
    """One line for the start-up banner (never a password)."""
    parts = [config.protocol]
    if config.sasl:
        parts.append(f"SASL {', '.join(config.mechanisms)}; users {', '.join(sorted(config.users))}")
    if config.require_client_cert:
        parts.append("client certificates required")
    return "security:  " + "; ".join(parts)


def add_ctl_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--control-port", type=int, default=19091, help="the simulator's control port (default 19091)")
    p.add_argument("command", choices=control.COMMANDS, help="what to do")
    p.add_argument(
        "args",
        nargs="*",
        help="broker id, then factor (slow) or seconds (pause); set-config: TOPIC|broker:ID KEY [VALUE]",
    )


ERR = Console(stderr=True, soft_wrap=True, highlight=False)


def error(msg: str) -> None:
    """One plain line on stderr: what went wrong and what to do."""
    ERR.print(f"kafkatui: error: {msg}", markup=False)


def _finite(text: str, low: float, high: float, *, low_open: bool = False) -> float:
    """A number within bounds for a `sim ctl` argument (ValueError for NaN, infinities, out of range)."""
    return number(low, high, low_open=low_open)(text)


def run_ctl(ns: argparse.Namespace, out: Console) -> int:
    """Send one command to a running simulator."""
    req: dict[str, Any] = {"cmd": ns.command}
    a = list(ns.args)
    try:
        if ns.command in ("crash", "restart", "restore", "shutdown", "hang", "isolate", "slow", "pause"):
            if not a:
                error(f"{ns.command} needs a broker id")
                return EXIT_USAGE
            req["broker"] = int(a[0])
            if ns.command == "slow" and len(a) > 1:
                req["factor"] = _finite(a[1], 0, 1000)
            if ns.command == "pause" and len(a) > 1:
                req["seconds"] = _finite(a[1], 0, 86400)
        elif ns.command == "set-config":
            if len(a) < 2:
                error("set-config needs TOPIC|broker:ID|broker KEY [VALUE] (no VALUE removes the override)")
                return EXIT_USAGE
            target, req["key"] = a[0], a[1]
            req["value"] = a[2] if len(a) > 2 else None
            if target.startswith("broker"):
                req["broker"] = target.partition(":")[2] or None
            else:
                req["topic"] = target
        elif ns.command == "load":
            req["topic"], req["rate"] = a[0], _finite(a[1], 0, 10**9) if len(a) > 1 else 100.0
            if len(a) > 2:
                req["acks"] = -1 if a[2] == "all" else int(a[2])
        elif ns.command == "speed":
            req["speed"] = _finite(a[0], 0, 100_000, low_open=True)
        elif ns.command == "elect":
            req["type"] = a[0] if a else "preferred"
        elif ns.command == "events" and a:
            req["n"] = int(a[0])
    except argparse.ArgumentTypeError as exc:
        error(f"bad arguments for {ns.command}: {' '.join(a)}: {exc}")
        return EXIT_USAGE
    except (ValueError, IndexError):
        error(f"bad arguments for {ns.command}: {' '.join(a)}")
        return EXIT_USAGE
    problem = _port_problem("--control-port", ns.control_port)
    if problem is not None:
        error(problem)
        return EXIT_USAGE
    try:
        resp = control.send(ns.control_port, req)
    except OSError as exc:
        error(f"no simulator control endpoint on 127.0.0.1:{ns.control_port} ({exc.strerror or exc})")
        return EXIT_CONTROL
    if not resp.get("ok"):
        error(f"{resp.get('error', 'failed')}")
        return EXIT_USAGE
    if ns.command == "status":
        _print_status(out, resp)
    elif ns.command == "events":
        for e in resp.get("events", []):
            out.print(f"{_ts(e['ts_ms'])}  {e['text']}", markup=False, highlight=False)
    else:
        out.print("ok")
    return EXIT_OK


def _print_status(out: Console, st: dict[str, Any]) -> None:
    out.print(
        f"cluster {st['cluster_id']}  controller {st['controller']}  simulated time {_ts(st['now_ms'])}  speed "
        f"x{st['speed']}"
    )
    table = Table("broker", "port", "rack", "state", "fenced", "slow", "paused")
    for b in st["brokers"]:
        table.add_row(
            str(b["id"]),
            str(b["port"]),
            b["rack"] or "-",
            b["state"],
            "yes" if b["fenced"] else "no",
            str(b["slow"]),
            "yes" if b["paused"] else "no",
        )
    out.print(table)
    out.print(
        f"topics {st['topics']}  partitions {st['partitions']}  offline {st['offline']}  under-minISR "
        f"{st['under_min_isr']}  "
        f"at-minISR {st['at_min_isr']}  under-replicated {st['under_replicated']}  lost acked records "
        f"{st['lost_acked_records']}"
    )
    for t, ld in st.get("loads", {}).items():
        out.print(f"load {t}: {ld['rate']}/s acks={ld['acks']} accepted {ld['accepted']} rejected {ld['rejected']}")


def _ts(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%H:%M:%S")


def run_sim(ns: argparse.Namespace, out: Console, max_seconds: float | None = None) -> int:
    """Start the simulator with a scenario and narrate its events until Ctrl-C (or simulate a day: --history-day)."""
    if getattr(ns, "history_day", None) is not None:
        return simday.run(ns, lambda text: out.print(text, markup=False, highlight=False, soft_wrap=True))
    if ns.list:
        table = Table("scenario", "what you will see")
        for name in scenario.shipped():
            desc = " ".join(scenario.load(name).description.split())
            table.add_row(name, desc.split(". ")[0].rstrip(".") + "." if desc else "")
        out.print(table)
        return EXIT_OK
    try:
        sc = scenario.load(ns.scenario)
    except scenario.ScenarioError as exc:
        error(f"{exc}")
        return EXIT_SCENARIO
    if ns.speed <= 0:
        error("--speed must be positive")
        return EXIT_USAGE
    if ns.brokers is not None and ns.brokers < 1:
        error("--brokers must be at least 1")
        return EXIT_USAGE
    racks = [r.strip() for r in ns.racks.split(",") if r.strip()] if ns.racks else None
    try:
        cluster = sc.build(
            clock=VirtualClock(speed=ns.speed),
            brokers=ns.brokers,
            racks=racks,
            cluster_id=getattr(ns, "cluster_id", None),
        )
    except Exception as exc:  # a scenario that does not fit the requested cluster
        error(f"scenario {sc.name}: {exc}")
        return EXIT_SCENARIO
    ctl_port = ns.control_port if ns.control_port is not None else (ns.base_port - 1 if ns.base_port else 0)
    last = ns.base_port + len(cluster.brokers) - 1 if ns.base_port else 0
    for problem in (
        _port_problem("--base-port", ns.base_port),
        _port_problem("--control-port", ctl_port),
        _port_problem(
            f"--base-port {ns.base_port} with {len(cluster.brokers)} brokers: broker {len(cluster.brokers)}'s port",
            last,
        ),
    ):
        if problem is not None:
            error(problem)
            return EXIT_USAGE
    try:
        security = security_from(ns)
    except ValueError as exc:
        error(str(exc))
        return EXIT_USAGE
    runner = SimRunner(cluster, base_port=ns.base_port, security=security)
    player = scenario.ScenarioPlayer(sc, cluster)
    runner.server.tick_hooks.append(player.poll)
    ctl = control.ControlServer(cluster, ctl_port)
    runner.extras.append(ctl)
    events: queue.Queue[SimEvent] = queue.Queue()
    cluster.events.subscribe(events.put)
    try:
        runner.start()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            error(f"port in use ({exc.strerror}); another simulator running? choose --base-port")
        else:
            error(f"cannot listen: {exc.strerror or exc}")
        return EXIT_PORT
    out.print(f"kafkatui sim: scenario [bold]{sc.name}[/], {len(cluster.brokers)} brokers, speed x{ns.speed}")
    if sc.description:
        out.print(" ".join(sc.description.split()), style="dim", markup=False, highlight=False, soft_wrap=True)
    out.print(f"bootstrap: {runner.bootstrap}", markup=False, highlight=False)
    if security.protocol != "PLAINTEXT":
        out.print(describe_security(security), markup=False, highlight=False)
    out.print(
        f"control:   kafkatui sim ctl --control-port {ctl.port} status|crash N|restore N|...",
        markup=False,
        highlight=False,
    )
    if ns.quiet:
        out.print(
            f"quiet: events are not narrated; `kafkatui sim ctl --control-port {ctl.port} events 20` lists "
            "the last ones",
            markup=False,
            highlight=False,
            style="dim",
        )
    stop = {"now": False}

    def _stop(*_: object) -> None:
        stop["now"] = True

    old = signal.signal(signal.SIGTERM, _stop)
    started = time.monotonic()
    try:
        while not stop["now"]:
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                break
            try:
                batch = [events.get(timeout=0.2)]
            except queue.Empty:
                continue
            while not events.empty() and len(batch) < 5000:
                batch.append(events.get_nowait())
            if not ns.quiet:
                for ts, text, style in narrate(batch):
                    out.print(f"{_ts(ts)}  {text}", style=style, markup=False, highlight=False)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, old)
        runner.stop()
    out.print("simulator stopped")
    return EXIT_OK


PARTITION_KINDS = {EventKind.ISR_SHRINK, EventKind.ISR_EXPAND, EventKind.LEADER_CHANGE, EventKind.OFFLINE}
STYLES = {
    EventKind.SCENARIO: "yellow",
    EventKind.OFFLINE: "bold red",
    EventKind.UNCLEAN_ELECTION: "bold red",
    EventKind.BROKER_DOWN: "red",
    EventKind.BROKER_FENCED: "red",
    EventKind.BROKER_UP: "green",
    EventKind.BROKER_UNFENCED: "green",
    EventKind.ISR_SHRINK: "magenta",
    EventKind.ISR_EXPAND: "cyan",
}


def narrate(batch: list[SimEvent], burst: int = 4) -> list[tuple[int, str, str | None]]:
    """Lines for a batch of events; a burst of one kind at one instant becomes a single summary line."""
    groups: dict[tuple[int, EventKind], list[SimEvent]] = {}
    order: list[tuple[int, EventKind] | SimEvent] = []
    for ev in batch:
        if ev.kind in QUIET_KINDS:
            continue
        if ev.kind in PARTITION_KINDS:
            key = (ev.ts_ms, ev.kind)
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(ev)
        else:
            order.append(ev)
    lines: list[tuple[int, str, str | None]] = []
    for item in order:
        if isinstance(item, SimEvent):
            lines.append((item.ts_ms, item.describe(), STYLES.get(item.kind)))
            continue
        evs = groups[item]
        kind = item[1]
        if len(evs) <= burst:
            lines.extend((e.ts_ms, e.describe(), STYLES.get(kind)) for e in evs)
            continue
        topics = sorted({e.topic or "" for e in evs})
        what = {
            EventKind.ISR_SHRINK: "ISRs shrank",
            EventKind.ISR_EXPAND: "ISRs expanded",
            EventKind.LEADER_CHANGE: "leaders moved",
            EventKind.OFFLINE: "partitions OFFLINE",
        }[kind]
        detail = ""
        if kind == EventKind.ISR_SHRINK:
            outs = sorted({r for e in evs for r in e.detail.get("out", [])})
            detail = f", replicas out: {', '.join(map(str, outs))}"
        elif kind == EventKind.ISR_EXPAND:
            ins = sorted({r for e in evs for r in e.detail.get("in", [])})
            detail = f", replicas back: {', '.join(map(str, ins))}"
        elif kind == EventKind.LEADER_CHANGE:
            to = sorted({int(e.detail.get("leader", -1)) for e in evs})
            detail = f", new leaders: {', '.join(map(str, to))}"
        shown = ", ".join(topics[:4]) + (f" +{len(topics) - 4} topics" if len(topics) > 4 else "")
        lines.append((item[0], f"{len(evs)} {what} ({shown}){detail}", STYLES.get(kind)))
    return lines


def _port_problem(what: str, port: int) -> str | None:
    """Why `port` cannot be listened on or connected to (0 means any free port), or None."""
    return None if 0 <= port <= 65535 else f"{what} {port} is out of range (0-65535)"


def main_sim(argv: list[str]) -> int:
    out = Console(stderr=False)
    if argv[:1] == ["ctl"]:
        p = Parser(prog="kafkatui sim ctl", description="Control a running `kafkatui sim`.")
        add_ctl_arguments(p)
        return run_ctl(p.parse_args(argv[1:]), out)
    p = Parser(
        prog="kafkatui sim",
        description="Run a simulated Kafka cluster on 127.0.0.1.",
        epilog="while it runs, inject faults from another terminal with `kafkatui sim ctl`: "
        "crash N, restore N, shutdown N, hang N, isolate N, slow N FACTOR, pause N SECONDS, "
        "set-config, load, elect, events, status, speed (`kafkatui sim ctl --help`)",
    )
    add_sim_arguments(p)
    return run_sim(p.parse_args(argv), out)


if __name__ == "__main__":
    sys.exit(main_sim(sys.argv[1:]))
