"""A rolling restart plan: the order of the brokers, what each step waits for, what would block it today.

Order: one rack at a time where the brokers have racks (racks in name order), brokers by id within a
rack; the controller's broker (ZooKeeper mode, or a combined KRaft node leading the quorum) last of all,
its rack last, so the controller moves once. Each step runs the restart gate
(`kafkatui check --wait-restart-safe N`) before its restart; a last gate waits until the cluster could
lose a broker again.

Blockers, from the gate run against every broker of one snapshot:

- *cannot be rolled safely*: partitions with too few replicas to keep min ISR (+ headroom) in sync
  while one of their brokers restarts (RF 1, min ISR = RF, min ISR above RF); fixed by raising the
  replication factor or lowering min.insync.replicas;
- *would wait now*: partitions short of in-sync replicas today (a follower behind, a broker down), and
  the controller side, which the first gates wait for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kafkatui.model.health import HealthReport
from kafkatui.model.restart_gate import GateVerdict, Quorum, gate


@dataclass(frozen=True, slots=True)
class RollStep:
    """One broker's turn."""

    broker: int
    rack: str | None
    controller: bool
    wait: str  # the gate's command line, run before restarting the broker


@dataclass(frozen=True, slots=True)
class RollBlocker:
    """Something that would stop (`cannot`) or hold up (`waits`) the roll today, and its fix."""

    kind: str  # "cannot" (waiting cannot help) or "waits" (the gate would wait now)
    what: str
    fix: str
    topics: tuple[str, ...] = ()
    brokers: tuple[int, ...] = ()
    commands: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RollPlan:
    """The order, each step's wait, and what blocks the roll."""

    steps: tuple[RollStep, ...]
    final_wait: str
    blockers: tuple[RollBlocker, ...]
    controller_note: str
    verdicts: dict[int, GateVerdict] = field(default_factory=dict)

    @property
    def cannot(self) -> tuple[RollBlocker, ...]:
        return tuple(b for b in self.blockers if b.kind == "cannot")

    @property
    def waits(self) -> tuple[RollBlocker, ...]:
        return tuple(b for b in self.blockers if b.kind == "waits")


def order(report: HealthReport, controller_broker: int | None) -> list[int]:
    """The brokers in roll order (see the module docstring)."""
    brokers = [b for b in report.brokers.values() if b.up]
    ctl_rack = next((b.rack for b in brokers if b.id == controller_broker), None)
    racks = sorted(
        {b.rack or "" for b in brokers}, key=lambda r: (r == (ctl_rack or "") and controller_broker is not None, r)
    )
    rank = {r: i for i, r in enumerate(racks)}
    return [
        b.id
        for b in sorted(brokers, key=lambda b: (rank[b.rack or ""], b.id == controller_broker, b.id))
    ]  # fmt: skip


def plan(
    report: HealthReport,
    quorum: Quorum | None,
    connection: str,
    headroom: int = 0,
    controller_broker: int | None = None,
    controller_note: str = "",
    extra: Sequence[str] = (),
) -> RollPlan:
    """The roll plan of the cluster `report` judges. `connection` is how the printed commands connect
    (`--bootstrap HOST:PORT` or `--profile NAME`); `extra` are further options they carry (`--topic RX`)."""
    ids = order(report, controller_broker)
    opts = " ".join([connection, *extra, *([f"--headroom {headroom}"] if headroom else [])])
    verdicts = {b: gate(report, b, headroom, quorum) for b in ids}
    steps = tuple(
        RollStep(
            b,
            report.brokers[b].rack,
            b == controller_broker,
            f"kafkatui check {opts} --wait-restart-safe {b} --wait-timeout 10m",
        )
        for b in ids
    )
    final = f"kafkatui check {opts} --wait-restart-safe {ids[0]} --wait-timeout 10m" if ids else ""
    return RollPlan(steps, final, tuple(blockers_of(report, verdicts, headroom, connection)), controller_note, verdicts)


