"""VirtualTable driven through Pilot: cursor, sort, filter, reload, flash, narrow widths, scale, snapshot.

pytest-asyncio is not installed, so each test runs its Pilot session with `asyncio.run`.
The SVG snapshot is stored under the repository's `snapshots/test_vtable/` (see `snapshot` below).
"""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen

from kafkatui.tui.widgets import vtable
from kafkatui.tui.widgets.vtable import Column, VirtualTable, layout_widths

COLUMNS = [
    Column("name", "topic", 14, min_width=6),
    Column("size", "parts", 6, "right"),
    Column("state", "state", 12, min_width=5),
    Column("note", "note", 20, sortable=False, min_width=4),
]
SIZES = {"alpha": 3, "bravo": 1, "charlie": 3, "delta": 2, "echo": 1, "foxtrot": 3, "golf": 2, "hotel": 1}
OFFLINE = {"charlie", "golf"}
KEYS = list(SIZES)


def cell(key: str, column: str) -> str | Text:
    if column == "name":
        return key
    if column == "size":
        return str(SIZES.get(key, 0))
    if column == "state":
        return Text("✖ offline", style="bold red") if key in OFFLINE else Text("ok", style="green")
    return f"note for {key}"


def sort_value(key: str, column: str) -> Any:
    return SIZES.get(key, 0) if column == "size" else (key in OFFLINE if column == "state" else key)


class TableApp(App[None]):
    """One table, loaded on mount; records the table's messages."""

    def __init__(self, keys: Sequence[str] = KEYS, columns: Sequence[Column] = COLUMNS) -> None:
        super().__init__()
        self.keys = keys
        self.columns = columns
        self.selected: list[Any] = []
        self.highlighted: list[Any] = []

    def compose(self) -> ComposeResult:
        yield VirtualTable[str](self.columns, id="table")

    def on_mount(self) -> None:
        self.table.load(self.keys, cell, sort_value)

    @property
    def table(self) -> VirtualTable[str]:
        return self.query_one("#table", VirtualTable)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        self.selected.append(event.key)

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.highlighted.append(event.key)


def drive(
    app: TableApp, body: Callable[[Pilot[None], VirtualTable[str]], Awaitable[None]], size: tuple[int, int] = (80, 24)
) -> None:
    """Run `body` inside `app.run_test` (no pytest-asyncio here)."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await body(pilot, app.table)

    asyncio.run(main())


def screen_lines(table: VirtualTable[Any]) -> list[str]:
    """The table's lines as plain text, as painted now."""
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


def shown(table: VirtualTable[str]) -> list[str]:
    return table.keys_in_view()


def test_cursor_moves_and_enter_posts_selected() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        assert table.has_focus
        assert table.cursor_key == "alpha"
        await pilot.press("down", "down")
        assert table.cursor_key == "charlie"
        await pilot.press("enter")
        await pilot.press("up")
        await pilot.press("enter")
        await pilot.press("end")
        assert table.cursor_key == "hotel"
        await pilot.press("down")  # stays on the last row
        assert table.cursor_key == "hotel"
        await pilot.press("home")
        assert table.cursor_key == "alpha"
        await pilot.press("pagedown")
        assert table.cursor_key == "hotel"  # 8 rows fit on one page
        await pilot.pause()
        assert app.selected == ["charlie", "bravo"]
        assert app.highlighted == ["alpha", "bravo", "charlie", "bravo", "hotel", "alpha", "hotel"]

    drive(app, body)


def test_header_stays_fixed_while_scrolling() -> None:
    keys = [f"t{i:03d}" for i in range(100)]
    app = TableApp(keys)

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        page = table.size.height - 1  # 23 data rows below the header at 80x24
        await pilot.press(*["down"] * page)
        assert table.cursor_row == page
        assert table.scroll_offset.y == 1  # minimal scroll: the cursor row is the last one shown
        lines = screen_lines(table)
        assert lines[0].split()[:3] == ["topic", "parts", "state"]
        assert lines[1].split()[0] == "t001"
        assert lines[-1].split()[0] == f"t{page:03d}"
        await pilot.press("end")
        lines = screen_lines(table)
        assert table.scroll_offset.y == 100 - page
        assert lines[0].split()[0] == "topic"
        assert lines[-1].split()[0] == "t099"
        await pilot.press("pageup")
        assert table.cursor_key == f"t{99 - page:03d}"
        await pilot.press("home")
        assert table.scroll_offset.y == 0
        assert screen_lines(table)[1].split()[0] == "t000"

    drive(app, body)


