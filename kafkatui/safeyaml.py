"""Reading the YAML files users hand kafkatui (profiles, scenarios, themes) without being hurt by them.

`read_bounded` reads at most `limit` bytes and refuses what is not a regular file or a pipe (a
device such as /dev/zero never ends; a FIFO in a folder kafkatui scans would block the start), and
`compose` / `load` parse with a nesting limit (PyYAML's composer recurses: 5,000 levels is a
RecursionError) and an alias limit (a "billion laughs" document). Every problem is `InputError`:
one line, no traceback. No Textual here.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import yaml

MAX_DEPTH = 100
"""Deeper nesting than any kafkatui file needs (a profile is 4 levels, a scenario 6)."""
MAX_ALIASES = 1000
MAX_FILE_BYTES = 4 * 1024 * 1024


class InputError(Exception):
    """A file the user named that cannot be used; the message is one line: ``PATH: REASON``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def _size_text(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 and n % (1024 * 1024) == 0 else f"{n // 1024} KiB"


def read_bounded(path: Path, limit: int = MAX_FILE_BYTES, *, pipes: bool = True) -> bytes:
    """The bytes of `path`, at most `limit` of them (InputError beyond, or for a device, a directory,
    a socket; a FIFO only when `pipes`, and then it may wait for its writer as the user asked).

    FileNotFoundError and PermissionError pass through as OSError so callers can word them.
    """
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if stat.S_ISFIFO(st.st_mode) and not pipes:
        raise InputError(path, "a FIFO (named pipe), not a regular file")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise InputError(path, "not a regular file (a device or socket); give a file")
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise InputError(path, f"{st.st_size:,} bytes is too large (at most {_size_text(limit)})")
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (0 if pipes else os.O_NONBLOCK)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)  # the file opened may not be the one looked at
        if not (stat.S_ISREG(st.st_mode) or (pipes and stat.S_ISFIFO(st.st_mode))):
            raise InputError(path, "not a regular file; give a file")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 16, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(path, f"too large (more than {_size_text(limit)})")
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_text_bounded(path: Path, limit: int = MAX_FILE_BYTES, *, pipes: bool = True) -> str:
    """`read_bounded` decoded as UTF-8 (UnicodeDecodeError passes through); NUL bytes are refused."""
    data = read_bounded(path, limit, pipes=pipes)
    if b"\x00" in data:
        raise InputError(path, "holds NUL bytes: not a text file")
    return data.decode("utf-8")


class LimitError(yaml.composer.ComposerError):
    """A YAML document beyond kafkatui's limits (nesting, aliases); its `problem` says which."""


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that refuses documents nested deeper than MAX_DEPTH or with more than MAX_ALIASES aliases."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        mark: Any = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise LimitError(None, None, f"more than {MAX_ALIASES} aliases (*name); refused", mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise LimitError(None, None, f"nested more than {MAX_DEPTH} levels deep; refused", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def compose(text: str) -> yaml.Node | None:
    """The node tree of one YAML document (yaml.YAMLError for bad YAML or too deep a document)."""
    loader = _LimitedLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def load(text: str) -> Any:
    """One YAML document as Python values, as yaml.safe_load, within the same limits."""
    loader = _LimitedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def yaml_problem(exc: yaml.YAMLError) -> tuple[int | None, str]:
    """(1-based line or None, the problem in one line) of a PyYAML error."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    return (mark.line + 1 if mark is not None else None), " ".join(str(problem).split())
