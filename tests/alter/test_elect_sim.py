"""`kafkatui elect` against the simulator: preferred elections move leaders back, unclean ones only
for an offline partition, behind a data-loss warning and two confirmations."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from kafkatui.alter.elect_cmd import main_elect
from kafkatui.sim.runner import SimRunner
from tests.alter.support import Tty, offline_cluster, records, sim_leaders, skewed_cluster

pytestmark = pytest.mark.usefixtures("audit_log")  # the shared fixture in tests/conftest.py


def elect(sim: SimRunner, *args: str, stdin: Tty | None = None) -> int:
    return main_elect(["--bootstrap", sim.bootstrap, *args], stdin=stdin)


@pytest.fixture
def skewed(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    """Broker 1 crashed and came back with auto leader rebalance off: it leads nothing."""
    return skewed_cluster(sim_factory, ("orders", 6), ("payments", 3))


def test_read_only_refusal(skewed: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    before = sim_leaders(skewed)
    assert elect(skewed, "--preferred", "--all", "--yes") == 12
    err = capsys.readouterr().err.strip()
    assert err.startswith("kafkatui: error: kafkatui is read-only") and "--write" in err
    assert sim_leaders(skewed) == before and not audit_log.exists()


def test_preferred_election_moves_leaders_back(
    skewed: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    preferred = skewed.call(lambda c: {(p.topic, p.index): p.replicas[0] for p in c.partitions()})
    moving = {k for k, v in sim_leaders(skewed).items() if v != preferred[k]}
    assert moving
    secret = "S3cr3t-Pa55w0rd-xyz"
    assert (
        elect(skewed, "-X", f"sasl.password={secret}", "--preferred", "--all", "--write", stdin=Tty(f"{len(moving)}\n"))
        == 0
    )
    captured = capsys.readouterr()
    out = captured.out
    assert secret not in out + captured.err and secret not in audit_log.read_text()
    assert f"{len(moving)} partition(s) move to their preferred replica" in out
    assert sim_leaders(skewed) == preferred
    # the counts after, per broker, are the simulator's
    now = Counter(sim_leaders(skewed).values())
    table = out[out.index("leaders per broker (re-described):") :].splitlines()
    assert table[1].split() == ["broker", "before", "expected", "now"]
    shown = {int(cols[0]): int(cols[3]) for cols in (line.split() for line in table[2:5])}
    assert shown == {b: now[b] for b in (1, 2, 3)}
    assert shown[1] > 0
    assert f"{len(moving)} of {len(moving)} elections done and verified" in out
    recs = records(audit_log)
    assert {(r["resource"]["topic"], r["resource"]["partition"]) for r in recs} == moving
    assert all(r["action"] == "elect-preferred" and r["result"] == "ok" for r in recs)
    assert all(r["after"]["leader"] == preferred[(r["resource"]["topic"], r["resource"]["partition"])] for r in recs)


def test_a_partition_moved_meanwhile_is_shown_and_asked_again(
    skewed: SimRunner, capsys: pytest.CaptureFixture[str]
) -> None:
    preferred = skewed.call(lambda c: {(p.topic, p.index): p.replicas[0] for p in c.partitions()})
    moving = sorted(k for k, v in sim_leaders(skewed).items() if v != preferred[k])
    was = sim_leaders(skewed)[moving[0]]
    # someone else elects the first one while kafkatui waits for the confirmation: shown, then asked again
    stdin = Tty(
        f"{len(moving)}\n{len(moving) - 1}\n", before_read=lambda: skewed.call(lambda c: c.elect_leaders(0, moving[:1]))
    )
    assert elect(skewed, "--preferred", "--all", "--write", stdin=stdin) == 0
    out = capsys.readouterr().out
    name = f"{moving[0][0]}-{moving[0][1]}"
    assert (
        f"! the cluster changed since the preview:\n!   {name} leader {was} in the preview, {preferred[moving[0]]} now"
    ) in out
    assert f"ok      {name} leader" not in out and "FAILED" not in out
    assert f"{len(moving) - 1} of {len(moving) - 1} elections done and verified" in out
    assert sim_leaders(skewed) == preferred


def test_preferred_preview_counts_and_dry_run(skewed: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    before = Counter(sim_leaders(skewed).values())
    assert elect(skewed, "--preferred", "--topic", "orders", "--topic", "payments", "--dry-run") == 0
    out = capsys.readouterr().out
    table = out[out.index("leaders per broker:") :].splitlines()
    shown_now = {int(cols[0]): int(cols[1]) for cols in (line.split() for line in table[2:5])}
    assert shown_now == {b: before[b] for b in (1, 2, 3)} and shown_now[1] == 0
    assert "dry run: nothing changed" in out
    # the export names exactly the partitions that would move, and changes nothing either
    moving = sorted(
        (t, i)
        for (t, i), leader in sim_leaders(skewed).items()
        if leader != skewed.call(lambda c, t=t, i=i: c.partition(t, i).replicas[0])
    )
    assert elect(skewed, "--preferred", "--all", "--export") == 0
    line = capsys.readouterr().out.strip()
    words = shlex.split(line)
    assert (
        words[0] == "echo" and "--election-type" in words and words[words.index("--election-type") + 1] == "PREFERRED"
    )
    assert sorted((p["topic"], p["partition"]) for p in json.loads(words[1])["partitions"]) == moving
    assert 1 not in sim_leaders(skewed).values()


def test_preferred_skips_a_partition_whose_preferred_replica_is_down(
    skewed: SimRunner, capsys: pytest.CaptureFixture[str]
) -> None:
    skewed.crash(1)
    assert skewed.wait_for(lambda c: c.brokers[1].fenced, 15)
    assert elect(skewed, "--preferred", "--all", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "preferred replica 1 is down" in out


def test_nothing_to_elect(sim: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    assert elect(sim, "--preferred", "--topic", "orders", "--write", "--yes") == 0
    assert "nothing to elect" in capsys.readouterr().out
    assert not audit_log.exists()


def test_bad_arguments(sim: SimRunner, capsys: pytest.CaptureFixture[str]) -> None:
    sim.call(lambda c: c.create_topic("orders", 3, 3))
    assert elect(sim, "--preferred", "--topic", "nope", "--dry-run") == 3
    assert "unknown topic 'nope'" in capsys.readouterr().err
    assert elect(sim, "--unclean", "--topic", "orders", "--dry-run") == 3
    assert "exactly one --topic T and one --partition P" in capsys.readouterr().err
    assert elect(sim, "--preferred", "--topic", "orders", "--partition", "9", "--dry-run") == 3
    assert "has no partition 9" in capsys.readouterr().err


# ----------------------------------------------------------------------------- unclean
@pytest.fixture
def offline(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    """payments-0 on brokers 1 and 2, unclean off: 2 falls behind, 1 dies, 2 comes back out of sync."""
    sim = offline_cluster(sim_factory)
    assert sim.call(lambda c: c.partition("payments", 0).leader) == -1
    return sim


def test_unclean_refused_on_a_partition_that_has_a_leader(
    sim: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    sim.call(lambda c: c.create_topic("orders", 2, 3))
    assert (
        elect(sim, "--unclean", "--topic", "orders", "--partition", "1", "--write", "--yes", "--accept-data-loss") == 18
    )
    err = capsys.readouterr().err
    assert "orders-1 is not offline" in err and len(err.strip().splitlines()) == 1
    assert not audit_log.exists()


def test_unclean_warning_names_the_candidate_and_double_confirmation(
    offline: SimRunner, capsys: pytest.CaptureFixture[str], audit_log: Path
) -> None:
    args = ("--unclean", "--topic", "payments", "--partition", "0", "--write")
    # the second confirmation wrong: nothing changes
    assert elect(offline, *args, stdin=Tty("payments-0\nlose data\n")) == 14
    captured = capsys.readouterr()
    assert "! DATA LOSS" in captured.out
    assert "candidate: broker 2 (replicas [1, 2], last ISR [1])" in captured.out
    assert "it is at least 500 offsets behind, as broker 2 reports it" in captured.out
    assert "does not match 'LOSE DATA'" in captured.err
    # the first one wrong
    assert elect(offline, *args, stdin=Tty("payments-1\nLOSE DATA\n")) == 14
    assert "does not match 'payments-0'" in capsys.readouterr().err
    # --yes alone is not enough
    assert elect(offline, *args, "--yes") == 14
    assert "--accept-data-loss" in capsys.readouterr().err
    assert offline.call(lambda c: c.partition("payments", 0).leader) == -1
    assert not audit_log.exists()
    # both right: broker 2 leads, 500 records lost
    assert elect(offline, *args, stdin=Tty("payments-0\nLOSE DATA\n")) == 0
    assert "ok      payments-0 leader -1 -> 2 (unclean)" in capsys.readouterr().out
    assert offline.call(lambda c: c.partition("payments", 0).leader) == 2
    assert offline.call(lambda c: c.lost_records) == 500
    (rec,) = records(audit_log)
    assert rec["action"] == "elect-unclean" and rec["candidate"] == 2 and rec["after"] == {"leader": 2}
    assert rec["before"] == {"leader": -1, "isr": [1]} and rec["lag"]["2"]["offset_lag"] == 500
