"""A table column defined once, and the table of them: what the dashboard, `check` and `--json` show.

A `ColumnSpec` is one column of a row type (a `TopicHealth`, a `BrokerHealth`): its header, widths and
justification, the dashboard's cell, the sort key, the words `check`'s table prints, and the keys under
which `check --json` puts its value. A `ColumnSet` is one table's columns in order plus the order of
its rows' JSON keys; the dashboard's virtual tables (`kafkatui.tui.widgets.columns.table_columns`),
`check`'s rich tables (`ColumnSet.text_table`) and `check --json` (`ColumnSet.record`) are all built
from it, so a new column is one entry in its set.

Rich is imported where a table or a styled cell is made: `check --json` imports this module and never
rich (issue 17's start-up budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from kafkatui.model.mode import Mode

if TYPE_CHECKING:
    from typing import TypeAlias

    from rich.table import Table
    from rich.text import Text

    CellValue: TypeAlias = str | Text

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Context:
    """What a cell may need beyond its row.

    `mode`: the cluster's (`model.mode.snapshot_mode`), for the words of a dead broker still listed;
    `leader_down`: per topic, the partitions whose leader refuses connections (`model.unfenced.per_topic`).
    """

    mode: Mode | None = None
    leader_down: Mapping[str, int] = field(default_factory=dict)


NO_CONTEXT = Context()


@dataclass(frozen=True, slots=True)
class Json(Generic[R]):
    """One key of a row's JSON object; `outer.inner` names a key of a nested object (`counts.offline`)."""

    name: str
    value: Callable[[R, Context], object]


@dataclass(frozen=True, slots=True)
class ColumnSpec(Generic[R]):
    """One column of a table of `R` rows, for the dashboard, `check`'s table and `check --json`.

    Dashboard (the virtual table): `label` (else `short` when the label does not fit), `width` cells,
    shrinking to `min_width` when the terminal is narrow, `justify`; `cell` is what it shows (a rich
    `Text` carries colour), `sort` what the column sorts by.
    `check`'s table: `text_label` (default `label`) over `text` (default: the cell's plain text; a
    `Text` keeps its colour on a terminal), `no_wrap`, `text_min_width` / `text_max_width` as rich's
    `Table.add_column` takes them.
    `check --json`: `json`, the keys of the row's object holding this column's figures (`()`: the
    column is not in the JSON; say so in the entry).
    """

    key: str
    label: str
    width: int
    justify: Literal["left", "right"] = "left"
    _: KW_ONLY
    cell: Callable[[R, Context], CellValue]
    sort: Callable[[R], object]
    json: tuple[Json[R], ...]  # required: a column left out of the JSON says so with ()
    text: Callable[[R, Context], CellValue] | None = None
    min_width: int | None = None
    short: str | None = None
    text_label: str | None = None
    no_wrap: bool = False
    text_min_width: int | None = None
    text_max_width: int | None = None

    def text_of(self, row: R, context: Context = NO_CONTEXT) -> CellValue:
        """What `check`'s table prints in this column for `row`."""
        if self.text is not None:
            return self.text(row, context)
        value = self.cell(row, context)
        return value if isinstance(value, str) else value.plain


