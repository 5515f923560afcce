"""The write-ahead half of the audit log: an intent before anything is sent, and the settling of intents
whose run died (the interrupted-change report).

Every writing command (`alter`, `elect`, `reassign`, and the dashboard's same actions) appends one
intent record, fsynced under the log's lock, before its first request leaves::

    {"record": "intent", "time": ..., "user": "ops", "cluster_id": "...", "command_id": "<uuid>",
     "action": "alter", "host": "db-ops-1", "pid": 4242,
     "changes": [{"resource": {"kind": "topic", "name": "payments"}, "key": "unclean.leader.election.enable",
                  "before": {"value": "false", "source": "DEFAULT_CONFIG"},
                  "after": {"value": "true", "source": "DYNAMIC_TOPIC_CONFIG"}}]}

``before`` is read from the cluster at apply time (not from the preview); ``after`` is the plan
(``{"delete": true}`` for a removed override; ``{"leader": null}`` for an unclean election: any leader).
The outcome records that follow (one per resource, ``outcome`` applied / refused / unknown) carry the
same ``command_id``. While the run lives it holds a lock on ``<log>.live/<command_id>``; an intent with
no outcome whose lock nobody holds belongs to a run that died. `settle` compares such an intent with the
cluster, appends one outcome record per resource (``"recovered": true``) and returns one line per
intent, e.g. ``an earlier alter of topic payments was interrupted: applied, not verified``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.alter import audit
from kafkatui.alter.plan import OVERRIDE_SOURCE, ConfigChange
from kafkatui.alter.risk import current_value
from kafkatui.model.snapshot import ClusterSnapshot

INTENT = "intent"
DIE_ENV = "KAFKATUI_TEST_DIE_AT"
"""Tests only: the step (``before-send``, ``after-send``, ``verify``) at which the process kills itself
with SIGKILL, to show what an interrupted run leaves behind."""
STEPS = ("before-send", "after-send", "verify")


def die_at(step: str) -> None:
    """SIGKILL this process when ``$KAFKATUI_TEST_DIE_AT`` names `step` (a hook for the kill tests)."""
    if os.environ.get(DIE_ENV) == step:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os.kill(os.getpid(), signal.SIGKILL)


def config_change(change: ConfigChange, snapshot: ClusterSnapshot) -> dict[str, Any]:
    """One planned config change: before as `snapshot` holds it, after as the plan wants it."""
    before = current_value(snapshot, change)
    after: dict[str, Any] = (
        {"delete": True} if change.delete else {"value": change.value, "source": OVERRIDE_SOURCE[change.kind]}
    )
    return {
        "resource": {"kind": change.kind, "name": change.name},
        "key": change.key,
        "before": {"value": before.value, "source": before.source},
        "after": after,
    }


def partition_change(topic: str, partition: int, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """One planned partition change (an election's leader, a reassignment's replicas)."""
    return {
        "resource": {"kind": "partition", "name": f"{topic}-{partition}", "topic": topic, "partition": partition},
        "before": dict(before),
        "after": dict(after),
    }


def _live_dir(log: Path) -> Path:
    return log.with_name(log.name + ".live")


class Intent:
    """A change under way: its intent is on disk; `finish` appends the outcomes and lets go of the run's lock."""

    def __init__(self, log: Path, command_id: str, lock_fd: int | None, lock_path: Path | None) -> None:
        self.log = log
        self.command_id = command_id
        self._fd = lock_fd
        self._lock_path = lock_path

    def finish(self, records: Sequence[dict[str, Any]]) -> None:
        """Append the outcome records (UsageError when the log cannot be written), then drop the live lock."""
        try:
            audit.append(records, self.log)
        finally:
            self.release()

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                if self._lock_path is not None:
                    self._lock_path.unlink()
            os.close(self._fd)
            self._fd = None


