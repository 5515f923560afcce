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
        """One human line, as `kafkatui sim` prints it."""
        where = ""
        if self.topic is not None:
            where = f"{self.topic}-{self.partition}" if self.partition is not None else self.topic
        elif self.broker is not None:
            where = f"broker {self.broker}"
        extra = " ".join(f"{k}={v}" for k, v in self.detail.items())
        return f"{self.kind.value:<20} {where} {extra}".rstrip()


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
