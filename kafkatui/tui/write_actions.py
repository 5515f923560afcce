"""Where the TUI's write actions start: `a` (alter: the durability wizard) and `u` (revert the last change).

With writes off, each opens the read-only modal first; its Export choice goes on to the same wizard
and preview, with Apply disabled. Both paths end in `AlterPreviewScreen`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kafkatui.alter import audit
from kafkatui.alter.errors import NothingToRevertError
from kafkatui.alter.plan import ChangePlan
from kafkatui.kafka.errors import KafkaTuiError

if TYPE_CHECKING:
    from kafkatui.tui.app import KafkaTuiApp

Target = tuple[str, str]
BROKER_DEFAULT: Target = ("broker-default", "")


def _writes_or_export(app: KafkaTuiApp, action: str, then: Callable[[], None]) -> None:
    """Run `then` when writes are on; otherwise explain read-only mode and run it only for Export."""
    if not app.read_only and app.settings is not None:
        then()
        return
    from kafkatui.tui.screens.readonly import ReadOnlyScreen

    def chosen(export: bool | None) -> None:
        if export:
            then()

    app.push_screen(ReadOnlyScreen(action), chosen)


def _preview(app: KafkaTuiApp, plan: ChangePlan | None, heading: str) -> None:
    from kafkatui.tui.screens.alter_preview import AlterPreviewScreen

    if plan:
        app.push_screen(AlterPreviewScreen(plan, heading))


def start_alter(app: KafkaTuiApp, targets: Sequence[Target]) -> None:
    """The durability wizard for topics or the broker default, then the preview."""
    snapshot = app.state.snapshot
    if snapshot is None:
        app.notify("no data yet: wait for the first refresh", severity="warning", timeout=3)
        return
    if not targets:
        app.notify("no topic to alter here", severity="warning", timeout=3)
        return
    from kafkatui.tui.screens.alter_wizard import AlterWizardScreen, title_of

    def wizard() -> None:
        app.push_screen(AlterWizardScreen(targets, snapshot),
                        lambda plan: _preview(app, plan, f"alter {title_of(targets)}"))

    _writes_or_export(app, f"alter {title_of(targets)}", wizard)


def start_revert(app: KafkaTuiApp) -> None:
    """The plan undoing the last successful change set on this cluster, through the same preview."""
    from textual.screen import ModalScreen

    if isinstance(app.screen, ModalScreen):  # a preview, wizard or confirmation is open: finish it first
        return
    snapshot = app.state.snapshot
    if snapshot is None:
        app.notify("no data yet: wait for the first refresh", severity="warning", timeout=3)
        return
    try:
        plan = audit.revert_last(cluster_id=snapshot.cluster_id)
    except NothingToRevertError as exc:
        app.notify(f"nothing to revert: {exc}", timeout=5)
        return
    except KafkaTuiError as exc:
        app.notify(str(exc), severity="error", timeout=8)
        return
    _writes_or_export(app, "revert the last change", lambda: _preview(app, plan, "revert the last change"))
