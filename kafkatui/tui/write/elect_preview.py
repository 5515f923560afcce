"""Preferred leader election from the dashboard: preview, export, typed confirmation, elect, verify, audit.

The plan is `kafkatui.alter.elect.preferred_plan` (what moves, what cannot and why, leaders per
broker now and after), rendered as ``kafkatui elect --preferred`` prints it; the election is
`run_preferred` in a worker. Once done, the leader counts follow the dashboard's next snapshots.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from rich.text import Text
from textual import work

from kafkatui.alter.elect import PreferredPlan, election_command, leader_counts, preferred_plan
from kafkatui.alter.elect_apply import ElectionOutcome
from kafkatui.alter.elect_render import BY_HAND_MAX, counts_table, render_preferred
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.feed import ViewState
from kafkatui.tui.format import tool_lines
from kafkatui.tui.messages import RefreshRequested
from kafkatui.tui.write import guided_jobs
from kafkatui.tui.write.confirm import ConfirmScreen
from kafkatui.tui.write.guided import GuidedScreen
from kafkatui.tui.write.job_result import result_or_error


def targets_of(plan: PreferredPlan) -> dict[str, list[int]]:
    """The partitions that move, per topic."""
    out: dict[str, list[int]] = {}
    for m in plan.moves:
        out.setdefault(m.topic, []).append(m.partition)
    return out


def counts_text(columns: Mapping[str, Mapping[int, int]]) -> str:
    buf = io.StringIO()
    counts_table(columns, buf)
    return buf.getvalue()


def results_text(plan: PreferredPlan, outcome: ElectionOutcome, now: ClusterSnapshot | None) -> Text:
    """Per partition ok (leader before -> now) or FAILED with the broker's words; leaders per broker."""
    t = Text()
    for m in plan.moves:
        key = (m.topic, m.partition)
        error = outcome.errors[key]
        if error is None:
            t.append("ok      ", style="bold green")
            t.append(f"{m.name} leader {m.leader} -> {outcome.leaders[key]}\n")
        else:
            t.append("FAILED  ", style="bold red")
            t.append(f"{m.name}: {error}\n")
    failed = len(outcome.failed)
    n = len(plan.moves)
    t.append(
        f"{n - failed} of {n} elections done and verified"
        + ("; audit records written" if outcome.audit_error is None else "")
        + "\n",
        style="bold green" if not failed else "bold red",
    )
    if outcome.audit_error is not None:
        t.append(f"✖ {outcome.audit_error}\n", style="bold red")
    columns: dict[str, Mapping[int, int]] = {"before": plan.before, "expected": plan.after}
    if now is not None:
        columns["now"] = leader_counts(now)
    t.append("leaders per broker (now: the latest snapshot):\n", style="bold")
    t.append(counts_text(columns).rstrip("\n"))
    return t


class ElectPreviewScreen(GuidedScreen):
    """A preferred leader election for `topics` (None: every topic)."""

    export_title = "kafka-leader-election.sh"
    export_what = "the kafka-leader-election.sh command for the same election"
    apply_label = "Elect…"

    def __init__(self, topics: Sequence[str] | None = None) -> None:
        super().__init__()
        self.topics = list(topics) if topics is not None else None
        self.heading = "preferred leader election: " + (", ".join(self.topics) if self.topics else "all topics")
        self.plan: PreferredPlan | None = None
        self.outcome: ElectionOutcome | None = None

    def _topics(self, snapshot: ClusterSnapshot) -> list[str]:
        return sorted(snapshot.topics) if self.topics is None else [t for t in self.topics if t in snapshot.topics]

    def render_body(self, snapshot: ClusterSnapshot) -> tuple[Text, bool]:
        missing = [t for t in self.topics or () if t not in snapshot.topics]
        self.plan = plan = preferred_plan(snapshot, self._topics(snapshot))
        buf = io.StringIO()
        render_preferred(plan, buf)
        if plan.moves:
            by_hand = election_command("preferred", self.bootstrap(), targets_of(plan))
            buf.write(
                f"by hand: {by_hand}\n"
                if len(plan.moves) <= BY_HAND_MAX
                else "by hand: x exports the kafka-leader-election.sh command with its JSON file\n"
            )
        body = tool_lines(buf.getvalue(), warn_prefix="cannot move")
        if missing:
            body.append(f"\n✖ not in the latest snapshot: {', '.join(missing)}", style="bold red")
        return body, bool(plan.moves)

    def update_state(self, state: ViewState) -> None:
        super().update_state(state)
        if self.outcome is not None and self.plan is not None and state.snapshot is not None:
            self.status(results_text(self.plan, self.outcome, state.snapshot))

    def export_text(self) -> str:
        if self.plan is None or not self.plan.moves:
            return ""
        return election_command("preferred", self.bootstrap(), targets_of(self.plan)) + "\n"

    def apply(self) -> None:
        plan = self.plan
        if plan is None or not plan.moves:
            return
        n = len(plan.moves)
        expected, what = (plan.moves[0].name, "the partition name") if n == 1 else (str(n), "the number of partitions")
        message = (
            f"{n} partition{'s get their' if n != 1 else ' gets its'} preferred replica as leader "
            "(ElectLeaders PREFERRED); clients follow the new leaders.\n"
            + (
                f"Cluster state {self.age_of(self.shown)}; leaders are read again before anything is sent."
                if self.shown is not None
                else ""
            )
        )
        self.app.push_screen(
            ConfirmScreen(None, self.heading, expected=expected, what=what, message=message, button="Elect"),
            self._confirmed,
        )

    def _confirmed(self, ok: bool | None) -> None:
        if not ok or self.plan is None:
            self.not_confirmed()
            return
        self.started = True
        self.set_busy(True)
        self.status(Text("electing (ElectLeaders PREFERRED), then re-describing to verify…"))
        self._elect(self.plan, self.shown.cluster_id if self.shown is not None else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="guided", description="a preferred leader election")
    def _elect(self, plan: PreferredPlan, cluster_id: str | None) -> None:
        done: ElectionOutcome | str = result_or_error(
            lambda: guided_jobs.elect_preferred(self.settings, plan, cluster_id)
        )
        self.app.call_from_thread(self._elected, done)

    def _elected(self, done: ElectionOutcome | str) -> None:
        self.set_busy(False)
        if isinstance(done, str):
            self.status(Text(f"✖ {done}", style="bold red"))
            self.notify(done, severity="error", timeout=8)
            return
        assert self.plan is not None
        self.outcome = done
        self.status(results_text(self.plan, done, done.after), reveal=True)
        failed = done.failed
        if failed:
            self.notify(f"{len(failed)} of {len(self.plan.moves)} elections failed", severity="error", timeout=8)
        else:
            self.notify(f"{len(self.plan.moves)} leader(s) back on their preferred replica", timeout=5)
        self.post_message(RefreshRequested())
