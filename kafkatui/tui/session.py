"""What the app hands down to every screen it pushes: the run's settings and the latest state.

No Textual here. "Attributes down, messages up" (Textual's guide): the app owns one `Session`, gives
it to each `LiveView` screen when pushing it (`attach`), replaces `session.state` after each refresh
and calls `update_state` on every screen of the stack. Screens never import the app; they ask it for
things with the messages of `kafkatui.tui.messages`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.tui.feed import ViewState

if TYPE_CHECKING:  # typing only: the demo narrator imports the simulator
    from kafkatui.tui.demo import DemoNarrator

MIN_WIDTH, MIN_HEIGHT = 60, 16  # below this the screens say "enlarge the window" instead of drawing


@dataclass
class Session:
    """How this dashboard run was started (fixed), whether refresh is paused, and the latest state."""

    read_only: bool = True
    settings: ConnectionSettings | None = None  # the connection writes use (None: the app cannot write)
    source_label: str = ""  # what the summary bar names: the profile, the bootstrap list, "demo: incident"
    refresh_seconds: float = 5.0
    clock: Callable[[], float] = time.time
    demo: DemoNarrator | None = None  # `--demo`: the scenario's story, told in the events pane
    paused: bool = False
    state: ViewState = field(default_factory=ViewState.empty)  # replaced by the app after each refresh
    # what this dashboard did (a config change applied), for the events pane to say at the next refresh
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Say `text` in the events pane (the overview takes it at its next redraw)."""
        self.notes.append(text)

    def drain_notes(self) -> list[str]:
        """The notes not shown yet, oldest first; they are shown once."""
        out, self.notes = self.notes, []
        return out


class LiveView:
    """A screen the app keeps informed (a mixin for Textual screens): `attach` when pushed, then
    `update_state` after every refresh and `tick` every second."""

    # True when the screen drops its references to the state on unmount (see kafkatui.tui.app.GcPacer)
    releases_state: ClassVar[bool] = False
    _session: Session | None = None

    def attach(self, session: Session) -> None:
        """Called by the app as it pushes the screen, before it mounts."""
        self._session = session

    @property
    def session(self) -> Session:
        assert self._session is not None, f"{type(self).__name__} was not pushed by the dashboard app"
        return self._session

    @property
    def state(self) -> ViewState:
        """The latest state (the app replaces it after each refresh)."""
        return self.session.state

    def update_state(self, state: ViewState) -> None:
        """Called by the app after every refresh (and by the screen at mount): redraw from `state`."""

    def tick(self) -> None:
        """Called by the app every second and on pause: what shows the data's age moves on."""
