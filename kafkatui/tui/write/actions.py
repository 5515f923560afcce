"""Where the TUI's write actions start: `a` (alter: the durability wizard), `u` (revert the last change;
again: the one before), the change history (command palette: revert any change),
and the guided actions: `e` (preferred leader election), `E` (unclean election), `R` (replication factor).

With writes off, each opens the read-only modal first; its Export choice goes on to the same wizard
and preview, with Apply disabled. Config changes end in `AlterPreviewScreen`, guided actions in their
own `GuidedScreen`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.app import App
from textual.screen import ModalScreen

from kafkatui.alter import journal, revert
from kafkatui.alter.elect import unclean_plan
from kafkatui.alter.errors import NothingToRevertError, RevertConflictError
from kafkatui.alter.plan import ChangePlan
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.model.snapshot import ClusterSnapshot
from kafkatui.tui.messages import Target
from kafkatui.tui.session import Session
from kafkatui.tui.write.alter_preview import AlterPreviewScreen
from kafkatui.tui.write.alter_wizard import AlterWizardScreen, title_of
from kafkatui.tui.write.changes import HistoryScreen
from kafkatui.tui.write.elect_preview import ElectPreviewScreen
from kafkatui.tui.write.readonly import CONFIG_EXPORT, ReadOnlyScreen
from kafkatui.tui.write.reassign import ReassignScreen
from kafkatui.tui.write.unclean import UncleanScreen


def _writes_or_export(
    app: App[Any], session: Session, action: str, then: Callable[[], object], export: str | None = None
) -> None:
    """Run `then` when writes are on; otherwise explain read-only mode and run it only for Export."""
    if not session.read_only and session.settings is not None:
        then()
        return

    def chosen(export: bool | None) -> None:
        if export:
            then()

    app.push_screen(ReadOnlyScreen(action, export or CONFIG_EXPORT), chosen)


def _preview(app: App[Any], plan: ChangePlan | None, heading: str, revert_of: str | None = None) -> None:
    if plan:
        screen = AlterPreviewScreen(plan, heading)
        if revert_of is not None:
            screen.audit_extra = {"revert_of": revert_of}
        app.push_screen(screen)


def start_alter(app: App[Any], session: Session, targets: Sequence[Target]) -> None:
    """The durability wizard for topics or the broker default, then the preview."""
    snapshot = session.state.snapshot
    if snapshot is None:
        app.notify("no data yet: wait for the first refresh", severity="warning", timeout=3)
        return
    if not targets:
        app.notify("no topic to alter here", severity="warning", timeout=3)
        return

    def wizard() -> None:
        app.push_screen(
            AlterWizardScreen(targets, snapshot), lambda plan: _preview(app, plan, f"alter {title_of(targets)}")
        )

    _writes_or_export(app, session, f"alter {title_of(targets)}", wizard)


def start_revert(app: App[Any], session: Session, n: int | None = None) -> None:
    """The plan undoing the newest change set of this cluster not undone yet (or the `n`-th newest), through
    the same preview; refused (a notification naming what differs) when the cluster no longer holds it."""
    if isinstance(app.screen, ModalScreen):  # a preview, wizard or confirmation is open: finish it first
        return
    snapshot = _snapshot_or_say(app, session)
    if snapshot is None:
        return
    settings = session.settings
    bootstrap = settings.bootstrap_servers if settings is not None else (snapshot.bootstrap or "B")
    try:
        change, plan = revert.revertible_config(snapshot, n, bootstrap)
    except NothingToRevertError as exc:
        app.notify(f"nothing to revert: {exc}", timeout=5)
        return
    except RevertConflictError as exc:  # the cluster moved on since that change: say what differs
        app.notify(str(exc), title="revert refused", severity="error", timeout=15)
        return
    except KafkaTuiError as exc:
        app.notify(str(exc), severity="error", timeout=8)
        return
    heading = f"revert: {change.describe()}"
    _writes_or_export(app, session, "revert the last change", lambda: _preview(app, plan, heading, change.command_id))


def open_history(app: App[Any], session: Session) -> None:
    """The config change history of this cluster; the change chosen goes to `start_revert`."""
    if isinstance(app.screen, ModalScreen):
        return
    snapshot = _snapshot_or_say(app, session)
    if snapshot is None:
        return
    try:
        changes = revert.history(revert.CONFIG, snapshot.cluster_id)
    except KafkaTuiError as exc:
        app.notify(str(exc), severity="error", timeout=8)
        return
    if not changes:
        app.notify(f"no config change in {revert.where(None, snapshot.cluster_id)}", timeout=5)
        return

    def chosen(n: int | None) -> None:
        if n is not None:
            start_revert(app, session, n)

    app.push_screen(HistoryScreen(changes, snapshot.cluster_id), chosen)


def settle_interrupted(app: App[Any], snapshot: ClusterSnapshot) -> None:
    """At the dashboard's first snapshot: report (and record) the changes to this cluster that an earlier
    run left unfinished in the audit log, one notification each. File work only, in a thread."""

    def work() -> None:
        for line in journal.settle(snapshot):
            app.call_from_thread(app.notify, line, title="interrupted change", severity="warning", timeout=30)

    app.run_worker(work, thread=True, exit_on_error=False, group="settle")


def _snapshot_or_say(app: App[Any], session: Session) -> ClusterSnapshot | None:
    snapshot = session.state.snapshot
    if snapshot is None:
        app.notify("no data yet: wait for the first refresh", severity="warning", timeout=3)
    return snapshot


def start_preferred(app: App[Any], session: Session, topics: Sequence[str] | None) -> None:
    """The preferred leader election preview for `topics` (None: every topic)."""
    if _snapshot_or_say(app, session) is None:
        return
    screen = ElectPreviewScreen(topics)
    _writes_or_export(app, session, screen.heading, lambda: app.push_screen(screen), screen.export_what)


def start_unclean(app: App[Any], session: Session, topic: str, partition: int) -> None:
    """The unclean election of an OFFLINE partition; a notification (nothing opened) for any other."""
    snapshot = _snapshot_or_say(app, session)
    if snapshot is None:
        return
    try:
        unclean_plan(snapshot, topic, partition)
    except KafkaTuiError as exc:
        app.notify(f"no unclean election: {exc}", severity="warning", timeout=6)
        return
    screen = UncleanScreen(topic, partition)
    _writes_or_export(app, session, screen.heading, lambda: app.push_screen(screen), screen.export_what)


def start_reassign(app: App[Any], session: Session, topic: str) -> None:
    """Choose a new replication factor for `topic`: plan, export, and (writes on) the reassignment."""
    snapshot = _snapshot_or_say(app, session)
    if snapshot is None:
        return
    if topic not in snapshot.topics:
        app.notify(f"topic {topic} is not in the latest snapshot", severity="warning", timeout=3)
        return
    screen = ReassignScreen(topic, snapshot)
    _writes_or_export(app, session, screen.heading, lambda: app.push_screen(screen), screen.export_what)
