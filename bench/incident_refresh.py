"""The dashboard's incident refresh headless: where its time goes, per thread and per simulator request.

The bench cluster of `tui_app.py` (30 brokers, 105,000 partitions) in a child process; here the dashboard's
source (`KafkaClusterSource` with the dashboard's settings) and the feed's steps (snapshot, diff,
evaluation), without the UI. Three steady reads, each evaluated as the dashboard does and under its GC rules
(no automatic full collection, each state frozen), then `shutdown 1` (a controlled shutdown: broker 1 leaves
the metadata, ~14,000 partitions shrink their ISR), then the incident refresh, split into:

- wall time of the snapshot, and this process's CPU meanwhile by thread (/proc/self/task: librdkafka's
  threads, kafka-python's IO thread, the pool and the caller), so kafkatui's decoding and building is
  told apart from waiting for the simulator;
- the simulator's requests that took over 50 ms to answer (its own request log: API key, broker);
- diff and evaluation (assess, findings), the CPU of the caller's thread (its wall time moves with the load).

`tui_app.py` judges the same refresh inside the running dashboard (the UI thread shares the interpreter);
this one says what each part is. Run:
`.venv/bin/python bench/incident_refresh.py [--rounds N]` (about 1 min a round on 2 cores).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import tui_app  # noqa: E402  (the bench cluster's child and its warm-up)

from kafkatui.kafka.settings import ConnectionSettings  # noqa: E402
from kafkatui.kafka.source import KafkaClusterSource  # noqa: E402
from kafkatui.model import evaluation  # noqa: E402
from kafkatui.model.changes import diff  # noqa: E402
from kafkatui.tui.app import NO_AUTO_FULL_GC  # noqa: E402

SLOW_S = 0.05
API_NAMES = {
    3: "Metadata",
    18: "ApiVersions",
    32: "DescribeConfigs",
    35: "DescribeLogDirs",
    75: "DescribeTopicPartitions",
}

# the bench's child, its request log on, answering "log" with the requests slower than SLOW_S since the last
CHILD = tui_app.SIM_CHILD.replace(
    "runner = SimRunner(cluster).start()", "runner = SimRunner(cluster).start(); runner.server.request_log = []"
).replace(
    'print("ok", flush=True)',
    'print("ok", flush=True)\n'
    '        elif words and words[0] == "log":\n'
    "            import json\n"
    f"            slow = [(round(a - r, 3), b, k) for r, a, b, k, _ in runner.server.request_log if a - r > {SLOW_S}]\n"
    "            runner.server.request_log.clear()\n"
    '            print("log", json.dumps(slow), flush=True)',
)


class Child(tui_app.SimChild):
    """`tui_app.SimChild` with the request log."""

    def __init__(self, big: int) -> None:
        tui_app.SIM_CHILD, saved = CHILD, tui_app.SIM_CHILD
        try:
            super().__init__(big)
        finally:
            tui_app.SIM_CHILD = saved

    def slow_requests(self) -> list[tuple[float, int, int]]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("log\n")
        self.proc.stdin.flush()
        line = self.read_line(30)
        assert line.startswith("log "), line
        return [(float(s), int(b), int(k)) for s, b, k in json.loads(line[4:])]


@dataclass(frozen=True)
class Round:
    snapshot_wall: float
    snapshot_cpu: float
    threads: dict[str, float]
    slow: list[tuple[float, int, int]]
    diff: float  # CPU seconds
    evaluate: float  # CPU seconds
    changes: int
    findings: int

    @property
    def ours(self) -> float:
        """kafkatui's CPU in the incident refresh: the snapshot's (every thread) plus diff and evaluation."""
        return self.snapshot_cpu + self.diff + self.evaluate


def one_round(big: int) -> Round:
    sim = Child(big)
    try:
        sim.start()
        tui_app.warm_simulator(sim.bootstrap)
        settings = ConnectionSettings(sim.bootstrap.split(",")[0], timeout=120)
        with KafkaClusterSource(settings, log_dirs="out-of-sync", defer_kafka_python=True) as source:
            # the dashboard's first read, then two refreshes, each evaluated, under the dashboard's GC rules
            # (no automatic full collection, each state frozen once built: `kafkatui.tui.app.GcPacer`)
            saved = gc.get_threshold()
            gc.set_threshold(saved[0], saved[1], NO_AUTO_FULL_GC)
            steady = []
            for _ in range(3):
                steady.append(source.snapshot())
                evaluation.evaluate(steady[-1], None)
                gc.freeze()
            sim.slow_requests()
            sim.shutdown_broker(1)
            t0, c0, threads0 = time.perf_counter(), time.process_time(), tui_app.thread_cpu()
            snap = source.snapshot()
            wall, cpu, threads = (
                time.perf_counter() - t0,
                time.process_time() - c0,
                tui_app.by_thread(threads0, tui_app.thread_cpu()),
            )
            slow = sim.slow_requests()
            t1 = time.thread_time()
            changes = diff(steady[-1], snap)
            t2 = time.thread_time()
            assessment = evaluation.evaluate(snap, None)
            t3 = time.thread_time()
            gc.set_threshold(*saved)
            gc.unfreeze()
        return Round(wall, cpu, threads, slow, t2 - t1, t3 - t2, len(changes), len(assessment.findings))
    finally:
        sim.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--big", type=int, default=5000, help=f"partitions of {tui_app.BIG_TOPIC} (as tui_app.py)")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rounds = []
    for i in range(args.rounds):
        r = one_round(args.big)
        rounds.append(r)
        threads = ", ".join(f"{k} {v:.2f}" for k, v in r.threads.items())
        print(
            f"round {i + 1}: {r.changes} changes, {r.findings} findings; snapshot {r.snapshot_wall:.2f} s wall, "
            f"{r.snapshot_cpu:.2f} s CPU ({threads}); diff {r.diff:.3f} s CPU; evaluate {r.evaluate:.3f} s CPU; "
            f"kafkatui's CPU {r.ours:.2f} s"
        )
        slow = ", ".join(f"{API_NAMES.get(k, k)}@{b} {s:.3f}s" for s, b, k in r.slow)
        print(f"  simulator requests over {SLOW_S * 1000:.0f} ms: {slow or 'none'}")
    print(
        f"median: snapshot wall {statistics.median(r.snapshot_wall for r in rounds):.2f} s; kafkatui's CPU in the "
        f"incident refresh {statistics.median(r.ours for r in rounds):.2f} s (target 1 s)"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
