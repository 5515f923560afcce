"""Three gates for a rolling restart, compared on a real `kafkatui lab` cluster: how many acks=all writes
fail while every broker is restarted once behind each.

- kafkatui: `kafkatui check --wait-restart-safe N` exits 0;
- no-urp: no under-replicated partition (what Ansible playbooks and shell loops wait for);
- broker-answers: the previous broker answers again, nothing more.

Topics: RF 3 / min ISR 2 (BENCH_ROLL_PARTITIONS partitions over two topics) written by an acks=all
idempotent producer (delivery timeout BENCH_ROLL_TIMEOUT_MS) at BENCH_ROLL_RATE records a second and by a
probe without retries; plus an RF 2 / min ISR 2 topic the roll leaves out (--topic), which the plan names.
The same roll code runs in tests/lab/test_rolling_restart.py (kafkatui.lab.roll). BENCH_ROLL_ROUNDS rolls
per gate, the gates taking turns; BENCH_KAFKA picks the Kafka line (default 4.1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkatui.lab.cluster import LabCluster  # noqa: E402
from kafkatui.lab.roll import GATES, Roll, roll, wait_no_urp  # noqa: E402
from kafkatui.lab.versions import release  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROLL_ROUNDS", "1"))
RATE = float(os.environ.get("BENCH_ROLL_RATE", "400"))
TIMEOUT_MS = int(os.environ.get("BENCH_ROLL_TIMEOUT_MS", "10000"))
PARTITIONS = int(os.environ.get("BENCH_ROLL_PARTITIONS", "24"))
ROLLED = ("roll-orders", "roll-payments")
UNSAFE = "roll-ledger"
EXCEPT_UNSAFE = f"^(?!{UNSAFE}$)"


def create_topics(lab: LabCluster) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": lab.bootstrap})
    new = [NewTopic(t, PARTITIONS // 2, 3, config={"min.insync.replicas": "2"}) for t in ROLLED]
    new.append(NewTopic(UNSAFE, 2, 2, config={"min.insync.replicas": "2"}))
    for f in admin.create_topics(new, operation_timeout=30).values():
        f.result(60)
    time.sleep(2)


def plan_order(lab: LabCluster) -> list[int]:
    cmd = [sys.executable, "-m", "kafkatui.cli", "check", "--bootstrap", lab.bootstrap, "--roll-plan", "--json"]
    whole = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    blockers = [b for b in json.loads(whole.stdout)["blockers"] if b["kind"] == "cannot"]
    print(f"roll plan (exit {whole.returncode}) names: {[b['topics'] for b in blockers]}")
    left_out = subprocess.run([*cmd, "--topic", EXCEPT_UNSAFE], capture_output=True, text=True, timeout=120)
    return [s["broker"] for s in json.loads(left_out.stdout)["steps"]]


def line(r: Roll) -> str:
    steps = ", ".join(f"b{s.broker}: gate {s.gate_s:.1f}s restart {s.restart_s:.1f}s" for s in r.steps)
    a, p = r.application, r.probe
    return (
        f"{r.gate:<15} failed {a.failed:>4} of {a.sent:>6} (errors {dict(a.errors)}), max latency "
        f"{a.max_latency_s:.1f}s, acked after 1s {a.slow}; probe NOT_ENOUGH_REPLICAS "
        f"{p.errors.get('NOT_ENOUGH_REPLICAS', 0) + p.errors.get('NOT_ENOUGH_REPLICAS_AFTER_APPEND', 0)} "
        f"(all probe errors {dict(p.errors)}); roll {r.seconds:.0f}s [{steps}]"
        + (f" STOPPED: {r.stopped}" if r.stopped else "")
    )


def main() -> None:
    rel = release(os.environ.get("BENCH_KAFKA", "4.1"))
    root = Path(tempfile.mkdtemp(prefix="kafkatui-bench-roll-"))
    lab = LabCluster(root, rel, brokers=3)
    t = time.perf_counter()
    lab.prepare()
    lab.start()
    print(f"lab: Kafka {rel.version}, 3 brokers, ready in {time.perf_counter() - t:.1f} s; load {os.getloadavg()}")
    results: list[Roll] = []
    try:
        create_topics(lab)
        order = plan_order(lab)
        print(f"order: {order}; rate {RATE:g}/s, delivery timeout {TIMEOUT_MS} ms, {PARTITIONS} partitions")
        for i in range(ROUNDS):
            for gate in GATES:
                wait_no_urp(lab)
                r = roll(lab, gate, order, ROLLED, EXCEPT_UNSAFE, rate=RATE, timeout_ms=TIMEOUT_MS)
                results.append(r)
                print(f"round {i + 1} {line(r)}; load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        lab.stop()
    out = root / "rolling_gates.json"
    out.write_text(json.dumps([r.as_dict() for r in results], indent=1), encoding="utf-8")
    print(f"figures: {out}")


if __name__ == "__main__":
    main()
