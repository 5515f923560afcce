"""The change history of the connected cluster (config changes, newest first), to revert any one of them.

Each line is `kafkatui.alter.revert.ChangeSet.describe` numbered as ``kafkatui alter --history`` numbers
it; Enter answers that number and the dashboard opens the revert preview for it (`start_revert`), which
applies the revert rules (compare-and-set; an undo of an undo re-applies).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kafkatui.alter.revert import ChangeSet


class HistoryScreen(ModalScreen[int | None]):
    """Answers the chosen change's number (1: the newest), or None."""

    BINDINGS = [Binding("escape", "close", "close")]

    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen #history-box { width: 96%; max-width: 140; height: auto; max-height: 80%; border: round $primary;
                                 background: $surface; padding: 0 1; }
    HistoryScreen #history-list { height: auto; max-height: 30; }
    HistoryScreen #history-help { color: $text-muted; }
    """

    def __init__(self, changes: Sequence[ChangeSet], cluster_id: str | None) -> None:
        super().__init__()
        self.changes = list(changes)
        self.cluster_id = cluster_id

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Static(
                Text(
                    "Enter reverts the highlighted change (same preview and confirmation; refused when the "
                    "cluster no longer holds its values); Esc closes."
                ),
                id="history-help",
            )
            yield OptionList(
                *(Option(f"{n:>3}  {c.describe()}", id=str(n)) for n, c in enumerate(self.changes, 1)),
                id="history-list",
            )

    def on_mount(self) -> None:
        box = self.query_one("#history-box")
        box.border_title = f"change history of cluster {self.cluster_id} ({len(self.changes)}, newest first)"
        self.query_one("#history-list", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0) or None)

    def action_close(self) -> None:
        self.dismiss(None)
