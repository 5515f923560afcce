"""The help screen: every key of the app and of each screen, in one table."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from kafkatui.tui.format import keys_table
from kafkatui.tui.screens.base import check_size
from kafkatui.tui.session import LiveView

KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    # (where, [(key, what)])
    (
        "everywhere",
        [
            (
                ":",
                "command palette: kafkatui's commands (screens, replay, alter, elections, refresh, pause, themes); "
                "type a topic, a partition (orders-3) or broker 3 and Enter jumps to it",
            ),
            ("?", "this help (? or Esc closes it)"),
            ("r", "refresh now"),
            ("p", "pause / resume the automatic refresh"),
            ("f", "findings: every problem, worst first"),
            ("w", "what-if: take brokers down and see the blast radius"),
            ("d", "replay a day: launch the PySpark job on the recorded history, land on what dropped first"),
            ("u", "revert the last config change on this cluster (from the audit log): same preview and confirmation"),
            ("Esc", "clear the filter, else go back one screen"),
            ("Tab / Shift+Tab", "move the focus between the panes"),
            ("q", "quit"),
        ],
    ),
    (
        "every table",
        [
            (
                "/",
                "filter rows: text (substring, any case) or /regex/; the filter stays shown under the summary "
                "with its row count; Enter keeps it, Esc clears it",
            ),
            ("Enter", "drill down into the row under the cursor"),
            ("↑ ↓ PgUp PgDn", "move the cursor (Home / End: first / last row)"),
            ("s / S", "sort by the next column / reverse the sort (clicking a header sorts too)"),
        ],
    ),
    (
        "overview",
        [
            ("b / t", "focus the brokers / topics table"),
            ("e", "focus the events pane"),
            ("a", "alter: durability wizard for the highlighted topic, or for every topic matching the filter"),
            ("Enter", "open the topic or broker under the cursor"),
        ],
    ),
    (
        "topic",
        [
            ("Enter", "open the partition under the cursor"),
            ("a", "alter this topic: durability wizard (goal and N, or explicit values), then the preview"),
            (
                "e",
                "preferred leader election for the partitions not led by their preferred replica: preview, "
                "leaders per broker before / after, typed confirmation (needs --write; export always)",
            ),
            (
                "R",
                "change the replication factor: rack-aware plan, kafka-reassign-partitions.sh export, typed "
                "confirmation, then progress until the new replicas are in the ISR (needs --write)",
            ),
        ],
    ),
    (
        "partition",
        [
            ("c", "copy every command on the screen to the clipboard (OSC 52, works over SSH in many terminals)"),
            ("drag, ctrl+c", "select text in a command box with the mouse (or Tab into it, shift+arrows) and copy it"),
            (
                "E",
                "unclean election (KIP-460) of an OFFLINE partition: data-loss warning naming the candidate and how "
                "far behind it is, then two typed confirmations (the partition, then LOSE DATA); needs --write",
            ),
        ],
    ),
    (
        "broker",
        [
            ("Enter", "open a partition whose ISR the broker is missing from"),
            ("c", "copy the commands of the broker's findings"),
            ("a", "alter the cluster-wide broker defaults (also `:` Alter broker defaults)"),
        ],
    ),
    (
        "what-if",
        [
            ("space", "toggle the highlighted broker down / up: the counts follow at once"),
            ("x", "bring every broker back up"),
            ("b / t", "focus the broker list / the per-topic table"),
            ("Enter", "open the topic under the cursor"),
        ],
    ),
    (
        "previews",
        [
            (
                "Enter",
                "the primary action: Apply… / Elect… / Reassign… with --write (validate, typed confirmation, "
                "apply, verify, audit); read-only: Export, or Close when there is nothing to export",
            ),
            (
                "x",
                "export: the kafka-configs.sh / kafka-leader-election.sh command or kafka-reassign-partitions.sh JSON",
            ),
            ("y", "alter: the Strimzi KafkaTopic YAML"),
            ("c", "copy the export to the clipboard (the same key as on the partition screen)"),
            ("r", "refresh now (the preview, the leader counts and the progress follow)"),
            ("C", "RF change: cancel the reassignment in progress (typed confirmation; partitions go back)"),
            ("Esc", "close (waits while a request is in flight)"),
        ],
    ),
    (
        "findings",
        [
            ("Enter", "open the finding's first partition, else its topic, else its broker"),
            ("Tab", "into the details: PgDn/PgUp and ↑↓ scroll to what to do and the commands; Esc back to the list"),
            ("c", "copy the highlighted finding's commands: checks runnable, changes commented out under when to run"),
        ],
    ),
]

LEGEND = (
    "status: ✖ offline · ▼ under minISR · ● at minISR · ◐ under-replicated · ↺ non-preferred leader · "
    "✓ healthy\nfindings: ✖ critical · ▲ warning · ℹ info     replicas: 3✗ out of the ISR, ↓ broker down"
)


class HelpScreen(LiveView, ModalScreen[None]):
    """Keys of the app and of every screen; ? or Esc closes it."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("question_mark", "close", "close", show=False),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen #help-box { width: 96%; max-width: 120; height: 94%; border: round $primary; background: $surface;
                           padding: 0 1; }
    HelpScreen #help-intro { height: auto; margin-bottom: 1; }
    HelpScreen #help-keys { height: 1fr; }
    HelpScreen #help-legend { height: auto; color: $text-muted; border-top: solid $panel; }
    HelpScreen #too-small { display: none; width: 100%; height: 100%; content-align: center middle; color: $warning;
                            background: $surface; }
    HelpScreen.too-small #too-small { display: block; }
    HelpScreen.too-small #help-box { display: none; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        with Vertical(id="help-box"):
            intro = Text("kafkatui keys", style="bold")
            if self.session.read_only:
                intro.append(
                    "  — read-only mode: this dashboard never changes the cluster; every fix is a "
                    "command shown for you to run (start with --write to apply changes with a, u, e, E and R)."
                )
            else:
                intro.append(
                    "  — writes are ON for this session: a and u apply config changes after a preview, "
                    "a validate-only request and a typed confirmation; each is audited.",
                    style="bold",
                )
            yield Static(intro, id="help-intro")
            with VerticalScroll(id="help-keys"):
                yield Static(keys_table(KEYS))
            yield Static(LEGEND, id="help-legend", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-box").border_title = "help"
        self.query_one("#help-keys").focus()
        check_size(self)

    def on_resize(self) -> None:
        check_size(self)

    def action_close(self) -> None:
        self.dismiss(None)
