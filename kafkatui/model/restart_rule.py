"""The restart rule: may broker B go down now? One home for the dashboard's "restart now" column
(`kafkatui.model.health.assess`), the restart advice (`kafkatui.model.whatif.restart_safety`) and the
restart gate (`kafkatui.model.restart_gate.gate`, `check --wait-restart-safe`).

A partition with a replica on B stops a restart of B when the in-sync replicas it would keep, serving,
without B are fewer than the min ISR its leader enforces (plus the gate's headroom):

- the count is the ISR members other than B that serve now (listed and taking connections); a
  partition without a leader, or led by a broker absent from metadata, keeps none;
- none kept: the partition goes (or stays) **offline**; some, but too few: it is (or stays) **under
  min ISR**, so acks=all writes to it fail (NOT_ENOUGH_REPLICAS) for as long as B is away.

This includes a partition *already* under min ISR, whether B is in its ISR or catching up outside it:
its acks=all writes already fail, restarting an ISR member takes it closer to offline (one more loss and
it has no in-sync copy), and restarting a catching-up follower restarts the catch-up that would end the
outage. An operator rolling a cluster must wait for it, as Strimzi's rolling restart does
(KafkaAvailability refuses a broker with a replica of an already under-min-ISR partition). Only
partitions with a replica on B are judged: restarting B cannot change the others.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import IntEnum


class Impact(IntEnum):
    """What a restart of the broker does to one partition."""

    SAFE = 0  # keeps at least min ISR (+ headroom) in sync and serving
    UNDER_MIN_ISR = 1  # leaves it with some in-sync replicas, fewer than needed
    OFFLINE = 2  # leaves it with no in-sync replica serving


def kept_in_sync(isr: Collection[int], broker: int, serving: Collection[int], led: bool) -> int:
    """In-sync replicas a partition keeps, serving, while `broker` is down; 0 when it has no usable leader
    now (`led` False: no leader, or a leader absent from metadata)."""
    if not led:
        return 0
    return sum(1 for r in isr if r != broker and r in serving)


def restart_impact(kept: int, min_isr: int, headroom: int = 0) -> Impact:
    """The rule: `kept` in-sync replicas against the leader's effective min ISR plus `headroom`."""
    if kept >= min_isr + headroom:
        return Impact.SAFE
    return Impact.OFFLINE if kept == 0 else Impact.UNDER_MIN_ISR
