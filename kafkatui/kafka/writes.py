"""The write commands' client calls: IncrementalAlterConfigs, ElectLeaders, partition reassignments.

The only write code that touches a client library (alter/ plans, audits and verifies, and calls these).
Every answer comes back as plain values: per resource or partition the broker's error on one line,
secrets scrubbed (None: accepted); a broker's refusal never raises.

- IncrementalAlterConfigs (KIP-339) only, never legacy AlterConfigs (it replaces a resource's whole
  override set). Topics and single brokers go through confluent-kafka's ``incremental_alter_configs``;
  the cluster-wide broker default (resource name "") through kafka-python's ``alter_configs`` request
  with ``incremental=True``, since librdkafka refuses a BROKER resource with an empty name.
- ElectLeaders through confluent-kafka. 2.16.1's ``elect_leaders`` raises SystemError when given
  ``request_timeout`` or ``operation_timeout``: it is called without them and its future is waited on
  with our timeout.
- confluent-kafka 2.16 has no API for AlterPartitionReassignments / ListPartitionReassignments;
  kafka-python's ``alter_partition_reassignments`` and ``list_partition_reassignments`` send them to
  the controller.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from confluent_kafka import ElectionType, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from kafkatui.kafka.errors import KafkaTuiError, UsageError, one_line, scrub
from kafkatui.kafka.settings import ConnectionSettings

Key = tuple[str, int]
"""A partition: (topic, partition)."""
Resource = tuple[str, str]
"""A config resource: ("topic", name) or ("broker", id)."""


class ConfigOp(Protocol):
    """One config to set (`value`) or delete (`delete`: back to the default) on a resource."""

    @property
    def key(self) -> str: ...

    @property
    def value(self) -> str | None: ...

    @property
    def delete(self) -> bool: ...


def quiet_logger() -> logging.Logger:
    """A logger that drops librdkafka's own lines (errors reach the user through the results instead)."""
    logger = logging.Logger("kafkatui.alter.librdkafka", logging.CRITICAL)
    logger.propagate = False
    logger.addHandler(logging.NullHandler())
    return logger


class AdminUser:
    """Holds an `AdminClient` for `settings`; bad settings are a one-line `UsageError` without secrets."""

    def __init__(self, settings: ConnectionSettings) -> None:
        self.settings = settings
        self._secrets = settings.secrets()
        conf: dict[str, Any] = dict(settings.to_confluent())
        conf["logger"] = quiet_logger()
        try:
            self._admin = AdminClient(conf)
        except (KafkaException, TypeError, ValueError) as exc:
            raise UsageError(f"invalid client settings: {scrub(str(exc), self._secrets)}") from None

    def _text(self, text: str) -> str:
        """A broker's or client's message on one line, the secrets scrubbed."""
        return one_line(scrub(text, self._secrets))

    def _error(self, exc: Any) -> str:
        err = exc.args[0] if isinstance(exc, KafkaException) and exc.args else exc
        if isinstance(err, KafkaError):
            return self._text(f"{err.name()}: {err.str()}")
        return self._text(str(exc))

    def alter_configs(
        self, groups: Mapping[Resource, Sequence[ConfigOp]], validate_only: bool
    ) -> dict[Resource, str | None]:
        """IncrementalAlterConfigs for topics and single brokers: per resource the broker's error."""
        resources: dict[Resource, ConfigResource] = {}
        for (kind, name), ops in groups.items():
            entries = [
                ConfigEntry(
                    c.key,
                    c.value,
                    incremental_operation=AlterConfigOpType.DELETE if c.delete else AlterConfigOpType.SET,
                )
                for c in ops
            ]
            rtype = ResourceType.TOPIC if kind == "topic" else ResourceType.BROKER
            resources[(kind, name)] = ConfigResource(rtype, name, incremental_configs=entries)
        try:
            futures = self._admin.incremental_alter_configs(
                list(resources.values()), validate_only=validate_only, request_timeout=self.settings.timeout
            )
        except (KafkaException, TypeError, ValueError) as exc:
            return dict.fromkeys(groups, self._text(str(exc)))
        by_resource = {(r.restype, r.name): f for r, f in futures.items()}
        out: dict[Resource, str | None] = {}
        for key, res in resources.items():
            fut = by_resource[(res.restype, res.name)]
            error: str | None = None
            try:
                fut.result(timeout=self.settings.timeout + 5)
            except KafkaException as exc:
                err: Any = exc.args[0] if exc.args else None
                error = self._text(f"{err.name()}: {err.str()}" if isinstance(err, KafkaError) else str(exc))
            except Exception as exc:  # a timeout of the future, or anything the client raises
                error = self._text(f"{type(exc).__name__}: {exc}")
            out[key] = error
        return out

    def elect(self, unclean: bool, partitions: Iterable[Key]) -> dict[Key, str | None]:
        """ElectLeaders: per partition the broker's error (None: elected)."""
        keys = list(dict.fromkeys(partitions))
        kind = ElectionType.UNCLEAN if unclean else ElectionType.PREFERRED
        try:
            # no request_timeout/operation_timeout: confluent-kafka 2.16.1 crashes with them
            future = self._admin.elect_leaders(kind, [TopicPartition(t, p) for t, p in keys])
            answer = future.result(timeout=self.settings.timeout + 5)
        except KafkaException as exc:
            return dict.fromkeys(keys, self._error(exc))
        except Exception as exc:  # a timeout of the future, or anything the client raises
            return dict.fromkeys(keys, self._text(f"{type(exc).__name__}: {exc}"))
        out: dict[Key, str | None] = dict.fromkeys(keys, "no answer for this partition")
        for tp, err in answer.items():
            key = (tp.topic, tp.partition)
            out[key] = None if err is None else self._error(err)
        return out

    def close(self) -> None:
        del self._admin


