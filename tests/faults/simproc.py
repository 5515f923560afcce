"""A simulated cluster in a child process, driven over stdin/stdout (one JSON object per line).

The soak test measures the memory and file descriptors of the process that runs the dashboard's
feed and recorder; the simulator (its event log alone grows to 100,000 events) lives apart so it
does not count, and does not compete for the GIL.

Run as ``python -m tests.faults.simproc BROKERS TOPICS PARTITIONS``; it prints
``{"bootstrap": "..."}`` once ready, then answers each command line, e.g. ``{"cmd": "crash", "broker": 2}``
or ``{"cmd": "delay_responses", "broker": 2, "arg": 1.5}``, with ``{"ok": true, "result": ...}``.
``{"cmd": "healthy"}`` tells whether every broker is unfenced and every ISR full. End of input stops it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import Any

from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.runner import SimRunner

ROOT = Path(__file__).resolve().parents[2]
FAST_CONFIGS = {"broker.session.timeout.ms": "1500", "replica.lag.time.max.ms": "2000", "min.insync.replicas": "2"}
FAULTS = ("crash", "restore", "hang", "isolate", "slow", "delay_responses")


def healthy(c: SimCluster) -> bool:
    return all(not b.fenced for b in c.brokers.values()) and all(
        p.leader != -1 and len(p.isr) == len(p.replicas) for p in c.partitions()
    )


def serve(brokers: int, topics: int, partitions: int) -> None:
    with SimRunner(brokers=brokers, static_configs=FAST_CONFIGS) as sim:

        def create(c: SimCluster) -> None:
            for i in range(topics):
                c.create_topic(f"soak-{i:04d}", partitions, 3)

        sim.call(create, timeout=300)
        print(json.dumps({"bootstrap": sim.bootstrap}), flush=True)
        for line in sys.stdin:
            req = json.loads(line)
            cmd = req["cmd"]
            try:
                if cmd == "healthy":
                    result: Any = sim.call(healthy)
                elif cmd in FAULTS:
                    args = [req["broker"]] + ([req["arg"]] if "arg" in req else [])
                    result = getattr(sim, cmd)(*args)
                else:
                    raise ValueError(f"unknown command {cmd!r}")
                print(json.dumps({"ok": True, "result": result}), flush=True)
            except Exception as exc:  # answered, so the test fails with the reason
                print(json.dumps({"ok": False, "error": repr(exc)}), flush=True)


class SimProcess:
    """Start `serve` in a child process; a context manager that always stops it."""

    def __init__(self, brokers: int, topics: int, partitions: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.faults.simproc", str(brokers), str(topics), str(partitions)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.close()
            raise RuntimeError("the simulator process did not start")
        self.bootstrap: str = json.loads(line)["bootstrap"]

    def __call__(self, cmd: str, broker: int | None = None, arg: float | None = None) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        req: dict[str, Any] = {"cmd": cmd}
        if broker is not None:
            req["broker"] = broker
        if arg is not None:
            req["arg"] = arg
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if not reply["ok"]:
            raise RuntimeError(reply["error"])
        return reply["result"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> SimProcess:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


if __name__ == "__main__":
    serve(*(int(a) for a in sys.argv[1:4]))
