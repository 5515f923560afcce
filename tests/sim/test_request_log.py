"""The simulator's request log and the requests-in-sequence count the latency bench reports."""

from __future__ import annotations

from confluent_kafka.admin import AdminClient

from kafkatui.sim.runner import SimRunner
from kafkatui.sim.server import requests_in_sequence


def test_pipelined_requests_count_one_after_another_and_parallel_ones_once() -> None:
    one_connection = [(0.0, 0.1, 1, 18, "c"), (0.1, 0.2, 1, 3, "c"), (0.2, 0.3, 1, 3, "c")]
    fan_out = [(0.3, 0.4, b, 32, "c") for b in (1, 2, 3)]
    assert requests_in_sequence(one_connection) == 3
    assert requests_in_sequence(one_connection + fan_out) == 4
    assert requests_in_sequence([]) == 0


def test_a_real_client_s_requests_are_logged_in_order() -> None:
    with SimRunner(brokers=1) as sim:
        sim.call(lambda c: c.create_topic("orders", 3, 1))
        sim.delay_responses(1, 0.02)
        sim.server.request_log = []
        admin = AdminClient({"bootstrap.servers": sim.bootstrap, "client.id": "log-test"})
        assert "orders" in admin.list_topics(timeout=10).topics
        log = list(sim.server.request_log)
    keys = [key for _, _, _, key, _ in sorted(log)]
    assert keys[0] == 18 and 3 in keys  # ApiVersions first, then Metadata
    assert {client for *_, client in log} == {"log-test"}
    assert all(answered - received >= 0.02 for received, answered, *_ in log)  # the delay is in the span
    assert 2 <= requests_in_sequence(log) <= len(log)
