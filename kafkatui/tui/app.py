"""The Textual app: small on purpose. It owns the feed and the refresh worker and pushes screens."""

from __future__ import annotations

import time
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.message import Message
from textual.timer import Timer
from textual.worker import get_current_worker

from kafkatui.tui.feed import Feed, ViewState
from kafkatui.tui.themes import DEFAULT_THEME, load_themes

MIN_WIDTH, MIN_HEIGHT = 60, 16


class StateUpdated(Message):
    """A refresh finished (or failed): every screen on the stack re-reads `app.state`."""

    def __init__(self, state: ViewState) -> None:
        super().__init__()
        self.state = state


class ScreensProvider(Provider):
    """Command palette entries: screens, refresh, pause and themes."""

    async def search(self, query: str) -> Hits:
        app = self.app
        assert isinstance(app, KafkaTuiApp)
        matcher = self.matcher(query)
        commands: list[tuple[str, Any, str]] = [
            ("Findings: every problem, worst first", app.action_findings, "f"),
            ("What if: take brokers down and see the blast radius", app.action_what_if, "w"),
            ("Refresh now", app.action_refresh, "r"),
            ("Pause / resume refresh", app.action_pause, "p"),
            ("Help: keys", app.action_help, "?"),
        ]
        for name in sorted(app.available_themes):
            if name.startswith("kafkatui-") or name in app.user_themes:
                commands.append((f"Theme: {name}", lambda n=name: setattr(app, "theme", n), ""))
        for text, callback, key in commands:
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=f"key: {key}" if key else None)


class KafkaTuiApp(App[None]):
    """kafkatui's dashboard. `feed` reads the cluster; `refresh_seconds` paces it."""

    TITLE = "kafkatui"
    CSS_PATH = "kafkatui.tcss"
    COMMANDS = App.COMMANDS | {ScreensProvider}
    BINDINGS = [
        Binding(":", "command_palette", "commands", show=True),
        Binding("question_mark", "help", "help"),
        Binding("r", "refresh", "refresh"),
        Binding("p", "pause", "pause"),
        Binding("f", "findings", "findings"),
        Binding("w", "what_if", "what-if"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self,
        feed: Feed,
        *,
        refresh_seconds: float = 5.0,
        theme: str | None = None,
        source_label: str = "",
        read_only: bool = True,
        clock: Any = time.time,
        auto_refresh: bool = True,
    ) -> None:
        super().__init__()
        self.feed = feed
        self.refresh_seconds = max(0.5, refresh_seconds)
        self.source_label = source_label
        self.read_only = read_only
        self.clock = clock
        self.auto_refresh_enabled = auto_refresh  # not `auto_refresh`: Textual's DOMNode owns that name
        self.paused = False
        self.state: ViewState = ViewState(None, None)
        self.user_themes: set[str] = set()
        self.theme_problems: list[str] = []
        self._timer: Timer | None = None
        self._refreshing = False
        themes, self.theme_problems = load_themes()
        for t in themes:
            self.register_theme(t)
            if not t.name.startswith("kafkatui-"):
                self.user_themes.add(t.name)
        self._wanted_theme = theme or DEFAULT_THEME

    # lifecycle ---------------------------------------------------------------
    def on_mount(self) -> None:
        from kafkatui.tui.screens.overview import OverviewScreen

        if self._wanted_theme in self.available_themes:
            self.theme = self._wanted_theme
        else:
            self.notify(f"unknown theme {self._wanted_theme!r}; using {DEFAULT_THEME}", severity="warning")
            self.theme = DEFAULT_THEME
        for problem in self.theme_problems:
            self.notify(problem, severity="warning", timeout=10)
        self.push_screen(OverviewScreen())
        self.request_refresh()
        if self.auto_refresh_enabled:
            self._timer = self.set_interval(self.refresh_seconds, self._tick)

    def _tick(self) -> None:
        if self.paused:
            return
        st = self.state
        if st.error is not None and st.snapshot is not None:
            # failing: back off (the age keeps growing on screen meanwhile)
            since = self.clock() - self._last_attempt
            if since < st.retry_in:
                self.refresh_header()
                return
        self.request_refresh()

    _last_attempt: float = 0.0

    def request_refresh(self) -> None:
        """Start a refresh in a worker thread unless one is running: the UI never waits on the network."""
        if self._refreshing:
            return
        self._refreshing = True
        self._last_attempt = self.clock()
        self._refresh_worker()

    @work(thread=True, exclusive=True, exit_on_error=False, group="refresh")
    def _refresh_worker(self) -> None:
        worker = get_current_worker()
        try:
            state = self.feed.refresh()
        except Exception as exc:  # a bug must not kill the dashboard: show it, keep the data
            prev = self.state
            state = ViewState(prev.snapshot, prev.report, prev.findings, (), f"internal error: {exc!r}",
                              prev.failures + 1, 5.0, prev.generation + 1, prev.shrink_counts)
        if not worker.is_cancelled:
            self.post_message(StateUpdated(state))

    def on_state_updated(self, message: StateUpdated) -> None:
        self._refreshing = False
        self.state = message.state
        for screen in self.screen_stack:
            update = getattr(screen, "update_state", None)
            if update is not None:
                update(message.state)

    def refresh_header(self) -> None:
        for screen in self.screen_stack:
            tick = getattr(screen, "tick", None)
            if tick is not None:
                tick()

    def on_unmount(self) -> None:
        self.workers.cancel_all()

    # actions -----------------------------------------------------------------
    def action_refresh(self) -> None:
        self.request_refresh()
        self.notify("refreshing…", timeout=1)

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.refresh_header()
        self.notify("refresh paused (p resumes)" if self.paused else "refresh resumed", timeout=2)

    def action_help(self) -> None:
        from kafkatui.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_findings(self) -> None:
        from kafkatui.tui.screens.findings import FindingsScreen

        if not isinstance(self.screen, FindingsScreen):
            self.push_screen(FindingsScreen())

    def action_what_if(self) -> None:
        from kafkatui.tui.screens.whatif import WhatIfScreen

        if not isinstance(self.screen, WhatIfScreen):
            self.push_screen(WhatIfScreen())

    def open_topic(self, topic: str) -> None:
        from kafkatui.tui.screens.topic import TopicScreen

        self.push_screen(TopicScreen(topic))

    def open_partition(self, topic: str, partition: int) -> None:
        from kafkatui.tui.screens.partition import PartitionScreen

        self.push_screen(PartitionScreen(topic, partition))

    def open_broker(self, broker_id: int) -> None:
        from kafkatui.tui.screens.broker import BrokerScreen

        self.push_screen(BrokerScreen(broker_id))
