"""Where a replay's min ISR came from when broker logs do not say it, in one line (summary.json's
``inputs.min_isr_note``, printed by `kafkatui replay`).

Kafka 3.5+ marks its ISR lines ``(under-min-isr)`` (or not, with a double space), so a replay of
its logs infers each topic's min ISR. Older brokers (2.x, 3.0-3.4) write no marker: min ISR then
comes from ``--min-isr`` or from a recording of the same day passed with ``--history``; without
either it is unknown, and only OFFLINE (no leader) can be judged for those topics. A replay that
finds no incident must say so rather than report a quiet day.
"""

from __future__ import annotations

from collections.abc import Sequence

SHOWN = 5
"""Topics named in the note; the rest are counted."""


def _names(topics: Sequence[str]) -> str:
    shown = ", ".join(topics[:SHOWN])
    more = len(topics) - SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def min_isr_note(
    unmarked: Sequence[str], unknown: Sequence[str], min_isr: int | None, recording: bool = False
) -> str | None:
    """One line, or None when the logs marked every topic they name.

    `unmarked`: topics of the broker logs no line marks under / not under min ISR; `unknown`: topics
    whose min ISR the replay never learnt (from a marker, ``--min-isr`` or a recording)."""
    if not unmarked and not unknown:
        return None
    n = len(unmarked)
    head = (
        f"the broker logs carry no min-ISR marker for {n} topic{'s' if n != 1 else ''} ({_names(unmarked)}; "
        "Kafka before 3.5 writes none)"
        if unmarked
        else "min ISR is not in the inputs"
    )
    if not unknown:
        src = [f"--min-isr {min_isr}"] if min_isr is not None else []
        src += ["the recording of the day"] if recording else []
        return f"{head}: min ISR taken from {' and '.join(src) or 'the inputs'}"
    return (
        f"{head}: min ISR unknown for {len(unknown)} topic{'s' if len(unknown) != 1 else ''} "
        f"({_names(unknown)}), so only offline partitions were judged there; give --min-isr N (the brokers' "
        "min.insync.replicas) or --history with a recording of the same day"
    )
