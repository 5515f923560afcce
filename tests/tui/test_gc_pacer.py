"""The dashboard's garbage-collection pacer: no full collection while the user is pressing keys."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from kafkatui.tui.app import GC_SECONDS, IDLE_GC_SECONDS, THOROUGH_GC_SECONDS, THOROUGH_IDLE_SECONDS, GcPacer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def pacer(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[GcPacer, Clock, list[str]]]:
    """A started pacer on a clock the test moves, with gc's full collections recorded, not run."""
    calls: list[str] = []

    def collect(*_: object) -> int:
        calls.append("collect")
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setattr(gc, "freeze", lambda: None)
    clock = Clock()
    p = GcPacer(clock)
    p.start()
    yield p, clock, calls
    p.stop()


def type_keys(p: GcPacer, clock: Clock, seconds: float, every: float = 0.1) -> None:
    """A key every `every` seconds for `seconds`, the pacer ticking between keys (as the app's 0.25 s timer)."""
    end = clock.now + seconds
    while clock.now < end:
        p.user_input()
        clock.now += every
        p.tick()


def test_a_due_collection_never_runs_while_keys_are_pressed(pacer: tuple[GcPacer, Clock, list[str]]) -> None:
    p, clock, calls = pacer
    p.screen_closed(releases_state=False)  # a thorough collection is due
    type_keys(p, clock, 3 * GC_SECONDS)  # a minute and a half of typing: formerly forced after 10 s
    assert calls == []
    clock.now += IDLE_GC_SECONDS + 0.01
    p.tick()
    assert calls == [], "a thorough collection waits for a longer pause"
    clock.now += THOROUGH_IDLE_SECONDS
    p.tick()
    assert calls == ["unfreeze", "collect"]


def test_a_short_collection_runs_at_the_first_pause_in_typing(pacer: tuple[GcPacer, Clock, list[str]]) -> None:
    p, clock, calls = pacer
    p.screen_closed(releases_state=True)
    type_keys(p, clock, 20.0)
    assert calls == []
    clock.now += IDLE_GC_SECONDS + 0.01
    p.tick()
    assert calls == ["collect"]
    type_keys(p, clock, THOROUGH_GC_SECONDS + 1)  # the periodic thorough one falls due meanwhile
    assert "unfreeze" not in calls
    clock.now += THOROUGH_IDLE_SECONDS + 0.01
    p.tick()
    assert calls[-2:] == ["unfreeze", "collect"]
