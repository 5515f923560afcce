"""A ZooKeeper-mode lab (Kafka 2.8, 3.9-zk): one ZooKeeper server and N brokers, one JVM each, by pid.

The same `lab ctl` verbs as on a KRaft lab. In ZooKeeper mode the controller is one of the brokers
(whichever holds the `/controller` znode), so `lab ctl crash controller` crashes that broker and
`lab ctl status` says which broker it is; the ZooKeeper server is the node `zookeeper`. Every JVM is
started as on a KRaft lab: its own session, killed with the Python process that started it.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from kafkatui.lab import config, zkconfig
from kafkatui.lab.cluster import LabCluster, Node, _clear, _die_with_parent, free_ports
from kafkatui.lab.errors import NoLab, StartFailed
from kafkatui.lab.fetch import ensure_jars, require_java
from kafkatui.lab.security import USERS, LabSecurity, refusal
from kafkatui.lab.tools import tool_command
from kafkatui.lab.versions import KafkaRelease

ZK_STARTED = "started (kafka.server.KafkaServer)"
"""A ZooKeeper-mode broker's ready line: `[KafkaServer id=1] started (kafka.server.KafkaServer)`."""


def lab_for(
    root: Path,
    rel: KafkaRelease,
    brokers: int = 3,
    racks: tuple[str, ...] = (),
    sasl: bool = False,
    security: LabSecurity | None = None,
) -> LabCluster:
    """A lab of `rel` in its mode: a `ZooKeeperLab` for 2.8 and 3.9-zk, a KRaft `LabCluster` otherwise;
    ValueError (one line) when `rel` cannot serve `security`'s modes."""
    if security is not None:
        why = refusal(rel)
        if why is not None:
            raise ValueError(why)
    if rel.zookeeper:
        return ZooKeeperLab(root, rel, brokers, racks, sasl, security=security)
    return LabCluster(root, rel, brokers, racks, sasl, security=security)


