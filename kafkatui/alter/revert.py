"""Revert as compare-and-set over the audit history of one cluster.

The history of a cluster is its change sets (the records of one ``command_id`` whose outcome is
applied), newest first. ``--revert-last`` (and the dashboard's ``u``) undoes the newest change set that
is not itself an undo and has not been undone yet, so pressing it again walks further back;
``--revert N`` undoes the N-th newest change set whatever it is (a revert of a revert re-applies, and is
a new change set in the history). Either way the cluster must still hold every after-value of that change
set (`differences`), else `RevertConflictError` (exit 22) names what differs and the command that sets
the old value anyway.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkatui.alter import audit
from kafkatui.alter.errors import NothingToRevertError, RevertConflictError
from kafkatui.alter.journal import INTENT
from kafkatui.alter.plan import OVERRIDE_SOURCE, ChangePlan, ConfigChange, label
from kafkatui.alter.risk import current_value
from kafkatui.model.snapshot import ClusterSnapshot

CONFIG = "config"
"""The history of config changes (records without ``action``); otherwise an action name (``reassign``)."""


@dataclass(frozen=True, slots=True)
class ChangeSet:
    """One applied command in the history: its records (applied outcomes), newest history entry first."""

    command_id: str
    records: tuple[Mapping[str, Any], ...]
    revert_of: str | None
    undo: bool  # it undid an earlier change (a revert of a revert is not an undo: it re-applies)
    undone_by: str | None  # the later change set that undid it

    @property
    def time(self) -> str:
        return str(self.records[0].get("time", ""))[:19].replace("T", " ")

    @property
    def user(self) -> str:
        return str(self.records[0].get("user", "?"))

    def describe(self) -> str:
        """One line: when, who, what (``topic orders min.insync.replicas 1 -> 2``)."""
        parts = [_what(r) for r in self.records[:3]]
        more = f" and {len(self.records) - 3} more" if len(self.records) > 3 else ""
        tag = " (revert)" if self.undo else (" (re-applied)" if self.revert_of else "")
        done = " [undone]" if self.undone_by else ""
        return f"{self.time} {self.user}: {'; '.join(parts)}{more}{tag}{done}"


def _what(r: Mapping[str, Any]) -> str:
    res, before, after = r.get("resource") or {}, r.get("before") or {}, r.get("after") or {}
    if "key" in r:
        where = label(str(res.get("kind")), str(res.get("name")))
        return f"{where} {r['key']} {before.get('value')} -> {after.get('value')}"
    if "replicas" in after:
        return f"{res.get('name')} replicas {before.get('replicas')} -> {after.get('replicas')}"
    return f"{res.get('name')} {r.get('action')}"


def _kind_of(r: Mapping[str, Any]) -> str:
    return CONFIG if "action" not in r else str(r["action"])


def history(
    kind: str = CONFIG,
    cluster_id: str | None = None,
    path: Path | None = None,
    records: Iterable[Mapping[str, Any]] | None = None,
) -> list[ChangeSet]:
    """The applied change sets of `kind` on `cluster_id` (None: any cluster), newest first."""
    source = audit.read(path) if records is None else records
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in source:
        if r.get("record") == INTENT or r.get("result") != "ok" or _kind_of(r) != kind:
            continue
        if cluster_id is not None and r.get("cluster_id") != cluster_id:
            continue
        groups.setdefault(str(r.get("command_id")), []).append(r)
    undo: dict[str, bool] = {}
    reverters: dict[str, list[str]] = {}
    for cid, recs in groups.items():  # oldest first: a revert always comes after what it reverts
        target = recs[0].get("revert_of")
        undo[cid] = target is not None and not undo.get(str(target), False)
        if target is not None:
            reverters.setdefault(str(target), []).append(cid)
    undone_by: dict[str, str | None] = {}
    for cid in reversed(list(groups)):  # newest first: whether each change set's effect still stands
        live = [u for u in reverters.get(cid, []) if undone_by.get(u) is None]
        undone_by[cid] = live[-1] if live else None
    out = [
        ChangeSet(
            cid,
            tuple(recs),
            None if recs[0].get("revert_of") is None else str(recs[0]["revert_of"]),
            undo[cid],
            undone_by[cid],
        )
        for cid, recs in groups.items()
    ]
    return out[::-1]


def pick(sets: Sequence[ChangeSet], n: int | None, where: str) -> ChangeSet:
    """The N-th newest change set (1 the newest), or with None the newest one to undo (not an undo, not undone)."""
    if n is not None:
        if n < 1 or n > len(sets):
            raise NothingToRevertError(f"no change number {n}: {where} holds {len(sets)} applied change set(s)")
        return sets[n - 1]
    for s in sets:
        if not s.undo and s.undone_by is None:
            return s
    if sets:
        raise NothingToRevertError(
            f"every change in {where} is already undone (or is an undo); `--revert N` re-applies one"
        )
    raise NothingToRevertError(f"no successful change in {where}")


def where(path: Path | None, cluster_id: str | None) -> str:
    return f"the audit log {path or audit.audit_path()}" + (f" for cluster {cluster_id}" if cluster_id else "")


def config_plan(change: ChangeSet) -> ChangePlan:
    """The plan putting back what `change` replaced: SET the previous override, or DELETE the override."""
    changes = []
    for r in change.records:
        kind, name, key = r["resource"]["kind"], str(r["resource"]["name"]), str(r["key"])
        before = r.get("before") or {}
        if before.get("value") == audit.MASK:
            raise NothingToRevertError(f"cannot revert {key}: its previous value was secret and not logged")
        value = before.get("value") if before.get("source") == OVERRIDE_SOURCE.get(kind) else None
        changes.append(ConfigChange(kind, name, key, value))
    return ChangePlan(tuple(changes))


def config_differences(change: ChangeSet, snapshot: ClusterSnapshot) -> list[str]:
    """What the cluster holds now where it differs from the change set's after-values (empty: revertible)."""
    out = []
    for r in change.records:
        kind, name, key = r["resource"]["kind"], str(r["resource"]["name"]), str(r["key"])
        after = r.get("after") or {}
        now = current_value(snapshot, ConfigChange(kind, name, key, None))
        if kind == "topic" and name not in snapshot.topics:
            out.append(f"topic {name} no longer exists")
        elif (now.value, now.source) != (after.get("value"), after.get("source")):
            out.append(
                f"{label(kind, name)} {key} is {now.value} ({now.source}) now, "
                f"that change left {after.get('value')} ({after.get('source')})"
            )
    return out


