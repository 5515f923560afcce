"""A one-off unclean election (KIP-460) for an OFFLINE partition, from the dashboard.

The data-loss warning is `kafkatui.alter.elect.data_loss_warning` (the candidate, how far behind it
is), as ``kafkatui elect --unclean`` prints it; two typed confirmations follow (the partition name,
then LOSE DATA), then `run_unclean` in a worker, and the new leader is shown.
"""

from __future__ import annotations

from rich.text import Text
from textual import work

from kafkatui.alter.elect import UncleanPlan, data_loss_warning, election_command, unclean_plan
from kafkatui.alter.elect_apply import ElectionOutcome
from kafkatui.alter.elect_render import LOSE_DATA
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.messages import RefreshRequested
from kafkatui.tui.write import guided_jobs
from kafkatui.tui.write.confirm import ConfirmScreen
from kafkatui.tui.write.guided import GuidedScreen
from kafkatui.tui.write.job_result import result_or_error


def warning_text(plan: UncleanPlan, by_hand: str) -> Text:
    """The warning, the first line bold red, then the equivalent kafka-leader-election.sh line."""
    t = Text()
    for n, line in enumerate(data_loss_warning(plan)):
        t.append(("! " + line) + "\n", style="bold red" if n == 0 else "yellow")
    t.append(f"by hand: {by_hand}")
    return t


class UncleanScreen(GuidedScreen):
    """The unclean election of `topic`-`partition`, behind the warning and a double confirmation."""

    export_title = "kafka-leader-election.sh"
    export_what = "the kafka-leader-election.sh command for the same election"
    apply_label = "Elect (lose data)…"

    def __init__(self, topic: str, partition: int) -> None:
        super().__init__()
        self.topic = topic
        self.partition = partition
        self.heading = f"unclean election (KIP-460): {topic}-{partition}"
        self.plan: UncleanPlan | None = None
        self.outcome: ElectionOutcome | None = None

    def _by_hand(self) -> str:
        return election_command("unclean", self.bootstrap(), {self.topic: [self.partition]})

    def render_body(self, snapshot: ClusterSnapshot) -> tuple[Text, bool]:
        try:
            self.plan = unclean_plan(snapshot, self.topic, self.partition)
        except KafkaTuiError as exc:  # it got a leader meanwhile, or no replica is alive any more
            self.plan = None
            return Text(f"✖ {exc}", style="bold red"), False
        return warning_text(self.plan, self._by_hand()), True

    def export_text(self) -> str:
        return self._by_hand() + "\n"

    def apply(self) -> None:
        plan = self.plan
        if plan is None:
            return
        first = Text(
            f"An unclean election makes broker {plan.likely.broker} leader of {plan.name}; records it "
            "does not have are deleted, acknowledged writes included."
        )
        self.app.push_screen(
            ConfirmScreen(
                None,
                f"unclean election of {plan.name} (1 of 2)",
                expected=plan.name,
                what="the partition name",
                message=first,
                button="Continue",
            ),
            lambda ok: self._first(plan, ok),
        )

    def _first(self, plan: UncleanPlan, ok: bool | None) -> None:
        if not ok:
            self.not_confirmed()
            return
        self.refresh_then(lambda snapshot, age: self._ask_second(plan, age))

    def _ask_second(self, seen: UncleanPlan, age: str) -> None:
        """After the refresh: the second (final) confirmation on the plan as the cluster is now."""
        plan = self.plan
        if plan is None:  # it got a leader meanwhile, or no replica is alive any more: the body says which
            self.status(
                Text(
                    "✖ the partition changed since the preview: no unclean election; nothing changed", style="bold red"
                ),
                reveal=True,
            )
            return
        second = Text()
        if data_loss_warning(plan) != data_loss_warning(seen):
            second.append(
                "! the cluster changed since the first confirmation: the warning above is the new one\n",
                style="bold yellow",
            )
        second.append(
            f"LAST CHANCE: type {LOSE_DATA} to run the unclean election of {plan.name} and accept that "
            "its records beyond the candidate's are deleted.\n",
            style="bold",
        )
        second.append(age, style="dim")
        self.app.push_screen(
            ConfirmScreen(
                None,
                f"unclean election of {plan.name} (2 of 2)",
                expected=LOSE_DATA,
                what=f"'{LOSE_DATA}'",
                message=second,
                button="Elect",
            ),
            lambda ok: self._second(plan, ok),
        )

    def _second(self, plan: UncleanPlan, ok: bool | None) -> None:
        if not ok:
            self.not_confirmed()
            return
        self.started = True
        self.set_busy(True)
        self.status(Text(f"electing {plan.name} (ElectLeaders UNCLEAN), then re-describing to verify…"))
        self._elect(plan, self.shown.cluster_id if self.shown is not None else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="guided", description="an unclean leader election")
    def _elect(self, plan: UncleanPlan, cluster_id: str | None) -> None:
        done: ElectionOutcome | str = result_or_error(
            lambda: guided_jobs.elect_unclean(self.settings, plan, cluster_id)
        )
        self.app.call_from_thread(self._elected, plan, done)

    def _elected(self, plan: UncleanPlan, done: ElectionOutcome | str) -> None:
        self.set_busy(False)
        if isinstance(done, str):
            self.status(Text(f"✖ {done}", style="bold red"))
            self.notify(done, severity="error", timeout=8)
            return
        self.outcome = done
        key = (plan.topic, plan.partition)
        error, leader = done.errors[key], done.leaders[key]
        t = Text()
        if error is None:
            t.append("ok      ", style="bold green")
            t.append(f"{plan.name} leader -1 -> {leader} (unclean); new leader: broker {leader}")
            if leader != plan.likely.broker:
                t.append(f"\nnote: the controller chose broker {leader}, not broker {plan.likely.broker}")
            self.notify(f"{plan.name} has a leader again: broker {leader}", timeout=5)
        else:
            t.append("FAILED  ", style="bold red")
            t.append(f"{plan.name}: {error}")
            self.notify(f"the unclean election of {plan.name} failed: {error}", severity="error", timeout=8)
        t.append(
            "\naudit record written" if done.audit_error is None else f"\n✖ {done.audit_error}",
            style="dim" if done.audit_error is None else "bold red",
        )
        self.status(t, reveal=True)
        self.post_message(RefreshRequested())
