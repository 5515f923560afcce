"""Where the replay job's inputs and outputs live: Hadoop filesystem URIs, reached from the driver.

Inputs (``--history``, ``--broker-logs``) and ``--out`` are either plain local paths or any URI a
Hadoop FileSystem serves (``file://``, ``hdfs://``, ``s3a://``, ...). A local path becomes an
absolute ``file://`` URI before Spark sees it, so it is never resolved against ``fs.defaultFS``
(a YARN cluster's HDFS). Driver-side access (listing hour files, expanding log globs, checking and
creating the output directory, writing ``summary.json``) goes through the JVM's
``org.apache.hadoop.fs.FileSystem`` of the running SparkSession, never `pathlib` on a URI.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
MARKER = "_KAFKATUI_REPLAY"  # written first into an output directory the job owns


def is_uri(text: str) -> bool:
    """True for ``scheme:/...`` (two letters or more: not a drive letter)."""
    m = _SCHEME.match(text)
    return m is not None and len(m.group(1)) > 1 and text[m.end() :].startswith("/")


def to_uri(path: str | os.PathLike[str]) -> str:
    """A URI for Spark: URIs unchanged, local paths as absolute ``file://`` URIs."""
    text = os.fspath(path)
    if is_uri(text):
        return text
    # not Path.as_uri(): it would quote a glob's * and ?; Hadoop's Path takes the characters as they are
    return "file://" + os.path.abspath(os.path.expanduser(text))


def local_path(uri_or_path: str | os.PathLike[str]) -> Path | None:
    """The local path behind a plain path or a ``file:`` URI; None for any other filesystem."""
    text = os.fspath(uri_or_path)
    if not is_uri(text):
        return Path(text)
    if text.startswith("file:"):
        rest = text[5:]
        if rest.startswith("//"):
            rest = rest[2:]
            host, _, tail = rest.partition("/")
            if host not in ("", "localhost"):
                return None
            rest = "/" + tail
        from urllib.parse import unquote

        return Path(unquote(rest))
    return None


def join(base: str, *names: str) -> str:
    """``base/name/...`` for a URI or path."""
    return "/".join([base.rstrip("/"), *names])


@dataclass(slots=True)
class FileInfo:
    """One listed file: its fully qualified URI (as Spark's readers name it) and size."""

    uri: str
    name: str
    size: int


class HadoopFs:
    """The driver's view of Hadoop filesystems, through the session's JVM (py4j)."""

    def __init__(self, spark: SparkSession) -> None:
        sc = spark.sparkContext
        self._jvm: Any = sc._jvm  # noqa: SLF001  # py4j gateway of classic PySpark
        self._conf: Any = sc._jsc.hadoopConfiguration()  # noqa: SLF001

    def _path(self, uri: str) -> tuple[Any, Any]:
        p = self._jvm.org.apache.hadoop.fs.Path(uri)
        fs = p.getFileSystem(self._conf)
        fs.setWriteChecksum(False)  # no .crc files beside summary.json on a local filesystem
        return fs, p

    def qualify(self, uri: str) -> str:
        fs, p = self._path(uri)
        return str(fs.makeQualified(p).toString())

    def exists(self, uri: str) -> bool:
        fs, p = self._path(uri)
        return bool(fs.exists(p))

    def is_dir(self, uri: str) -> bool:
        fs, p = self._path(uri)
        return bool(fs.exists(p)) and bool(fs.getFileStatus(p).isDirectory())

    def children(self, uri: str) -> list[str]:
        """Names in a directory ([] when it does not exist)."""
        fs, p = self._path(uri)
        if not fs.exists(p):
            return []
        return sorted(str(s.getPath().getName()) for s in fs.listStatus(p))

    def glob(self, pattern: str) -> list[FileInfo]:
        """Files (not directories) a glob names, sorted by URI; [] when nothing matches."""
        fs, p = self._path(pattern)
        found = fs.globStatus(p)
        if found is None:
            return []
        out = [
            FileInfo(str(s.getPath().toString()), str(s.getPath().getName()), int(s.getLen()))
            for s in found
            if not s.isDirectory()
        ]
        return sorted(out, key=lambda f: f.uri)

    def mkdirs(self, uri: str) -> None:
        fs, p = self._path(uri)
        if not fs.mkdirs(p):
            raise OSError(f"cannot create {uri}")

    def write_bytes(self, uri: str, data: bytes) -> None:
        """Write a file whole: to ``uri.tmp`` first, then renamed over `uri`."""
        fs, p = self._path(uri)
        tmp = self._jvm.org.apache.hadoop.fs.Path(uri + ".tmp")
        stream = fs.create(tmp, True)
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()
        if fs.exists(p):
            fs.delete(p, False)
        if not fs.rename(tmp, p):
            raise OSError(f"cannot rename {uri}.tmp to {uri}")

    def delete(self, uri: str) -> None:
        fs, p = self._path(uri)
        if fs.exists(p):
            fs.delete(p, True)
