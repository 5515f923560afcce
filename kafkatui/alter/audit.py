"""The audit log of config changes: JSON Lines, one record per resource and key changed.

Path: ``$KAFKATUI_AUDIT_LOG``, else ``$XDG_STATE_HOME/kafkatui/audit.jsonl``, else
``~/.local/state/kafkatui/audit.jsonl``; ``--demo`` writes to its own cluster's log instead
(`demo_path`, unless ``$KAFKATUI_AUDIT_LOG`` names one). A record::

    {"time": "2026-11-22T01:20:00.123456+00:00", "user": "ops", "cluster_id": "...",
     "command_id": "<uuid of the kafkatui invocation>", "resource": {"kind": "topic", "name": "orders"},
     "key": "min.insync.replicas", "before": {"value": "1", "source": "DEFAULT_CONFIG"},
     "after": {"value": "2", "source": "DYNAMIC_TOPIC_CONFIG"}, "result": "ok"}

``result`` is ``"ok"`` or the error text. Values of sensitive configs are written as ``***``;
connection settings are never written.

``kafkatui elect`` and ``kafkatui reassign`` write one record per partition to the same log, told
apart by ``action`` (config changes have none)::

    {"time": ..., "user": ..., "cluster_id": ..., "command_id": ..., "action": "reassign",
     "resource": {"kind": "partition", "name": "orders-0", "topic": "orders", "partition": 0},
     "before": {"replicas": [1]}, "after": {"replicas": [1, 2, 3]}, "result": "ok"}

Actions: ``elect-preferred`` and ``elect-unclean`` (before/after ``{"leader": N}``; an unclean
one also carries ``candidate`` and ``lag``), ``reassign`` (``revert_of`` names the command it
undid), ``reassign-cancel``, and ``throttle`` / ``throttle-clear`` (resource a topic or broker,
with ``key``, after ``{"value": ...}``). Every outcome record also says ``outcome``: ``applied``,
``refused`` or ``unknown`` (``not applied`` when settled after an interrupted run); an ``intent``
record precedes them (`kafkatui.alter.journal`). Reverts read the history in `kafkatui.alter.revert`.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import json
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.alter.apply import Verified
from kafkatui.alter.plan import ConfigChange
from kafkatui.kafka.errors import UsageError
from kafkatui.kafka.settings import is_sensitive_key
from kafkatui.model.snapshot import ConfigValue

AUDIT_ENV = "KAFKATUI_AUDIT_LOG"
MASK = "***"


_routed: Path | None = None


def route_to(path: Path | None) -> None:
    """Make `path` this process's audit log unless ``$KAFKATUI_AUDIT_LOG`` names one (the demo's own log);
    None undoes it."""
    global _routed
    _routed = path


def audit_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the audit log lives (see the module docstring)."""
    env = os.environ if environ is None else environ
    explicit = env.get(AUDIT_ENV)
    if explicit:
        return Path(explicit).expanduser()
    if _routed is not None and environ is None:
        return _routed
    state = env.get("XDG_STATE_HOME")
    base = Path(state).expanduser() if state else Path.home() / ".local" / "state"
    return base / "kafkatui" / "audit.jsonl"


def demo_path(cluster_id: str | None, environ: Mapping[str, str] | None = None) -> Path:
    """The audit log of one demo cluster (``.../kafkatui/demo/<cluster id>.audit.jsonl`` beside the real log)."""
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME")
    base = Path(state).expanduser() if state else Path.home() / ".local" / "state"
    return base / "kafkatui" / "demo" / f"{cluster_id or 'unknown'}.audit.jsonl"


def os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry, no LOGNAME: still audit
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def _value(key: str, cv: ConfigValue | None) -> dict[str, str | None]:
    if cv is None:
        return {"value": None, "source": None}
    masked = cv.sensitive or is_sensitive_key(key)
    return {"value": MASK if masked and cv.value is not None else cv.value, "source": cv.source}


def outcome_of(result: str | None) -> str:
    """``applied``, ``refused`` or ``unknown`` for a record's result: ok, the broker's error, or a change
    the brokers accepted that re-describing did not show (``not verified: ...``)."""
    if result is None or result == "ok":
        return APPLIED
    return UNKNOWN if result.startswith("not verified") else REFUSED


APPLIED, REFUSED, UNKNOWN, NOT_APPLIED = "applied", "refused", "unknown", "not applied"
"""Outcomes of one resource's change (`NOT_APPLIED`: an interrupted run never got it to the cluster)."""


