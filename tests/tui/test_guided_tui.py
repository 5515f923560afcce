"""Guided actions from the dashboard against the simulator: preferred and unclean elections, the RF change
with its progress and cancel, read-only refusal; SVG snapshots of the previews and confirmations."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static, TextArea

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.model.snapshot import ClusterSnapshot, ReplicaLog
from kafkatui.sim.runner import SimRunner
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.feed import Feed
from kafkatui.tui.screens.partition import PartitionScreen
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.write.confirm import ConfirmScreen
from kafkatui.tui.write.elect_preview import ElectPreviewScreen
from kafkatui.tui.write.readonly import ReadOnlyScreen
from kafkatui.tui.write.reassign import ReassignScreen
from kafkatui.tui.write.unclean import UncleanScreen
from tests.alter.support import (
    offline_cluster,
    racked_cluster,
    records,
    replicas_isr,
    sim_leaders,
    skewed_cluster,
)
from tests.model.builders import healthy, snap, topic
from tests.tui.test_alter_tui import pushing, run, sim_app, wait_until
from tests.tui.test_screens import FIXED, SIZE, FakeSource, screen_text, snapshot_of, text_of
from tests.tui.waits import WAIT

pytestmark = pytest.mark.usefixtures("audit_log")  # the shared fixture in tests/conftest.py


@pytest.fixture
def skewed(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    """Broker 1 crashed and came back with auto leader rebalance off: it leads nothing."""
    return skewed_cluster(sim_factory, ("orders", 6))


@pytest.fixture
def offline(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    """payments-0 on brokers 1 and 2, unclean off: 2 falls 500 records behind, 1 dies, 2 comes back."""
    return offline_cluster(sim_factory, ("orders", 1))


@pytest.fixture
def racked(sim_factory: Callable[..., SimRunner]) -> SimRunner:
    return racked_cluster(sim_factory)


def status(app: KafkaTuiApp) -> str:
    return text_of(app.screen.query_one("#preview-status"))  # type: ignore[arg-type]


async def open_topic(pilot: Pilot[Any], app: KafkaTuiApp, name: str) -> None:
    app.open_topic(name)
    await pilot.pause()
    assert isinstance(app.screen, TopicScreen)


async def confirm(pilot: Pilot[Any], app: KafkaTuiApp, answer: str) -> ConfirmScreen:
    """Wait for a confirmation (destructive actions read the cluster again first), type `answer`, press Enter;
    returns the confirmation screen."""
    assert await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 20)
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    screen.query_one("#confirm-input", Input).focus()
    await pilot.press(*answer, "enter")
    await pilot.pause()
    return screen


# ----------------------------------------------------------------------------------- read-only
def test_read_only_every_guided_action_opens_the_refusal_and_export_still_works(
    skewed: SimRunner, audit_log: Path
) -> None:
    before = sim_leaders(skewed)

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_topic(pilot, app, "orders")
        for key in ("e", "R"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, ReadOnlyScreen), key
            assert "--write" in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen)
        await pilot.press("e")
        await pilot.pause()
        assert "kafka-leader-election.sh" in screen_text(app)
        await pilot.press("e")  # Export: the preview, Elect disabled
        assert await wait_until(pilot, lambda: isinstance(app.screen, ElectPreviewScreen), WAIT)
        preview = app.screen
        assert isinstance(preview, ElectPreviewScreen)
        assert preview.query_one("#apply", Button).disabled
        await pilot.press("x")
        await pilot.pause()
        words = shlex.split(preview.query_one("#export", TextArea).text.strip())
        assert words[0] == "echo" and words[words.index("--election-type") + 1] == "PREFERRED"
        moving = sorted(
            p
            for (t, p), leader in before.items()
            if leader != skewed.call(lambda c, p=p: c.partition("orders", p).replicas[0])
        )
        assert sorted(x["partition"] for x in json.loads(words[1])["partitions"]) == moving
        preview.action_apply()  # even asked directly, Apply only explains
        await pilot.pause()
        assert isinstance(app.screen, ReadOnlyScreen)

    run(sim_app(skewed, write=False), scenario)
    assert sim_leaders(skewed) == before
    assert not audit_log.exists()


# ---------------------------------------------------------------------------------- preferred
def test_preferred_election_moves_leaders_back_and_shows_the_counts(skewed: SimRunner, audit_log: Path) -> None:
    preferred = skewed.call(lambda c: {(p.topic, p.index): p.replicas[0] for p in c.partitions()})
    moving = {k for k, v in sim_leaders(skewed).items() if v != preferred[k]}

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_topic(pilot, app, "orders")
        await pilot.press("e")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ElectPreviewScreen), WAIT)
        preview = app.screen
        assert isinstance(preview, ElectPreviewScreen)
        assert f"{len(moving)} partition(s) move to their preferred replica" in screen_text(app)
        await pilot.press("r")  # the preview follows a refresh, and keeps the keyboard on Elect
        await pilot.pause(0.5)
        assert await wait_until(pilot, lambda: not app._refreshing)
        await pilot.pause()
        assert app.focused is preview.query_one("#apply"), app.focused  # a keyboard user starts on Elect
        await pilot.press("enter")
        await confirm(pilot, app, str(len(moving)))
        assert await wait_until(pilot, lambda: preview.outcome is not None)
        assert isinstance(app.screen, ElectPreviewScreen)
        assert f"{len(moving)} of {len(moving)} elections done and verified; audit records written" in status(app)
        await pilot.press("r")  # the next snapshot
        await pilot.pause(0.5)
        assert await wait_until(pilot, lambda: not app._refreshing)
        await pilot.pause()
        now = Counter(sim_leaders(skewed).values())
        table = status(app)[status(app).index("leaders per broker") :].splitlines()
        assert table[1].split() == ["broker", "before", "expected", "now"]
        shown = {int(cols[0]): (int(cols[2]), int(cols[3])) for cols in (line.split() for line in table[2:5])}
        assert shown == {b: (now[b], now[b]) for b in (1, 2, 3)} and shown[1][1] > 0

    run(sim_app(skewed), scenario)
    assert sim_leaders(skewed) == preferred
    recs = records(audit_log)
    assert {(r["resource"]["topic"], r["resource"]["partition"]) for r in recs} == moving
    assert all(r["action"] == "elect-preferred" and r["result"] == "ok" for r in recs)


# ------------------------------------------------------------------------------------ unclean
def test_unclean_election_needs_both_confirmations_then_elects_the_candidate(
    offline: SimRunner, audit_log: Path
) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        app.open_partition("orders", 0)  # not offline: refused with a notification
        await pilot.pause()
        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, PartitionScreen)
        assert any("orders-0 is not offline" in str(n.message) for n in app._notifications)
        await pilot.press("escape")
        await pilot.pause()

        app.open_partition("payments", 0)
        await pilot.pause()
        await pilot.press("E")
        assert await wait_until(pilot, lambda: isinstance(app.screen, UncleanScreen), WAIT)
        screen = app.screen
        assert isinstance(screen, UncleanScreen)
        text = screen_text(app)
        assert "DATA LOSS" in text and "candidate: broker 2 (replicas [1, 2], last ISR [1])" in text
        assert "it is at least 500 offsets behind, as broker 2 reports it" in text
        # the second confirmation wrong: Enter does nothing, Esc gives up, nothing changed
        await pilot.click("#apply")
        await confirm(pilot, app, "payments-0")
        second = await confirm(pilot, app, "lose data")
        assert app.screen is second and second.query_one("#confirm-apply", Button).disabled
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and "not confirmed: nothing changed" in status(app)
        assert offline.call(lambda c: c.partition("payments", 0).leader) == -1
        # both right
        await pilot.click("#apply")
        await confirm(pilot, app, "payments-0")
        await confirm(pilot, app, "LOSE DATA")
        assert await wait_until(pilot, lambda: screen.outcome is not None)
        assert "payments-0 leader -1 -> 2 (unclean); new leader: broker 2" in status(app)

    run(sim_app(offline), scenario)
    assert offline.call(lambda c: c.partition("payments", 0).leader) == 2
    assert offline.call(lambda c: c.lost_records) == 500
    (rec,) = records(audit_log)
    assert rec["action"] == "elect-unclean" and rec["candidate"] == 2 and rec["after"] == {"leader": 2}


# ------------------------------------------------------------------------------- reassignment
async def refresh_until(
    pilot: Pilot[Any], app: KafkaTuiApp, predicate: Callable[[], bool], timeout: float = 30.0
) -> bool:
    """Press r (refresh) until `predicate` holds: the progress follows each refresh."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await pilot.press("r")
        await pilot.pause(0.3)
    return predicate()


