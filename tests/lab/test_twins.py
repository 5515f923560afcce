"""Twin tests: one scenario, run on the simulator and on real Kafka, must give the same verdicts.

A scenario is a list of steps (create a topic, crash / shut down / hang / restore a broker,
produce with some acks, keep a producer writing, wait until settled, ask kafkatui, ask the cluster
an admin question). `run` applies it to a `Twin`: the simulator (`SimRunner`, configured with the
lab's own broker settings and timings) or real Kafka (`LabCluster`). Each step that looks records an
observation: `kafkatui check --json` with the volatile fields masked (timestamps, ports, cluster
id, controller id), the class of every partition as kafkatui sees it once the cluster settled,
and the error names real clients get. The two lists of observations must be equal.

Divergences these tests found on Kafka 4.1.1, and what became of each:

- A follower of an idle partition is never shrunk out of the ISR by its leader (its log end equals
  the leader's: Replica.isCaughtUp); only the controller's fencing removes it. The simulator shrank
  it after replica.lag.time.max.ms. Fixed in the simulator
  (`test_crashed_brokers_are_fenced_out_of_idle_isrs`: no leader shrank; the hung follower of a
  written partition, `test_hung_follower_under_load_is_shrunk_by_its_leader`, is shrunk by its leader).
- With ELR (on by default in 4.1) the controller fences even the last ISR member into the ELR: an
  offline RF-1 partition has an empty ISR, so kafkatui counts its broker out of the ISR. The
  simulator kept the member in the ISR. Fixed in the simulator (`test_offline_rf1_partition`).
- Enabling ELR makes the controller write a cluster-level min.insync.replicas from its *own*
  server.properties: on the lab (whose controller sets none) every topic without an override has
  min ISR 1 from DYNAMIC_DEFAULT_BROKER_CONFIG, not the brokers' static 2. Fixed in the simulator
  (`SimCluster(elr=True, controller_configs=...)`); the lab's config is the lead's to decide
  (`test_configs_overrides_defaults_and_validation`).
- DescribeConfigs of a topic's retention.ms listed a DEFAULT_CONFIG synonym log.retention.ms; Kafka's
  default of that key is null, so it lists none; and brokers have a read-only log.retention.hours.
  Fixed in the simulator (same test).
- kafkatui's kafka-python client bootstrapped from one configured server chosen at random and gave
  it the whole timeout: with a hung broker in the bootstrap list, one snapshot in three lost its log
  dirs and ELR (partial, after 10 s). Fixed in kafkatui: it bootstraps from the brokers the metadata
  just named (`test_hung_follower_under_load_is_shrunk_by_its_leader`: not partial on either).
- KRaft Metadata names a random live broker as controller (the real controller is node 0, not a
  broker) and kafkatui labelled that broker "ctrl" (and would record a controller change at almost
  every refresh). Fixed in kafkatui: on KRaft (process.roles in the brokers' configs) the controller
  is the single quorum voter, else unknown (`test_no_broker_is_labelled_controller_on_a_kraft_cluster`).
  Kept on purpose: the simulator is a combined-mode cluster without process.roles whose Metadata
  names its real controller, broker 1; the controller fields are masked in the comparisons.
- Checked and already alike: an ISR shrink does not bump the leader epoch (metadata >= 3.6); SIGTERM
  is a controlled shutdown (leaders move first); acks=all under min ISR gets NOT_ENOUGH_REPLICAS and
  acks=1 goes on; validation errors of IncrementalAlterConfigs (INVALID_CONFIG for
  min.insync.replicas=0 or "abc", an unknown key, retention.ms=-5, cleanup.policy=bogus); ElectLeaders
  answers (ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
  UNKNOWN_TOPIC_OR_PARTITION); a reassignment to an unknown broker; a producer to an offline partition.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.source import KafkaClusterSource, controller_of
from kafkatui.lab import config as labconfig
from kafkatui.lab.cluster import LabCluster
from kafkatui.lab.versions import release
from kafkatui.model.health import assess
from kafkatui.model.snapshot import ConfigValue
from kafkatui.sim.events import EventKind
from kafkatui.sim.kafkaversion import LINES as SIM_LINES
from kafkatui.sim.runner import SimRunner
from tests.lab.support import elr_on, kafkatui, lab_fixture, lab_lines, wait_for

# --------------------------------------------------------------------------- the twins
SIM_KEYS = (
    "replica.lag.time.max.ms",
    "broker.session.timeout.ms",
    "min.insync.replicas",
    "default.replication.factor",
    "num.partitions",
    "auto.leader.rebalance.enable",
    "auto.create.topics.enable",
    "offsets.topic.replication.factor",
    "transaction.state.log.replication.factor",
    "transaction.state.log.min.isr",
)
"""The lab broker settings the simulator models; the simulator twin gets the lab's own values."""


def lab_settings(node_id: int) -> dict[str, str]:
    """A lab node's server.properties (3 brokers; node 0 is the controller), restricted to what the
    simulator models."""
    text = labconfig.server_properties(labconfig.NodeSpec(node_id, 1), 2, 3, Path("/nonexistent"))
    props = dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {k: props[k] for k in SIM_KEYS if k in props}


