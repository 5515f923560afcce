"""Broker-log parsing: every ISR line form of Kafka 2.x, 3.x and 4.x, damage, files and merging."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from kafkatui.history.logparse import IsrLogEvent, parse_line, parse_logs

TS = int(datetime(2026, 11, 20, 2, 13, 44, 123000, tzinfo=UTC).timestamp() * 1000)


def one(line: str) -> IsrLogEvent:
    ev = parse_line(line, "f:1")
    assert ev is not None, line
    return ev


# -- shrink ------------------------------------------------------------------------------------------


def test_shrink_2x() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Shrinking ISR from 1,2,3 to 1,2. "
        "Leader: (highWatermark: 100, endOffset: 120). Out of sync replicas: (brokerId: 3, endOffset: 100). "
        "(kafka.cluster.Partition)\n"
    )
    assert ev == IsrLogEvent(
        TS, 1, "orders", 0, "shrink", (1, 2, 3), (1, 2), None, ((3, 100, None),), 100, 120, None, "f:1"
    )


def test_shrink_several_replicas_space_separated() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Partition orders-7 broker=1] Shrinking ISR from 1,2,3 to 1. "
        "Leader: (highWatermark: 5985570, endOffset: 5985849). Out of sync replicas: "
        "(brokerId: 2, endOffset: 5985570) (brokerId: 3, endOffset: 5985001). (kafka.cluster.Partition)"
    )
    assert ev.partition == 7
    assert ev.new_isr == (1,)
    assert ev.out_of_sync == ((2, 5985570, None), (3, 5985001, None))


def test_shrink_36_last_caught_up() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Shrinking ISR from 1,2,3 to 1. "
        "Leader: (highWatermark: 100, endOffset: 120). Out of sync replicas: "
        "(brokerId: 2, endOffset: 100, lastCaughtUpTimeMs: 1763604824000) "
        "(brokerId: 3, endOffset: unknown, lastCaughtUpTimeMs: 1763604820000). (kafka.cluster.Partition)"
    )
    assert ev.out_of_sync == ((2, 100, 1763604824000), (3, None, 1763604820000))
    assert (ev.high_watermark, ev.end_offset) == (100, 120)


# -- expand ------------------------------------------------------------------------------------------


def test_expand_2x() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Expanding ISR from 1,2 to 1,2,3 "
        "(kafka.cluster.Partition)"
    )
    assert (ev.kind, ev.old_isr, ev.new_isr, ev.under_min_isr) == ("expand", (1, 2), (1, 2, 3), None)


# -- ISR updated to ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "isr", "under"),
    [
        # 2.4-2.7 (ZooKeeper)
        (
            "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to [1,2] and zkVersion updated to [7] "
            "(kafka.cluster.Partition)",
            (1, 2),
            None,
        ),
        # 2.8 / 3.0
        (
            "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to 1,2 and version updated to [5] "
            "(kafka.cluster.Partition)",
            (1, 2),
            None,
        ),
        # 3.1 - 3.4
        (
            "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to 1,2 and version updated to 5 "
            "(kafka.cluster.Partition)",
            (1, 2),
            None,
        ),
        # 3.5+ / 4.x, under min ISR
        (
            "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to 1 (under-min-isr) and version "
            "updated to 5 (kafka.cluster.Partition)",
            (1,),
            True,
        ),
        # 3.5+ / 4.x, not under min ISR: two spaces before "and"
        (
            "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to 1,2,3  and version updated to 6 "
            "(kafka.cluster.Partition)",
            (1, 2, 3),
            False,
        ),
    ],
)
def test_isr_updated_variants(line: str, isr: tuple[int, ...], under: bool | None) -> None:
    ev = one(line)
    assert (ev.ts_ms, ev.broker, ev.topic, ev.partition) == (TS, 1, "orders", 0)
    assert (ev.kind, ev.old_isr, ev.new_isr, ev.under_min_isr) == ("update", None, isr, under)


@pytest.mark.parametrize(
    ("prefix", "topic", "partition"),
    [
        ("payments.eu-west_1.v2-13", "payments.eu-west_1.v2", 13),
        ("__consumer_offsets-49", "__consumer_offsets", 49),
        ("a-b-c-0", "a-b-c", 0),
        ("orders-10-3", "orders-10", 3),
    ],
)
def test_topic_names_partition_after_last_dash(prefix: str, topic: str, partition: int) -> None:
    ev = one(
        f"[2026-11-20 02:13:44,123] INFO [Partition {prefix} broker=12] ISR updated to 12,13  and version "
        "updated to 5 (kafka.cluster.Partition)"
    )
    assert (ev.topic, ev.partition, ev.broker) == (topic, partition, 12)


# -- leader lines ------------------------------------------------------------------------------------


def test_leader_state_change_log_3x_4x() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Broker id=2] Leader orders.v1-3 with topic id Some(JEBHuSVSTC-4b0wSYaiylg) "
        "starts at leader epoch 7 from offset 5120 with partition epoch 9, high watermark 5100, ISR [2,3], "
        "adding replicas [] and removing replicas []. Previous leader epoch was 6. (state.change.logger)"
    )
    assert (ev.kind, ev.broker, ev.topic, ev.partition, ev.leader_epoch, ev.new_isr) == (
        "leader",
        2,
        "orders.v1",
        3,
        7,
        (2, 3),
    )
    assert (ev.end_offset, ev.high_watermark) == (5120, 5100)


def test_leader_state_change_log_newest_wording() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Broker id=0] Leader trader-updates-0 with topic id "
        "Some(xwOSmueMQ26UEYGZcRxw-w) starts at leader epoch 0 from offset 0 with partition epoch 0, high "
        "watermark 0, ISR [0], adding replicas [] and removing replicas [] . Previous leader None and previous "
        "leader epoch was -1. (state.change.logger)"
    )
    assert (ev.topic, ev.partition, ev.leader_epoch, ev.new_isr) == ("trader-updates", 0, 0, (0,))


def test_leader_state_change_log_2x_without_topic_id() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Broker id=1] Leader orders-0 starts at leader epoch 4 from offset 88 "
        "with high watermark 80 ISR [1,2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 3. "
        "(state.change.logger)"
    )
    assert (ev.kind, ev.leader_epoch, ev.new_isr, ev.high_watermark) == ("leader", 4, (1, 2, 3), 80)


def test_leader_server_log_2x() -> None:
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] orders-0 starts at Leader Epoch 5 from "
        "offset 0. Previous Leader Epoch was: 4 (kafka.cluster.Partition)"
    )
    assert (ev.kind, ev.broker, ev.leader_epoch, ev.new_isr) == ("leader", 1, 5, ())


def test_kraft_leader_told_of_a_new_isr_without_new_epoch() -> None:
    """A broker fenced or shut down leaves the ISR by the controller's hand: the leader logs only this."""
    ev = one(
        "[2026-11-20 02:13:44,123] INFO [Broker id=1] Skipped the become-leader state change for orders-7 with "
        "topic id Some(JEBHuSVSTC-4b0wSYaiylg) and partition state LeaderAndIsrPartitionState(topicName='orders', "
        "partitionIndex=7, controllerEpoch=-1, leader=1, leaderEpoch=4, isr=[1, 2], partitionEpoch=9, "
        "replicas=[1, 2, 3], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0) since "
        "it is already the leader with leader epoch 4. Current high watermark 5100, ISR [1,2], adding replicas [] "
        "and removing replicas []. (state.change.logger)"
    )
    assert (ev.kind, ev.broker, ev.topic, ev.partition, ev.leader_epoch, ev.new_isr, ev.high_watermark) == (
        "update",
        1,
        "orders",
        7,
        4,
        (1, 2),
        5100,
    )


