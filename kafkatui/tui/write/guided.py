"""What the guided-action screens (elections, RF change) share: the preview box, export, Apply, busy state.

A subclass fills the body from the live snapshot (`render`), names its export (`export_text`) and
does the work behind Apply (`apply`). The body follows each refresh until Apply; every network step
runs in a worker thread while a spinner turns; Esc and q wait while a change is in flight. The preview
shows the data's age; destructive actions call `refresh_then` before their final confirmation.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Static

from kafkatui.alter.render import age_text
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import RefreshRequested
from kafkatui.tui.write.preview_modal import PreviewModal

STALE_REFRESHES = 2
"""A destructive action refuses a snapshot older than this many refresh intervals when it cannot refresh."""


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
        self._waiting: tuple[int, Callable[[ClusterSnapshot, str], None]] | None = None  # refresh_then

    @property
    def settings(self) -> ConnectionSettings:
        settings = self.session.settings
        assert settings is not None
        return settings

    def bootstrap(self) -> str:
        """The bootstrap list the exported commands name."""
        if self.session.settings is not None:
            return self.session.settings.bootstrap_servers
        snap = self.state.snapshot
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
        waiting = self._waiting
        if waiting is not None and state.generation > waiting[0]:
            self._waiting = None
            self._refreshed(state, waiting[1])

    def show(self, snapshot: ClusterSnapshot) -> None:
        self.shown = snapshot
        body, ready = self.render_body(snapshot)
        body.append(f"\ncluster state {self.age_of(snapshot)}", style="dim")
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
        self.post_message(RefreshRequested(announce=True))

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

    # freshness ---------------------------------------------------------------
    def age_of(self, snapshot: ClusterSnapshot) -> str:
        """``read 3.0 s ago (01:20:00 UTC)`` by the dashboard's clock."""
        return age_text(snapshot, self.session.clock())

    @property
    def stale_after(self) -> float:
        """A destructive action refuses data older than this: two refresh intervals."""
        return STALE_REFRESHES * self.session.refresh_seconds

    def refresh_then(self, proceed: Callable[[ClusterSnapshot, str], None]) -> None:
        """Read the cluster again just before a destructive action's final confirmation, then `proceed` with
        the fresh snapshot and a line saying how old it is; refuse (nothing changes) when the refresh fails
        and the data is older than `stale_after`."""
        self._waiting = (self.state.generation, proceed)
        self.set_busy(True)
        self.status(Text("reading the cluster again before the final confirmation…"))
        self.post_message(RefreshRequested())
        self.set_timer(max(self.stale_after, 5.0), self._refresh_timed_out)

    def _refresh_timed_out(self) -> None:
        waiting = self._waiting
        if waiting is not None:
            self._waiting = None
            self._refreshed(self.state, waiting[1], timed_out=True)

    def _refreshed(
        self, state: ViewState, proceed: Callable[[ClusterSnapshot, str], None], timed_out: bool = False
    ) -> None:
        self.set_busy(False)
        snapshot = state.snapshot
        if snapshot is not None and not self.started:
            self.show(snapshot)  # the plan as the cluster is now, and Apply usable again
        if snapshot is None:
            self.status(Text("✖ no data from the cluster: nothing changed", style="bold red"))
            return
        age = max(0.0, self.session.clock() - snapshot.taken_at)
        failed = "the refresh did not answer in time" if timed_out else state.error
        if failed is not None and age > self.stale_after:
            self.status(
                Text(
                    f"✖ refusing to go on: the data is {age:.0f} s old (more than two refresh intervals, "
                    f"{self.stale_after:.0f} s) and reading the cluster again failed ({failed}): "
                    "nothing changed",
                    style="bold red",
                ),
                reveal=True,
            )
            self.notify(
                "the data is too old to confirm a destructive change: nothing changed", severity="error", timeout=8
            )
            return
        note = f"Cluster state {self.age_of(snapshot)}" + (
            f"; reading it again failed ({failed})." if failed is not None else ", just read again."
        )
        proceed(snapshot, note)
