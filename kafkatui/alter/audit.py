"""The audit log of config changes: JSON Lines, one record per resource and key changed.

Path: ``$KAFKATUI_AUDIT_LOG``, else ``$XDG_STATE_HOME/kafkatui/audit.jsonl``, else
``~/.local/state/kafkatui/audit.jsonl``. A record::

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
with ``key``, after ``{"value": ...}``). ``revert_last`` (``alter --revert-last``) only looks at config
changes; ``last_action`` finds the last reassignment for ``reassign --revert-last``.
"""

from __future__ import annotations

import getpass
import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkatui.alter.apply import Verified
from kafkatui.alter.errors import NothingToRevertError
from kafkatui.alter.plan import OVERRIDE_SOURCE, ChangePlan, ConfigChange
from kafkatui.kafka.errors import UsageError
from kafkatui.kafka.settings import is_sensitive_key
from kafkatui.model.snapshot import ConfigValue

AUDIT_ENV = "KAFKATUI_AUDIT_LOG"
MASK = "***"


def audit_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the audit log lives (see the module docstring)."""
    env = os.environ if environ is None else environ
    explicit = env.get(AUDIT_ENV)
    if explicit:
        return Path(explicit).expanduser()
    state = env.get("XDG_STATE_HOME")
    base = Path(state).expanduser() if state else Path.home() / ".local" / "state"
    return base / "kafkatui" / "audit.jsonl"


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


def make_records(verified: Iterable[Verified], cluster_id: str | None, command_id: str,
                 user: str | None = None, now: datetime | None = None) -> list[dict[str, Any]]:
    """One record per change."""
    when = (now or datetime.now(UTC)).isoformat()
    who = user or os_user()
    return [
        {
            "time": when,
            "user": who,
            "cluster_id": cluster_id,
            "command_id": command_id,
            "resource": {"kind": v.change.kind, "name": v.change.name},
            "key": v.change.key,
            "before": _value(v.change.key, v.before),
            "after": _value(v.change.key, v.after),
            "result": "ok" if v.ok else v.error,
        }
        for v in verified
    ]


def append(records: Iterable[dict[str, Any]], path: Path | None = None) -> Path:
    """Append records (directory created, file mode 600); UsageError when it cannot be written."""
    target = path or audit_path()
    lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(lines)
    except OSError as exc:
        raise UsageError(f"cannot write the audit log {target}: {exc.strerror or exc}") from None
    return target


def read(path: Path | None = None) -> list[dict[str, Any]]:
    """Every record (unreadable lines skipped); [] when there is no log yet."""
    target = path or audit_path()
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UsageError(f"cannot read the audit log {target}: {exc.strerror or exc}") from None
    out = []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def revert_last(path: Path | None = None, cluster_id: str | None = None) -> ChangePlan:
    """The plan restoring what the last change set with a successful change replaced.

    Each successful change is undone: SET back to the previous value when it was an override of
    the same resource (source DYNAMIC_TOPIC_CONFIG for a topic, DYNAMIC_BROKER_CONFIG for a broker,
    DYNAMIC_DEFAULT_BROKER_CONFIG for the default), DELETE the override otherwise. With
    `cluster_id`, only change sets on that cluster count. Election and reassignment records
    (those with an ``action``) are not config changes and are skipped.
    """
    records = [r for r in read(path) if cluster_id is None or r.get("cluster_id") == cluster_id]
    ok = [r for r in records if r.get("result") == "ok" and "action" not in r]
    if not ok:
        where = f" for cluster {cluster_id}" if cluster_id else ""
        raise NothingToRevertError(f"no successful change in the audit log {path or audit_path()}{where}")
    last = ok[-1].get("command_id")
    changes = []
    for r in ok:
        if r.get("command_id") != last:
            continue
        kind, name, key = r["resource"]["kind"], str(r["resource"]["name"]), r["key"]
        before = r.get("before") or {}
        if before.get("value") == MASK:
            raise NothingToRevertError(f"cannot revert {key}: its previous value was secret and not logged")
        value = before.get("value") if before.get("source") == OVERRIDE_SOURCE.get(kind) else None
        changes.append(ConfigChange(kind, name, key, value))
    return ChangePlan(tuple(changes))


def action_record(action: str, cluster_id: str | None, command_id: str, resource: Mapping[str, Any],
                  before: Mapping[str, Any], after: Mapping[str, Any], result: str | None,
                  extra: Mapping[str, Any] | None = None, user: str | None = None,
                  now: datetime | None = None) -> dict[str, Any]:
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
    }
    record.update(extra or {})
    return record


def partition_record(action: str, cluster_id: str | None, command_id: str, topic: str, partition: int,
                     before: Mapping[str, Any], after: Mapping[str, Any], result: str | None,
                     extra: Mapping[str, Any] | None = None, user: str | None = None,
                     now: datetime | None = None) -> dict[str, Any]:
    """One record of an election or reassignment on one partition (`result` None means ok)."""
    resource = {"kind": "partition", "name": f"{topic}-{partition}", "topic": topic, "partition": partition}
    return action_record(action, cluster_id, command_id, resource, before, after, result, extra, user, now)


def last_action(actions: Iterable[str], path: Path | None = None, cluster_id: str | None = None) -> list[dict[str, Any]]:
    """The successful records of the last command that did one of `actions` (on `cluster_id`); [] when none."""
    wanted = set(actions)
    ok = [r for r in read(path) if r.get("action") in wanted and r.get("result") == "ok"
          and (cluster_id is None or r.get("cluster_id") == cluster_id)]
    if not ok:
        return []
    last = ok[-1].get("command_id")
    return [r for r in ok if r.get("command_id") == last]
