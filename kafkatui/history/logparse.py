"""ISR history from Kafka broker logs (server.log, state-change.log, KRaft controller.log), Kafka 2.x-4.x.

Lines understood (log4j head ``[2026-11-20 02:13:44,123] INFO `` first, logger name last):

``[Partition T-P broker=B] ... (kafka.cluster.Partition)``, in server.log:

- ``Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 100, endOffset: 120). Out of sync
  replicas: (brokerId: 3, endOffset: 100).`` -- several replicas are joined by a space; 3.6+ adds
  ``, lastCaughtUpTimeMs: N`` to each; some versions print ``endOffset: unknown``.
- ``Expanding ISR from 1,2 to 1,2,3`` (up to 2.7).
- ``ISR updated to [1,2] and zkVersion updated to [7]`` (2.4-2.7), ``ISR updated to 1,2 and version
  updated to [5]`` (2.8/3.0), ``... and version updated to 5`` (3.1-3.4), 3.5+:
  ``ISR updated to 1,2 (under-min-isr) and version updated to 5`` or, not under min ISR, the same
  with two spaces before ``and``. ``under_min_isr`` is True / False for the 3.5+ forms, None before.
- ``T-P starts at Leader Epoch N from offset O. Previous Leader Epoch was: M`` (2.x leader line).

``[Broker id=B] Leader T-P with topic id Some(ID) starts at leader epoch N from offset O with
partition epoch E, high watermark H, ISR [1,2], ... (state.change.logger)``, in state-change.log
(2.8+; before 2.8 the same without ``with topic id ...``): a ``leader`` event for broker B. 3.x/4.x
end it ``removing replicas [] (under-min-isr). Previous leader ...`` or ``removing replicas [] .
Previous leader ...``: ``under_min_isr`` True / False (None for the older forms).

``[Broker id=B] Skipped the become-leader state change for T-P with topic id Some(ID) and partition
state ... since it is already the leader with leader epoch N. Current high watermark H, ISR [1,2], ...``
(KRaft 3.x/4.x, state-change.log; from 4.4 ``with topic id Some(ID), partition registration
PartitionRegistration(...) and isNew=false since ...``): the controller changed the ISR of a partition B leads without a
new leader epoch (a broker fenced or in controlled shutdown), an ``update`` event. The leader writes
no other line for such a change.

KRaft 3.9 / 4.x lines that say a partition has NO leader or got one by an unclean election
(checked against real 3.9.1 and 4.1.1 logs, see tests/history/fixtures/real-kafka-*/):

``[Broker id=B] Follower T-P starts at leader epoch N from offset O with partition epoch E and high
watermark H. Current leader is -1. ...`` and ``[Broker id=B] Skipped the become-follower state
change for T-P ... LeaderAndIsrPartitionState(..., leader=-1, leaderEpoch=N, isr=[1, 2], ...) ...``
(state-change.log): an ``offline`` event (``leader`` -1). The same lines naming a live leader are
understood but carry no event (that leader logs the change itself).

``[QuorumController id=C] UNCLEAN partition change for T-P with topic ID X: isr: [2] -> [3],
leader: -1 -> 3, leaderRecoveryState: RECOVERED -> RECOVERING, ...`` (controller.log): an
``unclean`` event, ``broker`` and ``leader`` = the new leader. 4.1 (ELR) also writes it when the
last known ELR member of an emptied ISR comes back (``isr: [] -> [1]``), not only for
``kafkatui elect --unclean`` / ``kafka-leader-election.sh --election-type unclean``.

``[QuorumController id=C] Replayed PartitionRecord for new partition T-P with topic ID X and
PartitionRegistration(replicas=[1, 2, 3], ..., isr=[1, 2, 3], ..., leader=1, ..., leaderEpoch=0, ...)``
(controller.log): a ``leader`` event for the new partition's leader (``broker`` = ``leader``).

Broker lines (`parse_broker_line`, controller.log): ``[QuorumController id=C] Replayed
BrokerRegistrationChangeRecord modifying the registration for broker B:
BrokerRegistrationChangeRecord(brokerId=B, brokerEpoch=E, fenced=F, inControlledShutdown=S, ...)``:
``fenced=1`` -- broker B is fenced (session timeout, or a controlled shutdown completed); ``fenced=-1``
-- unfenced. No per-partition line says "offline" at INFO when the last ISR member of a partition is
fenced, so `parse_logs` derives it (`derive_offline`): when the leader of a partition is fenced and
no other ISR member is unfenced, the partition gets an ``offline`` event at that instant. Whatever
parses these lines elsewhere (a Spark stage reusing the regexes) must pass the time-sorted events
through `derive_offline` too.

ZooKeeper-mode lines (2.8-3.9; checked against real 3.9.1 and 2.8.2 logs, tests/history/fixtures/
real-kafka-3.9-zk/ and real-kafka-2.8/; docs/broker-logs.md lists them per version):

``[Controller id=C epoch=E] Partition T-P state changed to (Leader:-1,ISR:2,LeaderRecoveryState:RECOVERED,
LeaderEpoch:N,...) after removing replica R from the ISR as part of transition to OfflineReplica``
(state-change.log; 2.8 without LeaderRecoveryState): ``offline`` (Leader:-1) or ``leader`` (Leader:N)
with that ISR, and broker R is down (a ``fenced`` broker event). ``[Controller id=C epoch=E] Changed
partition T-P from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=N, leaderEpoch=E,
isr=List(1, 2), ...)`` (2.8; 3.x: ``isrWithBrokerEpoch=List(BrokerState(brokerId=1, ...), ...)``): a
``leader`` event. ``[Broker id=B] Received LeaderAndIsrRequest ... for partition T-P ... but cannot become
follower since the new leader -1 is unavailable.`` (ERROR): ``offline``. controller.log: ``Newly added
brokers: 2, deleted brokers: 3, ...`` (``unfenced`` / ``fenced``) and, from a controller taking over,
``Currently active brokers in the cluster: Set(1, 3)`` (``live``: a partition derived offline because its
leader was fenced is led by it again, as ZooKeeper still names it). Understood without an event: the 2.8
``Follower T-P starts at leader epoch N from offset O with high watermark H. Previous leader epoch was M.``,
``Broker failure callback for 2``, the controller's DEBUG ``ISR for partition T-P updated to ...``, a new
partition's ``state from NonExistentPartition to NewPartition``, an election that ``failed to change state``
and the 2.8 ``Skipped the become-leader state change after marking its partition as leader ...``.

Topic names may contain dots, dashes and underscores: the partition number follows the LAST dash.

Timestamps: log4j writes the broker's local time without a zone. `parse_logs` and `parse_line`
take ``tz`` (default UTC): the zone the brokers' clocks were in; ``ts_ms`` is epoch milliseconds.

Lines that mention ISR / leader epochs but do not match a known form are counted as ``unparsed``
(a few kept as examples); other lines are ``skipped``. Nothing is fatal: unreadable files and
truncated gzip files are ``problems`` and whatever was read before the damage is kept. Files are
read one line at a time; gzip is detected by its magic bytes, so rotated names
(``server.log.2026-11-20-02``, ``...gz``) need no special handling.

Size: over 600 lines because it is the one catalogue of every broker-log line form (Kafka 2.x-4.x) and
the one line loop the driver and the Spark stage share; each form is a pattern and a few lines.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Literal

Kind = Literal["shrink", "expand", "update", "leader", "offline", "unclean"]
BrokerKind = Literal["fenced", "unfenced", "live"]

MAX_EXAMPLES = 5

_HEAD = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] [A-Z]+ ")
_PARTITION = re.compile(r"\[Partition (\S+)-(\d+) broker=(\d+)\] (.*) \(kafka\.cluster\.Partition\)\s*$")
_BROKER = re.compile(r"\[Broker id=(\d+)\] (.*) \(state\.change\.logger\)\s*$")
_IDS = r"((?:\d+(?:,\d+)*)?)"
_SHRINK = re.compile(
    rf"Shrinking ISR from {_IDS} to {_IDS}\. Leader: \(highWatermark: (-?\d+), endOffset: (-?\d+)\)\. "
    r"Out of sync replicas: (.*)\.$"
)
_OOS = re.compile(r"\(brokerId: (\d+), endOffset: (-?\d+|unknown)(?:, lastCaughtUpTimeMs: (-?\d+))?\)")
_OOS_SEP = re.compile(r"[ ,]*")
_EXPAND = re.compile(rf"Expanding ISR from {_IDS} to {_IDS}$")
_UPDATE = re.compile(
    rf"ISR updated to (\[{_IDS}\]|{_IDS})( \(under-min-isr\) |  | )and (?:zkVersion|version) updated to "
    r"(?:\[(-?\d+)\]|(-?\d+))$"
)
_LEADER_OLD = re.compile(
    r"(\S+)-(\d+) starts at Leader Epoch (\d+) from offset (-?\d+)\. "
    r"Previous Leader Epoch was: (-?\d+)$"
)
_LEADER_NEW = re.compile(
    r"Leader (\S+)-(\d+)(?: with topic id \S+)? starts at leader epoch (\d+) from offset (-?\d+)"
    rf"(?: with partition epoch -?\d+)?(?:,| with) high watermark (-?\d+),? ISR \[{_IDS}\]"
)
LEADER_UNDER_MIN = re.compile(r"removing replicas \[[\d,]*\] (\(under-min-isr\))?\. Previous leader")
"""The 3.x/4.x leader line's min-ISR marker: ``[] (under-min-isr). Previous`` or ``[] . Previous``."""
_STATE = r"(?:(?:with topic id \S+ )?and partition state|with topic id \S+, partition registration)"
"""How a skipped state change names the new state: `and partition state LeaderAndIsrPartitionState(...)` up to
4.3, `, partition registration PartitionRegistration(...) and isNew=false` from 4.4."""
_LEADER_SKIPPED = re.compile(
    rf"Skipped the become-leader state change for (\S+)-(\d+) {_STATE} "
    r".* since it is already the leader with leader epoch (-?\d+)\. "
    rf"Current high watermark (-?\d+), ISR \[{_IDS}\]"
)
_LIST = r"((?:\d+(?:, ?\d+)*)?)"  # [1, 2] in Java's List.toString, [1,2] in Scala's mkString
FOLLOWER = re.compile(
    r"Follower (\S+)-(\d+) starts at leader epoch (\d+) from offset (-?\d+) with partition epoch "
    r"-?\d+ and high watermark (-?\d+)\. Current leader is (-?\d+)\."
)
"""state-change.log (3.x/4.x): the logging broker follows `leader` (-1: the partition has none)."""
_NLIST = r"(?:\d+(?:, ?\d+)*)?"
FOLLOWER_SKIPPED = re.compile(
    r"Skipped the become-follower state change for (?P<topic>\S+)-(?P<part>\d+) (?:with topic id \S+ )?and partition "
    rf"state \w+\(.*?\bleader=(?P<leader>-?\d+), leaderEpoch=(?P<epoch>-?\d+), isr=\[(?P<isr>{_NLIST})\].* "
    r"since it is already a follower"
)
"""state-change.log (3.x/4.3): a follower told of a new partition state (leader, ISR) of the same epoch."""
FOLLOWER_SKIPPED_44 = re.compile(
    r"Skipped the become-follower state change for (?P<topic>\S+)-(?P<part>\d+) with topic id \S+, partition "
    rf"registration PartitionRegistration\(.*?\bisr=\[(?P<isr>{_NLIST})\], .*?\bleader=(?P<leader>-?\d+), "
    r"leaderRecoveryState=\w+, leaderEpoch=(?P<epoch>-?\d+)\b.* since it is already a follower"
)
"""The same from 4.4, which prints the PartitionRegistration (ISR first, then leader and leader epoch)."""
CONTROLLER = re.compile(r"(?:\[QuorumController id=(\d+)\] )?(.*) \((org\.apache\.kafka\.controller\.\w+)\)\s*$")
"""controller.log: the prefix (absent for PartitionChangeBuilder), the message, the logger."""
UNCLEAN_CHANGE = re.compile(r"UNCLEAN partition change for (\S+)-(\d+) with topic ID \S+: (.*)$")
"""controller.log (3.9/4.x): the diff of a partition an unclean election gave a leader."""
DIFF_ISR = re.compile(rf"(?:^|, )isr: \[{_LIST}\] -> \[{_LIST}\]")
DIFF_LEADER = re.compile(r"(?:^|, )leader: (-?\d+) -> (-?\d+)")
PARTITION_CREATED = re.compile(
    r"Replayed PartitionRecord for new partition (\S+)-(\d+) with topic ID \S+ and PartitionRegistration\("
    rf"replicas=\[{_LIST}\], .*?\bisr=\[{_LIST}\], .*?\bleader=(-?\d+), .*?\bleaderEpoch=(-?\d+)"
)
"""controller.log (3.9/4.x): a new partition's replicas, ISR and leader."""
REGISTRATION = re.compile(
    r"Replayed BrokerRegistrationChangeRecord modifying the registration for broker (\d+): "
    r"BrokerRegistrationChangeRecord\(brokerId=\d+, brokerEpoch=-?\d+, fenced=(-?\d+), inControlledShutdown=(-?\d+)"
)
"""controller.log (3.9/4.x): fenced=1 fenced, -1 unfenced, 0 unchanged."""
ZK_STATE = re.compile(r"\[Controller id=(\d+) epoch=(\d+)\] (.*) \(state\.change\.logger\)\s*$")
"""state-change.log of a ZooKeeper-mode controller (2.x-3.9): the controller's id, epoch, message."""
ZK_PARTITION_STATE = re.compile(
    r"Partition (\S+)-(\d+) state changed to \(Leader:(-?\d+),ISR:((?:\d+(?:,\d+)*)?),"
    r"(?:LeaderRecoveryState:\w+,)?LeaderEpoch:(-?\d+),"
)
"""ZooKeeper-mode controller (2.8: no LeaderRecoveryState): a partition's new leader (-1: none) and ISR,
written when a replica leaves the ISR as part of its transition to OfflineReplica."""
ZK_CHANGED = re.compile(
    r"Changed partition (\S+)-(\d+) from \w+ to \w+ with state LeaderAndIsr\(leader=(-?\d+), "
    r"leaderEpoch=(-?\d+), (?:isr=List\(([\d, ]*)\)|isrWithBrokerEpoch=List\(((?:BrokerState\([^)]*\)(?:, )?)*)\))"
)
"""ZooKeeper-mode controller: a partition's new leader and ISR after an election (new partition,
failover, preferred election): 2.8 ``isr=List(1, 2)``, 3.x ``isrWithBrokerEpoch=List(BrokerState(brokerId=1,
brokerEpoch=-1), ...)``."""
_BROKER_ID = re.compile(r"brokerId=(\d+)")
_REMOVED = re.compile(r"\) after removing replica (\d+) from the ISR")
ZK_NO_LEADER = re.compile(
    r"Received LeaderAndIsrRequest with correlation id -?\d+ from controller \d+ epoch \d+ for partition "
    r"(\S+)-(\d+) \(last update controller epoch \d+\) but cannot become follower since the new leader -1 "
    r"is unavailable\.$"
)
"""ZooKeeper-mode broker (ERROR): told a partition it hosts has no leader."""
ZK_FOLLOWER = re.compile(
    r"Follower (\S+)-(\d+) starts at leader epoch (\d+) from offset (-?\d+) with high watermark (-?\d+)\. "
    r"Previous leader epoch was (-?\d+)\.$"
)
"""ZooKeeper-mode broker, 2.8-3.x: the logging broker follows (the leader is not named; it logs itself)."""
ZK_CONTROLLER = re.compile(r"\[Controller id=(\d+)\] (.*) \((kafka\.controller\.\w+)\)\s*$")
"""controller.log of a ZooKeeper-mode controller (a broker): its id, the message, the logger."""
ZK_BROKER_CHANGE = re.compile(
    r"Newly added brokers: ((?:\d+(?:, ?\d+)*)?), deleted brokers: ((?:\d+(?:, ?\d+)*)?), "
    r"(?:bounced brokers: ((?:\d+(?:, ?\d+)*)?), )?all live brokers: "
)
"""The controller saw brokers' ZooKeeper registrations appear (up) or go (session expired or shut down)."""
ZK_LIVE = re.compile(r"Currently active brokers in the cluster: (?:Hash)?Set\(([\d, ]*)\)$")
"""A controller taking over lists the live brokers (up); a dead former controller is simply not listed:
its partitions' "transition to OfflineReplica" lines say it is down."""
ZK_KNOWN = re.compile(
    r"Broker failure callback for (?:\d+(?:, ?\d+)*)$"
    r"|ISR for partition \S+-\d+ updated to (?:\[[\d,]*\] and zkVersion updated to \[-?\d+\]$|LeaderAndIsr\()"
)
"""controller.log lines understood, no event: the "deleted brokers" line before the callback says it;
the controller's DEBUG record of an ISR change repeats the leader's own "ISR updated to" line."""
ZK_KNOWN_STATE = re.compile(
    r"Changed partition \S+-\d+ state from \w+ to \w+ with assigned replicas [\d,]*$"
    r"|Controller \d+ epoch \d+ failed to change state for partition \S+-\d+ from \w+ to \w+$"
)
"""A ZooKeeper-mode controller's state-change lines understood, no event: a new partition's assignment
(its leader line follows), an election that found no live replica (the partition stays offline)."""
ZK_KNOWN_BROKER = re.compile(
    r"Skipped the become-leader state change after marking its partition as leader with correlation id -?\d+ "
    r"from controller \d+ epoch \d+ for partition \S+-\d+ \(last update controller epoch \d+\) since it is "
    r"already the leader for the partition\.$"
)
"""ZooKeeper-mode broker: the controller changed the ISR of a partition it leads (a replica's broker
died); the controller's "state changed to (Leader:...,ISR:...)" line says the new ISR."""
KNOWN_NO_EVENT = re.compile(
    r"Setting new leader for topicId \S+, partition \d+ to -?\d+ using an unclean election"
    r"|Fencing broker \d+ (?:at epoch -?\d+ )?because its session has timed out\.$"
)
"""controller.log lines understood but carrying no event (the UNCLEAN change / registration line follows).
A registration change with ``fenced=0`` (entering controlled shutdown) carries none either."""
_LOOKS = re.compile(
    r"ISR (?:from|updated)|Shrinking ISR|Expanding ISR|starts at leader epoch|Current leader is"
    r"|Skipped the become-|Replayed PartitionRecord for new partition|UNCLEAN partition change|unclean election|"
    r"Fencing broker"
    r"|Replayed BrokerRegistrationChangeRecord|state changed to \(Leader|cannot become follower|Newly added brokers"
    r"|with state LeaderAndIsr|Changed partition|failed to change state for partition|ISR for partition"
    r"|Broker failure callback",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class IsrLogEvent:
    """One ISR change (or leader start) a broker logged.

    ``kind``: shrink / expand / update (``ISR updated to``, or a KRaft leader told of a new ISR) /
    leader (the logging broker became leader at ``leader_epoch``). ``out_of_sync``: (broker, end
    offset or None, lastCaughtUpTimeMs or None) per replica dropped by a shrink. ``source`` is
    ``file:line``.
    """

    ts_ms: int
    broker: int
    topic: str
    partition: int
    kind: Kind
    old_isr: tuple[int, ...] | None
    new_isr: tuple[int, ...]
    under_min_isr: bool | None = None
    out_of_sync: tuple[tuple[int, int | None, int | None], ...] = ()
    high_watermark: int | None = None
    end_offset: int | None = None
    leader_epoch: int | None = None
    source: str = ""
    leader: int | None = None
    """The partition's leader when it is not ``broker``: -1 for ``offline`` (None: ``broker`` leads)."""


@dataclass(frozen=True, slots=True)
class BrokerLogEvent:
    """A broker fenced or unfenced, as the controller logged it (``source`` is ``file:line``)."""

    ts_ms: int
    broker: int
    kind: BrokerKind
    source: str = ""


@dataclass(slots=True)
class ParseReport:
    """What a parse read and what it could not use."""

    files: int = 0
    lines: int = 0
    events: int = 0
    unparsed: int = 0
    skipped: int = 0
    broker_events: int = 0
    derived: int = 0
    stale: int = 0
    problems: list[str] = field(default_factory=list)
    unparsed_examples: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for a progress bar or a log."""
        return (
            f"{self.files} files, {self.lines} lines, {self.events} ISR events "
            f"({self.derived} derived from {self.broker_events} fence/unfence lines, {self.stale} stale dropped), "
            f"{self.unparsed} unparsed, {self.skipped} skipped, {len(self.problems)} problems"
        )


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",")) if text else ()


def _ts_ms(head: re.Match[str], tz: tzinfo) -> int:
    dt = datetime.strptime(head.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=tz)
    return int(dt.timestamp()) * 1000 + int(head.group(2))


def looks_like_isr_line(line: str) -> bool:
    """True for lines that talk about ISR changes, leaders, fencing or elections in no form this
    module understands (counted as unparsed; a truncated last line is the usual case)."""
    return _LOOKS.search(line) is not None and not is_known_line(line)


def is_known_line(line: str) -> bool:
    """True for complete lines of a known form that carry no event (a follower of a live leader,
    the controller's first unclean-election line, its "Fencing broker" line)."""
    head = _HEAD.match(line)
    if head is None:
        return False
    rest = line[head.end() :]
    b = _BROKER.match(rest)
    if b is not None:
        msg = b.group(2)
        return any(
            r.match(msg) is not None
            for r in (FOLLOWER, FOLLOWER_SKIPPED, FOLLOWER_SKIPPED_44, ZK_FOLLOWER, ZK_KNOWN_BROKER)
        )
    zs = ZK_STATE.match(rest)
    if zs is not None:
        return ZK_KNOWN_STATE.match(zs.group(3)) is not None
    z = ZK_CONTROLLER.match(rest)
    if z is not None:
        return ZK_KNOWN.match(z.group(2)) is not None or ZK_BROKER_CHANGE.match(z.group(2)) is not None
    c = CONTROLLER.match(rest)
    return c is not None and (
        KNOWN_NO_EVENT.match(c.group(2)) is not None or REGISTRATION.match(c.group(2)) is not None
    )


def parse_broker_lines(line: str, source: str = "", tz: tzinfo = UTC) -> list[BrokerLogEvent]:
    """Brokers fenced / unfenced (KRaft controller.log), or whose ZooKeeper registration went / came
    (a ZooKeeper-mode controller's "deleted brokers" / "Newly added brokers": ``fenced`` / ``unfenced``,
    as for KRaft a broker out of / back in the cluster)."""
    head = _HEAD.match(line)
    if head is None:
        return []
    zs = ZK_STATE.match(line, head.end())
    if zs is not None:  # "... after removing replica N from the ISR as part of transition to OfflineReplica"
        gone = _REMOVED.search(zs.group(3))
        if gone is None or not zs.group(3).endswith("transition to OfflineReplica"):
            return []
        return [BrokerLogEvent(_ts_ms(head, tz), int(gone.group(1)), "fenced", source)]
    z = ZK_CONTROLLER.match(line, head.end())
    if z is not None:
        ts = _ts_ms(head, tz)
        if (live := ZK_LIVE.match(z.group(2))) is not None:
            return [BrokerLogEvent(ts, b, "live", source) for b in _list(live.group(1))]
        ch = ZK_BROKER_CHANGE.match(z.group(2))
        if ch is None:
            return []
        return [BrokerLogEvent(ts, b, "fenced", source) for b in _list(ch.group(2))] + [
            BrokerLogEvent(ts, b, "unfenced", source) for b in _list(ch.group(1))
        ]
    c = CONTROLLER.match(line, head.end())
    if c is None:
        return []
    r = REGISTRATION.match(c.group(2))
    if r is None or r.group(2) == "0":
        return []
    return [BrokerLogEvent(_ts_ms(head, tz), int(r.group(1)), "fenced" if r.group(2) == "1" else "unfenced", source)]


def parse_broker_line(line: str, source: str = "", tz: tzinfo = UTC) -> BrokerLogEvent | None:
    """The first broker event of `parse_broker_lines`, or None."""
    found = parse_broker_lines(line, source, tz)
    return found[0] if found else None


def parse_line(line: str, source: str = "", tz: tzinfo = UTC) -> IsrLogEvent | None:
    """The event one log line records, or None when it records none (or in an unknown form)."""
    head = _HEAD.match(line)
    if head is None:
        return None
    rest = line[head.end() :]
    m = _PARTITION.match(rest)
    if m is not None:
        return _partition_event(_ts_ms(head, tz), m, source)
    b = _BROKER.match(rest)
    if b is not None:
        lm = _LEADER_NEW.match(b.group(2))
        if lm is None:
            if (f := FOLLOWER.match(b.group(2))) is not None:
                if int(f.group(6)) >= 0:
                    return None  # the live leader logs the change itself
                return IsrLogEvent(
                    _ts_ms(head, tz),
                    int(b.group(1)),
                    f.group(1),
                    int(f.group(2)),
                    "offline",
                    None,
                    (),
                    high_watermark=int(f.group(5)),
                    end_offset=int(f.group(4)),
                    leader_epoch=int(f.group(3)),
                    source=source,
                    leader=-1,
                )
            fs = FOLLOWER_SKIPPED.match(b.group(2)) or FOLLOWER_SKIPPED_44.match(b.group(2))
            if fs is not None:
                if int(fs.group("leader")) >= 0:
                    return None
                return IsrLogEvent(
                    _ts_ms(head, tz),
                    int(b.group(1)),
                    fs.group("topic"),
                    int(fs.group("part")),
                    "offline",
                    None,
                    _list(fs.group("isr")),
                    leader_epoch=int(fs.group("epoch")),
                    source=source,
                    leader=-1,
                )
            if (nl := ZK_NO_LEADER.match(b.group(2))) is not None:
                return IsrLogEvent(
                    _ts_ms(head, tz),
                    int(b.group(1)),
                    nl.group(1),
                    int(nl.group(2)),
                    "offline",
                    None,
                    (),
                    source=source,
                    leader=-1,
                )
            sk = _LEADER_SKIPPED.match(b.group(2))
            if sk is None:
                return None
            return IsrLogEvent(
                _ts_ms(head, tz),
                int(b.group(1)),
                sk.group(1),
                int(sk.group(2)),
                "update",
                None,
                _ids(sk.group(5)),
                high_watermark=int(sk.group(4)),
                leader_epoch=int(sk.group(3)),
                source=source,
            )
        mark = LEADER_UNDER_MIN.search(b.group(2), lm.end())
        return IsrLogEvent(
            _ts_ms(head, tz),
            int(b.group(1)),
            lm.group(1),
            int(lm.group(2)),
            "leader",
            None,
            _ids(lm.group(6)),
            under_min_isr=None if mark is None else mark.group(1) is not None,
            high_watermark=int(lm.group(5)),
            end_offset=int(lm.group(4)),
            leader_epoch=int(lm.group(3)),
            source=source,
        )
    z = ZK_STATE.match(rest)
    if z is not None:
        zp = ZK_PARTITION_STATE.match(z.group(3))
        if zp is None:
            return _zk_changed(_ts_ms(head, tz), int(z.group(1)), z.group(3), source)
        lead = int(zp.group(3))
        removed = _REMOVED.search(z.group(3), zp.end())
        return IsrLogEvent(
            _ts_ms(head, tz),
            lead if lead >= 0 else int(removed.group(1)) if removed else int(z.group(1)),
            zp.group(1),
            int(zp.group(2)),
            "offline" if lead < 0 else "leader",
            None,
            _ids(zp.group(4)),
            leader_epoch=int(zp.group(5)),
            source=source,
            leader=lead,
        )
    c = CONTROLLER.match(rest)
    if c is not None and (pc := PARTITION_CREATED.match(c.group(2))) is not None:
        lead = int(pc.group(5))
        return IsrLogEvent(
            _ts_ms(head, tz),
            lead if lead >= 0 else -1,
            pc.group(1),
            int(pc.group(2)),
            "leader",
            None,
            _list(pc.group(4)),
            leader_epoch=int(pc.group(6)),
            source=source,
            leader=lead,
        )
    if c is not None and (u := UNCLEAN_CHANGE.match(c.group(2))) is not None:
        diff = u.group(3)
        ld, isr = DIFF_LEADER.search(diff), DIFF_ISR.search(diff)
        if ld is None or int(ld.group(2)) < 0:
            return None
        new_leader = int(ld.group(2))
        return IsrLogEvent(
            _ts_ms(head, tz),
            new_leader,
            u.group(1),
            int(u.group(2)),
            "unclean",
            _list(isr.group(1)) if isr else None,
            _list(isr.group(2)) if isr else (new_leader,),
            source=source,
            leader=new_leader,
        )
    return None


def _zk_changed(ts: int, controller: int, msg: str, source: str) -> IsrLogEvent | None:
    """A ZooKeeper-mode controller's "Changed partition ... with state LeaderAndIsr(...)" line, or None."""
    ch = ZK_CHANGED.match(msg)
    if ch is None:
        return None
    lead = int(ch.group(3))
    isr = _list(ch.group(5)) if ch.group(5) is not None else tuple(int(x) for x in _BROKER_ID.findall(ch.group(6)))
    return IsrLogEvent(
        ts,
        lead if lead >= 0 else (isr[0] if isr else controller),
        ch.group(1),
        int(ch.group(2)),
        "offline" if lead < 0 else "leader",
        None,
        isr,
        leader_epoch=int(ch.group(4)),
        source=source,
        leader=lead,
    )


def _list(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.replace(" ", "").split(",")) if text.strip() else ()


def _partition_event(ts: int, m: re.Match[str], source: str) -> IsrLogEvent | None:
    topic, part, broker, msg = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    if (u := _UPDATE.match(msg)) is not None:
        isr = _ids(u.group(2) if u.group(1).startswith("[") else u.group(3))
        sep = u.group(4)
        under = True if "under-min-isr" in sep else (False if sep == "  " else None)
        return IsrLogEvent(ts, broker, topic, part, "update", None, isr, under_min_isr=under, source=source)
    if (s := _SHRINK.match(msg)) is not None:
        oos = _out_of_sync(s.group(5))
        if oos is None:
            return None
        return IsrLogEvent(
            ts,
            broker,
            topic,
            part,
            "shrink",
            _ids(s.group(1)),
            _ids(s.group(2)),
            out_of_sync=oos,
            high_watermark=int(s.group(3)),
            end_offset=int(s.group(4)),
            source=source,
        )
    if (e := _EXPAND.match(msg)) is not None:
        return IsrLogEvent(ts, broker, topic, part, "expand", _ids(e.group(1)), _ids(e.group(2)), source=source)
    if (lo := _LEADER_OLD.match(msg)) is not None and lo.group(1) == topic and int(lo.group(2)) == part:
        return IsrLogEvent(
            ts,
            broker,
            topic,
            part,
            "leader",
            None,
            (),
            end_offset=int(lo.group(4)),
            leader_epoch=int(lo.group(3)),
            source=source,
        )
    return None


def _out_of_sync(text: str) -> tuple[tuple[int, int | None, int | None], ...] | None:
    out: list[tuple[int, int | None, int | None]] = []
    pos = 0
    while pos < len(text):
        m = _OOS.match(text, pos)
        if m is None:
            return None
        end = None if m.group(2) == "unknown" else int(m.group(2))
        out.append((int(m.group(1)), end, int(m.group(3)) if m.group(3) is not None else None))
        pos = _OOS_SEP.match(text, m.end()).end()  # type: ignore[union-attr]  # "[ ,]*" always matches
    return tuple(out) if out else None


def _has_magic(text: str) -> bool:
    return any(c in text for c in "*?[")


def expand_paths(patterns: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files the glob patterns (or plain paths) name, sorted and without duplicates."""
    items = [patterns] if isinstance(patterns, (str, os.PathLike)) else list(patterns)
    found: set[Path] = set()
    for item in items:
        text = os.fspath(item)
        matches = glob.glob(text) if _has_magic(text) else [text]
        found.update(Path(p) for p in matches)
    return sorted(found)


def _lines_of(raw: io.BufferedIOBase) -> Iterator[str]:
    """Text lines of a plain or gzip stream, one at a time (gzip by magic bytes)."""
    gz = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream: io.BufferedIOBase = gzip.GzipFile(fileobj=raw) if gz else raw
    for b in stream:
        yield b.decode("utf-8", errors="replace")


def _open_lines(path: Path) -> Iterator[str]:
    """Text lines of a plain or gzip file, one at a time (gzip by magic bytes)."""
    with open(path, "rb") as raw:
        yield from _lines_of(raw)


def _iter_lines(
    lines: Iterator[str], name: str, report: ParseReport, tz: tzinfo
) -> Iterator[tuple[int, IsrLogEvent | BrokerLogEvent]]:
    """(line number, partition or broker event) of one file's lines, in file order: the one line loop
    every reader shares. Counts go to `report`; damage is a problem, never raised."""
    report.files += 1
    n = 0
    try:
        for n, line in enumerate(lines, 1):  # noqa: B007  # n is read after the loop
            report.lines += 1
            src = f"{name}:{n}"
            ev = parse_line(line, src, tz)
            if ev is not None:
                report.events += 1
                yield n, ev
                for be in parse_broker_lines(line, src, tz) if ev.kind in ("offline", "leader") else ():
                    report.broker_events += 1  # a ZooKeeper controller's OfflineReplica line: the broker is down
                    yield n, be
            elif bes := parse_broker_lines(line, src, tz):
                for be in bes:
                    report.broker_events += 1
                    yield n, be
            elif looks_like_isr_line(line):
                report.unparsed += 1
                if len(report.unparsed_examples) < MAX_EXAMPLES:
                    report.unparsed_examples.append(f"{src}: {line.strip()[:300]}")
            else:
                report.skipped += 1
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        report.problems.append(f"{name}: damaged or truncated gzip after line {n} ({exc}); kept what was read")
    except OSError as exc:
        report.problems.append(f"{name}: cannot read ({exc.strerror or exc})")


def iter_file(path: Path, report: ParseReport, tz: tzinfo = UTC) -> Iterator[IsrLogEvent]:
    """Events of one file in file order; counts go to `report`; damage is a problem, never raised.

    Broker (fence / unfence) lines are counted but not yielded: see `iter_file_all`."""
    for ev in iter_file_all(path, report, tz):
        if isinstance(ev, IsrLogEvent):
            yield ev


def iter_file_all(path: Path, report: ParseReport, tz: tzinfo = UTC) -> Iterator[IsrLogEvent | BrokerLogEvent]:
    """Partition and broker events of one file in file order (see `iter_file`)."""
    for _, ev in _iter_lines(_open_lines(path), str(path), report, tz):
        yield ev


def iter_bytes(
    data: bytes, name: str, report: ParseReport, tz: tzinfo = UTC
) -> Iterator[tuple[int, IsrLogEvent | BrokerLogEvent]]:
    """(line number, partition or broker event) of one file's content (plain or gzip), as
    `iter_file_all` reads a file.

    The replay job's Spark stage calls this on executors with each log file's bytes, so every line
    form defined here reaches the job unchanged.
    """
    yield from _iter_lines(_lines_of(io.BytesIO(data)), name, report, tz)


def derive_offline(
    events: list[IsrLogEvent], brokers: list[BrokerLogEvent], report: ParseReport | None = None
) -> list[IsrLogEvent]:
    """The ``offline`` events the fence lines imply, with ISRs filled in, merged into `events`.

    Both lists sorted by time. Walks them together keeping each partition's leader and ISR (as the
    events say) and the fenced brokers: when the leader of a partition is fenced and no other member
    of its ISR is unfenced, the partition has no leader from that instant (an ``offline`` event,
    ISR unchanged: 3.9 keeps the last member, 4.1 with ELR empties the ISR; neither is logged). An
    ``offline`` event parsed without an ISR (a "Current leader is -1" line) gets the ISR known then.
    A partition fenced leaders still lead later gets its next leader line or unclean change, or, on
    ZooKeeper mode, its leader back when a new controller lists that broker live (``live``).
    Shrink / expand lines of a broker the events say is not the partition's leader are dropped: a
    leader paused (SIGSTOP, a long GC) proposes a shrink on waking before it learns it was replaced;
    the controller rejects it and the state never existed.
    """
    leader: dict[tuple[str, int], int] = {}
    isr: dict[tuple[str, int], tuple[int, ...]] = {}
    fenced: set[int] = set()
    derived: dict[tuple[str, int], int] = {}  # partitions offline only because this broker was fenced
    out: list[IsrLogEvent] = []
    bi = 0
    for ev in [*events, None]:
        while bi < len(brokers) and (ev is None or brokers[bi].ts_ms <= ev.ts_ms):
            be = brokers[bi]
            bi += 1
            if be.kind != "fenced":
                fenced.discard(be.broker)
                for key in [k for k, b in sorted(derived.items()) if b == be.broker and be.kind == "live"]:
                    del derived[key]  # a new ZooKeeper-mode controller found it registered and still leader
                    leader[key] = be.broker
                    out.append(
                        IsrLogEvent(
                            be.ts_ms, be.broker, key[0], key[1], "leader", None, isr.get(key, ()), source=be.source
                        )
                    )
                    if report is not None:
                        report.derived += 1
                        report.events += 1
                continue
            fenced.add(be.broker)
            for key, lead in sorted(leader.items()):
                members = isr.get(key, ())
                if lead == be.broker and not [b for b in members if b != lead and b not in fenced]:
                    leader[key] = -1
                    derived[key] = be.broker
                    out.append(
                        IsrLogEvent(
                            be.ts_ms, be.broker, key[0], key[1], "offline", None, members, source=be.source, leader=-1
                        )
                    )
                    if report is not None:
                        report.derived += 1
                        report.events += 1
        if ev is None:
            break
        key = (ev.topic, ev.partition)
        if ev.kind in ("shrink", "expand") and leader.get(key, ev.broker) != ev.broker:
            if report is not None:  # a stale proposal of a former leader (see above)
                report.stale += 1
                report.events -= 1
            continue
        derived.pop(key, None)
        if ev.kind == "offline" and not ev.new_isr and key in isr:
            ev = replace(ev, new_isr=isr[key])
        leader[key] = ev.leader if ev.leader is not None else ev.broker
        if ev.new_isr or ev.kind != "leader":
            isr[key] = ev.new_isr
        out.append(ev)
    return out


def parse_logs(
    patterns: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], tz: tzinfo = UTC
) -> tuple[list[IsrLogEvent], ParseReport]:
    """Every ISR event in the files the glob patterns name, sorted by time (file order among equals),
    with the ``offline`` events fence lines imply (`derive_offline`).

    ``tz``: the zone the brokers logged in (log4j timestamps carry none). A pattern that matches
    nothing is a problem.
    """
    report = ParseReport()
    events: list[IsrLogEvent] = []
    brokers: list[BrokerLogEvent] = []
    items = [patterns] if isinstance(patterns, (str, os.PathLike)) else list(patterns)
    for item in items:
        text = os.fspath(item)
        if _has_magic(text) and not glob.glob(text):
            report.problems.append(f"{text}: no file matches")
    for path in expand_paths(items):
        for ev in iter_file_all(path, report, tz):
            (events if isinstance(ev, IsrLogEvent) else brokers).append(ev)  # type: ignore[arg-type]
    events.sort(key=lambda e: e.ts_ms)
    brokers.sort(key=lambda e: e.ts_ms)
    merged = derive_offline(events, brokers, report)
    return merged, report
