"""How a TUI worker thread turns one blocking step into a result or a one-line error for the screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kafkatui.kafka.errors import KafkaTuiError, one_line

T = TypeVar("T")


def result_or_error(step: Callable[[], T]) -> T | str:
    """`step()`, or its error on one line: the message of a `KafkaTuiError` (the brokers' words), or
    ``internal error: …`` for anything else, since a bug in a worker must not kill the dashboard."""
    try:
        return step()
    except KafkaTuiError as exc:
        return one_line(str(exc))
    except Exception as exc:  # a bug must not kill the dashboard
        return one_line(f"internal error: {exc!r}")
