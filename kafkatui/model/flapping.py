"""Which ISR shrinks count towards `isr-flapping`: those a broker being down does not explain.

A broker that crashes, is stopped or restarts leaves every ISR it is in: that is an outage, said by the
absent-broker and refused-connections findings, not flapping. A shrink episode (time, broker) is
*explained* when the broker was down then (absent from the cluster metadata, or refusing connections)
or went down within `DOWN_GRACE_S` after it (a leader drops a dead follower after
replica.lag.time.max.ms, 30 s by default, and a controlled shutdown takes the broker out of its ISRs
moments before it leaves). The dashboard (`kafkatui.tui.feed`), `check --history`
(`kafkatui.history.record.shrinks`) and the Replay screen (`ReplayData.shrink_counts`) all count with
`unexplained_counts`, over the same `WINDOW_S`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence

WINDOW_S = 3600.0  # the window ISR shrinks are counted over: the dashboard, `check --history`, the replay
DOWN_GRACE_S = 30.0  # replica.lag.time.max.ms's default: a dead follower's shrink precedes its fencing by at most this


def down_at(transitions: Sequence[tuple[float, bool]], ts: float) -> bool:
    """Whether the broker was down at `ts`, from its (time, down) transitions sorted by time (the last at
    or before `ts` wins; up before the first)."""
    i = bisect_right(transitions, (ts, True))
    return transitions[i - 1][1] if i else False


def explained(transitions: Sequence[tuple[float, bool]], ts: float, grace: float = DOWN_GRACE_S) -> bool:
    """True when the broker being down explains a shrink of it at `ts` (down then, or down within `grace`)."""
    if down_at(transitions, ts):
        return True
    i = bisect_left(transitions, (ts, False))
    return any(down for t, down in transitions[i:] if t <= ts + grace)


def unexplained_counts(
    episodes: Iterable[tuple[float, int]], transitions: Mapping[int, Sequence[tuple[float, bool]]]
) -> dict[int, int]:
    """Shrink episodes per broker that its being down does not explain (brokers with none are left out)."""
    counts: dict[int, int] = {}
    for ts, b in episodes:
        if not explained(transitions.get(b, ()), ts):
            counts[b] = counts.get(b, 0) + 1
    return counts
