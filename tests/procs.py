"""Child processes the tests start as a user would."""

from __future__ import annotations

import signal


def sigint_as_at_a_terminal() -> None:
    """`preexec_fn` for a child the test stops with SIGINT: Ctrl-C reaches a command typed at a terminal,
    but a shell's background job (`make test &`, as some CI runners start it) has SIGINT ignored, which
    its children inherit, and Python then installs no handler for it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
