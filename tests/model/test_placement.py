"""The one placement rule (`kafkatui.model.placement`): a new replica goes to the live broker not holding the
partition on the rack with the fewest of its replicas (no rack: a rack of its own), then the least loaded,
then the lowest id; with a cap, only brokers on known racks below it. `Placement` keeps each rack's brokers
ordered to pick fast; here it must pick what the rule, applied broker by broker, picks."""

from __future__ import annotations

import random
from collections import Counter

from kafkatui.model.placement import Placement


def rule(
    live: list[int],
    rack: dict[int, str | None],
    load: Counter[int],
    exclude: set[int],
    used: Counter[str | None],
    cap: int | None,
) -> int | None:
    """The rule as written, broker by broker; counts the chosen one."""
    fits = [
        (used.get(rack[b], 0) if rack[b] is not None else 0, load[b], b)
        for b in sorted(live)
        if b not in exclude and (cap is None or (rack[b] is not None and used.get(rack[b], 0) < cap))
    ]
    if not fits:
        return None
    chosen = min(fits)[2]
    load[chosen] += 1
    return chosen


def test_picks_and_releases_follow_the_rule_on_random_clusters() -> None:
    rng = random.Random(31)
    for _ in range(1500):
        live = rng.sample(range(1, 40), rng.randint(1, 12))
        rack = {b: rng.choice(["a", "b", "c", None]) for b in live}
        load = {b: rng.randint(0, 5) for b in live}
        placement, expected = Placement(live, rack, load), Counter(load)
        for _ in range(30):
            if rng.random() < 0.2:
                b = rng.choice(live)
                placement.release(b)
                expected[b] -= 1
                continue
            exclude = set(rng.sample(live, rng.randint(0, min(3, len(live)))))
            used = Counter(rng.choice(["a", "b", "c", None]) for _ in range(rng.randint(0, 3)))
            cap = rng.choice([None, None, 1, 2])
            assert placement.pick(exclude, used, cap) == rule(live, rack, expected, exclude, used, cap)
            assert placement.load == expected


def test_ties_go_to_the_lowest_id_and_a_full_rack_is_skipped() -> None:
    placement = Placement([3, 1, 2, 4], {1: "a", 2: "a", 3: "b", 4: None}, {1: 2, 2: 2, 3: 2, 4: 5})
    assert placement.pick(set(), Counter()) == 1  # load 2 on three brokers: the lowest id
    assert placement.pick(set(), Counter({"a": 1})) == 3  # rack a already holds one
    assert placement.pick({1, 2, 3}, Counter({"a": 1}), cap=1) is None  # broker 4 has no rack
    assert placement.load == Counter({1: 3, 2: 2, 3: 3, 4: 5})