def blockers_of(
    report: HealthReport, verdicts: dict[int, GateVerdict], headroom: int, connection: str
) -> list[RollBlocker]:
    out: list[RollBlocker] = []
    # partitions that can never be rolled safely, by topic
    hopeless: dict[str, tuple[set[int], set[int], int]] = {}
    for b, v in verdicts.items():
        for x in v.blockers:
            if x.hopeless:
                parts, brokers, _ = hopeless.setdefault(x.topic, (set(), set(), x.min_isr))
                parts.add(x.partition)
                brokers.add(b)
    live = sum(1 for b in report.brokers.values() if b.up)
    bootstrap = connection.split()[-1] if connection.startswith("--bootstrap") else "BROKER:9092"
    for topic, (parts, brokers, min_isr) in sorted(hopeless.items()):
        th = report.topics.get(topic)
        rf = th.min_rf if th else 0
        need_rf = min_isr + headroom + 1
        why = (
            f"RF {rf} with min.insync.replicas {min_isr}"
            + (f" and --headroom {headroom}" if headroom else "")
            + f": restarting {_brokers(brokers)} leaves fewer than "
            f"{min_isr + headroom} in sync, so acks=all writes to {len(parts)} partition(s) fail during it"
        )
        fixes = []
        commands = []
        if need_rf <= live:
            fixes.append(f"raise its replication factor to {need_rf}")
            commands.append(f"kafkatui reassign {connection} --topic {topic} --rf {need_rf} --write")
        lower = rf - 1 - headroom
        if lower >= 1:
            fixes.append(f"or lower min.insync.replicas to {lower} (fewer copies per acknowledged write)")
            commands.append(
                f"kafka-configs.sh --bootstrap-server {bootstrap} --alter --entity-type topics "
                f"--entity-name {topic} --add-config min.insync.replicas={lower}"
            )
        if not fixes:
            fixes.append("accept that its writes stop while each of its brokers restarts (RF 1 keeps one copy)")
        fix = ", ".join(fixes) + (
            "; or accept that its acks=all writes fail while its brokers restart and leave it out with --topic"
        )
        out.append(
            RollBlocker("cannot", f"topic {topic}: {why}", fix, (topic,), tuple(sorted(brokers)), tuple(commands))
        )
    # what the gates would wait for now
    short: dict[str, set[str]] = {}
    for v in verdicts.values():
        for x in v.blockers:
            if not x.hopeless:
                short.setdefault(x.topic, set()).add(x.name)
    if short:
        n = len({p for s in short.values() for p in s})
        names = sorted(short)
        out.append(
            RollBlocker(
                "waits",
                f"{n} partition(s) of {len(names)} topic(s) ({', '.join(names[:5])}{' ...' if len(names) > 5 else ''}) "
                "are short of in-sync replicas now: a restart would take them under min ISR"
                + (f" + {headroom}" if headroom else ""),
                "the gates wait until their followers catch up; a follower that never does needs its broker "
                "looked at (the dashboard's broker view, `kafkatui check`) before the roll",
                tuple(names),
            )
        )
    down = report.counts.brokers_down
    if down:
        out.append(
            RollBlocker(
                "waits",
                f"broker(s) {', '.join(map(str, down))} down now",
                "start them again (or reassign their replicas away) before the roll",
                brokers=tuple(down),
            )
        )
    qs = {v.quorum.detail for v in verdicts.values() if v.quorum is not None and not v.quorum.healthy}
    if any(v.quorum is None for v in verdicts.values()):
        qs.add("the controller side could not be read")
    for detail in sorted(qs):
        out.append(RollBlocker("waits", detail, "the gates wait for a healthy controller quorum"))
    return out


def _brokers(ids: set[int]) -> str:
    """ "broker 3" or "any of brokers 1, 2, 3"."""
    text = ", ".join(map(str, sorted(ids)))
    return f"broker {text}" if len(ids) == 1 else f"any of brokers {text}"