class Twin(Protocol):
    """What a scenario needs of a cluster: where it is, and faults by broker id."""

    kind: str
    bootstrap: str

    def crash(self, broker: int) -> None: ...
    def shutdown(self, broker: int) -> None: ...
    def hang(self, broker: int) -> None: ...
    def restore(self, broker: int) -> None: ...
    def mark(self) -> None: ...
    def leader_shrinks(self, topic: str) -> list[tuple[int, list[int]]]: ...
    def answering_bootstrap(self) -> str: ...
    def answering_brokers(self) -> list[str]: ...


class SimTwin:
    """The simulator, with the lab's broker settings and ELR as the Kafka line has it."""

    kind = "sim"

    def __init__(self, version: str) -> None:
        line = ".".join(version.split(".")[:2])
        self.answers_as_line = line in SIM_LINES  # else it answers as its own newest line (4.3 today)
        self.runner = SimRunner(
            brokers=3,
            static_configs=lab_settings(1),
            elr=elr_on(release(version)),
            controller_configs=lab_settings(labconfig.CONTROLLER_ID),
            kafka_version=line if line in SIM_LINES else None,  # answer and behave as the lab's line
        )
        self.runner.start()
        self.bootstrap = self.runner.bootstrap

    def crash(self, broker: int) -> None:
        self.runner.crash(broker)

    def shutdown(self, broker: int) -> None:
        self.runner.shutdown(broker)

    def hang(self, broker: int) -> None:
        self.runner.hang(broker)

    def restore(self, broker: int) -> None:
        self.runner.restore(broker)

    def answering_bootstrap(self) -> str:
        return self.bootstrap

    def answering_brokers(self) -> list[str]:
        return [self.bootstrap]  # one cluster state: every broker of the simulator sees it at once

    _since_ms = 0  # the simulator's clock at the last `mark`

    def mark(self) -> None:
        """From now on: `leader_shrinks` counts only what happens after this (a fault's own effects)."""
        self._since_ms = self.runner.call(lambda c: c.now_ms)

    def leader_shrinks(self, topic: str) -> list[tuple[int, list[int]]]:
        """Each time since the last `mark` a leader (not the controller's fencing) took followers out of one of
        `topic`'s ISRs: (partition, the followers taken out)."""
        events = [e for e in self.runner.call(lambda c: c.events.snapshot()) if e.ts_ms >= self._since_ms]
        shrinks = {
            (int(e.partition or 0), tuple(sorted(int(r) for r in e.detail["out"])))  # type: ignore[union-attr]
            for e in events
            if e.kind == EventKind.ISR_SHRINK and e.topic == topic and e.detail.get("reason") == "lag"
        }
        return sorted((p, list(out)) for p, out in shrinks)

    def stop(self) -> None:
        self.runner.stop()


class LabTwin:
    """Real Kafka: faults are signals to the broker's JVM."""

    kind = "lab"

    def __init__(self, lab: LabCluster) -> None:
        self.lab = lab
        self.bootstrap = lab.bootstrap
        self._offsets: dict[int, int] = {}  # server.log sizes at the last `mark`

    def crash(self, broker: int) -> None:
        self.lab.crash(str(broker))

    def shutdown(self, broker: int) -> None:
        self.lab.shutdown(str(broker))

    def hang(self, broker: int) -> None:
        self.lab.hang(str(broker))

    def restore(self, broker: int) -> None:
        self.lab.restore(str(broker), wait=False)  # JVMs start side by side; a Settle step waits

    def answering_bootstrap(self) -> str:
        """The brokers not hung (SIGSTOP), for the test's own metadata polling."""
        live = [n.spec.node_id for n in self.lab.broker_nodes if not n.hung]
        return self.lab.bootstrap_for(live) or self.bootstrap

    def answering_brokers(self) -> list[str]:
        """Each running broker on its own: a Settle holds once every one of them has the new metadata."""
        return [self.lab.bootstrap_for([n.spec.node_id]) for n in self.lab.broker_nodes if n.state() == "running"]

    def mark(self) -> None:
        """From now on: `leader_shrinks` reads only what the brokers log after this. A shrink before a fault is
        not the fault's: at load 11 (a fresh-clone run beside a busy loop) a follower starved of CPU for over
        replica.lag.time.max.ms (3 s in the lab) during the writes before a crash was shrunk, on 3.9."""
        self._offsets = {
            node.spec.node_id: (node.logs / "server.log").stat().st_size if (node.logs / "server.log").exists() else 0
            for node in self.lab.broker_nodes
        }

    def leader_shrinks(self, topic: str) -> list[tuple[int, list[int]]]:
        """Each "Shrinking ISR" line of `topic` in the brokers' server.log since the last `mark` (a fencing logs
        none): (partition, the followers its "Out of sync replicas" names)."""
        line = re.compile(
            rf"\[Partition {re.escape(topic)}-(\d+) broker=\d+\] Shrinking ISR .*Out of sync replicas: (.*)"
        )
        out: list[tuple[int, tuple[int, ...]]] = []
        for node in self.lab.broker_nodes:
            log = node.logs / "server.log"
            text = ""
            with contextlib.suppress(FileNotFoundError), log.open("rb") as f:
                start = self._offsets.get(node.spec.node_id, 0)
                f.seek(start if start <= log.stat().st_size else 0)  # rolled over (hourly) since the mark
                text = f.read().decode("utf-8", errors="replace")
            for m in line.finditer(text):
                out.append((int(m.group(1)), tuple(sorted(int(b) for b in re.findall(r"brokerId: (\d+)", m.group(2))))))
        # one shrink, once: a leader whose AlterPartition did not go through (the controller fenced the
        # follower meanwhile, or answered late under load) logs the same "Shrinking ISR" again when it
        # retries (a fresh-clone run at load 5-9 logged two for one hung follower on 4.4)
        return sorted((p, list(followers)) for p, followers in set(out))


