"""The Replay screen's P key writes the day's postmortem and says where it went (Pilot, and a snapshot)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kafkatui.tui.app import KafkaTuiApp
from tests.history.replay_fixture import DAY, incident_day
from tests.tui.test_replay import SIZE, drive, replay_app


@pytest.fixture
def out_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The day at ./replay-2026-11-20, the name `replay_app` shows, in a temporary working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KAFKATUI_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    return incident_day(tmp_path / "replay-2026-11-20")


async def write_it(pilot: Pilot[Any]) -> None:
    await pilot.press("P")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def test_p_writes_the_postmortem_and_says_where(out_here: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await write_it(pilot)
        said = [str(n.message) for n in app._notifications]
        expected = f"postmortem: replay-2026-11-20/report/postmortem-{DAY}.md and "
        assert any(m.startswith(expected) and "2 incident(s)" in m for m in said), said

    drive(replay_app(out_here), scenario)
    report = out_here / "report"
    assert (report / f"postmortem-{DAY}.html").is_file() and (report / f"postmortem-{DAY}.md").is_file()
    assert "## Incident 2: 14:04:50 to 14:20:00" in (report / f"postmortem-{DAY}.md").read_text()


def test_snapshot_replay_postmortem_written(out_here: Path, snap_compare: Any) -> None:
    assert snap_compare(replay_app(out_here), terminal_size=SIZE, run_before=write_it)
