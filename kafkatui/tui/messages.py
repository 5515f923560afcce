"""What screens and widgets ask the app for ("messages up"): open a screen, refresh, start a write.

A screen posts one (`self.post_message(OpenTopic("orders"))`); it bubbles to the app, which owns the
navigation and the write actions. A screen that navigates differently handles the message itself and
stops it: the replay screens open their replayed topic instead of the live one.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from kafkatui.tui.feed import ViewState

Target = tuple[str, str]  # what a config change alters: ("topic", name) or BROKER_DEFAULT
BROKER_DEFAULT: Target = ("broker-default", "")


class StateUpdated(Message):
    """A refresh finished (or failed): the app hands the new state to every screen on the stack."""

    def __init__(self, state: ViewState) -> None:
        super().__init__()
        self.state = state


@dataclass
class OpenTopic(Message):
    """Open the topic screen."""

    topic: str


@dataclass
class OpenPartition(Message):
    """Open the partition drill-down."""

    topic: str
    partition: int


@dataclass
class OpenBroker(Message):
    """Open the broker screen."""

    broker_id: int


@dataclass
class RefreshRequested(Message):
    """Read the cluster now (unless a refresh is running); `announce` says so in a notification."""

    announce: bool = False


class StartWrite(Message):
    """A write action: the app opens the read-only modal (writes off) or goes straight to the wizard."""


@dataclass
class StartAlter(StartWrite):
    """The durability wizard for topics or the broker default, then the config preview."""

    targets: tuple[Target, ...]


@dataclass
class StartPreferredElection(StartWrite):
    """The preferred leader election preview for `topics` (None: every topic)."""

    topics: tuple[str, ...] | None


@dataclass
class StartUncleanElection(StartWrite):
    """The unclean election of one OFFLINE partition."""

    topic: str
    partition: int


@dataclass
class StartReassign(StartWrite):
    """A new replication factor for `topic`."""

    topic: str
