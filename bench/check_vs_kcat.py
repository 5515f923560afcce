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

`--latency` runs the latency case instead (issue 31): every broker of a 6-broker, 3,000-partition
simulated cluster answers each request 100 ms late, then 25 ms late (the simulator's
`delay_responses`: a bastion far from the cluster). It reports check and kcat wall times, their ratio
and the requests each sent in sequence, counted from the simulator's request log
(`kafkatui.sim.server.requests_in_sequence`: the longest chain of requests each received after the one
before was answered). Target: check <= 2x kcat at 100 ms.
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
TARGET_LATENCY_RATIO = 2.0
LATENCY_DELAYS = (0.1, 0.025)


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


def serve_latency() -> None:
    """Child process: 6 brokers, 60 topics x 50 partitions, RF 3. Commands on stdin, one a line:
    ``delay S`` (every broker answers S seconds late), ``start`` (a new request log), ``stop`` (prints
    the requests in sequence and the request count since ``start``)."""
    from kafkatui.sim.cluster import SimCluster
    from kafkatui.sim.runner import SimRunner
    from kafkatui.sim.server import requests_in_sequence

    cluster = SimCluster(6, racks=["rack-0", "rack-1", "rack-2"])
    for i in range(60):
        cluster.create_topic(f"topic-{i:03d}", 50, 3)
    with SimRunner(cluster) as sim:
        print(sim.bootstrap.split(",")[0], flush=True)
        for line in sys.stdin:
            cmd, *args = line.split()
            if cmd == "delay":
                for bid in sorted(cluster.brokers):
                    sim.delay_responses(bid, float(args[0]))
            elif cmd == "start":
                sim.server.request_log = []
            elif cmd == "stop":
                got = sim.server.request_log or []
                sim.server.request_log = None
                print(requests_in_sequence(got), len(got), flush=True)
            print("ok", flush=True)


def latency(rounds: int) -> dict[str, float]:
    """The latency case: check and kcat with every request answered late (see the module docstring)."""
    kcat = shutil.which("kcat")
    if not kcat:
        sys.exit("kcat not installed (apt-get install kcat): no ratio")
    kafkatui = shutil.which("kafkatui") or str(Path(sys.executable).parent / "kafkatui")
    compile_package()
    server = subprocess.Popen(
        [sys.executable, __file__, "serve-latency"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None and server.stdin is not None
    stdin, stdout = server.stdin, server.stdout

    def ask(line: str) -> list[str]:
        stdin.write(line + "\n")
        stdin.flush()
        answer: list[str] = []
        while (got := stdout.readline().strip()) != "ok":
            answer.append(got)
        return answer

    out: dict[str, float] = {}
    try:
        boot = stdout.readline().strip()
        cmds = {
            "kcat": [kcat, "-L", "-J", "-b", boot],
            "check": [kafkatui, "check", "--json", "--bootstrap", boot, "--timeout", "30"],
        }
        for delay in LATENCY_DELAYS:
            ask(f"delay {delay}")
            measure(cmds["check"])  # warm the simulator's caches
            load_before = load_average()
            walls: dict[str, list[float]] = {"kcat": [], "check": []}
            seqs: dict[str, list[int]] = {"kcat": [], "check": []}
            ratios: list[float] = []
            for i in range(rounds):
                for name in ("kcat", "check") if i % 2 == 0 else ("check", "kcat"):
                    ask("start")
                    wall, _, code = measure(cmds[name])
                    seq, _ = (int(x) for x in ask("stop")[0].split())
                    if code not in (0, 1, 2):
                        sys.exit(f"{name} failed with exit code {code}")
                    walls[name].append(wall)
                    seqs[name].append(seq)
                ratios.append(walls["check"][-1] / walls["kcat"][-1])
            ms = int(delay * 1000)
            ratio = statistics.median(ratios)
            print(
                f"latency {ms} ms per request, {rounds} paired rounds; load average before {load_before}, "
                f"after {load_average()}"
            )
            for name in ("kcat", "check"):
                print(
                    f"  {name:<6} median {statistics.median(walls[name]):.3f} s  min {min(walls[name]):.3f} s  "
                    f"requests in sequence: {' '.join(map(str, seqs[name]))}"
                )
            print("  per-round check/kcat: " + " ".join(f"{r:.2f}" for r in ratios))
            target = f" (target <= {TARGET_LATENCY_RATIO}x)" if delay == LATENCY_DELAYS[0] else ""
            print(f"  median check/kcat: {ratio:.2f}x{target}")
            out[f"check_kcat_ratio_{ms}ms"] = ratio
            out[f"check_sequence_{ms}ms"] = statistics.median(seqs["check"])
            out[f"kcat_sequence_{ms}ms"] = statistics.median(seqs["kcat"])
    finally:
        stdin.close()
        server.wait(60)
    return out


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
    elif sys.argv[1:] == ["serve-latency"]:
        serve_latency()
    else:
        ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        ap.add_argument("--rounds", type=int, default=7, help="paired rounds (default 7)")
        ap.add_argument("--latency", action="store_true", help="the latency case (100 and 25 ms per request)")
        ns = ap.parse_args()
        if ns.latency:
            latency(ns.rounds)
        else:
            main(ns.rounds)