def test_rf_1_to_3_shows_the_plan_and_progress_until_done(racked: SimRunner, audit_log: Path) -> None:
    before = replicas_isr(racked)

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_topic(pilot, app, "orders")
        await pilot.press("R")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ReassignScreen), WAIT)
        screen = app.screen
        assert isinstance(screen, ReassignScreen) and screen.rf == 3
        assert "reassignment of orders: replication factor 1 -> 3 (3 partition(s))" in screen_text(app)
        await pilot.click("#apply")
        await confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: bool(screen.moves))
        assert "started 3 of 3 partition moves" in status(app)
        assert await refresh_until(pilot, app, lambda: screen.progress is not None and screen.progress.done), (
            status(app),
            screen.progress,
            replicas_isr(racked),
        )
        assert "6 of 6 new replicas in the ISR · 3 of 3 partitions finished" in status(app)
        assert "done: every partition has its new replicas, all in sync" in status(app)

    run(sim_app(racked), scenario)
    racks = racked.call(lambda c: {b.id: b.rack for b in c.brokers.values()})
    for (old, _), (replicas, isr) in zip(before, replicas_isr(racked), strict=True):
        assert replicas[0] == old[0] and len(replicas) == 3 and sorted(isr) == sorted(replicas)
        assert len({racks[r] for r in replicas}) == 3
    recs = records(audit_log)
    assert len(recs) == 3 and all(r["action"] == "reassign" and r["result"] == "ok" for r in recs)


