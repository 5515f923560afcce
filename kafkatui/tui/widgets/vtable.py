"""A virtual table: a Line-API `ScrollView` that paints only the rows on screen.

Textual's stock `DataTable` copies every cell into the widget; at 100,000 partitions that costs
seconds per load and tens of milliseconds per key press. `VirtualTable` instead keeps the caller's
keys and a `cell(key, column)` callback, and calls it only for rows that are being painted. Sorting
and filtering work on index arrays (`sorted(range(n), key=values.__getitem__)`, one list
comprehension over cached search texts), so they never touch the widget tree.

Line 0 is the header (kept fixed while scrolling); data row `r` is virtual line `r + 1`, so with
`scroll_y == top` the rows `top .. top + page - 1` are visible below the header.

Columns and cell fitting live in `columns.py`. The rest (~650 lines) stays one module on purpose: the
row order arrays are shared by sorting, filtering, the cursor, flashing and painting, and splitting
them would spread one piece of state over several files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.dom import NoScreen
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from kafkatui.textfilter import FilterTooSlow, case_blind, select
from kafkatui.tui.widgets.columns import (
    GAP,
    CellValue,
    Column,
    fit_str,
    fit_text,
    layout_widths,
    plain_text,
    with_arrow,
)

FILTER_BUDGET_S = 0.25  # a regex filter gets this long on the UI thread per application,
FILTER_BUDGET_PER_ROW_S = 1e-5  # plus this per row: a plain regex over 100,000 rows takes ~0.5 s here

__all__ = ["CellValue", "Column", "VirtualTable", "layout_widths"]

K = TypeVar("K", bound=Hashable)

FLASH_SECONDS = 1.5


CELL_CACHE = 4096  # styled cells' segments kept per table (see _render_row)


class _Paint(NamedTuple):
    """What every line of one paint shares."""

    width: int
    top: int
    even: Style
    odd: Style
    cursor: Style
    flash: Style


class VirtualTable(ScrollView, Generic[K], can_focus=True):
    """A sortable, filterable table over keys the caller holds; only visible rows are rendered.

    `load(keys, cell, sort_value, search_text)` replaces the rows; `cell(key, column_key)` is called
    only for rows being painted, and the painted rows are cached until the next load or resize.
    Keys must be hashable and unique.
    """

    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "cursor_page_up", "Page up", show=False),
        Binding("pagedown", "cursor_page_down", "Page down", show=False),
        Binding("home", "cursor_home", "First row", show=False),
        Binding("end", "cursor_end", "Last row", show=False),
        Binding("enter", "select", "Select", show=False),
        Binding("s", "cycle_sort", "sort", show=False),  # in help; a click on a header sorts too
        Binding("S", "reverse_sort", "Reverse sort", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "vtable--header",
        "vtable--cursor",
        "vtable--flash",
        "vtable--row-odd",
        "vtable--empty",
    }

    DEFAULT_CSS = """
    VirtualTable {
        width: 1fr;
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .vtable--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
        & > .vtable--header {
            background: $panel;
            color: $foreground;
            text-style: bold;
        }
        &:ansi > .vtable--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .vtable--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .vtable--flash {
            background: $warning 35%;
        }
        & > .vtable--row-odd {
            background: $surface-lighten-1 50%;
        }
        & > .vtable--empty {
            color: $text-muted;
            text-style: italic;
        }
    }
    """

    class RowMessage(Message):
        """A message about one row of a table (its `key`)."""

        def __init__(self, table: VirtualTable[Any], key: Any) -> None:
            self.table = table
            self.key = key
            super().__init__()

        @property
        def control(self) -> VirtualTable[Any]:
            return self.table

    class Selected(RowMessage):
        """Enter (or a click) on a row."""

    class Highlighted(RowMessage):
        """The cursor moved to another row (`key` is None when the table became empty)."""

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        if len({column.key for column in columns}) != len(columns):
            raise ValueError("column keys must be unique")
        self._columns: tuple[Column, ...] = tuple(columns)
        self._column_index = {column.key: column for column in self._columns}
        self._keys: Sequence[K] = ()
        self._cell: Callable[[K, str], CellValue] = lambda key, column: ""
        self._sort_value: Callable[[K, str], Any] | None = None
        self._search_text: Callable[[K], str] | None = None
        self._order: Sequence[int] = range(0)  # data indices in sort order
        self._view: Sequence[int] = range(0)  # _order after the filter
        self._cursor = 0  # position in _view
        self._sort_column: str | None = None
        self._sort_reverse = False
        self._filter_text = ""
        self._filter: str | re.Pattern[str] | None = None
        self._sort_cache: dict[str, list[Any]] = {}
        self._search_cache: list[str] | None = None
        self._search_ascii = False  # every search text is ASCII (see _apply)
        self._flash: set[K] = set()
        self._flash_timer: Timer | None = None
        self._row_cache: LRUCache[int, Strip] = LRUCache(256)
        self._cell_cache: dict[tuple[Any, ...], list[Segment]] = {}  # see _render_row
        self._header_cache: dict[tuple[int, str | None, bool], Strip] = {}
        self._layout_width = -1
        self._widths: list[int] = []
        self._paint: _Paint | None = None

    # -- public state -------------------------------------------------------------------------
    @property
    def columns(self) -> tuple[Column, ...]:
        """The columns, left to right."""
        return self._columns

    @property
    def cursor_key(self) -> K | None:
        """The key of the row under the cursor, or None when no row is shown."""
        view = self._view
        return self._keys[view[self._cursor]] if view else None

    @property
    def cursor_row(self) -> int:
        """The cursor's position among the shown rows (0 when empty)."""
        return self._cursor

    @property
    def visible_count(self) -> int:
        """Rows that pass the filter."""
        return len(self._view)

    @property
    def total_count(self) -> int:
        """Rows loaded."""
        return len(self._keys)

    @property
    def sort_column(self) -> str | None:
        """The column the rows are sorted by, or None for the caller's order."""
        return self._sort_column

    @property
    def sort_reverse(self) -> bool:
        """True when sorted descending."""
        return self._sort_reverse

    @property
    def filter_text(self) -> str:
        """The active filter as typed ("" for none)."""
        return self._filter_text

    def keys_in_view(self) -> list[K]:
        """The keys shown, in display order (for tests and exports; O(rows))."""
        keys = self._keys
        return [keys[index] for index in self._view]

    # -- data ---------------------------------------------------------------------------------
    def load(
        self,
        keys: Sequence[K],
        cell: Callable[[K, str], CellValue],
        sort_value: Callable[[K, str], Any] | None = None,
        search_text: Callable[[K], str] | None = None,
    ) -> None:
        """Replace the rows, keeping the cursor on the same key, the current sort and the filter.

        `keys` is the default order. `sort_value(key, column)` defaults to the cell's plain text;
        `search_text(key)` defaults to all cells' plain text joined (slower: every cell is built).
        """
        old_key = self.cursor_key
        hint = self._view[self._cursor] if self._view else -1
        new_keys = keys if isinstance(keys, tuple) else tuple(keys)
        # what the last paint showed, when the same keys come again: a refresh that changed nothing on
        # screen then paints nothing (a full repaint of a 200x60 screen's tables took 20-40 ms of the UI
        # thread, and a key pressed as the state arrived waited for it)
        shown = self._shown_rows() if not self._flash and new_keys == self._keys else None
        old_rows = {index: self._row_cache.get(index) for index in shown[-1]} if shown is not None else {}
        self._keys = new_keys
        self._cell = cell
        self._sort_value = sort_value
        self._search_text = search_text
        self._sort_cache.clear()
        self._search_cache = None
        self._row_cache.clear()
        self._end_flash(refresh=False)
        self._order = self._sorted_order()
        self._show(self._filtered(self._order), old_key, hint, reset_on_miss=False, shown=shown, old_rows=old_rows)

    def reset(self) -> None:
        """As new: no rows, no sort, no filter, the cursor at the top (a screen shown again for other data)."""
        self._sort_column = None
        self._sort_reverse = False
        self._filter_text = ""
        self._filter = None
        self._cursor = 0
        self.load((), lambda key, column: "")
        self._scroll_to_top(0)

    def sort_by(self, column_key: str, reverse: bool | None = None) -> None:
        """Sort by a column (stable); `reverse=None` toggles when already sorted by it."""
        column = self._column_index.get(column_key)
        if column is None:
            raise KeyError(f"no column {column_key!r}")
        if not column.sortable:
            raise ValueError(f"column {column_key!r} is not sortable")
        if reverse is None:
            reverse = not self._sort_reverse if column_key == self._sort_column else False
        self._sort_column = column_key
        self._sort_reverse = reverse
        self._resort()

    def clear_sort(self) -> None:
        """Back to the caller's order."""
        self._sort_column = None
        self._sort_reverse = False
        self._resort()

    def cycle_sort(self) -> None:
        """Sort by the next sortable column (ascending); after the last, back to the caller's order."""
        sortable = [column.key for column in self._columns if column.sortable]
        if not sortable:
            return
        if self._sort_column not in sortable:
            self.sort_by(sortable[0], reverse=False)
        elif self._sort_column == sortable[-1]:
            self.clear_sort()
        else:
            self.sort_by(sortable[sortable.index(self._sort_column) + 1], reverse=False)

    def set_filter(self, text: str) -> str | None:
        """Show rows whose search text contains `text` (case-insensitive); `/.../` is a regex.

        Returns an error message for a bad regex, or one too slow to finish within its time budget
        (kafkatui.textfilter), and keeps the previous filter; "" clears it.
        """
        spec: str | re.Pattern[str] | None
        if len(text) >= 2 and text.startswith("/") and text.endswith("/"):
            try:
                spec = re.compile(text[1:-1], re.IGNORECASE)
            except re.error as exc:
                return f"bad regex: {exc}"
        else:
            spec = text.lower() or None
        old_key = self.cursor_key
        hint = self._view[self._cursor] if self._view else -1
        try:
            view = self._apply(spec, self._order)
        except FilterTooSlow as exc:
            return f"regex not used: {exc}"
        self._filter_text = text if spec is not None else ""
        self._filter = spec
        self._show(view, old_key, hint, reset_on_miss=True)
        return None

    def flash(self, keys: Iterable[K]) -> None:
        """Highlight these rows once: until the next `load` or for about 1.5 s."""
        new = set(keys)
        if not new:
            return
        self._flash |= new
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        if self.is_mounted:
            self._flash_timer = self.set_timer(FLASH_SECONDS, self._end_flash)
        self.refresh()

    def move_cursor_to(self, key: K) -> bool:
        """Put the cursor on `key`, scrolling it into view; False if the key is not shown."""
        position = self._position_of_key(key, -1)
        if position is None:
            return False
        self._move_cursor(position)
        return True

    def cursor_to_top(self) -> None:
        """Cursor on the first shown row, scrolled to the top (the worst row of a worst-first table)."""
        self._move_cursor(0, top=0)

    # -- actions ------------------------------------------------------------------------------
    def action_cursor_up(self) -> None:
        self._move_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move_cursor(self._cursor + 1)

    def action_cursor_page_up(self) -> None:
        page = self._page_rows()
        self._move_cursor(self._cursor - page, top=self.scroll_offset.y - page)

    def action_cursor_page_down(self) -> None:
        page = self._page_rows()
        self._move_cursor(self._cursor + page, top=self.scroll_offset.y + page)

    def action_cursor_home(self) -> None:
        self._move_cursor(0)

    def action_cursor_end(self) -> None:
        self._move_cursor(len(self._view) - 1)

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    def action_cycle_sort(self) -> None:
        self.cycle_sort()

    def action_reverse_sort(self) -> None:
        if self._sort_column is not None:
            self.sort_by(self._sort_column, reverse=not self._sort_reverse)
            return
        sortable = [column.key for column in self._columns if column.sortable]
        if sortable:
            self.sort_by(sortable[0], reverse=True)

    # -- events -------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        """A click on the header sorts by that column; a click on a row selects it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            column = self._column_at(offset.x)
            if column is not None and column.sortable:
                self.sort_by(column.key)
            return
        position = self.scroll_offset.y + offset.y - 1
        if 0 <= position < len(self._view):
            self._move_cursor(position)
            self.action_select()

    def on_resize(self, event: events.Resize) -> None:
        self._scroll_to_top(self.scroll_offset.y)

    def on_unmount(self) -> None:
        """Drop the rows, their callbacks and every cache: a closed screen stays cyclic garbage until the
        app's next thorough collection (kafkatui.tui.app.GcPacer), frozen with what it references. A cached
        line is some twenty GC-tracked objects (a Strip, its seven caches, its segments), 256 or more per
        table, and each of them lengthens that collection's walk."""
        self._end_flash(refresh=False)
        self._keys = ()
        self._cell = lambda key, column: ""
        self._sort_value = self._search_text = None
        self._order = self._view = range(0)
        self._cursor = 0
        self._sort_cache.clear()
        self._search_cache = None
        self._row_cache.clear()
        self._cell_cache.clear()
        self._header_cache.clear()
        self._paint = None

    def notify_style_update(self) -> None:
        """Theme or pseudo-class change: drop rendered lines."""
        super().notify_style_update()
        self._row_cache.clear()
        self._cell_cache.clear()
        self._header_cache.clear()
        self.refresh()

    # -- model internals ----------------------------------------------------------------------
    def _sort_values(self, column_key: str) -> list[Any]:
        values = self._sort_cache.get(column_key)
        if values is None:
            keys = self._keys
            if self._sort_value is not None:
                sort_value = self._sort_value
                values = [sort_value(key, column_key) for key in keys]
            else:
                cell = self._cell
                values = [plain_text(cell(key, column_key)) for key in keys]
            self._sort_cache[column_key] = values
        return values

    def _sorted_order(self) -> Sequence[int]:
        """Data indices sorted (stably) by the sort column; rows whose value is None go last."""
        if self._sort_column is None:
            return range(len(self._keys))
        values = self._sort_values(self._sort_column)
        present: Sequence[int] = range(len(values))
        missing: list[int] = []
        if any(value is None for value in values):
            missing = [index for index, value in enumerate(values) if value is None]
            present = [index for index, value in enumerate(values) if value is not None]
        try:
            ordered = sorted(present, key=values.__getitem__, reverse=self._sort_reverse)
        except TypeError:  # mixed types in one column: compare their text instead
            text = [str(value) for value in values]
            ordered = sorted(present, key=text.__getitem__, reverse=self._sort_reverse)
        return ordered + missing if missing else ordered

    def _search_texts(self) -> list[str]:
        if self._search_cache is None:
            keys = self._keys
            if self._search_text is not None:
                search_text = self._search_text
                self._search_cache = [search_text(key).lower() for key in keys]
            else:
                cell = self._cell
                columns = [column.key for column in self._columns]
                self._search_cache = [
                    " ".join(plain_text(cell(key, column)) for column in columns).lower() for key in keys
                ]
            self._search_ascii = all(map(str.isascii, self._search_cache))
        return self._search_cache

    def _filtered(self, order: Sequence[int]) -> Sequence[int]:
        try:
            return self._apply(self._filter, order)
        except FilterTooSlow as exc:  # new rows the regex backtracks on: drop it rather than freeze
            shown = self._filter_text
            self._filter, self._filter_text = None, ""
            if self.is_mounted:
                self.notify(f"filter {shown} cleared: {exc}", severity="warning", timeout=5)
            return order

    def _apply(self, spec: str | re.Pattern[str] | None, order: Sequence[int]) -> Sequence[int]:
        if spec is None:
            return order
        texts = self._search_texts()
        if isinstance(spec, str):
            if isinstance(order, range):
                return [index for index, text in enumerate(texts) if spec in text]
            return [index for index in order if spec in texts[index]]
        if self._search_ascii:  # lowercased ASCII: case matters only to a pattern naming an uppercase letter
            spec = case_blind(spec)
        return select(spec, texts, order, budget=FILTER_BUDGET_S + FILTER_BUDGET_PER_ROW_S * len(order))

    def _resort(self) -> None:
        old_key = self.cursor_key
        hint = self._view[self._cursor] if self._view else -1
        self._order = self._sorted_order()
        self._show(self._filtered(self._order), old_key, hint, reset_on_miss=True)

    def _position_of_key(self, key: K, hint: int) -> int | None:
        """Position of `key` in the view; `hint` is its probable data index (a fast path)."""
        keys = self._keys
        if 0 <= hint < len(keys) and keys[hint] == key:
            index = hint
        else:
            try:
                index = keys.index(key)
            except ValueError:
                return None
        view = self._view
        if isinstance(view, range):
            return index if index < len(view) else None
        try:
            return view.index(index)
        except ValueError:
            return None

    def _shown_rows(self) -> tuple[int, int, int, tuple[int, ...]] | None:
        """What a paint shows of the rows now: cursor, top row, rows in the view and the data indices on
        screen; None before the first layout, and on a screen not in view (it is painted whole when
        shown again, so comparing its rows would only cost the UI thread)."""
        if self._layout_width < 0 or not self.size.height:
            return None
        try:
            if not self.screen.is_current:
                return None
        except NoScreen:  # removed (a closed screen's worker may still hand it rows)
            return None
        top = self.scroll_offset.y
        return self._cursor, top, len(self._view), tuple(self._view[top : top + self._page_rows()])

    def _repaint_needed(
        self, shown: tuple[int, int, int, tuple[int, ...]] | None, old_rows: dict[int, Strip | None]
    ) -> bool:
        """False when the rows on screen are as `shown` and each renders as it did (`old_rows`); the new
        rows go into the row cache either way, for the paint that follows."""
        if shown is None or self._shown_rows() != shown:
            return True
        same = True
        for index, old in old_rows.items():
            strip = self._render_row(index, self._layout_width)
            self._row_cache.set(index, strip)
            same = same and strip == old
        return not same

    def _show(
        self,
        view: Sequence[int],
        old_key: K | None,
        hint: int,
        *,
        reset_on_miss: bool,
        shown: tuple[int, int, int, tuple[int, ...]] | None = None,
        old_rows: dict[int, Strip | None] | None = None,
    ) -> None:
        """Install a new view, keeping the cursor's key and its screen row where possible; repainted
        unless `shown` (the rows on screen before) and `old_rows` (their lines) say nothing changed."""
        screen_row = self._cursor - self.scroll_offset.y
        self._view = view
        position = None if old_key is None else self._position_of_key(old_key, hint)
        if position is not None:
            self._cursor = position
            top = position - screen_row
        elif reset_on_miss:
            self._cursor = 0
            top = 0
        else:
            self._cursor = max(0, min(self._cursor, len(view) - 1))
            top = self._cursor - screen_row
        self.virtual_size = Size(sum(self._columns_width()), len(view) + 1)
        moved = self._scroll_to_top(top)
        if moved or self._repaint_needed(shown, old_rows or {}):
            self.refresh()
        new_key = self.cursor_key
        if new_key != old_key:
            self.post_message(self.Highlighted(self, new_key))

    def _columns_width(self) -> list[int]:
        return [GAP + column.width for column in self._columns]

    # -- scrolling ----------------------------------------------------------------------------
    def _page_rows(self) -> int:
        """Data rows that fit below the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_top(self, top: int) -> bool:
        """Scroll so that row `top` is first (clamped, cursor kept visible); True if it moved."""
        if not self.size.height:
            return False  # not laid out yet; on_resize comes back here
        page = self._page_rows()
        top = max(top, self._cursor - page + 1)
        top = min(top, self._cursor)
        top = max(0, min(top, len(self._view) - page))
        if top == self.scroll_offset.y:
            return False
        self.scroll_to(y=top, animate=False)
        return True

    def _move_cursor(self, position: int, top: int | None = None) -> None:
        if not self._view:
            return
        position = max(0, min(position, len(self._view) - 1))
        old = self._cursor
        if position == old and top is None:
            return
        self._cursor = position
        if not self._scroll_to_top(self.scroll_offset.y if top is None else top):
            self.refresh_line(old + 1)
            self.refresh_line(position + 1)
        if position != old:
            self.post_message(self.Highlighted(self, self.cursor_key))

    def _column_at(self, x: int) -> Column | None:
        self._ensure_layout(self.scrollable_content_region.width)
        start = 0
        for column, cells in zip(self._columns, self._widths, strict=True):
            if start <= x < start + GAP + cells:
                return column
            start += GAP + cells
        return None

    # -- rendering ----------------------------------------------------------------------------
    def _ensure_layout(self, width: int) -> None:
        if width != self._layout_width:
            self._layout_width = width
            self._widths = layout_widths(self._columns, width)
            self._row_cache.clear()
            self._row_cache.grow(max(256, 3 * self.size.height))
            self._header_cache.clear()

    def _end_flash(self, refresh: bool = True) -> None:
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        if self._flash:
            self._flash = set()
            if refresh:
                self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        """Look up the width, scroll offset and row styles once per paint, not once per line."""
        self._paint = self._paint_context()
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def _paint_context(self) -> _Paint:
        width = self.scrollable_content_region.width
        self._ensure_layout(width)
        component = self.get_component_rich_style
        return _Paint(
            width,
            self.scroll_offset.y,
            self.rich_style,
            component("vtable--row-odd"),
            component("vtable--cursor"),
            component("vtable--flash"),
        )

    def render_line(self, y: int) -> Strip:
        """Line 0 is the header; line `y` shows row `scroll_y + y - 1`."""
        paint = self._paint or self._paint_context()
        width = paint.width
        if y == 0:
            return self._header_strip(width)
        position = paint.top + y - 1
        view = self._view
        if not 0 <= position < len(view):
            if y == 1 and not view:
                return self._empty_strip(width)
            return Strip.blank(width, paint.even)
        index = view[position]
        strip = self._row_cache.get(index)
        if strip is None:
            strip = self._render_row(index, width)
            self._row_cache.set(index, strip)
        if position == self._cursor:
            style = paint.cursor
        elif self._flash and self._keys[index] in self._flash:
            style = paint.flash
        elif position % 2:
            style = paint.odd
        else:
            style = paint.even
        return strip.apply_style(style)

    def _render_row(self, index: int, width: int) -> Strip:
        """Cells of one row as an unstyled strip (row styles are applied per paint)."""
        key = self._keys[index]
        cell = self._cell
        console = self.app.console
        cached = self._cell_cache
        segments: list[Segment] = []
        plain: list[str] = []
        for column, cells in zip(self._columns, self._widths, strict=True):
            if cells <= 0:
                break
            value = cell(key, column.key)
            right = column.justify == "right"
            if isinstance(value, Text):
                plain.append(" " * GAP)
                segments.append(Segment("".join(plain)))
                plain.clear()
                # a styled cell's segments by its text, styles and width: most cells of a table repeat
                # (statuses, headroom bars, "none"), and rendering a rich Text is most of a row's cost
                looks = (value.plain, value.style, tuple(value.spans), cells, right)
                fitted = cached.get(looks)
                if fitted is None:
                    if len(cached) >= CELL_CACHE:
                        cached.clear()
                    fitted = cached[looks] = fit_text(value, cells, right, console)
                segments.extend(fitted)
            else:
                plain.append(" " * GAP)
                plain.append(fit_str(str(value), cells, right))
        if plain:
            segments.append(Segment("".join(plain)))
        return Strip(segments).adjust_cell_length(width)

    def _header_strip(self, width: int) -> Strip:
        cache_key = (width, self._sort_column, self._sort_reverse)
        strip = self._header_cache.get(cache_key)
        if strip is None:
            parts: list[str] = []
            for column, cells in zip(self._columns, self._widths, strict=True):
                if cells <= 0:
                    break
                label = column.header(cells)
                if column.key == self._sort_column:
                    arrow = "▼" if self._sort_reverse else "▲"
                    label = with_arrow(label, arrow, cells)
                parts.append(" " * GAP + fit_str(label, cells, column.justify == "right"))
            strip = Strip([Segment("".join(parts))]).adjust_cell_length(width)
            self._header_cache[cache_key] = strip
        return strip.apply_style(self.get_component_rich_style("vtable--header"))

    def _empty_strip(self, width: int) -> Strip:
        if self._filter is not None and self._keys:
            message = f"no rows match filter {self._filter_text!r}"
        else:
            message = "no rows"
        style: Style = self.get_component_rich_style("vtable--empty")
        return Strip([Segment(" " * GAP + message, style)]).adjust_cell_length(width, style)
