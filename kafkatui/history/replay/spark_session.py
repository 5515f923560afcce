"""A quiet local SparkSession for the replay job (and its tests).

``local[2]`` unless told otherwise, no Spark UI, no console progress bar, log4j at ERROR, and the
JVM's own stderr (start-up warnings, errors) sent to a log file instead of the terminal. The SQL
tuning the job needs is set by the job itself (`replay_job.tuning`), so spark-submit runs get it
too. ``SPARK_LOCAL_IP`` (loopback) and ``PYSPARK_PYTHON`` (this interpreter) are defaulted only for
a local master: on a cluster, the driver's address and the executors' Python are the cluster's.
Under ``spark-submit`` the session spark-submit configured is used as it is, but for the one setting
a local master cannot run without on HDFS (`LOCAL_CONF`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[2]"

# A local master has one executor, so task locality means nothing there, but Spark's delay scheduling
# still holds back a task that prefers a host (an HDFS block's DataNode) while others prefer the cached
# blocks in process, and the local backend offers its cores again only when a task is submitted or ends
# (cluster backends also revive every second). Once the last running task ended, the held-back tasks
# were never offered a core: the job hung in its first stage over hdfs:// inputs and a cached relation.
LOCAL_CONF = {"spark.locality.wait": "0"}
JAVA_OPTIONS = "spark.driver.extraJavaOptions"

_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.parquet.name = org.apache.parquet
logger.parquet.level = error
"""


class NoJavaError(RuntimeError):
    """No Java runtime: PySpark needs a JDK 17+."""


def find_java() -> str | None:
    """The java binary PySpark will start ($JAVA_HOME/bin/java, else java on PATH), or None."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        return str(candidate) if candidate.is_file() else None
    return shutil.which("java")


def under_spark_submit() -> bool:
    """True when this Python process was started by spark-submit (the JVM is already there)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """Point file descriptor 2 at `path` while the JVM starts (it keeps that stderr for its life)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def driver_java_options(log4j: Path, given: str | None = None) -> str:
    """The driver JVM's options: our log4j file and the throughput collector (G1's barriers cost the
    replay job about 8%, one local JVM, measured), then the user's ``spark.driver.extraJavaOptions``,
    if any: added after ours (the later of a repeated flag wins), never instead of them."""
    ours = f"-Dlog4j2.configurationFile=file:{log4j} -XX:+UseParallelGC"
    return f"{ours} {given.strip()}" if given and given.strip() else ours


def spark_session(
    master: str | None = None,
    log_path: Path | None = None,
    driver_memory: str = "3g",
    conf: dict[str, str] | None = None,
) -> SparkSession:
    """The active session, or a new quiet local one (raises NoJavaError without Java); `conf` adds
    (or overrides) Spark settings of a new session (a profile's ``replay: conf:``)."""
    active = SparkSession.getActiveSession()
    if active is not None or under_spark_submit():
        if active is None:
            builder = SparkSession.builder.appName("kafkatui-replay")
            SparkContext._ensure_initialized()  # noqa: SLF001  # spark-submit's JVM: SparkConf reads it
            given = SparkConf()  # what spark-submit was told (--master, --conf, spark-defaults.conf)
            if given.get("spark.master", "").startswith("local"):
                for key, value in LOCAL_CONF.items():
                    if not given.contains(key):
                        builder = builder.config(key, value)
            active = builder.getOrCreate()
        spark = active
        spark.sparkContext.setLogLevel("ERROR")
        return spark
    if find_java() is None:
        raise NoJavaError(
            "Java not found: PySpark needs a JDK 17+ (Debian: apt-get install "
            "openjdk-17-jre-headless; `make tools` installs it), or set JAVA_HOME"
        )
    conf_dir = Path(tempfile.mkdtemp(prefix="kafkatui-spark-"))
    # registered before the session exists, so it runs after PySpark's own exit hook has stopped it
    atexit.register(shutil.rmtree, conf_dir, True)
    (conf_dir / "log4j2.properties").write_text(_LOG4J2)
    log = log_path or conf_dir / "spark.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    master = master or DEFAULT_MASTER
    local = master.startswith("local")
    if local:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    user = dict(conf or {})
    java_opts = driver_java_options(conf_dir / "log4j2.properties", user.pop(JAVA_OPTIONS, None))
    builder = (
        SparkSession.builder.master(master)
        .appName("kafkatui-replay")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.driver.memory", driver_memory)
        .config(JAVA_OPTIONS, java_opts)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.local.dir", str(conf_dir))
        # no UI reads them: each query's plan text for the listener bus in the plain form (the default
        # "formatted" one cost 0.1-0.2 s of driver time per query and adaptive re-plan)
        .config("spark.sql.ui.explainMode", "simple")
    )
    for key, value in {**(LOCAL_CONF if local else {}), **user}.items():
        builder = builder.config(key, value)
    with _stderr_to(log):
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
