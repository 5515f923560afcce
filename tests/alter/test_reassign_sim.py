"""`kafkatui reassign` against the simulator: RF 1 -> 3 until the ISR holds 3, rack-aware plans,
export, cancel, revert, audit records and refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kafkatui.alter.reassign_cmd import main_reassign
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.events import EventKind
from kafkatui.sim.runner import SimRunner
from tests.alter.support import RATE, RECORDS_PER_PARTITION, Tty, racked_cluster, records, replicas_isr

pytestmark = pytest.mark.usefixtures("audit_log")  # the shared fixture in tests/conftest.py


@pytest.fixture
def racked(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    return racked_cluster(sim_factory)


def reassign(sim: SimRunner, *args: str, stdin: Tty | None = None) -> int:
    return main_reassign(["--bootstrap", sim.bootstrap, *args], stdin=stdin)


def rack_of(sim: SimRunner) -> dict[int, str | None]:
    return sim.call(lambda c: {b.id: b.rack for b in c.brokers.values()})


def test_read_only_refusal(racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    before = replicas_isr(racked)
    assert reassign(racked, "--topic", "orders", "--replication-factor", "3", "--yes") == 12
    assert "kafkatui is read-only" in capsys.readouterr().err
    assert replicas_isr(racked) == before and not audit_log.exists()


def test_raise_rf_1_to_3_until_the_isr_holds_3(
    racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    before = replicas_isr(racked)
    assert reassign(racked, "--topic", "orders", "--replication-factor", "3", "--write", stdin=Tty("orders\n")) == 0
    captured = capsys.readouterr()
    assert "reassignment of orders: replication factor 1 -> 3 (3 partition(s))" in captured.out
    assert "3 of 3 partitions finished: 6 of 6 new replicas in the ISR" in captured.out
    assert "6/6" in captured.err  # the progress bar's last state
    racks = rack_of(racked)
    after = replicas_isr(racked)
    for (old, _), (replicas, isr) in zip(before, after, strict=True):
        assert replicas[0] == old[0] and len(replicas) == 3 and sorted(isr) == sorted(replicas)
        assert len({racks[r] for r in replicas}) == 3  # one replica per rack
    # the simulator copied: each new replica joined the ISR only after the reassignment began, and holds the data
    events = racked.call(lambda c: c.events.snapshot())
    started = {e.partition: e.ts_ms for e in events if e.kind == EventKind.REASSIGNMENT_STARTED}
    expands = [e for e in events if e.kind == EventKind.ISR_EXPAND and e.topic == "orders"]
    assert len(expands) == 6 and all(e.ts_ms > started[e.partition] for e in expands)
    assert racked.call(
        lambda c: all(p.leo[r] == RECORDS_PER_PARTITION for p in c.topic("orders").partitions for r in p.replicas)
    )
    recs = records(audit_log)
    assert [(r["resource"]["partition"], r["before"]["replicas"], r["after"]["replicas"]) for r in recs] == [
        (i, old, new) for i, ((old, _), (new, _)) in enumerate(zip(before, after, strict=True))
    ]
    assert all(r["action"] == "reassign" and r["result"] == "ok" for r in recs)


def set_rate(sim: SimRunner, rate: float) -> None:
    sim.call(lambda c: setattr(c, "replication_rate", rate))


def test_no_wait_returns_while_the_isr_is_still_growing(racked: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    set_rate(racked, 2_000.0)  # 15 s of copying: still going when the command returns
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--write", "--yes", "--no-wait") == 0
    assert "not waiting" in capsys.readouterr().out
    growing = replicas_isr(racked)
    assert all(len(replicas) == 3 for replicas, _ in growing)
    assert all(len(isr) == 1 for _, isr in growing)
    set_rate(racked, RATE)
    assert racked.wait_for(lambda c: all(len(p.isr) == 3 for p in c.topic("orders").partitions), 20)


def test_export_json_parses_and_changes_nothing(
    racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    before = replicas_isr(racked)
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--export") == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["version"] == 1 and [p["partition"] for p in doc["partitions"]] == [0, 1, 2]
    racks = rack_of(racked)
    for part, (old, _) in zip(doc["partitions"], before, strict=True):
        assert part["topic"] == "orders" and part["replicas"][0] == old[0] and len(part["log_dirs"]) == 3
        assert len({racks[r] for r in part["replicas"]}) == 3
    assert "--reassignment-json-file reassign.json --execute" in captured.err and racked.bootstrap in captured.err
    rollback = json.loads(captured.err.split("rollback.json (the current assignment): ")[1].splitlines()[0])
    assert [p["replicas"] for p in rollback["partitions"]] == [old for old, _ in before]
    assert replicas_isr(racked) == before and not audit_log.exists()


def test_cancel_an_inflight_reassignment(
    racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    before = replicas_isr(racked)
    set_rate(racked, 2_000.0)  # 15 s of copying: still going when it is cancelled
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--write", "--yes", "--no-wait") == 0
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--write", "--yes") == 18
    assert "already in progress" in capsys.readouterr().err
    assert reassign(racked, "--topic", "orders", "--cancel", "--write", stdin=Tty("orders\n")) == 0
    out = capsys.readouterr().out
    assert "cancel the reassignment of 3 partition(s) of orders" in out
    assert replicas_isr(racked) == before
    cancels = [r for r in records(audit_log) if r["action"] == "reassign-cancel"]
    assert len(cancels) == 3 and all(r["result"] == "ok" and len(r["after"]["replicas"]) == 1 for r in cancels)
    assert reassign(racked, "--topic", "orders", "--cancel", "--write", "--yes") == 18


def test_revert_last_moves_the_partitions_back(racked: SimRunner, audit_log: Path) -> None:
    before = replicas_isr(racked)
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--write", "--yes") == 0
    assert reassign(racked, "--revert-last", "--write", stdin=Tty("orders\n")) == 0
    assert replicas_isr(racked) == before
    reverts = [r for r in records(audit_log) if r.get("revert_of")]
    assert len(reverts) == 3 and all(len(r["after"]["replicas"]) == 1 for r in reverts)


def test_refusals(racked: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    assert reassign(racked, "--topic", "orders", "--rf", "7", "--write", "--yes") == 18
    assert "only 6 broker(s) are up" in capsys.readouterr().err
    assert reassign(racked, "--topic", "orders", "--rf", "0", "--dry-run") == 3
    assert reassign(racked, "--topic", "nope", "--rf", "2", "--dry-run") == 3
    assert "unknown topic 'nope'" in capsys.readouterr().err
    assert reassign(racked, "--revert-last", "--write", "--yes") == 16
    assert reassign(racked, "--topic", "orders", "--rf", "1", "--write", "--yes") == 0
    assert "nothing to do" in capsys.readouterr().out
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--write", stdin=Tty("order\n")) == 14
    assert all(len(r) == 1 for r, _ in replicas_isr(racked))


def test_audit_records_hold_no_secret(racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    secret = "S3cr3t-Pa55w0rd-xyz"
    assert (
        reassign(
            racked,
            "-X",
            f"sasl.password={secret}",
            "-X",
            "sasl.username=ops",
            "--topic",
            "orders",
            "--rf",
            "2",
            "--write",
            "--yes",
        )
        == 0
    )
    captured = capsys.readouterr()
    assert len(records(audit_log)) == 3 and secret not in audit_log.read_text()
    assert secret not in captured.out and secret not in captured.err


def throttles(sim: SimRunner, topic: str = "orders") -> tuple[dict[str, str], dict[int, dict[str, str]]]:
    """The topic's throttle overrides and each broker's dynamic throttle rates, as the simulator holds them."""

    def read(c: SimCluster) -> tuple[dict[str, str], dict[int, dict[str, str]]]:
        store = c.configs
        t = {k: v for k, v in store.topic_overrides(topic).items() if "throttled" in k}
        b = {
            bid: {k: v for k, v in store.dynamic_broker_configs(bid).items() if "throttled" in k}
            for bid in store.broker_ids()
        }
        return t, {bid: v for bid, v in b.items() if v}

    return sim.call(read)


def test_throttle_is_set_while_copying_and_removed_when_done(
    racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    set_rate(racked, 2_000.0)
    assert (
        reassign(racked, "--topic", "orders", "--rf", "2", "--throttle", "1000000", "--write", "--yes", "--no-wait")
        == 0
    )
    assert "--clear-throttle --write" in capsys.readouterr().out
    topic_cfg, broker_cfg = throttles(racked)
    moves = racked.call(lambda c: [(p.index, p.replicas) for p in c.topic("orders").partitions])
    assert topic_cfg["leader.replication.throttled.replicas"] == ",".join(f"{i}:{r[0]}" for i, r in moves)
    assert topic_cfg["follower.replication.throttled.replicas"] == ",".join(f"{i}:{r[1]}" for i, r in moves)
    assert set(broker_cfg) == {b for _, r in moves for b in r}
    assert all(
        v == {"leader.replication.throttled.rate": "1000000", "follower.replication.throttled.rate": "1000000"}
        for v in broker_cfg.values()
    )
    # cancelling removes the throttle too
    assert reassign(racked, "--topic", "orders", "--cancel", "--write", "--yes") == 0
    assert "throttle removed" in capsys.readouterr().out
    assert throttles(racked) == ({}, {})
    # waiting to the end removes it by itself
    set_rate(racked, RATE)
    assert reassign(racked, "--topic", "orders", "--rf", "2", "--throttle", "1000000", "--write", "--yes") == 0
    assert "throttle removed from orders" in capsys.readouterr().out
    assert throttles(racked) == ({}, {})
    recs = records(audit_log)
    set_twice = [r for r in recs if r["action"] == "throttle"]
    assert len(set_twice) == 2 * (2 + 2 * len(broker_cfg))  # 2 topic keys + 2 rates per broker, each run
    assert all(r["result"] == "ok" for r in set_twice) and {r["resource"]["kind"] for r in set_twice} == {
        "topic",
        "broker",
    }
    assert [r["command_id"] for r in recs if r["action"] == "throttle-clear"]


def test_clear_throttle_and_a_refused_throttle(racked: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    set_rate(racked, 2_000.0)
    assert reassign(racked, "--topic", "orders", "--rf", "2", "--throttle", "500", "--write", "--yes", "--no-wait") == 0
    assert throttles(racked)[0]
    assert reassign(racked, "--topic", "orders", "--clear-throttle", "--write", "--yes") == 0
    assert throttles(racked) == ({}, {})
    assert reassign(racked, "--topic", "orders", "--rf", "3", "--throttle", "fast", "--dry-run") == 3
    assert "--throttle takes bytes per second" in capsys.readouterr().err


def test_topic_deleted_during_the_confirmation_is_shown_and_nothing_sent(
    racked: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    # the topic disappears while kafkatui waits for the confirmation: read again, shown, refused
    stdin = Tty("orders\n", before_read=lambda: racked.call(lambda c: c.delete_topic("orders")))
    assert reassign(racked, "--topic", "orders", "--rf", "2", "--write", stdin=stdin) == 23
    captured = capsys.readouterr()
    assert "! the cluster changed since the preview:\n!   orders-0 no longer exists" in captured.out
    assert "started" not in captured.out
    assert captured.err.endswith(
        "kafkatui: error: the cluster changed since the preview: orders-0 no longer exists "
        "(and 2 more); nothing changed: look at the new values and start again\n"
    )
    assert not audit_log.exists()  # nothing was sent: no intent either
    assert reassign(racked, "--revert-last", "--write", "--yes") == 16  # nothing succeeded: nothing to revert
