"""The job ships its own code: kafkatui's package zipped once, added to the Spark session.

Executors run Python for a few stages (the hour files' gzip check, broker-log parsing, the offline
derivation), and that Python must import ``kafkatui``. Rather than asking every cluster node to install
it, the job zips the ``kafkatui`` package the driver runs from (once per content: the zip's name holds
a hash of the files' names, sizes and times) into the user's cache and adds it with
``SparkContext.addPyFile``, so nodes need only Python and pyspark. A local master shares the driver's
interpreter and needs nothing.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

from pyspark.sql import SparkSession

import kafkatui


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/kafkatui/ship (else ~/.cache/...), or the temp directory when that cannot be made."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kafkatui" / "ship"
    try:
        base.mkdir(parents=True, exist_ok=True)
        return base
    except OSError:
        return Path(tempfile.gettempdir())


def _package_files(root: Path) -> list[Path]:
    return sorted(
        p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    )


def package_zip(directory: Path | None = None) -> Path:
    """The zip of the installed ``kafkatui`` package (built when its files changed; reused otherwise)."""
    root = Path(kafkatui.__file__).resolve().parent
    files = _package_files(root)
    digest = hashlib.sha256()
    for f in files:
        st = f.stat()
        digest.update(f"{f.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    where = directory or cache_dir()
    dest = where / f"kafkatui-{kafkatui.__version__}-{digest.hexdigest()[:16]}.zip"
    if dest.is_file():
        return dest
    fd, tmp = tempfile.mkstemp(prefix=".kafkatui-", suffix=".zip", dir=where)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            for f in files:
                z.write(f, Path("kafkatui") / f.relative_to(root))
        os.replace(tmp, dest)  # whole or not at all: a second job building it at once is harmless
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def ship(spark: SparkSession) -> Path | None:
    """Add kafkatui's zip to the session unless the master is local; returns the zip (None: local)."""
    sc = spark.sparkContext
    if (sc.master or "local").startswith("local"):
        return None
    path = package_zip()
    sc.addPyFile(str(path))
    return path
