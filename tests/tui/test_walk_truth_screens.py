"""Screens for the walk's new states: a partition whose leader is down but not yet moved (writes fail),
an offline partition naming the broker that brings it back, and a frozen broker (not answering, accepts
connections) with "look before restarting" instead of "safe, already down"."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.screens.broker import BrokerScreen
from kafkatui.tui.screens.partition import PartitionScreen
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.widgets.vtable import VirtualTable
from tests.tui.test_screens import incident, make_app, snapshot_of


def _orders_1(app: KafkaTuiApp) -> None:
    app.push_screen(PartitionScreen("orders", 1))


def _orders(app: KafkaTuiApp) -> None:
    app.push_screen(TopicScreen("orders"))


def _payments_0(app: KafkaTuiApp) -> None:
    app.push_screen(PartitionScreen("payments", 0))


def _broker_3(app: KafkaTuiApp) -> None:
    app.push_screen(BrokerScreen(3))


def test_snapshot_partition_whose_leader_is_down_not_moved(snap_compare: Any) -> None:
    killed = replace(incident(), refused=frozenset({2}))  # broker 2 leads orders-1, killed, not fenced yet
    assert snap_compare(make_app(killed), terminal_size=(80, 24), run_before=snapshot_of(_orders_1))


def test_snapshot_topic_marks_the_partitions_whose_leader_is_down(snap_compare: Any) -> None:
    killed = replace(incident(), refused=frozenset({2}))
    assert snap_compare(make_app(killed), terminal_size=(80, 24), run_before=snapshot_of(_orders))


def test_snapshot_offline_partition_names_who_brings_it_back(snap_compare: Any) -> None:
    assert snap_compare(make_app(incident()), terminal_size=(80, 24), run_before=snapshot_of(_payments_0))


def test_snapshot_frozen_broker_screen(snap_compare: Any) -> None:
    frozen = replace(incident(), unresponsive=frozenset({3}))
    assert snap_compare(make_app(frozen), terminal_size=(120, 40), run_before=snapshot_of(_broker_3))


def test_topic_marks_a_down_leader_in_its_status_and_leader_cells() -> None:
    killed = replace(incident(), refused=frozenset({2}))  # broker 2 leads orders-1, killed, not fenced yet

    async def run() -> None:
        app = make_app(killed)
        async with app.run_test(size=(120, 40)) as pilot:
            await snapshot_of(_orders)(pilot)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TopicScreen)
            parts = screen.query_one("#partitions", VirtualTable)
            assert str(parts._cell(1, "status")) == "⊘ ldr dn" and str(parts._cell(1, "leader")) == "2 ⊘ down"
            led = {k: screen.detail(k).leader for k in parts.keys_in_view()}
            assert set(led.values()) - {2, -1}  # partitions led by others stay as they were
            for k, leader in led.items():
                assert ("⊘" in str(parts._cell(k, "leader"))) == (leader == 2), (k, leader)

    asyncio.run(run())