def replica_differences(change: ChangeSet, snapshot: ClusterSnapshot) -> list[str]:
    """Partitions whose replicas differ from what the reassignment left (empty: revertible)."""
    out = []
    for r in change.records:
        res, after = r.get("resource") or {}, r.get("after") or {}
        info = snapshot.topics.get(str(res.get("topic")))
        p = next((x for x in info.partitions if x.partition == res.get("partition")), None) if info else None
        if p is None:
            out.append(f"{res.get('name')} no longer exists")
        elif list(p.replicas) != list(after.get("replicas", [])):
            out.append(
                f"{res.get('name')} has replicas {list(p.replicas)} now, that change left {after.get('replicas')}"
            )
    return out


def refuse(change: ChangeSet, differs: Sequence[str], by_hand: str) -> RevertConflictError:
    """The one-line refusal: what differs, and the command that sets the old values anyway."""
    more = f" (and {len(differs) - 1} more)" if len(differs) > 1 else ""
    return RevertConflictError(
        f"cannot revert the change of {change.time} by {change.user} (audit id "
        f"{change.command_id[:8]}): {differs[0]}{more}; nothing changed. To set it back "
        f"anyway: {by_hand}"
    )


def alter_command(plan: ChangePlan, bootstrap: str) -> str:
    """The ``kafkatui alter`` line applying `plan` (per resource kind: --topic/--broker/--broker-default)."""
    args = ["kafkatui", "alter", "--bootstrap", bootstrap]
    for (kind, name), changes in plan.resources().items():
        args += (
            ["--topic", name] if kind == "topic" else (["--broker", name] if kind == "broker" else ["--broker-default"])
        )
        for c in changes:
            args += ["--unset", c.key] if c.delete else ["--set", f"{c.key}={c.value}"]
    return shlex.join(args + ["--write"])


def revertible_config(
    snapshot: ClusterSnapshot, n: int | None = None, bootstrap: str = "B", path: Path | None = None
) -> tuple[ChangeSet, ChangePlan]:
    """The change set to revert on `snapshot`'s cluster and its plan; NothingToRevertError (16) or
    RevertConflictError (22) when the cluster no longer holds its after-values."""
    sets = history(CONFIG, snapshot.cluster_id, path)
    change = pick(sets, n, where(path, snapshot.cluster_id))
    plan = config_plan(change)
    differs = config_differences(change, snapshot)
    if differs:
        raise refuse(change, differs, alter_command(plan, bootstrap))
    return change, plan


__all__ = [
    "CONFIG",
    "ChangeSet",
    "alter_command",
    "config_differences",
    "config_plan",
    "history",
    "pick",
    "replica_differences",
    "revertible_config",
]
