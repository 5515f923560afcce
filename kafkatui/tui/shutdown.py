"""Leaving promptly while the cluster hangs: nothing kafkatui holds is worth keeping the prompt hostage.

A refresh blocked on a hung broker can take up to ``--timeout`` to return. Textual runs it on asyncio's
default executor, which ``asyncio.run`` joins at exit, and Python joins executor threads again at
interpreter exit. `NoWaitExecutor` lets the app's loop close without waiting; `exit_when_done` closes
the rest (history first, then connections) with a bound, and ends the process at once if a thread is
still stuck in a network call. The history is closed before anything can be cut short.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

CLOSE_BOUND_S = 2.0


class NoWaitExecutor(ThreadPoolExecutor):
    """A default executor whose shutdown never waits for a call still running."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=False, cancel_futures=cancel_futures)


def close_within(close: Callable[[], object], bound: float = CLOSE_BOUND_S) -> bool:
    """Run `close` in a daemon thread; True when it finished within `bound` seconds."""
    done = threading.Event()

    def run() -> None:
        try:
            close()
        except Exception:  # a failing close must not keep the user waiting either
            logging.getLogger("kafkatui").exception("closing after the dashboard")
        finally:
            done.set()

    threading.Thread(target=run, name="kafkatui-close", daemon=True).start()
    return done.wait(bound)


def stuck_threads() -> list[threading.Thread]:
    """Non-daemon threads other than this one that are still alive (Python would join them at exit)."""
    me = threading.current_thread()
    return [t for t in threading.enumerate() if t is not me and not t.daemon and t.is_alive()]


def exit_now_if_stuck(code: int) -> None:
    """End the process with `code` right away when a thread is still blocked in a network call."""
    stuck = stuck_threads()
    if not stuck:
        return
    logging.getLogger("kafkatui").warning("exiting without waiting for %s", ", ".join(t.name for t in stuck))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
