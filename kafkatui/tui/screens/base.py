"""What every dashboard screen shares: the summary bar, the filter bar, Esc to go back, state updates.

A screen gets its data from the app through `LiveView` (the session when pushed, `update_state` after each
refresh) and asks the app for things with `kafkatui.tui.messages`; it never imports the app.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from kafkatui.tui.feed import ViewState
from kafkatui.tui.session import MIN_HEIGHT, MIN_WIDTH, LiveView
from kafkatui.tui.widgets.footer import FittingFooter
from kafkatui.tui.widgets.summary import SummaryBar
from kafkatui.tui.widgets.vtable import VirtualTable

TOO_SMALL = "kafkatui needs at least {w}x{h} characters; this terminal is {cw}x{ch}. Enlarge the window."


def check_size(screen: Screen[None]) -> None:
    """Below MIN_WIDTH x MIN_HEIGHT: class ``too-small`` on `screen` and the message in its #too-small."""
    w, h = screen.app.size
    small = w < MIN_WIDTH or h < MIN_HEIGHT
    screen.set_class(small, "too-small")
    if small:
        screen.query_one("#too-small", Static).update(TOO_SMALL.format(w=MIN_WIDTH, h=MIN_HEIGHT, cw=w, ch=h))


class DashScreen(LiveView, Screen[None]):
    """Base screen: subclasses implement `body()` and `show(state)`."""

    # The app's keys are repeated here so that the footer lists them before each screen's own: at 80
    # columns the footer is cut on the right, and f, w, p and q were the keys it lost.
    BINDINGS = [
        Binding("escape", "back", "back", show=False),  # in help and in the filter bar's hint
        # priority: checked when the key arrives, so the keys typed right after `/` (a burst from tmux or a
        # fast typist) go to the filter; without it they were already on their way to the table
        Binding("slash", "filter", "filter", priority=True),
        Binding(":", "app.command_palette", "palette"),
        Binding("question_mark", "app.help", "help"),
        Binding("r", "app.refresh", "refresh"),
        Binding("p", "app.pause", "pause"),
        Binding("f", "app.findings", "findings"),
        Binding("w", "app.what_if", "what-if"),
        Binding("q", "app.quit", "quit"),
    ]

    DEFAULT_CSS = """
    DashScreen #filter-bar { height: 1; display: none; background: $boost; }
    DashScreen #filter-bar.visible { display: block; }
    DashScreen #filter-bar Label { width: auto; height: 1; padding: 0 1; }
    DashScreen #filter-bar #filter-label { background: $accent; color: $text; text-style: bold; }
    DashScreen #filter-bar #filter-hint { color: $text-muted; }
    DashScreen #filter { width: 1fr; height: 1; border: none; padding: 0 1; background: $boost; }
    DashScreen #filter:focus { background: $surface-lighten-1; }
    DashScreen #too-small { display: none; width: 100%; height: 100%; content-align: center middle; color: $warning; }
    DashScreen.too-small #too-small { display: block; }
    DashScreen.too-small #screen-body { display: none; }
    DashScreen.too-small SummaryBar { display: none; }
    """

    def compose(self) -> ComposeResult:
        yield SummaryBar(id="summary")
        yield Static(id="too-small")
        with Horizontal(id="filter-bar"):
            yield Label("/ filter", id="filter-label")
            yield Input(placeholder="text, or /regex/", id="filter")
            yield Label("", id="filter-hint")
        with Vertical(id="screen-body"):
            yield from self.body()
        yield FittingFooter(compact=True)

    def body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        # Textual calls every class's on_mount in the MRO (subclasses first): subclasses must not call super()
        self._check_size()
        self.update_state(self.state)

    def on_resize(self) -> None:
        self._check_size()

    def _check_size(self) -> None:
        check_size(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `/` inside a text box is a character (a /regex/ filter, a path), not the filter key
        if action == "filter" and isinstance(self.focused, Input):
            return False
        return super().check_action(action, parameters)

    def update_state(self, state: ViewState) -> None:
        """Called by the app after every refresh (and at mount): the summary, then `show` when there is data."""
        self.tick()
        if state.snapshot is not None and state.report is not None:
            self.show(state)

    def tick(self) -> None:
        """Refresh the summary bar (the data's age moves on even when nothing else does)."""
        session = self.session
        feed = getattr(self.app, "feed", None)
        waiting = feed.in_flight() if feed is not None else None
        for bar in self.query(SummaryBar):  # none while the screen is being built or torn down
            bar.show(
                session.state,
                paused=session.paused,
                read_only=session.read_only,
                source=session.source_label,
                now=session.clock(),
                waiting=waiting,
            )

    def show(self, state: ViewState) -> None:
        """Subclasses redraw their tables from the new state."""

    # filter ----------------------------------------------------------------
    _filter_for: VirtualTable[Any] | None = None  # the table the filter bar edits

    def filter_target(self) -> VirtualTable[Any] | None:
        """The table `/` filters: the focused VirtualTable, else the screen's main one."""
        focused = self.focused
        if isinstance(focused, VirtualTable):
            return focused
        tables = list(self.query(VirtualTable))
        return tables[0] if tables else None

    def action_filter(self) -> None:
        target = self.filter_target()
        if target is None:
            return
        self._filter_for = target
        box = self.query_one("#filter", Input)
        box.value = target.filter_text
        self.query_one("#filter-bar").add_class("visible")
        self._filter_hint(typing=True)
        self.set_focus(box)  # at once: `focus()` is deferred and keys typed right after `/` went to the table

    def clear_filter_bar(self) -> None:
        """No filter bar and nothing typed in it (the screen shown again for other data)."""
        self._filter_for = None
        box = self.query_one("#filter", Input)
        if box.value:
            box.value = ""
        self.query_one("#filter-bar").remove_class("visible")

    def _filter_hint(self, *, typing: bool) -> None:
        """'Enter keeps · Esc clears' while typing; 'N of M rows · / edits · Esc clears' while active."""
        target = self._filter_for
        counts = ""
        if target is not None and target.filter_text:
            counts = f"{target.visible_count} of {target.total_count} rows · "
        hint = counts + ("Enter keeps · Esc clears" if typing else "/ edits · Esc clears")
        self.query_one("#filter-hint", Label).update(hint)

    @property
    def filter_active(self) -> bool:
        """True while the filter bar shows (typing, or a kept filter)."""
        return self.query_one("#filter-bar").has_class("visible")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "filter":
            return
        target = self._filter_for
        if target is not None:
            error = target.set_filter(event.value)
            event.input.border_subtitle = error or ""
            if error:
                self.notify(error, severity="warning", timeout=2)
            self._filter_hint(typing=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            target = self._filter_for
            if not event.value:  # an empty filter is no filter: the bar goes
                self.query_one("#filter-bar").remove_class("visible")
            else:
                self._filter_hint(typing=False)
            if target is not None:
                target.focus()

    def action_back(self) -> None:
        if self.filter_active:
            box = self.query_one("#filter", Input)
            box.value = ""
            self.query_one("#filter-bar").remove_class("visible")
            target = self._filter_for
            if target is not None:
                target.set_filter("")
                target.focus()
            return
        if len(self.app.screen_stack) > 2:  # the default screen + overview stay
            self.app.pop_screen()