def test_sort_is_stable_toggles_and_cycles() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        table.sort_by("size")
        assert (table.sort_column, table.sort_reverse) == ("size", False)
        # ties keep the caller's order (stable)
        assert shown(table) == ["bravo", "echo", "hotel", "delta", "golf", "alpha", "charlie", "foxtrot"]
        assert "parts▲" in screen_lines(table)[0]  # no room for "parts ▲" in 6 cells
        table.sort_by("size")  # same column again: toggles
        assert table.sort_reverse
        assert shown(table) == ["alpha", "charlie", "foxtrot", "delta", "golf", "bravo", "echo", "hotel"]
        assert "parts▼" in screen_lines(table)[0]
        table.sort_by("size", reverse=True)  # explicit direction does not toggle
        assert table.sort_reverse
        with pytest.raises(ValueError):
            table.sort_by("note")
        with pytest.raises(KeyError):
            table.sort_by("nope")

        table.clear_sort()
        await pilot.press("s")  # first sortable column, ascending
        assert (table.sort_column, table.sort_reverse) == ("name", False)
        await pilot.press("S")  # reverse it
        assert (table.sort_column, table.sort_reverse) == ("name", True)
        assert shown(table)[0] == "hotel"
        await pilot.press("s", "s")  # size, state
        assert table.sort_column == "state"
        assert shown(table)[-2:] == ["charlie", "golf"]  # offline last (True > False)
        await pilot.press("s")  # past the last sortable column: the caller's order again
        assert table.sort_column is None
        assert shown(table) == KEYS

    drive(app, body)


def test_sort_puts_missing_values_last_both_ways() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        lags = {"alpha": 5, "bravo": None, "charlie": 7, "delta": None, "echo": 1}

        def lag(key: str, column: str) -> Any:
            return lags.get(key)

        table.load(list(lags), cell, lag)
        table.sort_by("size")
        assert shown(table) == ["echo", "alpha", "charlie", "bravo", "delta"]
        table.sort_by("size")
        assert shown(table) == ["charlie", "alpha", "echo", "bravo", "delta"]

    drive(app, body)


def test_sort_keeps_cursor_on_its_key() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        assert table.move_cursor_to("golf")
        table.sort_by("name", reverse=True)
        assert table.cursor_key == "golf"
        assert shown(table)[table.cursor_row] == "golf"
        assert not table.move_cursor_to("zulu")

    drive(app, body)


def test_filter_substring_regex_and_bad_regex() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        # no search_text given: the plain text of every cell is searched
        assert table.set_filter("OFFLINE") is None
        assert shown(table) == ["charlie", "golf"]
        assert (table.visible_count, table.total_count) == (2, 8)
        assert table.filter_text == "OFFLINE"
        assert table.set_filter("ha") is None  # substring anywhere, case-insensitive
        assert shown(table) == ["alpha", "charlie"]
        assert table.set_filter("/^(alpha|e)/") is None  # regex between slashes, case-insensitive
        assert shown(table) == ["alpha", "echo"]
        assert table.set_filter("a.p") is None  # without slashes, metacharacters are literal
        assert shown(table) == []
        assert screen_lines(table)[1].strip() == "no rows match filter 'a.p'"
        table.set_filter("/^[a-d]/")
        error = table.set_filter("/[/")
        assert error is not None and error.startswith("bad regex")
        assert table.filter_text == "/^[a-d]/"  # the old filter stays
        assert shown(table) == ["alpha", "bravo", "charlie", "delta"]
        table.sort_by("size", reverse=True)  # filter and sort compose
        assert shown(table) == ["alpha", "charlie", "delta", "bravo"]
        assert table.set_filter("") is None
        assert table.visible_count == 8

    drive(app, body)


