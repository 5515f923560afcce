"""Words and symbols for a broker's state, shared by `check`'s tables and the dashboard (rich only)."""

from __future__ import annotations

from rich.text import Text

from kafkatui.model.health import BrokerHealth


def broker_state(b: BrokerHealth, down_word: str = "DOWN") -> Text:
    """'✔ up ctrl', '✖ DOWN ⚠ in no ISR', ...: status in words and symbols, never colour alone."""
    t = Text("✔ up" if b.up else f"✖ {down_word}", style="green" if b.up else "bold red")
    if b.controller:
        t.append(" ctrl")
    if b.missing_from_all_isrs:
        t.append(" ⚠ in no ISR", style="bold red")
    elif b.missing_from_most_isrs:
        t.append(" ⚠ in few ISRs", style="red")
    return t


def restart_now(b: BrokerHealth, compact: bool = False) -> Text:
    """Whether restarting the broker now is safe, and what it would break if not."""
    if not b.up:
        return Text("-", style="dim")
    if b.restart_safe:
        return Text("safe" if compact else "✔ safe", style="green")
    if compact:
        return Text(f"NO: {b.restart_under_min_isr}<min {b.restart_offline} off", style="red")
    return Text(f"✖ {b.restart_under_min_isr} <minISR, {b.restart_offline} offline", style="red")
