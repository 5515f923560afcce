"""Virtual clock: simulated milliseconds that run `speed` times faster than the wall clock."""

from __future__ import annotations

import threading
import time


class VirtualClock:
    """Simulated time in epoch milliseconds.

    In running mode the clock follows the wall clock scaled by `speed`; in manual mode it
    only moves when `advance` is called, which makes tests and snapshots deterministic.
    """

    def __init__(self, speed: float = 1.0, start_ms: int | None = None, manual: bool = False) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._lock = threading.Lock()
        self._speed = speed
        self._manual = manual
        self._anchor_virtual = float(start_ms if start_ms is not None else time.time() * 1000)
        self._anchor_real = time.monotonic()

    @property
    def speed(self) -> float:
        return self._speed

    @property
    def manual(self) -> bool:
        return self._manual

    def now_ms(self) -> int:
        """Current simulated time in epoch milliseconds."""
        with self._lock:
            if self._manual:
                return int(self._anchor_virtual)
            return int(self._anchor_virtual + (time.monotonic() - self._anchor_real) * 1000 * self._speed)

    def advance(self, ms: float) -> None:
        """Move a manual clock forward (ignored sign check: ms must be >= 0)."""
        if ms < 0:
            raise ValueError("time only moves forward")
        with self._lock:
            if not self._manual:
                raise RuntimeError("advance() needs a manual clock")
            self._anchor_virtual += ms

    def set_speed(self, speed: float) -> None:
        """Change the speed without a jump in simulated time."""
        if speed <= 0:
            raise ValueError("speed must be positive")
        now = self.now_ms()
        with self._lock:
            self._anchor_virtual = float(now)
            self._anchor_real = time.monotonic()
            self._speed = speed