def test_filter_uses_search_text_and_resets_cursor_when_its_row_goes() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        calls: list[str] = []

        def search_text(key: str) -> str:
            calls.append(key)
            return f"{key} size={SIZES[key]}"

        table.load(KEYS, cell, sort_value, search_text)
        table.move_cursor_to("foxtrot")
        table.set_filter("size=3")
        table.set_filter("size=1")
        assert len(calls) == len(KEYS)  # search texts computed once per load, lazily
        assert shown(table) == ["bravo", "echo", "hotel"]
        assert table.cursor_key == "bravo"  # foxtrot was filtered out
        table.move_cursor_to("echo")
        table.set_filter("/size=[12]/")
        assert table.cursor_key == "echo"  # still there: stays

    drive(app, body)


def test_load_keeps_cursor_key_sort_and_filter() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        await pilot.press("down", "down", "down")
        assert table.cursor_key == "delta"
        SIZES["india"] = 0
        try:
            table.load(["india", *reversed(KEYS)], cell, sort_value)
            assert table.cursor_key == "delta"
            assert shown(table)[:2] == ["india", "hotel"]
            table.sort_by("size")
            table.set_filter("/^[dgi]/")
            assert shown(table) == ["india", "golf", "delta"]  # golf before delta: loaded order breaks ties
            table.move_cursor_to("delta")
            table.load([k for k in KEYS if k != "golf"] + ["india"], cell, sort_value)
            assert table.sort_column == "size" and table.filter_text == "/^[dgi]/"
            assert shown(table) == ["india", "delta"]
            assert table.cursor_key == "delta"
            table.move_cursor_to("india")
            table.load(["india", "golf", "delta"], cell, sort_value)
            assert table.cursor_key == "india"
            table.load([k for k in KEYS if k != "india"], cell, sort_value)  # cursor key gone
            assert table.cursor_key in shown(table)
            table.load([], cell)
            assert table.cursor_key is None
            assert screen_lines(table)[1].strip() == "no rows"  # nothing loaded: not the filter's doing
            table.load(KEYS, cell, sort_value)
            assert shown(table) == ["delta", "golf"]  # sort and filter still apply
            table.set_filter("zzz")
            assert screen_lines(table)[1].strip() == "no rows match filter 'zzz'"
        finally:
            del SIZES["india"]

    drive(app, body)


def test_cell_is_called_only_for_painted_rows() -> None:
    painted: set[int] = set()

    def counting_cell(key: int, column: str) -> str:
        painted.add(key)
        return str(key)

    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        big: VirtualTable[int] = table  # type: ignore[assignment]
        big.load(list(range(50_000)), counting_cell)
        await pilot.pause()
        assert painted == set(range(23))
        await pilot.press("end")
        await pilot.pause()
        assert painted == set(range(23)) | set(range(50_000 - 23, 50_000))

    drive(app, body)


def test_flash_highlights_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vtable, "FLASH_SECONDS", 0.1)
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        flash = table.get_component_rich_style("vtable--flash")
        assert flash.bgcolor is not None

        def flashed(y: int) -> bool:
            return any(
                segment.style is not None and segment.style.bgcolor == flash.bgcolor for segment in table.render_line(y)
            )

        assert not flashed(3)  # charlie: row 2, not the cursor
        table.flash(["charlie", "zulu"])  # unknown keys are ignored
        assert flashed(3) and not flashed(2) and not flashed(4)
        await pilot.pause(0.3)
        assert not flashed(3)
        table.flash(["charlie"])
        assert flashed(3)
        table.load(KEYS, cell, sort_value)  # the next load ends it too
        assert not flashed(3)

    drive(app, body)


def test_layout_shrinks_right_most_columns_to_min_width_then_crops() -> None:
    # natural width: (1+14) + (1+6) + (1+12) + (1+20) = 56
    assert layout_widths(COLUMNS, 80) == [14, 6, 12, 20]
    assert layout_widths(COLUMNS, 50) == [14, 6, 12, 14]  # note shrinks first
    assert layout_widths(COLUMNS, 40) == [14, 6, 12, 4]  # note reaches its min_width
    assert layout_widths(COLUMNS, 30) == [11, 6, 5, 4]  # then state, then topic
    assert layout_widths(COLUMNS, 20) == [6, 6, 5, 0]  # parts has no min_width: crop from the right