# --------------------------------------------------------------------------- the steps
@dataclass(frozen=True)
class Create:
    topic: str
    assignment: list[list[int]]
    configs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Fault:
    verb: str  # crash | shutdown | hang | restore
    broker: int


@dataclass(frozen=True)
class Produce:
    """Produce `n` records with retries=0 and record what the producer got (acked count, error names)."""

    topic: str
    acks: str
    n: int = 10
    partition: int | None = None
    timeout_ms: int = 10000


@dataclass(frozen=True)
class Load:
    """Start (or stop, with on=False) a real producer writing to `topic` continuously (acks=1). Starting
    returns once the leader has acknowledged `flowing` records: a leader shrinks a stopped follower only
    while its partition takes writes (Kafka's `isCaughtUp`), so a fault before the first write lands meets
    an idle partition."""

    topic: str
    on: bool = True
    flowing: int = 500
    timeout: float = 120.0


@dataclass(frozen=True)
class Settle:
    """Wait until `cond(metadata)` holds (metadata: brokers and each partition's leader and ISR)."""

    what: str
    cond: Callable[[dict[str, Any]], bool]
    timeout: float = 120.0  # generous: a condition, not a clock (a loaded 2-core machine is slow)


@dataclass(frozen=True)
class Check:
    """`kafkatui check --json` on `topics` (regex), masked, plus each partition's class."""

    label: str
    topics: Sequence[str]


@dataclass(frozen=True)
class Ask:
    """An admin question; `fn(bootstrap)` returns a JSON-able answer (error names, config sources)."""

    label: str
    fn: Callable[[str], Any]


@dataclass(frozen=True)
class ShrinkLogged:
    """Wait until a leader has logged that it shrank `topic`'s ISR (server.log's "Shrinking ISR"; the
    simulator's event), however long a loaded machine makes it take."""

    topic: str
    timeout: float = 120.0


@dataclass(frozen=True)
class LeaderShrank:
    """Record where a leader shrank `topic`'s ISRs (rather than the controller fencing a broker)."""

    topic: str


Step = Create | Fault | Produce | Load | Settle | Check | Ask | ShrinkLogged | LeaderShrank


def run(twin: Twin, steps: Sequence[Step]) -> list[tuple[str, Any]]:
    """Apply `steps` to `twin`; the observations, in order. Loads are always stopped."""
    seen: list[tuple[str, Any]] = []
    loads: dict[str, Loader] = {}
    try:
        for step in steps:
            if isinstance(step, Create):
                create(twin.bootstrap, step.topic, step.assignment, step.configs)
            elif isinstance(step, Fault):
                twin.mark()  # a LeaderShrank step after it asks about this fault's effects alone
                getattr(twin, step.verb)(step.broker)
            elif isinstance(step, Produce):
                seen.append((f"produce {step.topic} acks={step.acks}", produce(twin.bootstrap, step)))
            elif isinstance(step, Load):
                if step.on:
                    loads[step.topic] = Loader(twin.bootstrap, step.topic)  # stopped in `finally` however it goes
                    wait_flowing(twin, step, loads[step.topic])
                elif step.topic in loads:
                    loads.pop(step.topic).stop()
            elif isinstance(step, Settle):
                settle(twin, step)
            elif isinstance(step, Check):
                seen.append((f"check {step.label}", check(twin.bootstrap, step.topics)))
            elif isinstance(step, Ask):
                seen.append((step.label, step.fn(twin.bootstrap)))
            elif isinstance(step, ShrinkLogged):
                wait_shrink_logged(twin, step)
            elif isinstance(step, LeaderShrank):
                seen.append((f"leader shrinks of {step.topic}", twin.leader_shrinks(step.topic)))
    finally:
        for loader in loads.values():
            loader.stop()
    return seen


def wait_flowing(twin: Twin, step: Load, loader: Loader) -> None:
    """Until the leader has acknowledged the loader's first `step.flowing` records."""
    what = f"{twin.kind}: {step.flowing} writes to {step.topic} acknowledged"
    wait_for(what, lambda: loader.acked >= step.flowing, step.timeout)


def wait_shrink_logged(twin: Twin, step: ShrinkLogged) -> None:
    wait_for(f"{twin.kind}: a leader's shrink of {step.topic}", lambda: twin.leader_shrinks(step.topic), step.timeout)


