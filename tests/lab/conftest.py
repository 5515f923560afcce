"""The real-Kafka suite shares one lab per Kafka line across tests/lab, started when a test first asks for
it and stopped after the package. `full_lab` runs on the lines every test runs on (4.4), `lab` on the core
lines (4.4, 3.9 KRaft), `any_lab` on every mode and rule set (also 3.9 in ZooKeeper mode and 2.8); see
tests/lab/support.py: LINES, and $KAFKATUI_LAB_LINES for `make test-matrix`. Every test leaves the cluster
whole again and uses its own topics."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from kafkatui.lab.cluster import LabCluster
from tests.lab.support import lab_lines, start_lab


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


class LabPool:
    """One started lab per Kafka line, started on first use, all stopped at the end."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self._labs: dict[str, LabCluster] = {}
        self.start_seconds: dict[str, float] = {}

    def get(self, line: str) -> LabCluster:
        """The lab of `line` ("4.4", "3.9-zk"...), started now if it is not yet."""
        if line not in self._labs:
            started = time.monotonic()
            root = self._factory.mktemp(f"lab{line.replace('.', '').replace('-', '')}")
            self._labs[line] = start_lab(root, line)
            self.start_seconds[line] = time.monotonic() - started
        return self._labs[line]

    def stop_all(self) -> None:
        """Stop every lab, each by its own pids."""
        for lab in self._labs.values():
            lab.stop()


@pytest.fixture(scope="package")
def lab_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabPool]:
    pool = LabPool(tmp_path_factory)
    try:
        yield pool
    finally:
        pool.stop_all()


@pytest.fixture(params=lab_lines("full"))
def full_lab(request: pytest.FixtureRequest, lab_pool: LabPool) -> LabCluster:
    """The newest line (4.4, ELR on): every real-Kafka test runs on it."""
    return lab_pool.get(str(request.param))


@pytest.fixture(params=lab_lines("core"))
def lab(request: pytest.FixtureRequest, lab_pool: LabPool) -> LabCluster:
    """The core cases run on 4.4 and on 3.9 KRaft."""
    return lab_pool.get(str(request.param))


@pytest.fixture(params=lab_lines("every"))
def any_lab(request: pytest.FixtureRequest, lab_pool: LabPool) -> LabCluster:
    """The seeds, check and record run on every mode and rule set: 4.4 and 3.9 KRaft, 3.9 ZooKeeper, 2.8."""
    return lab_pool.get(str(request.param))


@pytest.fixture(params=lab_lines("logs"))
def logs_lab(request: pytest.FixtureRequest, lab_pool: LabPool) -> LabCluster:
    """The lines whose broker logs kafkatui replays (support.ZK_BROKER_LOG_LINES adds the ZooKeeper ones)."""
    return lab_pool.get(str(request.param))


@pytest.fixture(scope="package", params=lab_lines("secure"))
def secure_lab(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    """A lab with every secured listener (SCRAM, TLS, mTLS, OIDC; tests/lab/test_security*.py): 4.4 in
    `make test`, the lines of $KAFKATUI_LAB_LINES in `make test-matrix` (3.9-zk: ZooKeeper mode)."""
    from tests.lab.support import start_secure_lab

    line = str(request.param)
    lab = start_secure_lab(tmp_path_factory.mktemp(f"secure{line.replace('.', '').replace('-', '')}"), line)
    try:
        yield lab
    finally:
        lab.stop()
