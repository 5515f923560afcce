"""The safety checks every writing command shares: the connection, writes allowed, typed confirmation.

Used by ``kafkatui alter``, ``elect`` and ``reassign`` so they refuse and confirm alike.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from kafkatui.alter.errors import NotConfirmedError, WritesDisabledError
from kafkatui.kafka.profiles import ResolvedConnection
from kafkatui.options import connection_from

READ_ONLY = (
    "kafkatui is read-only: nothing changed; start with --write (or set writes: true in the profile) "
    "to apply, or use --dry-run / --export"
)


def require_writes(write_flag: bool, conn: ResolvedConnection) -> None:
    """WritesDisabledError (exit 12) unless ``--write`` was given or the profile says ``writes: true``."""
    if write_flag or conn.writes:
        return
    raise WritesDisabledError(READ_ONLY)


def connect(ns: argparse.Namespace, err: TextIO, writes: bool) -> ResolvedConnection:
    """The connection the flags and profile name, its warnings written to `err`; with `writes`, refused
    (`require_writes`) unless writes are on."""
    conn = connection_from(ns)
    for w in conn.warnings:
        err.write(f"kafkatui: warning: {w}\n")
    if writes:
        require_writes(ns.write, conn)
    return conn


def typed_confirmation(what: str, expected: str, stdin: TextIO, err: TextIO, purpose: str = "to apply") -> None:
    """Ask the user to type `expected` (described as `what`); NotConfirmedError (exit 14) otherwise.

    A stdin that is not a terminal never confirms: non-interactive runs must say ``--yes``; Ctrl-C
    at the prompt does not either.
    """
    if not stdin.isatty():
        raise NotConfirmedError(
            "stdin is not a terminal: nothing changed; confirm with --yes to apply non-interactively"
        )
    err.write(f"type {what} {purpose}: ")
    err.flush()
    try:
        answer = stdin.readline().strip()
    except KeyboardInterrupt:
        err.write("\n")
        raise NotConfirmedError("interrupted at the confirmation: nothing changed") from None
    if answer != expected:
        raise NotConfirmedError(f"confirmation {answer!r} does not match {expected!r}: nothing changed")
