"""Bring one Kafka release's jars into the XDG cache with Maven, once; later starts need no network."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

from kafkatui.lab.errors import FetchFailed, MissingTool
from kafkatui.lab.versions import KafkaRelease

LOG4J2 = "2.24.3"  # what the 4.0 and 4.1 tarballs ship
_LOG4J2_DEPS = "\n".join(
    f"    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>{a}</artifactId>"
    f"<version>{LOG4J2}</version></dependency>"
    for a in ("log4j-api", "log4j-core", "log4j-slf4j-impl")
)
_RELOAD4J_DEPS = (
    "    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId>"
    "<version>1.7.36</version></dependency>\n"
    "    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId>"
    "<version>1.2.25</version></dependency>"
)
COMPLETE = ".complete"


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/kafkatui/kafka` (default `~/.cache/kafkatui/kafka`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kafkatui" / "kafka"


def libs_dir(rel: KafkaRelease) -> Path:
    """Where the release's jars live once fetched."""
    return cache_root() / rel.version / "libs"


def java_major(java: str = "java") -> int | None:
    """The major version of `java` on PATH (17 for "17.0.15"), None when there is none."""
    exe = shutil.which(java)
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "-version"], capture_output=True, text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if m is None:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def require_java(rel: KafkaRelease) -> str:
    """Path of a Java able to run `rel`, or MissingTool saying what to install."""
    major = java_major()
    if major is None:
        raise MissingTool(
            f"kafkatui lab needs Java {rel.java}+ to run Kafka {rel.version}: "
            "install a JDK (Debian: apt-get install openjdk-17-jre-headless; `make tools` does)"
        )
    if major < rel.java:
        raise MissingTool(
            f"Kafka {rel.version} needs Java {rel.java}+, `java` here is {major}: "
            "install openjdk-17-jre-headless and put it first on PATH"
        )
    return shutil.which("java") or "java"


def pom_text(rel: KafkaRelease) -> str:
    """The pom that lists the release's jars (the package's template, filled in)."""
    template = resources.files("kafkatui.lab").joinpath("pom.xml.in").read_text(encoding="utf-8")
    if rel.log4j2:
        logging_deps = _LOG4J2_DEPS
    elif rel.line.startswith("2."):
        logging_deps = ""  # 2.x's own POMs bring log4j 1.2.17 and slf4j-log4j12, as its tarball ships them
    else:
        logging_deps = _RELOAD4J_DEPS
    return template.replace("@VERSION@", rel.version).replace("@LOGGING@", logging_deps)


def is_fetched(rel: KafkaRelease) -> bool:
    """True when the release's jars are complete in the cache."""
    return (libs_dir(rel) / COMPLETE).exists()


def ensure_jars(rel: KafkaRelease, quiet: bool = True) -> Path:
    """The release's libs/ directory, fetched with Maven on first use; concurrent callers wait for one
    fetch (a lock file), and a fetch that dies leaves nothing half-done behind (it writes to a temp
    directory, then renames)."""
    target = libs_dir(rel)
    if is_fetched(rel):
        return target
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MissingTool(
            "kafkatui lab fetches Kafka's jars with Maven once: install it "
            "(Debian: apt-get install maven; `make tools` does)"
        )
    root = target.parent
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_fetched(rel):
            return target
        work = Path(tempfile.mkdtemp(prefix="fetch-", dir=root))
        try:
            (work / "pom.xml").write_text(pom_text(rel), encoding="utf-8")
            cmd = [
                mvn,
                "-B",
                "-f",
                str(work / "pom.xml"),
                "dependency:copy-dependencies",
                f"-DoutputDirectory={work / 'libs'}",
                "-DincludeScope=runtime",
            ]
            if quiet:
                cmd.insert(2, "-q")
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0 or not any((work / "libs").glob("kafka_2.13-*.jar")):
                lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "ERROR" in ln]
                why = lines[0].replace("[ERROR]", "").strip() if lines else f"mvn exited {proc.returncode}"
                raise FetchFailed(f"could not fetch Kafka {rel.version}'s jars with Maven: {why[:300]}")
            (work / "libs" / COMPLETE).write_text(rel.version + "\n", encoding="utf-8")
            if target.exists():
                shutil.rmtree(target)
            (work / "libs").rename(target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target
