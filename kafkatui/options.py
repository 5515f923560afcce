"""Command-line options every command that talks to a cluster shares."""

from __future__ import annotations

import argparse

from kafkatui.argparsing import seconds
from kafkatui.kafka.profiles import ResolvedConnection, resolve_connection
from kafkatui.kafka.settings import MAX_TIMEOUT


def add_connection_arguments(p: argparse.ArgumentParser) -> None:
    """--bootstrap/--bootstrap-server, --profile, -X key=value, --timeout."""
    p.add_argument(
        "--bootstrap",
        "--bootstrap-server",
        "-b",
        dest="bootstrap",
        metavar="HOST:PORT[,...]",
        help="brokers to bootstrap from",
    )
    p.add_argument(
        "--profile",
        metavar="NAME",
        help="connection profile from ~/.config/kafkatui/clusters.yaml (or $KAFKATUI_PROFILES)",
    )
    p.add_argument(
        "-X",
        dest="x_options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="librdkafka setting passed through, as kcat does (repeatable)",
    )
    p.add_argument(
        "--timeout",
        type=seconds(MAX_TIMEOUT),
        default=None,
        metavar="SECONDS",
        help="network timeout per request (default 10)",
    )


def connection_from(ns: argparse.Namespace) -> ResolvedConnection:
    """Settings from parsed options (raises UsageError / ProfileError with one-line messages)."""
    return resolve_connection(bootstrap=ns.bootstrap, profile=ns.profile, x_options=ns.x_options, timeout=ns.timeout)
