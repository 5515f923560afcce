"""`kafkatui report OUT`: the postmortem of a replayed day (see `kafkatui.report.write`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kafkatui.argparsing import Parser
from kafkatui.kafka.errors import KafkaTuiError

if TYPE_CHECKING:
    from kafkatui.report.write import Written

DESCRIPTION = (
    "Write a postmortem of a replayed day: Markdown (to paste into a wiki or ticket) with its timeline "
    "chart, and one self-contained HTML file (offline, printable). Reads the OUT directory of "
    "`kafkatui replay` and the changes made through kafkatui from its audit log."
)


def add_report_arguments(p: Parser) -> None:
    p.add_argument("out", metavar="OUT", help="the --out directory of a `kafkatui replay` run")
    add_output_arguments(p)


def add_output_arguments(p: Parser) -> None:
    """--to, --audit-log, --no-audit (also on `kafkatui replay`, for --report)."""
    p.add_argument("--to", metavar="DIR", type=Path, help="where to write the report (default: OUT/report)")
    p.add_argument(
        "--audit-log",
        metavar="PATH",
        type=Path,
        help="kafkatui's audit log to take the day's changes from (default: $KAFKATUI_AUDIT_LOG or "
        "the state directory's audit.jsonl)",
    )
    p.add_argument("--no-audit", action="store_true", help="leave the changes made through kafkatui out")


def say_written(written: Written) -> str:
    """One line: where the report went."""
    return (
        f"postmortem: {written.markdown} and {written.html} ({written.incidents} incident(s), "
        f"{written.changes} change(s) made through kafkatui)"
    )


def report_dir(out: Path, to: Path | None, audit_log: Path | None, no_audit: bool) -> int:
    """Write the report of OUT; prints where it went, or one line and the error's exit code."""
    from kafkatui.history.view.data import ReplayData
    from kafkatui.report.write import write_report

    try:
        data = ReplayData.load(out)
        written = write_report(data, to, audit_log, use_audit=not no_audit)
    except KafkaTuiError as exc:
        sys.stderr.write(f"kafkatui report: error: {exc}\n")
        return exc.exit_code
    print(say_written(written))
    return 0


def main_report(argv: list[str]) -> int:
    p = Parser(prog="kafkatui report", description=DESCRIPTION)
    add_report_arguments(p)
    ns = p.parse_args(argv)
    return report_dir(Path(ns.out), ns.to, ns.audit_log, ns.no_audit)