def test_narrow_terminal_shows_shrunk_columns() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        lines = screen_lines(table)
        # 30 cells: note 20->4 and state 12->5 (their min_width), topic 14->11; parts keeps 6
        assert lines[0] == " topic        parts state note"
        assert lines[3] == " charlie          3 ✖ of… not…"
        assert all(table.render_line(y).cell_length == 30 for y in range(table.size.height))

    drive(app, body, size=(30, 12))


def test_mouse_click_selects_row_and_header_click_sorts() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        await pilot.click(VirtualTable, offset=(3, 4))  # line 4 = row 3
        await pilot.pause()
        assert table.cursor_key == "delta"
        assert app.selected == ["delta"]
        await pilot.click(VirtualTable, offset=(17, 0))  # header, "parts"
        assert table.sort_column == "size"

    drive(app, body)


def test_mouse_wheel_scrolls_the_rows_under_a_fixed_header() -> None:
    keys = [f"t{i:03d}" for i in range(100)]
    app = TableApp(keys)

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        for _ in range(3):
            table.post_message(events.MouseScrollDown(table, 5, 5, 0, 1, 0, False, False, False))
        await pilot.pause()
        top = table.scroll_offset.y
        assert top > 0
        assert table.cursor_key == "t000"  # the wheel scrolls, the cursor stays
        lines = screen_lines(table)
        assert lines[0].split()[0] == "topic"
        assert lines[1].split()[0] == f"t{top:03d}"
        await pilot.press("down")  # the next key brings the cursor back into view
        assert table.cursor_key == "t001" and table.scroll_offset.y == 1

    drive(app, body)


def test_load_and_cursor_before_mount() -> None:
    table = VirtualTable[str](COLUMNS)
    table.load(KEYS, cell, sort_value)
    assert table.move_cursor_to("echo")
    table.sort_by("size")
    table.flash(["echo"])
    assert table.cursor_key == "echo" and table.visible_count == 8


def test_theme_change_repaints_with_new_colours() -> None:
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        before = table.render_line(1)  # the cursor row
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        after = table.render_line(1)
        assert after.text == before.text
        assert [s.style for s in after] != [s.style for s in before]

    drive(app, body)


def test_a_styled_cell_is_drawn_as_it_is_now_not_as_it_was() -> None:
    """Styled cells are kept rendered by their text and styles: the same text in another style, or with
    other spans, is drawn anew."""
    app = TableApp(keys=["alpha", "bravo"])

    def styles_of(table: VirtualTable[str], y: int, text: str) -> set[str]:
        return {
            str(s.style.color.name)
            for s in table.render_line(y)
            if s.text.strip() == text and s.style and s.style.color
        }

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        assert "green" in styles_of(table, 2, "ok")  # bravo's row (not under the cursor)
        table.load(["alpha", "bravo"], lambda k, c: Text("ok", style="red") if c == "state" else cell(k, c))
        await pilot.pause()
        assert styles_of(table, 2, "ok") == {"red"}
        spans = Text("ok")
        spans.stylize("blue", 0, 1)
        table.load(["alpha", "bravo"], lambda k, c: spans.copy() if c == "state" else cell(k, c))
        await pilot.pause()
        assert styles_of(table, 2, "o") == {"blue"}

    drive(app, body)


def test_a_reload_repaints_what_changed_on_screen_and_nothing_when_nothing_did() -> None:
    """A refresh that brings the rows on screen as they were paints nothing (it cost a frame of the whole
    table before); a changed cell or a new row on screen is painted at once."""
    keys = [f"t{i:03d}" for i in range(60)]
    notes = dict.fromkeys(keys, "same")
    app = TableApp(keys)

    def noted(key: str, column: str) -> str | Text:
        return notes[key] if column == "note" else cell(key, column)

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        table.load(keys, noted)
        await pilot.pause()
        painted: list[int] = []
        render_line = table.render_line

        def counting(y: int) -> Any:
            painted.append(y)
            return render_line(y)

        table.render_line = counting  # type: ignore[method-assign]
        table.load(list(keys), noted)  # equal rows, another list
        await pilot.pause()
        assert painted == []
        notes["t002"] = "CHANGED"
        table.load(keys, noted)
        await pilot.pause()
        assert painted and "CHANGED" in app.export_screenshot()
        painted.clear()
        notes["t050"] = "BELOW"  # off screen: nothing to paint
        table.load(keys, noted)
        await pilot.pause()
        assert painted == []
        table.load([*keys[:2], "t999", *keys[2:]], noted)  # a new row on screen pushes the rest down
        await pilot.pause()
        assert painted and screen_lines(table)[3].split()[0] == "t999"
        assert "t999" in app.export_screenshot()

    notes["t999"] = "new"
    drive(app, body)


