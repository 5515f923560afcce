"""One quiet local SparkSession (local[2]) shared by every replay-job test, and the reference day: the
small synthetic day (recordings with damage, and broker logs) replayed once in local mode, which the
cluster and HDFS runs must reproduce."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from kafkatui.history.replay.spark_session import find_java, spark_session

    if find_java() is None:
        from tests.ci import cannot_run

        cannot_run("no Java: PySpark needs a JDK 17+ (`make tools` installs it)")
    from tests.history.jvm import quick_jvm

    log: Path = tmp_path_factory.mktemp("spark") / "spark.log"
    with quick_jvm():
        session = spark_session("local[2]", log_path=log)
    yield session
    session.stop()


@dataclass(frozen=True, slots=True)
class Reference:
    """The reference day's inputs and its local-mode replay (`out`, `result`)."""

    history: Path
    logs: Path
    out: Path
    result: Any  # ReplayResult


@pytest.fixture(scope="session")
def reference(spark: Any) -> Iterator[Reference]:
    """Under /var/tmp, not /tmp: the cluster test's workers cannot see the driver's /tmp."""
    from kafkatui.history.replay.inputs import parse_day
    from kafkatui.history.replay.job import ReplayConfig, run_job
    from tests.history import replay_days as rd

    base = Path(tempfile.mkdtemp(prefix="kafkatui-reference-", dir="/var/tmp"))
    try:
        history, logs, out = base / "history", base / "logs", base / "local-out"
        rd.write_recordings(history)
        rd.damage(history)  # a torn file: read from the scan stage's result, not from a repaired copy
        rd.write_logs(logs)
        cfg = ReplayConfig(day=parse_day(rd.DAY), out=out, history=history, broker_logs=[str(logs / "server.log.*")])
        yield Reference(history, logs, out, run_job(spark, cfg))
    finally:
        shutil.rmtree(base, ignore_errors=True)
