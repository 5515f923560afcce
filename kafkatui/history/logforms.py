"""The line forms of Kafka broker logs (2.x-4.x) that kafkatui reads: one pattern per form.

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
"""

from __future__ import annotations

import re

HEAD = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] [A-Z]+ ")
PARTITION = re.compile(r"\[Partition (\S+)-(\d+) broker=(\d+)\] (.*) \(kafka\.cluster\.Partition\)\s*$")
BROKER = re.compile(r"\[Broker id=(\d+)\] (.*) \(state\.change\.logger\)\s*$")
IDS = r"((?:\d+(?:,\d+)*)?)"
SHRINK = re.compile(
    rf"Shrinking ISR from {IDS} to {IDS}\. Leader: \(highWatermark: (-?\d+), endOffset: (-?\d+)\)\. "
    r"Out of sync replicas: (.*)\.$"
)
OOS = re.compile(r"\(brokerId: (\d+), endOffset: (-?\d+|unknown)(?:, lastCaughtUpTimeMs: (-?\d+))?\)")
OOS_SEP = re.compile(r"[ ,]*")
EXPAND = re.compile(rf"Expanding ISR from {IDS} to {IDS}$")
UPDATE = re.compile(
    rf"ISR updated to (\[{IDS}\]|{IDS})( \(under-min-isr\) |  | )and (?:zkVersion|version) updated to "
    r"(?:\[(-?\d+)\]|(-?\d+))$"
)
LEADER_OLD = re.compile(
    r"(\S+)-(\d+) starts at Leader Epoch (\d+) from offset (-?\d+)\. "
    r"Previous Leader Epoch was: (-?\d+)$"
)
LEADER_NEW = re.compile(
    r"Leader (\S+)-(\d+)(?: with topic id \S+)? starts at leader epoch (\d+) from offset (-?\d+)"
    rf"(?: with partition epoch -?\d+)?(?:,| with) high watermark (-?\d+),? ISR \[{IDS}\]"
)
LEADER_UNDER_MIN = re.compile(r"removing replicas \[[\d,]*\] (\(under-min-isr\))?\. Previous leader")
"""The 3.x/4.x leader line's min-ISR marker: ``[] (under-min-isr). Previous`` or ``[] . Previous``."""
STATE = r"(?:(?:with topic id \S+ )?and partition state|with topic id \S+, partition registration)"
"""How a skipped state change names the new state: `and partition state LeaderAndIsrPartitionState(...)` up to
4.3, `, partition registration PartitionRegistration(...) and isNew=false` from 4.4."""
LEADER_SKIPPED = re.compile(
    rf"Skipped the become-leader state change for (\S+)-(\d+) {STATE} "
    r".* since it is already the leader with leader epoch (-?\d+)\. "
    rf"Current high watermark (-?\d+), ISR \[{IDS}\]"
)
LIST = r"((?:\d+(?:, ?\d+)*)?)"  # [1, 2] in Java's List.toString, [1,2] in Scala's mkString
FOLLOWER = re.compile(
    r"Follower (\S+)-(\d+) starts at leader epoch (\d+) from offset (-?\d+) with partition epoch "
    r"-?\d+ and high watermark (-?\d+)\. Current leader is (-?\d+)\."
)
"""state-change.log (3.x/4.x): the logging broker follows `leader` (-1: the partition has none)."""
NLIST = r"(?:\d+(?:, ?\d+)*)?"
FOLLOWER_SKIPPED = re.compile(
    r"Skipped the become-follower state change for (?P<topic>\S+)-(?P<part>\d+) (?:with topic id \S+ )?and partition "
    rf"state \w+\(.*?\bleader=(?P<leader>-?\d+), leaderEpoch=(?P<epoch>-?\d+), isr=\[(?P<isr>{NLIST})\].* "
    r"since it is already a follower"
)
"""state-change.log (3.x/4.3): a follower told of a new partition state (leader, ISR) of the same epoch."""
FOLLOWER_SKIPPED_44 = re.compile(
    r"Skipped the become-follower state change for (?P<topic>\S+)-(?P<part>\d+) with topic id \S+, partition "
    rf"registration PartitionRegistration\(.*?\bisr=\[(?P<isr>{NLIST})\], .*?\bleader=(?P<leader>-?\d+), "
    r"leaderRecoveryState=\w+, leaderEpoch=(?P<epoch>-?\d+)\b.* since it is already a follower"
)
"""The same from 4.4, which prints the PartitionRegistration (ISR first, then leader and leader epoch)."""
CONTROLLER = re.compile(r"(?:\[QuorumController id=(\d+)\] )?(.*) \((org\.apache\.kafka\.controller\.\w+)\)\s*$")
"""controller.log: the prefix (absent for PartitionChangeBuilder), the message, the logger."""
UNCLEAN_CHANGE = re.compile(r"UNCLEAN partition change for (\S+)-(\d+) with topic ID \S+: (.*)$")
"""controller.log (3.9/4.x): the diff of a partition an unclean election gave a leader."""
DIFF_ISR = re.compile(rf"(?:^|, )isr: \[{LIST}\] -> \[{LIST}\]")
DIFF_LEADER = re.compile(r"(?:^|, )leader: (-?\d+) -> (-?\d+)")
PARTITION_CREATED = re.compile(
    r"Replayed PartitionRecord for new partition (\S+)-(\d+) with topic ID \S+ and PartitionRegistration\("
    rf"replicas=\[{LIST}\], .*?\bisr=\[{LIST}\], .*?\bleader=(-?\d+), .*?\bleaderEpoch=(-?\d+)"
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
BROKER_ID = re.compile(r"brokerId=(\d+)")
REMOVED = re.compile(r"\) after removing replica (\d+) from the ISR")
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
    r"|Failed to update ISR for partition \S+-\d+$"
)
"""controller.log lines understood, no event: the "deleted brokers" line before the callback says it;
the controller's DEBUG record of an ISR change repeats the leader's own "ISR updated to" line; an ISR
update it could not write (seen on 3.9 from a controller resumed after a pause: it had lost its
ZooKeeper session, and the next controller logs the state that holds)."""
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
LOOKS = re.compile(
    r"ISR (?:from|updated)|Shrinking ISR|Expanding ISR|starts at leader epoch|Current leader is"
    r"|Skipped the become-|Replayed PartitionRecord for new partition|UNCLEAN partition change|unclean election|"
    r"Fencing broker"
    r"|Replayed BrokerRegistrationChangeRecord|state changed to \(Leader|cannot become follower|Newly added brokers"
    r"|with state LeaderAndIsr|Changed partition|failed to change state for partition|ISR for partition"
    r"|Broker failure callback",
    re.IGNORECASE,
)