class ColumnSet(Generic[R]):
    """One table: its columns in order, and its rows' JSON object.

    `json_order` orders the object's keys: a name is a column's `Json` key, a `Json` is a key no column
    shows (`host` of a broker). Column keys it does not name follow, in column order: a new column's
    JSON key needs no entry here.
    """

    def __init__(self, columns: Sequence[ColumnSpec[R]], json_order: Sequence[str | Json[R]] = ()) -> None:
        self.columns: tuple[ColumnSpec[R], ...] = tuple(columns)
        self.json_order = tuple(json_order)
        self._built_for: tuple[ColumnSpec[R], ...] | None = None
        self._index()  # a mistake in the definitions fails at import

    def _index(self) -> dict[str, ColumnSpec[R]]:
        """Columns by key, rebuilt (and checked) when `columns` is replaced (a test adds one)."""
        if self._built_for is not self.columns:
            self._by_key, self._fields = _index(self.columns, self.json_order)
            self._plan = _plan(self._fields)
            self._built_for = self.columns
        return self._by_key

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.columns)

    def spec(self, key: str) -> ColumnSpec[R]:
        return self._index()[key]

    def cell(self, row: R, key: str, context: Context = NO_CONTEXT) -> CellValue:
        """The dashboard's cell ('' for a key the table does not have)."""
        spec = self._index().get(key)
        return spec.cell(row, context) if spec is not None else ""

    def sort(self, row: R, key: str) -> object:
        """What column `key` sorts `row` by."""
        return self._index()[key].sort(row)

    def text(self, row: R, key: str, context: Context = NO_CONTEXT) -> CellValue:
        """What `check`'s table prints (a `Text` keeps its colour)."""
        return self._index()[key].text_of(row, context)

    def plain(self, row: R, key: str, context: Context = NO_CONTEXT) -> str:
        """`text` without styles: for any plain output."""
        value = self.text(row, key, context)
        return value if isinstance(value, str) else value.plain

    def json_fields(self) -> tuple[Json[R], ...]:
        """Every key of a row's JSON object, in the order the object has them."""
        self._index()
        return tuple(f for f, _, _ in self._fields)

    def record(self, row: R, context: Context = NO_CONTEXT) -> dict[str, Any]:
        """`row` as `check --json` writes it."""
        self._index()
        out: dict[str, Any] = {}
        for outer, value, nested in self._plan:
            if nested:
                out[outer] = {inner: f(row, context) for inner, f in nested}
            else:
                out[outer] = value(row, context)
        return out

    def text_table(self, title: str, rows: Iterable[R], context: Context = NO_CONTEXT) -> Table:
        """`check`'s table of `rows`: every column, its header and words (meaning never rests on colour)."""
        from rich import box
        from rich.table import Table

        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for c in self.columns:
            table.add_column(
                c.text_label or c.label,
                justify=c.justify,
                no_wrap=c.no_wrap,
                min_width=c.text_min_width,
                max_width=c.text_max_width,
            )
        columns = self.columns
        for row in rows:
            table.add_row(*(c.text_of(row, context) for c in columns))
        return table


def _index(
    columns: Sequence[ColumnSpec[R]], json_order: Sequence[str | Json[R]]
) -> tuple[dict[str, ColumnSpec[R]], list[tuple[Json[R], str, str]]]:
    """Columns by key, and the JSON keys in order as (field, outer key, inner key or ''); ValueError when
    two columns share a key or a JSON name, or `json_order` names a key no column has."""
    by_key: dict[str, ColumnSpec[R]] = {}
    for c in columns:
        if c.key in by_key:
            raise ValueError(f"two columns with the key {c.key!r}")
        by_key[c.key] = c
    of_columns: dict[str, Json[R]] = {}
    for c in columns:
        for f in c.json:
            if f.name in of_columns:
                raise ValueError(f"JSON key {f.name!r} of column {c.key!r} is another column's")
            of_columns[f.name] = f
    ordered: list[Json[R]] = []
    for item in json_order:
        if isinstance(item, str):
            if item not in of_columns:
                raise ValueError(f"JSON order names {item!r}, the key of no column")
            ordered.append(of_columns[item])
        else:
            ordered.append(item)
    named = [f.name for f in ordered]
    ordered += [f for name, f in of_columns.items() if name not in named]
    names = [f.name for f in ordered]
    if len(set(names)) != len(names):
        raise ValueError(f"a JSON key twice: {sorted({n for n in names if names.count(n) > 1})}")
    fields = []
    for f in ordered:
        outer, _, inner = f.name.partition(".")
        fields.append((f, outer, inner))
    return by_key, fields


def _plan(
    fields: list[tuple[Json[R], str, str]],
) -> list[tuple[str, Callable[[R, Context], object], list[tuple[str, Callable[[R, Context], object]]]]]:
    """The JSON object's keys in order, each with its value, or (for a nested object, placed where its
    first key is) its keys and values: `record` walks this list once per row."""
    plan: list[tuple[str, Callable[[R, Context], object], list[tuple[str, Callable[[R, Context], object]]]]] = []
    groups: dict[str, list[tuple[str, Callable[[R, Context], object]]]] = {}
    for f, outer, inner in fields:
        if not inner:
            plan.append((outer, f.value, []))
        elif outer in groups:
            groups[outer].append((inner, f.value))
        else:
            groups[outer] = [(inner, f.value)]
            plan.append((outer, f.value, groups[outer]))
    return plan
