"""The day as a strip: one cell per minute (or per few minutes when narrow), coloured and shaped by the worst state.

Four lines: hour ticks; the strip (the worst state of the minutes a cell covers: a taller block is a
worse state, so it reads without colour too; ░ where the recorder could not see the cluster for some
of the cell's minutes and the others were no worse than under-replicated); a
sparkline of under-minISR partitions (the highest count the cell covers); a ▲ marker under the
selected minute. A cell covers ceil(1440 / width) minutes. Clicking a cell selects its first minute.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from kafkatui.history.view.data import MINUTES, MinuteCounts
from kafkatui.model.health import Health

BLOCKS = {
    Health.OFFLINE: ("█", "bold red"),
    Health.UNDER_MIN_ISR: ("▇", "red"),
    Health.AT_MIN_ISR: ("▅", "yellow"),
    Health.UNDER_REPLICATED: ("▄", "dark_orange"),
    Health.NON_PREFERRED_LEADER: ("▂", "cyan"),
    Health.HEALTHY: ("▁", "green"),
}
GAP = ("░", "dim")
SPARK = " ▁▂▃▄▅▆▇█"
TICK_STEPS = (1, 2, 3, 4, 6, 12)


def minutes_per_cell(width: int) -> int:
    """ceil(1440 / width), at least 1."""
    return max(1, math.ceil(MINUTES / max(1, width)))


def tick_step(cells: int, per_cell: int) -> int:
    """Hours between labels so that 'HH' labels with a gap fit."""
    for step in TICK_STEPS:
        if step * 60 / per_cell >= 3:
            return step
    return 24


class TimelineStrip(Widget):
    """A day's timeline with a marker at the selected minute; posts `Clicked(minute)` on a click."""

    DEFAULT_CSS = """
    TimelineStrip { height: 4; padding: 0 1; }
    """

    class Clicked(Message):
        """A cell was clicked: `minute` is its first minute."""

        def __init__(self, minute: int) -> None:
            super().__init__()
            self.minute = minute

    def __init__(self, timeline: Sequence[MinuteCounts], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.timeline = timeline
        self.minute = 0

    def select(self, minute: int) -> None:
        self.minute = minute
        self.refresh()

    @property
    def per_cell(self) -> int:
        return minutes_per_cell(self.content_size.width)

    def cell_minutes(self, cell: int) -> Sequence[MinuteCounts]:
        per = self.per_cell
        return self.timeline[cell * per : (cell + 1) * per]

    def render(self) -> Text:
        width = self.content_size.width
        per = minutes_per_cell(width)
        cells = math.ceil(MINUTES / per)
        ticks = [" "] * cells
        step = tick_step(cells, per)
        for h in range(0, 24, step):
            x = h * 60 // per
            label = f"{h:02d}"
            if x + len(label) <= cells and all(c == " " for c in ticks[max(0, x - 1) : x + len(label)]):
                ticks[x : x + len(label)] = list(label)
        strip = Text(no_wrap=True, overflow="crop")
        spark = Text(no_wrap=True, overflow="crop")
        peak = max((m.under_min_isr for m in self.timeline), default=0)
        for c in range(cells):
            chunk = self.timeline[c * per : (c + 1) * per]
            worst = min((m.worst for m in chunk if not m.gap), default=Health.HEALTHY)
            if worst > Health.AT_MIN_ISR and any(m.gap for m in chunk):
                strip.append(*GAP)  # unknown for part of the cell, and nothing alarming seen in the rest
            else:
                strip.append(*BLOCKS[worst])
            under = max((m.under_min_isr for m in chunk), default=0)
            if under and peak:
                spark.append(SPARK[max(1, round(under / peak * (len(SPARK) - 1)))], style="red")
            else:
                spark.append(" ")
        marker = Text(no_wrap=True, overflow="crop")
        x = min(cells - 1, self.minute // per)
        marker.append(" " * x)
        marker.append("▲", style="bold reverse")
        label = f" {self.minute // 60:02d}:{self.minute % 60:02d}"
        if x + 1 + len(label) > width:
            marker = Text(" " * max(0, x - len(label)), no_wrap=True) + Text(label.strip() + " ", style="bold")
            marker.append("▲", style="bold reverse")
        else:
            marker.append(label, style="bold")
        out = Text("".join(ticks), style="dim", no_wrap=True, overflow="crop")
        for line in (strip, spark, marker):
            out.append("\n")
            out.append_text(line)
        return out

    def on_click(self, event: events.Click) -> None:
        x = event.x - 1  # padding
        per = self.per_cell
        if 0 <= x < math.ceil(MINUTES / per) and 0 <= event.y <= 3:
            self.post_message(self.Clicked(min(MINUTES - 1, x * per)))
