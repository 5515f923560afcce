"""Every simulated cluster has its own id, and the demo audits into its own cluster's log."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from kafkatui.alter import audit
from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.scenario import load
from kafkatui.tui.cmd import start_demo


def test_each_cluster_gets_its_own_id_unless_one_is_asked_for() -> None:
    ids = {SimCluster(1).cluster_id for _ in range(5)} | {load("healthy").build().cluster_id for _ in range(5)}
    assert len(ids) == 10 and all(len(i) == 22 for i in ids)
    assert SimCluster(1, cluster_id="fixed-id").cluster_id == "fixed-id"
    assert load("healthy").build(cluster_id="fixed-id").cluster_id == "fixed-id"
    assert SimCluster(1, seed=7).cluster_id == SimCluster(1, seed=7).cluster_id != SimCluster(1, seed=8).cluster_id


def test_the_demo_audits_into_its_own_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(audit.AUDIT_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    real = tmp_path / "kafkatui" / "audit.jsonl"
    assert audit.audit_path() == real
    with ExitStack() as stack:
        start_demo(stack, "healthy", 10.0)
        routed = audit.audit_path()
        assert routed.parent == tmp_path / "kafkatui" / "demo" and routed.name.endswith(".audit.jsonl")
        with ExitStack() as other:
            start_demo(other, "healthy", 10.0)
            assert audit.audit_path() != routed  # another run, another cluster, another log
    assert audit.audit_path() == real  # only while the demo runs
    # a log the user names is used as named
    named = tmp_path / "mine.jsonl"
    monkeypatch.setenv(audit.AUDIT_ENV, str(named))
    with ExitStack() as stack:
        start_demo(stack, "healthy", 10.0)
        assert audit.audit_path() == named