_REG_44 = (
    "PartitionRegistration(replicas=[1, 2, 3], directories=[7UNv0CjHMtNK3K8O8g1ghg, u8lRzC3aovMhHk11onKOPg, "
    "wDPoVoVKlPDohAOQ_MZ_8Q], isr=[{isr}], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], "
    "leader={leader}, leaderRecoveryState=RECOVERED, leaderEpoch={epoch}, partitionEpoch=7)"
)
"""Kafka 4.4 prints the PartitionRegistration in skipped state changes (the ISR before the leader)."""


def test_kafka_44_leader_told_of_a_new_isr_without_new_epoch() -> None:
    """4.4's wording: `, partition registration PartitionRegistration(...) and isNew=false since ...` (lab run)."""
    ev = one(
        "[2026-11-28 14:29:20,184] INFO [Broker id=1] Skipped the become-leader state change for logs-rf3-0 with "
        "topic id Some(6I7MGRa3SNyrm5lUl008oA), partition registration "
        + _REG_44.format(isr="1, 2", leader=1, epoch=0)
        + " and isNew=false since it is already the leader with leader epoch 0. Current high watermark 111, ISR "
        "[1,2], adding replicas [] and removing replicas []. (state.change.logger)"
    )
    assert (ev.kind, ev.broker, ev.topic, ev.partition, ev.leader_epoch, ev.new_isr, ev.high_watermark) == (
        "update",
        1,
        "logs-rf3",
        0,
        0,
        (1, 2),
        111,
    )


