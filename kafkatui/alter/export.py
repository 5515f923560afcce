"""A plan as text for other tools: ``kafka-configs.sh`` command lines, or Strimzi YAML."""

from __future__ import annotations

import json
import shlex
from typing import Any

import yaml

from kafkatui.alter.plan import ChangePlan, ConfigChange
from kafkatui.kafka.errors import UsageError

STRIMZI_API = "kafka.strimzi.io/v1beta2"


def kafka_configs_commands(plan: ChangePlan, bootstrap: str) -> list[str]:
    """One ``kafka-configs.sh --alter`` command line per resource, shell-quoted."""
    out = []
    for (kind, name), changes in plan.resources().items():
        args = ["kafka-configs.sh", "--bootstrap-server", bootstrap, "--alter"]
        if kind == "topic":
            args += ["--entity-type", "topics", "--entity-name", name]
        elif kind == "broker":
            args += ["--entity-type", "brokers", "--entity-name", name]
        else:
            args += ["--entity-type", "brokers", "--entity-default"]
        sets = [f"{c.key}={c.value}" for c in changes if not c.delete]
        deletes = [c.key for c in changes if c.delete]
        if sets:
            args += ["--add-config", ",".join(sets)]
        if deletes:
            args += ["--delete-config", ",".join(deletes)]
        out.append(shlex.join(args))
    return out


def _typed(change: ConfigChange) -> Any:
    """The value as YAML should carry it (Strimzi wants numbers and booleans typed)."""
    if change.value is None:
        return None
    if change.value in ("true", "false"):
        return change.value == "true"
    return int(change.value) if change.value.isdigit() else change.value


def strimzi_topic(name: str, changes: list[ConfigChange], namespace: str, cluster: str) -> dict[str, Any]:
    """A KafkaTopic resource whose spec.config holds the new values (merge into your existing one)."""
    return {
        "apiVersion": STRIMZI_API,
        "kind": "KafkaTopic",
        "metadata": {"name": name, "namespace": namespace, "labels": {"strimzi.io/cluster": cluster}},
        "spec": {"config": {c.key: _typed(c) for c in changes}},
    }


def strimzi_merge_patch(changes: list[ConfigChange], broker: bool = False) -> dict[str, Any]:
    """A JSON merge patch: null removes a key (a deleted override)."""
    config = {c.key: _typed(c) for c in changes}
    return {"spec": {"kafka": {"config": config}}} if broker else {"spec": {"config": config}}


def strimzi_yaml(plan: ChangePlan, namespace: str = "kafka", cluster: str = "my-cluster") -> str:
    """YAML documents for GitOps: a KafkaTopic per topic when only values are set, a merge patch
    (with its ``kubectl patch`` line as a comment) when an override is removed, and a patch of the
    Kafka resource's spec.kafka.config for broker defaults. Per-broker configs have no Strimzi form."""
    docs: list[str] = []
    for (kind, name), changes in plan.resources().items():
        if kind == "broker":
            raise UsageError(
                f"broker {name}: Strimzi has no per-broker config; use --broker-default or --export kafka-configs"
            )
        if kind == "topic" and not any(c.delete for c in changes):
            body = yaml.safe_dump(strimzi_topic(name, changes, namespace, cluster), sort_keys=False)
            docs.append(f"# KafkaTopic {name}: merge spec.config into your resource\n{body}")
            continue
        broker = kind == "broker-default"
        patch = strimzi_merge_patch(changes, broker=broker)
        target = f"kafka {cluster}" if broker else f"kafkatopic {name}"
        cmd = shlex.join(
            [
                "kubectl",
                "patch",
                *target.split(),
                "-n",
                namespace,
                "--type",
                "merge",
                "-p",
                json.dumps(patch, separators=(",", ":")),
            ]
        )
        docs.append(f"# merge patch for {target}:\n# {cmd}\n" + yaml.safe_dump(patch, sort_keys=False))
    return "---\n".join(docs)
