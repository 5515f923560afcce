"""A ZooKeeper-mode lab's files: the ZooKeeper server's config and each broker's server.properties.

A ZooKeeper-mode lab (Kafka 2.8, 3.9-zk) is one ZooKeeper server and brokers 1..N, all on 127.0.0.1;
one broker at a time is the controller (the `/controller` znode). The timings are shortened as on a
KRaft lab: a broker whose ZooKeeper session expires is dropped, as a silent KRaft broker is fenced.
The logging is the tarball's log4j.properties (reload4j or log4j 1.2), the same as 3.9 KRaft's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kafkatui.lab import config

ZOOKEEPER_ID = 0
"""The ZooKeeper server's id in the lab (brokers are 1..N)."""

ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain"

ZK_TIMINGS: dict[str, str] = {
    "replica.lag.time.max.ms": config.TIMINGS["replica.lag.time.max.ms"],
    "replica.fetch.wait.max.ms": config.TIMINGS["replica.fetch.wait.max.ms"],
    "replica.fetch.backoff.ms": config.TIMINGS["replica.fetch.backoff.ms"],
    # default 18000: a broker silent this long loses its session; the controller then drops it from the ISRs
    "zookeeper.session.timeout.ms": "6000",
}
"""Shortened timings on every broker (the KRaft-only heartbeat and fencing keys are left out)."""

TICK_MS = 500
"""ZooKeeper's tickTime: sessions may last 2 to 20 ticks (1 to 10 s), so 6 s is granted as asked."""

_WHY = {
    "replica.lag.time.max.ms": "a follower that stops fetching leaves the ISR (while the partition takes writes)",
    "zookeeper.session.timeout.ms": "a silent broker's ZooKeeper session expires: the controller drops it",
}


def timings_lines() -> list[str]:
    """The timings as `key=value  (why)` lines, for the start banner."""
    width = max(len(f"{k}={v}") for k, v in ZK_TIMINGS.items())
    return [f"{k}={v}".ljust(width) + (f"  {_WHY[k]}" if k in _WHY else "") for k, v in ZK_TIMINGS.items()]


@dataclass(frozen=True)
class ZooKeeperSpec(config.NodeSpec):
    """The lab's ZooKeeper server (id 0): not a broker, and not the controller (a broker is)."""

    @property
    def name(self) -> str:
        """Directory and `lab ctl` name."""
        return "zookeeper"


def zookeeper_properties(port: int, data_dir: Path) -> str:
    """The ZooKeeper server's config: loopback only, no admin server, short ticks."""
    return "# kafkatui lab: the ZooKeeper server\n" + "".join(
        f"{k}={v}\n"
        for k, v in {
            "dataDir": str(data_dir),
            "clientPort": str(port),
            "clientPortAddress": "127.0.0.1",
            "tickTime": str(TICK_MS),
            "maxClientCnxns": "0",
            "admin.enableServer": "false",
            "4lw.commands.whitelist": "srvr",
        }.items()
    )


def broker_properties(node: config.NodeSpec, zk_port: int, brokers: int, data_dir: Path) -> str:
    """A ZooKeeper-mode broker's server.properties."""
    rf = str(min(3, brokers))
    min_isr = str(min(2, brokers))
    props = {
        "broker.id": str(node.node_id),
        "zookeeper.connect": f"127.0.0.1:{zk_port}",
        "zookeeper.connection.timeout.ms": "30000",
        "listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
        "log.dirs": str(data_dir),
        "num.network.threads": "2",
        "num.io.threads": "2",
        "background.threads": "2",
        "auto.leader.rebalance.enable": "false",  # leaders stay where failures put them, as kafkatui shows
        "min.insync.replicas": min_isr,
        **ZK_TIMINGS,
        "num.partitions": "1",
        "default.replication.factor": rf,
        "offsets.topic.replication.factor": rf,
        "offsets.topic.num.partitions": "3",
        "transaction.state.log.replication.factor": rf,
        "transaction.state.log.min.isr": min_isr,
        "transaction.state.log.num.partitions": "3",
        "group.initial.rebalance.delay.ms": "0",
        "auto.create.topics.enable": "false",
        "log.cleaner.dedupe.buffer.size": "2097152",  # default 128 MiB, allocated on the heap at start
        "replica.socket.timeout.ms": "3000",
    }
    if node.rack:
        props["broker.rack"] = node.rack
    return f"# kafkatui lab: ZooKeeper-mode broker {node.node_id}\n" + "".join(f"{k}={v}\n" for k, v in props.items())
