"""Two kafkatui processes at once: a change made by one between the other's preview and its confirmation is
shown before anything is applied; the audit log of both stays whole.

The scenario functions take a bootstrap list and an audit log path only (a real cluster with a topic
``orders`` at its defaults will do as well as the simulator).
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kafkatui.alter.journal import DIE_ENV
from kafkatui.sim.runner import SimRunner
from tests.alter.support import all_records, intents, records
from tests.alter.test_interrupted import run, snapshot

MIN_ISR = "min.insync.replicas"


class Terminal:
    """A kafkatui process whose stdin and stderr are a pseudo-terminal (so it asks for confirmations)."""

    def __init__(self, log: Path, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k not in (DIE_ENV, "KAFKATUI_PROFILES")}
        env["KAFKATUI_AUDIT_LOG"] = str(log)
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kafkatui.cli", *args],
            stdin=slave,
            stderr=slave,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        os.close(slave)
        self.screen = ""

    def wait_for(self, text: str, times: int = 1, timeout: float = 60) -> str:
        """Read the terminal until `text` showed `times` times; everything read so far."""
        deadline = time.monotonic() + timeout
        while self.screen.count(text) < times:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never showed: {self.screen!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.screen += os.read(self.master, 4096).decode(errors="replace")
                except OSError:  # the process ended
                    break
        assert self.screen.count(text) >= times, self.screen
        return self.screen

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 60) -> tuple[int, str, str]:
        out, _ = self.proc.communicate(timeout=timeout)
        try:
            while select.select([self.master], [], [], 0.2)[0]:
                self.screen += os.read(self.master, 4096).decode(errors="replace")
        except OSError:
            pass
        os.close(self.master)
        return self.proc.returncode, out, self.screen


def preview_then_someone_else_changes(bootstrap: str, log: Path) -> None:
    """A previews minISR 2 on orders and waits at the confirmation; B sets minISR 3; A confirms: A shows
    B's change before applying, asks again, and its intent records B's value as the value before."""
    a = Terminal(log, "alter", "--bootstrap", bootstrap, "--topic", "orders", "--set", f"{MIN_ISR}=2", "--write")
    a.wait_for("type the topic name to apply: ")
    b = run(log, "alter", "--bootstrap", bootstrap, "--topic", "orders", "--set", f"{MIN_ISR}=3", "--write", "--yes")
    assert b.returncode == 0, b.stderr
    a.type("orders")
    # shown before anything is applied: nothing of A's reached the cluster or the log yet
    a.wait_for("type the topic name to apply: ", times=2)
    cv = snapshot(bootstrap).topic_config("orders", MIN_ISR)
    assert (cv.value, cv.source) == ("3", "DYNAMIC_TOPIC_CONFIG")
    assert len(intents(log)) == 1  # B's only
    a.type("orders")
    code, out, _ = a.finish()
    assert code == 0, out
    assert (
        "! the cluster changed since the preview (someone else changed it):\n"
        "!   topic orders min.insync.replicas: 1 (DEFAULT_CONFIG) in the preview, 3 (DYNAMIC_TOPIC_CONFIG) now\n"
    ) in out
    assert "ok      topic orders min.insync.replicas: 3 (DYNAMIC_TOPIC_CONFIG) -> 2 (DYNAMIC_TOPIC_CONFIG)" in out
    mine = intents(log)[-1]
    assert mine["changes"][0]["before"] == {"value": "3", "source": "DYNAMIC_TOPIC_CONFIG"}
    # a revert of A's change now goes back to B's value, not to the default A previewed
    assert run(log, "alter", "--bootstrap", bootstrap, "--revert-last", "--write", "--yes").returncode == 0
    cv = snapshot(bootstrap).topic_config("orders", MIN_ISR)
    assert (cv.value, cv.source) == ("3", "DYNAMIC_TOPIC_CONFIG")


def not_confirmed_again_changes_nothing(bootstrap: str, log: Path) -> None:
    """The same race, and A does not confirm again: nothing of A's is applied or logged (exit 14)."""
    a = Terminal(log, "alter", "--bootstrap", bootstrap, "--topic", "orders", "--set", f"{MIN_ISR}=2", "--write")
    a.wait_for("type the topic name to apply: ")
    assert (
        run(
            log, "alter", "--bootstrap", bootstrap, "--topic", "orders", "--set", f"{MIN_ISR}=3", "--write", "--yes"
        ).returncode
        == 0
    )
    a.type("orders")
    a.wait_for("type the topic name to apply: ", times=2)
    a.type("no")
    code, out, screen = a.finish()
    assert code == 14 and "not confirmed again after the cluster changed" in screen
    assert "3 (DYNAMIC_TOPIC_CONFIG) now" in out
    assert snapshot(bootstrap).topic_config("orders", MIN_ISR).value == "3"
    assert len(intents(log)) == 1 and len(records(log)) == 1


def concurrent_writers_keep_every_record(bootstrap: str, log: Path, topics: list[str]) -> None:
    """One kafkatui per topic, all at once, on one log: every intent and outcome whole, none lost."""
    env = {k: v for k, v in os.environ.items() if k not in (DIE_ENV, "KAFKATUI_PROFILES")}
    env["KAFKATUI_AUDIT_LOG"] = str(log)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kafkatui.cli",
                "alter",
                "--bootstrap",
                bootstrap,
                "--topic",
                t,
                "--set",
                f"{MIN_ISR}=2",
                "--write",
                "--yes",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        for t in topics
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    lines = log.read_text().splitlines()
    assert len(lines) == 2 * len(topics) and all(json.loads(line) for line in lines)  # whole lines only
    assert sorted(r["resource"]["name"] for r in records(log)) == sorted(topics)
    ids = {r["command_id"] for r in all_records(log)}
    assert len(ids) == len(topics)


# ----------------------------------------------------------------------------- against the simulator
def test_a_change_between_preview_and_confirmation_is_shown_before_applying(sim: SimRunner, tmp_path: Path) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    preview_then_someone_else_changes(sim.bootstrap, tmp_path / "audit.jsonl")


def test_not_confirming_again_changes_nothing(sim: SimRunner, tmp_path: Path) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    not_confirmed_again_changes_nothing(sim.bootstrap, tmp_path / "audit.jsonl")


def test_concurrent_writers_keep_every_record(sim_factory: Callable[..., SimRunner], tmp_path: Path) -> None:
    sim = sim_factory(3)
    topics = [f"t{i}" for i in range(6)]
    for t in topics:
        sim.call(lambda c, t=t: c.create_topic(t, 1, 3))
    concurrent_writers_keep_every_record(sim.bootstrap, tmp_path / "audit.jsonl", topics)
