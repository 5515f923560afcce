"""The demo's narrator: what the scenario does, as it does it, and when it is over (no Textual here).

A first-time user watching `kafkatui --demo` saw partitions turn red with no idea why, and the hour
ended in silence. The narrator hands the overview the scenario's own notes ("Broker 2's host
crashes: ...") with the simulated time, and says once when the story is over and how to see it again.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from kafkatui.sim.events import EventKind, SimEvent

if TYPE_CHECKING:  # typing only: the scenario module loads YAML and the simulated cluster
    from kafkatui.sim.scenario import ScenarioPlayer

SETTLE_MS = 3 * 60_000  # after the last step, the cluster recovers for a while before the story is over


def clock(ms: int) -> str:
    """Simulated time since the start, as M:SS (H:MM:SS past an hour)."""
    s = ms // 1000
    return f"{s // 3600}:{s % 3600 // 60:02}:{s % 60:02}" if s >= 3600 else f"{s // 60}:{s % 60:02}"


class DemoNarrator:
    """Collects the scenario's notes from the simulator thread; the UI drains them at each refresh."""

    def __init__(self, player: ScenarioPlayer, name: str, speed: float) -> None:
        self.player = player
        self.name = name
        self.speed = speed
        self._notes: deque[tuple[int, str]] = deque()
        self._said_over = False
        steps = player.scenario.timeline
        self.end_ms = (max((s.at_ms for s in steps), default=0) + SETTLE_MS) if steps else 0
        player.cluster.events.subscribe(self._on_event)

    def _on_event(self, event: SimEvent) -> None:  # the simulator's thread
        if event.kind == EventKind.SCENARIO:
            self._notes.append((self.player.elapsed_ms, str(event.detail.get("text", ""))))

    def intro(self) -> str:
        """The first line of the events pane: what plays, how fast, and how long it takes."""
        minutes = self.end_ms / 60_000 / self.speed
        return (
            f"demo: scenario {self.name} at x{self.speed:g} (about {minutes:.0f} min); each step of the "
            "story appears here as it happens"
        )

    def drain(self) -> list[str]:
        """The notes since the last call: 'demo 4:30 ▸ Broker 2's host crashes: ...'."""
        out = []
        while self._notes:
            at, text = self._notes.popleft()
            out.append(f"demo {clock(at)} ▸ {text}")
        return out

    def over(self) -> str | None:
        """Once, when the story has played: what to do to see it again; else None."""
        if self._said_over or not self.end_ms or not self.player.finished:
            return None
        if self.player.elapsed_ms < self.end_ms:
            return None
        self._said_over = True
        return (
            f"demo: scenario over at {clock(self.player.elapsed_ms)}; the cluster stays as it is now. To replay "
            f"it: q, then `kafkatui --demo {self.name}` (--speed 10 plays it faster; `kafkatui sim --list` "
            "lists the other scenarios)"
        )
