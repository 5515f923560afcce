"""Soak: the dashboard's feed and recorder on 10,000 partitions while faults come every few seconds.

Opt-in (``make soak``, or ``pytest -m soak``). Lasts ``KAFKATUI_SOAK_SECONDS`` (default 300). The
simulator runs in a child process (see `tests.faults.simproc`) so only the feed, its Kafka clients and
the recorder count. A seeded RNG injects a fault every `FAULT_EVERY` seconds: crash, hang, network
isolation, slow replication or slow answers (under or over the client timeout) on one broker, now and
then an outage (every broker crashes), or restores a broker; with two or more brokers faulty the next
step restores one. The feed refreshes every second, as the dashboard does.

Measured after warm-up (a quarter of the run, at least 20 s, with a crash first, so both Kafka clients,
caches and the allocator have met the faults) and at the end, both times on the repaired, healthy cluster after two
refreshes and a full garbage collection, so like is compared with like:

* Python's allocated blocks (``sys.getallocatedblocks``) may grow by at most `PY_BLOCKS_BOUND`: a
  retained 10,000-partition state is over 100,000 blocks, so keeping even one would fail;
* RSS (``VmRSS``) may grow by at most `RSS_BOUND_MB`: freed memory is not always returned to the system,
  so RSS also keeps the high-water mark of the worst fault met after warm-up (about 10 MB here); a
  retained state is about 20 MB more;
* open file descriptors by at most `FD_BOUND` and threads by at most `THREAD_BOUND`: a Kafka client
  that is replaced but not closed leaves its sockets and threads behind, every time.

It also checks that no refresh raised anything but a cluster error and that the recording replays to
every refresh, with one gap per outage (`tests.faults.harness.check_recording`).
"""

from __future__ import annotations

import gc
import os
import random
import sys
import time
from pathlib import Path

import pytest

from kafkatui.history.record.recorder import Recorder
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource
from kafkatui.tui.feed import Feed
from tests.faults.harness import TimedSource, check_recording, wait
from tests.faults.simproc import SimProcess

BROKERS = 6
TOPICS, PARTITIONS = 100, 100  # 10,000 partitions, RF 3
REFRESH = 1.0
TIMEOUT = 5.0
FAULT_EVERY = 3.0
SEED = 7
RSS_BOUND_MB = 30.0
PY_BLOCKS_BOUND = 20_000
FD_BOUND = 8
THREAD_BOUND = 4


def status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def measure() -> dict[str, float]:
    gc.collect()
    return {
        "rss_mb": status("VmRSS") / 1024,
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": status("Threads"),
        "py_blocks": sys.getallocatedblocks(),
    }


class Injector:
    """Faults from a seeded RNG: inject on a healthy broker, or repair a faulty one."""

    def __init__(self, sim: SimProcess, seed: int) -> None:
        self.sim = sim
        self.rng = random.Random(seed)
        self.faulty: dict[int, str] = {}
        self.log: list[str] = []

    def step(self) -> None:
        healthy = [b for b in range(1, BROKERS + 1) if b not in self.faulty]
        if self.faulty and (len(self.faulty) >= 2 or self.rng.random() < 0.4):
            broker = self.rng.choice(sorted(self.faulty))
            self.sim("restore", broker)
            self.log.append(f"restore {broker} ({self.faulty.pop(broker)})")
            return
        if not self.faulty and self.log and self.rng.random() < 0.1:  # now and then an outage: every broker crashes
            for broker in healthy:
                self.sim("crash", broker)
                self.faulty[broker] = "crash"
            self.log.append("outage: all crash")
            return
        broker = self.rng.choice(healthy)
        # the first fault is a crash: partitions fall out of sync, so the warm-up starts every client
        kind = self.rng.choice(["crash", "hang", "isolate", "slow", "delay_responses"]) if self.log else "crash"
        arg = {"slow": 0.02, "delay_responses": self.rng.choice([0.5, TIMEOUT + 1])}.get(kind)
        self.sim(kind, broker, arg)
        self.faulty[broker] = kind if arg is None else f"{kind} {arg:g}"
        self.log.append(f"{self.faulty[broker]} on {broker}")

    def repair_all(self) -> None:
        for broker in sorted(self.faulty):
            self.sim("restore", broker)
        self.faulty.clear()


@pytest.mark.soak
def test_soak_memory_and_descriptors_stay_flat(tmp_path: Path) -> None:
    duration = float(os.environ.get("KAFKATUI_SOAK_SECONDS", "300"))
    warmup = max(20.0, duration / 4)
    with SimProcess(BROKERS, TOPICS, PARTITIONS) as sim:
        settings = ConnectionSettings(bootstrap=tuple(sim.bootstrap.split(",")), timeout=TIMEOUT)
        source = TimedSource(KafkaClusterSource(settings, log_dirs="out-of-sync"), keep=False)
        feed = Feed(source, bootstrap=sim.bootstrap, recorder=Recorder(tmp_path))
        injector = Injector(sim, SEED)
        internal: list[str] = []
        start = time.monotonic()
        next_fault = start + FAULT_EVERY
        before: dict[str, float] | None = None
        try:

            def healed() -> dict[str, float]:
                """Repair every fault, let the feed see the healthy cluster, then measure: like with like."""
                nonlocal next_fault
                injector.repair_all()
                assert wait(lambda: bool(sim("healthy")), 60, 0.2), "the simulator did not heal"
                for _ in range(2):
                    state = feed.refresh()
                    time.sleep(REFRESH)
                assert state.error is None and state.report is not None
                assert state.report.counts.brokers_up == BROKERS
                assert state.report.counts.partitions == TOPICS * PARTITIONS
                next_fault = time.monotonic() + FAULT_EVERY
                return measure()

            while time.monotonic() - start < duration:
                began = time.monotonic()
                state = feed.refresh()  # never raises for cluster trouble
                if state.error and state.error.startswith("internal error"):
                    internal.append(state.error)
                if before is None and began - start >= warmup:
                    before = healed()
                if time.monotonic() >= next_fault:
                    injector.step()
                    next_fault += FAULT_EVERY
                time.sleep(max(0.0, REFRESH - (time.monotonic() - began)))
            after = healed()
        finally:
            feed.close()
    assert before is not None
    polls = source.polls
    counts = check_recording(tmp_path, polls)
    ok = [p.end - p.start for p in polls if p.ok]
    growth = {k: after[k] - before[k] for k in after}
    print(
        f"\nsoak {duration:.0f}s: {len(polls)} refreshes ({counts['failures']} failed, {counts['gaps']} gaps), "
        f"refresh p50 {sorted(ok)[len(ok) // 2]:.2f}s max {max(ok):.2f}s, {len(injector.log)} faults: "
        f"{'; '.join(injector.log)}\nwarm-up {before}\nend     {after}\ngrowth  {growth}, "
        f"{counts['partition_records']} partition records"
    )
    assert not internal, internal
    assert len(injector.log) >= duration / FAULT_EVERY / 2
    assert growth["py_blocks"] <= PY_BLOCKS_BOUND, growth
    assert growth["rss_mb"] <= RSS_BOUND_MB, growth
    assert growth["fds"] <= FD_BOUND, growth
    assert growth["threads"] <= THREAD_BOUND, growth