def test_rf_change_with_a_throttle_sets_it_and_removes_it_when_done(racked: SimRunner, audit_log: Path) -> None:
    """As `kafkatui reassign --throttle`: set before the moves, removed once they finished, both audited;
    "(now N)" follows the cluster once the change is done."""

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_topic(pilot, app, "orders")
        await pilot.press("R")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ReassignScreen), WAIT)
        screen = app.screen
        assert isinstance(screen, ReassignScreen)
        assert "(now 1)" in text_of(screen.query_one("#rf-label"))  # type: ignore[arg-type]
        screen.query_one("#throttle", Input).focus()
        await pilot.press(*"50000000")
        await pilot.pause()
        assert screen.rate == 50_000_000
        assert "throttle: 50,000,000 bytes/s on brokers" in screen_text(app)
        await pilot.click("#apply")
        await confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: bool(screen.moves))
        assert "throttle: 50,000,000 bytes/s" in status(app)
        assert await refresh_until(pilot, app, lambda: screen.progress is not None and screen.progress.done)
        assert await wait_until(pilot, lambda: "throttle removed from orders" in status(app), 10), status(app)
        assert await refresh_until(pilot, app, lambda: "(now 3)" in text_of(screen.query_one("#rf-label")))  # type: ignore[arg-type]

    run(sim_app(racked), scenario)
    actions = [r["action"] for r in records(audit_log)]
    assert actions[0] == "throttle" and "reassign" in actions and actions[-1] == "throttle-clear", actions


def test_c_cancels_a_running_reassignment(racked: SimRunner, audit_log: Path) -> None:
    before = replicas_isr(racked)
    racked.call(lambda c: setattr(c, "replication_rate", 500.0))  # a minute of copying: still going when cancelled

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await open_topic(pilot, app, "orders")
        await pilot.press("R")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ReassignScreen), WAIT)
        screen = app.screen
        assert isinstance(screen, ReassignScreen)
        await pilot.click("#apply")
        await confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: screen.progress is not None)
        assert not screen.progress.done  # type: ignore[union-attr]
        await pilot.press("C")
        await confirm(pilot, app, "orders")
        assert await wait_until(pilot, lambda: screen.cancelled)
        assert "reassignment cancelled; audit records written" in status(app)

    run(sim_app(racked), scenario)
    assert replicas_isr(racked) == before
    assert [r["action"] for r in records(audit_log)] == ["reassign"] * 3 + ["reassign-cancel"] * 3


# ------------------------------------------------------------------------------------ snapshots
def guided_snapshot() -> ClusterSnapshot:
    """Leaders off their preferred replicas (one cannot move back), an offline partition with a lagging
    live replica, and an RF 1 topic, on 3 brokers in 3 racks."""
    from dataclasses import replace

    s = snap(
        topic(
            "orders",
            [
                (2, [1, 2, 3], [1, 2, 3]),
                (3, [1, 2, 3], [2, 3]),
                (2, [2, 3, 1], [2, 3, 1]),
                (3, [1, 3, 2], [3, 1, 2]),
                (3, [3, 1, 2], [3, 1, 2]),
            ],
            min_insync_replicas="2",
        ),
        topic("payments", [(-1, [4, 3, 2], [4]), (2, [2, 3, 1], [2, 3, 1])], min_insync_replicas="2"),
        topic("clicks", [(1, [1], [1]), (2, [2], [2]), (3, [3], [3])]),
        healthy("logs", 2),
        brokers=(1, 2, 3),
        racks={1: "a", 2: "b", 3: "c"},
        log_dirs={("payments", 0, 3): ReplicaLog(7_600_000, 1234), ("payments", 0, 2): ReplicaLog(5_000_000, 2500)},
    )
    return replace(s, taken_at=FIXED - 3)


def guided_app(write: bool = True) -> KafkaTuiApp:
    feed = Feed(FakeSource(guided_snapshot()), bootstrap="kafka:9092", clock=lambda: FIXED)
    return KafkaTuiApp(
        feed,
        auto_refresh=False,
        clock=lambda: FIXED,
        source_label="test",
        read_only=not write,
        settings=ConnectionSettings(bootstrap=("kafka:9092",)),
    )


