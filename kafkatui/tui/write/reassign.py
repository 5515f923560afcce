"""Change a topic's replication factor from the dashboard: choose the RF, see the rack-aware plan, export,
confirm, start, then follow the new replicas into the ISR at every refresh, with `c` to cancel.

The plan is `plan_replication_factor` with `rf_risks`, rendered as ``kafkatui reassign`` prints it;
the export is the kafka-reassign-partitions.sh JSON and command lines. Starting, polling and cancelling
are `kafkatui.tui.write.guided_jobs` steps in workers: the screen never waits on the network.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, ProgressBar, RadioSet

from kafkatui.alter.reassign import (
    PartitionMove,
    Progress,
    ReassignPlan,
    plan_replication_factor,
    reassign_commands,
    reassignment_json,
    rf_risks,
)
from kafkatui.alter.reassign_apply import Reassigner
from kafkatui.alter.reassign_cancel import Cancelled
from kafkatui.alter.reassign_render import render_plan
from kafkatui.alter.throttle import parse_rate
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import ViewState
from kafkatui.tui.format import tool_lines
from kafkatui.tui.messages import RefreshRequested
from kafkatui.tui.widgets.marks import MarkedRadioButton
from kafkatui.tui.write import guided_jobs
from kafkatui.tui.write.confirm import ConfirmScreen
from kafkatui.tui.write.guided import GuidedScreen
from kafkatui.tui.write.job_result import result_or_error

MAX_RF_CHOICES = 7


def rf_choices(snapshot: ClusterSnapshot) -> list[int]:
    """1 up to the number of live brokers (at most MAX_RF_CHOICES)."""
    return list(range(1, max(1, min(len(snapshot.broker_ids), MAX_RF_CHOICES)) + 1))


def default_rf(current: int, choices: Sequence[int]) -> int:
    """Below 3: 3 (or as many brokers as there are); else the current RF."""
    return min(max(current, 3), choices[-1])


def export_document(plan: ReassignPlan, bootstrap: str) -> str:
    """The reassignment JSON, the command lines and the rollback JSON, as ``kafkatui reassign --export``."""
    lines = ["# reassign.json", reassignment_json(plan.moves), "# then:"]
    lines += reassign_commands(bootstrap)
    lines += ["# rollback.json (the current assignment):", reassignment_json(plan.moves, rollback=True)]
    return "\n".join(lines) + "\n"


def progress_text(state: Progress) -> Text:
    """New replicas in the ISR and partitions finished, then what is still copying (or done)."""
    t = Text()
    if state.adding:
        t.append(f"{state.in_isr} of {state.adding} new replicas in the ISR", style="bold")
        t.append(f" · {state.finished} of {state.partitions} partitions finished")
    else:
        t.append(f"{state.finished} of {state.partitions} partitions finished", style="bold")
    if state.done:
        t.append("\n✓ done: every partition has its new replicas, all in sync", style="bold green")
    else:
        pending = ", ".join(state.pending[:5]) + (" …" if len(state.pending) > 5 else "")
        t.append(f"\nstill copying: {pending} (updated at every refresh; C cancels)", style="dim")
    return t


class ReassignScreen(GuidedScreen):
    """The replication factor of `topic`: plan, export, apply, progress, cancel."""

    BINDINGS = [Binding("C", "cancel_reassignment", "cancel reassignment")]

    DEFAULT_CSS = """
    ReassignScreen #rf { layout: horizontal; height: auto; width: 100%; }
    ReassignScreen #rf RadioButton { width: auto; margin-right: 2; }
    ReassignScreen #throttle-row { height: auto; }
    ReassignScreen #throttle-row Label { width: auto; padding: 1 1 0 0; }
    ReassignScreen #throttle { width: 24; }
    ReassignScreen #progress { display: none; margin-top: 1; }
    ReassignScreen.following #progress { display: block; }
    """

    export_title = "kafka-reassign-partitions.sh"
    export_what = "the kafka-reassign-partitions.sh JSON and command lines"
    apply_label = "Reassign…"
    subtitle = "←→ RF · Enter {apply} · x export · c copy · C cancel it · Esc close"

    def __init__(self, topic: str, snapshot: ClusterSnapshot) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"change replication factor: {topic}"
        info = snapshot.topics.get(topic)
        self.current = min((len(p.replicas) for p in info.partitions), default=1) if info else 1
        self.choices = rf_choices(snapshot)
        self.rf = default_rf(self.current, self.choices)
        self.plan: ReassignPlan | None = None
        self.moves: tuple[PartitionMove, ...] = ()  # the moves started
        self.progress: Progress | None = None
        self.reassigner: Reassigner | None = None
        self.cancelled = False
        self.rate: int | None = None  # throttle in bytes/s (None: no throttle)
        self.rate_error = ""
        self.throttle_removed = False

    def controls(self) -> ComposeResult:
        yield Label(self._rf_label(), id="rf-label")
        with RadioSet(id="rf"):
            for n in self.choices:
                yield MarkedRadioButton(str(n), value=n == self.rf)
        with Horizontal(id="throttle-row"):
            yield Label("throttle (bytes/s, as --throttle; empty: none):")
            yield Input(placeholder="e.g. 50000000", id="throttle", restrict=r"[0-9]*")

    def _rf_label(self) -> str:
        return f"new replication factor (now {self.current}):"

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "throttle":
            return
        event.stop()
        text = event.value.strip()
        try:
            self.rate, self.rate_error = (parse_rate(text), "") if text else (None, "")
        except KafkaTuiError as exc:
            self.rate, self.rate_error = None, str(exc)
        if self.shown is not None and not self.started:
            self.show(self.shown)

    def under_status(self) -> ComposeResult:
        yield ProgressBar(id="progress", show_eta=False)

    def on_mount(self) -> None:
        super().on_mount()
        # the highlight starts on the chosen RF, not on the first button
        self.query_one("#rf", RadioSet)._selected = self.choices.index(self.rf)

    def action_close(self) -> None:
        running = bool(self.moves) and not self.cancelled and not (self.progress and self.progress.done)
        super().action_close()
        if running and not self.busy:
            throttled = getattr(self, "started_with", None) is not None and bool(self.started_with.throttle_line)
            extra = (
                f"; its throttle stays until `kafkatui reassign --topic {self.topic} --clear-throttle --write`"
                if throttled
                else ""
            )
            self.notify(
                f"the reassignment of {self.topic} goes on in the cluster; `kafkatui reassign --topic "
                f"{self.topic} --cancel --write` stops it{extra}",
                timeout=8,
            )

    def on_unmount(self) -> None:
        if self.reassigner is not None:
            self.reassigner.close()
            self.reassigner = None

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.rf = self.choices[event.radio_set.pressed_index]
        if self.shown is not None and not self.started:
            self.show(self.shown)

    def _follow_current(self, snapshot: ClusterSnapshot) -> None:
        """ "(now N)" follows the cluster, also while and after the change runs (it kept saying 1)."""
        info = snapshot.topics.get(self.topic)
        if info is not None and info.partitions:
            self.current = min(len(p.replicas) for p in info.partitions)
            self.query_one("#rf-label", Label).update(self._rf_label())

    def render_body(self, snapshot: ClusterSnapshot) -> tuple[Text, bool]:
        self._follow_current(snapshot)
        try:
            self.plan = plan = plan_replication_factor(snapshot, self.topic, self.rf)
        except KafkaTuiError as exc:
            self.plan = None
            return Text(f"✖ {exc}", style="bold red"), False
        if not plan.moves:
            return Text(
                f"nothing to do: every partition of {self.topic} has {self.rf} replica(s)", style="green"
            ), False
        olds = sorted({len(m.old) for m in plan.moves})
        buf = io.StringIO()
        render_plan(
            plan,
            snapshot,
            buf,
            f"reassignment of {self.topic}: replication factor "
            f"{'/'.join(map(str, olds))} -> {self.rf} ({len(plan.moves)} partition(s))",
        )
        for risk in rf_risks(snapshot, self.topic, self.rf):
            # here the fix is a key away, not a command line
            risk = risk.replace(
                f"consider `kafkatui alter --topic {self.topic} --set min.insync.replicas=2`",
                "consider min.insync.replicas=2: close this and press a (durability wizard)",
            )
            buf.write(f"  ! {risk}\n")
        if self.rate_error:
            buf.write(f"  ! {self.rate_error}\n")
            return tool_lines(buf.getvalue()), False
        if self.rate:
            brokers = ", ".join(map(str, guided_jobs.moved_brokers(plan.moves)))
            buf.write(f"  throttle: {self.rate:,} bytes/s on brokers {brokers}, removed once every move finished\n")
        return tool_lines(buf.getvalue()), True

    def export_text(self) -> str:
        return export_document(self.plan, self.bootstrap()) if self.plan is not None and self.plan.moves else ""

    # apply -------------------------------------------------------------------
    def apply(self) -> None:
        plan = self.plan
        if plan is None or not plan.moves:
            return
        self.refresh_then(lambda snapshot, age: self._ask(plan, age))

    def _ask(self, seen: ReassignPlan, age: str) -> None:
        """After the refresh: the confirmation on the plan as the cluster is now."""
        plan = self.plan
        if plan is None or not plan.moves:
            self.status(
                Text("✖ the topic changed since the preview: nothing to reassign; nothing changed", style="bold red"),
                reveal=True,
            )
            return
        n = len(plan.moves)
        message = Text()
        if plan.moves != seen.moves:
            message.append(
                "! the cluster changed since the preview: the plan above is the new one\n", style="bold yellow"
            )
        message.append(
            f"{n} partition{'s' if n != 1 else ''} of {self.topic} move to replication factor {self.rf} "
            "(AlterPartitionReassignments); the new replicas copy the data from the leaders.\n"
        )
        message.append(age, style="dim")
        self.app.push_screen(
            ConfirmScreen(
                None, self.heading, expected=self.topic, what="the topic name", message=message, button="Reassign"
            ),
            lambda ok: self._confirmed(plan, ok),
        )

    def _confirmed(self, plan: ReassignPlan, ok: bool | None) -> None:
        if not ok:
            self.not_confirmed()
            return
        self.started = True
        self.query_one("#rf", RadioSet).disabled = True
        self.query_one("#throttle", Input).disabled = True
        self.set_busy(True)
        what = "setting the throttle, then starting" if self.rate else "starting"
        self.status(Text(f"{what} the reassignment (AlterPartitionReassignments)…"))
        self._start(plan, self.shown.cluster_id if self.shown is not None else None, self.rate)

    def _reassigner(self) -> Reassigner:
        if self.reassigner is None:
            self.reassigner = Reassigner(self.settings)
        return self.reassigner

    @work(thread=True, exclusive=True, exit_on_error=False, group="guided", description="start the reassignment")
    def _start(self, plan: ReassignPlan, cluster_id: str | None, rate: int | None) -> None:
        done: guided_jobs.Started | str = result_or_error(
            lambda: guided_jobs.start_reassignment(self._reassigner(), plan.moves, cluster_id, self.settings, rate)
        )
        self.app.call_from_thread(self._started, done)

    def _started(self, done: guided_jobs.Started | str) -> None:
        self.set_busy(False)
        if isinstance(done, str):
            self.started = False
            self.query_one("#rf", RadioSet).disabled = False
            self.query_one("#throttle", Input).disabled = False
            self.status(Text(f"✖ {done}", style="bold red"))
            self.notify(done, severity="error", timeout=8)
            if self.shown is not None:
                self.show(self.shown)
            return
        self.moves = done.started
        self.started_with = done
        lines = Text()
        for move, error in done.refused:
            lines.append("FAILED  ", style="bold red")
            lines.append(f"{move.name}: {error}\n")
        lines.append(
            f"started {len(done.started)} of {len(done.started) + len(done.refused)} partition moves "
            f"(audit id {done.command_id})"
        )
        if done.throttle_line:
            lines.append(f"\n{done.throttle_line}")
        self.started_text = lines
        self.status(lines, reveal=True)
        if done.refused:
            self.notify(
                f"{len(done.refused)} partition move(s) refused: {done.refused[0][1]}", severity="error", timeout=8
            )
        if self.moves:
            self.add_class("following")
            self.query_one("#progress", ProgressBar).update(
                total=sum(len(m.adding) for m in self.moves) or len(self.moves), progress=0
            )
            self.post_message(RefreshRequested())

    started_text: Text = Text()

    # progress ----------------------------------------------------------------
    def update_state(self, state: ViewState) -> None:
        super().update_state(state)
        if state.snapshot is not None:
            self._follow_current(state.snapshot)
        following = self.moves and not self.cancelled and not (self.progress and self.progress.done)
        if following and state.snapshot is not None and not self.busy:
            self._poll(self.moves, state.snapshot)

    @work(thread=True, exclusive=True, exit_on_error=False, group="poll", description="poll the reassignment")
    def _poll(self, moves: Sequence[PartitionMove], snapshot: ClusterSnapshot) -> None:
        state: Progress | str = result_or_error(
            lambda: guided_jobs.reassignment_progress(self._reassigner(), moves, snapshot)
        )
        self.app.call_from_thread(self._polled, state)

    def _polled(self, state: Progress | str) -> None:
        if self.cancelled:
            return
        text = self.started_text.copy()
        text.append("\n")
        if isinstance(state, str):
            text.append(f"✖ progress unknown: {state} (tried again at the next refresh)", style="yellow")
            self.status(text)
            return
        was_done = self.progress is not None and self.progress.done
        self.progress = state
        bar = self.query_one("#progress", ProgressBar)
        bar.update(progress=state.in_isr if state.adding else state.finished)
        text.append_text(progress_text(state))
        self.status(text)
        if state.done and not was_done:
            self.notify(f"reassignment of {self.topic} done: replication factor {self.rf}", timeout=5)
            started = getattr(self, "started_with", None)
            if started is not None and started.throttle_line and not self.throttle_removed:
                self.throttle_removed = True
                self._unthrottle(started)

    @work(thread=True, exclusive=False, exit_on_error=False, group="unthrottle", description="remove the throttle")
    def _unthrottle(self, started: guided_jobs.Started) -> None:
        cluster_id = self.shown.cluster_id if self.shown is not None else None
        line: str = result_or_error(
            lambda: guided_jobs.remove_throttle(self.settings, started.started, cluster_id, started.command_id)
        )
        self.app.call_from_thread(self._unthrottled, line)

    def _unthrottled(self, line: str) -> None:
        self.started_text.append(f"\n{line}", style="bold" if line.startswith("throttle removed") else "bold red")
        if self.progress is not None:
            self._polled(self.progress)

    # cancel ------------------------------------------------------------------
    def action_cancel_reassignment(self) -> None:
        if not self.moves or self.cancelled or (self.progress is not None and self.progress.done):
            self.notify("no reassignment of this topic is running from this screen", timeout=3)
            return
        if self.busy:
            return
        message = (
            f"Cancel the reassignment of {self.topic}: each partition goes back to its replicas before it "
            "started (data copied to the new replicas is dropped)."
        )
        self.app.push_screen(
            ConfirmScreen(
                None,
                f"cancel reassignment: {self.topic}",
                expected=self.topic,
                what="the topic name",
                message=message,
                button="Cancel reassignment",
            ),
            self._cancel_confirmed,
        )

    def _cancel_confirmed(self, ok: bool | None) -> None:
        if not ok or self.shown is None:
            self.notify("not confirmed: the reassignment goes on", timeout=3)
            return
        self.set_busy(True)
        self._cancel(self.shown)

    @work(thread=True, exclusive=True, exit_on_error=False, group="guided", description="cancel the reassignment")
    def _cancel(self, snapshot: ClusterSnapshot) -> None:
        done: Cancelled | str = result_or_error(
            lambda: guided_jobs.cancel_reassignment(self.settings, self._reassigner(), self.topic, snapshot)
        )
        self.app.call_from_thread(self._cancelled, done)

    def _cancelled(self, done: Cancelled | str) -> None:
        self.set_busy(False)
        if isinstance(done, str):
            self.status(Text(f"✖ {done}", style="bold red"))
            self.notify(done, severity="error", timeout=8)
            return
        self.cancelled = True
        self.remove_class("following")
        t = Text()
        for (topic, p), (error, now) in sorted(done.items()):
            if error is None:
                t.append("ok      ", style="bold green")
                t.append(f"{topic}-{p} cancelled: replicas {','.join(map(str, now))}\n")
            else:
                t.append("FAILED  ", style="bold red")
                t.append(f"{topic}-{p}: {error}\n")
        if done.throttle_line:
            t.append(done.throttle_line + "\n")
        t.append("reassignment cancelled; audit records written", style="bold")
        self.status(t, reveal=True)
        self.notify(f"reassignment of {self.topic} cancelled", timeout=5)
        self.post_message(RefreshRequested())
