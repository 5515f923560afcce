"""The footer: Textual's compact footer showing only the keys it has room for, each one whole.

Textual's footer lays its keys out in one row and cuts the last one at the edge ("c copy c" at 80
columns). This one hides every key from the first that does not fit entirely: the keys come most
needed first (DashScreen lists the app's keys before each screen's own), and `?` lists them all.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class FittingFooter(Footer):
    """A compact footer whose keys are shown whole or not at all."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        self.call_after_refresh(self.fit)

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Show the keys that fit in the footer's width, in order; hide the rest."""
        room = self.size.width
        used = 0
        full = False
        for key in self.query(FooterKey):
            if key.has_class("-command-palette"):  # docked on the right, outside the row
                continue
            width = cell_len(key.key_display) + (1 + cell_len(key.description) if key.description else 0)
            full = full or used + width > room
            key.display = not full
            used += width + 1  # the compact footer's margin after each key
