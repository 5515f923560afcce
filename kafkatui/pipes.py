"""Standard output into a pipe the reader closed early (`kafkatui check | head -1`).

The reader has what it wanted; the command's exit code (check's verdict) must still be the one it
would have been. Rich's Console exits 1 on a closed pipe, and Python reports the BrokenPipeError
of its last flush: here the rest of the output goes to /dev/null instead, quietly.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console


def discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so later writes and the final flush succeed silently."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


class PipeConsole(Console):
    """A Console that goes quiet when its reader closes the pipe, instead of exiting 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        discard_stdout()


def write_stdout(text: str) -> None:
    """Write and flush `text` to stdout; a closed pipe ends the output, not the command."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