def begin(
    action: str,
    cluster_id: str | None,
    changes: Sequence[dict[str, Any]],
    command_id: str | None = None,
    extra: Mapping[str, Any] | None = None,
    path: Path | None = None,
) -> Intent:
    """Write the intent (fsynced, under the log's lock) and hold the run's live lock until `Intent.finish`.

    UsageError when the log cannot be written: then nothing may be sent.
    """
    log = path or audit.audit_path()
    cid = command_id or str(uuid.uuid4())
    lock_fd: int | None = None
    lock_path: Path | None = None
    with contextlib.suppress(OSError):  # no live lock (a read-only dir): the intent is still written first
        live = _live_dir(log)
        live.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_path = live / cid
        lock_fd = os.open(lock_path, os.O_WRONLY | os.O_CREAT, 0o600)
        fcntl.flock(lock_fd, fcntl.LOCK_SH)
    record: dict[str, Any] = {
        "record": INTENT,
        "time": datetime.now(UTC).isoformat(),
        "user": audit.os_user(),
        "cluster_id": cluster_id,
        "command_id": cid,
        "action": action,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "changes": list(changes),
    }
    record.update(extra or {})
    intent = Intent(log, cid, lock_fd, lock_path)
    try:
        audit.append([record], log)
    except BaseException:
        intent.release()
        raise
    return intent


@contextlib.contextmanager
def running(intent: Intent) -> Iterator[Intent]:
    """Release the live lock however the block ends (an exception leaves the intent for `settle`)."""
    try:
        yield intent
    finally:
        intent.release()


def _alive(log: Path, record: Mapping[str, Any]) -> bool:
    """Whether the run that wrote `record` still holds its live lock."""
    lock = _live_dir(log) / str(record.get("command_id"))
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        lock.unlink()
    return False


def pending(records: Sequence[Mapping[str, Any]], cluster_id: str | None, log: Path) -> list[Mapping[str, Any]]:
    """The intents of `cluster_id` with no outcome record whose run is gone."""
    settled = {r.get("command_id") for r in records if r.get("record") != INTENT}
    return [
        r
        for r in records
        if r.get("record") == INTENT
        and r.get("cluster_id") == cluster_id
        and r.get("command_id") not in settled
        and not _alive(log, r)
    ]


def _config_now(change: Mapping[str, Any], snapshot: ClusterSnapshot) -> dict[str, Any]:
    res = change["resource"]
    cv = current_value(snapshot, ConfigChange(res["kind"], str(res["name"]), change["key"], None))
    return {"value": cv.value, "source": cv.source}


def _partition(snapshot: ClusterSnapshot, res: Mapping[str, Any]) -> Any:
    info = snapshot.topics.get(str(res.get("topic")))
    return next((p for p in info.partitions if p.partition == res.get("partition")), None) if info else None


def judge(action: str, change: Mapping[str, Any], snapshot: ClusterSnapshot) -> tuple[str, dict[str, Any]]:
    """What the cluster shows of one planned change: (outcome, the state now)."""
    before, after = change.get("before") or {}, change.get("after") or {}
    if "key" in change:
        now = _config_now(change, snapshot)
        kind = change["resource"]["kind"]
        if after.get("delete"):
            took = now["source"] != OVERRIDE_SOURCE.get(kind)
        else:
            took = now == {"value": after.get("value"), "source": after.get("source")}
        if took:
            return audit.APPLIED, now
        return (audit.NOT_APPLIED if now == before else audit.UNKNOWN), now
    p = _partition(snapshot, change["resource"])
    if p is None:
        return audit.UNKNOWN, {"missing": True}
    if "replicas" in after:
        now_r, old, new = list(p.replicas), list(before.get("replicas", [])), list(after["replicas"])
        state = {"replicas": now_r}
        if now_r == new or (set(now_r) == set(old) | set(new) and now_r != old):
            return audit.APPLIED, state
        return (audit.NOT_APPLIED if now_r == old else audit.UNKNOWN), state
    state = {"leader": p.leader}
    if action == "elect-unclean":
        if p.leader < 0 or p.leader in before.get("isr", []):
            return audit.NOT_APPLIED, state  # still offline, or its last in-sync leader came back
        return audit.APPLIED, state
    if p.leader == after.get("leader"):
        return audit.APPLIED, state
    return (audit.NOT_APPLIED if p.leader == before.get("leader") else audit.UNKNOWN), state


