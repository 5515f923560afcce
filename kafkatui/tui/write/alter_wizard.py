"""The durability wizard: pick a goal (or explicit values) for topics or the broker default; get a plan.

The computation is `kafkatui.alter.risk.recommend`, the plan `recommendation_changes`; explicit values
are checked by `kafkatui.alter.plan.normalize_value`. A goal never yields what the audit flags (minISR 1
with RF >= 2, minISR >= RF): one failure is RF 3 / minISR 2, and while the RF is below the goal the plan
leaves min.insync.replicas alone (the RF goes up first, with R). Values already in force are left out.
The wizard changes nothing: it dismisses with a `ChangePlan` for the preview, or None.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, RadioSet, Static

from kafkatui.alter.plan import ALTERABLE, STATIC_KEYS, ChangePlan, ConfigChange, label, normalize_value
from kafkatui.alter.risk import Recommendation, current_value, is_change, recommend, recommendation_changes
from kafkatui.kafka.errors import UsageError
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.present import source_word
from kafkatui.tui.widgets.marks import MarkedCheckbox, MarkedRadioButton

Target = tuple[str, str]  # (kind, name) as in kafkatui.alter.plan

MIN_ISR = "min.insync.replicas"
UNCLEAN = "unclean.leader.election.enable"
LAG = "replica.lag.time.max.ms"

GOALS: list[tuple[str, str]] = [
    ("loss", "keep acknowledged writes through N broker failures"),
    ("writes", "keep writes available through N broker failures"),
    ("both", "both: no loss and writes available through N failures"),
    ("explicit", "explicit values"),
]
FAILURES = (0, 1, 2, 3)
DEFAULT_FAILURES = 1


def keys_for(targets: Sequence[Target]) -> list[str]:
    """The keys the wizard offers: topics take the two replication configs; the broker default also
    replica.lag.time.max.ms (static in Kafka: the brokers' refusal is shown as they word it)."""
    keys = list(ALTERABLE)
    if any(kind != "topic" for kind, _ in targets):
        keys.append(LAG)
    return keys


def current_rf(snapshot: ClusterSnapshot, targets: Sequence[Target]) -> int:
    """The lowest replication factor of the target topics (every topic for a broker-level change)."""
    names = [n for k, n in targets if k == "topic"] or [t for t in snapshot.topics if not snapshot.topics[t].internal]
    rfs = [len(p.replicas) for n in names if n in snapshot.topics for p in snapshot.topics[n].partitions if p.replicas]
    return min(rfs) if rfs else len(snapshot.brokers)


def title_of(targets: Sequence[Target]) -> str:
    if len(targets) == 1:
        return label(*targets[0])
    return f"{len(targets)} topics" if all(k == "topic" for k, _ in targets) else f"{len(targets)} resources"


def current_text(snapshot: ClusterSnapshot, targets: Sequence[Target], keys: Sequence[str], rf: int) -> Text:
    """Current values and their sources (counted when several targets differ), and the RF."""
    t = Text()
    t.append(f"{title_of(targets)}", style="bold")
    t.append(f"  current RF {rf}" + (" (lowest)" if len(targets) > 1 or targets[0][0] != "topic" else ""))
    for key in keys:
        seen: dict[str, int] = {}
        for kind, name in targets:
            cv = current_value(snapshot, ConfigChange(kind, name, key, None))
            shown = f"{cv.value} ({source_word(cv.source)})"
            seen[shown] = seen.get(shown, 0) + 1
        values = ", ".join(v if len(targets) == 1 else f"{v} ×{n}" for v, n in seen.items())
        t.append(f"\n  {key}: {values}")
    return t


def goal_failures(goal: str, n: int) -> tuple[int | None, int | None]:
    """`recommend`'s two goals for a wizard goal and N."""
    return {"loss": (n, None), "writes": (None, n), "both": (n, n)}[goal]


def recommendation_text(rec: Recommendation, rf: int) -> Text:
    t = Text()
    t.append(f"recommended: RF ≥ {rec.rf}, {MIN_ISR} {rec.min_isr}, {UNCLEAN}={str(rec.unclean).lower()}", style="bold")
    for note in rec.notes:
        t.append(f"\n  · {note}")
    if rf >= 3:
        t.append(
            f"\n  · with RF {rf}, min.insync.replicas m keeps acknowledged writes through m-1 failures and "
            f"writes through {rf}-m; the audit wants 2 ≤ m < {rf}",
            style="dim",
        )
    elif rf >= 1:
        t.append(
            f"\n  · RF {rf} has no min.insync.replicas the audit accepts (1 lets the leader alone acknowledge, "
            f"{rf} stops writes at any broker loss): raise the RF to 3 first",
            style="dim",
        )
    return t


def plan_for_recommendation(
    rec: Recommendation, targets: Sequence[Target], snapshot: ClusterSnapshot | None = None
) -> ChangePlan:
    """`recommendation_changes` for topics (min.insync.replicas only where the RF already suffices); the
    same two keys on broker-level targets. With a `snapshot`, values already in force are left out."""
    topics = [n for k, n in targets if k == "topic"]
    changes = list(recommendation_changes(rec, topics, snapshot).changes)
    for kind, name in targets:
        if kind != "topic":
            wanted = [ConfigChange(kind, name, UNCLEAN, str(rec.unclean).lower())]
            if not rec.raise_rf_first:  # a topic below the RF would inherit minISR >= its RF
                wanted.insert(0, ConfigChange(kind, name, MIN_ISR, str(rec.min_isr)))
            changes += [c for c in wanted if snapshot is None or is_change(snapshot, c)]
    return ChangePlan(tuple(changes))


def nothing_to_do(rec: Recommendation) -> str:
    """Why a recommendation's plan is empty, in one line."""
    if rec.raise_rf_first:
        return (
            f"nothing to change yet: raise the replication factor to {rec.rf} first (R on the topic screen; "
            f"for a broker-level change, every topic below RF {rec.rf}), then set min.insync.replicas "
            f"{rec.min_isr} here, or choose explicit values (the preview lists the topics at risk)"
        )
    return "nothing to change: these values are already in force"


def explicit_plan(targets: Sequence[Target], key: str, value: str, remove: bool) -> ChangePlan:
    """One change per target; UsageError for a bad value. A static key's value is only checked to be a
    number: the brokers' validate-only answer says the rest."""
    if remove:
        new: str | None = None
    elif key in STATIC_KEYS:
        text = value.strip()
        if not text.isascii() or not text.isdigit():
            raise UsageError(f"{key} must be a whole number of milliseconds, got {value!r}")
        new = str(int(text))
    else:
        new = normalize_value(key, value)
    return ChangePlan(tuple(ConfigChange(kind, name, key, new) for kind, name in targets))


class AlterWizardScreen(ModalScreen[ChangePlan | None]):
    """Goal and N (or explicit key and value) -> a `ChangePlan` for the preview."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    DEFAULT_CSS = """
    AlterWizardScreen { align: center middle; }
    AlterWizardScreen #wizard-box { width: 96%; max-width: 110; height: 94%; border: round $primary;
                                    background: $surface; padding: 0 1; }
    AlterWizardScreen #wizard-body { height: 1fr; }
    AlterWizardScreen #wizard-current { height: auto; margin-bottom: 1; }
    AlterWizardScreen .wizard-label { margin-top: 1; text-style: bold; }
    AlterWizardScreen RadioSet { width: 100%; }
    AlterWizardScreen #failures { layout: horizontal; height: auto; }
    AlterWizardScreen #failures RadioButton { width: auto; margin-right: 2; }
    AlterWizardScreen #recommendation { height: auto; margin-top: 1; }
    AlterWizardScreen #explicit { height: auto; display: none; }
    AlterWizardScreen.explicit #explicit { display: block; }
    AlterWizardScreen.explicit #goal-n { display: none; }
    AlterWizardScreen #wizard-error { height: auto; color: $error; }
    AlterWizardScreen #wizard-buttons { height: auto; align: right middle; dock: bottom; }
    AlterWizardScreen Button { margin-left: 2; }
    """

    def __init__(self, targets: Sequence[Target], snapshot: ClusterSnapshot) -> None:
        super().__init__()
        self.targets = list(targets)
        self.snapshot = snapshot
        self.keys = keys_for(self.targets)
        self.rf = current_rf(snapshot, self.targets)
        self.goal = GOALS[0][0]
        self.failures = DEFAULT_FAILURES
        self.key = self.keys[0]

    def compose(self) -> ComposeResult:
        with Vertical(id="wizard-box"):
            with VerticalScroll(id="wizard-body"):
                yield Static(current_text(self.snapshot, self.targets, self.keys, self.rf), id="wizard-current")
                yield Label("goal", classes="wizard-label")
                with RadioSet(id="goal"):
                    for i, (_, text) in enumerate(GOALS):
                        yield MarkedRadioButton(text, value=i == 0)
                with Vertical(id="goal-n"):
                    yield Label("N (broker failures)", classes="wizard-label")
                    with RadioSet(id="failures"):
                        for n in FAILURES:
                            yield MarkedRadioButton(str(n), value=n == DEFAULT_FAILURES)
                    yield Static(id="recommendation")
                with Vertical(id="explicit"):
                    yield Label("config", classes="wizard-label")
                    with RadioSet(id="key"):
                        for i, key in enumerate(self.keys):
                            yield MarkedRadioButton(key, value=i == 0)
                    yield Input(placeholder="new value", id="value")
                    yield MarkedCheckbox("remove the override (back to the default)", id="remove")
                yield Static(id="wizard-error")
            with Horizontal(id="wizard-buttons"):
                yield Button("Preview", id="wizard-preview", variant="primary")
                yield Button("Cancel", id="wizard-cancel")

    def on_mount(self) -> None:
        self.query_one("#wizard-box").border_title = f"durability wizard: {title_of(self.targets)}"
        self.query_one(
            "#wizard-box"
        ).border_subtitle = (
            "Tab moves · ↑↓ Enter picks · Esc cancels · nothing changes before the preview and a typed confirmation"
        )
        self.query_one("#goal", RadioSet).focus()
        self._show_recommendation()

    # state -------------------------------------------------------------------
    def recommendation(self) -> Recommendation | None:
        if self.goal == "explicit":
            return None
        loss, writes = goal_failures(self.goal, self.failures)
        return recommend(loss, writes, self.rf)

    def plan(self) -> ChangePlan:
        """The plan the wizard's choices make; UsageError for a bad explicit value."""
        rec = self.recommendation()
        if rec is not None:
            return plan_for_recommendation(rec, self.targets, self.snapshot)
        return explicit_plan(
            self.targets, self.key, self.query_one("#value", Input).value, self.query_one("#remove", Checkbox).value
        )

    def _show_recommendation(self) -> None:
        rec = self.recommendation()
        self.set_class(rec is None, "explicit")
        self.query_one("#recommendation", Static).update(recommendation_text(rec, self.rf) if rec else "")
        self.query_one("#wizard-error", Static).update("")

    # events ------------------------------------------------------------------
    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        index = event.radio_set.pressed_index
        if event.radio_set.id == "goal":
            self.goal = GOALS[index][0]
        elif event.radio_set.id == "failures":
            self.failures = FAILURES[index]
        elif event.radio_set.id == "key":
            self.key = self.keys[index]
        self._show_recommendation()
        if self.goal == "explicit" and event.radio_set.id in ("goal", "key"):
            # the value is what is typed next: no Tabs to a field below the fold (Shift+Tab back to the keys)
            self.call_after_refresh(self._focus_value)

    def _focus_value(self) -> None:
        box = self.query_one("#value", Input)
        box.placeholder = f"new value of {self.key}"
        box.focus()
        box.scroll_visible(animate=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_preview()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "wizard-preview":
            self.action_preview()
        else:
            self.dismiss(None)

    def action_preview(self) -> None:
        try:
            plan = self.plan()
        except UsageError as exc:
            self.query_one("#wizard-error", Static).update(Text(str(exc)))
            return
        rec = self.recommendation()
        if rec is not None and not plan.changes:
            self.query_one("#wizard-error", Static).update(Text(nothing_to_do(rec)))
            return
        self.dismiss(plan)

    def action_cancel(self) -> None:
        self.dismiss(None)