def settle(twin: Twin, step: Settle) -> None:
    """Poll the metadata until the condition holds. It is asked of the brokers that answer (a hung one accepts
    connections but never replies, and a client that picked it first timed out: that was no answer of the
    cluster's), and a request that fails is asked again until the deadline."""

    def holds() -> bool:
        try:
            # on every running broker: a leader that has not applied the fence yet still counts the crashed
            # follower in its ISR, and a write to it then makes the leader shrink it itself (a fresh-clone
            # run at load 5-9 logged that "Shrinking ISR" on 3.9, which the simulator never does)
            return all(step.cond(metadata(b)) for b in twin.answering_brokers())
        except Exception:  # noqa: BLE001 - a timed-out request under load: asked again
            return False

    wait_for(f"{twin.kind}: {step.what}", holds, step.timeout)


def assert_twins(sim: list[tuple[str, Any]], lab: list[tuple[str, Any]]) -> None:
    """Observation by observation, so that a failure names the first step where they part."""
    assert [label for label, _ in sim] == [label for label, _ in lab]
    for (label, s), (_, r) in zip(sim, lab, strict=True):
        assert s == r, f"{label}: simulator and real Kafka differ\n sim: {s!r}\n lab: {r!r}"


# --------------------------------------------------------------------------- real clients
def _admin(bootstrap: str) -> Any:
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 5000, "log_level": 0})


def create(bootstrap: str, topic: str, assignment: list[list[int]], configs: dict[str, str]) -> None:
    from confluent_kafka.admin import NewTopic

    client = _admin(bootstrap)
    if topic in metadata(bootstrap)["topics"]:  # left by a failed attempt, now rerun (tests/lab/conftest.py)
        client.delete_topics([topic], operation_timeout=30)[topic].result(60)
        wait_for(f"{topic} deleted before it is created again", lambda: topic not in metadata(bootstrap)["topics"])
    client.create_topics(
        [NewTopic(topic, len(assignment), replica_assignment=assignment, config=configs)], operation_timeout=30
    )[topic].result(60)
    wait_for(
        f"leaders for {topic}",
        lambda: all(p["leader"] >= 0 for p in metadata(bootstrap)["topics"].get(topic, [{"leader": -1}])),
    )


def metadata(bootstrap: str) -> dict[str, Any]:
    """{"brokers": [ids], "topics": {name: [{"leader", "replicas", "isr"}]}} as a client sees them."""
    md = _admin(bootstrap).list_topics(timeout=10)
    return {
        "brokers": sorted(md.brokers),
        "topics": {
            name: [
                {"leader": p.leader, "replicas": list(p.replicas), "isr": sorted(p.isrs)}
                for p in sorted(t.partitions.values(), key=lambda p: p.id)
            ]
            for name, t in md.topics.items()
        },
    }


def produce(bootstrap: str, step: Produce) -> dict[str, Any]:
    from confluent_kafka import Producer

    errors: list[str] = []
    acked = 0

    def cb(err: Any, _msg: Any) -> None:
        nonlocal acked
        if err is None:
            acked += 1
        else:
            errors.append(err.name())

    p = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": step.acks,
            "retries": 0,
            "enable.idempotence": False,
            "message.timeout.ms": step.timeout_ms,
            "socket.timeout.ms": 5000,
            "log_level": 0,
        }
    )
    for i in range(step.n):
        kwargs: dict[str, Any] = {} if step.partition is None else {"partition": step.partition}
        p.produce(step.topic, value=f"v{i}".encode(), on_delivery=cb, **kwargs)
    p.flush(step.timeout_ms / 1000 + 10)
    return {"acked": acked, "errors": sorted(set(errors))}


