"""The dashboard's garbage-collection pacer: no full collection while the user is pressing keys."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from kafkatui.tui.app import (
    GC_SECONDS,
    IDLE_GC_SECONDS,
    REFRESH_GC_WAIT_SECONDS,
    SHORT_GC_OBJECTS,
    THOROUGH_GC_SECONDS,
    THOROUGH_IDLE_SECONDS,
    GcPacer,
)


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
    many = [None] * (SHORT_GC_OBJECTS + 1)  # not a short collection, whatever this process holds; a test may shrink it
    monkeypatch.setattr(gc, "get_objects", lambda generation=None: many)
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


def test_no_collection_while_a_refresh_builds_its_state(pacer: tuple[GcPacer, Clock, list[str]]) -> None:
    """A thorough collection holds the GIL for seconds at 100,000 partitions: it must not delay the refresh
    in flight (the one that may carry an incident), however idle the user is; it runs once that state is in."""
    p, clock, calls = pacer
    p.screen_closed(releases_state=False)
    p.refresh_started()
    for _ in range(40):  # ten idle seconds of a slow refresh, the app's 0.25 s timer ticking
        clock.now += 0.25
        p.tick()
    assert calls == []
    p.state_arrived()  # before it is shown: the user has been idle for ten seconds
    assert calls == ["unfreeze", "collect"]
    p.state_applied()
    clock.now += 0.25
    p.tick()
    assert calls == ["unfreeze", "collect"]  # nothing was left due


def test_a_state_arriving_while_keys_are_pressed_leaves_the_collection_for_the_next_pause(
    pacer: tuple[GcPacer, Clock, list[str]],
) -> None:
    p, clock, calls = pacer
    p.screen_closed(releases_state=False)
    p.refresh_started()
    type_keys(p, clock, 5.0)
    p.state_arrived()
    p.state_applied()
    type_keys(p, clock, 5.0)
    assert calls == []
    clock.now += THOROUGH_IDLE_SECONDS + 0.01
    p.tick()
    assert calls == ["unfreeze", "collect"]


def test_a_refresh_that_never_reports_does_not_hold_collections_for_ever(
    pacer: tuple[GcPacer, Clock, list[str]],
) -> None:
    p, clock, calls = pacer
    p.screen_closed(releases_state=True)
    p.refresh_started()
    clock.now += REFRESH_GC_WAIT_SECONDS - 1
    p.tick()
    assert calls == []
    clock.now += 1.01
    p.tick()
    assert calls == ["collect"]


def test_a_short_collection_runs_even_while_keys_are_pressed(
    pacer: tuple[GcPacer, Clock, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Screens opened and closed without a pause: each one's garbage is collected while it is small (a
    short walk, well under the 100 ms a key may wait), not left to pile up into seconds at the first pause."""
    p, clock, calls = pacer
    unfrozen = [object()] * (SHORT_GC_OBJECTS // 3)
    monkeypatch.setattr(gc, "get_objects", lambda generation=None: unfrozen)
    p.screen_closed(releases_state=False, frozen=False)  # opened and closed between two freezes
    type_keys(p, clock, 1.0)
    assert calls == ["collect"]  # an ordinary one, no unfreeze, keys or not


def test_a_long_collection_still_waits_for_a_pause(
    pacer: tuple[GcPacer, Clock, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    p, clock, calls = pacer
    unfrozen = [object()] * SHORT_GC_OBJECTS
    monkeypatch.setattr(gc, "get_objects", lambda generation=None: unfrozen)  # x3 generations: too many
    p.screen_closed(releases_state=True, frozen=False)
    type_keys(p, clock, 5.0)
    assert calls == []
    clock.now += IDLE_GC_SECONDS + 0.01
    p.tick()
    assert calls == ["collect"]


def test_a_screen_frozen_while_open_still_needs_the_thorough_collection(
    pacer: tuple[GcPacer, Clock, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    p, clock, calls = pacer
    monkeypatch.setattr(gc, "get_objects", lambda generation=None: [])
    p.screen_closed(releases_state=False, frozen=True)  # a state was applied while it was open
    type_keys(p, clock, 5.0)
    assert calls == []  # a thorough collection never runs while keys are pressed
    clock.now += THOROUGH_IDLE_SECONDS + 0.01
    p.tick()
    assert calls == ["unfreeze", "collect"]