def test_a_table_reloaded_under_another_screen_shows_its_new_rows_when_back() -> None:
    notes = dict.fromkeys(KEYS, "before")
    app = TableApp()

    def noted(key: str, column: str) -> str | Text:
        return notes[key] if column == "note" else cell(key, column)

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        table.load(KEYS, noted)
        await pilot.pause()
        await app.push_screen(Screen())
        await pilot.pause()
        notes["alpha"] = "AFTER"
        table.load(KEYS, noted)
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert "AFTER" in app.export_screenshot()

    drive(app, body)


def test_100k_rows_load_fast() -> None:
    rows = 100_000
    app = TableApp()

    async def body(pilot: Pilot[None], table: VirtualTable[str]) -> None:
        big: VirtualTable[int] = table  # type: ignore[assignment]
        start = time.perf_counter()
        big.load(list(range(rows)), lambda key, column: str(key), lambda key, column: -key)
        await pilot.pause()
        assert time.perf_counter() - start < 1.0
        start = time.perf_counter()
        big.sort_by("size")
        assert big.set_filter("99") is None
        await pilot.press("end")
        assert time.perf_counter() - start < 3.0
        assert big.cursor_key == 99
        assert big.total_count == rows

    drive(app, body)


def test_snapshot_small_table(snap_compare: Callable[..., bool]) -> None:
    """Sorted by parts (▲); the cursor followed `alpha` through both sorts, then went down to `foxtrot`.

    Offline states are red rich Text cells; odd rows are striped; the header uses $panel.
    """
    assert snap_compare(TableApp(), press=["s", "s", "down", "down"], terminal_size=(80, 14))


def test_a_column_never_shows_a_cut_header_or_a_lone_ellipsis() -> None:
    """Issue 26: at 80 columns headers read "out-of-…" and "headroom …" (a column one cell wide)."""
    cols = [
        Column("a", "status", 10),
        Column("lag", "out-of-ISR lag", 20, min_width=8, short="lag"),
        Column("t", "tolerates", 9, min_width=1),
    ]
    assert layout_widths(cols, 32) == [10, 18, 0]  # "tolerates" would get 1 cell: hidden, not "…"
    assert layout_widths(cols, 22) == [10, 8, 0]  # shown as "lag"
    assert cols[1].header(8) == "lag" and cols[1].header(20) == "out-of-ISR lag"
    assert cols[0].header(4) == "status"  # no short label: cut as before


def test_a_closed_screens_table_lets_its_rows_go_without_a_collection() -> None:
    """A closed screen is cyclic garbage, frozen by the dashboard's pacer until its thorough collection
    (kafkatui.tui.app.GcPacer): the table drops its rows, callbacks and painted lines on unmount, so what
    the screen showed is freed by reference counting at once, and that collection has less to walk."""

    class Rows:
        """What a screen shows (a report), reachable only through the table's cell callback."""

        def cell(self, key: str, column: str) -> str:
            return f"{key}/{column}"

    class TableScreen(Screen[None]):
        def compose(self) -> ComposeResult:
            yield VirtualTable[str](COLUMNS, id="closed")

    app = TableApp()

    async def body(pilot: Pilot[None], _table: VirtualTable[str]) -> None:
        screen = TableScreen()
        await app.push_screen(screen)
        table = screen.query_one("#closed", VirtualTable)
        rows = Rows()
        table.load([f"k{i}" for i in range(5_000)], rows.cell)
        await pilot.pause()
        assert "k0/name" in "".join(screen_lines(table))  # painted: lines are cached
        alive = weakref.ref(rows)
        del rows
        gc.disable()  # reference counting alone, as between the pacer's collections
        try:
            await app.pop_screen()
            await pilot.pause()
            assert alive() is None, "the closed screen's table still holds what it showed"
            assert table.total_count == 0
        finally:
            gc.enable()

    drive(app, body)
