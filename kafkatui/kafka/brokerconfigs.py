"""Broker configs read through kafka-python, one DescribeConfigs per broker naming the kept keys.

Used once kafka-python is connected (a dashboard's refreshes). librdkafka sends a request meant for one
broker only once that broker's connection is up, and while the broker refuses connections (it died and
is still listed until the controller fences it) it reconnects without a pause for as long as the request
waits: measured at 105,000 partitions, 4-6 s of a core in its threads per refresh, beside the dashboard's
own work. kafka-python fails such a request at once and backs off its reconnects. The answer is also
about 15 times smaller than librdkafka's (every config, with synonyms, a Python object each).
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kafkatui.kafka import topicconfigs
from kafkatui.kafka.diagnose import _kp_reason
from kafkatui.kafka.kpraw import settle
from kafkatui.model.snapshot import ConfigValue

BROKER_RESOURCE = 4
"""DescribeConfigs resource type of a broker."""


@dataclass(frozen=True, slots=True)
class KeptConfigs:
    """One broker's kept configs, as the answer to its request."""

    values: dict[str, ConfigValue]


class ConfigsUnreadable(Exception):
    """Why one broker's configs could not be read, in words (the problem line's reason). `answered`: the
    broker said so (an error code); otherwise no answer came (refused, timed out, connection given up)."""

    def __init__(self, reason: str, *, answered: bool = False) -> None:
        super().__init__(reason)
        self.answered = answered


def unanswered(fut: cf.Future[Any]) -> bool:
    """Whether a broker's config request has no answer: still pending, or failed without one."""
    if not fut.done():
        return True
    exc = fut.exception()
    return isinstance(exc, ConfigsUnreadable) and not exc.answered


def knows(kadmin: Any, broker: int) -> bool:
    """Whether kafka-python's broker list holds `broker` (one that just joined may be missing)."""
    try:
        return kadmin._manager.cluster.broker_metadata(broker) is not None
    except Exception:  # another kafka-python
        return False


def send(kadmin: Any, brokers: Sequence[int], keys: Iterable[str], timeout: float) -> dict[int, cf.Future[Any]]:
    """A DescribeConfigs to each of `brokers` asking for its own `keys`, all sent at once; per broker a
    future of its `KeptConfigs`, or failing with `ConfigsUnreadable`. No thread waits for the answers."""
    from kafka.protocol.admin import DescribeConfigsRequest

    manager = kadmin._manager
    timeout_ms = max(1, int(timeout * 1000))
    wanted = sorted(keys)
    futures: dict[int, cf.Future[Any]] = {bid: cf.Future() for bid in brokers}

    def answered(bid: int, response: Any) -> None:
        got = topicconfigs.read_responses([response], frozenset(wanted), timeout, set_here="UNKNOWN")
        values = got.configs.get(str(bid))
        if values is not None:
            settle(futures[bid], KeptConfigs(values), None)
        else:
            reason = next(iter(got.failed), "the answer did not name the broker")
            settle(futures[bid], None, ConfigsUnreadable(reason, answered=True))

    def failed(bid: int, exc: BaseException) -> None:
        settle(futures[bid], None, ConfigsUnreadable(_kp_reason(exc, timeout)))

    async def send_all() -> None:  # on kafka-python's IO thread: its connections are used from there
        for bid in brokers:
            request = DescribeConfigsRequest(resources=[(BROKER_RESOURCE, str(bid), wanted)], include_synonyms=False)
            try:
                sent = manager.send(request, node_id=bid, request_timeout_ms=timeout_ms)
            except Exception as exc:
                failed(bid, exc)
                continue
            sent.add_callback(lambda response, bid=bid: answered(bid, response))
            sent.add_errback(lambda exc, bid=bid: failed(bid, exc))

    try:
        manager.run(send_all)
    except Exception as exc:
        for bid in brokers:
            failed(bid, exc)
    return futures


__all__ = ["BROKER_RESOURCE", "ConfigsUnreadable", "KeptConfigs", "knows", "send", "unanswered"]
