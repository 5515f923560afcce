"""TUI test fixtures: SVG snapshots live in the repository's snapshots/ folder."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.base import AbstractSyrupyExtension
from syrupy.location import PyTestLocation
from textual.widgets import Input, TextArea

SNAPSHOT_DIR = Path(__file__).resolve().parents[2] / "snapshots"


class RepoSVGExtension(SVGImageExtension):
    """pytest-textual-snapshot's SVG extension, storing files in `<repo>/snapshots/<test module>/`."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_DIR / test_location.basename)


class RepoSnapshotAssertion(SnapshotAssertion):
    """`snap_compare` switches to `SVGImageExtension`; hand it the repo-rooted subclass instead."""

    def use_extension(self, extension_class: type[AbstractSyrupyExtension] | None = None) -> SnapshotAssertion:
        if extension_class is SVGImageExtension:
            extension_class = RepoSVGExtension
        return super().use_extension(extension_class)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Override syrupy's fixture (which `snap_compare` uses): SVGs go to <repo>/snapshots/<test module>/."""
    return RepoSnapshotAssertion(
        update_snapshots=snapshot.update_snapshots,
        extension_class=snapshot.extension_class,
        test_location=snapshot.test_location,
        session=snapshot.session,
    )


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """UTC clock display and no blinking cursors, so snapshots never depend on the machine or the moment."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(vars(Input)["cursor_blink"], "_default", False)
    monkeypatch.setattr(vars(TextArea)["cursor_blink"], "_default", False)
    yield
    monkeypatch.undo()
    time.tzset()
