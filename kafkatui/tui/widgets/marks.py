"""Toggles whose state shows without colour: `(•)` / `( )` radio buttons, `[x]` / `[ ]` check boxes.

Textual draws every radio button as `▐●▌` and every check box as `▐X▌` and tells on from off by colour
only; in a monochrome terminal or to a colour-blind reader all options looked chosen.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList


class MarkedRadioButton(RadioButton):
    """A radio button drawn `(•)` when chosen and `( )` when not."""

    @property
    def _button(self) -> Content:
        style = self.get_visual_style("toggle--button")
        return Content.assemble(("(•)" if self.value else "( )", style))


class MarkedCheckbox(Checkbox):
    """A check box drawn `[x]` when ticked and `[ ]` when not."""

    @property
    def _button(self) -> Content:
        style = self.get_visual_style("toggle--button")
        return Content.assemble(("[x]" if self.value else "[ ]", style))


class MarkedSelectionList(SelectionList[int]):
    """A selection list whose boxes read `[x]` / `[ ]` instead of `▐X▌` in two colours."""

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        segments = list(line)
        if len(segments) < 4 or segments[1].text != "X":
            return line
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except Exception:  # noqa: BLE001 - past the last option: nothing to mark
            return line
        on = option.value in self.selected  # type: ignore[attr-defined]
        style = segments[1].style
        marked = [Segment("[", style), Segment("x" if on else " ", style), Segment("]", style)]
        return Strip([*marked, *segments[3:]], line.cell_length)