@dataclass
class ZooKeeperLab(LabCluster):
    """A ZooKeeper server plus `brokers` ZooKeeper-mode brokers of `rel`, under `root`."""

    zookeeper_heap: str = "128m"
    started_line: ClassVar[str] = ZK_STARTED

    def banner(self) -> str:
        """The start banner's first line."""
        return f"Kafka {self.rel.version} (ZooKeeper mode): ZooKeeper + {self.brokers} broker(s) in {self.root}"

    def timings_lines(self) -> list[str]:
        """The shortened timings (the ZooKeeper session instead of KRaft's heartbeats)."""
        return zkconfig.timings_lines()

    @property
    def zookeeper(self) -> Node:
        """The ZooKeeper server's node."""
        return self.nodes["zookeeper"]

    @property
    def zookeeper_connect(self) -> str:
        """`127.0.0.1:PORT` of the ZooKeeper server."""
        return f"127.0.0.1:{self.zookeeper.spec.port}"

    # ----------------------------------------------------------------- set-up
    def prepare(self) -> None:
        """Fetch the jars (once) and lay out the ZooKeeper server's and every broker's directory."""
        if not 1 <= self.brokers <= 9:
            raise ValueError("a lab has 1 to 9 brokers")
        if self.sasl:
            raise StartFailed(
                f"SASL and ACLs are not offered on a ZooKeeper-mode lab (Kafka {self.rel.key}): "
                "use a KRaft line, e.g. --version 4.4 or 3.9"
            )
        self.java = require_java(self.rel)
        self.libs = ensure_jars(self.rel)
        self.root.mkdir(parents=True, exist_ok=True)
        self._refuse_running()
        ports = free_ports(self.brokers + 1)
        specs: list[config.NodeSpec] = [zkconfig.ZooKeeperSpec(zkconfig.ZOOKEEPER_ID, ports[0])] + [
            config.NodeSpec(i, ports[i], self.racks[(i - 1) % len(self.racks)] if self.racks else None)
            for i in range(1, self.brokers + 1)
        ]
        self.cluster_id = ""  # ZooKeeper mode: the first broker makes one (read back once started)
        if self.security is not None:
            self.security.prepare(self.root / "security", [s.node_id for s in specs[1:]], free_ports)
        (self.root / "log4j.properties").write_text(config.LOG4J_PROPERTIES, encoding="utf-8")
        self.nodes = {}
        for spec in specs:
            home = self.root / spec.name
            if home.exists():
                _clear(home)
            (home / "logs").mkdir(parents=True)
            if spec.is_controller:
                props = zkconfig.zookeeper_properties(spec.port, home / "data")
            else:
                props = zkconfig.broker_properties(spec, ports[0], self.brokers, home / "data")
                if self.security is not None:
                    props = self.security.amend(props, spec, zookeeper=True)
            (home / "server.properties").write_text(props, encoding="utf-8")
            self.nodes[spec.name] = Node(spec, home)
        self._save()

    def _node_command(self, node: Node) -> list[str]:
        if not node.spec.is_controller:
            return super()._node_command(node)
        return [
            *self._java_base(self.zookeeper_heap),
            f"-Dkafka.logs.dir={node.logs}",
            "-Dzookeeper.admin.enableServer=false",
            zkconfig.ZOOKEEPER_MAIN,
            str(node.home / "server.properties"),
        ]

    # ---------------------------------------------------------------- running
    def start(self, timeout: float = 300.0) -> None:
        """Start ZooKeeper, wait until it serves, then start the brokers and wait until all registered.
        Secured: the SCRAM users go into ZooKeeper before any broker starts, the reader's ACLs after."""
        self._spawn(self.zookeeper)
        self._save()
        self.wait_ready(["zookeeper"], timeout)
        if self.security is not None and "sasl_ssl" in self.security.modes:
            self._add_scram_users(timeout)
        for node in self.broker_nodes:
            self._spawn(node)
        self._save()
        self.wait_ready([n.spec.name for n in self.broker_nodes], timeout)
        self._read_cluster_id()
        if self.security is not None:
            self.security.grant_reader(self.bootstrap)

    def _add_scram_users(self, timeout: float) -> None:
        """Each SCRAM user's credential written to ZooKeeper by Kafka's ConfigCommand (`kafka-configs.sh
        --zookeeper`), in parallel, the password read from a file of mode 0600 deleted afterwards."""
        assert self.security is not None
        logs = self.zookeeper.logs
        procs = []
        for user in USERS:
            conf = self.security.scram_config_file(user)
            args = [
                "--zookeeper", self.zookeeper_connect, "--alter", "--entity-type", "users", "--entity-name", user,
                "--add-config-file", str(conf),
            ]  # fmt: skip
            with open(logs / f"scram-{user}.out", "wb") as out:
                cmd = tool_command(self.rel, "kafka-configs.sh", args)
                proc = subprocess.Popen(
                    cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent
                )
                procs.append((user, conf, proc))
        failed = []
        for user, conf, proc in procs:
            try:
                code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            conf.unlink(missing_ok=True)
            if code != 0:
                failed.append(f"{user} (exit {code}; see {logs / f'scram-{user}.out'})")
        if failed:
            raise StartFailed("kafka-configs could not create the SCRAM users in ZooKeeper: " + ", ".join(failed))

    def wait_ready(self, names: Iterable[str], timeout: float = 300.0) -> None:
        """ZooKeeper: until it answers `srvr`. Brokers: their "started" line and their registration."""
        wanted = list(names)
        if "zookeeper" in wanted:
            self._wait_zookeeper(time.monotonic() + timeout)
            wanted.remove("zookeeper")
        if wanted:
            super().wait_ready(wanted, timeout)

    def _wait_zookeeper(self, deadline: float) -> None:
        node = self.zookeeper
        while not _zookeeper_serves(node.spec.port):
            if node.proc is None or node.proc.poll() is not None:
                code = None if node.proc is None else node.proc.returncode
                raise StartFailed(
                    f"ZooKeeper exited (code {code}) while starting (see {node.logs / 'server.log'}, "
                    f"{node.logs / 'kafkaServer.out'})"
                )
            if time.monotonic() > deadline:
                raise StartFailed(f"ZooKeeper did not serve on {self.zookeeper_connect} in time (see {node.logs})")
            time.sleep(0.25)

    def _read_cluster_id(self) -> None:
        from confluent_kafka.admin import AdminClient

        try:
            meta = AdminClient({"bootstrap.servers": self.bootstrap}).describe_cluster(request_timeout=10).result(15)
            self.cluster_id = str(meta.cluster_id or "")
        except Exception:  # noqa: BLE001 - only shown in lab.json
            self.cluster_id = ""
        self._save()

    def controller_id(self) -> int | None:
        """The broker that is the controller now (the Metadata's controller id), None when unknown."""
        from confluent_kafka.admin import AdminClient

        live = [n.spec.node_id for n in self.broker_nodes if n.pid is not None and not n.hung]
        if not live or self.zookeeper.pid is None:
            return None
        try:
            md = AdminClient({"bootstrap.servers": self.bootstrap_for(live), "socket.timeout.ms": 3000}).list_topics(
                timeout=3
            )
        except Exception:  # noqa: BLE001 - unknown while the cluster cannot answer
            return None
        return md.controller_id if md.controller_id is not None and md.controller_id >= 0 else None

    def node(self, name: str) -> Node:
        """A node by name: "zookeeper" (or "zk"), a broker ("b2", "2"), or "controller" (the broker that is
        the controller now); NoLab if there is none."""
        if name in ("zookeeper", "zk"):
            return self.zookeeper
        if name == "controller":
            cid = self.controller_id()
            if cid is None:
                raise NoLab("no controller is known now (is ZooKeeper up, and a broker running?)")
            return self.nodes[f"b{cid}"]
        if name in ("0", "b0"):
            raise NoLab(f"no node {name!r} in this lab: nodes are {', '.join(self.nodes)} (and controller)")
        return super().node(name)

    def status(self) -> list[dict[str, object]]:
        """One row per node; the role says which broker is the controller."""
        rows = super().status()
        cid = self.controller_id()
        for row in rows:
            if row["name"] == "zookeeper":
                row["role"] = "zookeeper"
            elif row["id"] == cid:
                # a dead controller is named until its ZooKeeper session expires, as clients see it
                row["role"] = "broker, controller" if row["pid"] else "broker, controller until its session expires"
        return rows


def _zookeeper_serves(port: int) -> bool:
    """True when the ZooKeeper server on 127.0.0.1:`port` answers the `srvr` four-letter word."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"srvr")
            conn.settimeout(2)
            return b"Zookeeper version" in conn.recv(4096)
    except OSError:
        return False
