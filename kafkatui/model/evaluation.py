"""One evaluation of a snapshot: the health report, the findings and the verdict, the same everywhere.

`evaluate(snapshot, history)` is the one pipeline from a `ClusterSnapshot` to what kafkatui says about
it: `kafkatui check`, the dashboard's feed (`kafkatui.tui.feed`) and the Replay screen
(`kafkatui.tui.screens.replay_drill`) each call it and show its `Assessment`, so they cannot drift apart.
What differs between them is only the input: the snapshot (read now, or rebuilt from the recording),
the ISR-shrink history (`check --history`, the dashboard's own count, the replayed day's), the address
the printed commands connect to, and `check --what-if-down`.

Other readers of a snapshot want less than an evaluation and call the parts directly: the restart gate
(`kafkatui.check_gate`) and the config-change preview (`kafkatui.alter`) need the report alone, the
postmortem (`kafkatui.report`) the configuration findings alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkatui.model.findings import Finding, findings
from kafkatui.model.health import HealthReport, assess
from kafkatui.model.snapshot import ClusterSnapshot

if TYPE_CHECKING:
    from kafkatui.model.whatif import WhatIf  # imported when asked for: `check --json` does without it

DEFAULT_BOOTSTRAP = "B"  # commands' --bootstrap-server when the snapshot does not say its address

# ISR shrinks per broker (episodes its being down does not explain, `kafkatui.model.flapping`) over the
# window the caller watched; or a function of the report giving them (the dashboard needs the report's
# absent brokers to tell an outage from flapping); None when there is no history.
History = Mapping[int, int] | Callable[[HealthReport], Mapping[int, int] | None] | None


def verdict_of(severities: Iterable[str]) -> str:
    """'critical', 'warning' or 'healthy' from the findings' severities (what `check` exits with)."""
    seen = set(severities)
    if "critical" in seen:
        return "critical"
    return "warning" if "warning" in seen else "healthy"


@dataclass(frozen=True, slots=True)
class Assessment:
    """Everything kafkatui concludes from one snapshot: every screen and `check` show this."""

    snapshot: ClusterSnapshot
    report: HealthReport
    findings: tuple[Finding, ...]  # worst first
    bootstrap: str  # the address the findings' commands connect to
    shrink_counts: Mapping[int, int] = field(default_factory=dict)  # the history used ({} when none)
    what_if: WhatIf | None = None  # `check --what-if-down`'s blast radius, None when not asked

    @property
    def verdict(self) -> str:
        """'critical', 'warning' or 'healthy'."""
        return verdict_of(f.severity for f in self.findings)


def evaluate(
    snapshot: ClusterSnapshot,
    history: History = None,
    *,
    bootstrap: str | None = None,
    what_if_down: Iterable[int] = (),
    report: HealthReport | None = None,
) -> Assessment:
    """Assess `snapshot`, count its ISR-shrink `history`, and build the findings and (when brokers are
    named in `what_if_down`) the what-if.

    `bootstrap` fills the commands (default: the snapshot's own address, else "B"). `report` is the
    snapshot's `assess` when the caller already holds it (the replay keeps one per minute): it must be
    of this very snapshot."""
    if report is None:
        report = assess(snapshot)
    elif report.snapshot is not snapshot:
        raise ValueError("evaluate: the report given is not of this snapshot")
    counts = history(report) if callable(history) else history
    shrinks = dict(counts or {})
    address = bootstrap if bootstrap is not None else snapshot.bootstrap or DEFAULT_BOOTSTRAP
    found = findings(report, snapshot, bootstrap=address, shrink_counts=shrinks or None)
    down = frozenset(what_if_down)
    wi = None
    if down:
        from kafkatui.model.whatif import what_if

        wi = what_if(snapshot, down)
    return Assessment(snapshot, report, tuple(found), address, shrinks, wi)
