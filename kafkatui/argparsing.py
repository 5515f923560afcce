"""argparse with kafkatui's exit code for bad usage (3), so it never collides with check's 2 (critical),
and option types that refuse NaN, infinities and out-of-range numbers with one line."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import NoReturn

EXIT_USAGE = 3


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 3."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        sys.exit(EXIT_USAGE)


def finite(text: str) -> float:
    """A float from `text`, refusing NaN and infinities (argparse.ArgumentTypeError)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def seconds(maximum: float, *, zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds in (0, maximum] ([0, maximum] with `zero`)."""

    def parse(text: str) -> float:
        value = finite(text)
        if not (value >= 0 if zero else value > 0) or value > maximum:
            low = "between 0" if zero else "more than 0"
            raise argparse.ArgumentTypeError(f"must be {low} and at most {maximum:g} seconds, got {text}")
        return value

    parse.__name__ = "seconds"
    return parse


def number(low: float, high: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high] ((low, high] with `low_open`)."""

    def parse(text: str) -> float:
        value = finite(text)
        if not (low < value if low_open else low <= value) or value > high:
            raise argparse.ArgumentTypeError(
                f"must be {'more than' if low_open else 'at least'} {low:g} and at most {high:g}, got {text}"
            )
        return value

    parse.__name__ = "number"
    return parse


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high]."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low:,} and {high:,}, got {value:,}")
        return value

    parse.__name__ = "whole"
    return parse
