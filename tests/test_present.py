"""How a PARTIAL snapshot's problems read to a person: what is missing, and why, said once."""

from __future__ import annotations

from kafkatui.present import problem_words, problems_sentence


def test_a_dead_broker_is_said_once_in_words() -> None:
    problems = [
        "configs of broker 2 unreadable: connection refused: the broker is down (listed until the controller "
        "fences it)",
        "log dirs of broker 2 unknown: connection failed (KafkaConnectionError: 111 ECONNREFUSED)",
    ]
    assert problems_sentence(problems) == (
        "missing: the configs of broker 2, replica sizes and lag on broker 2 "
        "(the broker refused the connection: it is down or restarting)"
    )


def test_a_hung_broker_and_a_denied_topic_keep_their_own_reasons() -> None:
    assert problem_words("configs of broker 3 unreadable: no answer within 10.0s") == (
        "the configs of broker 3",
        "no answer within 10.0 s",
    )
    what, why = problem_words(
        "configs of 4 topic(s) unreadable: not authorized (TOPIC_AUTHORIZATION_FAILED; needs DESCRIBE_CONFIGS on "
        "the topics); broker or Kafka defaults assumed (a, b, c, d)"
    )
    assert what == "the configs of 4 topic(s)" and why == "not authorized (TOPIC_AUTHORIZATION_FAILED)"
