"""Where a new replica goes: the one placement rule every reassignment planner uses.

A new replica goes on a live broker not already holding the partition, preferring the rack that holds
the fewest of the partition's replicas (a broker without a rack counts as a rack of its own), then the
broker hosting the fewest replicas cluster-wide (including what the plan already placed), then the
lowest id. Used by the findings' plans (`model.plans.Planner`) and by `kafkatui reassign`'s
replication-factor change (`alter.reassign`), so both pick the same brokers for the same cluster.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from collections.abc import Iterable, Mapping


class Placement:
    """Live brokers with their racks and replica load; `pick` chooses and counts a new replica."""

    def __init__(self, live: Iterable[int], racks: Mapping[int, str | None], load: Mapping[int, int]) -> None:
        self.live = sorted(live)
        self.rack = dict(racks)
        self.load: Counter[int] = Counter({b: load.get(b, 0) for b in self.live})
        # per rack (None: the brokers without one, each a rack of its own), its brokers by (load, id): a
        # pick looks at the first broker of each rack, not at every broker (tens of thousands of picks
        # when a broker of a 100,000-partition cluster goes away)
        self._by_rack: dict[str | None, list[tuple[int, int]]] = {}
        for b in self.live:
            self._by_rack.setdefault(self.rack.get(b), []).append((self.load[b], b))
        for brokers in self._by_rack.values():
            brokers.sort()

    def racks_of(self, replicas: Iterable[int]) -> Counter[str | None]:
        """How many of `replicas` sit on each rack (brokers without a rack under None)."""
        return Counter(self.rack.get(r) for r in replicas)

    def pick(self, exclude: Iterable[int], used_racks: Mapping[str | None, int], cap: int | None = None) -> int | None:
        """The live broker for one more replica, not in `exclude`, counted in the load; with `cap`, only a
        broker on a known rack holding fewer than `cap` of the partition's replicas (`used_racks`: how many
        it holds per rack). None when none fits."""
        ex = exclude if isinstance(exclude, set | frozenset) else set(exclude)
        use = used_racks.get
        best: tuple[int, int, int] | None = None  # (replicas on its rack, load, id): the least wins
        for rack, brokers in self._by_rack.items():
            u = use(rack, 0) if rack is not None else 0
            if cap is not None and (rack is None or u >= cap):
                continue
            for n, b in brokers:  # least loaded first, then the lowest id
                if b not in ex:
                    if best is None or (u, n, b) < best:
                        best = (u, n, b)
                    break
        if best is None:
            return None
        self._count(best[2], 1)
        return best[2]

    def release(self, broker: int) -> None:
        """A replica planned away from `broker`: it hosts one fewer."""
        self._count(broker, -1)

    def _count(self, broker: int, delta: int) -> None:
        """Move `broker`'s load by `delta`, keeping its rack's order."""
        brokers = self._by_rack.get(self.rack.get(broker))
        if brokers is not None and (self.load[broker], broker) in brokers:
            brokers.remove((self.load[broker], broker))
            insort(brokers, (self.load[broker] + delta, broker))
        self.load[broker] += delta
