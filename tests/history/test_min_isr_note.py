"""The one line a replay says about min ISR when broker logs carry no min-ISR marker (Kafka before 3.5),
and what `kafkatui replay` prints for a day without incident when min ISR was unknown."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from kafkatui.history.replay.cmd import report
from kafkatui.history.replay.job import ReplayResult
from kafkatui.history.replay.min_isr_note import min_isr_note


def test_marked_logs_need_no_note() -> None:
    assert min_isr_note([], [], None) is None


def test_the_note_says_where_min_isr_came_from_or_that_it_was_unknown() -> None:
    assert min_isr_note(["orders"], [], 2) == (
        "the broker logs carry no min-ISR marker for 1 topic (orders; Kafka before 3.5 writes none): "
        "min ISR taken from --min-isr 2"
    )
    assert min_isr_note(["a", "b"], [], None, recording=True).endswith("min ISR taken from the recording of the day")
    many = [f"t{i}" for i in range(8)]
    note = min_isr_note(many, many, None)
    assert note is not None and "min ISR unknown for 8 topics (t0, t1, t2, t3, t4 and 3 more)" in note
    assert "give --min-isr N" in note and "--history" in note


def _print(summary: dict[str, object]) -> str:
    out = Console(file=io.StringIO(), width=400, color_system=None)
    report(out, ReplayResult(Path("/tmp/r"), summary, 1.0))
    return out.file.getvalue()  # type: ignore[attr-defined]


def test_no_incident_is_never_silent_when_min_isr_was_unknown() -> None:
    inputs = {"events": 5, "torn_lines": 0, "unparsed_log_lines": 0, "newer_schema_records": 0}
    base = {"day": "2026-11-28", "gaps": [], "incidents": [], "day_start_ms": 0}
    quiet = _print({**base, "inputs": inputs})
    assert "no incident: no partition was under min ISR or offline that day" in quiet
    note = min_isr_note(["orders"], ["orders"], None)
    text = _print({**base, "inputs": {**inputs, "min_isr_note": note, "min_isr_unknown_topics": ["orders"]}})
    assert "min ISR unknown for 1 topic (orders)" in text.replace("\n", " ")
    assert "no incident found, but min ISR was unknown for 1 topic(s)" in text.replace("\n", " ")
    assert "no incident: no partition" not in text
