"""ZooKeeper or KRaft, and the words each mode needs for a broker that died or froze.

A KRaft broker heartbeats to the controller quorum: silent for ``broker.session.timeout.ms`` it is
*fenced* (dropped from every ISR, its leaderships moved) and leaves the metadata. A ZooKeeper-mode
broker holds a ZooKeeper session instead: killed or frozen (a long GC pause, SIGSTOP, a network
partition) it stays registered, listed and in its ISRs until that session expires
(``zookeeper.session.timeout.ms``, 18 s by default); then the controller, itself one of the brokers,
removes it. A frozen ZooKeeper-mode broker that wakes registers again and catches up.

`mode_of` tells the mode from the brokers' configs; `words` gives the phrases the check text, the
findings and the TUI use, so both modes are described in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from kafkatui.model.snapshot import ClusterSnapshot, ConfigValue

Mode = Literal["kraft", "zookeeper"]


def mode_of(broker_configs: Mapping[int, Mapping[str, ConfigValue]]) -> Mode | None:
    """ "kraft" when a broker has ``process.roles`` set, "zookeeper" when one has ``zookeeper.connect``
    set (a ZooKeeper-mode broker; 2.8-3.9 also define an empty ``process.roles``), else None."""

    def any_set(key: str) -> bool:
        return any((c.get(key) or ConfigValue(None)).value for c in broker_configs.values())

    if any_set("process.roles"):
        return "kraft"
    if any_set("zookeeper.connect"):
        return "zookeeper"
    return None


def snapshot_mode(snapshot: ClusterSnapshot) -> Mode | None:
    """The mode of the cluster a snapshot was read from (None: unknown): what the brokers' ApiVersions
    answers told (`ClusterSnapshot.kafka`, `model.rules`), else what their configs say."""
    told = snapshot.kafka.mode
    if told == "kraft":
        return "kraft"
    if told == "zookeeper":
        return "zookeeper"
    return mode_of(snapshot.broker_configs)


@dataclass(frozen=True, slots=True)
class ModeWords:
    """Phrases about a broker's death or absence, for one mode."""

    down_listed: str
    """A status cell: the broker refuses connections but is still listed."""
    listed_until: str
    """Why a dead broker is still listed: '... until <this>'."""
    removed_when: str
    """What takes a silent broker out of every ISR, and when."""
    once_removed: str
    """'Once <it is removed>:' in a finding's steps."""
    absent_cause: str
    """The likely cause of a broker absent from the metadata."""
    removal_verb: str
    """A broker leaves its ISRs 'when it is <this>'."""
    not_yet_removed: str
    """'<this> yet': a dead broker still listed."""


_KRAFT = ModeWords(
    down_listed="DOWN unfenced",
    listed_until="the controller fences it",
    removed_when="Within broker.session.timeout.ms (9 s by default) the controller fences it",
    once_removed="Once it is fenced",
    absent_cause="crashed, stopped, or fenced after missing heartbeats",
    removal_verb="fenced",
    not_yet_removed="the controller has not fenced it",
)
_ZOOKEEPER = ModeWords(
    down_listed="DOWN registered",
    listed_until="its ZooKeeper session expires (zookeeper.session.timeout.ms)",
    removed_when=(
        "When its ZooKeeper session expires (zookeeper.session.timeout.ms, 18 s by default) the controller "
        "broker removes it"
    ),
    once_removed="Once its session has expired",
    absent_cause=(
        "crashed or stopped, or its ZooKeeper session expired (zookeeper.session.timeout.ms) during a long "
        "GC pause or a network partition; a broker that only paused registers again when it wakes"
    ),
    removal_verb="deregistered (its ZooKeeper session expired)",
    not_yet_removed="its ZooKeeper session has not expired",
)


def words(mode: Mode | None) -> ModeWords:
    """The phrases for `mode` (KRaft's when unknown: the wording kafkatui always used)."""
    return _ZOOKEEPER if mode == "zookeeper" else _KRAFT


def controller_restart_note(mode: Mode | None, broker: int, controller_id: int) -> str | None:
    """On a ZooKeeper-mode cluster the controller is a broker: restarting it moves the controller
    (a new election, every partition's state re-read from ZooKeeper). None elsewhere."""
    if mode != "zookeeper" or broker != controller_id or broker < 0:
        return None
    return (
        f"broker {broker} is also the controller (ZooKeeper mode): restarting it moves the controller to "
        "another broker; in a rolling restart restart it last"
    )
