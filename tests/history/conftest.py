"""One quiet local SparkSession (local[2]) shared by every replay-job test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from kafkatui.history.spark_session import find_java, spark_session

    if find_java() is None:
        pytest.skip(reason="no Java: PySpark needs a JDK 17+ (`make tools` installs it)")
    log: Path = tmp_path_factory.mktemp("spark") / "spark.log"
    session = spark_session("local[2]", log_path=log)
    yield session
    session.stop()
