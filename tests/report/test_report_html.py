"""The HTML postmortem in a real browser: headless Chromium (Debian's) renders it with no console message,
and the chart's lines and incident bands are on screen. The screenshot is kept in the test's temporary
directory to look at, never committed."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

from kafkatui.history.view.data import ReplayData
from kafkatui.report.write import write_report
from tests.ci import cannot_run
from tests.history.replay_fixture import incident_day
from tests.report.png import count_near
from tests.report.test_report import audit_records

FLAGS = [  # as the machine's notes say: no background traffic, a fresh profile, no GPU
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]
OFFLINE_RED = (0xC9, 0x2A, 0x2A)
UNDER_MIN_ORANGE = (0xE8, 0x59, 0x0C)


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        cannot_run("chromium is not installed (Debian: apt-get install chromium; `make tools` installs it)")
    return path


def test_the_html_report_renders_in_chromium_with_its_chart(tmp_path: Path) -> None:
    browser = chromium()
    audit = tmp_path / "audit.jsonl"
    audit.write_text("".join(json.dumps(r) + "\n" for r in audit_records()))
    written = write_report(ReplayData.load(incident_day(tmp_path / "out")), tmp_path / "rep", audit_log=audit)
    shot = tmp_path / "postmortem.png"
    t0 = time.monotonic()
    proc = subprocess.run(
        [
            browser,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1100,900",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            written.html.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    seconds = time.monotonic() - t0
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, console
    # the chart is drawn: its offline and under-minISR lines are on screen (a page without the SVG has none)
    red, orange = count_near(shot, [OFFLINE_RED, UNDER_MIN_ORANGE])
    assert red > 20 and orange > 20, (red, orange)
    print(f"\nscreenshot {shot} ({shot.stat().st_size:,} bytes), rendered in {seconds:.1f} s")
