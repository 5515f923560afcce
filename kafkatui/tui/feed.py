"""The dashboard's data feed: one blocking refresh turns the cluster into a ViewState.

No Textual here: the app calls `Feed.refresh()` from a worker thread and posts the result. When the
cluster stops answering, the last good data is kept and marked stale, and retries back off.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kafkatui.history.record.recorder import Recorder, RecorderError
from kafkatui.kafka.errors import KafkaTuiError
from kafkatui.kafka.source import ClusterSource
from kafkatui.model.changes import Change, ChangeKind, diff
from kafkatui.model.evaluation import Assessment, evaluate
from kafkatui.model.findings import Finding
from kafkatui.model.flapping import WINDOW_S, unexplained_counts
from kafkatui.model.health import HealthReport
from kafkatui.model.snapshot import ClusterSnapshot

BACKOFF = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0)
WARM_FINDINGS = 10
"""Findings whose text (built when first read: `kafkatui.model.finding.Finding.details`) the worker builds
once the state is on screen (`Feed.warm`, from the app): the worst, the findings screen's first. Any other
is built when shown."""
SHRINK_WINDOW_S = WINDOW_S


@dataclass(frozen=True, slots=True)
class ViewState:
    """What the screens show: the latest good snapshot and its verdict, plus how fresh it is.

    `assessment` is the one evaluation of the snapshot (`kafkatui.model.evaluation`); `snapshot`,
    `report`, `findings` and `shrink_counts` are its parts, as the screens read them."""

    snapshot: ClusterSnapshot | None = None
    report: HealthReport | None = None
    findings: tuple[Finding, ...] = ()
    changes: tuple[Change, ...] = ()  # new since the previous refresh
    error: str | None = None  # why the last refresh failed (one line), None when it worked
    failures: int = 0  # refreshes failed in a row
    retry_in: float = 0.0  # seconds until the next attempt when failing
    generation: int = 0
    shrink_counts: dict[int, int] = field(default_factory=dict)
    assessment: Assessment | None = None

    @classmethod
    def empty(cls) -> ViewState:
        """Before the first refresh: no data, no error."""
        return cls()

    def succeeded(self, assessment: Assessment, changes: tuple[Change, ...]) -> ViewState:
        """The state after a refresh that read the cluster (and evaluated what it read)."""
        return ViewState(
            snapshot=assessment.snapshot,
            report=assessment.report,
            findings=assessment.findings,
            changes=changes,
            generation=self.generation + 1,
            shrink_counts=dict(assessment.shrink_counts),
            assessment=assessment,
        )

    def failed(self, error: str, retry_in: float) -> ViewState:
        """The state after a refresh that failed: this one's data, kept and marked stale."""
        return replace(
            self, changes=(), error=error, failures=self.failures + 1, retry_in=retry_in, generation=self.generation + 1
        )

    @property
    def stale(self) -> bool:
        return self.error is not None and self.snapshot is not None

    def age(self, now: float | None = None) -> float:
        """Seconds since the shown snapshot was taken."""
        if self.snapshot is None:
            return 0.0
        return max(0.0, (now if now is not None else time.time()) - self.snapshot.taken_at)


