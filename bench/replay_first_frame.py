"""Time to the Replay screen's first frame on a replay OUT directory (default: the bench day's output).

A child process does what `kafkatui --replay OUT` does (imports, `open_day`, the app) and runs the app
headless until the Replay screen shows the partition table at the first incident; the time is counted
from the child's start (interpreter start-up included). Then the time until the whole day has been
read in the background. Last, in another child, the read alone for the worst minute of that hour to
open on (its 58th: a time-sorted hour is read up to the minute shown, so an incident late in its hour
costs the most). Usage: python bench/replay_first_frame.py [OUT]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import asyncio, sys, time
t0 = float(sys.argv[2])
from kafkatui.tui.app import KafkaTuiApp
from kafkatui.tui.screens.replay import ReplayScreen, open_day
from kafkatui.tui.widgets.vtable import VirtualTable
data = open_day(sys.argv[1])
opened = time.time() - t0

async def run():
    app = KafkaTuiApp(None, replay=data, auto_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        while not (isinstance(app.screen, ReplayScreen)
                   and app.screen.query_one("#partitions", VirtualTable).keys_in_view()):
            await pilot.pause(0.01)
        first = time.time() - t0
        screen = app.screen
        while screen.data.window is not None:
            await pilot.pause(0.1)
        whole = time.time() - t0
        print(f"read one hour: {opened:.2f} s; first frame: {first:.2f} s; whole day read: {whole:.1f} s "
              f"({screen.data.frames:,} frames)")

asyncio.run(run())
"""

LATE = r"""
import sys, time
from kafkatui.history.view.data import ReplayData
from kafkatui.history.view.files import read_summary
s = read_summary(__import__("pathlib").Path(sys.argv[1]))
first = s.incidents[0].start_ms if s.incidents else s.day_start_ms
hour = (first - s.day_start_ms) // 3_600_000
t = time.perf_counter()
data = ReplayData.load_hour(sys.argv[1], hour, hour * 60 + 58)
print(f"read hour {hour} up to {hour:02d}:58 (the worst minute to open on): {time.perf_counter() - t:.2f} s "
      f"({data.frames:,} frames)" if data else "no per-hour frames")
"""


def main() -> None:
    default = Path(os.environ.get("KAFKATUI_BENCH_DIR", Path(tempfile.gettempdir()) / "kafkatui-bench-replay")) / "out"
    out = sys.argv[1] if len(sys.argv) > 1 else str(default)
    env = dict(os.environ, PYTHONPATH=str(HERE))
    print(f"load average {os.getloadavg()[0]:.1f}")
    subprocess.run([sys.executable, "-c", CHILD, out, str(time.time())], env=env, check=True)
    print(f"load average {os.getloadavg()[0]:.1f}")
    subprocess.run([sys.executable, "-c", LATE, out], env=env, check=True)


if __name__ == "__main__":
    main()
