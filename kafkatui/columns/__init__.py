"""Table columns defined once (rich only, no Textual): the dashboard's tables, `check`'s and `--json`.

`spec` is the machinery (`ColumnSpec`, `ColumnSet`, `Json`, `Context`); `topics` and `brokers` are the
two tables the dashboard's overview and `kafkatui check` share.
"""

from kafkatui.columns.brokers import BROKERS
from kafkatui.columns.spec import NO_CONTEXT, ColumnSet, ColumnSpec, Context, Json
from kafkatui.columns.topics import CLASS_JSON, TOPICS

__all__ = ["BROKERS", "CLASS_JSON", "NO_CONTEXT", "TOPICS", "ColumnSet", "ColumnSpec", "Context", "Json"]
