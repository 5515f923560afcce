"""The clusters and masking behind the `check --json` golden test (tests/integration/test_check_golden.py).

Two states of the bench's cluster (bench/sim_scale.py `build`: 30 brokers on 3 racks, 2,000 topics x 50
partitions, RF 3 = 100,000 partitions), on a manual clock so every run sees the same state:

- ``healthy``: exactly the bench's cluster, as `bench/check_vs_kcat.py` measures it;
- ``incident``: the same 2,000 x 50 topics with varied configs (minISR 2, minISR = RF, minISR > RF,
  unclean election, RF 1 next to production topics, a dev topic, a single-rack topic, the internal
  offsets topic), then three brokers stopped (offline, under/at minISR, under-replicated partitions and
  absent brokers), producers on some topics with one broker's replication stopped (a live broker missing
  from ISRs, byte lag from the log dirs), and leaders moved off their preferred replica. Its simulator
  answers as Kafka 3.6, whose brokers do not cap min ISR at RF.

`masked(doc)` blanks what changes from run to run: the time the snapshot was taken, how long it took,
the cluster id (random per simulator start), the simulator's ports (in `bootstrap`, broker ports, and
every string naming host:port).

Regenerate the fixtures (only when the output is meant to change): ``python -m tests.integration.check_golden``.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

from kafkatui.sim.clock import VirtualClock
from kafkatui.sim.cluster import SimCluster

HERE = Path(__file__).resolve().parent / "golden"
RACKS = [f"rack-{i}" for i in range(3)]
START_MS = 1_764_000_000_000  # 2025-11-24, any fixed instant
STATES = ("healthy", "incident")
_ADDR = re.compile(r"127\.0\.0\.1:\d+")


def fixture_path(state: str) -> Path:
    return HERE / f"check_{state}.json.gz"


def bench_cluster() -> SimCluster:
    """bench/sim_scale.py's `build()` on a manual clock."""
    cluster = SimCluster(30, racks=RACKS, clock=VirtualClock(manual=True, start_ms=START_MS))
    for i in range(2000):
        cluster.create_topic(f"topic-{i:04d}", 50, 3)
    return cluster


def incident_cluster() -> SimCluster:
    """The bench's shape with varied configs, three brokers down, a stalled follower and moved leaders."""
    cluster = SimCluster(
        30,
        racks=RACKS,
        clock=VirtualClock(manual=True, start_ms=START_MS),
        static_configs={"replica.lag.time.max.ms": "2000"},
        kafka_version="3.6",  # brokers before 3.7: min ISR above RF blocks writes (the configs below have some)
    )
    cluster.create_topic("__consumer_offsets", 50, 3, configs={"min.insync.replicas": "2"})
    for i in range(2000):
        configs: dict[str, str] = {}
        rf = 3
        if i % 5 == 0:
            configs["min.insync.replicas"] = "2"
        elif i % 5 == 1:
            configs["min.insync.replicas"] = "3"
        if i == 7:
            configs["min.insync.replicas"] = "4"
        if i % 97 == 3:
            configs["unclean.leader.election.enable"] = "true"
        if i % 250 == 11:
            rf = 1
        cluster.create_topic(f"topic-{i:04d}", 50, rf, configs=configs)
    cluster.create_topic("scratch-test", 4, 1)
    # every replica on rack-0 (brokers 1, 4, 7, ...)
    cluster.create_topic(
        "one-rack",
        6,
        assignment={p: [1 + 3 * p, 4 + 3 * p, 7 + 3 * p] for p in range(6)},
        configs={"min.insync.replicas": "2"},
    )
    # producers, then broker 12 stops replicating: it drops out of the ISRs of the loaded topics it follows
    for i in range(0, 60, 3):
        cluster.set_load(f"topic-{i:04d}", 500.0)
    cluster.run_for(1_000)
    cluster.slow(12, 0.0)
    cluster.run_for(3_000)
    for i in range(0, 60, 3):
        cluster.set_load(f"topic-{i:04d}", 0.0)
    # three brokers of one rack sequence go: partitions on all three are offline
    for b in (7, 8, 9):
        cluster.shutdown(b)
    # leaders moved off their preferred replica on a few topics
    for i in range(100, 140):
        t = cluster.topic(f"topic-{i:04d}")
        for p in t.partitions[:10]:
            others = [r for r in p.isr if r != p.leader]
            if p.leader >= 0 and others:
                cluster.move_leader(t.name, p.index, others[0])
    cluster.run_for(1_000)
    return cluster


def build(state: str) -> SimCluster:
    return bench_cluster() if state == "healthy" else incident_cluster()


def _mask_strings(value: Any) -> Any:
    if isinstance(value, str):
        return _ADDR.sub("127.0.0.1:PORT", value)
    if isinstance(value, list):
        return [_mask_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: _mask_strings(v) for k, v in value.items()}
    return value


def masked(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` without what differs between runs of the same cluster state."""
    out: dict[str, Any] = _mask_strings(doc)
    out["cluster"]["taken_at"] = "TAKEN_AT"
    out["cluster"]["fetch_seconds"] = "FETCH_SECONDS"
    out["cluster"]["id"] = "CLUSTER_ID"  # a simulated cluster gets a new random id at every start
    for b in out["brokers"]:
        if b["port"] is not None:
            b["port"] = "PORT"
    return out


def differences(expected: Any, actual: Any, path: str = "$", limit: int = 20) -> list[str]:
    """Field-by-field differences (JSON paths), at most `limit`."""
    out: list[str] = []

    def walk(e: Any, a: Any, p: str) -> None:
        if len(out) >= limit:
            return
        if isinstance(e, dict) and isinstance(a, dict):
            for k in sorted(set(e) | set(a), key=str):
                if k not in a:
                    out.append(f"{p}.{k}: missing (expected {e[k]!r:.120})")
                elif k not in e:
                    out.append(f"{p}.{k}: unexpected {a[k]!r:.120}")
                else:
                    walk(e[k], a[k], f"{p}.{k}")
        elif isinstance(e, list) and isinstance(a, list):
            if len(e) != len(a):
                out.append(f"{p}: {len(a)} items, expected {len(e)}")
            for i, (x, y) in enumerate(zip(e, a, strict=False)):
                walk(x, y, f"{p}[{i}]")
        elif e != a or type(e) is not type(a):
            out.append(f"{p}: {a!r:.160} != expected {e!r:.160}")

    walk(expected, actual, path)
    return out


def load(state: str) -> dict[str, Any]:
    with gzip.open(fixture_path(state), "rt", encoding="utf-8") as f:
        doc: dict[str, Any] = json.load(f)
        return doc


def check_doc(state: str) -> tuple[int, dict[str, Any]]:
    """(exit code, `kafkatui check --json` document) of the cluster `state`, served on loopback, run as a child
    process as a user runs it."""
    import subprocess
    import sys

    from kafkatui.sim.runner import SimRunner

    with SimRunner(build(state)) as sim:
        boot = sim.bootstrap.split(",")[0]
        kafkatui = str(Path(sys.executable).parent / "kafkatui")
        proc = subprocess.run(
            [kafkatui, "check", "--json", "--bootstrap", boot, "--timeout", "120"],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.stderr == "", proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for state in STATES:
        code, doc = check_doc(state)
        doc = masked(doc)
        doc["exit_code_of_process"] = code
        with gzip.open(fixture_path(state), "wt", encoding="utf-8", compresslevel=9) as f:
            json.dump(doc, f, indent=1, sort_keys=False)
            f.write("\n")
        print(state, code, doc["summary"], len(doc["findings"]), "findings")


if __name__ == "__main__":
    main()
