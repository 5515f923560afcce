"""Roll a lab cluster behind a gate while steady producers write, and count what failed.

Shared by the real test of `kafkatui check --wait-restart-safe` (tests/lab/test_rolling_restart.py) and
the comparison of gates (bench/rolling_gates.py). Each broker is restarted (controlled shutdown, then
start, until it is registered again: `LabCluster.restart`) once its gate lets it:

- ``kafkatui``: `kafkatui check --wait-restart-safe N` exits 0 (run as a script would, a new process);
- ``no-urp``: no under-replicated partition in the metadata (what `kafka-topics.sh
  --under-replicated-partitions` prints is empty), as Ansible playbooks and shell loops wait;
- ``broker-answers``: nothing more than the previous broker answering again.

Two producers write to the RF-3 topics meanwhile: the application (acks=all, idempotent, retrying until
its delivery timeout) whose failed deliveries are the measure, and a probe (acks=all, no retries) whose
NOT_ENOUGH_REPLICAS answers show each moment a partition was under its min ISR.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from kafkatui.lab.cluster import LabCluster

GATES = ("kafkatui", "no-urp", "broker-answers")
GATE_TIMEOUT_S = 300.0


@dataclass
class Delivery:
    """What one producer saw."""

    sent: int = 0
    acked: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    max_latency_s: float = 0.0
    slow: int = 0  # acknowledged after more than a second

    def as_dict(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "acked": self.acked,
            "failed": self.failed,
            "errors": dict(self.errors),
            "max_latency_s": round(self.max_latency_s, 3),
            "acked_after_1s": self.slow,
        }


class SteadyProducer:
    """Writes `rate` records a second, spread over `topics`, on a thread, until `stop()`."""

    def __init__(self, bootstrap: str, topics: Sequence[str], rate: float, config: dict[str, Any]) -> None:
        from confluent_kafka import Producer

        self.topics = list(topics)
        self.rate = rate
        self.result = Delivery()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "log_level": 0, **config})
        self._thread = threading.Thread(target=self._run, name="kafkatui-roll-producer", daemon=True)

    def start(self) -> SteadyProducer:
        self._thread.start()
        return self

    def _run(self) -> None:
        from confluent_kafka import KafkaError

        def delivered(started: float) -> Callable[[KafkaError | None, object], None]:
            def cb(err: KafkaError | None, _msg: object) -> None:
                took = time.monotonic() - started
                with self._lock:
                    if err is None:
                        self.result.acked += 1
                        self.result.max_latency_s = max(self.result.max_latency_s, took)
                        self.result.slow += took > 1.0
                    else:
                        self.result.failed += 1
                        self.result.errors[err.name()] += 1

            return cb

        start = time.monotonic()
        i = 0
        while not self._stop.is_set():
            topic = self.topics[i % len(self.topics)]
            try:
                self._producer.produce(topic, value=f"roll {i}".encode(), on_delivery=delivered(time.monotonic()))
                with self._lock:
                    self.result.sent += 1
            except BufferError:
                pass
            i += 1
            self._producer.poll(0)
            time.sleep(max(0.0, start + i / self.rate - time.monotonic()))

    def stop(self, flush_s: float = 60.0) -> Delivery:
        """Stop writing, wait for every outstanding delivery (up to `flush_s`), and return the counts."""
        self._stop.set()
        self._thread.join()
        self._producer.flush(flush_s)
        with self._lock:
            return self.result


def application_producer(bootstrap: str, topics: Sequence[str], rate: float, timeout_ms: int) -> SteadyProducer:
    """acks=all, idempotent, retrying until `timeout_ms` (its delivery timeout)."""
    conf = {"acks": "all", "enable.idempotence": True, "message.timeout.ms": timeout_ms}
    return SteadyProducer(bootstrap, topics, rate, conf)


def probe_producer(bootstrap: str, topics: Sequence[str], rate: float) -> SteadyProducer:
    """acks=all without retries: every answer a broker gives shows, NOT_ENOUGH_REPLICAS among them."""
    conf = {"acks": "all", "enable.idempotence": False, "retries": 0, "message.timeout.ms": 10000}
    return SteadyProducer(bootstrap, topics, rate, conf)


@dataclass
class Step:
    """One broker's turn."""

    broker: int
    gate_s: float  # waiting for the gate before the restart
    restart_s: float  # controlled shutdown and start, until the broker answers again
    gate_exit: int | None = None  # kafkatui's gate: its exit code
    gate_doc: dict[str, Any] | None = None


