"""A lab cluster: format, start, control and stop one JVM per KRaft node, always by pid.

Every JVM is started in its own session (so a Ctrl-C in the terminal reaches only `kafkatui lab`,
which then stops the nodes in order) and with a parent-death signal, so that no JVM outlives the
Python process that started it, even when that process is killed.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from kafkatui.lab import config
from kafkatui.lab.errors import NoLab, StartFailed
from kafkatui.lab.fetch import ensure_jars, require_java
from kafkatui.lab.security import LabSecurity
from kafkatui.lab.versions import KafkaRelease, release

STARTED = "Kafka Server started"
STATE_FILE = "lab.json"
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def free_ports(n: int) -> list[int]:
    """`n` distinct free TCP ports on 127.0.0.1, below the kernel's ephemeral range, so that no
    client connection on this machine takes one between this check and the JVM's bind."""
    low, high = _ephemeral_range()
    lo, hi = (20000, low - 1) if low > 21000 else (high + 1, 65535)
    ports: list[int] = []
    rng = random.SystemRandom()
    for _ in range(2000):
        if len(ports) == n:
            break
        port = rng.randint(lo, hi)
        if port in ports:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports.append(port)
    if len(ports) < n:
        raise StartFailed(f"no {n} free ports between {lo} and {hi} on 127.0.0.1")
    return ports


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def new_cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes, URL-safe base64 without padding, never starting with '-'."""
    while True:
        cid = base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


def pid_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


@dataclass
class Node:
    """One node of the lab and its process."""

    spec: config.NodeSpec
    home: Path
    proc: subprocess.Popen[bytes] | None = None
    hung: bool = False
    ready_mark: int = 0  # "Kafka Server started" lines in server.log and its rolled files before the last spawn
    reported: bool = False  # an unexpected exit was already reported

    @property
    def logs(self) -> Path:
        """The node's log directory (server.log, state-change.log, controller.log, kafkaServer.out)."""
        return self.home / "logs"

    @property
    def pid(self) -> int | None:
        """The JVM's pid while it runs."""
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def state(self) -> str:
        """running, hung (SIGSTOP), or stopped (with its exit code)."""
        if self.proc is None:
            return "stopped"
        code = self.proc.poll()
        if code is not None:
            return f"stopped (exit {code})"
        return "hung" if self.hung else "running"


