"""The on-disk format of ISR history recordings (schema version 1).

Layout: ``DIR/YYYY-MM-DD/HH.events.jsonl.gz``, day and hour in UTC of the record's ``ts``. Each
file is a concatenation of gzip members, one per batch (one `Recorder.record` call); every member
holds JSON Lines. A reader that meets a truncated or damaged member keeps every complete line
before the damage, counts the rest as one torn line and resumes at the next member.

Every record is a JSON object with::

    "v":       1                     schema version (readers skip and count newer versions)
    "type":    "partition" | "broker" | "controller" | "topic" | "snapshot" | "gap" | "end"
    "ts":      epoch seconds (float, ms precision) of the snapshot it comes from
    "cluster": cluster id or null

``partition`` -- the partition's state after a change::

    topic, partition, leader (-1: none), leader_epoch, replicas [ids], isr [ids],
    min_isr (the min.insync.replicas in effect for the topic: topic, broker or default),
    effective_min_isr (what the leader enforces: min(min_isr, RF) on 3.7+ brokers, else min_isr;
    absent in recordings before it was written, read as min_isr), class (a Health name:
    OFFLINE, UNDER_MIN_ISR, AT_MIN_ISR, UNDER_REPLICATED, NON_PREFERRED_LEADER, HEALTHY),
    changed [what changed: "isr", "leader", "epoch", "replicas", "min_isr", "broker", "new"],
    prev_leader, prev_isr (null for a new partition)

``broker`` -- ``broker`` (id), ``op`` ("up" | "down"), ``host``, ``port``, ``rack`` (null when down).
``controller`` -- ``from``, ``to`` (broker ids, -1 unknown).
``topic`` -- ``topic``, ``op`` ("added" | "removed"); an added topic's partitions follow as
``partition`` records with ``changed: ["new"]``.
``snapshot`` -- the whole cluster state after every record before it in the stream::

    controller, brokers [[id, host, port, rack], ...],
    topics {name: {"min_isr": n, "partitions": [[partition, leader, leader_epoch, [replicas], [isr], class], ...]}},
    reason ("start" | "hour" | "after-gap"),
    min_isr_capped (true: the brokers cap min ISR at RF, 3.7+, so a partition's effective min ISR is
    min(min_isr, len(replicas)); absent or false: min_isr as is), kafka (version range, e.g. "3.7-3.9"),
    mode ("kraft" | "zookeeper" | null); the last three are absent in older recordings.

``gap`` -- ``from``, ``to`` (epoch seconds), ``reason`` (the last error, one line), ``failures``
(count): the cluster could not be read between ``from`` (the last good snapshot) and ``to``; the
state in between is unknown, not unchanged. A gap is also the last record of a recording stopped while
the cluster could not be read (``to`` is when it stopped); whatever follows starts with a snapshot record.

``end`` -- the recording stopped here (the dashboard or `kafkatui record` quit): a replay carries no
state past it; what follows (if anything) starts with a ``start`` snapshot. A recording that was
killed has no ``end`` record.

No config values are written (only the effective min ISR, a number), so no secret can leak.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from kafkatui.model.health import Health
from kafkatui.model.rules import UNKNOWN, KafkaVersion
from kafkatui.model.snapshot import BrokerInfo, PartitionInfo

SCHEMA_VERSION = 1
FILE_SUFFIX = ".events.jsonl.gz"
DAY_FORMAT = "%Y-%m-%d"


def utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


def hour_path(directory: Path, ts: float) -> Path:
    """``DIR/YYYY-MM-DD/HH.events.jsonl.gz`` for epoch seconds `ts` (UTC)."""
    dt = utc(ts)
    return directory / dt.strftime(DAY_FORMAT) / f"{dt.hour:02d}{FILE_SUFFIX}"


def day_name(day: str | date) -> str:
    """The folder name of a day given as ``YYYY-MM-DD`` or a date (ValueError when malformed)."""
    if isinstance(day, date):
        return day.strftime(DAY_FORMAT)
    return datetime.strptime(day, DAY_FORMAT).strftime(DAY_FORMAT)


def _head(kind: str, ts: float, cluster: str | None) -> dict[str, Any]:
    return {"v": SCHEMA_VERSION, "type": kind, "ts": round(ts, 3), "cluster": cluster}


def partition_record(
    ts: float,
    cluster: str | None,
    p: PartitionInfo,
    min_isr: int,
    health: Health,
    changed: list[str],
    prev: PartitionInfo | None,
    effective_min_isr: int | None = None,
) -> dict[str, Any]:
    rec = _head("partition", ts, cluster)
    rec.update(
        topic=p.topic,
        partition=p.partition,
        leader=p.leader,
        leader_epoch=p.leader_epoch,
        replicas=list(p.replicas),
        isr=list(p.isr),
        min_isr=min_isr,
        effective_min_isr=min_isr if effective_min_isr is None else effective_min_isr,
        **{"class": health.name},
        changed=changed,
        prev_leader=prev.leader if prev else None,
        prev_isr=list(prev.isr) if prev else None,
    )
    return rec


def broker_record(ts: float, cluster: str | None, broker_id: int, info: BrokerInfo | None) -> dict[str, Any]:
    rec = _head("broker", ts, cluster)
    rec.update(
        broker=broker_id,
        op="up" if info else "down",
        host=info.host if info else None,
        port=info.port if info else None,
        rack=info.rack if info else None,
    )
    return rec


def controller_record(ts: float, cluster: str | None, old: int, new: int) -> dict[str, Any]:
    rec = _head("controller", ts, cluster)
    rec.update({"from": old, "to": new})
    return rec


def topic_record(ts: float, cluster: str | None, topic: str, op: str) -> dict[str, Any]:
    rec = _head("topic", ts, cluster)
    rec.update(topic=topic, op=op)
    return rec


def gap_record(ts: float, cluster: str | None, start: float, reason: str, failures: int) -> dict[str, Any]:
    rec = _head("gap", ts, cluster)
    rec.update({"from": round(start, 3), "to": round(ts, 3), "reason": reason, "failures": failures})
    return rec


def snapshot_record(
    ts: float,
    cluster: str | None,
    controller: int,
    brokers: tuple[BrokerInfo, ...],
    topics: dict[str, dict[str, Any]],
    reason: str,
    kafka: KafkaVersion = UNKNOWN,
) -> dict[str, Any]:
    rec = _head("snapshot", ts, cluster)
    rec.update(
        controller=controller,
        brokers=[[b.id, b.host, b.port, b.rack] for b in brokers],
        topics=topics,
        reason=reason,
        min_isr_capped=kafka.capped,
        kafka=kafka.label,
        mode=kafka.mode,
    )
    return rec


def end_record(ts: float, cluster: str | None) -> dict[str, Any]:
    """The recording stops here."""
    return _head("end", ts, cluster)
