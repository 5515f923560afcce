"""The preview of a config change, then its application: validate-only, typed confirmation, apply, verify.

Per change: the resource, the key, the current value and its source, the new value, and the risks
`kafkatui.alter.risk.preview` finds in the live snapshot. Export (kafka-configs.sh command lines,
Strimzi YAML) is always offered. Apply exists only with writes on; every network step runs in a worker
thread (`kafkatui.tui.write.alter_jobs`) while a spinner turns, and the brokers' errors are shown verbatim.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Checkbox, Static

from kafkatui.alter.apply import Verified
from kafkatui.alter.config_write import conflicts
from kafkatui.alter.errors import ChangedMeanwhileError
from kafkatui.alter.export import kafka_configs_commands, strimzi_yaml
from kafkatui.alter.plan import STATIC_KEYS, ChangePlan
from kafkatui.alter.render import age_text, render_preview
from kafkatui.alter.risk import ChangePreview, preview
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import ViewState
from kafkatui.tui.messages import RefreshRequested
from kafkatui.tui.widgets.marks import MarkedCheckbox
from kafkatui.tui.write import alter_jobs
from kafkatui.tui.write.confirm import ConfirmScreen
from kafkatui.tui.write.job_result import result_or_error
from kafkatui.tui.write.preview_modal import PreviewModal


def preview_items(plan: ChangePlan, snapshot: ClusterSnapshot, strimzi: bool = False) -> list[ChangePreview]:
    """`preview()`, plus the reason a static broker config cannot change dynamically."""
    items = preview(plan, snapshot, strimzi=strimzi)
    return [
        ChangePreview(
            it.change, it.current, it.risks + ((STATIC_KEYS[it.change.key],) if it.change.key in STATIC_KEYS else ())
        )
        for it in items
    ]


def preview_text(items: Sequence[ChangePreview]) -> Text:
    """The headless preview (`render_preview`: resource, key, current (source), new, risks under each row),
    with the header bold and the risks in the warning colour."""
    buf = io.StringIO()
    render_preview(items, buf)
    t = Text()
    for n, line in enumerate(buf.getvalue().splitlines()):
        style = (
            "bold"
            if n == 0
            else ("yellow" if line.startswith("    ! ") else ("green" if line == "no risks found" else ""))
        )
        t.append(line + "\n", style=style)
    t.rstrip()
    return t


def results_text(verified: Sequence[Verified], audited: bool = True) -> Text:
    """One line per change: ok with the re-described value and source, or FAILED with the exact error."""
    t = Text()
    for v in verified:
        c = v.change
        if v.ok:
            shown = f"{v.after.value} ({v.after.source})" if v.after is not None else "?"
            t.append("ok      ", style="bold green")
            t.append(f"{c.label} {c.key}: {v.before.value} ({v.before.source}) -> {shown}\n")
        else:
            t.append("FAILED  ", style="bold red")
            t.append(f"{c.label} {c.key}: {v.error}\n")
    ok = sum(v.ok for v in verified)
    t.append(
        f"{ok} of {len(verified)} changes applied and verified" + ("; audit records written" if audited else ""),
        style="bold green" if ok == len(verified) else "bold red",
    )
    return t


def changed_text(lines: Sequence[str], when: str) -> Text:
    """What changed on the cluster meanwhile, one line each, in the warning colour."""
    t = Text(f"\n! the cluster changed {when} (someone else changed it):", style="bold yellow")
    for line in lines[:8]:
        t.append(f"\n!   {line}", style="yellow")
    if len(lines) > 8:
        t.append(f"\n!   ... and {len(lines) - 8} more", style="yellow")
    return t


class AlterPreviewScreen(PreviewModal):
    """Preview, export, and (with writes on) validate -> confirm -> apply -> verify -> audit."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("enter", "primary", "primary", show=False),
        Binding("x", "export('kafka-configs')", "kafka-configs command"),
        Binding("y", "export('strimzi')", "Strimzi YAML"),
        Binding("c", "copy_export", "copy export"),
        Binding("q", "quit", "quit", show=False),
    ]

    DEFAULT_CSS = """
    AlterPreviewScreen #strimzi { margin-top: 1; }
    """

    subtitle = "Enter {apply} · x command line · y Strimzi YAML · c copy · Esc close"
    export_button = "#export-commands"
    in_flight = "the change is being sent"
    copy_hint = "x for the command line, y for the Strimzi YAML"

    def __init__(self, plan: ChangePlan, heading: str = "alter") -> None:
        super().__init__()
        self.plan = plan
        self.heading = heading
        self.before: ClusterSnapshot | None = None  # the snapshot the validate-only step took
        self.verified: list[Verified] | None = None
        self.export_kind: str | None = None
        self.strimzi = False  # the user says the topics are managed by Strimzi
        self._shown: ClusterSnapshot | None = None
        self.audit_extra: dict[str, str] | None = None  # e.g. {"revert_of": command id} for a revert

    def under_body(self) -> ComposeResult:
        if self.plan.topics:
            yield MarkedCheckbox(
                "these topics are managed by Strimzi (its operator reverts live changes)", id="strimzi"
            )

    def buttons(self) -> ComposeResult:
        yield Button("Apply…", id="apply", variant="error", disabled=not self.writes)
        yield Button("kafka-configs command", id="export-commands")
        yield Button("Strimzi YAML", id="export-yaml")
        yield Button("Close", id="close")

    def box_title(self) -> str:
        n = len(self.plan.changes)
        return f"preview: {self.heading} ({n} change{'s' if n != 1 else ''})"

    def offer_apply(self) -> None:
        self.status(Text("Apply sends a validate-only request first; nothing changes before you confirm.", style="dim"))
        self.query_one("#apply", Button).focus()

    def update_state(self, state: ViewState) -> None:
        """Called by the app after every refresh: the preview follows the live data until Apply."""
        if self.before is None and state.snapshot is not None:
            self.show(state.snapshot)

    def show(self, snapshot: ClusterSnapshot) -> None:
        self._shown = snapshot
        body = preview_text(preview_items(self.plan, snapshot, self.strimzi))
        body.append(f"\ncluster state {age_text(snapshot, self.session.clock())}", style="dim")
        self.query_one("#preview-body", Static).update(body)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.strimzi = event.value
        if self._shown is not None:
            self.show(self._shown)

    def _busy(self, busy: bool) -> None:
        self.set_class(busy, "busy")
        self.query_one("#apply", Button).disabled = busy or not self.writes or self.verified is not None

    # buttons -----------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id
        if button == "apply":
            self.action_apply()
        elif button == "export-commands":
            self.action_export("kafka-configs")
        elif button == "export-yaml":
            self.action_export("strimzi")
        elif button == "close":
            self.action_close()

    # export ------------------------------------------------------------------
    def export_text(self, kind: str) -> str:
        if kind == "kafka-configs":
            snapshot = self.state.snapshot
            bootstrap = (
                self.session.settings.bootstrap_servers
                if self.session.settings is not None
                else (snapshot.bootstrap if snapshot is not None and snapshot.bootstrap else "B")
            )
            return "\n".join(kafka_configs_commands(self.plan, bootstrap)) + "\n"
        return strimzi_yaml(self.plan)

    def action_export(self, kind: str) -> None:
        try:
            text = self.export_text(kind)
        except KafkaTuiError as exc:  # e.g. per-broker configs have no Strimzi form
            self.notify(str(exc), severity="warning", timeout=5)
            return
        self.export_kind = kind
        self.show_export(text, "kafka-configs.sh" if kind == "kafka-configs" else "Strimzi YAML")

    # apply -------------------------------------------------------------------
    def action_apply(self) -> None:
        if not self.writes:
            self.refuse_read_only()
            return
        if self.busy or self.verified is not None:
            return
        self._busy(True)
        self.status(Text("validate-only request: asking the brokers whether they accept the change…"))
        self._validate()

    @work(thread=True, exclusive=True, exit_on_error=False, group="alter")
    def _validate(self) -> None:
        settings = self.session.settings
        assert settings is not None
        checked: alter_jobs.Validated | str = result_or_error(lambda: alter_jobs.validate(settings, self.plan))
        self.app.call_from_thread(self._validated, checked)

    def _validated(self, checked: alter_jobs.Validated | str) -> None:
        self._busy(False)
        if isinstance(checked, str):
            self.status(Text(f"✖ {checked}: nothing changed", style="bold red"))
            return
        seen = self._shown
        self.before = checked.snapshot
        self.show(checked.snapshot)  # current values as the brokers report them now
        diffs = conflicts(self.plan, seen, checked.snapshot) if seen is not None else []
        problems = checked.refusals
        if problems:
            t = Text("✖ the brokers refused the validate-only request: nothing changed\n", style="bold red")
            for line in problems:
                t.append(f"refused  {line}\n")
            self.status(t)
            self.notify(f"validate-only refused: {problems[0]}", severity="error", timeout=8)
            return
        n = len(self.plan.changes)
        said = "the change" if n == 1 else f"all {n} changes"
        status = Text(f"validate-only: the brokers accept {said}", style="green")
        message = Text()
        if diffs:
            status.append_text(changed_text(diffs, "since the preview"))
            message.append_text(changed_text(diffs, "since the preview"))
            message.append("\n")
        message.append(
            f"Cluster state {age_text(checked.snapshot, self.session.clock())}; it is read again before "
            "anything is sent.",
            style="dim",
        )
        self.status(status)
        self.app.push_screen(
            ConfirmScreen(self.plan, self.heading, message=message, current=checked.snapshot), self._confirmed
        )

    def _confirmed(self, ok: bool | None) -> None:
        if not ok:
            self.status(Text("not confirmed: nothing changed", style="yellow"))
            return
        self._busy(True)
        self.status(Text("applying with IncrementalAlterConfigs, then re-describing to verify…"))
        self._apply()

    @work(thread=True, exclusive=True, exit_on_error=False, group="alter")
    def _apply(self) -> None:
        settings, before = self.session.settings, self.before
        assert settings is not None and before is not None

        def step() -> alter_jobs.Applied | ChangedMeanwhileError:
            try:
                return alter_jobs.apply(settings, self.plan, before, self.audit_extra)
            except ChangedMeanwhileError as exc:  # nothing was sent: show what changed and ask again
                return exc

        done = result_or_error(step)
        if isinstance(done, ChangedMeanwhileError):
            self.app.call_from_thread(self._changed, done)
        else:
            self.app.call_from_thread(self._applied, done)

    def _changed(self, exc: ChangedMeanwhileError) -> None:
        """The cluster changed after the confirmation: nothing was sent; the new values, then confirm again."""
        self._busy(False)
        if exc.snapshot is not None:
            self.before = exc.snapshot
            self.show(exc.snapshot)
        lines = changed_text(exc.lines, "since you confirmed")
        self.status(
            lines + Text("\nnothing was sent; confirm again to apply to the values shown now", style="yellow"),
            reveal=True,
        )
        message = lines + Text("\nNothing was sent. The preview shows the values now.", style="dim")
        self.app.push_screen(
            ConfirmScreen(self.plan, self.heading, message=message, current=self.before), self._confirmed
        )

    def _applied(self, done: alter_jobs.Applied | str) -> None:
        if isinstance(done, str):
            self._busy(False)
            self.status(Text(f"✖ {done}", style="bold red"))
            self.notify(done, severity="error", timeout=8)
            return
        verified = list(done.verified)
        self.verified = verified
        self._busy(False)
        status = results_text(verified, audited=done.audit_error is None)
        if done.audit_error is not None:
            status.append(f"\n✖ {done.audit_error}", style="bold red")
            self.notify(done.audit_error, severity="error", timeout=10)
        self.status(status)
        failed = [v for v in verified if not v.ok]
        if failed:
            self.notify(
                f"{len(failed)} of {len(verified)} changes failed: {failed[0].change.label} "
                f"{failed[0].change.key}: {failed[0].error}",
                severity="error",
                timeout=10,
            )
        else:
            n = len(verified)
            self.notify(f"{n} change{'s' if n != 1 else ''} applied and verified", timeout=5)
        stamp = datetime.fromtimestamp(self.session.clock()).strftime("%H:%M:%S")
        for v in verified:
            if v.ok:
                new = "(override deleted)" if v.change.value is None else v.change.value
                self.session.note(
                    f"{stamp} config {v.change.key} {v.before.value} → {new} on {v.change.label} (applied by you)"
                )
        # done: Enter and Esc close; Apply is not offered again
        self.query_one(
            "#preview-box"
        ).border_subtitle = "done: Enter/Esc close · x command line · y Strimzi YAML · c copy"
        self.query_one("#close", Button).focus()
        self.post_message(RefreshRequested())

    def action_primary(self) -> None:
        if self.verified is not None:  # applied: the primary action is Close
            self.query_one("#close", Button).press()
            return
        super().action_primary()
