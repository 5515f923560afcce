"""Errors of ``kafkatui alter``, ``elect`` and ``reassign``, each with its own exit code (12 and up; 0-10 are shared).

====  ========================  ==================================================================
code  class                     meaning
====  ========================  ==================================================================
12    WritesDisabledError       a change was asked for but writes are off (no ``--write``, and the
                                profile does not say ``writes: true``); nothing was sent
13    ValidationRefusedError    the brokers refused the validate-only request: nothing changed
14    NotConfirmedError         the typed confirmation was missing or wrong, or stdin is not a
                                terminal and ``--yes`` was not given: nothing changed
15    PartialFailureError       some (or all) changes failed to apply or to verify: see the
                                per-resource results
16    NothingToRevertError      ``--revert-last`` found no successful change set in the audit log
18    NotApplicableError        ``elect`` / ``reassign``: the cluster's state does not allow the
                                action (an unclean election on a partition that has a leader, more
                                replicas than live brokers, a reassignment already running):
                                nothing changed
19    StillRunningError         ``reassign``: the reassignment was started but had not finished
                                when waiting stopped; it goes on in the cluster
22    RevertConflictError       a revert (``--revert-last``, ``--revert N``, ``u``) was refused: the
                                cluster no longer holds that change's after-values (someone changed
                                them since); the message names what differs and the command that
                                sets the old values anyway: nothing changed
23    ChangedMeanwhileError     the cluster changed between the preview (or the confirmation) and
                                the apply, and the change was not confirmed again (``--yes``, no
                                terminal, or it changed once more): nothing changed
====  ========================  ==================================================================

17 is ``kafkatui record``'s (the history directory cannot be written).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from kafkatui.kafka.errors import KafkaTuiError


class WritesDisabledError(KafkaTuiError):
    """Writes are off (exit 12)."""

    exit_code: ClassVar[int] = 12
    kind: ClassVar[str] = "read-only"


class ValidationRefusedError(KafkaTuiError):
    """The validate-only request failed (exit 13)."""

    exit_code: ClassVar[int] = 13
    kind: ClassVar[str] = "validation refused"


class NotConfirmedError(KafkaTuiError):
    """No (or a wrong) confirmation (exit 14)."""

    exit_code: ClassVar[int] = 14
    kind: ClassVar[str] = "not confirmed"


class PartialFailureError(KafkaTuiError):
    """Some changes did not take effect (exit 15)."""

    exit_code: ClassVar[int] = 15
    kind: ClassVar[str] = "changes failed"


class NothingToRevertError(KafkaTuiError):
    """The audit log holds no change set to revert (exit 16)."""

    exit_code: ClassVar[int] = 16
    kind: ClassVar[str] = "nothing to revert"


class NotApplicableError(KafkaTuiError):
    """The action does not apply to the cluster as it is now (exit 18)."""

    exit_code: ClassVar[int] = 18
    kind: ClassVar[str] = "not applicable"


class StillRunningError(KafkaTuiError):
    """A reassignment had not finished when waiting for it stopped (exit 19)."""

    exit_code: ClassVar[int] = 19
    kind: ClassVar[str] = "still running"


class RevertConflictError(KafkaTuiError):
    """The cluster no longer holds the after-values of the change to revert (exit 22)."""

    exit_code: ClassVar[int] = 22
    kind: ClassVar[str] = "revert conflict"


class ChangedMeanwhileError(KafkaTuiError):
    """The cluster changed under a previewed change that was not confirmed again (exit 23).

    `lines` says what changed; `snapshot` is the cluster as read (a ``ClusterSnapshot``, or None).
    """

    exit_code: ClassVar[int] = 23
    kind: ClassVar[str] = "changed meanwhile"

    def __init__(self, message: str, lines: Sequence[str] = (), snapshot: Any = None) -> None:
        super().__init__(message)
        self.lines = list(lines)
        self.snapshot = snapshot


ALTER_EXIT_CODES: dict[int, str] = {
    cls.exit_code: cls.kind
    for cls in (WritesDisabledError, ValidationRefusedError, NotConfirmedError, PartialFailureError,
                NothingToRevertError, NotApplicableError, StillRunningError, RevertConflictError,
                ChangedMeanwhileError)
}
