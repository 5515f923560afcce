"""The overview's events pane: a RichLog in which a line that repeats is collapsed into one with ×N."""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog


class EventLog(RichLog):
    """Events between refreshes, newest last; `add(text, key)` with the key of the last line says ×N instead."""

    DEFAULT_CSS = """
    EventLog { border-top: solid $panel; background: $surface; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        # min_width: RichLog wraps at 78 cells at least, so at 80 columns two letters went under the edge
        super().__init__(id=id, max_lines=500, markup=False, wrap=True, highlight=False, min_width=20)
        self._last_key: str | None = None
        self._last_text: Text | None = None
        self._repeats = 0
        self._placeholder = False
        self._entries: list[Text] = []  # every line written, to wrap them again when the width changes
        self._wrapped_at = 0

    def add(self, text: Text, key: str | None = None) -> None:
        """Write `text`; when `key` equals the previous line's key, replace that line with 'text ×N'."""
        if self._placeholder:  # the "waiting…" line goes once real content arrives
            self.clear()
            self._entries.clear()
            self._placeholder = False
        if key is not None and key == self._last_key and self._last_text is not None and self._drop_last():
            self._repeats += 1
            shown = text.copy()
            shown.append(f" ×{self._repeats}", style="bold")
            self._write(shown)
            return
        self._last_key, self._repeats = key, 1
        self._write(text)

    def placeholder(self, text: Text) -> None:
        """A line that the first real line replaces."""
        self.clear()
        self._entries.clear()
        self._write(text)
        self._placeholder = True
        self._last_key = None

    def _write(self, text: Text) -> None:
        self._last_text = text
        self._last_count = len(self.lines)
        self._entries.append(text)
        del self._entries[: -self.max_lines if self.max_lines else 0]
        # the pane's own width: left to measure, RichLog wraps at the console's 80 columns even at 120
        width = self.scrollable_content_region.width
        self._wrapped_at = width
        self.write(text, width=width if width > 0 else None)

    def on_resize(self, event: Resize) -> None:
        """Wrap every line again at the new width (a pane grown from 80 to 120 columns kept 80)."""
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._wrapped_at or not self._entries:
            return
        entries = self._entries
        self._entries = []
        self.clear()
        last = len(entries) - 1
        for i, text in enumerate(entries):
            if i == last:
                self._last_count = len(self.lines)
            self._entries.append(text)
            self.write(text, width=width, scroll_end=False)
        self._wrapped_at = width
        self.scroll_end(animate=False)

    def _drop_last(self) -> bool:
        """Remove the strips the previous line took (False when they are not rendered yet)."""
        before = getattr(self, "_last_count", None)
        if before is None or len(self.lines) <= before or self._start_line:
            return False
        del self.lines[before:]
        if self._entries:
            self._entries.pop()
        self._line_cache.clear()
        self._widest_line_width = max((s.cell_length for s in self.lines), default=0)
        self.virtual_size = self.virtual_size.with_height(len(self.lines))
        return True
