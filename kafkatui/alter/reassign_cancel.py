"""``kafkatui reassign --cancel`` and ``--clear-throttle``: stop a reassignment, remove a throttle."""

from __future__ import annotations

import argparse
import uuid
from collections.abc import Callable, Mapping
from typing import TextIO

from kafkatui.alter import audit, journal, throttle_apply
from kafkatui.alter.errors import NotApplicableError, PartialFailureError
from kafkatui.alter.guard import typed_confirmation
from kafkatui.alter.reassign import ids_text
from kafkatui.alter.reassign_apply import Reassigner
from kafkatui.alter.throttle import BROKER_KEYS, TOPIC_KEYS, throttled
from kafkatui.kafka.errors import UsageError
from kafkatui.kafka.profiles import ResolvedConnection
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.model.snapshot import ClusterSnapshot


def cancel(
    ns: argparse.Namespace,
    conn: ResolvedConnection,
    snapshot: ClusterSnapshot,
    source: KafkaClusterSource,
    reassigner: Reassigner,
    stdin: TextIO,
    out: TextIO,
    err: TextIO,
) -> int:
    """Cancel the topic's reassignment in flight (each partition back to its replicas before), then its throttle."""
    if ns.topic not in snapshot.topics:
        raise UsageError(f"unknown topic {ns.topic!r}")
    running = reassigner.ongoing([ns.topic])
    if not running:
        raise NotApplicableError(f"no reassignment in progress for {ns.topic}: nothing to cancel")
    out.write(
        f"cancel the reassignment of {len(running)} partition(s) of {ns.topic}: each goes back to its "
        "replicas before it started (copied data on the new replicas is dropped)\n"
    )
    for (t, p), r in sorted(running.items()):
        out.write(
            f"  {t}-{p}  replicas {ids_text(r['replicas'])}  adding {ids_text(r['adding_replicas'])}  "
            f"removing {ids_text(r['removing_replicas'])}\n"
        )
    if ns.dry_run:
        out.write("dry run: nothing changed\n")
        return 0
    if not ns.yes:
        typed_confirmation("the topic name", ns.topic, stdin, err, "to cancel")
    done = cancel_running(conn.settings, ns.topic, running, snapshot, source.snapshot, reassigner)
    failed = []
    for (t, p), (error, now) in sorted(done.items()):
        if error is None:
            out.write(f"ok      {t}-{p} cancelled: replicas {ids_text(now)}\n")
        else:
            failed.append(f"{t}-{p}: {error}")
            out.write(f"FAILED  {t}-{p}: {error}\n")
    if done.throttle_line:
        out.write(done.throttle_line + "\n")
    if failed:
        raise PartialFailureError(f"{len(failed)} of {len(running)} cancellations failed: " + "; ".join(failed))
    return 0


class Cancelled(dict[tuple[str, int], tuple[str | None, list[int]]]):
    """Per partition: the error (None: cancelled) and its replicas re-described; `throttle_line` says what
    happened to the topic's throttle ("" when it had none)."""

    throttle_line: str = ""


def cancel_running(
    settings: ConnectionSettings,
    topic: str,
    running: Mapping[tuple[str, int], Mapping[str, list[int]]],
    snapshot: ClusterSnapshot,
    read: Callable[[], ClusterSnapshot],
    reassigner: Reassigner,
) -> Cancelled:
    """Cancel the `running` reassignments of `topic`, re-describe, audit (``reassign-cancel``), remove its throttle.

    Raises PartialFailureError when the throttle cannot be removed (the cancellations are done and audited).
    """
    intent = journal.begin(
        "reassign-cancel",
        snapshot.cluster_id,
        [
            journal.partition_change(
                t,
                p,
                {"replicas": list(r["replicas"])},
                {"replicas": [b for b in r["replicas"] if b not in r["adding_replicas"]]},
            )
            for (t, p), r in sorted(running.items())
        ],
    )
    command_id = intent.command_id
    with journal.running(intent):
        journal.die_at("before-send")
        results = reassigner.cancel(running)
        journal.die_at("after-send")
        after = read()
        done = _cancel_records(intent, running, results, snapshot, after)
    if throttled(snapshot, topic):
        brokers = {b for r in running.values() for b in (*r["replicas"], *r["adding_replicas"])}
        done.throttle_line = throttle_apply.remove(settings, [topic], brokers, snapshot.cluster_id, command_id, after)
    return done


def _cancel_records(
    intent: journal.Intent,
    running: Mapping[tuple[str, int], Mapping[str, list[int]]],
    results: Mapping[tuple[str, int], str | None],
    snapshot: ClusterSnapshot,
    after: ClusterSnapshot,
) -> Cancelled:
    """One ``reassign-cancel`` outcome per partition, appended through the intent."""
    command_id = intent.command_id
    records = []
    done = Cancelled()
    for (t, p), r in sorted(running.items()):
        info = after.topics.get(t)
        now = next((list(x.replicas) for x in info.partitions if x.partition == p), []) if info else []
        error = results[(t, p)]
        records.append(
            audit.partition_record(
                "reassign-cancel",
                snapshot.cluster_id,
                command_id,
                t,
                p,
                {"replicas": r["replicas"], "adding": r["adding_replicas"], "removing": r["removing_replicas"]},
                {"replicas": now},
                error,
            )
        )
        done[(t, p)] = (error, now)
    intent.finish(records)
    return done


def clear_throttle(
    ns: argparse.Namespace, conn: ResolvedConnection, snapshot: ClusterSnapshot, stdin: TextIO, out: TextIO, err: TextIO
) -> int:
    """Remove the topic's throttled-replica lists and every broker's throttle rates."""
    if ns.topic not in snapshot.topics:
        raise UsageError(f"unknown topic {ns.topic!r}")
    brokers = sorted(snapshot.broker_ids)
    out.write(
        f"remove the replication throttle: {', '.join(TOPIC_KEYS)} of {ns.topic}; "
        f"{', '.join(BROKER_KEYS)} of brokers {ids_text(brokers)}\n"
    )
    if ns.dry_run:
        out.write("dry run: nothing changed\n")
        return 0
    if not ns.yes:
        typed_confirmation("the topic name", ns.topic, stdin, err, "to remove the throttle")
    out.write(
        throttle_apply.remove(conn.settings, [ns.topic], brokers, snapshot.cluster_id, str(uuid.uuid4()), snapshot)
        + "\n"
    )
    return 0
