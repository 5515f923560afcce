"""Write a replayed day's postmortem (Markdown, its chart, and one self-contained HTML file) to a folder.

Used by `kafkatui report OUT`, by `kafkatui replay ... --report` after the job, and by the Replay
screen's key. Files: ``postmortem-DAY.md``, ``postmortem-DAY-timeline.svg`` (the Markdown's image of the
day), ``postmortem-DAY-incident-K.svg`` (a close-up of each of the first incidents) and
``postmortem-DAY.html`` (the charts inline), each written to a temporary name first and renamed, so a
report is never half written.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from kafkatui.history.view.data import ReplayData
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.report import facts, render
from kafkatui.report.chart import timeline_svg

REPORT_DIR = "report"  # default: OUT/report


class ReportError(KafkaTuiError):
    """The report cannot be written where asked (exit 17, as for replay's --out)."""

    exit_code: ClassVar[int] = 17
    kind: ClassVar[str] = "report"


@dataclass(frozen=True, slots=True)
class Written:
    """Where the report went, and what it found."""

    markdown: Path
    html: Path
    chart: Path
    incidents: int
    changes: int


def _audit_records(path: Path | None) -> tuple[list[dict[str, object]], str]:
    from kafkatui.alter import audit

    target = path if path is not None else audit.audit_path()
    if not target.exists():
        return [], f"no audit log at {target}"
    try:
        records = audit.read(target)
    except (OSError, KafkaTuiError) as exc:
        return [], f"audit log {target} unreadable ({exc})"
    return records, f"kafkatui's audit log {target}"


def _atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_report(
    data: ReplayData, to: Path | None = None, audit_log: Path | None = None, use_audit: bool = True
) -> Written:
    """Build and write the report of `data` under `to` (default OUT/report); ReportError when it cannot."""
    records, source = _audit_records(audit_log) if use_audit else ([], "not read (--no-audit)")
    pm = facts.build(data, records, source)
    folder = (to if to is not None else data.directory / REPORT_DIR).expanduser()
    stem = f"postmortem-{pm.day}"
    chart = folder / f"{stem}-timeline.svg"
    md, page = folder / f"{stem}.md", folder / f"{stem}.html"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic(chart, timeline_svg(pm) + "\n")
        for k in range(1, min(len(pm.incidents), render.CLOSE_UPS) + 1):
            _atomic(folder / render.close_up_file(chart.name, k), (render.close_up(pm, k) or "") + "\n")
        _atomic(md, render.markdown(pm, chart.name))
        _atomic(page, render.html(pm))
    except OSError as exc:
        raise ReportError(f"cannot write the report in {folder}: {exc.strerror or exc}") from None
    return Written(md, page, chart, len(pm.incidents), len(pm.changes))
