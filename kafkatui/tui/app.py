"""The Textual app: small on purpose. It owns the feed and the refresh worker and pushes screens."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import weakref
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import get_current_worker

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.tui.feed import Feed, ViewState
from kafkatui.tui.messages import (
    BROKER_DEFAULT,
    OpenBroker,
    OpenPartition,
    OpenTopic,
    RefreshRequested,
    StartAlter,
    StartPreferredElection,
    StartReassign,
    StartUncleanElection,
    StateUpdated,
)
from kafkatui.tui.replay_jobs import ReplayJobs
from kafkatui.tui.screens.broker import BrokerScreen
from kafkatui.tui.screens.findings import FindingsScreen
from kafkatui.tui.screens.help import HelpScreen
from kafkatui.tui.screens.overview import OverviewScreen
from kafkatui.tui.screens.partition import PartitionScreen
from kafkatui.tui.screens.replay import ReplayScreen, ask_replay_dir
from kafkatui.tui.screens.topic import TopicScreen
from kafkatui.tui.screens.whatif import WhatIfScreen
from kafkatui.tui.session import LiveView, Session
from kafkatui.tui.shutdown import NoWaitExecutor
from kafkatui.tui.themes import DEFAULT_THEME, load_themes

if TYPE_CHECKING:  # typing only: the replay data and the demo narrator pull in history and the simulator
    from pathlib import Path

    from kafkatui.history.view.data import ReplayData
    from kafkatui.kafka.profiles import ReplayTarget
    from kafkatui.tui.demo import DemoNarrator

__all__ = ["GcPacer", "KafkaTuiApp", "StateUpdated"]

# Garbage collection. At 100,000 partitions a state is ~50,000 GC-tracked objects (ReplicaLog, the
# PartitionInfo views read, findings; the bench's), the app and its screens ~350,000 more, and a
# refresh decodes and builds the next state beside them. Left to itself, Python runs several full
# (generation 2) collections per refresh while a snapshot is being built, each walking every tracked
# object while holding the GIL: 0.2-0.9 s during which no key is answered. So while the dashboard runs:
# - automatic full collections are off (young generations are still collected as usual);
# - each new state is frozen (`gc.freeze`) once applied, so no collection walks it again. The feed's data
#   is acyclic: reference counting frees an old state as soon as it is replaced, frozen or not;
# - the app collects the UI's own cycles itself, above all closed screens (Textual leaves thousands of
#   objects of cyclic garbage per screen): a collection becomes due when a screen closes or every
#   GC_SECONDS, and runs once no key or mouse event has come for IDLE_GC_SECONDS. It walks only what is
#   not frozen, so it is short, and freezes what survives;
# - objects frozen while alive that later become cyclic garbage wait for a thorough collection
#   (`gc.unfreeze` first, a walk of everything: about a second at 100,000 partitions), which runs the
#   same way every THOROUGH_GC_SECONDS or THOROUGH_GC_SCREENS closed screens, and after a screen closes
#   that may still reference a state (one without `releases_state = True`), so that an old state is
#   never kept for long; it waits for THOROUGH_IDLE_SECONDS without input, so that a key pressed in a
#   pause between keys rarely meets it;
# - no full collection ever runs while the user is pressing keys (a forced one after 10 s of input
#   froze the screen for up to 1.2 s): the young generations are still collected as usual, and what
#   is due waits for the first pause in the typing;
# - nor while a refresh is in flight: the worker needs the GIL to build the new state, and a thorough
#   collection holding it for 2.4 s at 105,000 partitions (the bench's) delayed the very refresh that
#   carried an incident by that much. What is due runs as the new state arrives, before it is shown, if
#   the user has been idle as long as it needs (no one reacts to what is not on screen yet), else at the
#   next pause, or after REFRESH_GC_WAIT_SECONDS if a refresh never reports;
# - a due ordinary collection that would walk at most SHORT_GC_OBJECTS (65-70 ms) runs at once,
#   keys or not: a closed topic screen leaves ~25,000 objects of Textual's cyclic garbage (its DOM,
#   the virtual nodes of component-class styles, their caches), and fifty opened and closed without a
#   pause left 1.8 million, a 2 s collection at the first pause. A closed screen needs the thorough
#   collection only if something froze it while it was open (a state applied, a collection ran):
#   otherwise its garbage is not frozen and an ordinary collection frees it.
GC_SECONDS = 30.0
THOROUGH_GC_SECONDS = 300.0
THOROUGH_GC_SCREENS = 20
IDLE_GC_SECONDS = 0.5
THOROUGH_IDLE_SECONDS = 2.0
NO_AUTO_FULL_GC = 1 << 30  # generation-2 threshold: never reached
REFRESH_GC_WAIT_SECONDS = 60.0
CLOSED_SCREEN_GC_DELAY = 0.05  # seconds after a pop: the screen is removed by then
KEPT_TOPIC_SCREEN = "kafkatui-topic"  # the name the kept topic screen is installed under
SHORT_GC_OBJECTS = 100_000  # GC-tracked objects a collection walks in 65-70 ms on the bench's machine

# The refresh worker runs Python (decoding, assess, findings) for seconds at 100,000 partitions; each
# time the UI thread wakes up it waits for the GIL up to the switch interval (5 ms by default), and a
# key takes several wake-ups to reach the screen. 1 ms halves key-to-frame p95 during a refresh.
UI_SWITCH_INTERVAL = 0.001
WARM_AFTER_INPUT_SECONDS = 0.15  # the worst findings' text waits for this long a pause in the typing,
WARM_WAIT_SECONDS = 2.0  # but no longer than this (a findings screen opened before builds its own)


class GcPacer:
    """Runs Python's cyclic garbage collector when the user is not typing (see the comment above)."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self._saved: tuple[int, int, int] | None = None
        self.last_input = self._last_collect = self._last_thorough = clock()
        self._due_since: float | None = None
        self._walk: int | None = None  # see _walked
        self._thorough = False
        self._closed = 0  # screens closed since the last thorough collection
        self._refresh_since: float | None = None  # a refresh in flight since then
        self.freezes = 0  # gc.freeze calls so far: a screen opened at n and closed at n was never frozen

    def start(self) -> None:
        self._saved = gc.get_threshold()
        gc.set_threshold(self._saved[0], self._saved[1], NO_AUTO_FULL_GC)

    def stop(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
            gc.unfreeze()

    def user_input(self) -> None:
        self.last_input = self.clock()

    def _walked(self) -> int:
        """The objects an ordinary collection would walk, counted once per due collection (and again after
        a screen closes): counting lists them all, 9 ms at 100k partitions, at every tick while keys come."""
        if self._walk is None:
            self._walk = sum(len(gc.get_objects(g)) for g in range(3))
        return self._walk

    def screen_closed(self, releases_state: bool, frozen: bool = True) -> None:
        """A screen closed; `frozen`: a freeze came while it was open (its garbage waits for a thorough
        collection), else an ordinary one frees it."""
        self._walk = None  # more to walk
        if not frozen:
            self._due(thorough=False)
            return
        self._closed += 1
        self._due(thorough=not releases_state or self._closed >= THOROUGH_GC_SCREENS)

    def refresh_started(self) -> None:
        """A refresh worker began building a new state: no full collection until it is applied."""
        self._refresh_since = self.clock()

    def state_arrived(self) -> None:
        """A refresh's state is about to be shown: what is due runs now if the user is idle enough."""
        self._refresh_since = None
        self.tick()

    def state_applied(self) -> None:
        """A new state replaced the old one (which reference counting has freed): freeze the new one."""
        self._refresh_since = None
        if self._saved is not None:
            self._freeze()

    def _freeze(self) -> None:
        gc.freeze()
        self.freezes += 1

    def tick(self) -> None:
        now = self.clock()
        if now - self._last_thorough >= THOROUGH_GC_SECONDS:
            self._due(thorough=True)
        elif now - self._last_collect >= GC_SECONDS:
            self._due(thorough=False)
        if self._due_since is None or self._saved is None:
            return
        if self._refresh_since is not None and now - self._refresh_since < REFRESH_GC_WAIT_SECONDS:
            return
        if now - self.last_input < (THOROUGH_IDLE_SECONDS if self._thorough else IDLE_GC_SECONDS) and (
            self._thorough or self._walked() > SHORT_GC_OBJECTS
        ):
            return
        if self._thorough:
            gc.unfreeze()
            self._last_thorough = now
            self._closed = 0
        gc.collect()
        self._freeze()
        self._due_since = None
        self._thorough = False
        self._last_collect = self.clock()

    def _due(self, *, thorough: bool) -> None:
        if self._due_since is None:
            self._due_since = self.clock()
            self._walk = None
        self._thorough = self._thorough or thorough


NAME_SCORE = 1000.0  # palette hits for topic, partition and broker names, above every command's


class ScreensProvider(Provider):
    """The command palette: kafkatui's commands (screens, replay, changes, themes), and any topic, partition
    or broker by name (k9s habit: `:` then `orders` and Enter opens the topic).

    It replaces Textual's generic entries, which opened the palette on Maximize and Save screenshot.
    """

    MAX_NAME_HITS = 30

    def _commands(self) -> list[tuple[str, Any, str]]:
        app = self.app
        assert isinstance(app, KafkaTuiApp)
        commands: list[tuple[str, Any, str]] = [
            ("Findings: every problem, worst first", app.action_findings, "f"),
            ("What if: take brokers down and see the blast radius", app.action_what_if, "w"),
            ("Replay a day: launch the PySpark job on the recorded history", app.action_launch_replay, "d"),
            ("Replay a day… (the output of kafkatui replay)", app.action_replay, ""),
            ("Alter broker defaults: durability wizard (needs --write to apply)", app.action_alter_defaults, ""),
            ("Revert the last config change", app.action_revert_last, "u"),
            ("Change history: revert any config change of this cluster", app.action_change_history, ""),
            ("Preferred leader election (all topics)", app.action_elect_all, ""),
            ("Refresh now", app.action_refresh, "r"),
            ("Pause / resume refresh", app.action_pause, "p"),
        ]
        if app.feed is None:  # replay only: no cluster to find, simulate, change, refresh or pause
            live = (
                app.action_findings,
                app.action_what_if,
                app.action_alter_defaults,
                app.action_revert_last,
                app.action_change_history,
                app.action_elect_all,
                app.action_refresh,
                app.action_pause,
            )
            commands = [c for c in commands if c[1] not in live]
        for name in sorted(app.available_themes):
            if name.startswith("kafkatui-") or name in app.user_themes:
                commands.append((f"Theme: {name}", lambda n=name: setattr(app, "theme", n), ""))
        commands += [("Help: every key", app.action_help, "?"), ("Quit", app.action_quit, "q")]
        return commands

    def _names(self, query: str) -> list[tuple[float, str, Any, str]]:
        """Topics, partitions (`orders-3`) and brokers (`3`, `broker 3`) whose name contains the query."""
        app = self.app
        assert isinstance(app, KafkaTuiApp)
        report = app.state.report
        q = query.strip().lstrip(":").strip().lower()
        if report is None or not q:
            return []
        hits: list[tuple[float, str, Any, str]] = []
        for name in report.topics:
            low = name.lower()
            if q in low:
                # Textual's fuzzy scores reach ~10: names always rank above commands
                score = NAME_SCORE + (2.0 if low == q else (1.0 if low.startswith(q) else 0.0))
                hits.append((score, f"Topic: {name}", lambda n=name: app.open_topic(n), "open the topic"))
                if len(hits) >= self.MAX_NAME_HITS:
                    break
        topic, dash, number = q.rpartition("-")
        if dash and number.isdigit():
            exact = next((n for n in report.topics if n.lower() == topic), None)
            if exact is not None and any(p.partition == int(number) for p in report.snapshot.topics[exact].partitions):
                hits.append(
                    (
                        NAME_SCORE + 3.0,
                        f"Partition: {exact}-{int(number)}",
                        lambda t=exact, n=int(number): app.open_partition(t, n),
                        "open the partition",
                    )
                )
        bid = q.removeprefix("broker").strip()
        if bid.isdigit() and int(bid) in report.brokers:
            hits.append(
                (NAME_SCORE + 2.5, f"Broker: {int(bid)}", lambda b=int(bid): app.open_broker(b), "open the broker")
            )
        return hits

    async def discover(self) -> Hits:
        for text, callback, key in self._commands():
            yield DiscoveryHit(text, callback, help=f"key: {key}" if key else None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query.lstrip(":"))
        for score, text, callback, help_text in self._names(query):
            yield Hit(score, text, callback, help=help_text)
        for text, callback, key in self._commands():
            match = matcher.match(text)
            if match > 0:
                yield Hit(match, matcher.highlight(text), callback, help=f"key: {key}" if key else None)


class KafkaTuiApp(App[None]):
    """kafkatui's dashboard. `feed` reads the cluster; `refresh_seconds` paces it."""

    TITLE = "kafkatui"
    CSS_PATH = "kafkatui.tcss"
    COMMANDS = {ScreensProvider}  # kafkatui's own entries only (see ScreensProvider)
    BINDINGS = [
        Binding(":", "command_palette", "commands", show=True),
        Binding("question_mark", "help", "help"),
        Binding("r", "refresh", "refresh"),
        Binding("p", "pause", "pause"),
        Binding("f", "findings", "findings"),
        Binding("w", "what_if", "what-if"),
        Binding("d", "launch_replay", "replay", show=False),  # on every screen; the overview's footer shows it
        Binding("u", "revert_last", "revert", show=False),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self,
        feed: Feed | None,
        *,
        refresh_seconds: float = 5.0,
        theme: str | None = None,
        source_label: str = "",
        read_only: bool = True,
        clock: Any = time.time,
        auto_refresh: bool = True,
        replay: ReplayData | None = None,
        settings: ConnectionSettings | None = None,
        demo: DemoNarrator | None = None,
        history_dir: Path | None = None,
        replay_target: ReplayTarget | None = None,
        launch_replay: bool = False,
    ) -> None:
        super().__init__()
        self.feed = feed  # None: replay only (`kafkatui --replay`), no cluster
        self.replay = replay
        # the replay launcher (`d`): jobs run as child processes, one at a time
        self.replay_jobs = ReplayJobs(
            self,
            recorder=feed.recorder if feed is not None else None,
            history_dir=history_dir,
            target=replay_target,
            clock=clock,
        )
        self._launch_on_mount = launch_replay
        # what every screen is handed when pushed (attributes down; see kafkatui.tui.session)
        self.session = Session(
            read_only=read_only,
            settings=settings,
            source_label=source_label,
            refresh_seconds=max(0.5, refresh_seconds),
            clock=clock,
            demo=demo,
        )
        # retries back off while the cluster is gone, but a cluster that returns shows within two refreshes
        if feed is not None:
            feed.max_backoff = min(feed.max_backoff, 2 * self.session.refresh_seconds)
        self.auto_refresh_enabled = auto_refresh  # not `auto_refresh`: Textual's DOMNode owns that name
        self.user_themes: set[str] = set()
        self.theme_problems: list[str] = []
        self._timer: Timer | None = None
        self._refreshing = False
        self.gc_pacer = GcPacer()
        self._topic_screen: TopicScreen | None = None  # built once, shown for every topic (see open_topic)
        self._opened_at: weakref.WeakKeyDictionary[Screen[Any], int] = weakref.WeakKeyDictionary()  # -> freezes
        self._switch_interval: float | None = None
        themes, self.theme_problems = load_themes()
        for t in themes:
            self.register_theme(t)
            if not t.name.startswith("kafkatui-"):
                self.user_themes.add(t.name)
        self._wanted_theme = theme or DEFAULT_THEME

    # the session, as tests and the palette read it ---------------------------
    @property
    def state(self) -> ViewState:
        """The latest state (the one every screen has been handed)."""
        return self.session.state

    @property
    def paused(self) -> bool:
        return self.session.paused

    @property
    def read_only(self) -> bool:
        return self.session.read_only

    @property
    def settings(self) -> ConnectionSettings | None:
        return self.session.settings

    def push_screen(self, screen: Screen[Any] | str, *args: Any, **kwargs: Any) -> Any:
        """Textual's push, handing a `LiveView` screen the session first (attributes down)."""
        if isinstance(screen, LiveView):
            screen.attach(self.session)
        if isinstance(screen, Screen):
            self._opened_at[screen] = self.gc_pacer.freezes  # see pop_screen
        return super().push_screen(screen, *args, **kwargs)

    # lifecycle ---------------------------------------------------------------
    def on_mount(self) -> None:
        # refreshes run on the loop's default executor: quitting must not wait for one stuck on a hung broker
        asyncio.get_running_loop().set_default_executor(NoWaitExecutor(thread_name_prefix="kafkatui-refresh"))
        self.gc_pacer.start()
        self.set_interval(0.25, self.gc_pacer.tick)
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, UI_SWITCH_INTERVAL))
        if self._wanted_theme in self.available_themes:
            self.theme = self._wanted_theme
        else:
            self.notify(f"unknown theme {self._wanted_theme!r}; using {DEFAULT_THEME}", severity="warning")
            self.theme = DEFAULT_THEME
        for problem in self.theme_problems:
            self.notify(problem, severity="warning", timeout=10)
        self.set_interval(1.0, self.replay_jobs.tick)
        if self.replay is not None:
            self.push_screen(ReplayScreen(self.replay))
        if self._launch_on_mount:  # `kafkatui --replay` without OUT
            self.call_after_refresh(self.replay_jobs.open)
        if self.feed is None:
            return
        self.push_screen(OverviewScreen())
        self.request_refresh()
        if self.auto_refresh_enabled:
            self._timer = self.set_interval(self.session.refresh_seconds, self._tick)
        # the data's age counts on every screen, paused or not, between refreshes
        self.set_interval(1.0, self.refresh_header)

    def _tick(self) -> None:
        if self.paused:
            return
        st = self.state
        if st.error is not None and st.snapshot is not None:
            # failing: back off (the age keeps growing on screen meanwhile)
            since = self.session.clock() - self._last_attempt
            if since < st.retry_in - self.session.refresh_seconds / 2:  # ticks come every refresh_seconds, give or take
                self.refresh_header()
                return
        self.request_refresh()

    _last_attempt: float = 0.0
    _settled = False  # the audit log's interrupted changes were looked for

    def request_refresh(self) -> None:
        """Start a refresh in a worker thread unless one is running: the UI never waits on the network."""
        if self._refreshing or self.feed is None:
            return
        self._refreshing = True
        self._last_attempt = self.session.clock()
        self.gc_pacer.refresh_started()
        self._refresh_worker()

    @work(thread=True, exclusive=True, exit_on_error=False, group="refresh")
    def _refresh_worker(self) -> None:
        worker = get_current_worker()
        assert self.feed is not None
        try:
            state = self.feed.refresh()
        except Exception as exc:  # a bug must not kill the dashboard: show it, keep the data
            state = self.state.failed(f"internal error: {exc!r}", 5.0)
        if not worker.is_cancelled:
            self.post_message(StateUpdated(state))

    _record_error_shown: str | None = None

    def on_state_updated(self, message: StateUpdated) -> None:
        self._refreshing = False
        self.gc_pacer.state_arrived()  # before the state is on screen (see GcPacer)
        self.session.state = message.state
        self._show_record_error()
        if not self._settled and message.state.snapshot is not None:  # interrupted changes: said once
            self._settled = True
            from kafkatui.tui.write import (
                actions as write_actions,  # lazy: the alter layer, not needed to show a replay
            )

            write_actions.settle_interrupted(self, message.state.snapshot)
        for screen in self.screen_stack:
            if isinstance(screen, LiveView):
                # a screen pushed from a worker (the launcher's Replay screen) may still be composing
                with suppress(NoMatches):
                    screen.update_state(message.state)
        self.gc_pacer.state_applied()
        self.call_after_refresh(self._warm, message.state)  # the worst findings' text, once it is on screen

    # described: `@work` otherwise describes a call by the repr of its arguments, and the repr of a state
    # at 100,000 partitions took ~100 ms of the UI thread (a key pressed then waited that long)
    @work(thread=True, exclusive=True, exit_on_error=False, group="warm", description="the worst findings' text")
    def _warm(self, state: ViewState) -> None:
        """The worst findings' text, in a pause of the typing: built while keys came, it took the GIL in
        turns with their frames (a key as a state arrived: 67-80 ms to its frame, target 50)."""
        give_up = time.monotonic() + WARM_WAIT_SECONDS
        while time.monotonic() - self.gc_pacer.last_input < WARM_AFTER_INPUT_SECONDS and time.monotonic() < give_up:
            time.sleep(0.02)
        if self.feed is not None:
            self.feed.warm(state)

    def _show_record_error(self) -> None:
        """A history write that failed is told once (again only after recording worked in between)."""
        if self.feed is None:
            return
        problem = self.feed.record_error
        if problem is not None and self._record_error_shown is None:
            self.notify(
                f"{problem}; the dashboard goes on without recording (exit status 17 at quit)",
                severity="error",
                timeout=15,
            )
        self._record_error_shown = problem

    def refresh_header(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, LiveView):
                with suppress(NoMatches):  # a screen still being composed or already torn down: next second
                    screen.tick()

    def on_unmount(self) -> None:
        self.replay_jobs.stop()  # no replay job (and no JVM) outlives the dashboard
        self.workers.cancel_all()
        self.gc_pacer.stop()
        if self._switch_interval is not None:
            sys.setswitchinterval(self._switch_interval)
            self._switch_interval = None

    # garbage collection (see GcPacer) -----------------------------------------
    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent) and not event.is_forwarded:
            self.gc_pacer.user_input()
        await super().on_event(event)

    def pop_screen(self) -> AwaitComplete:
        screen = self.screen
        opened = self._opened_at.pop(screen, None)
        if screen is self._topic_screen:  # kept to be shown again (see open_topic): no garbage, no state held
            self._topic_screen.release()
            return super().pop_screen()
        # the closed screen becomes cyclic garbage, with whatever it still references
        self.gc_pacer.screen_closed(
            isinstance(screen, LiveView) and screen.releases_state,
            frozen=opened is None or opened != self.gc_pacer.freezes,
        )
        # once Textual has taken the screen down, its garbage alone is a short collection: run it then, not
        # at the next 0.25 s tick, by which time a quick user has closed another screen or two
        self.set_timer(CLOSED_SCREEN_GC_DELAY, self.gc_pacer.tick)
        return super().pop_screen()

    # actions -----------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Without a cluster (replay only) there is nothing to refresh, pause, find, simulate or change."""
        return self.feed is not None or action not in (
            "refresh",
            "pause",
            "findings",
            "what_if",
            "revert_last",
            "change_history",
            "alter_defaults",
            "elect_all",
        )

    def action_replay(self) -> None:
        ask_replay_dir(self)

    def action_launch_replay(self) -> None:
        self.replay_jobs.open()

    def action_refresh(self) -> None:
        self.request_refresh()
        self.notify("refreshing…", timeout=1)

    def action_pause(self) -> None:
        self.session.paused = not self.session.paused
        self.refresh_header()
        self.notify("refresh paused (p resumes)" if self.paused else "refresh resumed", timeout=2)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_findings(self) -> None:
        if not isinstance(self.screen, FindingsScreen):
            self.push_screen(FindingsScreen())

    def action_what_if(self) -> None:
        if not isinstance(self.screen, WhatIfScreen):
            self.push_screen(WhatIfScreen())

    def action_revert_last(self) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_revert(self, self.session)

    def action_change_history(self) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.open_history(self, self.session)

    def action_alter_defaults(self) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_alter(self, self.session, [BROKER_DEFAULT])

    def action_elect_all(self) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_preferred(self, self.session, None)

    def open_topic(self, topic: str) -> None:
        # one topic screen is built once and shown again for every topic: building one (its widgets, their
        # styles, the footer) was most of an Enter's 65 ms at 100k partitions, and each closed one left
        # ~25,000 objects of cyclic garbage, a 10-30 ms collection at the next key (see GcPacer)
        kept = self._topic_screen
        if kept is not None and kept.is_running and kept not in self.screen_stack:
            kept.reuse_for(topic, self.session.state)
            self.push_screen(kept)
            return
        screen = TopicScreen(topic)
        if kept is None:  # a second one (a topic opened over the kept one) is built and closed as usual
            self._topic_screen = screen
            self.install_screen(screen, name=KEPT_TOPIC_SCREEN)
        self.push_screen(screen)

    def open_partition(self, topic: str, partition: int) -> None:
        self.push_screen(PartitionScreen(topic, partition))

    def open_broker(self, broker_id: int) -> None:
        self.push_screen(BrokerScreen(broker_id))

    # what the screens ask for (messages up; kafkatui.tui.messages) --------------
    def on_open_topic(self, message: OpenTopic) -> None:
        self.open_topic(message.topic)

    def on_open_partition(self, message: OpenPartition) -> None:
        self.open_partition(message.topic, message.partition)

    def on_open_broker(self, message: OpenBroker) -> None:
        self.open_broker(message.broker_id)

    def on_refresh_requested(self, message: RefreshRequested) -> None:
        if message.announce:
            self.action_refresh()
        else:
            self.request_refresh()

    def on_start_alter(self, message: StartAlter) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_alter(self, self.session, message.targets)

    def on_start_preferred_election(self, message: StartPreferredElection) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_preferred(self, self.session, message.topics)

    def on_start_unclean_election(self, message: StartUncleanElection) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_unclean(self, self.session, message.topic, message.partition)

    def on_start_reassign(self, message: StartReassign) -> None:
        from kafkatui.tui.write import actions as write_actions  # lazy: the alter layer, not needed to show a replay

        write_actions.start_reassign(self, self.session, message.topic)
