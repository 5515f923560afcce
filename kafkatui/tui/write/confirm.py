"""The typed confirmation before a change is applied: Apply stays disabled until the answer matches.

Config changes pass their `ChangePlan` (what to type is `expected_confirmation`'s); guided actions
(elections, reassignments) pass `expected`, `what` and the `message` to show instead.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from kafkatui.alter.plan import ChangePlan, label
from kafkatui.alter.render import expected_confirmation
from kafkatui.alter.risk import current_value
from kafkatui.model.snapshot import ClusterSnapshot

SAID_CHANGES = 4  # changes the confirmation names one by one ("min.insync.replicas 1 → 2 on topic orders")


class ConfirmScreen(ModalScreen[bool]):
    """Asks for what `expected_confirmation` names (as ``kafkatui alter`` does), or for `expected`; True: apply."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen #confirm-box { width: 76; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    ConfirmScreen #confirm-input { margin-top: 1; }
    ConfirmScreen #confirm-buttons { height: auto; margin-top: 1; align: right middle; }
    ConfirmScreen Button { margin-left: 2; }
    """

    def __init__(
        self,
        plan: ChangePlan | None,
        heading: str = "apply",
        *,
        expected: str = "",
        what: str = "",
        message: str | Text = "",
        button: str = "Apply",
        current: ClusterSnapshot | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.current = current  # the values before: each change is said as "key old → new on resource"
        self.heading = heading
        self.message = message
        self.button = button
        if plan is not None:
            self.expected, self.what = expected_confirmation(plan)
        elif expected.strip():
            self.expected, self.what = expected.strip(), what
        else:  # an empty answer would confirm at once
            raise ValueError("ConfirmScreen needs a plan or a non-empty expected answer")

    def _plan_message(self, plan: ChangePlan) -> Text:
        n = len(plan.changes)
        resources = plan.resources()
        names = ", ".join(label(kind, name) for kind, name in list(resources)[:4])
        more = f" and {len(resources) - 4} more" if len(resources) > 4 else ""
        text = Text(
            f"{n} change{'s' if n != 1 else ''} to {names}{more} will be applied with IncrementalAlterConfigs:\n"
        )
        for c in plan.changes[:SAID_CHANGES]:
            was = current_value(self.current, c).value if self.current is not None else None
            new = "(override deleted)" if c.value is None else c.value
            text.append(f"  {c.key} {was if was is not None else '?'} → {new} on {c.label}\n", style="bold")
        if n > SAID_CHANGES:
            text.append(f"  and {n - SAID_CHANGES} more (the preview lists them)\n")
        return text

    def compose(self) -> ComposeResult:
        text = self._plan_message(self.plan) if self.plan is not None else Text()
        if self.plan is None or self.message:  # a config change's message: what changed meanwhile, the data's age
            text.append_text(self.message if isinstance(self.message, Text) else Text(self.message))
            text.append("\n")
        text.append("Type ")
        text.append(self.what, style="bold")
        text.append(" to confirm: ")
        text.append(self.expected, style="bold reverse")
        with Vertical(id="confirm-box"):
            yield Static(text, id="confirm-text")
            yield Input(placeholder=f"type {self.what}", id="confirm-input")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.button, id="confirm-apply", variant="error", disabled=True)
                yield Button("Cancel", id="confirm-cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = f"confirm: {self.heading}"
        self.query_one("#confirm-input", Input).focus()

    @property
    def matches(self) -> bool:
        return self.query_one("#confirm-input", Input).value.strip() == self.expected

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one("#confirm-apply", Button).disabled = not self.matches

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.matches:
            self.dismiss(True)
        else:
            self.app.bell()
            self.notify(
                f"type {self.what} ({self.expected}) to confirm, or Esc to cancel", severity="warning", timeout=3
            )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "confirm-apply" and self.matches:
            self.dismiss(True)
        elif event.button.id == "confirm-cancel":
            self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)
