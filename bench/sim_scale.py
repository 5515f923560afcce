"""Simulator at scale: 30 brokers, 2,000 topics, 100,000 partitions.

Measures start-up time, the first (uncached) and warm all-topics Metadata answers as real clients
see them (confluent-kafka `list_topics`, `kcat -L -J` when installed), and the process's peak memory.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import time

from confluent_kafka.admin import AdminClient

from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.runner import SimRunner


def build(brokers: int = 30, topics: int = 2000, partitions: int = 50) -> SimCluster:
    racks = [f"rack-{i}" for i in range(3)]
    cluster = SimCluster(brokers, racks=racks)
    for i in range(topics):
        cluster.create_topic(f"topic-{i:04d}", partitions, 3)
    return cluster


def timed(fn: object) -> float:
    t = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - t


def main() -> dict[str, float]:
    results: dict[str, float] = {}
    t0 = time.perf_counter()
    cluster = build()
    runner = SimRunner(cluster).start()
    results["start_s"] = time.perf_counter() - t0
    try:
        admin = AdminClient({"bootstrap.servers": runner.bootstrap})
        results["list_topics_cold_s"] = timed(lambda: admin.list_topics(timeout=60))
        results["list_topics_warm_s"] = min(timed(lambda: admin.list_topics(timeout=60)) for _ in range(3))
        md = admin.list_topics(timeout=60)
        results["partitions_seen"] = float(sum(len(t.partitions) for t in md.topics.values()))
        kcat = shutil.which("kcat")
        if kcat:
            b = runner.bootstrap.split(",")[0]
            runs = []
            for _ in range(3):
                t = time.perf_counter()
                out = subprocess.run([kcat, "-L", "-J", "-b", b], capture_output=True, timeout=120)
                runs.append(time.perf_counter() - t)
                assert out.returncode == 0
            results["kcat_L_J_warm_s"] = min(runs)
            doc = json.loads(out.stdout)
            results["kcat_partitions_seen"] = float(sum(len(t["partitions"]) for t in doc["topics"]))
    finally:
        runner.stop()
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return results


if __name__ == "__main__":
    res = main()
    for k, v in res.items():
        print(f"{k:<24} {v:10.3f}")
