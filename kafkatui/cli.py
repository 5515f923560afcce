"""The `kafkatui` command: one entry point, subcommands for each job."""

from __future__ import annotations

import argparse
import logging
import sys

from kafkatui import __version__

SUBCOMMANDS = {
    "check": "replication-health verdict: tables, or JSON with --json; exit 0 healthy, 1 warnings, 2 critical",
    "sim": "run a simulated Kafka cluster on 127.0.0.1 (and `sim ctl` to inject faults)",
}


def _top_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kafkatui",
        description="Terminal dashboard for Apache Kafka replication health.",
        epilog="subcommands:\n" + "\n".join(f"  {k:<8} {v}" for k, v in SUBCOMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"kafkatui {__version__}")
    p.add_argument(
        "--demo", nargs="?", const="incident", metavar="SCENARIO",
        help="start a simulated cluster in-process with an incident unfolding (default scenario: incident)",
    )
    p.add_argument("--speed", type=float, default=1.0, help="with --demo: simulated seconds per real second")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # kafka-python logs every refused connection at ERROR; kafkatui reports problems itself, once
    logging.getLogger("kafka").setLevel(logging.CRITICAL)
    if args and args[0] == "check":
        from kafkatui.check import main_check

        return main_check(args[1:])
    if args and args[0] == "sim":
        from kafkatui.sim.console import main_sim

        return main_sim(args[1:])
    ns = _top_parser().parse_args(args)
    if ns.demo is not None:
        from rich.console import Console

        from kafkatui.sim.console import add_sim_arguments, run_sim

        sp = argparse.ArgumentParser()
        add_sim_arguments(sp)
        sim_ns = sp.parse_args(["--scenario", ns.demo, "--base-port", "0", "--speed", str(ns.speed)])
        return run_sim(sim_ns, Console())
    _top_parser().print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