def alter_broker_default(settings: ConnectionSettings, ops: Sequence[ConfigOp], validate_only: bool) -> str | None:
    """IncrementalAlterConfigs for the cluster-wide broker default through kafka-python: the error, or None."""
    from kafka.admin import AlterConfigOp, ConfigResourceType
    from kafka.admin import ConfigResource as KPResource

    from kafkatui.kafka.source import _new_kafka_python_admin

    configs = {c.key: (AlterConfigOp.DELETE, None) if c.delete else (AlterConfigOp.SET, c.value) for c in ops}
    error: str | None = None
    kadmin = None
    try:
        kadmin = _new_kafka_python_admin(settings.to_kafka_python())
        # alter_configs() insists on a numeric broker name, so send the request it would build
        request = kadmin._alter_configs_request(
            [KPResource(ConfigResourceType.BROKER, "", configs)], validate_only, incremental=True
        )

        async def send() -> Any:
            response = await kadmin._manager.send(request)
            return kadmin._alter_configs_process_responses(response.responses)

        answer = kadmin._manager.run(send)
        result = answer.get("broker", {}).get("", "no answer for the broker default")
        if result != "OK":
            error = str(result)
    except Exception as exc:  # kafka-python raises many kinds; the user gets one line
        error = f"{type(exc).__name__}: {exc}"
    finally:
        if kadmin is not None:
            with contextlib.suppress(Exception):
                kadmin.close()
    return None if error is None else one_line(scrub(error, settings.secrets()))


def _error_text(err: Any) -> str:
    name = getattr(err, "message", None) or getattr(err, "__name__", None) or str(err)
    desc = getattr(err, "description", "")
    return f"{name}: {desc}" if desc else str(name)


class ReassignmentClient:
    """AlterPartitionReassignments / ListPartitionReassignments (kafka-python) with the user's settings."""

    def __init__(self, settings: ConnectionSettings) -> None:
        from kafkatui.kafka.source import _new_kafka_python_admin

        self.settings = settings
        self._secrets = settings.secrets()
        try:
            self._admin = _new_kafka_python_admin(settings.to_kafka_python())
        except Exception as exc:  # kafka-python raises many kinds; the user gets one line
            raise KafkaTuiError(self._text(f"connecting for the reassignment: {type(exc).__name__}: {exc}")) from None

    def _text(self, text: str) -> str:
        return one_line(scrub(text, self._secrets))

    def _timeout_ms(self) -> int:
        return int(self.settings.timeout * 1000)

    def alter(self, targets: Mapping[Key, list[int] | None]) -> dict[Key, str | None]:
        """Move each partition to its replicas (None: cancel its reassignment); per partition the error."""
        from kafka import TopicPartition as KPTopicPartition

        try:
            answer = self._admin.alter_partition_reassignments(
                {KPTopicPartition(t, p): r for (t, p), r in targets.items()}, timeout_ms=self._timeout_ms()
            )
        except Exception as exc:  # a top-level error: every partition failed
            return dict.fromkeys(targets, self._text(f"{type(exc).__name__}: {exc}"))
        out: dict[Key, str | None] = dict.fromkeys(targets, "no answer for this partition")
        for tp, err in answer.items():
            out[(tp.topic, tp.partition)] = None if err is None else self._text(_error_text(err))
        return out

    def ongoing(self, topics: Iterable[str] | None = None) -> dict[Key, dict[str, list[int]]]:
        """Reassignments in progress (all, or of `topics`): replicas, adding and removing per partition."""
        try:
            answer = self._admin.list_partition_reassignments(timeout_ms=self._timeout_ms())
        except Exception as exc:
            raise KafkaTuiError(self._text(f"listing reassignments: {type(exc).__name__}: {exc}")) from None
        wanted = None if topics is None else set(topics)
        return {(tp.topic, tp.partition): v for tp, v in answer.items() if wanted is None or tp.topic in wanted}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._admin.close()