def config_record(
    change: ConfigChange,
    before: ConfigValue | None,
    after: ConfigValue | None,
    result: str,
    cluster_id: str | None,
    command_id: str,
    outcome: str | None = None,
    extra: Mapping[str, Any] | None = None,
    user: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The outcome record of one config change (`result` "ok" or the error)."""
    record: dict[str, Any] = {
        "time": (now or datetime.now(UTC)).isoformat(),
        "user": user or os_user(),
        "cluster_id": cluster_id,
        "command_id": command_id,
        "resource": {"kind": change.kind, "name": change.name},
        "key": change.key,
        "before": _value(change.key, before),
        "after": _value(change.key, after),
        "result": result,
        "outcome": outcome or outcome_of(result),
    }
    record.update(extra or {})
    return record


def make_records(
    verified: Iterable[Verified],
    cluster_id: str | None,
    command_id: str,
    user: str | None = None,
    now: datetime | None = None,
    extra: Mapping[str, Any] | None = None,
    refused: Iterable[tuple[str, str]] = (),
) -> list[dict[str, Any]]:
    """One outcome record per change; `refused` names the resources the brokers refused (outcome ``refused``)."""
    no = set(refused)
    out = []
    for v in verified:
        outcome = REFUSED if v.change.resource in no else outcome_of("ok" if v.ok else v.error)
        out.append(
            config_record(
                v.change,
                v.before,
                v.after,
                "ok" if v.ok else str(v.error),
                cluster_id,
                command_id,
                outcome,
                extra,
                user,
                now,
            )
        )
    return out


@contextlib.contextmanager
def locked(path: Path | None = None) -> Iterator[tuple[Path, int]]:
    """The log opened for appending under an exclusive lock (flock): (path, fd). Every writer takes it,
    so two kafkatui processes never interleave or lose records; UsageError when it cannot be opened."""
    target = path or audit_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as exc:
        raise UsageError(f"cannot write the audit log {target}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield target, fd
    finally:
        os.close(fd)  # closing releases the lock


def write_locked(fd: int, target: Path, records: Iterable[dict[str, Any]]) -> None:
    """Append `records` through `locked`'s fd and fsync them: on disk before anything else happens."""
    data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode("utf-8")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except OSError as exc:
        raise UsageError(f"cannot write the audit log {target}: {exc.strerror or exc}") from None


def append(records: Iterable[dict[str, Any]], path: Path | None = None) -> Path:
    """Append records under the log's lock, fsynced (directory created, file mode 600); UsageError when it
    cannot be written."""
    with locked(path) as (target, fd):
        write_locked(fd, target, records)
    return target


MAX_RECORD = 1 << 20  # bytes: a longer line is not a record kafkatui wrote, and is skipped unread


def read(path: Path | None = None) -> list[dict[str, Any]]:
    """Every record (unreadable or overlong lines skipped); [] when there is no log yet.

    Read line by line, and only from a regular file: a log pointed at a device or a FIFO is refused
    instead of read without end.
    """
    target = path or audit_path()
    out: list[dict[str, Any]] = []
    try:
        with open(target, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise UsageError(f"cannot read the audit log {target}: not a regular file")
            while line := fh.readline(MAX_RECORD + 1):
                if len(line) > MAX_RECORD:
                    while line and not line.endswith(b"\n"):  # skip the rest of the overlong line
                        line = fh.readline(MAX_RECORD)
                    continue
                try:
                    rec = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if isinstance(rec, dict):
                    out.append(rec)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UsageError(f"cannot read the audit log {target}: {exc.strerror or exc}") from None
    return out


def action_record(
    action: str,
    cluster_id: str | None,
    command_id: str,
    resource: Mapping[str, Any],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    result: str | None,
    extra: Mapping[str, Any] | None = None,
    user: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """One record of an action (election, reassignment, throttle) on one resource (`result` None means ok)."""
    record: dict[str, Any] = {
        "time": (now or datetime.now(UTC)).isoformat(),
        "user": user or os_user(),
        "cluster_id": cluster_id,
        "command_id": command_id,
        "action": action,
        "resource": dict(resource),
        "before": dict(before),
        "after": dict(after),
        "result": "ok" if result is None else result,
        "outcome": outcome_of(result),
    }
    record.update(extra or {})
    return record


def partition_record(
    action: str,
    cluster_id: str | None,
    command_id: str,
    topic: str,
    partition: int,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    result: str | None,
    extra: Mapping[str, Any] | None = None,
    user: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """One record of an election or reassignment on one partition (`result` None means ok)."""
    resource = {"kind": "partition", "name": f"{topic}-{partition}", "topic": topic, "partition": partition}
    return action_record(action, cluster_id, command_id, resource, before, after, result, extra, user, now)
