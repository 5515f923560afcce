"""The front doors run end to end as processes on a terminal: `kafkatui --demo` (the README's first
command) and `kafkatui --replay OUT`. Each draws its first screen, answers a key, and quits cleanly."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.pty_app import PtyApp
from tests.history.replay_fixture import incident_day

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


def test_demo_draws_answers_a_key_and_quits_cleanly(tmp_path: Path) -> None:
    app = PtyApp(["--demo"], tmp_path)
    try:
        assert app.wait_for("verdict", 60), f"no first screen:\n{app.text()[-3000:]}"
        assert app.wait_for("brokers 6/6", 30), app.text()[-3000:]
        mark = app.mark()
        app.press("?")
        assert app.wait_for("kafkatui keys", 15, since=mark), app.text(mark)[-3000:]
        app.press("\x1b")
        time.sleep(0.5)  # a lone Esc, not the start of Alt+q
        app.press("q")
        assert app.wait_exit(20) == 0, app.text()[-3000:]
        assert LEAVE_ALTERNATE_SCREEN in app.raw, "the terminal was not given back"
        assert "Traceback" not in app.text()
    finally:
        app.close()


def test_replay_out_draws_answers_a_key_and_quits_cleanly(tmp_path: Path) -> None:
    out = incident_day(tmp_path / "out")
    app = PtyApp(["--replay", str(out)], tmp_path)
    try:
        assert app.wait_for("REPLAY", 60), f"no first screen:\n{app.text()[-3000:]}"
        assert app.wait_for("(a partition under minISR or offline)", 30), app.text()[-3000:]
        mark = app.mark()
        app.press("?")
        assert app.wait_for("move the focus: incidents, partitions, brokers", 15, since=mark), app.text(mark)[-3000:]
        app.press("\x1b")
        time.sleep(0.5)
        app.press("q")
        assert app.wait_exit(20) == 0, app.text()[-3000:]
        assert LEAVE_ALTERNATE_SCREEN in app.raw, "the terminal was not given back"
        assert "Traceback" not in app.text()
    finally:
        app.close()
