"""The modal every write action opens when writes are off: why, how to enable them, and Export."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

CONFIG_EXPORT = "the exact kafka-configs.sh command line and the Strimzi YAML"
READ_ONLY_TEXT = (
    "kafkatui is read-only: nothing was changed.\n\n"
    "To change this cluster, quit (q) and start kafkatui again with --write "
    "(or set writes: true in the connection profile).\n\n"
    "Export is always allowed: it shows {export} for you to apply yourself."
)


class ReadOnlyScreen(ModalScreen[bool]):
    """Answers True when the user chooses Export, False when they close it."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("x", "export", "export"),
        Binding("e", "export", "export", show=False),
    ]

    DEFAULT_CSS = """
    ReadOnlyScreen { align: center middle; }
    ReadOnlyScreen #ro-box { width: 72; height: auto; border: round $warning; background: $surface; padding: 1 2; }
    ReadOnlyScreen #ro-buttons { height: auto; margin-top: 1; align: right middle; }
    ReadOnlyScreen Button { margin-left: 2; }
    """

    def __init__(self, action: str, export: str = CONFIG_EXPORT) -> None:
        super().__init__()
        self.action = action
        self.export = export

    def compose(self) -> ComposeResult:
        with Vertical(id="ro-box"):
            yield Static(Text(READ_ONLY_TEXT.format(export=self.export)), id="ro-text")
            with Horizontal(id="ro-buttons"):
                yield Button("Export…", id="ro-export", variant="primary")
                yield Button("Close", id="ro-close")

    def on_mount(self) -> None:
        self.query_one("#ro-box").border_title = f"read-only: {self.action}"
        self.query_one("#ro-export", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "ro-export")

    def action_close(self) -> None:
        self.dismiss(False)

    def action_export(self) -> None:
        self.dismiss(True)
