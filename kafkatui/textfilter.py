"""Regular-expression filters a user types (`check --topic`, `/.../` in the dashboard), run within a
time budget.

Python's `re` backtracks: `(a*)*b` against a 40-character name runs for minutes, and it holds the GIL,
so a worker thread would freeze the dashboard all the same. The sre engine does check for signals
while it matches, so on the main thread (where both `check` and Textual's UI loop run) a SIGALRM
timer interrupts a match that is over budget. A filter that runs out of time is refused as a bad
regex is (one line; the dashboard keeps its previous filter), rather than silently matched as plain
text: the user asked for a regex and should be told that this one cannot be used. Off the main thread
no timer can interrupt `re`, so there a pattern with nested repeats is refused before it runs.
"""

from __future__ import annotations

import functools
import re
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any

try:  # Python 3.11+: the parser behind re
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse


class FilterTooSlow(Exception):
    """The regular expression did not finish within its time budget (catastrophic backtracking)."""


class _Overtime(BaseException):
    """Raised by the SIGALRM handler inside `re`; BaseException so no `except Exception` swallows it."""


def nested_repeat(pattern: str | re.Pattern[str]) -> bool:
    """True when an unbounded repeat holds another repeat (`(a*)*`, `(a+)+`, `(\\w+\\s?)*`): the shape
    that backtracks exponentially."""
    text = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    flags = pattern.flags if isinstance(pattern, re.Pattern) else 0
    try:
        tree = sre_parse.parse(text, flags)
    except re.error:
        return False

    def walk(items: Any, inside: bool) -> bool:
        for op, arg in items:
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, high, body = arg
                unbounded = high is sre_parse.MAXREPEAT or high > 1000
                if inside and (unbounded or high > 1):
                    return True
                if walk(body, inside or unbounded):
                    return True
            elif name == "SUBPATTERN":
                if walk(arg[-1], inside):
                    return True
            elif name == "BRANCH":
                if any(walk(branch, inside) for branch in arg[1]):
                    return True
            elif name in ("ASSERT", "ASSERT_NOT") and walk(arg[1], inside):
                return True
        return False

    return walk(tree, False)


def _has_upper(items: Any) -> bool:
    """True when a parsed pattern names an uppercase ASCII letter anywhere (a literal, a class, a range)."""
    for op, arg in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL"):
            found = 65 <= arg <= 90
        elif name == "RANGE":
            found = arg[0] <= 90 and arg[1] >= 65
        elif name in ("IN", "ATOMIC_GROUP"):
            found = _has_upper(arg)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            found = _has_upper(arg[2])
        elif name in ("SUBPATTERN", "ASSERT", "ASSERT_NOT"):
            found = _has_upper(arg[-1])
        elif name == "BRANCH":
            found = any(_has_upper(branch) for branch in arg[1])
        elif name == "GROUPREF_EXISTS":
            found = any(part is not None and _has_upper(part) for part in arg[1:])
        else:
            found = False
        if found:
            return True
    return False


@functools.lru_cache(maxsize=64)  # the filter is set again on every key: parse a pattern once
def case_blind(rx: re.Pattern[str]) -> re.Pattern[str]:
    """`rx` without IGNORECASE when that finds the same in lowercased ASCII texts (2.5x faster at 105,000
    rows): an ASCII pattern that names no uppercase letter. Else `rx` itself."""
    if not rx.flags & re.IGNORECASE or not rx.pattern.isascii():
        return rx
    try:
        tree = sre_parse.parse(rx.pattern, rx.flags)
    except re.error:
        return rx
    if _has_upper(tree):
        return rx
    return re.compile(rx.pattern, rx.flags & ~re.IGNORECASE)


def _can_time() -> bool:
    return threading.current_thread() is threading.main_thread() and signal.getitimer(signal.ITIMER_REAL)[0] == 0


def select(
    rx: re.Pattern[str], texts: Sequence[str], indices: Sequence[int] | None = None, budget: float = 0.25
) -> list[int]:
    """Indices (into `texts`, or among `indices`) of the texts `rx` finds a match in, within `budget`
    seconds in all; FilterTooSlow when it does not finish in time."""
    order: Sequence[int] = range(len(texts)) if indices is None else indices
    search: Callable[[str], Any] = rx.search
    if not _can_time():
        if nested_repeat(rx):
            raise FilterTooSlow("nested repeats such as (a*)* can backtrack without end")
        return [i for i in order if search(texts[i])]
    armed = [True]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:
            raise _Overtime

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, budget)
            found = [i for i in order if search(texts[i])]
            armed[0] = False
        except _Overtime:
            armed[0] = False
            raise FilterTooSlow(
                f"it did not finish matching within {budget:g}s (nested repeats such as (a*)* backtrack without end)"
            ) from None
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    return found
