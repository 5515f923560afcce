"""The rules that depend on the brokers' Kafka version, and the health class rule: one home for both.

Kafka's version range and mode come from what the brokers advertise (`version_from_api_versions`):
which APIs exist and their version ranges tell release lines apart. The markers hold in both
ZooKeeper and KRaft mode (a marker a ZooKeeper-mode broker does not advertise, such as API 75
DescribeTopicPartitions, is not used); they were read from Apache Kafka's message schemas at each
release tag (``clients/src/main/resources/common/message/*Request.json``) and agree with the broker
answers kafka-python keeps (``kafka.protocol.broker_version_data``). A ZooKeeper-mode broker is told
by API 4 LeaderAndIsr, which only ZooKeeper-mode brokers serve.

The version rule that matters for replication health:

- **effective min ISR**: since 3.7 a partition's leader uses ``min(min.insync.replicas, RF)`` for
  acks=all and for advancing the high watermark (KAFKA-15583, apache/kafka PR #14594); before 3.7
  the configured value, so a topic with min.insync.replicas above its RF takes no acks=all write.
- When the version is unknown (no broker answered ApiVersions, an old recording, a snapshot built
  by hand) the raw rule is assumed: it never hides blocked writes, and it is what kafkatui always
  did. A cluster in the middle of an upgrade (brokers of several lines) gets the capped rule only
  when every broker is 3.7 or newer. `KafkaVersion.rule_note` says which rule was used and why.

The class rule (`CLASS_RULES`): an ordered table of conditions over a partition's leader,
replicas, ISR, effective min ISR and whether its leader is live; the first that holds gives the
class. `classify` evaluates it in Python (`kafkatui.model.health.assess` per distinct state, the
history recorder per partition); the Spark replay job builds its ``F.when`` chain from the same
table (`kafkatui.history.replay.job`). No Kafka client and no I/O here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

Line = tuple[int, int]
"""A Kafka release line, (major, minor)."""

CAP_SINCE: Line = (3, 7)
"""The first line whose brokers cap min.insync.replicas at the replica count (KAFKA-15583)."""

KRAFT = "kraft"
ZOOKEEPER = "zookeeper"

LEADER_AND_ISR = 4  # served by ZooKeeper-mode brokers only (listeners: zkBroker)

# (first line, [(api key, lowest max version)...] any of which marks that line), oldest first; each
# marker holds for every later line too. 3.4 has no client-visible marker (one range with 3.3).
MARKERS: tuple[tuple[Line, tuple[tuple[int, int], ...]], ...] = (
    ((2, 8), ((0, 9),)),  # Produce v9
    ((3, 0), ((2, 7),)),  # ListOffsets v7
    ((3, 1), ((1, 13),)),  # Fetch v13 (topic ids)
    ((3, 2), ((11, 9),)),  # JoinGroup v9
    ((3, 3), ((29, 3),)),  # DescribeAcls v3
    ((3, 5), ((1, 15),)),  # Fetch v15
    ((3, 6), ((24, 4),)),  # AddPartitionsToTxn v4
    ((3, 7), ((60, 1), (1, 16))),  # DescribeCluster v1 (KIP-919), Fetch v16 (KIP-951)
    ((3, 8), ((0, 11),)),  # Produce v11
    ((3, 9), ((1, 17),)),  # Fetch v17
    ((4, 0), ((2, 10),)),  # ListOffsets v10
    ((4, 1), ((0, 13),)),  # Produce v13
    ((4, 2), ((2, 11),)),  # ListOffsets v11
    ((4, 3), ((35, 5),)),  # DescribeLogDirs v5
    ((4, 4), ((42, 3), (28, 6))),  # DeleteGroups v3, TxnOffsetCommit v6
)
NEWEST_MARKED: Line = MARKERS[-1][0]

# the lines of each major release, to name a range's upper end ("3.5-3.6")
_LINES: tuple[Line, ...] = (
    (2, 8),
    (3, 0),
    (3, 1),
    (3, 2),
    (3, 3),
    (3, 4),
    (3, 5),
    (3, 6),
    (3, 7),
    (3, 8),
    (3, 9),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (4, 4),
)


def _line(v: Line) -> str:
    return f"{v[0]}.{v[1]}"


@dataclass(frozen=True, slots=True)
class KafkaVersion:
    """The brokers' Kafka release range and mode, as far as their answers tell.

    `low`/`high`: the oldest and newest line the brokers can be (None: unknown; `high` None with a
    `low` means "this line or newer"). `mode`: `KRAFT`, `ZOOKEEPER` or None. `brokers`: how many
    brokers' answers it rests on.
    """

    low: Line | None = None
    high: Line | None = None
    mode: str | None = None
    brokers: int = 0

    @property
    def known(self) -> bool:
        return self.low is not None or self.high is not None

    @property
    def label(self) -> str:
        """``3.9``, ``3.5-3.6``, ``4.4+``, ``2.8 or older``, ``unknown``."""
        lo, hi = self.low, self.high
        if lo is None and hi is None:
            return "unknown"
        if lo is None:
            assert hi is not None
            return f"{_line(hi)} or older"
        if hi is None:
            return f"{_line(lo)}+"
        return _line(lo) if lo == hi else f"{_line(lo)}-{_line(hi)}"

    @property
    def mode_label(self) -> str:
        return mode_words(self.mode)

    @property
    def caps_min_isr(self) -> bool | None:
        """True when every broker caps min ISR at RF (3.7+), False when none does, None when unknown
        or mixed."""
        if self.low is not None and self.low >= CAP_SINCE:
            return True
        if self.high is not None and self.high < CAP_SINCE:
            return False
        return None

    @property
    def capped(self) -> bool:
        """The rule kafkatui applies: the capped effective min ISR only when known to be 3.7+."""
        return self.caps_min_isr is True

    @property
    def rule_note(self) -> str:
        """One line: which min ISR rule is applied and why."""
        caps = self.caps_min_isr
        if caps:
            return "effective minISR = min(min.insync.replicas, RF): brokers 3.7+ cap it"
        if caps is False:
            return "effective minISR = min.insync.replicas: brokers before 3.7 do not cap it"
        why = "version unknown" if not self.known else f"version {self.label} straddles 3.7"
        return f"effective minISR = min.insync.replicas ({why}: the pre-3.7 rule is assumed)"

    def describe(self) -> str:
        """``Kafka 3.7-3.9 (KRaft)``."""
        return f"Kafka {self.label} ({self.mode_label})"

    def as_json(self) -> dict[str, object]:
        return {
            "range": self.label,
            "low": _line(self.low) if self.low else None,
            "high": _line(self.high) if self.high else None,
            "caps_min_isr": self.caps_min_isr,
            "brokers": self.brokers,
        }


UNKNOWN = KafkaVersion()


def version_from_api_versions(api_versions: Mapping[int, tuple[int, int]]) -> KafkaVersion:
    """One broker's line range and mode from its ApiVersions answer ({api key: (min, max)}).

    The newest line whose marker holds is the low end (as kafka-python infers it: an API a broker
    or the simulator does not serve at all does not pull the answer down); the line before the next
    newer marker is the high end.
    """
    mode = _mode(api_versions)
    for i in range(len(MARKERS) - 1, -1, -1):
        line, marks = MARKERS[i]
        if any(key in api_versions and api_versions[key][1] >= at for key, at in marks):
            if i == len(MARKERS) - 1:
                return KafkaVersion(line, None, mode, 1)
            nxt = MARKERS[i + 1][0]
            return KafkaVersion(line, [v for v in _LINES if v < nxt][-1], mode, 1)
    if not api_versions:
        return KafkaVersion(mode=None)
    return KafkaVersion(None, (2, 7), mode, 1)


def _mode(api_versions: Mapping[int, tuple[int, int]]) -> str | None:
    if not api_versions:
        return None
    return ZOOKEEPER if LEADER_AND_ISR in api_versions else KRAFT


def combine(versions: Iterable[KafkaVersion], mode: str | None = None) -> KafkaVersion:
    """The range covering several brokers' versions (a rolling upgrade gives a wide range); `mode`
    (from the brokers' configs) fills in when no answer told it."""
    vs = [v for v in versions if v.known]
    if not vs:
        return KafkaVersion(mode=mode)
    lows = [v.low for v in vs]
    highs = [v.high for v in vs]
    low = None if any(x is None for x in lows) else min(x for x in lows if x is not None)
    high = None if any(x is None for x in highs) else max(x for x in highs if x is not None)
    modes = {v.mode for v in vs if v.mode}
    found = modes.pop() if len(modes) == 1 else (mode if not modes else "mixed")
    return KafkaVersion(low, high, found, len(vs))


def mode_words(mode: str | None) -> str:
    """``KRaft``, ``ZooKeeper``, ``ZooKeeper and KRaft brokers`` or ``mode unknown``."""
    return {KRAFT: "KRaft", ZOOKEEPER: "ZooKeeper", "mixed": "ZooKeeper and KRaft brokers"}.get(
        mode or "", "mode unknown"
    )


def mode_from_roles(roles: Iterable[str | None]) -> str | None:
    """KRaft when a broker's ``process.roles`` is set, ZooKeeper when every answer had it empty."""
    seen = list(roles)
    if not seen:
        return None
    return KRAFT if any(seen) else ZOOKEEPER


# -- the version rules ------------------------------------------------------------------------------


def effective_min_isr(min_isr: int, replicas: int, capped: bool) -> int:
    """The min ISR a partition's leader enforces: capped at the replica count on 3.7+ brokers."""
    if capped and replicas > 0:
        return min(min_isr, replicas)
    return min_isr


def writes_blocked(min_isr: int, replicas: int, capped: bool) -> bool:
    """No acks=all write can ever succeed: min.insync.replicas above RF on a broker that does not cap it."""
    return not capped and replicas > 0 and min_isr > replicas


# -- the class rule ---------------------------------------------------------------------------------


class Term(Enum):
    """A fact of one partition the class rule reads."""

    N_ISR = "n_isr"  # ISR size
    MIN_ISR = "min_isr"  # effective min ISR (None: unknown)
    N_REPLICAS = "n_replicas"  # replica count (None: unknown)
    LEADER = "leader"
    PREFERRED = "preferred"  # the first replica (None: replicas unknown or empty)
    LEADERLESS = "leaderless"  # no leader, or a leader not among the live brokers (bool)


@dataclass(frozen=True, slots=True)
class Cond:
    """``left op right`` over two terms, or a boolean term alone (`op` "is"); false when a term is None."""

    left: Term
    op: str  # "<", "==", "!=", "is"
    right: Term | None = None


@dataclass(frozen=True, slots=True)
class ClassRule:
    """One row of the class table: the class `name` applies when `when` holds (None: always)."""

    name: str  # a kafkatui.model.health.Health name
    when: Cond | None


CLASS_RULES: tuple[ClassRule, ...] = (
    ClassRule("OFFLINE", Cond(Term.LEADERLESS, "is")),
    ClassRule("UNDER_MIN_ISR", Cond(Term.N_ISR, "<", Term.MIN_ISR)),
    ClassRule("AT_MIN_ISR", Cond(Term.N_ISR, "==", Term.MIN_ISR)),
    ClassRule("UNDER_REPLICATED", Cond(Term.N_ISR, "<", Term.N_REPLICAS)),
    ClassRule("NON_PREFERRED_LEADER", Cond(Term.LEADER, "!=", Term.PREFERRED)),
    ClassRule("HEALTHY", None),
)
"""The health classes, worst first; the first rule that holds gives a partition's class."""

CLASS_NAMES: tuple[str, ...] = tuple(r.name for r in CLASS_RULES)

_OPS: dict[str, Callable[[object, object], bool]] = {
    "<": lambda a, b: a < b,  # type: ignore[operator]
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _holds(c: Cond, facts: Mapping[Term, object]) -> bool:
    a = facts[c.left]
    if c.op == "is":
        return bool(a)
    assert c.right is not None
    b = facts[c.right]
    if a is None or b is None:
        return False
    return _OPS[c.op](a, b)


def class_index(
    leader: int,
    replicas: tuple[int, ...] | None,
    n_isr: int,
    min_isr: int | None,
    leaderless: bool,
) -> int:
    """The index in `CLASS_RULES` (= the `Health` value) of a partition with these facts.

    `leaderless`: no leader, or a leader that is not a live broker. `min_isr`: the effective min ISR
    (`effective_min_isr`), None when unknown; `replicas` None when unknown.
    """
    facts: dict[Term, object] = {
        Term.N_ISR: n_isr,
        Term.MIN_ISR: min_isr,
        Term.N_REPLICAS: len(replicas) if replicas is not None else None,
        Term.LEADER: leader,
        Term.PREFERRED: replicas[0] if replicas else None,
        Term.LEADERLESS: leaderless,
    }
    for i, rule in enumerate(CLASS_RULES):
        if rule.when is None or _holds(rule.when, facts):
            return i
    raise AssertionError("the last class rule always holds")


def classify(
    leader: int,
    replicas: tuple[int, ...],
    isr: tuple[int, ...],
    min_isr: int,
    live: frozenset[int],
    capped: bool = False,
) -> str:
    """A partition's class name from its state, its configured min ISR and the live brokers (an empty
    `live` set: liveness unknown, only leader -1 is leaderless); `capped`: the 3.7+ rule."""
    leaderless = leader < 0 or bool(live and leader not in live)
    eff = effective_min_isr(min_isr, len(replicas), capped)
    return CLASS_NAMES[class_index(leader, replicas, len(isr), eff, leaderless)]