class Feed:
    """Refreshes from a ClusterSource and remembers enough to report changes and flapping."""

    def __init__(
        self,
        source: ClusterSource,
        bootstrap: str = "B",
        clock: Callable[[], float] = time.time,
        recorder: Recorder | None = None,
        max_backoff: float = BACKOFF[-1],
    ) -> None:
        self.source = source
        # the longest wait between failing attempts: the dashboard sets two refresh intervals, so a
        # cluster that comes back is seen within two refreshes, however long it was gone
        self.max_backoff = max_backoff
        self.bootstrap = bootstrap
        self.clock = clock
        self.recorder = recorder
        self.record_error: str | None = None  # the last recording problem (the dashboard goes on)
        self.record_failures = 0  # snapshots (or gaps) that could not be written
        self.first_record_error: str | None = None  # what the user is told on screen and at exit
        self.state = ViewState.empty()
        self._shrinks: deque[tuple[float, int]] = deque()
        self._down: dict[int, bool] = {}  # per broker: down (absent or refusing) at the last refresh
        self._transitions: dict[int, list[tuple[float, bool]]] = {}  # per broker: (time, down) when it changed
        self._since: float | None = None  # monotonic start of the refresh in progress

    def in_flight(self, now: float | None = None) -> tuple[str, float] | None:
        """(what the refresh in progress waits on, seconds it has run), None when none runs."""
        since = self._since
        if since is None:
            return None
        what = getattr(self.source, "waiting_on", None) or "the cluster"
        return what, (time.monotonic() if now is None else now) - since

    def refresh(self) -> ViewState:
        """Read the cluster once (blocking) and return the new state; never raises for cluster trouble."""
        prev = self.state
        self._since = time.monotonic()
        try:
            snapshot = self.source.snapshot()
        except KafkaTuiError as exc:
            self._record(None, str(exc))
            failures = prev.failures + 1
            self.state = prev.failed(str(exc), min(BACKOFF[min(failures - 1, len(BACKOFF) - 1)], self.max_backoff))
            return self.state
        finally:
            self._since = None
        self._record(snapshot, None)
        changes = diff(prev.snapshot, snapshot)
        assessed = evaluate(
            snapshot, lambda report: self._count_shrinks(changes, snapshot, report), bootstrap=self.bootstrap
        )
        self.state = prev.succeeded(assessed, tuple(changes))
        return self.state

    @staticmethod
    def warm(state: ViewState) -> None:
        """Build the worst findings' text (and the plans it prints) off the UI thread, once the state is on
        screen: the overview shows only their titles, so an incident is on screen without
        waiting for its plans (the bench's absent-broker and rack plans: ~0.14 s)."""
        for f in state.findings[:WARM_FINDINGS]:
            f.details  # noqa: B018 (built here, not on the UI thread)

    def _record(self, snapshot: ClusterSnapshot | None, failure: str | None) -> None:
        """Tap the snapshot into the history recorder; a full disk never stops the dashboard."""
        if self.recorder is None:
            return
        try:
            if snapshot is None:
                self.recorder.record_failure(self.clock(), failure or "unreachable")
            else:
                self.recorder.record(snapshot)
            self.record_error = None
        except RecorderError as exc:
            self.recording_failed(str(exc))

    def recording_failed(self, problem: str) -> None:
        """Note that ISR history could not be written (shown once on screen, and in the exit status)."""
        self.record_error = problem
        self.record_failures += 1
        if self.first_record_error is None:
            self.first_record_error = problem

    def recording_problem(self) -> str | None:
        """One line for the user when history was lost this session, None when every write worked."""
        if self.first_record_error is None:
            return None
        return f"ISR history not recorded ({self.record_failures} write(s) failed): {self.first_record_error}"

    def _count_shrinks(self, changes: list[Change], snapshot: ClusterSnapshot, report: HealthReport) -> dict[int, int]:
        # one broker leaving many ISRs at once is one episode (a crash), not flapping: count episodes; and a
        # broker down (absent or refusing connections) then or soon after is not flapping (model.flapping)
        now = snapshot.taken_at
        for b in sorted(snapshot.broker_ids | set(report.counts.brokers_absent) | snapshot.refused):
            down = b not in snapshot.broker_ids or b in snapshot.refused
            if self._down.get(b, False) != down:
                self._down[b] = down
                self._transitions.setdefault(b, []).append((now, down))
        episodes = {(c.at, c.broker) for c in changes if c.kind == ChangeKind.ISR_SHRINK and c.broker is not None}
        self._shrinks.extend(sorted(episodes))
        while self._shrinks and self._shrinks[0][0] < now - SHRINK_WINDOW_S:
            self._shrinks.popleft()
        return unexplained_counts(self._shrinks, self._transitions)

    def close(self) -> None:
        """Write an outage still unrecorded to the history as a gap, then close the source (the
        history first: closing connections to a hung cluster may wait)."""
        try:
            if self.recorder is not None:
                try:
                    self.recorder.close(self.clock())
                except RecorderError as exc:
                    self.recording_failed(str(exc))
        finally:
            self.source.close()
