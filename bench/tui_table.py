"""VirtualTable at 100,000 rows next to Textual's stock DataTable at 20,000 rows.

Both run headless in `App.run_test(size=(200, 60))` with 8 columns. For VirtualTable it measures
`load()`, the first paint, an arrow key round trip (`pilot.press("down")` + `pilot.pause()`, p50/p95
over 200 presses, plus the widget's own share: `render_line` and cursor handling), page-down,
`sort_by`, `set_filter` (first call builds the search-text cache) and a reload with sort and filter
active. DataTable gets the same load and arrow-key harness at 20,000 rows; nothing is extrapolated.
Run: `.venv/bin/python bench/tui_table.py` (about 45 s, most of it the DataTable peer and Pilot waits).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable

from kafkatui.tui.widgets.vtable import Column, VirtualTable

SIZE = (200, 60)
ROWS = 100_000
PEER_ROWS = 20_000
PRESSES = 200

COLUMNS = [
    Column("topic", "topic", 28, min_width=12),
    Column("partition", "part", 5, "right"),
    Column("leader", "leader", 6, "right"),
    Column("replicas", "replicas", 12),
    Column("isr", "isr", 12),
    Column("headroom", "minISR headroom", 15, "right"),
    Column("lag", "max lag", 10, "right"),
    Column("status", "status", 16),
]
OFFLINE = Text("✖ offline", style="bold red")
UNDER = Text("▲ under-replicated", style="yellow")


class Model:
    """Column arrays, as the model snapshot would hold them (one entry per partition)."""

    def __init__(self, rows: int) -> None:
        self.topic = [f"orders-{i // 50:04d}" for i in range(rows)]
        self.partition = [i % 50 for i in range(rows)]
        self.leader = [i % 30 for i in range(rows)]
        self.replicas = [f"{i % 30},{(i + 1) % 30},{(i + 2) % 30}" for i in range(rows)]
        self.isr = [r if i % 97 else r.rsplit(",", 1)[0] for i, r in enumerate(self.replicas)]
        self.headroom = [0 if i % 97 == 0 else 1 for i in range(rows)]
        self.lag = [(i * 7919) % 100_000 for i in range(rows)]
        self.status = ["offline" if i % 1000 == 0 else "under" if i % 97 == 0 else "ok" for i in range(rows)]
        self.search = [f"{t} {p} {s}" for t, p, s in zip(self.topic, self.partition, self.status, strict=True)]

    def cell(self, key: int, column: str) -> str | Text:
        if column == "status":
            status = self.status[key]
            return OFFLINE if status == "offline" else UNDER if status == "under" else "ok"
        if column in ("replicas", "isr", "topic"):
            return getattr(self, column)[key]  # type: ignore[no-any-return]
        return str(getattr(self, column)[key])

    def sort_value(self, key: int, column: str) -> Any:
        return getattr(self, column)[key]

    def search_text(self, key: int) -> str:
        return self.search[key]

    def row(self, key: int) -> list[str | Text]:
        return [self.cell(key, column.key) for column in COLUMNS]


class TableApp(App[None]):
    def __init__(self, peer: bool) -> None:
        super().__init__()
        self.peer = peer

    def compose(self) -> ComposeResult:
        if self.peer:
            yield DataTable(cursor_type="row")
        else:
            yield VirtualTable[int](COLUMNS)


class FrameProbe:
    """Key-to-frame latency: from the driver handing the app a key to the end of the next frame.

    The frame includes encoding the compositor update to terminal output (skipped by the headless
    driver, so done here), i.e. what a real terminal session pays before the bytes go out.
    """

    def __init__(self, app: App[Any]) -> None:
        self.started: float | None = None
        self.latencies: list[float] = []
        driver = app._driver
        assert driver is not None
        send, display = driver.send_message, app._display

        def send_message(message: Message) -> None:
            if isinstance(message, events.Key):
                self.started = time.perf_counter()
            send(message)

        def frame(screen: Screen[Any], update: RenderableType | None) -> None:
            if update is not None and hasattr(update, "render_segments"):
                update.render_segments(app.console)
            display(screen, update)
            if update is not None and self.started is not None:
                self.latencies.append(time.perf_counter() - self.started)
                self.started = None

        driver.send_message = send_message  # type: ignore[method-assign]
        app._display = frame  # type: ignore[method-assign, assignment]

    def start(self) -> None:
        self.started = time.perf_counter()


@contextmanager
def stopwatch(sink: list[float]) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        sink.append(time.perf_counter() - start)


def instrument(table: VirtualTable[int], sink: list[float]) -> None:
    """Add the time spent painting the table and moving its cursor to `sink[-1]`."""

    def wrap(name: str) -> None:
        inner: Callable[..., Any] = getattr(table, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                sink[-1] += time.perf_counter() - start

        setattr(table, name, timed)

    wrap("render_lines")  # the table's lines plus Textual's per-widget line pipeline
    wrap("_move_cursor")


async def presses(pilot: Pilot[None], key: str, count: int, work: list[float] | None = None) -> list[float]:
    """Round-trip times of `count` presses: the key, then wait until the screen has been repainted."""
    times: list[float] = []
    for _ in range(count):
        if work is not None:
            work.append(0.0)
        start = time.perf_counter()
        await pilot.press(key)
        await pilot.pause()
        times.append(time.perf_counter() - start)
    return times


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def spread(values: list[float]) -> str:
    return f"{ms(pct(values, 0.5))} / {ms(pct(values, 0.95))}"


async def bench_virtual(model: Model) -> list[tuple[str, str]]:
    app = TableApp(peer=False)
    figures: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        table: VirtualTable[int] = app.query_one(VirtualTable)
        table.focus()
        await pilot.pause()
        probe = FrameProbe(app)
        keys = list(range(ROWS))
        load: list[float] = []
        probe.start()
        with stopwatch(load):
            table.load(keys, model.cell, model.sort_value, model.search_text)
        await pilot.pause()
        figures.append((f"load() {ROWS:,} keys", ms(load[0])))
        figures.append(("load() -> first frame", ms(probe.latencies[-1])))

        work: list[float] = []
        instrument(table, work)
        probe.latencies.clear()
        rtt = await presses(pilot, "down", PRESSES, work)
        figures.append((f"down x{PRESSES}: key -> frame p50 / p95", spread(probe.latencies)))
        figures.append(("down: widget work (render_lines + cursor) p50 / p95", spread(work)))
        figures.append(("down: Pilot round trip press+pause p50 / p95", spread(rtt)))
        work.clear()
        probe.latencies.clear()
        await presses(pilot, "pagedown", 50, work)
        figures.append(("pagedown x50 (59 new rows): key -> frame p95", ms(pct(probe.latencies, 0.95))))
        figures.append(("pagedown: widget work p95", ms(pct(work, 0.95))))

        for column, label in (("lag", "int"), ("topic", "str"), ("topic", "reversed, values cached")):
            sort: list[float] = []
            probe.start()
            with stopwatch(sort):
                table.sort_by(column)
            await pilot.pause()
            figures.append(
                (f"sort_by({column!r}), {label}: call / -> frame", f"{ms(sort[0])} / {ms(probe.latencies[-1])}")
            )

        filters: list[float] = []
        for text in ("orders-01", "orders-0", "/offline|under/"):
            with stopwatch(filters):
                assert table.set_filter(text) is None
            await pilot.pause()
        figures.append(("set_filter('orders-01'), first (builds search texts)", ms(filters[0])))
        figures.append(("set_filter('orders-0') substring, cached", ms(filters[1])))
        figures.append(("set_filter('/offline|under/') regex, cached", ms(filters[2])))
        table.set_filter("orders-0")
        reload: list[float] = []
        with stopwatch(reload):
            table.load(keys, model.cell, model.sort_value, model.search_text)
        await pilot.pause()
        figures.append(("load() again with sort + filter active", ms(reload[0])))
        figures.append(("  rows shown / total after it", f"{table.visible_count:,} / {table.total_count:,}"))
    return figures


async def bench_peer(model: Model) -> list[tuple[str, str]]:
    app = TableApp(peer=True)
    figures: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        table: DataTable[str | Text] = app.query_one(DataTable)
        table.focus()
        await pilot.pause()
        probe = FrameProbe(app)
        rows = [model.row(key) for key in range(PEER_ROWS)]
        load: list[float] = []
        probe.start()
        with stopwatch(load):
            for column in COLUMNS:
                table.add_column(column.label, width=column.width, key=column.key)
            table.add_rows(rows)
        await pilot.pause()
        figures.append((f"add_rows() {PEER_ROWS:,} rows", ms(load[0])))
        figures.append(("add_rows() -> first frame", ms(probe.latencies[-1])))
        probe.latencies.clear()
        rtt = await presses(pilot, "down", PRESSES)
        figures.append((f"down x{PRESSES}: key -> frame p50 / p95", spread(probe.latencies)))
        figures.append(("down: Pilot round trip press+pause p50 / p95", spread(rtt)))
        sort: list[float] = []
        probe.start()
        with stopwatch(sort):
            table.sort("lag")
        await pilot.pause()
        figures.append(("sort('lag'): call / -> frame", f"{ms(sort[0])} / {ms(probe.latencies[-1])}"))
    return figures


def table_text(title: str, figures: list[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in figures)
    lines = [title, "-" * len(title)]
    lines += [f"{name:<{width}}  {value:>21}" for name, value in figures]
    return "\n".join(lines)


def main() -> None:
    start = time.perf_counter()
    model = Model(ROWS)
    print(f"model arrays for {ROWS:,} partitions built in {ms(time.perf_counter() - start)}")
    virtual = asyncio.run(bench_virtual(model))
    print(table_text(f"VirtualTable, {ROWS:,} rows x {len(COLUMNS)} columns, {SIZE[0]}x{SIZE[1]}", virtual))
    print()
    peer = asyncio.run(bench_peer(model))
    print(
        table_text(f"Textual DataTable (peer), {PEER_ROWS:,} rows x {len(COLUMNS)} columns, {SIZE[0]}x{SIZE[1]}", peer)
    )
    print(f"\npercentiles are nearest-rank; total bench time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
