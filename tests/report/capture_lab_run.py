"""Capture a real lab run for the postmortem tests: `python -m tests.report.capture_lab_run DEST [--version 4.4]`.

What an on-call night looks like, on a real Kafka lab (3 brokers, the demo topics) with every step
taken through kafkatui's own commands, as a user would:

1. `kafkatui record --interval 1` records the cluster; `lab ctl load orders` writes with acks=all.
2. Broker 2 crashes (SIGKILL), then broker 3: `orders` (RF 3, minISR 2) is left with one replica in its
   ISR and refuses acks=all writes; `clickstream` and `audit-log` partitions on 2 and 3 go offline.
3. The engineer lowers `orders`' min.insync.replicas to 1 with `kafkatui alter --write` (a stopgap:
   writes resume), brokers 2 and 3 come back, and `kafkatui alter --revert-last --write` sets it back.

DEST gets ``history/`` (the recording), ``audit.jsonl`` (kafkatui's audit log of the two changes) and
``run.json`` (the lab's version, the day, and when each step was taken, in epoch seconds). The lab's
JVMs are stopped by the lab itself (SIGINT to `kafkatui lab`), which stops them by pid.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.procs import sigint_as_at_a_terminal

ROOT = Path(__file__).resolve().parents[2]
KAFKATUI = [sys.executable, "-m", "kafkatui.cli"]


def _wait(what: str, ok: Callable[[], bool], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ok():
            return
        time.sleep(0.5)
    raise SystemExit(f"capture: timed out waiting for {what}")


def _run(args: list[str], env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run(KAFKATUI + args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"capture: {' '.join(args[:3])} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return done.stdout


def _check(bootstrap: str, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        KAFKATUI + ["check", "-b", bootstrap, "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    doc: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return doc


def _spawn(args: list[str], env: dict[str, str], stderr: int = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """`kafkatui ARGS` in the background; Ctrl-C (SIGINT) stops it as at a terminal."""
    return subprocess.Popen(
        KAFKATUI + args,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
        preexec_fn=sigint_as_at_a_terminal,
    )


def _stop(proc: subprocess.Popen[str], timeout: float = 90) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def capture(dest: Path, version: str) -> dict[str, Any]:
    dest.mkdir(parents=True, exist_ok=True)
    labdir = Path(tempfile.mkdtemp(prefix="kafkatui-capture-lab-"))
    env = dict(os.environ, KAFKATUI_AUDIT_LOG=str(dest / "audit.jsonl"), PYTHONPATH=str(ROOT))
    steps: dict[str, float] = {}
    lab = _spawn(["lab", "--version", version, "--dir", str(labdir)], env)
    procs: list[subprocess.Popen[str]] = []
    try:
        _wait(
            "the lab", lambda: (labdir / "lab.json").exists() and "bootstrap" in (labdir / "lab.json").read_text(), 300
        )
        info = json.loads((labdir / "lab.json").read_text())
        bootstrap = str(info["bootstrap"])
        ctl = ["lab", "ctl", "--dir", str(labdir)]
        _wait("the demo topics", lambda: len(_check(bootstrap, env).get("topics", [])) >= 4, 180)
        record = ["record", "-b", bootstrap, "--dir", str(dest / "history"), "--interval", "1", "--timeout", "5"]
        rec = _spawn(record, env, stderr=subprocess.PIPE)
        procs += [rec, _spawn([*ctl, "load", "orders"], env)]
        steps["record"] = time.time()
        time.sleep(40)
        steps["crash 2"] = time.time()
        _run(ctl + ["crash", "2"], env)
        time.sleep(45)
        steps["crash 3"] = time.time()
        _run(ctl + ["crash", "3"], env)
        _wait(
            "orders under min ISR",
            lambda: _check(bootstrap, env).get("summary", {}).get("under_min_isr", 0) > 0,
            120,
        )
        time.sleep(60)
        steps["alter"] = time.time()
        _run(["alter", "-b", bootstrap, "--topic", "orders", "--set", "min.insync.replicas=1", "--write", "--yes"], env)
        time.sleep(60)
        steps["restore"] = time.time()
        _run(ctl + ["restore", "2"], env)
        _run(ctl + ["restore", "3"], env)
        _wait(
            "every ISR whole",
            lambda: (
                (s := _check(bootstrap, env).get("summary", {})).get("brokers_up") == 3
                and s.get("under_replicated") == 0
                and s.get("offline") == 0
            ),
            240,
        )
        steps["revert"] = time.time()
        _run(["alter", "-b", bootstrap, "--revert-last", "--write", "--yes"], env)
        time.sleep(30)
        steps["stop"] = time.time()
    finally:
        for p in reversed(procs):
            _stop(p, 30)
        _stop(lab)
    err = rec.stderr.read() if rec.stderr else ""
    if "Traceback" in err:
        raise SystemExit(f"capture: the recorder failed: {err[-400:]}")
    run = {"version": info.get("version", version), "day": time.strftime("%Y-%m-%d", time.gmtime(steps["record"]))}
    run["steps"] = steps
    (dest / "run.json").write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dest", type=Path)
    p.add_argument("--version", default="4.4")
    ns = p.parse_args()
    print(json.dumps(capture(ns.dest, ns.version), indent=1))


if __name__ == "__main__":
    main()
