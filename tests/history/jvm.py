"""The JVM flags the replay tests start Spark with: the client compiler only (C1, as `kafkatui lab` runs
its brokers). The test days are tiny, so a test JVM's time goes to starting up and compiling, not to data:
`kafkatui replay` of the reference day took 68 s with ``-XX:TieredStopAtLevel=1`` against 120-125 s
without (two runs each, alternating, load average 7-10, 2026-11-28). The job's own settings are untouched.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

FLAGS = "-XX:TieredStopAtLevel=1"


def env(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with FLAGS added to JAVA_TOOL_OPTIONS, which every JVM
    reads (drivers, spark-submit, a standalone cluster's workers and the executors they start)."""
    out = dict(os.environ if base is None else base)
    out["JAVA_TOOL_OPTIONS"] = f"{out.get('JAVA_TOOL_OPTIONS', '')} {FLAGS}".strip()
    return out


@contextlib.contextmanager
def quick_jvm() -> Iterator[None]:
    """FLAGS for the JVMs started inside the block (PySpark's gateway), not for later ones."""
    saved = os.environ.get("JAVA_TOOL_OPTIONS")
    os.environ["JAVA_TOOL_OPTIONS"] = env()["JAVA_TOOL_OPTIONS"]
    try:
        yield
    finally:
        if saved is None:
            del os.environ["JAVA_TOOL_OPTIONS"]
        else:
            os.environ["JAVA_TOOL_OPTIONS"] = saved
