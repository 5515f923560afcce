"""What every write preview shares (config changes, elections, RF change): the box, status, spinner, export.

A subclass fills the box through hooks (`controls`, `under_body`, `under_status`, `buttons`), shows the
live snapshot (`show`), and says what happens when writes are on (`offer_apply`). Esc and q wait while
a request is in flight, so nothing is left done but not audited.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message_pump import _MessagePumpMeta
from textual.screen import ModalScreen
from textual.widgets import Button, LoadingIndicator, Static, TextArea

from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.session import LiveView
from kafkatui.tui.write.readonly import CONFIG_EXPORT, ReadOnlyScreen

READ_ONLY_STATUS = (
    "read-only: Apply needs kafkatui started with --write (or writes: true in the profile); Export is always allowed."
)


class _AbstractScreenMeta(_MessagePumpMeta, ABCMeta):
    """Textual's screen metaclass with ABC's check: a preview missing a hook cannot be opened."""


class PreviewModal(LiveView, ModalScreen[None], metaclass=_AbstractScreenMeta):
    """The preview box: body, status, spinner, export area, buttons; busy state and the export actions."""

    DEFAULT_CSS = """
    PreviewModal { align: center middle; }
    PreviewModal #preview-box { width: 96%; max-width: 140; height: 94%; border: round $primary;
                                background: $surface; padding: 0 1; }
    PreviewModal #preview-scroll { height: 1fr; }
    PreviewModal #preview-body { height: auto; }
    PreviewModal #preview-status { height: auto; margin-top: 1; }
    PreviewModal #spinner { height: 1; display: none; }
    PreviewModal.busy #spinner { display: block; }
    PreviewModal #export { height: 12; display: none; margin-top: 1; }
    PreviewModal #export.visible { display: block; }
    PreviewModal #preview-buttons { height: auto; align: right middle; }
    PreviewModal Button { margin-left: 1; }
    """

    heading = "preview"
    subtitle = "Esc closes"
    export_button = "#export-button"  # the button that has the keyboard when writes are off
    export_what = CONFIG_EXPORT  # what the read-only modal says Export shows
    in_flight = "the request is being sent"  # what Esc and q wait for
    copy_hint = "x shows the export"  # what to press when there is nothing to copy yet

    def __init__(self) -> None:
        super().__init__()
        self.exported = False

    @property
    def writes(self) -> bool:
        return not self.session.read_only and self.session.settings is not None

    @property
    def busy(self) -> bool:
        return self.has_class("busy")

    # layout ------------------------------------------------------------------
    def controls(self) -> ComposeResult:
        """Widgets above the body (choices); none by default."""
        yield from ()

    def under_body(self) -> ComposeResult:
        """Widgets between the body and the status line; none by default."""
        yield from ()

    def under_status(self) -> ComposeResult:
        """Widgets under the status line (progress); none by default."""
        yield from ()

    @abstractmethod
    def buttons(self) -> ComposeResult:
        """The buttons along the bottom."""

    def compose(self) -> ComposeResult:
        with Vertical(id="preview-box"):
            with VerticalScroll(id="preview-scroll"):
                yield from self.controls()
                yield Static(id="preview-body")
                yield from self.under_body()
                yield Static(id="preview-status")
                yield from self.under_status()
                yield LoadingIndicator(id="spinner")
                yield TextArea(read_only=True, soft_wrap=True, show_line_numbers=False, id="export")
            with Horizontal(id="preview-buttons"):
                yield from self.buttons()

    def box_title(self) -> str:
        return self.heading

    def box_subtitle(self) -> str:
        """The key map, the same in every preview: Enter the primary action, x export, c copy, Esc close."""
        primary = getattr(self, "apply_label", "Apply…") if self.writes else "export"
        return self.subtitle.format(apply=primary)

    def has_export(self) -> bool:
        """Whether Export has anything to show (an empty plan has not)."""
        return True

    def focus_primary(self) -> None:
        """The keyboard on the primary action: Apply with writes on (see `offer_apply`), else Export, else Close."""
        if self.has_export():
            self.query_one(self.export_button, Button).focus()
        else:
            self.query_one("#close", Button).focus()

    def action_primary(self) -> None:
        """Enter outside the buttons: Apply when it can be pressed, else Export."""
        apply = self.query_one("#apply", Button)
        if self.writes and not apply.disabled:
            apply.press()
        else:
            self.query_one(self.export_button, Button).press()

    def on_mount(self) -> None:
        box = self.query_one("#preview-box")
        box.border_title = self.box_title()
        box.border_subtitle = self.box_subtitle()
        snapshot = self.state.snapshot
        if snapshot is not None:
            self.show(snapshot)
        if self.writes:
            self.offer_apply()
        else:
            self.status(Text(READ_ONLY_STATUS, style="yellow"))
            self.focus_primary()

    @abstractmethod
    def show(self, snapshot: ClusterSnapshot) -> None:
        """Fill the body from `snapshot`."""

    @abstractmethod
    def offer_apply(self) -> None:
        """With writes on, when the preview opens: say what Apply does and give it the keyboard."""

    def status(self, text: Text, reveal: bool = False) -> None:
        """Show `text` under the preview; `reveal` scrolls to it (results below a long preview)."""
        widget = self.query_one("#preview-status", Static)
        widget.update(text)
        if reveal:
            self.call_after_refresh(widget.scroll_visible)

    # closing -----------------------------------------------------------------
    async def action_quit(self) -> None:
        """q waits while a change is in flight, so none is left done but not audited."""
        if self.busy:
            self.notify(f"{self.in_flight}: wait for its result before quitting", severity="warning", timeout=3)
            return
        self.app.exit()

    def action_close(self) -> None:
        if self.busy:
            self.notify(f"{self.in_flight}: wait for its result", severity="warning", timeout=2)
            return
        self.dismiss(None)

    # export and read-only ----------------------------------------------------
    def show_export(self, text: str, title: str) -> None:
        """Put `text` in the export area under the preview and scroll to it."""
        area = self.query_one("#export", TextArea)
        area.load_text(text)
        area.border_title = title
        area.add_class("visible")
        self.exported = True
        area.scroll_visible()

    def action_copy_export(self) -> None:
        if not self.exported:
            self.notify(f"nothing exported yet: {self.copy_hint}", timeout=3)
            return
        self.app.copy_to_clipboard(self.query_one("#export", TextArea).text)
        self.notify("copied the export to the clipboard (OSC 52)", timeout=2)

    def refuse_read_only(self) -> None:
        """Apply with writes off: the modal that says how to turn them on, and what Export offers."""
        self.app.push_screen(ReadOnlyScreen(self.heading, self.export_what))
