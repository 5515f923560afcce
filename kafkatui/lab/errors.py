"""Errors of `kafkatui lab`, each with its own exit code (README: exit codes)."""

from __future__ import annotations

from typing import ClassVar

EXIT_PORT = 11  # as `kafkatui sim`: a port is in use


class LabError(Exception):
    """A lab problem the user can act on; str() is the one line printed."""

    exit_code: ClassVar[int] = 32


class MissingTool(LabError):
    """Java 17+ or Maven is not installed: the message says what to install."""

    exit_code: ClassVar[int] = 30


class FetchFailed(LabError):
    """Maven could not bring the Kafka jars (no network to the registry, unknown version...)."""

    exit_code: ClassVar[int] = 31


class StartFailed(LabError):
    """A node exited or was not ready in time; the message names its log."""

    exit_code: ClassVar[int] = 32


class NoLab(LabError):
    """`lab ctl`: no running lab in that directory, or no such node."""

    exit_code: ClassVar[int] = 33
