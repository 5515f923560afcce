"""The brokers table (the dashboard's overview and Replay screen, `check`'s "Brokers") and `check --json`'s
brokers: state and restart safety in words and symbols."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkatui.columns.spec import ColumnSet, ColumnSpec, Json
from kafkatui.model.health import BrokerHealth
from kafkatui.present import broker_state, restart_now

if TYPE_CHECKING:
    from rich.text import Text


def _out_of_isr(b: BrokerHealth) -> Text:
    from rich.text import Text

    return Text(str(b.out_of_isr), style="red" if b.out_of_isr else "")


BROKERS: ColumnSet[BrokerHealth] = ColumnSet(
    [
        ColumnSpec(
            "id",
            "broker",
            6,
            "right",
            cell=lambda b, _: str(b.id),
            sort=lambda b: b.id,
            json=(Json("id", lambda b, _: b.id),),
            text_label="id",
        ),
        ColumnSpec(
            "state",
            "state",
            18,
            min_width=10,
            # a listed broker refusing connections: 'DOWN unfenced' (KRaft) or 'DOWN registered' (ZooKeeper);
            # check's table says ABSENT for a broker only replica lists name, beside its "(absent: 4)"
            cell=lambda b, c: broker_state(b, mode=c.mode),
            text=lambda b, c: broker_state(b, down_word="ABSENT", mode=c.mode),
            sort=lambda b: (b.serving, not b.missing_from_all_isrs),
            json=(
                Json("up", lambda b, _: b.up),
                Json("refuses_connections", lambda b, _: b.refused),
                Json("controller", lambda b, _: b.controller),
                Json("missing_from_all_isrs", lambda b, _: b.missing_from_all_isrs),
                Json("missing_from_most_isrs", lambda b, _: b.missing_from_most_isrs),
            ),
            no_wrap=True,
        ),
        ColumnSpec(
            "rack",
            "rack",
            10,
            min_width=4,
            cell=lambda b, _: b.rack or "-",
            sort=lambda b: b.rack or "",
            json=(Json("rack", lambda b, _: b.rack),),
        ),
        ColumnSpec(
            "led",
            "leads",
            5,
            "right",
            cell=lambda b, _: str(b.led),
            sort=lambda b: b.led,
            json=(Json("leaders", lambda b, _: b.led),),
        ),
        ColumnSpec(
            "hosted",
            "hosts",
            5,
            "right",
            cell=lambda b, _: str(b.hosted),
            sort=lambda b: b.hosted,
            json=(Json("replicas", lambda b, _: b.hosted),),
        ),
        ColumnSpec(
            "out",
            "out ISR",
            7,
            "right",
            cell=lambda b, _: _out_of_isr(b),
            sort=lambda b: b.out_of_isr,
            json=(Json("out_of_isr", lambda b, _: b.out_of_isr),),
            text_label="out of ISR",
        ),
        ColumnSpec(
            "restart",
            "restart now",
            22,
            min_width=8,
            cell=lambda b, _: restart_now(b),
            text=lambda b, _: restart_now(b, compact=True),
            sort=lambda b: (b.restart_safe, -b.restart_under_min_isr),
            json=(
                Json("restart_safe", lambda b, _: b.restart_safe),
                Json("restart_under_min_isr", lambda b, _: b.restart_under_min_isr),
                Json("restart_offline", lambda b, _: b.restart_offline),
            ),
        ),
    ],
    json_order=[
        "id",
        "up",
        "refuses_connections",
        Json("host", lambda b, _: b.host),
        Json("port", lambda b, _: b.port),
        "rack",
        "controller",
        "leaders",
        "replicas",
        "out_of_isr",
        "missing_from_all_isrs",
        "missing_from_most_isrs",
        "restart_safe",
        "restart_under_min_isr",
        "restart_offline",
    ],
)
"""The brokers table, by id."""
