"""The real-Kafka suite shares one lab per Kafka line across tests/lab (`lab41`, `lab39`, and `lab`,
parametrized over both), stopped after the package; every test leaves the cluster whole again and uses
its own topics."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kafkatui.lab.cluster import LabCluster
from tests.lab.support import start_lab


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/lab/" in str(item.fspath):
            item.add_marker(pytest.mark.lab)
            # real JVMs: a restart can take a minute on a loaded 2-core machine (the suite default is 300 s)
            item.add_marker(pytest.mark.timeout(900))
            # real brokers on 2 cores shared by 3-4 labs' JVMs: one fault story in a full run of the suite
            # missed its timing once in two runs and passed alone; a failure must repeat to count (the
            # rerun is reported in the summary, never hidden)
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=5))


def _session_lab(version: str, factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    lab = start_lab(factory.mktemp(f"lab{version.replace('.', '')}"), version)
    try:
        yield lab
    finally:
        lab.stop()


@pytest.fixture(scope="package")
def lab41(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    """Kafka 4.1 (ELR on): a controller and brokers 1-3."""
    yield from _session_lab("4.1", tmp_path_factory)


@pytest.fixture(scope="package")
def lab39(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    """Kafka 3.9, the last 3.x line: a controller and brokers 1-3."""
    yield from _session_lab("3.9", tmp_path_factory)


@pytest.fixture(params=["4.1", "3.9"])
def lab(request: pytest.FixtureRequest) -> LabCluster:
    """The core cases run on both lines."""
    fixture = "lab41" if request.param == "4.1" else "lab39"
    cluster: LabCluster = request.getfixturevalue(fixture)
    return cluster


@pytest.fixture(scope="package")
def secure_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    """The default line with every secured listener (SCRAM, TLS, mTLS, OIDC; tests/lab/test_security*.py)."""
    from tests.lab.support import start_secure_lab

    lab = start_secure_lab(tmp_path_factory.mktemp("secure"))
    try:
        yield lab
    finally:
        lab.stop()
