"""Start the dashboard: on a cluster (`--bootstrap`/`--profile`) or on the built-in simulator (`--demo`)."""

from __future__ import annotations

import argparse
import logging
import os
from contextlib import ExitStack
from pathlib import Path

from rich.console import Console

from kafkatui.argparsing import number, seconds
from kafkatui.kafka.errors import KafkaTuiError, UsageError
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.options import connection_from
from kafkatui.tui.demo import DemoNarrator
from kafkatui.tui.feed import Feed
from kafkatui.tui.shutdown import close_within, exit_now_if_stuck

EXIT_RECORDER = 17  # as `kafkatui record`: ISR history could not be written

MAX_REFRESH = 86400.0
MAX_SPEED = 100_000.0  # simulated seconds per real second: a day in under a second


def add_tui_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--refresh",
        type=seconds(MAX_REFRESH),
        default=None,
        metavar="SECONDS",
        help="refresh interval (default 5; 1 with --demo)",
    )
    p.add_argument(
        "--theme", default=None, help="kafkatui-dark (default), kafkatui-light, kafkatui-contrast, or a theme of yours"
    )
    p.add_argument(
        "--demo",
        nargs="?",
        const="incident",
        metavar="SCENARIO",
        help="run on a simulated cluster started in-process, playing SCENARIO (default: incident)",
    )
    p.add_argument(
        "--speed",
        type=number(0, MAX_SPEED, low_open=True),
        default=DEMO_SPEED,
        help=f"with --demo: simulated seconds per real second (default {DEMO_SPEED:g}: the hour-long "
        "incident in about 15 minutes, a 12 s GC pause visible for 3 s)",
    )
    p.add_argument(
        "--no-record",
        action="store_true",
        help=f"do not record ISR history (default: record into {shown_path(state_dir() / 'history')})",
    )
    p.add_argument("--history-dir", type=Path, default=None, help="where to record ISR history")
    p.add_argument(
        "--replay",
        type=Path,
        nargs="?",
        const=LAUNCHER,
        default=None,
        metavar="OUT",
        help="scrub a recorded day: the --out directory of `kafkatui replay` (no cluster connection); "
        "without OUT, the replay launcher on the recorded history (--history-dir)",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="allow config changes from the dashboard (a: alter, u: revert), each previewed, validated, "
        "confirmed and audited (or writes: true in the profile); default: read-only",
    )


LAUNCHER = Path("\0launcher")  # `--replay` without OUT: open the launcher


def state_dir() -> Path:
    """$XDG_STATE_HOME/kafkatui, else ~/.local/state/kafkatui (where history and the log go)."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "kafkatui"


def shown_path(path: Path) -> str:
    """`path` as help text shows it: ~/... under the home directory."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


DEMO_SPEED = 4.0  # at 10 an episode lasted 20-30 s and a 12 s GC fencing fell between two refreshes


def start_demo(stack: ExitStack, scenario_name: str, speed: float) -> tuple[str, DemoNarrator]:
    """Start the simulator with a scenario unfolding; returns its bootstrap list and the narrator."""
    # lazy: the simulator loads only for --demo, not for every start of the dashboard
    from kafkatui.alter import audit
    from kafkatui.demo_cluster import play
    from kafkatui.sim.clock import VirtualClock
    from kafkatui.sim.runner import SimRunner

    if speed <= 0:
        raise UsageError("--speed must be positive")
    player = play(scenario_name, VirtualClock(speed=speed))
    cluster = player.cluster
    if not os.environ.get(audit.AUDIT_ENV):  # the demo's writes never go into the user's own audit history
        audit.route_to(audit.demo_path(cluster.cluster_id))
        stack.callback(audit.route_to, None)
    runner = SimRunner(cluster)
    narrator = DemoNarrator(player, player.scenario.name, speed)
    runner.server.tick_hooks.append(player.poll)
    runner.start()
    stack.callback(runner.stop)
    return runner.bootstrap, narrator


