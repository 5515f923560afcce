"""Reading the audit log is bounded: a device or FIFO is refused, an overlong line skipped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kafkatui.alter import audit
from kafkatui.kafka.errors import UsageError


def test_a_device_is_refused_not_read_without_end() -> None:
    with pytest.raises(UsageError, match="cannot read the audit log /dev/zero: not a regular file"):
        audit.read(Path("/dev/zero"))


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "audit.jsonl"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer exists, so opening for reading returns at once
    try:
        with pytest.raises(UsageError, match="not a regular file"):
            audit.read(fifo)
    finally:
        os.close(fd)


def test_overlong_and_broken_lines_are_skipped_and_the_records_kept(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    first, last = {"action": "alter", "n": 1}, {"action": "elect", "n": 2}
    log.write_bytes(
        json.dumps(first).encode()
        + b"\n"
        + b"x" * (audit.MAX_RECORD * 3)
        + b"\n"
        + b"\xff\xfe not json\n"
        + json.dumps(last).encode()
        + b"\n"
    )
    assert audit.read(log) == [first, last]


def test_no_log_yet_is_no_records(tmp_path: Path) -> None:
    assert audit.read(tmp_path / "none.jsonl") == []
