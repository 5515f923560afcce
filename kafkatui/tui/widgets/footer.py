"""The footer: Textual's compact footer showing only the keys it has room for, each one whole.

Textual's footer lays its keys out in one row and cuts the last one at the edge ("c copy c" at 80
columns). This one first shortens a few long descriptions (`SHORTER`, in order, only as far as needed),
then hides every key from the first that still does not fit entirely: the keys come most needed first
(DashScreen lists the app's keys before each screen's own), and `?` lists them all. At 80 columns the
shortening is what keeps the overview's last key, `d replay`, on screen.

Textual's footer also rebuilds all its keys each time the screen says its bindings may have changed
(focus moves, the screen stack changes, a reactive with `bindings=True`): seven times per Enter into a
topic and Esc back, about a third of what a screen change cost at 100k partitions. This one rebuilds
once per refresh at most, and only when the keys it would show differ from those it shows.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

SHORTER: tuple[tuple[str, str], ...] = (("palette", "cmd"), ("findings", "find"))
"""Descriptions shortened one after the other, while the keys do not all fit."""

_FULL: WeakKeyDictionary[FooterKey, str] = WeakKeyDictionary()
"""Each shortened key's own description, for a wider footer."""


def _width(key: FooterKey, description: str) -> int:
    return cell_len(key.key_display) + (1 + cell_len(description) if description else 0)


class FittingFooter(Footer):
    """A compact footer whose keys are shown whole or not at all."""

    _shown: tuple[object, ...] | None = None  # the bindings its keys were built from
    _pending = False  # a rebuild is scheduled after the next refresh

    def compose(self) -> ComposeResult:
        self._shown = self._keys_from() if self._bindings_ready else None
        yield from super().compose()
        self.call_after_refresh(self.fit)

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if self._pending or not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._pending = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._pending = False
        if self.is_attached and self._keys_from() != self._shown:
            await self.recompose()

    def _keys_from(self) -> tuple[object, ...]:
        """What the keys are built from: every active binding as the footer would show it."""
        app = self.app
        return (self.show_command_palette, self.compact) + tuple(
            (key, b.key, b.action, b.description, b.show, b.group, enabled, tooltip, app.get_key_display(b))
            for key, (_, b, enabled, tooltip) in self.screen.active_bindings.items()
        )

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Shorten what must be, then show the keys that fit in the footer's width, in order; hide the rest."""
        room = self.size.width
        keys = [k for k in self.query(FooterKey) if not k.has_class("-command-palette")]  # docked on the right
        full = {k: _FULL.get(k, k.description) for k in keys}
        shown = dict(full)

        def needed() -> int:  # the compact footer leaves one cell after each key
            return sum(_width(k, shown[k]) for k in keys) + max(0, len(keys) - 1)

        for long, short in SHORTER:
            if needed() <= room:
                break
            shown.update({k: short for k in keys if full[k] == long})
        used = 0
        cut = False
        for key in keys:
            if key.description != shown[key]:
                _FULL[key] = full[key]
                key.description = shown[key]
                key.refresh(layout=True)
            width = _width(key, shown[key])
            cut = cut or used + width > room
            key.display = not cut
            used += width + 1