@dataclass
class LabCluster:
    """One dedicated controller plus `brokers` brokers of `rel`, under `root`."""

    root: Path
    rel: KafkaRelease = field(default_factory=lambda: release("4.1"))
    brokers: int = 3
    racks: tuple[str, ...] = ()
    sasl: bool = False  # each broker also gets a SASL_PLAINTEXT/PLAIN listener, and ACLs are enforced
    security: LabSecurity | None = None  # TLS, mTLS, SCRAM and OAUTHBEARER listeners (lab/security.py)
    broker_heap: str = "384m"
    controller_heap: str = "256m"
    nodes: dict[str, Node] = field(default_factory=dict)
    cluster_id: str = ""
    libs: Path | None = None
    java: str = "java"
    control_port: int | None = None  # where `kafkatui lab` serves `lab ctl` (saved in lab.json)
    on_event: Callable[[str], None] = lambda _msg: None
    started_line: ClassVar[str] = STARTED  # what a node's server.log says once it serves

    def banner(self) -> str:
        """The start banner's first line: version, mode, nodes, directory."""
        return f"Kafka {self.rel.version} (KRaft): controller + {self.brokers} broker(s) in {self.root}"

    def timings_lines(self) -> list[str]:
        """The shortened timings, one `key=value  (why)` line each, for the start banner."""
        return config.timings_lines()

    # ----------------------------------------------------------------- set-up
    def prepare(self) -> None:
        """Fetch the jars (once), lay out every node's directory and format its storage."""
        if not 1 <= self.brokers <= 9:
            raise ValueError("a lab has 1 to 9 brokers")
        self.java = require_java(self.rel)
        self.libs = ensure_jars(self.rel)
        self.root.mkdir(parents=True, exist_ok=True)
        self._refuse_running()
        ports = free_ports(2 * self.brokers + 1)
        specs = [config.NodeSpec(config.CONTROLLER_ID, ports[0])] + [
            config.NodeSpec(
                i,
                ports[i],
                self.racks[(i - 1) % len(self.racks)] if self.racks else None,
                ports[self.brokers + i] if self.sasl else None,
            )
            for i in range(1, self.brokers + 1)
        ]
        self.cluster_id = new_cluster_id()
        if self.security is not None:
            self.security.prepare(self.root / "security", [s.node_id for s in specs[1:]], free_ports)
        if self.rel.log4j2:
            (self.root / "log4j2.yaml").write_text(config.LOG4J2_YAML, encoding="utf-8")
        else:
            (self.root / "log4j.properties").write_text(config.LOG4J_PROPERTIES, encoding="utf-8")
        self.nodes = {}
        for spec in specs:
            home = self.root / spec.name
            if home.exists():
                _clear(home)
            (home / "logs").mkdir(parents=True)
            props = config.server_properties(spec, ports[0], self.brokers, home / "data", self.sasl)
            if self.security is not None:
                props = self.security.amend(props, spec)
            (home / "server.properties").write_text(props, encoding="utf-8")
            self.nodes[spec.name] = Node(spec, home)
        self._format()
        self._save()

    def _refuse_running(self) -> None:
        state = self.root / STATE_FILE
        if not state.exists():
            return
        try:
            saved = json.loads(state.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        alive = [
            f"{n['name']} (pid {n['pid']})"
            for n in saved.get("nodes", [])
            if n.get("pid") and pid_alive(int(n["pid"])) and _is_lab_jvm(int(n["pid"]), self.root)
        ]
        if alive:
            raise StartFailed(
                f"a lab is already running in {self.root}: {', '.join(alive)}; stop it first (Ctrl-C in its terminal)"
            )

    def _java_base(self, heap: str) -> list[str]:
        assert self.libs is not None
        if self.rel.log4j2:
            log = f"-Dlog4j2.configurationFile={self.root / 'log4j2.yaml'}"
        else:
            log = f"-Dlog4j.configuration=file:{self.root / 'log4j.properties'}"
        return [
            self.java,
            f"-Xms{heap}",
            f"-Xmx{heap}",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
            "-Djava.awt.headless=true",
            log,
            *(self.security.jvm_flags() if self.security is not None else ()),
            "-cp",
            f"{self.libs}/*",
        ]

    def _format(self) -> None:
        """Format every node's storage with one cluster id, in parallel."""
        procs = []
        for node in self.nodes.values():
            cmd = [
                *self._java_base("128m"),
                f"-Dkafka.logs.dir={node.logs}",
                "kafka.tools.StorageTool",
                "format",
                f"--cluster-id={self.cluster_id}",
                "--config",
                str(node.home / "server.properties"),
                *(self.security.scram_format_args() if self.security is not None else ()),
            ]
            with open(node.logs / "format.out", "wb") as out:  # its log files go to the node's logs, not the cwd
                procs.append(
                    (
                        node,
                        subprocess.Popen(
                            cmd,
                            stdout=out,
                            stderr=subprocess.STDOUT,
                            cwd=node.home,
                            stdin=subprocess.DEVNULL,
                            preexec_fn=_die_with_parent,
                        ),
                    )
                )
        failed = []
        for node, proc in procs:
            code = proc.wait()
            if code != 0:
                failed.append(f"{node.spec.name} ({_last_error(node.logs / 'format.out')})")
        if failed:
            raise StartFailed("formatting the lab's storage failed: " + "; ".join(failed))

    # ---------------------------------------------------------------- running
    def start(self, timeout: float = 300.0) -> None:
        """Start every node, then wait until all brokers are registered and unfenced."""
        for node in self.nodes.values():
            self._spawn(node)
        self._save()
        self.wait_ready(list(self.nodes), timeout)
        if self.security is not None:
            self.security.grant_reader(self.bootstrap)

    def _node_command(self, node: Node) -> list[str]:
        """The java command line that runs `node`."""
        heap = self.controller_heap if node.spec.is_controller else self.broker_heap
        return [
            *self._java_base(heap),
            f"-Dkafka.logs.dir={node.logs}",
            "kafka.Kafka",
            str(node.home / "server.properties"),
        ]

    def _spawn(self, node: Node) -> None:
        logs = node.logs
        cmd = self._node_command(node)
        node.ready_mark = _count_logs(logs, self.started_line)
        node.reported = False
        with open(logs / "kafkaServer.out", "ab") as out:
            node.proc = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        node.hung = False
        (node.home / "pid").write_text(f"{node.proc.pid}\n", encoding="utf-8")

    def wait_ready(self, names: Iterable[str], timeout: float = 300.0) -> None:
        """Wait for "Kafka Server started" in each node's server.log since its last start, and for the
        brokers among them to be in the cluster's metadata; StartFailed naming the log otherwise."""
        pending = {n: self.nodes[n] for n in names}
        deadline = time.monotonic() + timeout
        while pending:
            for n, node in list(pending.items()):
                if node.proc is None or node.proc.poll() is not None:
                    code = None if node.proc is None else node.proc.returncode
                    raise StartFailed(
                        f"Kafka node {n} exited (code {code}) while starting: "
                        f"{_last_error(node.logs / 'server.log', node.logs / 'kafkaServer.out')}"
                        f" (see {node.logs / 'server.log'})"
                    )
                if _count_logs(node.logs, self.started_line) > node.ready_mark:
                    del pending[n]
            if pending and time.monotonic() > deadline:
                names_left = ", ".join(sorted(pending))
                raise StartFailed(
                    f"Kafka node(s) {names_left} not ready after {timeout:.0f} s "
                    f"(see {self.root}/<node>/logs/server.log)"
                )
            if pending:
                time.sleep(0.25)
        self._wait_registered(deadline)

    def _wait_registered(self, deadline: float) -> None:
        """Wait until the live brokers are all in the metadata a client sees."""
        from confluent_kafka.admin import AdminClient

        want = {
            n.spec.node_id for n in self.nodes.values() if not n.spec.is_controller and n.pid is not None and not n.hung
        }
        if not want:
            return
        admin = AdminClient({"bootstrap.servers": self.bootstrap_for(want), "socket.timeout.ms": 3000})
        while True:
            try:
                md = admin.list_topics(timeout=3)
                if want <= set(md.brokers):
                    return
            except Exception:  # noqa: BLE001 - retried until the deadline
                pass
            if time.monotonic() > deadline:
                raise StartFailed(
                    "the lab's brokers did not all register with the controller in time "
                    f"(see {self.root}/controller/logs/controller.log)"
                )
            time.sleep(0.25)

    @property
    def broker_nodes(self) -> list[Node]:
        """The brokers, by id."""
        return sorted((n for n in self.nodes.values() if not n.spec.is_controller), key=lambda n: n.spec.node_id)

    @property
    def bootstrap(self) -> str:
        """`127.0.0.1:P1,127.0.0.1:P2,...` for every broker."""
        return ",".join(f"127.0.0.1:{n.spec.port}" for n in self.broker_nodes)

    @property
    def sasl_bootstrap(self) -> str:
        """The SASL_PLAINTEXT listeners (PLAIN mechanism), when the lab has them."""
        return ",".join(f"127.0.0.1:{n.spec.sasl_port}" for n in self.broker_nodes if n.spec.sasl_port)

    def bootstrap_for(self, ids: Iterable[int]) -> str:
        """The bootstrap list of the given broker ids."""
        wanted = set(ids)
        return ",".join(f"127.0.0.1:{n.spec.port}" for n in self.broker_nodes if n.spec.node_id in wanted)

    def node(self, name: str) -> Node:
        """A node by name ("controller", "b2") or broker id ("2"); NoLab if there is none."""
        key = name if name in self.nodes else (f"b{name}" if name.isdigit() else name)
        if key == "b0":
            key = "controller"
        if key not in self.nodes:
            raise NoLab(f"no node {name!r} in this lab: nodes are {', '.join(self.nodes)}")
        return self.nodes[key]

    # ---------------------------------------------------------------- faults
    def crash(self, name: str) -> str:
        """SIGKILL: the JVM dies at once, no controlled shutdown."""
        node = self.node(name)
        if node.pid is None:
            return f"{node.spec.name} is not running"
        if node.hung:
            os.kill(node.pid, signal.SIGCONT)
        os.kill(node.pid, signal.SIGKILL)
        assert node.proc is not None
        node.proc.wait()
        node.hung = False
        node.reported = True
        self._save()
        return f"{node.spec.name} crashed (SIGKILL, pid {node.proc.pid})"

    def shutdown(self, name: str, timeout: float = 60.0) -> str:
        """SIGTERM: a controlled shutdown (the controller moves leaders away first); waits for the exit."""
        node = self.node(name)
        if node.pid is None:
            return f"{node.spec.name} is not running"
        assert node.proc is not None
        if node.hung:
            os.kill(node.pid, signal.SIGCONT)
            node.hung = False
        node.reported = True
        node.proc.send_signal(signal.SIGTERM)
        try:
            node.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            node.proc.kill()
            node.proc.wait()
            self._save()
            return f"{node.spec.name} did not stop within {timeout:.0f} s of SIGTERM: killed"
        self._save()
        return f"{node.spec.name} shut down (SIGTERM, controlled shutdown)"

    def hang(self, name: str) -> str:
        """SIGSTOP: the JVM freezes, its sockets stay open (a long GC pause, a stuck disk)."""
        node = self.node(name)
        if node.pid is None:
            return f"{node.spec.name} is not running"
        os.kill(node.pid, signal.SIGSTOP)
        node.hung = True
        return f"{node.spec.name} hung (SIGSTOP, pid {node.pid})"

    def restore(self, name: str, wait: bool = True) -> str:
        """Resume a hung node (SIGCONT) or start a stopped one again."""
        node = self.node(name)
        if node.pid is not None and node.hung:
            os.kill(node.pid, signal.SIGCONT)
            node.hung = False
            return f"{node.spec.name} resumed (SIGCONT)"
        if node.pid is not None:
            return f"{node.spec.name} is running"
        return self.restart(name, wait)

    def restart(self, name: str, wait: bool = True, timeout: float = 300.0) -> str:
        """Start a node again (after a controlled shutdown first, if it runs)."""
        node = self.node(name)
        if node.pid is not None:
            self.shutdown(name)
        self._spawn(node)
        self._save()
        if wait:
            self.wait_ready([node.spec.name], timeout)
            return f"{node.spec.name} started again (pid {node.pid}) and is ready"
        return f"{node.spec.name} starting (pid {node.pid})"

    def status(self) -> list[dict[str, object]]:
        """One row per node: name, id, role, port, rack, pid, state."""
        return [
            {
                "name": n.spec.name,
                "id": n.spec.node_id,
                "role": "controller" if n.spec.is_controller else "broker",
                "port": n.spec.port,
                "rack": n.spec.rack,
                "pid": n.pid,
                "state": n.state(),
            }
            for n in self.nodes.values()
        ]

    def exited_unexpectedly(self) -> list[Node]:
        """Nodes whose JVM ended although nobody stopped it (polled by `kafkatui lab`)."""
        gone = []
        for n in self.nodes.values():
            if n.proc is not None and n.proc.poll() is not None and not n.reported:
                n.reported = True
                gone.append(n)
        return gone

    def stop(self, timeout: float = 15.0) -> None:
        """Stop every JVM by pid: resume hung ones, SIGTERM the brokers (while the controller still runs,
        so their controlled shutdowns can finish), then the controller; SIGKILL whatever is still there
        after `timeout` seconds per stage."""
        brokers = self.broker_nodes
        controller = [n for n in self.nodes.values() if n.spec.is_controller]
        for stage in (brokers, controller):
            for node in stage:
                if node.pid is not None:
                    if node.hung:
                        os.kill(node.pid, signal.SIGCONT)
                        node.hung = False
                    node.reported = True
                    node.proc.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
            deadline = time.monotonic() + timeout
            for node in stage:
                if node.proc is None:
                    continue
                try:
                    node.proc.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    node.proc.kill()
                    node.proc.wait()
        if self.security is not None:
            self.security.close()
        self._save()

    # ---------------------------------------------------------------- state
    def save(self) -> None:
        """Write lab.json (version, cluster id, bootstrap, control port, pids) atomically."""
        self._save()

    def _save(self) -> None:
        state = {
            "version": self.rel.version,
            "cluster_id": self.cluster_id,
            "bootstrap": self.bootstrap,
            "sasl_bootstrap": self.sasl_bootstrap or None,
            "lab_pid": os.getpid(),
            "control_port": self.control_port,
            **({"security": self.security.state()} if self.security is not None and self.security.ports else {}),
            "nodes": [
                {"name": n.spec.name, "id": n.spec.node_id, "port": n.spec.port, "rack": n.spec.rack, "pid": n.pid}
                for n in self.nodes.values()
            ],
        }
        tmp = self.root / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.root / STATE_FILE)


