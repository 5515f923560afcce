"""Reassignment plans the findings print: moves Kafka accepts and can finish, one plan per partition.

One `Planner` serves one findings run, so every plan it writes shares its rules:

- Only live brokers (those in metadata) are named, as kept replicas or as targets:
  ``kafka-reassign-partitions.sh`` refuses a whole file that names an unknown broker.
- A partition appears in at most one plan: the first plan that claims it keeps it (the absent-broker
  plan comes first, as it is the incident), and later plans say which partitions they left to it. A
  second ``--execute`` touching a partition already being reassigned would fail.
- A move has to be able to finish: a partition without a leader (offline) has nothing to copy from,
  and a partition whose replicas are all on absent brokers has no copy at all. Such partitions are
  left out and listed in `Plan.blocked` with the reason, for the finding to say.
- Targets follow the one placement rule (`model.placement`): least-loaded live brokers, spreading
  racks: a new replica avoids the racks the kept replicas are on when another rack has a live broker.

A plan whose moves no finding's identity needs can be made when its text is first read (`Planner.later`),
in its turn: the plans asked for before it are made first, and a plan made at once first makes those left
for later, so every plan is what the eager order gives. The bench incident's absent-broker plan (10,494
moves) and a 5,000-partition topic's rack plan took 60 and 79 ms of each refresh.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kafkatui.model.health import HealthReport
from kafkatui.model.placement import Placement
from kafkatui.model.snapshot import ClusterSnapshot, PartitionInfo

Move = tuple[str, int, list[int]]
EXAMPLES = 4


def file_cmd(obj: Any, path: str) -> str:
    """A shell line writing `obj` as compact JSON to `path` (the form every printed plan takes)."""
    return f"printf '%s\\n' '{json.dumps(obj, separators=(',', ':'))}' > {path}"


@dataclass(slots=True)
class Plan:
    """One reassignment file: its moves, and what it leaves out and why."""

    path: str
    moves: list[Move] = field(default_factory=list)
    blocked: list[tuple[str, str]] = field(default_factory=list)  # (partition name, why it cannot move)
    elsewhere: list[tuple[str, str]] = field(default_factory=list)  # (partition name, the plan that has it)

    @property
    def planned(self) -> bool:
        return bool(self.moves)

    def json(self) -> dict[str, Any]:
        return {"version": 1, "partitions": [{"topic": t, "partition": p, "replicas": r} for t, p, r in self.moves]}

    def ctx(self) -> dict[str, Any]:
        """Template context: reassign_file, reassign_file_cmd, planned, unplanned (text), has_unplanned."""
        lines = []
        if self.blocked:
            by_why: dict[str, list[str]] = {}
            for name, why in self.blocked:
                by_why.setdefault(why, []).append(name)
            for why, names in by_why.items():
                lines.append(f"{_names(names)} ({why})")
        if self.elsewhere:
            by_plan: dict[str, list[str]] = {}
            for name, path in self.elsewhere:
                by_plan.setdefault(path, []).append(name)
            for path, names in by_plan.items():
                lines.append(f"{_names(names)} (already in {path}: run that plan first, then check again)")
        return {
            "reassign_file": self.path,
            "reassign_file_cmd": file_cmd(self.json(), self.path) if self.moves else "",
            "planned": self.planned,
            "unplanned": "; ".join(lines),
            "has_unplanned": bool(lines),
            "planned_count": len(self.moves),
        }


def _names(names: list[str]) -> str:
    more = f" and {len(names) - EXAMPLES} more" if len(names) > EXAMPLES else ""
    return ", ".join(names[:EXAMPLES]) + more


class Planner:
    """Reassignment plans for one snapshot: live brokers only, least loaded, racks spread, no overlaps."""

    def __init__(self, report: HealthReport, snapshot: ClusterSnapshot) -> None:
        live = sorted(report.live)
        self.live = live
        self.live_set = frozenset(live)
        self.rack = {b.id: b.rack for b in snapshot.brokers}
        self.placement = Placement(
            live, self.rack, {b: report.brokers[b].hosted if b in report.brokers else 0 for b in live}
        )
        self.claimed: dict[tuple[str, int], str] = {}
        self.plans: dict[str, Plan] = {}
        self._pending: list[Callable[[], None]] = []
        self._lock = threading.Lock()  # the worker and the UI thread may both read a finding's text

    # -- plans made later, in their turn
    def later(self, kind: str, *args: Any) -> Callable[[], Plan]:
        """The plan `kind` ("replace_absent", "raise_rf", "spread_racks") of `args`, made when the returned
        function is first called: after every plan asked for before it, as if made now."""
        made: list[Plan] = []
        make = getattr(self, f"_{kind}")
        self._pending.append(lambda: made.append(make(*args)))

        def get() -> Plan:
            if not made:
                self.settle()
            return made[0]

        return get

    def settle(self) -> None:
        """Make the plans left for later, in the order they were asked for."""
        with self._lock:
            while self._pending:
                self._pending.pop(0)()

    # -- choosing brokers
    def pick(self, exclude: Iterable[int], used_racks: Counter[str | None], cap: int | None = None) -> int | None:
        """The broker for one more replica, by the shared placement rule (`model.placement`)."""
        return self.placement.pick(exclude, used_racks, cap)

    def _start(self, path: str) -> Plan:
        plan = self.plans.get(path)
        if plan is None:
            plan = self.plans[path] = Plan(path)
        return plan

    def _movable(self, plan: Plan, p: PartitionInfo, *, any_absent_ok: bool = False) -> bool:
        """False (noting why in `plan`) when `p` is claimed elsewhere or cannot finish a move now."""
        owner = self.claimed.get((p.topic, p.partition))
        name = f"{p.topic}-{p.partition}"
        if owner is not None:
            if owner != plan.path:
                plan.elsewhere.append((name, owner))
            return False
        live = self.live_set
        if p.leader in live and p.leader in p.replicas and (any_absent_ok or live.issuperset(p.replicas)):
            return True  # the common case (a live leader among the replicas), without the checks below
        live_copies = [r for r in p.replicas if r in live]
        if not live_copies:
            gone = ", ".join(str(r) for r in p.replicas)
            plan.blocked.append(
                (name, f"every replica is on absent broker(s) {gone}: only bringing one back recovers it")
            )
            return False
        if p.leader < 0 or p.leader not in self.live_set:
            plan.blocked.append((name, "offline: no leader to copy from until a replica is elected"))
            return False
        if not any_absent_ok and len(live_copies) < len(p.replicas):
            plan.blocked.append((name, "a replica is on an absent broker"))
            return False
        return True

    def _add(self, plan: Plan, p: PartitionInfo, new: list[int]) -> None:
        plan.moves.append((p.topic, p.partition, new))
        self.claimed[(p.topic, p.partition)] = plan.path

    # -- plans
    def replace_absent(self, parts: Iterable[PartitionInfo], path: str) -> Plan:
        """Replace every replica on an absent broker with a live one (keeping the live replicas and order)."""
        self.settle()
        return self._replace_absent(parts, path)

    def _replace_absent(self, parts: Iterable[PartitionInfo], path: str) -> Plan:
        """`replace_absent` once the plans before it are made."""
        plan = self._start(path)
        live, rack_of, pick = self.live_set, self.rack.get, self.placement.pick
        for p in parts:
            if not self._movable(plan, p, any_absent_ok=True):
                continue
            racks: dict[str | None, int] = {}  # the live replicas per rack: one per partition, thousands of them
            for r in p.replicas:
                if r in live:
                    k = rack_of(r)
                    racks[k] = racks.get(k, 0) + 1
            new: list[int] = []
            chosen = set(p.replicas)
            ok = True
            for r in p.replicas:
                if r in live:
                    new.append(r)
                    continue
                b = pick(chosen, racks)
                if b is None:
                    ok = False
                    break
                chosen.add(b)
                k = rack_of(b)
                racks[k] = racks.get(k, 0) + 1
                new.append(b)
            if not ok:
                plan.blocked.append(
                    (f"{p.topic}-{p.partition}", f"not enough live brokers to hold {len(p.replicas)} replicas")
                )
                continue
            self._add(plan, p, new)
        return plan

    def raise_rf(self, parts: Iterable[PartitionInfo], target: int, path: str) -> Plan:
        """Add live replicas until each partition has `target` (partitions already there are left alone)."""
        self.settle()
        return self._raise_rf(parts, target, path)

    def _raise_rf(self, parts: Iterable[PartitionInfo], target: int, path: str) -> Plan:
        """`raise_rf` once the plans before it are made."""
        plan = self._start(path)
        if len(self.live) < target:
            return plan
        for p in parts:
            if len(p.replicas) >= target or not self._movable(plan, p):
                continue
            new = list(p.replicas)
            racks: Counter[str | None] = Counter(self.rack.get(r) for r in new)
            while len(new) < target:
                b = self.pick(new, racks)
                if b is None:
                    break
                racks[self.rack.get(b)] += 1
                new.append(b)
            if len(new) < target:
                plan.blocked.append((f"{p.topic}-{p.partition}", f"fewer than {target} live brokers"))
                continue
            self._add(plan, p, new)
        return plan

    def spread_racks(self, parts: Iterable[PartitionInfo], cap: int, path: str) -> Plan:
        """Move replicas off any rack holding more than `cap` of a partition's replicas, to racks below
        `cap`; the preferred leader (first replica) is kept where possible."""
        self.settle()
        return self._spread_racks(parts, cap, path)

    def _spread_racks(self, parts: Iterable[PartitionInfo], cap: int, path: str) -> Plan:
        """`spread_racks` once the plans before it are made."""
        plan = self._start(path)
        for p in parts:
            if not self._movable(plan, p):
                continue
            new = list(p.replicas)
            racks: Counter[str | None] = Counter(self.rack.get(r) for r in new)
            ok = True
            while True:
                over = [rk for rk, n in racks.items() if n > cap]
                if not over:
                    break
                # the last replica on the fullest rack (never the preferred leader unless it is the only one)
                rk = max(over, key=lambda x: racks[x])
                idx = max(i for i, r in enumerate(new) if self.rack.get(r) == rk)
                b = self.pick(new, racks, cap=cap)
                if b is None:
                    ok = False
                    break
                racks[rk] -= 1
                racks[self.rack.get(b)] += 1
                new[idx] = b
            if not ok:
                plan.blocked.append(
                    (f"{p.topic}-{p.partition}", f"no live broker on a rack with fewer than {cap} of its replicas")
                )
                continue
            if new != list(p.replicas):
                self._add(plan, p, new)
        return plan
