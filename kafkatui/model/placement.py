"""Where a new replica goes: the one placement rule every reassignment planner uses.

A new replica goes on a live broker not already holding the partition, preferring the rack that holds
the fewest of the partition's replicas (a broker without a rack counts as a rack of its own), then the
broker hosting the fewest replicas cluster-wide (including what the plan already placed), then the
lowest id. Used by the findings' plans (`model.plans.Planner`) and by `kafkatui reassign`'s
replication-factor change (`alter.reassign`), so both pick the same brokers for the same cluster.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping


class Placement:
    """Live brokers with their racks and replica load; `pick` chooses and counts a new replica."""

    def __init__(self, live: Iterable[int], racks: Mapping[int, str | None], load: Mapping[int, int]) -> None:
        self.live = sorted(live)
        self.rack = dict(racks)
        self.load: Counter[int] = Counter({b: load.get(b, 0) for b in self.live})

    def racks_of(self, replicas: Iterable[int]) -> Counter[str | None]:
        """How many of `replicas` sit on each rack (brokers without a rack under None)."""
        return Counter(self.rack.get(r) for r in replicas)

    def pick(self, exclude: Iterable[int], used_racks: Counter[str | None], cap: int | None = None) -> int | None:
        """The live broker for one more replica, not in `exclude`, counted in the load; with `cap`, only a
        broker on a known rack holding fewer than `cap` of the partition's replicas. None when none fits."""
        ex = exclude if isinstance(exclude, set | frozenset) else set(exclude)
        rack, load, use = self.rack, self.load, used_racks.get
        # one pass, keys compared field by field: this runs for every replica a plan places (tens of
        # thousands when a broker of a 100,000-partition cluster goes away)
        best: int | None = None
        best_use = best_load = 0
        for b in self.live:  # ascending ids: the first of equal keys is the lowest id
            if b in ex:
                continue
            r = rack.get(b)
            u = use(r, 0) if r is not None else 0
            if cap is not None and (r is None or u >= cap):
                continue
            n = load[b]
            if best is None or u < best_use or (u == best_use and n < best_load):
                best, best_use, best_load = b, u, n
        if best is not None:
            load[best] += 1
        return best

    def release(self, broker: int) -> None:
        """A replica planned away from `broker`: it hosts one fewer."""
        self.load[broker] -= 1
