"""The virtual table's columns and cells: widths that fit the terminal, cells cut to exactly their width.

Pure functions of rich text and widths (no widget state), split from `vtable.py`, which owns the
widget: its row order, sort, filter, cursor and painting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.text import Text

if TYPE_CHECKING:
    from kafkatui.columns import ColumnSet

CellValue = str | Text
GAP = 1  # blank cells in front of every column


@dataclass(frozen=True, slots=True)
class Column:
    """One table column; `min_width` lets it shrink when the widget is narrower than the table."""

    key: str
    label: str
    width: int
    justify: Literal["left", "right"] = "left"
    sortable: bool = True
    min_width: int | None = None
    short: str | None = None  # the header when `label` does not fit (a word, never a cut one)

    def header(self, width: int) -> str:
        """The label, else `short`, that fits `width` cells (the label, to be cut, when neither does)."""
        if cell_len(self.label) > width and self.short is not None and cell_len(self.short) <= width:
            return self.short
        return self.label

    def __post_init__(self) -> None:
        if self.width < 1:
            raise ValueError(f"column {self.key!r}: width must be at least 1")
        if self.min_width is not None and not 1 <= self.min_width <= self.width:
            raise ValueError(f"column {self.key!r}: min_width must be between 1 and width")


def table_columns(table: ColumnSet[Any]) -> list[Column]:
    """The virtual table's columns of a table defined in `kafkatui.columns` (with `check`'s and the JSON's)."""
    return [Column(c.key, c.label, c.width, c.justify, min_width=c.min_width, short=c.short) for c in table.columns]


def layout_widths(columns: Sequence[Column], width: int) -> list[int]:
    """Cell widths for `columns` in `width` cells: shrink right-most columns toward `min_width`, then crop.

    Every column is preceded by a one-cell gap. Columns that do not fit at all get width 0, and so does
    a column left fewer than 3 cells (or fewer than its header has): it could show nothing but "…".
    """
    widths = [column.width for column in columns]
    excess = sum(widths) + GAP * len(widths) - width
    for index in range(len(columns) - 1, -1, -1):
        if excess <= 0:
            break
        floor = columns[index].min_width
        if floor is None or widths[index] <= floor:
            continue
        cut = min(excess, widths[index] - floor)
        widths[index] -= cut
        excess -= cut
    x = 0
    fitted: list[int] = []
    for column, cells in zip(columns, widths, strict=True):
        room = max(0, width - x - GAP)
        got = min(cells, room)
        if fitted and fitted[-1] == 0 or got < min(3, cell_len(column.label)):
            got = 0
        fitted.append(got)
        x += GAP + cells
    return fitted


def fit_str(text: str, width: int, right: bool) -> str:
    """Pad or truncate (with an ellipsis) a plain cell to exactly `width` cells."""
    length = len(text) if text.isascii() else cell_len(text)
    if length == width:
        return text
    if length < width:
        pad = " " * (width - length)
        return pad + text if right else text + pad
    if width == 1:
        return "…"
    return set_cell_size(text, width - 1) + "…"


def fit_text(text: Text, width: int, right: bool, console: Console) -> list[Segment]:
    """Render a rich `Text` cell to segments exactly `width` cells wide, keeping its styles."""
    length = text.cell_len
    if length > width:
        text = text.copy()
        text.truncate(width, overflow="ellipsis")
        length = text.cell_len
    segments = [segment for segment in text.render(console) if segment.text]
    if text.style:  # rich's `render` leaves the Text's own style to its caller: under the spans' styles
        base = console.get_style(text.style) if isinstance(text.style, str) else text.style
        segments = list(Segment.apply_style(segments, base))
    if length < width:
        pad = Segment(" " * (width - length))
        if right:
            segments.insert(0, pad)
        else:
            segments.append(pad)
    return segments


def with_arrow(label: str, arrow: str, width: int) -> str:
    """`label ▲`, else `label▲`, else the label truncated to make room for the arrow."""
    length = cell_len(label)
    if length + 2 <= width:
        return f"{label} {arrow}"
    if length + 1 <= width or width < 3:
        return f"{label}{arrow}" if length + 1 <= width else arrow
    return fit_str(label, width - 1, False) + arrow


def plain_text(value: CellValue) -> str:
    return value.plain if isinstance(value, Text) else value