def test_snapshot_election_preview(snap_compare: Any) -> None:
    assert snap_compare(
        guided_app(), terminal_size=SIZE, press=["x"], run_before=snapshot_of(pushing(ElectPreviewScreen(["orders"])))
    )


def test_snapshot_unclean_warning(snap_compare: Any) -> None:
    assert snap_compare(guided_app(), terminal_size=SIZE, run_before=snapshot_of(pushing(UncleanScreen("payments", 0))))


def test_snapshot_unclean_second_confirmation(snap_compare: Any) -> None:
    async def second(pilot: Pilot[Any]) -> None:
        await snapshot_of(pushing(UncleanScreen("payments", 0)))(pilot)
        await pilot.click("#apply")
        await pilot.pause()
        first = pilot.app.screen
        await pilot.press(*"payments-0", "enter")
        # the cluster is read again before the final confirmation
        assert await wait_until(
            pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen) and pilot.app.screen is not first
        )
        await pilot.pause()
        await pilot.press(*"LOSE")
        await pilot.pause()

    assert snap_compare(guided_app(), terminal_size=SIZE, run_before=second)


def test_snapshot_reassignment_plan(snap_compare: Any) -> None:
    def push(app: KafkaTuiApp) -> None:
        assert app.state.snapshot is not None
        app.push_screen(ReassignScreen("clicks", app.state.snapshot))

    assert snap_compare(guided_app(), terminal_size=SIZE, press=["x"], run_before=snapshot_of(push))


def test_palette_offers_the_election_for_all_topics_and_read_only_exports_it(audit_log: Path) -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press(*"preferred leader", "enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ReadOnlyScreen), WAIT)
        assert "kafka-leader-election.sh" in screen_text(app)
        await pilot.press("e")  # Export
        assert await wait_until(pilot, lambda: isinstance(app.screen, ElectPreviewScreen), WAIT)
        preview = app.screen
        assert isinstance(preview, ElectPreviewScreen) and preview.topics is None
        assert preview.heading == "preferred leader election: all topics"
        assert "2 partition(s) move to their preferred replica" in screen_text(app)
        await pilot.press("x")
        await pilot.pause()
        words = shlex.split(preview.query_one("#export", TextArea).text.strip())
        assert sorted((p["topic"], p["partition"]) for p in json.loads(words[1])["partitions"]) == [
            ("orders", 0),
            ("orders", 3),
        ]

    run(guided_app(write=False), scenario)
    assert not audit_log.exists()


# ------------------------------------------------------------------------------------ data age
class _GoneAfterFirst(FakeSource):
    """The guided snapshot once, then the cluster cannot be read."""

    def __init__(self) -> None:
        super().__init__(guided_snapshot())
        self.calls = 0

    def snapshot(self) -> ClusterSnapshot:
        self.calls += 1
        if self.calls > 1:
            from kafkatui.kafka.errors import KafkaTuiError

            raise KafkaTuiError("cannot reach kafka:9092")
        return super().snapshot()


def test_a_destructive_action_reads_again_and_shows_the_age_before_the_final_confirmation() -> None:
    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        generation = app.state.generation
        pushing(UncleanScreen("payments", 0))(app)
        await pilot.pause()
        assert "cluster state read 3.0 s ago" in screen_text(app)
        await pilot.click("#apply")
        await confirm(pilot, app, "payments-0")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.state.generation > generation  # read again before the final confirmation
        text = str(app.screen.query_one("#confirm-text", Static).render())
        assert "LAST CHANCE" in text and "Cluster state read 3.0 s ago" in text and "just read again" in text

    run(guided_app(), scenario)


def test_a_destructive_action_refuses_data_older_than_two_refreshes_when_it_cannot_read_again() -> None:
    feed = Feed(_GoneAfterFirst(), bootstrap="kafka:9092", clock=lambda: FIXED + 60)
    app = KafkaTuiApp(
        feed,
        auto_refresh=False,
        clock=lambda: FIXED + 60,
        source_label="test",
        read_only=False,
        settings=ConnectionSettings(bootstrap=("kafka:9092",)),
    )

    async def scenario(pilot: Pilot[Any], app: KafkaTuiApp) -> None:
        pushing(UncleanScreen("payments", 0))(app)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, UncleanScreen) and "cluster state read 63 s ago" in screen_text(app)
        await pilot.click("#apply")
        await confirm(pilot, app, "payments-0")
        assert await wait_until(pilot, lambda: "refusing to go on" in status(app))
        assert app.screen is screen  # no second confirmation
        assert (
            "✖ refusing to go on: the data is 63 s old (more than two refresh intervals, 10 s) and reading the "
            "cluster again failed (cannot reach kafka:9092): nothing changed"
        ) in status(app)

    run(app, scenario)
