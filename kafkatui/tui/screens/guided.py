"""What the guided-action screens (elections, RF change) share: the preview box, export, Apply, busy state.

A subclass fills the body from the live snapshot (`render`), names its export (`export_text`) and
does the work behind Apply (`apply`). The body follows each refresh until Apply; every network step
runs in a worker thread while a spinner turns; Esc and q wait while a change is in flight.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Static

from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import ViewState
from kafkatui.tui.screens.preview_modal import PreviewModal

if TYPE_CHECKING:
    from kafkatui.kafka.settings import ConnectionSettings


def tool_lines(text: str, warn_prefix: str = "! ") -> Text:
    """Plain lines of a headless command's output, the first bold and warnings in the warning colour."""
    t = Text()
    for n, line in enumerate(text.splitlines()):
        warn = line.lstrip().startswith(warn_prefix)
        t.append(line + "\n", style="bold" if n == 0 else ("yellow" if warn else ""))
    t.rstrip()
    return t


class GuidedScreen(PreviewModal):
    """Preview -> (writes on) Apply -> typed confirmation -> worker -> results. Export always works."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("enter", "primary", "primary", show=False),
        Binding("x", "export", "export"),
        Binding("c", "copy_export", "copy export"),
        Binding("r", "refresh", "refresh"),
        Binding("q", "quit", "quit", show=False),
    ]

    heading = "guided action"
    export_title = "export"
    export_what = "the equivalent Kafka tool command"  # what the read-only modal says Export shows
    apply_label = "Apply…"
    subtitle = "Enter {apply} · x export · c copy · r refresh · Esc close"

    def __init__(self) -> None:
        super().__init__()
        self.started = False  # Apply was confirmed: the body no longer follows the live data
        self._apply_offered = False  # Apply has the keyboard (or the user moved it on): don't take it again
        self.shown: ClusterSnapshot | None = None

    @property
    def settings(self) -> ConnectionSettings:
        settings = self.dash.settings
        assert settings is not None
        return settings

    def bootstrap(self) -> str:
        """The bootstrap list the exported commands name."""
        if self.dash.settings is not None:
            return self.dash.settings.bootstrap_servers
        snap = self.dash.state.snapshot
        return snap.bootstrap if snap is not None and snap.bootstrap else "B"

    # layout ------------------------------------------------------------------
    def buttons(self) -> ComposeResult:
        yield Button(self.apply_label, id="apply", variant="error", disabled=True)
        yield Button(self.export_title, id="export-button")
        yield Button("Close", id="close")

    def has_export(self) -> bool:
        return self.shown is not None and bool(self.export_text())

    def offer_apply(self) -> None:
        self.status(Text("Nothing changes before you confirm by typing.", style="dim"))
        apply = self.query_one("#apply", Button)
        if not apply.disabled:
            self._apply_offered = True
            apply.focus()

    def update_state(self, state: ViewState) -> None:
        """Called by the app after every refresh: the preview follows the live data until Apply."""
        if not self.started and state.snapshot is not None:
            self.show(state.snapshot)

    def show(self, snapshot: ClusterSnapshot) -> None:
        self.shown = snapshot
        body, ready = self.render_body(snapshot)
        self.query_one("#preview-body", Static).update(body)
        apply = self.query_one("#apply", Button)
        was_disabled, had_focus = apply.disabled, apply.has_focus
        apply.disabled = not (ready and self.writes) or self.started or self.busy
        export = self.query_one("#export-button", Button)
        if export.has_focus and not ready:  # the plan emptied under the keyboard: Enter closes, not "nothing to export"
            self.query_one("#close", Button).focus()
        if apply.disabled and had_focus:
            self._apply_offered = False  # the cluster took the keyboard away (nothing to do for a moment)
        elif was_disabled and not apply.disabled and not self._apply_offered:
            # Apply can be pressed (again): the keyboard goes there, as when the preview opened
            self._apply_offered = True
            apply.focus()

    @abstractmethod
    def render_body(self, snapshot: ClusterSnapshot) -> tuple[Text, bool]:
        """The preview from `snapshot`, and whether there is anything to apply."""

    def set_busy(self, busy: bool) -> None:
        self.set_class(busy, "busy")
        if busy or self.started:
            self.query_one("#apply", Button).disabled = True

    # buttons -----------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "apply":
            self.action_apply()
        elif event.button.id == "export-button":
            self.action_export()
        elif event.button.id == "close":
            self.action_close()

    def action_refresh(self) -> None:
        """r refreshes here too (a modal screen hides the app's keys): the preview or progress follows."""
        self.dash.action_refresh()

    # export ------------------------------------------------------------------
    @abstractmethod
    def export_text(self) -> str:
        """What x shows and c copies: the equivalent command line or file."""

    def action_export(self) -> None:
        if self.shown is None:
            self.notify("no data yet: wait for the first refresh", severity="warning", timeout=3)
            return
        text = self.export_text()
        if not text:
            self.notify("nothing to export: the plan is empty", timeout=3)
            return
        self.show_export(text, self.export_title)

    # apply -------------------------------------------------------------------
    def action_apply(self) -> None:
        if not self.writes:
            self.refuse_read_only()
            return
        if self.busy or self.started or self.query_one("#apply", Button).disabled:
            return
        self.apply()

    @abstractmethod
    def apply(self) -> None:
        """Ask for the confirmation(s), then run the action in a worker."""

    def not_confirmed(self) -> None:
        self.status(Text("not confirmed: nothing changed", style="yellow"))