def test_kafka_44_follower_told_its_partition_has_no_leader(tmp_path: Path) -> None:
    """A follower of a partition whose leader was fenced with nobody to replace it: an `offline` event."""
    line = (
        "[2026-11-28 14:29:31,002] INFO [Broker id=2] Skipped the become-follower state change for audit-1 with "
        "topic id Some(6I7MGRa3SNyrm5lUl008oA), partition registration {reg} and isNew=false since it is already "
        "a follower with leader epoch 5. (state.change.logger)"
    )
    ev = one(line.format(reg=_REG_44.format(isr="3", leader=-1, epoch=6)))
    assert (ev.kind, ev.broker, ev.topic, ev.partition, ev.leader, ev.leader_epoch, ev.new_isr) == (
        "offline",
        2,
        "audit",
        1,
        -1,
        6,
        (3,),
    )
    # naming a live leader, the line is understood (that leader logs the change itself): no event, not unparsed
    led = line.format(reg=_REG_44.format(isr="2, 3", leader=3, epoch=6))
    assert parse_line(led) is None
    (tmp_path / "state-change.log").write_text(led + "\n", encoding="utf-8")
    _, report = parse_logs([tmp_path / "state-change.log"])
    assert (report.unparsed, report.skipped) == (0, 1), report.unparsed_examples


def test_skipped_become_leader_without_isr_is_not_an_event() -> None:
    line = (
        "[2026-11-20 02:13:44,123] INFO [Broker id=1] Skipped the become-leader state change for orders-7 with "
        "topic id AAAAAAAAAAAAAAAAAAAAAA because this partition is already a local leader. (state.change.logger)"
    )
    assert parse_line(line) is None


# -- what is not an event ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "",
        "garbage \x00\xff line",
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Log loaded for partition orders-0 with initial "
        "high watermark 0 (kafka.cluster.Partition)",
        "[2026-11-20 02:13:44,123] INFO [KafkaServer id=1] started (kafka.server.KafkaServer)",
        "\tat kafka.cluster.Partition.shrinkIsr(Partition.scala:123)",
    ],
)
def test_other_lines_are_none(line: str) -> None:
    assert parse_line(line) is None


@pytest.mark.parametrize(
    "line",
    [
        # truncated mid-line (the logger suffix is missing)
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to 1,2 and vers",
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Shrinking ISR from 1,2,3 to 1,2. Leader: (highWat",
        # mangled numbers
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] ISR updated to 1,x and version updated to 5 "
        "(kafka.cluster.Partition)",
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Shrinking ISR from 1,2,3 to 1,2. Leader: "
        "(highWatermark: 100, endOffset: 120). Out of sync replicas: (brokerId: three). (kafka.cluster.Partition)",
        # no timestamp
        "INFO [Partition orders-0 broker=1] Expanding ISR from 1,2 to 1,2,3 (kafka.cluster.Partition)",
    ],
)
def test_broken_isr_lines_parse_to_none(line: str) -> None:
    assert parse_line(line) is None


