"""The admin client the write commands share: built from the user's settings, quiet, secrets scrubbed."""

from __future__ import annotations

import logging
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from kafkatui.kafka.errors import UsageError, one_line, scrub
from kafkatui.kafka.settings import ConnectionSettings


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
