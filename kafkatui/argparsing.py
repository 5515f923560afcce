"""argparse with kafkatui's exit code for bad usage (3), so it never collides with check's 2 (critical)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

EXIT_USAGE = 3


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 3."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        sys.exit(EXIT_USAGE)
