"""The metadata read's attempts: a cluster slow to answer is asked again once per attempt, not twice at once.

librdkafka's list_topics times out a moment after the attempt's time is up, so the next attempt has
usually gone out already when the failure is seen. A failure seen then used to send a third one 0.1 s
later: at 105,000 partitions, with the simulator slow to answer after a controlled shutdown, the
dashboard decoded the metadata twice (0.55 s each) in the refresh that carried the incident. The clients
here are stand-ins with librdkafka's timing: the loop's scheduling is what is tested.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource

LATE = 0.05  # librdkafka's timeout fires this long after the attempt's time is up
ANSWER = 0.5  # the second client's answer comes this long after its request


class SlowClient:
    """A client whose metadata request times out (the first) or is answered after `ANSWER` seconds."""

    def __init__(self, calls: list[tuple[str, float]], name: str, answers: bool) -> None:
        self.calls, self.name, self.answers = calls, name, answers
        self.lock = threading.Lock()

    def poll(self, _: float) -> int:
        return 0

    def list_topics(self, timeout: float) -> Any:
        with self.lock:
            self.calls.append((self.name, time.monotonic()))
        if not self.answers:
            time.sleep(timeout + LATE)
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT))
        time.sleep(ANSWER)
        return f"metadata from {self.name}"


def test_an_attempt_that_times_out_as_the_next_goes_out_sends_no_third() -> None:
    source = KafkaClusterSource(ConnectionSettings("127.0.0.1:9", timeout=10))
    calls: list[tuple[str, float]] = []
    first = SlowClient(calls, "first", answers=False)
    second = SlowClient(calls, "second", answers=True)
    try:
        source._md_seconds = 0.25  # a refresh: the last read took 0.25 s, so an attempt gets 1 s
        source._md_admin = first  # type: ignore[assignment]  # its connections are up: no waiting to send
        source._new_admin = lambda: second  # type: ignore[method-assign]
        cluster: cf.Future[Any] = cf.Future()
        cluster.set_result(None)
        start = time.monotonic()
        md, client = source._metadata(first, start, start + 10, cluster)  # type: ignore[arg-type]
    finally:
        source.close()
    assert (md, client) == ("metadata from second", second)
    assert [name for name, _ in calls] == ["first", "second"], calls
