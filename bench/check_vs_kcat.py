"""`kafkatui check --json` against `kcat -L -J` on a simulated 30-broker, 100,000-partition cluster.

kcat only fetches metadata; kafkatui also fetches configs and log dirs and runs the health model.
Both run as separate processes against the same simulator, one after the other, three times each;
the figures are the best wall time and the peak RSS of each process. Target: kafkatui within 2x kcat.
A third row, metadata_floor.py, is the least any Python program with confluent-kafka takes for the
same metadata (interpreter, import, list_topics, one pass over the partitions): the floor under kafkatui.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def measure(cmd: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MB, exit code) of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def serve() -> None:
    """Child process: the simulated cluster, until stdin closes (kept out of the measuring process:
    a child forked from a big process inherits its peak RSS in ru_maxrss)."""
    from sim_scale import build

    from kafkatui.sim.runner import SimRunner

    with SimRunner(build()) as sim:
        print(sim.bootstrap.split(",")[0], flush=True)
        sys.stdin.read()


def main() -> None:
    kcat = shutil.which("kcat")
    kafkatui = shutil.which("kafkatui") or str(Path(sys.executable).parent / "kafkatui")
    server = subprocess.Popen([sys.executable, __file__, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    assert server.stdout is not None and server.stdin is not None
    try:
        boot = server.stdout.readline().strip()
        # warm the simulator's Metadata cache once, as a running cluster would be
        measure([kafkatui, "check", "--json", "--bootstrap", boot, "--timeout", "120"])
        rows = []
        if kcat:
            runs = [measure([kcat, "-L", "-J", "-b", boot]) for _ in range(3)]
            rows.append(("kcat -L -J", min(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]))
        runs = [measure([kafkatui, "check", "--json", "--bootstrap", boot, "--timeout", "120"]) for _ in range(3)]
        rows.append(("kafkatui check --json", min(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]))
        floor = str(Path(__file__).parent / "metadata_floor.py")
        runs = [measure([sys.executable, floor, boot]) for _ in range(3)]
        rows.append(("python+confluent floor", min(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]))
    finally:
        server.stdin.close()
        server.wait(60)
    print(f"{'command':<24} {'wall s':>8} {'peak MB':>8} {'exit':>5}")
    for name, wall, rss, code in rows:
        print(f"{name:<24} {wall:8.2f} {rss:8.0f} {code:5d}")
    if kcat:
        print(f"ratio kafkatui/kcat wall: {rows[1][1] / rows[0][1]:.2f}x")
        print(f"ratio floor/kcat wall: {rows[2][1] / rows[0][1]:.2f}x (metadata only, in Python with confluent-kafka)")
    else:
        print("kcat not installed (apt-get install kcat): no ratio")


if __name__ == "__main__":
    serve() if sys.argv[1:] == ["serve"] else main()
