"""Events the simulated cluster emits: the ground truth tests and the history recorder compare against."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventKind(StrEnum):
    BROKER_DOWN = "broker_down"
    BROKER_UP = "broker_up"
    BROKER_FENCED = "broker_fenced"
    BROKER_UNFENCED = "broker_unfenced"
    FAULT = "fault"
    ISR_SHRINK = "isr_shrink"
    ISR_EXPAND = "isr_expand"
    LEADER_CHANGE = "leader_change"
    OFFLINE = "offline"
    UNCLEAN_ELECTION = "unclean_election"
    CONTROLLER_CHANGE = "controller_change"
    CONFIG_CHANGE = "config_change"
    TOPIC_CREATED = "topic_created"
    TOPIC_DELETED = "topic_deleted"
    PARTITIONS_CREATED = "partitions_created"
    REASSIGNMENT_STARTED = "reassignment_started"
    REASSIGNMENT_DONE = "reassignment_done"
    SCENARIO = "scenario"


@dataclass(slots=True, frozen=True)
class SimEvent:
    """One thing that happened in the simulated cluster, at simulated time `ts_ms`."""

    ts_ms: int
    kind: EventKind
    topic: str | None = None
    partition: int | None = None
    broker: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One line an operator reads, as `kafkatui sim` prints it."""
        d = self.detail
        where = f"{self.topic}-{self.partition}" if self.partition is not None else (self.topic or "")
        k = self.kind
        if k == EventKind.ISR_SHRINK:
            lag = d.get("lag", {})
            out = ", ".join(f"{r} ({lag.get(r, 0)} behind)" for r in d.get("out", []))
            isrs = f"{_ids(d.get('old_isr'))} -> {_ids(d.get('new_isr'))}"
            return f"{where}: ISR shrank {isrs}, out: {out} [{d.get('reason')}], minISR {d.get('min_isr')}"
        if k == EventKind.ISR_EXPAND:
            return f"{where}: ISR expanded {_ids(d.get('old_isr'))} -> {_ids(d.get('new_isr'))}"
        if k == EventKind.LEADER_CHANGE:
            return f"{where}: leader {d.get('was')} -> {d.get('leader')} (epoch {d.get('epoch')}, {d.get('reason')})"
        if k == EventKind.OFFLINE:
            return f"{where}: OFFLINE, no live in-sync replica (last ISR {_ids(d.get('isr'))})"
        if k == EventKind.UNCLEAN_ELECTION:
            return (
                f"{where}: UNCLEAN election of broker {d.get('leader')}: {d.get('lost_records')} records lost, "
                f"{d.get('lost_acked_records')} of them acknowledged"
            )
        if k in (EventKind.BROKER_DOWN, EventKind.BROKER_UP):
            return f"broker {self.broker} {'down' if k == EventKind.BROKER_DOWN else 'up'} (was {d.get('was')})"
        if k == EventKind.BROKER_FENCED:
            how = "controlled shutdown" if d.get("controlled") else "session timed out"
            return f"broker {self.broker} fenced by the controller ({how})"
        if k == EventKind.BROKER_UNFENCED:
            return f"broker {self.broker} registered again (unfenced)"
        if k == EventKind.CONTROLLER_CHANGE:
            return f"controller moved {d.get('was')} -> {self.broker}"
        if k == EventKind.SCENARIO:
            return str(d.get("text", ""))
        extra = " ".join(f"{key}={v}" for key, v in d.items())
        subject = where or (f"broker {self.broker}" if self.broker is not None else "")
        return f"{k.value} {subject} {extra}".strip()


def _ids(ids: object) -> str:
    return "[" + ",".join(str(i) for i in ids) + "]" if isinstance(ids, list | tuple) else str(ids)


Listener = Callable[[SimEvent], None]


class EventLog:
    """A bounded in-memory event log with listeners."""

    def __init__(self, maxlen: int = 100_000) -> None:
        self._events: deque[SimEvent] = deque(maxlen=maxlen)
        self._listeners: list[Listener] = []
        self.total = 0

    def emit(self, event: SimEvent) -> None:
        self._events.append(event)
        self.total += 1
        for listener in list(self._listeners):
            listener(event)

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def snapshot(self) -> list[SimEvent]:
        return list(self._events)

    def of_kind(self, *kinds: EventKind) -> list[SimEvent]:
        return [e for e in self._events if e.kind in kinds]