def log_to_file() -> Path | None:
    """While the dashboard owns the terminal, log lines go to a file (stderr would tear the screen)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    state = state_dir()
    try:
        state.mkdir(parents=True, exist_ok=True)
        path = state / "kafkatui.log"
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        root.addHandler(logging.NullHandler())
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    return path


def run_replay(ns: argparse.Namespace) -> int:
    """Open the Replay screen on an OUT directory, without any cluster; returns the exit code."""
    # lazy: the CLI imports this module to parse every command's arguments; Textual, the app and the
    # replay reader load only when the dashboard opens (start-up time of `kafkatui check` and friends)
    from kafkatui.tui.app import KafkaTuiApp
    from kafkatui.tui.screens.replay import open_day

    err = Console(stderr=True, soft_wrap=True, highlight=False)
    if ns.demo is not None or ns.bootstrap is not None or ns.profile is not None:
        err.print(
            "kafkatui: error: --replay reads a recorded day; it does not go with --demo, --bootstrap or --profile",
            markup=False,
        )
        return UsageError.exit_code
    if ns.replay == LAUNCHER:
        from kafkatui.history.record.cmd import default_history_dir

        app = KafkaTuiApp(
            None,
            theme=ns.theme,
            source_label="replay launcher",
            auto_refresh=False,
            history_dir=ns.history_dir or default_history_dir(),
            launch_replay=True,
        )
        log_to_file()
        app.run()
        return 0
    try:
        with err.status(f"reading {ns.replay}…") as status:
            data = open_day(ns.replay, lambda n: status.update(f"reading {ns.replay}… {n:,} partition frames"))
    except KafkaTuiError as exc:
        err.print(f"kafkatui: error: {exc}", markup=False)
        return exc.exit_code
    app = KafkaTuiApp(None, theme=ns.theme, source_label=f"replay {ns.replay}", replay=data, auto_refresh=False)
    log_to_file()
    app.run()
    return 0


def run_tui(ns: argparse.Namespace) -> int:
    """Open the dashboard; returns the exit code."""
    # lazy, as in run_replay: Textual and the app load only when the dashboard opens
    from kafkatui.tui.app import KafkaTuiApp

    if getattr(ns, "replay", None) is not None:
        return run_replay(ns)
    err = Console(stderr=True, soft_wrap=True, highlight=False)
    with ExitStack() as stack:
        try:
            narrator = None
            if ns.demo is not None:
                bootstrap, narrator = start_demo(stack, ns.demo, ns.speed)
                settings = ConnectionSettings(
                    bootstrap=tuple(bootstrap.split(",")), timeout=5.0 if ns.timeout is None else ns.timeout
                )
                label = f"demo: {ns.demo}"
                target = None
                refresh = 1.0 if ns.refresh is None else ns.refresh
                writes = bool(ns.write)
            else:
                conn = connection_from(ns)
                for w in conn.warnings:
                    err.print(f"kafkatui: warning: {w}", markup=False)
                settings = conn.settings
                label = conn.profile or settings.bootstrap_servers
                refresh = 5.0 if ns.refresh is None else ns.refresh
                writes = bool(ns.write or conn.writes)
                target = conn.replay
            if refresh <= 0:
                raise UsageError("--refresh must be positive")
        except KafkaTuiError as exc:
            err.print(f"kafkatui: error: {exc}", markup=False)
            return exc.exit_code
        # the first refresh leaves kafka-python's import out of the first paint
        source = KafkaClusterSource(settings, log_dirs="out-of-sync", defer_kafka_python=True)
        recorder = None
        problem = None
        if not ns.no_record:
            # lazy: the recorder loads only when the dashboard records
            from kafkatui.history.record.cmd import default_history_dir, writable_problem
            from kafkatui.history.record.recorder import Recorder

            # the demo records too (so its replay launcher has a day to replay), apart from real clusters
            directory = ns.history_dir or (
                default_history_dir() if ns.demo is None else default_history_dir().with_name("demo-history")
            )
            problem = writable_problem(directory)  # a file, /proc, read-only: said at once, not per refresh
            recorder = Recorder(directory) if problem is None else None
        feed = Feed(source, bootstrap=settings.bootstrap_servers, recorder=recorder)
        if problem is not None:
            feed.recording_failed(problem)
        app = KafkaTuiApp(
            feed,
            refresh_seconds=refresh,
            theme=ns.theme,
            source_label=label,
            read_only=not writes,
            settings=settings,
            demo=narrator,
            history_dir=ns.history_dir,
            replay_target=target,
        )
        log_to_file()
        app.run()
        # the screen is gone: close (history first) without letting a hung cluster hold the prompt
        rest = stack.pop_all()
        rest.callback(feed.close)  # an ExitStack runs callbacks last-in first: the feed before the demo
        close_within(rest.close)
    lost = feed.recording_problem()
    code = 0
    if lost is not None:  # the screen said it; the shell and scripts hear it too
        err.print(f"kafkatui: error: {lost}", markup=False)
        code = EXIT_RECORDER
    exit_now_if_stuck(code)
    return code