class Loader:
    """A real producer writing to a topic on a thread until stopped (what makes a hung follower lag)."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        from confluent_kafka import Producer

        self._p = Producer(
            {"bootstrap.servers": bootstrap, "acks": "1", "linger.ms": 20, "log_level": 0, "message.timeout.ms": 5000}
        )
        self._topic = topic
        self.acked = 0  # records the leader acknowledged (written by the producer's poll, on the thread)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        payload = b"x" * 200
        while not self._stop.is_set():
            for _ in range(50):
                try:
                    self._p.produce(self._topic, value=payload, on_delivery=self._delivered)
                except BufferError:
                    break
            self._p.poll(0.02)

    def _delivered(self, err: Any, _msg: Any) -> None:
        if err is None:
            self.acked += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self._p.flush(10)


MASKED_CLUSTER = ("id", "controller", "bootstrap", "taken_at", "fetch_seconds")
MASKED_BROKER = ("host", "port", "controller")


def check(bootstrap: str, topics: Sequence[str]) -> dict[str, Any]:
    """`kafkatui check --json --topic ...` (a new process, as a user runs it), masked, plus classes."""
    pattern = "^(" + "|".join(re.escape(t) for t in topics) + ")$"
    proc = kafkatui("check", "--bootstrap", bootstrap, "--json", "--timeout", "10", "--topic", pattern)
    assert proc.stdout.strip(), f"check printed nothing; stderr: {proc.stderr}"
    doc = json.loads(proc.stdout)
    cluster = {k: v for k, v in doc["cluster"].items() if k not in MASKED_CLUSTER}
    brokers = [{k: v for k, v in b.items() if k not in MASKED_BROKER} for b in doc["brokers"]]
    findings = [
        {
            "id": f["id"],
            "severity": f["severity"],
            "resources": f["resources"],
            "affected_partitions": f["affected_partitions"],
        }
        for f in doc["findings"]
    ]
    return {
        "exit_code": proc.returncode,
        "cluster": cluster,
        "summary": doc["summary"],
        "brokers": brokers,
        "topics": doc["topics"],
        "findings": findings,
        "classes": classes(bootstrap, topics),
    }


def classes(bootstrap: str, topics: Sequence[str]) -> dict[str, list[str]]:
    """The class kafkatui gives each partition of `topics` (its model, on a snapshot of its source)."""
    settings = ConnectionSettings(bootstrap=tuple(bootstrap.split(",")), timeout=10.0)
    with KafkaClusterSource(settings) as src:
        report = assess(src.snapshot())
    return {
        t: [report.health(t, p.partition).name.lower() for p in report.snapshot.topics[t].partitions]
        for t in topics
        if t in report.snapshot.topics
    }


# --------------------------------------------------------------------------- settle conditions
def absent(*brokers: int, topics: Sequence[str] = ()) -> Callable[[dict[str, Any]], bool]:
    """The brokers are out of the metadata (fenced) and out of every ISR of `topics`."""

    def cond(md: dict[str, Any]) -> bool:
        return not set(brokers) & set(md["brokers"]) and all(
            not set(brokers) & set(p["isr"]) for t in topics for p in md["topics"].get(t, [])
        )

    return cond


def out_of_isr(broker: int, topic: str) -> Callable[[dict[str, Any]], bool]:
    return lambda md: all(broker not in p["isr"] for p in md["topics"].get(topic, [{"isr": [broker]}]))


def whole_past_lag(*topics: str) -> Callable[[dict[str, Any]], bool]:
    """`whole(*topics)` once the lab's replica.lag.time.max.ms and one more leader's check (half of it) have
    passed since first asked (per twin: each runs on its own thread). A follower that has not fetched a new
    partition within that time of its creation is shrunk by the leader: at load 11 (a fresh-clone run beside a
    busy loop) broker 3's fetcher of a new tw-crash-0 started late on 3.9, and the leader logged the shrink
    (endOffset -1) two seconds after the test had crashed broker 3. After this, a leader's shrink is a fault's."""
    lag = int(labconfig.TIMINGS["replica.lag.time.max.ms"]) / 1000
    first: dict[int, float] = {}
    full = whole(*topics)

    def cond(md: dict[str, Any]) -> bool:
        since = first.setdefault(threading.get_ident(), time.monotonic())
        return time.monotonic() - since >= 1.5 * lag and full(md)

    return cond


def whole(*topics: str, brokers: int = 3) -> Callable[[dict[str, Any]], bool]:
    """Every broker registered, every ISR of `topics` equal to its replicas."""
    return lambda md: (
        len(md["brokers"]) == brokers
        and all(
            sorted(p["replicas"]) == p["isr"]
            for t in topics
            for p in md["topics"].get(t, [{"replicas": [0], "isr": []}])
        )
    )


def restore_all(topics: Sequence[str], *brokers: int) -> list[Step]:
    return [*(Fault("restore", b) for b in brokers), Settle("ISRs whole again", whole(*topics), 120)]


# --------------------------------------------------------------------------- admin questions
def elect(kind: str, topic: str, partition: int) -> Callable[[str], Any]:
    """ElectLeaders (PREFERRED or UNCLEAN) on one partition: the error name, None when elected."""

    def ask(bootstrap: str) -> Any:
        from confluent_kafka import ElectionType, TopicPartition

        client = _admin(bootstrap)
        fut = client.elect_leaders(ElectionType[kind], [TopicPartition(topic, partition)])
        try:
            result = fut.result(30)
        except Exception as exc:  # noqa: BLE001 - a request-level error is an answer too
            return f"request: {_error_name(exc)}"
        err = next(iter(result.values()))
        return None if err is None else _error_name(err)

    return ask


def _error_name(err: Any) -> str:
    if hasattr(err, "args") and err.args and hasattr(err.args[0], "name"):
        err = err.args[0]
    name = getattr(err, "name", None)
    return str(name() if callable(name) else name or type(err).__name__)


def alter_topic(topic: str, key: str, value: str) -> Callable[[str], Any]:
    """IncrementalAlterConfigs SET on a topic (validate_only): the error name, None when accepted."""

    def ask(bootstrap: str) -> Any:
        from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

        res = ConfigResource(
            ResourceType.TOPIC,
            topic,
            incremental_configs=[ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)],
        )
        try:
            client = _admin(bootstrap)  # alive until the future resolves
            client.incremental_alter_configs([res], validate_only=True)[res].result(30)
        except Exception as exc:  # noqa: BLE001 - the answer under test
            return _error_name(exc)
        return None

    return ask


def alter_cluster_default(key: str, value: str | None) -> Callable[[str], Any]:
    """SET (or DELETE, value None) a cluster-wide broker default (entity-default), as kafkatui's alter
    sends it (kafka-python; confluent-kafka refuses a broker resource with an empty name)."""

    def ask(bootstrap: str) -> Any:
        from kafka.admin import AlterConfigOp, ConfigResourceType, KafkaAdminClient
        from kafka.admin import ConfigResource as KPResource

        op = (AlterConfigOp.SET, value) if value is not None else (AlterConfigOp.DELETE, None)
        client = KafkaAdminClient(bootstrap_servers=bootstrap.split(","), request_timeout_ms=30000)
        try:
            request = client._alter_configs_request(
                [KPResource(ConfigResourceType.BROKER, "", {key: op})], False, incremental=True
            )

            async def send() -> Any:
                response = await client._manager.send(request)
                return client._alter_configs_process_responses(response.responses)

            result = client._manager.run(send)["broker"][""]
        finally:
            client.close()
        time.sleep(1.0)  # brokers apply a dynamic default from the metadata log within a moment
        return None if result == "OK" else str(result)

    return ask


def describe_configs(kind: str, name: str, keys: Sequence[str]) -> Callable[[str], Any]:
    """DescribeConfigs with synonyms (kafka-python: confluent-kafka keys synonyms by name, so a chain of
    one key at several levels collapses): per key its value, source, flags and whole synonym chain."""

    def ask(bootstrap: str) -> Any:
        from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

        client = KafkaAdminClient(bootstrap_servers=bootstrap.split(","), request_timeout_ms=30000)
        try:
            res = ConfigResource(ConfigResourceType[kind], name, configs=list(keys))
            answer = client.describe_configs([res], include_synonyms=True, config_filter="all")
        finally:
            client.close()
        entries = answer[kind.lower()][name]
        return {
            k: {
                "value": e["value"],
                "source": e["config_source"],
                "read_only": e["read_only"],
                "sensitive": e["is_sensitive"],
                "synonyms": [(s["name"], s["value"], s["source"]) for s in e["synonyms"]],
            }
            for k in keys
            if (e := entries.get(k)) is not None
        } | {"missing": sorted(set(keys) - set(entries))}

    return ask


def reassign(topic: str, partition: int, replicas: list[int]) -> Callable[[str], Any]:
    """AlterPartitionReassignments through kafka-python: the error name, None when accepted."""

    def ask(bootstrap: str) -> Any:
        from kafka import TopicPartition
        from kafka.admin import KafkaAdminClient

        client = KafkaAdminClient(bootstrap_servers=bootstrap.split(","), request_timeout_ms=30000)
        try:
            answer = client.alter_partition_reassignments(
                {TopicPartition(topic, partition): replicas}, timeout_ms=30000
            )
        except Exception as exc:  # noqa: BLE001 - a request-level error is an answer too
            return f"request: {type(exc).__name__}"
        finally:
            client.close()
        err = next(iter(answer.values()))
        return None if err is None else getattr(err, "__name__", None) or type(err).__name__

    return ask


# --------------------------------------------------------------------------- fixtures
CORE = lab_lines("core")  # 4.4 and 3.9 in `make test`
FULL = lab_lines("full")  # 4.4
_FULL_SET: set[str] = set()


def full_set(fn: Callable[..., None]) -> Callable[..., None]:
    """Mark a scenario as one of the full set (run on 4.4 only); the core ones run on 3.9 too."""
    _FULL_SET.add(fn.__name__)
    return fn


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Core scenarios run on the core lines, the full set on 4.4 only (one lab per line per module: the
    brokers' counts in `check` must not see the shared labs' other topics)."""
    if "twins" in metafunc.fixturenames:
        lines = FULL if metafunc.function.__name__ in _FULL_SET else CORE
        metafunc.parametrize("lab", lines, indirect=True, scope="module")


