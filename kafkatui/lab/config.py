"""Each lab node's server.properties and the log4j files, in the layout of Kafka's own tarball.

A lab is one dedicated KRaft controller (node 0) and brokers 1..N, all on 127.0.0.1. The timings
are shortened so that ISR changes show within seconds; `TIMINGS` is printed when the lab starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CONTROLLER_ID = 0

TIMINGS: dict[str, str] = {
    "replica.lag.time.max.ms": "3000",  # default 30000: a stalled follower leaves the ISR within ~3-5 s
    "replica.fetch.wait.max.ms": "200",  # default 500; must stay <= replica.lag.time.max.ms
    "replica.fetch.backoff.ms": "200",  # default 1000
    "broker.heartbeat.interval.ms": "500",  # default 2000
    "broker.session.timeout.ms": "6000",  # default 9000: a silent broker is fenced after 6 s
    "unclean.leader.election.interval.ms": "1000",  # default 300000 (internal)
}
"""Shortened timings, on every node (controller-side ones are read by the controller)."""

_WHY = {
    "replica.lag.time.max.ms": "a follower that stops fetching leaves the ISR (while the partition takes writes)",
    "broker.session.timeout.ms": "the controller fences a silent broker and drops it from every ISR",
    "unclean.leader.election.interval.ms": "how often the controller retries unclean elections where allowed",
}


def timings_lines() -> list[str]:
    """The timings as `key=value  (why)` lines, for the start banner."""
    width = max(len(f"{k}={v}") for k, v in TIMINGS.items())
    return [f"{k}={v}".ljust(width) + (f"  {_WHY[k]}" if k in _WHY else "") for k, v in TIMINGS.items()]


SASL_USERS: dict[str, str] = {"admin": "admin-secret", "alice": "alice-secret"}
"""The lab's SASL/PLAIN users when started with `sasl=True`: `admin` is a super user, `alice` has only
the ACLs a test grants her. Rehearsal credentials of a loopback cluster, written in its config."""

AUTHORIZERS = {
    True: "org.apache.kafka.metadata.authorizer.StandardAuthorizer",  # KRaft's ACL authorizer (3.x and 4.x)
}


@dataclass(frozen=True)
class NodeSpec:
    """One JVM of the lab: the controller (id 0) or a broker."""

    node_id: int
    port: int
    rack: str | None = None
    sasl_port: int | None = None  # a SASL_PLAINTEXT/PLAIN listener with ACLs, when the lab has one

    @property
    def is_controller(self) -> bool:
        """True for the dedicated KRaft controller."""
        return self.node_id == CONTROLLER_ID

    @property
    def name(self) -> str:
        """Directory and `lab ctl` name: "controller" or "b1", "b2"..."""
        return "controller" if self.is_controller else f"b{self.node_id}"


def _props(pairs: dict[str, str]) -> str:
    return "".join(f"{k}={v}\n" for k, v in pairs.items())


def server_properties(node: NodeSpec, controller_port: int, brokers: int, data_dir: Path, sasl: bool = False) -> str:
    """The node's server.properties."""
    voters = f"{CONTROLLER_ID}@127.0.0.1:{controller_port}"
    min_isr = str(min(2, brokers))
    common = {
        "node.id": str(node.node_id),
        "controller.quorum.voters": voters,
        "controller.listener.names": "CONTROLLER",
        "log.dirs": str(data_dir),
        "num.network.threads": "2",
        "num.io.threads": "2",
        "background.threads": "2",
        "auto.leader.rebalance.enable": "false",  # leaders stay where failures put them, as kafkatui shows
        # on the controller too: with ELR (4.1) the controller's value becomes the cluster-wide dynamic default
        "min.insync.replicas": min_isr,
        **TIMINGS,
    }
    if node.sasl_port is not None or sasl:
        # ACLs everywhere; the PLAINTEXT and CONTROLLER listeners act as ANONYMOUS, a super user, so that the
        # cluster's own traffic and the tests' plain clients are unaffected; SASL users get only their ACLs
        common["authorizer.class.name"] = AUTHORIZERS[True]
        common["super.users"] = "User:ANONYMOUS;User:admin"
        common["allow.everyone.if.no.acl.found"] = "false"
    if node.is_controller:
        return "# kafkatui lab: the KRaft controller\n" + _props(
            {
                "process.roles": "controller",
                **common,
                "listeners": f"CONTROLLER://127.0.0.1:{node.port}",
                "advertised.listeners": f"CONTROLLER://127.0.0.1:{node.port}",
                "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
            }
        )
    rf = str(min(3, brokers))
    broker = {
        "process.roles": "broker",
        **common,
        "listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
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
        broker["broker.rack"] = node.rack
    if node.sasl_port is not None:
        users = " ".join(f'user_{u}="{p}"' for u, p in SASL_USERS.items())
        broker["listeners"] += f",SASL_PLAINTEXT://127.0.0.1:{node.sasl_port}"
        broker["advertised.listeners"] += f",SASL_PLAINTEXT://127.0.0.1:{node.sasl_port}"
        broker["listener.security.protocol.map"] += ",SASL_PLAINTEXT:SASL_PLAINTEXT"
        broker["sasl.enabled.mechanisms"] = "PLAIN"
        broker["listener.name.sasl_plaintext.plain.sasl.jaas.config"] = (
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="admin" password="{SASL_USERS["admin"]}" {users};'
        )
    return f"# kafkatui lab: broker {node.node_id}\n" + _props(broker)


_LOG4J2_APPENDERS = ("server", "state-change", "controller", "kafka-request", "log-cleaner", "kafka-authorizer")

LOG4J2_YAML = (
    """# kafkatui lab: the logging of Kafka 4.x's tarball (config/log4j2.yaml), files only (no stdout).
Configuration:
  Properties:
    Property:
      - name: "kafka.logs.dir"
        value: "."
      - name: "logPattern"
        value: "[%d] %p %m (%c)%n"
  Appenders:
    RollingFile:
"""
    + "".join(
        f"""      - name: {name}
        fileName: "${{sys:kafka.logs.dir}}/{name}.log"
        filePattern: "${{sys:kafka.logs.dir}}/{name}.log.%d{{yyyy-MM-dd-HH}}"
        PatternLayout:
          pattern: "${{logPattern}}"
        TimeBasedTriggeringPolicy:
          modulate: true
          interval: 1
"""
        for name in _LOG4J2_APPENDERS
    )
    + """  Loggers:
    Root:
      level: INFO
      AppenderRef:
        - ref: server
    Logger:
      - name: kafka
        level: INFO
      - name: org.apache.kafka
        level: INFO
      - name: kafka.request.logger
        level: WARN
        additivity: false
        AppenderRef:
          ref: kafka-request
      - name: kafka.network.RequestChannel$
        level: WARN
        additivity: false
        AppenderRef:
          ref: kafka-request
      - name: org.apache.kafka.controller
        level: INFO
        additivity: false
        AppenderRef:
          ref: controller
      - name: kafka.log.LogCleaner
        level: INFO
        additivity: false
        AppenderRef:
          ref: log-cleaner
      - name: org.apache.kafka.storage.internals.log.LogCleaner
        level: INFO
        additivity: false
        AppenderRef:
          ref: log-cleaner
      - name: state.change.logger
        level: INFO
        additivity: false
        AppenderRef:
          ref: state-change
      - name: kafka.authorizer.logger
        level: INFO
        additivity: false
        AppenderRef:
          ref: kafka-authorizer
"""
)

_LOG4J1_APPENDERS = {
    "kafkaAppender": "server",
    "stateChangeAppender": "state-change",
    "requestAppender": "kafka-request",
    "cleanerAppender": "log-cleaner",
    "controllerAppender": "controller",
    "authorizerAppender": "kafka-authorizer",
}

LOG4J_PROPERTIES = (
    "# kafkatui lab: the logging of Kafka 3.9's tarball (config/log4j.properties), files only.\n"
    + "log4j.rootLogger=INFO, kafkaAppender\n"
    + "".join(
        f"log4j.appender.{a}=org.apache.log4j.DailyRollingFileAppender\n"
        f"log4j.appender.{a}.DatePattern='.'yyyy-MM-dd-HH\n"
        f"log4j.appender.{a}.File=${{kafka.logs.dir}}/{f}.log\n"
        f"log4j.appender.{a}.layout=org.apache.log4j.PatternLayout\n"
        f"log4j.appender.{a}.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
        for a, f in _LOG4J1_APPENDERS.items()
    )
    + """log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN, requestAppender
log4j.additivity.kafka.request.logger=false
log4j.logger.kafka.network.RequestChannel$=WARN, requestAppender
log4j.additivity.kafka.network.RequestChannel$=false
log4j.logger.org.apache.kafka.controller=INFO, controllerAppender
log4j.additivity.org.apache.kafka.controller=false
log4j.logger.kafka.controller=TRACE, controllerAppender
log4j.additivity.kafka.controller=false
log4j.logger.kafka.log.LogCleaner=INFO, cleanerAppender
log4j.additivity.kafka.log.LogCleaner=false
log4j.logger.state.change.logger=INFO, stateChangeAppender
log4j.additivity.state.change.logger=false
log4j.logger.kafka.authorizer.logger=INFO, authorizerAppender
log4j.additivity.kafka.authorizer.logger=false
"""
)

TOOLS_LOG4J2_YAML = """Configuration:
  Appenders:
    Console:
      name: STDERR
      target: SYSTEM_ERR
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: STDERR
"""

TOOLS_LOG4J_PROPERTIES = """log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr.Target=System.err
"""