def test_tz_parameter() -> None:
    line = (
        "[2026-11-20 02:13:44,123] INFO [Partition orders-0 broker=1] Expanding ISR from 1,2 to 1,2,3 "
        "(kafka.cluster.Partition)"
    )
    cet = timezone(timedelta(hours=1))
    assert one(line).ts_ms == TS
    ev = parse_line(line, tz=cet)
    assert ev is not None and ev.ts_ms == TS - 3_600_000


# -- files -------------------------------------------------------------------------------------------


def _line(ts: str, broker: int, msg: str, topic: str = "orders-0") -> str:
    return f"[2026-11-20 {ts}] INFO [Partition {topic} broker={broker}] {msg} (kafka.cluster.Partition)\n"


def test_files_plain_rotated_gz_merged_in_time_order(tmp_path: Path) -> None:
    b1 = tmp_path / "broker1"
    b2 = tmp_path / "broker2"
    b1.mkdir()
    b2.mkdir()
    # broker 1: rotated hour 02 (plain), current server.log
    (b1 / "server.log.2026-11-20-02").write_text(
        _line(
            "02:13:44,123",
            1,
            "Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 1, endOffset: 2). "
            "Out of sync replicas: (brokerId: 3, endOffset: 1).",
        )
        + "[2026-11-20 02:13:45,000] INFO [KafkaServer id=1] something else (kafka.server.KafkaServer)\n"
        + _line("02:20:00,000", 1, "ISR updated to 1,2,3  and version updated to 9")
    )
    (b1 / "server.log").write_text(
        _line("03:00:00,500", 1, "ISR updated to 1,x and version updated to 9")  # unparsed
        + _line("03:00:01,000", 1, "ISR updated to 1 (under-min-isr) and version updated to 10")
    )
    # broker 2: a gzipped rotated hour
    with gzip.open(b2 / "server.log.2026-11-20-02.gz", "wt") as f:
        f.write(_line("02:15:00,000", 2, "Expanding ISR from 2 to 2,3", "payments.eu-1"))
        f.write("not a log line\n")
    events, report = parse_logs(str(tmp_path / "broker*" / "server.log*"))
    assert [(e.ts_ms % 86_400_000, e.broker, e.kind) for e in events] == [
        ((2 * 3600 + 13 * 60 + 44) * 1000 + 123, 1, "shrink"),
        ((2 * 3600 + 15 * 60) * 1000, 2, "expand"),
        ((2 * 3600 + 20 * 60) * 1000, 1, "update"),
        ((3 * 3600 + 1) * 1000, 1, "update"),
    ]
    assert events[1].topic == "payments.eu" and events[1].partition == 1
    assert events[0].source.endswith("server.log.2026-11-20-02:1")
    assert (report.files, report.lines, report.events, report.unparsed, report.skipped) == (3, 7, 4, 1, 2)
    assert report.problems == []
    assert "1,x" in report.unparsed_examples[0]


def test_truncated_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    body = "".join(
        _line(f"02:{m:02d}:00,000", 1, f"ISR updated to 1,2  and version updated to {m}") for m in range(60)
    ).encode()
    whole = gzip.compress(body)
    path = tmp_path / "server.log.2026-11-20-02.gz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    events, report = parse_logs([path])
    assert 0 < len(events) < 60
    assert [e.ts_ms for e in events] == sorted(e.ts_ms for e in events)
    assert len(report.problems) == 1 and "truncated" in report.problems[0]
    assert all(e.kind == "update" for e in events)  # a cut last line is never mistaken for an event


def test_missing_file_and_empty_glob_are_problems(tmp_path: Path) -> None:
    events, report = parse_logs([tmp_path / "nope.log", str(tmp_path / "*.gz")])
    assert events == []
    assert len(report.problems) == 2
    assert "2 problems" in report.summary()