def _name(change: Mapping[str, Any]) -> str:
    res = change.get("resource") or {}
    kind, name = res.get("kind"), res.get("name")
    if kind == "partition":
        return str(name)
    return "the broker default" if kind == "broker-default" else f"{kind} {name}"


def _summary(outcomes: Sequence[str]) -> str:
    if all(o == audit.APPLIED for o in outcomes):
        return "applied, not verified by that run"
    if all(o == audit.NOT_APPLIED for o in outcomes):
        return "not applied"
    counts = {o: outcomes.count(o) for o in (audit.APPLIED, audit.NOT_APPLIED, audit.UNKNOWN) if o in outcomes}
    if set(counts) == {audit.UNKNOWN}:
        return "unknown: the cluster holds neither the values before nor the planned ones"
    return ", ".join(f"{n} {o}" for o, n in counts.items())


def settle(snapshot: ClusterSnapshot, path: Path | None = None) -> list[str]:
    """Settle the interrupted intents of `snapshot`'s cluster: one outcome record per resource, one line each.

    Atomic under the log's lock, so two processes starting at once settle an intent once. Never raises for
    an unwritable or unreadable log: the lines then say that it could not be recorded.
    """
    log = path or audit.audit_path()
    if not log.exists():
        return []
    lines: list[str] = []
    try:
        with audit.locked(log) as (target, fd):
            for intent in pending(audit.read(target), snapshot.cluster_id, target):
                action = str(intent.get("action"))
                changes = [c for c in intent.get("changes") or () if isinstance(c, dict)]
                judged = [judge(action, c, snapshot) for c in changes]
                records = [_record(intent, c, outcome, now) for c, (outcome, now) in zip(changes, judged, strict=True)]
                audit.write_locked(fd, target, records)
                every = list(dict.fromkeys(_name(c) for c in changes))
                names = ", ".join(every[:5]) + (f" and {len(every) - 5} more" if len(every) > 5 else "")
                when = str(intent.get("time", ""))[:19].replace("T", " ")
                lines.append(
                    f"an earlier {action} of {names} was interrupted: {_summary([o for o, _ in judged])} "
                    f"(by {intent.get('user')} at {when} UTC, audit id {str(intent.get('command_id'))[:8]}); "
                    "recorded in the audit log"
                )
    except Exception as exc:  # the report must not stop the command or the dashboard
        lines.append(f"could not check the audit log {log} for interrupted changes: {exc}")
    return lines


def _record(
    intent: Mapping[str, Any], change: Mapping[str, Any], outcome: str, now: Mapping[str, Any]
) -> dict[str, Any]:
    result = "ok" if outcome == audit.APPLIED else f"interrupted: {outcome}"
    record: dict[str, Any] = {
        "time": datetime.now(UTC).isoformat(),
        "user": intent.get("user"),
        "cluster_id": intent.get("cluster_id"),
        "command_id": intent.get("command_id"),
        "resource": change.get("resource"),
        "before": change.get("before"),
        "after": dict(now),
        "result": result,
        "outcome": outcome,
        "recovered": True,
    }
    planned = change.get("after") or {}
    if outcome == audit.APPLIED and "replicas" in planned:  # may still be copying: what it leaves is the plan
        record["after"], record["seen"] = dict(planned), dict(now)
    if "key" in change:
        record["key"] = change["key"]
    else:
        record["action"] = intent.get("action")
    for key in ("revert_of",):
        if key in intent:
            record[key] = intent[key]
    return record


__all__ = [
    "DIE_ENV",
    "Intent",
    "begin",
    "config_change",
    "die_at",
    "judge",
    "partition_change",
    "pending",
    "running",
    "settle",
]
