"""`kafkatui lab ctl load TOPIC`: keep producing to a topic, so that a hung follower really falls out
of the ISR (a follower of an idle partition is never "out of sync")."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class LoadReport:
    """What a load run did."""

    sent: int = 0
    acked: int = 0
    failed: int = 0
    last_error: str = ""  # the last failure's error name, "" once a later write of its partition succeeded


def produce(
    bootstrap: str,
    topic: str,
    rate: float,
    seconds: float | None,
    acks: str = "1",
    tick: Callable[[LoadReport], None] | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> LoadReport:
    """Produce ~`rate` small records per second to every partition of `topic` (round robin) until
    `seconds` have passed (None: until `stop()` or Ctrl-C); `tick` is called about once a second."""
    from confluent_kafka import KafkaError, Producer

    report = LoadReport()

    failing: dict[int, str] = {}  # partition -> its last error, until a write to it succeeds

    def delivered(err: KafkaError | None, msg: Any) -> None:
        part = msg.partition() if msg is not None else -1
        if err is None:
            report.acked += 1
            if failing:  # recovered: the error is said only while some partition still fails
                failing.pop(part, None)
                failing.pop(-1, None)
                report.last_error = next(iter(failing.values()), "")
        else:
            report.failed += 1
            failing[part] = report.last_error = err.name()

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": acks,
            "linger.ms": 5,
            "message.timeout.ms": 10000,
            # a few quick retries ride out a leader move; a lasting broker error (NOT_ENOUGH_REPLICAS under
            # min ISR with acks=all) is then reported by its name, not as the message timeout
            "retries": 3,
            "retry.backoff.ms": 250,
            "enable.idempotence": False,
        }
    )
    start = time.monotonic()
    next_tick = start + 1.0
    interval = 1.0 / rate if rate > 0 else 0.0
    i = 0
    try:
        while not stop() and (seconds is None or time.monotonic() - start < seconds):
            try:
                producer.produce(topic, value=f"kafkatui-lab-load {i}".encode(), on_delivery=delivered)
                report.sent += 1
            except BufferError:
                pass
            except Exception as exc:  # noqa: BLE001 - an unknown topic etc. is reported, not raised
                report.failed += 1
                failing[-1] = report.last_error = str(exc)
            i += 1
            producer.poll(0)
            now = time.monotonic()
            if tick is not None and now >= next_tick:
                tick(report)
                next_tick = now + 1.0
            if interval:
                time.sleep(max(0.0, start + i * interval - time.monotonic()))
    finally:
        producer.flush(10)
    return report