def read_state(root: Path) -> dict[str, object]:
    """The lab.json of a lab directory; NoLab when there is none."""
    try:
        data: dict[str, object] = json.loads((root / STATE_FILE).read_text(encoding="utf-8"))
        return data
    except FileNotFoundError:
        raise NoLab(f"no lab in {root}: start one with `kafkatui lab --dir {root}`") from None
    except (OSError, ValueError) as exc:
        raise NoLab(f"cannot read {root / STATE_FILE}: {exc}") from None


def _is_lab_jvm(pid: int, root: Path) -> bool:
    """True when `pid` is a lab JVM (a Kafka node or ZooKeeper) whose command line names this lab directory."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    mains = (b"kafka.Kafka", b"org.apache.zookeeper.server.ZooKeeperServerMain")
    return any(str(root).encode() in part for part in cmdline) and any(m in cmdline for m in mains)


def _clear(home: Path) -> None:
    import shutil

    shutil.rmtree(home)


def _count_logs(logs: Path, needle: str) -> int:
    """Lines with `needle` in server.log and the files log4j rolled it into (hourly: server.log.DATE-HH).

    A node started again after the hour turned rolls server.log on its first line: counting
    server.log alone, its "started" line did not raise the count, and a restore waited 300 s."""
    return sum(_count(path, needle) for path in logs.glob("server.log*"))


def _count(path: Path, needle: str) -> int:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return sum(1 for line in f if needle in line)
    except FileNotFoundError:
        return 0


def _last_error(*paths: Path) -> str:
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in reversed(lines):
            if "ERROR" in line or "Exception" in line:
                return line.strip()[:300]
    return "no error line in its logs"