@pytest.fixture(scope="module")
def lab(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabCluster]:
    yield from lab_fixture(request, tmp_path_factory)


@pytest.fixture(scope="module")
def twins(lab: LabCluster) -> Iterator[tuple[SimTwin, LabTwin]]:
    sim = SimTwin(lab.rel.version)
    try:
        yield sim, LabTwin(lab)
    finally:
        sim.stop()


def both(twins: tuple[SimTwin, LabTwin], steps: Sequence[Step]) -> None:
    """Run `steps` on the simulator and on real Kafka side by side, and compare what each showed."""
    sim, lab = twins
    # the lab runs on this thread: a JVM it starts dies with the thread that started it (its
    # parent-death signal is per thread), so never from a pool's worker
    with ThreadPoolExecutor(1, thread_name_prefix="twin-sim") as pool:
        on_sim = pool.submit(run, sim, steps)
        on_lab = run(lab, steps)
        seen_sim = on_sim.result()
        if not sim.answers_as_line:  # a line newer than the simulator knows: behaviour is compared, not the label
            seen_sim, on_lab = without_version(seen_sim), without_version(on_lab)
        assert_twins(seen_sim, on_lab)


def without_version(seen: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The observations with the check documents' `cluster.kafka_version` left out."""
    out: list[tuple[str, Any]] = []
    for label, doc in seen:
        if label.startswith("check ") and isinstance(doc, dict) and isinstance(doc.get("cluster"), dict):
            doc = {**doc, "cluster": {k: v for k, v in doc["cluster"].items() if k != "kafka_version"}}
        out.append((label, doc))
    return out


def restore_both(twins: tuple[SimTwin, LabTwin], topics: Sequence[str], *brokers: int) -> None:
    """Clear the faults on both clusters (in a test's finally) and wait until the ISRs are whole."""
    sim, lab = twins
    with ThreadPoolExecutor(1, thread_name_prefix="twin-sim") as pool:
        on_sim = pool.submit(run, sim, restore_all(topics, *brokers))
        run(lab, restore_all(topics, *brokers))
        on_sim.result()


RF3 = [[1, 2, 3], [2, 3, 1], [3, 1, 2]]
MIN2 = {"min.insync.replicas": "2"}


# --------------------------------------------------------------------------- scenarios
def test_healthy_cluster_is_healthy_on_both(twins: tuple[SimTwin, LabTwin]) -> None:
    """RF 3 / minISR 2, all up: healthy, exit 0; no broker labelled controller; elections not needed."""
    t = "tw-healthy"
    both(
        twins,
        [
            Create(t, RF3, MIN2),
            Produce(t, "all", 30),
            Check("healthy", [t]),
            Ask("preferred election where the leader is preferred", elect("PREFERRED", t, 0)),
            Ask("unclean election where there is a leader", elect("UNCLEAN", t, 1)),
            Ask("election on an unknown partition", elect("PREFERRED", t, 7)),
        ],
    )


def test_crashed_brokers_are_fenced_out_of_idle_isrs(twins: tuple[SimTwin, LabTwin]) -> None:
    """One broker crashed (after fencing): at min ISR, writes go on. Two: under min ISR, acks=all gets
    NOT_ENOUGH_REPLICAS and acks=1 still works. No leader shrank these idle partitions' ISRs: the
    controller's fencing did (asked before the writes that follow each fence: a leader whose partition has
    not yet applied the fence that its metadata cache already shows may shrink the dead follower itself
    when such a write lands: the likely reading of the one shrink real 4.2 logged at load 5, in the matrix;
    the simulator applies both at once)."""
    t = "tw-crash"
    try:
        both(
            twins,
            [
                Create(t, RF3, MIN2),
                Produce(t, "all", 30),
                Settle("every follower in sync past replica.lag.time.max.ms", whole_past_lag(t)),
                Fault("crash", 3),
                Settle("broker 3 fenced", absent(3, topics=[t])),
                LeaderShrank(t),
                Produce(t, "all"),
                Check("one crashed", [t]),
                Fault("crash", 2),
                Settle("brokers 2 and 3 fenced", absent(2, 3, topics=[t])),
                LeaderShrank(t),
                Produce(t, "all"),
                Produce(t, "1"),
                Check("two crashed", [t]),
            ],
        )
    finally:
        restore_both(twins, [t], 2, 3)
    both(twins, [Check("restored", [t])])


@full_set
def test_controlled_shutdown_moves_leaders_first(twins: tuple[SimTwin, LabTwin]) -> None:
    """SIGTERM: the controller moves leadership off broker 1 and drops it from the ISRs; writes go on."""
    t = "tw-shutdown"
    try:
        both(
            twins,
            [
                Create(t, RF3, MIN2),
                Produce(t, "all", 30),
                Fault("shutdown", 1),
                Settle("broker 1 gone", absent(1, topics=[t])),
                Produce(t, "all"),
                Check("after controlled shutdown", [t]),
                LeaderShrank(t),
            ],
        )
    finally:
        restore_both(twins, [t], 1)
    both(
        twins,
        [
            Check("back, partition 0 led by broker 2", [t]),
            Ask("preferred election where it is needed", elect("PREFERRED", t, 0)),
            Settle("broker 1 leads partition 0 again", lambda md: md["topics"][t][0]["leader"] == 1),
            Check("preferred leader again", [t]),
        ],
    )


@full_set
def test_hung_follower_under_load_is_shrunk_by_its_leader(twins: tuple[SimTwin, LabTwin]) -> None:
    """A hung follower (SIGSTOP) of a partition taking writes: its leader shrinks it out of the ISR
    after replica.lag.time.max.ms, then the controller fences the silent broker."""
    t = "tw-hang"
    try:
        both(
            twins,
            [
                Create(t, [[1, 2, 3]], MIN2),
                Load(t),
                Fault("hang", 3),
                ShrinkLogged(t),
                Settle("broker 3 out of the ISR", out_of_isr(3, t)),
                Settle("broker 3 fenced", absent(3, topics=[t])),
                Load(t, on=False),
                LeaderShrank(t),
                Check("hung follower, fenced", [t]),
            ],
        )
    finally:
        restore_both(twins, [t], 3)


@full_set
def test_offline_rf1_partition(twins: tuple[SimTwin, LabTwin]) -> None:
    """RF 1 on broker 2, broker 2 crashed: offline; producers time out; no election can help."""
    t = "tw-rf1"
    try:
        both(
            twins,
            [
                Create(t, [[2]], {"min.insync.replicas": "1"}),
                Produce(t, "1"),
                Fault("crash", 2),
                Settle("the partition offline", lambda md: md["topics"][t][0]["leader"] == -1),
                Check("RF 1 offline", [t]),
                Produce(t, "1", 5, partition=0, timeout_ms=3000),
                Ask("preferred election of an offline partition", elect("PREFERRED", t, 0)),
                Ask("unclean election of an offline partition", elect("UNCLEAN", t, 0)),
            ],
        )
    finally:
        restore_both(twins, [t], 2)


def test_min_isr_above_rf_follows_the_line(twins: tuple[SimTwin, LabTwin]) -> None:
    """RF 1 under min.insync.replicas 2: the brokers' line decides (3.7+ cap min ISR at RF,
    KAFKA-15583): acks=all goes through on 3.9 and 4.x, and check judges by the effective min ISR.
    (Kafka refuses a manual assignment whose partitions differ in replica count: one RF per topic.)"""
    t = "tw-min-above-rf"
    both(
        twins,
        [
            Create(t, [[1], [2]], {"min.insync.replicas": "2"}),
            Produce(t, "all", 10, partition=0),
            Produce(t, "all", 10, partition=1),
            Check("minISR above RF", [t]),
        ],
    )


TOPIC_KEYS = ("min.insync.replicas", "retention.ms", "unclean.leader.election.enable", "cleanup.policy")
BROKER_KEYS = (
    "min.insync.replicas",
    "replica.lag.time.max.ms",
    "default.replication.factor",
    "unclean.leader.election.enable",
    "log.retention.hours",
    "broker.rack",
)


@full_set
def test_configs_overrides_defaults_and_validation(twins: tuple[SimTwin, LabTwin]) -> None:
    """Topic overrides and broker defaults: DescribeConfigs sources and synonyms, validation errors of
    IncrementalAlterConfigs, a cluster-wide default seen by kafkatui, reassignment to no broker."""
    over, plain = "tw-conf", "tw-plain"
    try:
        both(
            twins,
            [
                Create(over, [[1, 2, 3]], {"min.insync.replicas": "3", "retention.ms": "3600000"}),
                Create(plain, [[2, 3, 1]]),
                Ask("topic configs", describe_configs("TOPIC", over, TOPIC_KEYS)),
                Ask("topic configs, no overrides", describe_configs("TOPIC", plain, TOPIC_KEYS)),
                Ask("broker configs", describe_configs("BROKER", "1", BROKER_KEYS)),
                Ask("min.insync.replicas=0", alter_topic(plain, "min.insync.replicas", "0")),
                Ask("min.insync.replicas=abc", alter_topic(plain, "min.insync.replicas", "abc")),
                Ask("unknown topic config", alter_topic(plain, "no.such.config", "1")),
                Ask("retention.ms=-5", alter_topic(plain, "retention.ms", "-5")),
                Ask("cleanup.policy=bogus", alter_topic(plain, "cleanup.policy", "bogus")),
                Ask("min.insync.replicas=3 (valid)", alter_topic(plain, "min.insync.replicas", "3")),
                Check("overrides", [over, plain]),
                Ask("reassignment to an unknown broker", reassign(plain, 0, [1, 2, 9])),
                Ask("cluster default unclean=true", alter_cluster_default("unclean.leader.election.enable", "true")),
                Ask("topic configs under a cluster default", describe_configs("TOPIC", plain, TOPIC_KEYS)),
                Check("cluster default unclean", [over, plain]),
            ],
        )
    finally:
        for twin in twins:
            alter_cluster_default("unclean.leader.election.enable", None)(twin.bootstrap)


@full_set
def test_no_broker_is_labelled_controller_on_a_kraft_cluster(twins: tuple[SimTwin, LabTwin]) -> None:
    """KRaft Metadata names a random live broker as "controller"; the lab's active controller is node 0,
    a dedicated KRaft controller. kafkatui reads process.roles and controller.quorum.voters from the
    brokers' configs: no broker is labelled "ctrl", the controller is 0, in every snapshot. The
    simulator (combined mode, no process.roles) keeps naming broker 1, its real controller."""
    sim, lab = twins
    for _ in range(3):  # the metadata's id is random: one lucky snapshot proves nothing
        doc = json.loads(kafkatui("check", "--bootstrap", lab.bootstrap, "--json", "--timeout", "10").stdout)
        assert [b["id"] for b in doc["brokers"] if b["controller"]] == []
        assert doc["cluster"]["controller"] == labconfig.CONTROLLER_ID
    doc = json.loads(kafkatui("check", "--bootstrap", sim.bootstrap, "--json", "--timeout", "10").stdout)
    assert [b["id"] for b in doc["brokers"] if b["controller"]] == [1] and doc["cluster"]["controller"] == 1


def test_controller_of_trusts_the_metadata_only_without_kraft() -> None:
    """ZooKeeper (no process.roles): the metadata's id. KRaft: the single voter, else unknown (-1)."""

    def configs(roles: str | None, voters: str | None) -> dict[int, dict[str, ConfigValue]]:
        return {
            b: {"process.roles": ConfigValue(roles), "controller.quorum.voters": ConfigValue(voters)} for b in (1, 2, 3)
        }

    assert controller_of(2, configs(None, None)) == 2
    assert controller_of(2, {}) == 2 and controller_of(None, {}) == -1
    assert controller_of(2, configs("broker", "0@127.0.0.1:9093")) == 0
    assert controller_of(2, configs("broker", "7@c1:9093,8@c2:9093,9@c3:9093")) == -1
    assert controller_of(2, configs("broker,controller", "1@b1:9093,2@b2:9093,3@b3:9093")) == -1
    assert controller_of(1, configs("broker,controller", "1@b1:9093")) == 1
    assert controller_of(3, configs("broker", "")) == -1  # a dynamic quorum (bootstrap servers only)