@dataclass
class Roll:
    """A whole roll under one gate."""

    gate: str
    steps: list[Step]
    seconds: float
    application: Delivery
    probe: Delivery
    stopped: str = ""  # why the roll stopped before its end ("" when every broker was restarted)

    def as_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "seconds": round(self.seconds, 1),
            "steps": [
                {"broker": s.broker, "gate_s": round(s.gate_s, 1), "restart_s": round(s.restart_s, 1)}
                | ({"exit": s.gate_exit} if s.gate_exit is not None else {})
                for s in self.steps
            ],
            "application": self.application.as_dict(),
            "probe": self.probe.as_dict(),
            "stopped": self.stopped,
        }


@contextmanager
def collector_off() -> Iterator[None]:
    """Python's cyclic collector off while clients come and go (collected on this thread at the end).

    librdkafka aborts the whole process ("calling rd_kafka_destroy() from librdkafka owned thread is
    prohibited") when a collection that happens to run on one of its threads (an admin request's answer
    is built there) frees a confluent-kafka client: seen once in a roll of a 3.9 ZooKeeper lab, the test
    process gone with exit 134. `kafkatui check` runs with the collector off for the same reason."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
            gc.collect()


def kafkatui_gate(lab: LabCluster, broker: int, topic_regex: str | None) -> tuple[int, dict[str, Any] | None]:
    """`kafkatui check --wait-restart-safe BROKER --json`, run as a script runs it: exit code and document."""
    cmd = [sys.executable, "-m", "kafkatui.cli", "check", "--bootstrap", lab.bootstrap, "--timeout", "10"]
    cmd += ["--wait-restart-safe", str(broker), "--wait-timeout", f"{GATE_TIMEOUT_S:.0f}s", "--json"]
    if topic_regex:
        cmd += ["--topic", topic_regex]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=GATE_TIMEOUT_S + 120)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = None
    return proc.returncode, doc


def under_replicated(lab: LabCluster) -> int | None:
    """Partitions whose ISR is short of their replicas, as the metadata says (None: no answer)."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": lab.bootstrap, "socket.timeout.ms": 3000, "log_level": 0})
    try:
        md = admin.list_topics(timeout=5)
    except Exception:  # noqa: BLE001 - a broker restarting: asked again
        return None
    return sum(1 for t in md.topics.values() for p in t.partitions.values() if len(p.isrs) < len(p.replicas))


def wait_no_urp(lab: LabCluster, timeout: float = GATE_TIMEOUT_S) -> bool:
    """The playbooks' gate: poll until no partition is under-replicated."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if under_replicated(lab) == 0:
            return True
        time.sleep(0.5)
    return False


def roll(
    lab: LabCluster,
    gate: str,
    order: Sequence[int],
    topics: Sequence[str],
    topic_regex: str | None = None,
    rate: float = 200.0,
    timeout_ms: int = 10000,
    on_safe: Callable[[int], None] | None = None,
) -> Roll:
    """Restart every broker of `order` behind `gate` while the producers write to `topics`.
    `on_safe(broker)` is called when the gate has let the broker go, before it is restarted."""
    if gate not in GATES:
        raise ValueError(f"unknown gate {gate!r}: one of {', '.join(GATES)}")
    with collector_off():
        return _roll(lab, gate, order, topics, topic_regex, rate, timeout_ms, on_safe)


def _roll(
    lab: LabCluster,
    gate: str,
    order: Sequence[int],
    topics: Sequence[str],
    topic_regex: str | None,
    rate: float,
    timeout_ms: int,
    on_safe: Callable[[int], None] | None,
) -> Roll:
    app = application_producer(lab.bootstrap, topics, rate, timeout_ms).start()
    probe = probe_producer(lab.bootstrap, topics, rate / 4).start()
    steps: list[Step] = []
    stopped = ""
    start = time.monotonic()
    try:
        time.sleep(2.0)  # the producers are writing before the first restart
        for broker in order:
            t0 = time.monotonic()
            code: int | None = None
            doc = None
            if gate == "kafkatui":
                code, doc = kafkatui_gate(lab, broker, topic_regex)
                if code != 0:
                    steps.append(Step(broker, time.monotonic() - t0, 0.0, code, doc))
                    stopped = f"the gate for broker {broker} exited {code}"
                    break
            elif gate == "no-urp" and not wait_no_urp(lab):
                stopped = f"under-replicated partitions remained for {GATE_TIMEOUT_S:.0f} s before broker {broker}"
                break
            waited = time.monotonic() - t0
            if on_safe is not None:
                on_safe(broker)
            t1 = time.monotonic()
            lab.restart(str(broker))
            steps.append(Step(broker, waited, time.monotonic() - t1, code, doc))
        # the last broker catches up before the producers stop, whatever the gate
        wait_no_urp(lab)
        time.sleep(1.0)
    finally:
        app_result = app.stop()
        probe_result = probe.stop()
    return Roll(gate, steps, time.monotonic() - start, app_result, probe_result, stopped)
