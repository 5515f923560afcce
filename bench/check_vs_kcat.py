"""`kafkatui check --json` against `kcat -L -J` on a simulated 30-broker, 100,000-partition cluster.

kcat only fetches metadata; kafkatui also fetches configs and log dirs and runs the health model,
audit and findings. Each tool runs as its own child process against the same simulator (itself a
separate child, so the measured processes do not inherit its peak RSS through fork). A third command,
metadata_floor.py, is the least any Python program with confluent-kafka takes for the same metadata
(interpreter, import, list_topics, one pass over the partitions): the floor under kafkatui.

The machine is shared, so absolute times drift with its load: the figures that count are ratios of
*paired* runs. Each round runs kcat, check and the floor back to back (in a rotating order) and
takes check/kcat and floor/kcat within the round; the result is the median ratio over the rounds
(default 7), with the median wall times, the largest peak RSS, and the load average before and after.
Target (issue 17): median check/kcat <= 4.5x, peak RSS <= 167 MB.

Run: `.venv/bin/python bench/check_vs_kcat.py [--rounds N]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

TARGET_RATIO = 4.5
TARGET_RSS_MB = 167.0


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


def compile_package() -> None:
    """Byte-compile kafkatui as an installation does: with PYTHONDONTWRITEBYTECODE set (or a tree it
    cannot write to) every `check` child would compile its sources again, ~0.15-0.3 s that no
    installed copy pays."""
    import compileall

    import kafkatui

    compileall.compile_dir(str(Path(kafkatui.__file__).parent), quiet=2)


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(rounds: int) -> dict[str, float]:
    kcat = shutil.which("kcat")
    if not kcat:
        sys.exit("kcat not installed (apt-get install kcat): no ratio")
    kafkatui = shutil.which("kafkatui") or str(Path(sys.executable).parent / "kafkatui")
    floor = str(Path(__file__).parent / "metadata_floor.py")
    compile_package()
    server = subprocess.Popen(
        [sys.executable, __file__, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None and server.stdin is not None
    names = ("kcat -L -J", "kafkatui check --json", "python+confluent floor")
    runs: dict[str, list[tuple[float, float, int]]] = {n: [] for n in names}
    check_ratio: list[float] = []
    floor_ratio: list[float] = []
    load_before = load_after = ""
    try:
        boot = server.stdout.readline().strip()
        cmds = {
            names[0]: [kcat, "-L", "-J", "-b", boot],
            names[1]: [kafkatui, "check", "--json", "--bootstrap", boot, "--timeout", "120"],
            names[2]: [sys.executable, floor, boot],
        }
        # warm the simulator's Metadata and DescribeConfigs caches once, as a running cluster would be
        measure(cmds[names[1]])
        measure(cmds[names[0]])
        load_before = load_average()
        for i in range(rounds):
            order = names[i % 3 :] + names[: i % 3]
            got = {n: measure(cmds[n]) for n in order}
            for n in names:
                runs[n].append(got[n])
            check_ratio.append(got[names[1]][0] / got[names[0]][0])
            floor_ratio.append(got[names[2]][0] / got[names[0]][0])
        load_after = load_average()
    finally:
        server.stdin.close()
        server.wait(60)
    print(f"{rounds} paired rounds; load average before {load_before}, after {load_after}")
    print(f"{'command':<24} {'median s':>9} {'min s':>7} {'peak MB':>8} {'exit':>5}")
    for n in names:
        walls = [r[0] for r in runs[n]]
        print(
            f"{n:<24} {statistics.median(walls):9.3f} {min(walls):7.3f} {max(r[1] for r in runs[n]):8.0f} "
            f"{runs[n][-1][2]:5d}"
        )
    ratio = statistics.median(check_ratio)
    fratio = statistics.median(floor_ratio)
    rss = max(r[1] for r in runs[names[1]])
    print("per-round check/kcat: " + " ".join(f"{r:.2f}" for r in check_ratio))
    print("per-round floor/kcat: " + " ".join(f"{r:.2f}" for r in floor_ratio))
    print(
        f"median ratio kafkatui/kcat wall: {ratio:.2f}x (target <= {TARGET_RATIO}x)  "
        f"floor/kcat: {fratio:.2f}x  kafkatui/floor: {ratio / fratio:.2f}x"
    )
    print(f"peak RSS of check: {rss:.0f} MB (target <= {TARGET_RSS_MB:.0f} MB)")
    return {"check_kcat_ratio": ratio, "floor_kcat_ratio": fratio, "check_peak_rss_mb": rss}


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        ap.add_argument("--rounds", type=int, default=7, help="paired rounds (default 7)")
        main(ap.parse_args().rounds)
