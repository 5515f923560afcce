"""`kafkatui check --json` beside Kafka's own `kafka-topics.sh --describe --under-min-isr-partitions`
(its main class, from the same jars) and `kcat -L -J`, on a real `kafkatui lab` cluster with several
thousand partitions and one broker down (so that there is something to report).

Each command runs as its own process, alternating, PAIRS times; the figures are medians of wall time
and peak RSS, and the ratios are to kcat from the same run. kafka-topics.sh is what an operator runs
today for the same question; kcat is the fastest metadata dump there is.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkatui.lab.cluster import LabCluster  # noqa: E402
from kafkatui.lab.tools import tool_command  # noqa: E402
from kafkatui.lab.versions import release  # noqa: E402

TOPICS = int(os.environ.get("BENCH_LAB_TOPICS", "20"))
PARTITIONS = int(os.environ.get("BENCH_LAB_PARTITIONS", "150"))  # 20 x 150 = 3,000 partitions, 9,000 replicas
PAIRS = int(os.environ.get("BENCH_PAIRS", "5"))


def measure(cmd: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MiB, exit code) of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    rel = release(os.environ.get("BENCH_KAFKA", "4.1"))
    root = Path(tempfile.mkdtemp(prefix="kafkatui-bench-lab-"))
    lab = LabCluster(root, rel, brokers=3, broker_heap="768m")
    started = time.perf_counter()
    lab.prepare()
    lab.start()
    print(f"lab: Kafka {rel.version}, 3 brokers, ready in {time.perf_counter() - started:.1f} s")
    try:
        admin = AdminClient({"bootstrap.servers": lab.bootstrap})
        t = time.perf_counter()
        futs = admin.create_topics(
            [
                NewTopic(f"bench-{i:03d}", PARTITIONS, replication_factor=3, config={"min.insync.replicas": "2"})
                for i in range(TOPICS)
            ],
            operation_timeout=120,
        )
        for f in futs.values():
            f.result(300)
        while (
            sum(len(t.partitions) for n, t in admin.list_topics(timeout=30).topics.items() if n.startswith("bench-"))
            < TOPICS * PARTITIONS
        ):
            time.sleep(1)
        print(f"created {TOPICS * PARTITIONS} partitions (RF 3) in {time.perf_counter() - t:.1f} s")
        lab.crash("3")
        time.sleep(10)  # fenced after broker.session.timeout.ms: every partition at min ISR
        first = lab.bootstrap.split(",")[0]
        kafkatui = [sys.executable, "-m", "kafkatui.cli", "check", "--bootstrap", first, "--json", "--timeout", "60"]
        commands = {
            "kafkatui check --json": kafkatui,
            "kafka-topics.sh --under-min-isr": tool_command(
                rel, "kafka-topics.sh", ["--bootstrap-server", first, "--describe", "--under-min-isr-partitions"]
            ),
            "kafka-topics.sh --at-min-isr": tool_command(
                rel, "kafka-topics.sh", ["--bootstrap-server", first, "--describe", "--at-min-isr-partitions"]
            ),
        }
        kcat = shutil.which("kcat")
        if kcat:
            commands["kcat -L -J"] = [kcat, "-L", "-J", "-b", first]
        results: dict[str, list[tuple[float, float, int]]] = {k: [] for k in commands}
        for cmd in commands.values():
            measure(cmd)  # warm the page cache and the brokers
        for _ in range(PAIRS):
            for name, cmd in commands.items():
                results[name].append(measure(cmd))
        base = statistics.median(w for w, _, _ in results["kcat -L -J"]) if kcat else None
        print(f"{'command':<36} {'median s':>9} {'vs kcat':>8} {'peak RSS MiB':>13} exit codes")
        for name, rows in results.items():
            wall = statistics.median(w for w, _, _ in rows)
            rss = statistics.median(r for _, r, _ in rows)
            ratio = f"{wall / base:.1f}x" if base else "-"
            print(f"{name:<36} {wall:>9.2f} {ratio:>8} {rss:>13.0f} {sorted({c for _, _, c in rows})}")
        print(f"load average during the run: {os.getloadavg()[0]:.1f} (2 cores)")
    finally:
        lab.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
