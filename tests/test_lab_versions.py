"""`kafkatui lab --version`: the lines it takes, their modes, and a ZooKeeper-mode lab's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkatui.lab import config, zkconfig
from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.versions import DEFAULT, RELEASES, release
from kafkatui.lab.zookeeper import ZooKeeperLab, lab_for
from tests.lab.support import kafkatui


@pytest.mark.parametrize(
    ("name", "version", "zookeeper", "key"),
    [
        ("4.4", "4.4.0", False, "4.4"),
        ("4.3", "4.3.1", False, "4.3"),
        ("4.2", "4.2.2", False, "4.2"),
        ("4.1", "4.1.2", False, "4.1"),
        ("4.0", "4.0.2", False, "4.0"),
        ("3.9", "3.9.2", False, "3.9"),
        ("3.9-zk", "3.9.2", True, "3.9-zk"),
        ("2.8", "2.8.2", True, "2.8"),
        ("4.1.1", "4.1.1", False, "4.1"),
        ("3.9.1-zk", "3.9.1", True, "3.9-zk"),
        ("2.8.1", "2.8.1", True, "2.8"),
    ],
)
def test_each_line_and_exact_version(name: str, version: str, zookeeper: bool, key: str) -> None:
    rel = release(name)
    assert (rel.version, rel.zookeeper, rel.key) == (version, zookeeper, key)
    assert rel.mode == ("ZooKeeper" if zookeeper else "KRaft")
    assert rel.log4j2 == rel.version.startswith("4.")


def test_the_default_is_the_newest_line() -> None:
    assert DEFAULT == "4.4" and max(RELEASES, key=lambda k: tuple(map(int, k[:3].split(".")))) == "4.4"


@pytest.mark.parametrize("name", ["2.7", "4.5", "3.8", "2.8-zk", "4.4-zk", "4.4.x", ""])
def test_unsupported_versions_name_the_supported_ones(name: str) -> None:
    with pytest.raises(ValueError, match="use one of 4.4 \\(4.4.0\\).*3.9-zk \\(3.9.2\\), 2.8 \\(2.8.2\\)"):
        release(name)


def test_bad_version_on_the_command_line_is_one_line_and_exit_3() -> None:
    proc = kafkatui("lab", "--version", "3.8")
    assert proc.returncode == 3 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "3.9-zk" in proc.stderr


def test_a_zookeeper_line_gets_a_zookeeper_lab(tmp_path: Path) -> None:
    assert type(lab_for(tmp_path, release("4.4"))) is LabCluster
    zk = lab_for(tmp_path, release("2.8"))
    assert isinstance(zk, ZooKeeperLab) and "ZooKeeper mode" in zk.banner()
    assert any(line.startswith("zookeeper.session.timeout.ms=6000") for line in zk.timings_lines())


def test_zookeeper_mode_files_listen_on_loopback_with_short_sessions(tmp_path: Path) -> None:
    zk = zkconfig.zookeeper_properties(2181, tmp_path)
    assert "clientPortAddress=127.0.0.1\n" in zk and "admin.enableServer=false\n" in zk
    # the session asked for must lie within ZooKeeper's bounds (2 to 20 ticks), or it is cut silently
    session = int(zkconfig.ZK_TIMINGS["zookeeper.session.timeout.ms"])
    assert 2 * zkconfig.TICK_MS <= session <= 20 * zkconfig.TICK_MS
    broker = zkconfig.broker_properties(config.NodeSpec(2, 9093, rack="b"), 2181, 3, tmp_path)
    props = dict(line.split("=", 1) for line in broker.splitlines() if "=" in line and not line.startswith("#"))
    assert props["zookeeper.connect"] == "127.0.0.1:2181" and props["listeners"] == "PLAINTEXT://127.0.0.1:9093"
    assert props["broker.id"] == "2" and props["broker.rack"] == "b" and props["min.insync.replicas"] == "2"
    assert not any(k.startswith(("process.roles", "controller.", "broker.session", "broker.heartbeat")) for k in props)


def test_sasl_is_refused_in_zookeeper_mode_with_one_line(tmp_path: Path) -> None:
    from kafkatui.lab.errors import StartFailed

    with pytest.raises(StartFailed, match="not offered on a ZooKeeper-mode lab"):
        lab_for(tmp_path, release("3.9-zk"), sasl=True).prepare()
