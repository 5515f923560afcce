"""A shipped (or user) scenario on a simulated cluster, for the dashboard's `--demo` and `check --demo`.

One place turns a scenario name into a cluster and its player, and a bad name into one clear line
(a UsageError); the dashboard runs the player on a moving clock, `check` advances it on a frozen one.
Callers import this module lazily: it loads the simulator.
"""

from __future__ import annotations

from kafkatui.kafka.errors import UsageError
from kafkatui.sim import scenario
from kafkatui.sim.clock import VirtualClock


def play(name: str, clock: VirtualClock) -> scenario.ScenarioPlayer:
    """Load scenario `name`, build its cluster on `clock` and return the player of its timeline
    (`player.cluster`, `player.scenario`); UsageError when the scenario cannot be loaded."""
    try:
        sc = scenario.load(name)
    except scenario.ScenarioError as exc:
        raise UsageError(str(exc)) from None
    return scenario.ScenarioPlayer(sc, sc.build(clock=clock))
