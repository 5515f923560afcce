"""The two clients a `kafkatui.kafka.source.KafkaClusterSource` reads with: created once, reused across
snapshots, recreated after a connection failure, closed (with every thread the source started) by `close()`.

confluent-kafka's `AdminClient` is created with the source (bad ``-X`` settings fail there);
kafka-python's `KafkaAdminClient` on first use, or on a pool thread while the first metadata is on
its way (`SourceClients._start_kafka_python`), bootstrapped from brokers known to answer.
`SourceClients` holds the state every phase of a snapshot shares; `kafkatui.kafka.metadata` (the
metadata read), `kafkatui.kafka.kpreads` (the kafka-python reads) and `kafkatui.kafka.source` (the
snapshot and the confluent-kafka reads) build on it.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Self

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from kafkatui.kafka.answers import _EarlyBrokerConfigs
from kafkatui.kafka.diagnose import _EventLog, _exc_kafka_error, _kp_reason
from kafkatui.kafka.errors import KafkaTuiError, UsageError, one_line, scrub
from kafkatui.kafka.firstread import RawConnection, Sockets
from kafkatui.kafka.settings import ConnectionSettings
from kafkatui.kafka.tlsprobe import explain_file_setting
from kafkatui.kafka.versions import BrokerVersions
from kafkatui.model.snapshot import StateTable

log = logging.getLogger(__name__)

ANSWERED_WAIT_SECONDS = 1.0
"""How long topic configs wait for a first broker to answer its own config request (to send them there)."""
KP_BOOTSTRAP_SECONDS = 1.0
"""How long kafka-python may take to connect before topic configs go through confluent-kafka instead."""
MAX_WORKERS = 16
LOG_DIR_MODES = ("all", "out-of-sync", "none")


def _address(host: str, port: int) -> str:
    """host:port as a bootstrap server (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _new_kafka_python_admin(kwargs: dict[str, Any]) -> Any:
    """A bootstrapped kafka-python KafkaAdminClient; nothing left running when bootstrap fails.

    KafkaAdminClient starts its I/O thread before it bootstraps, and a failed bootstrap leaves
    that thread running with no object to close it; this closes it. kafka-python logs every
    connection failure at ERROR to the root logger, which would break the one-line promise on
    stderr and a TUI's screen: its ``kafka`` logger is silenced unless the user configured it
    (the failures reach the user as snapshot problems instead).
    """
    from kafka.admin import KafkaAdminClient

    kafka_logger = logging.getLogger("kafka")
    if kafka_logger.level == logging.NOTSET:
        kafka_logger.setLevel(logging.CRITICAL)

    class _AdminClient(KafkaAdminClient):
        def __init__(self, **configs: Any) -> None:
            try:
                super().__init__(**configs)
            except BaseException:
                if hasattr(self, "_net"):
                    self._closed = False  # close() is a no-op unless construction completed
                    try:
                        self.close()
                    except Exception:
                        log.debug("cleaning up a failed kafka-python client failed", exc_info=True)
                raise

    return _AdminClient(**kwargs)


def import_kafka_python() -> None:
    """Import kafka-python's admin client (~0.2 s of CPU, more under load). A thread that would compete
    for the GIL with it meanwhile calls this first: a concurrent import of the same module waits for it."""
    importlib.import_module("kafka.admin")


def _kp_brokers(starting: cf.Future[Any]) -> list[tuple[int, str, int]]:
    """(id, host, port) of the brokers kafka-python's bootstrap Metadata named, once `starting` (the
    client being started, `SourceClients._start_kafka_python`) is up; empty until then or if it failed."""
    if not starting.done() or starting.cancelled() or starting.exception() is not None:
        return []
    try:
        return sorted((int(b.node_id), str(b.host), int(b.port)) for b in starting.result()._manager.cluster.brokers())
    except Exception as exc:  # another kafka-python: DescribeCluster names the brokers instead
        log.debug("kafka-python broker list unavailable: %s", exc)
        return []


def _kp_connected(kadmin: Any, node: int) -> bool:
    """Whether kafka-python (`kadmin`, may be None) has a connection up to broker `node`."""
    try:
        conn = kadmin._manager._conns.get(node) if kadmin is not None else None
        return bool(conn is not None and conn.connected)
    except Exception:  # another kafka-python
        return False


class SourceClients:
    """A source's clients, pool and shared state (see the module docstring)."""

    def __init__(
        self,
        settings: ConnectionSettings,
        *,
        log_dirs: str = "all",
        elr: bool = True,
        librdkafka_logger: logging.Logger | None = None,
        defer_kafka_python: bool = False,
    ) -> None:
        """Create the librdkafka client now (bad ``-X`` settings raise UsageError here); no I/O waits.

        `log_dirs`: ``"all"`` reads every replica's size and lag; ``"out-of-sync"`` only the
        replicas of partitions whose ISR is short of their replicas (what lag in bytes needs, and
        far cheaper on big healthy clusters); ``"none"`` skips DescribeLogDirs. `elr`: read
        eligible leader replicas (KIP-966) where they can exist. `defer_kafka_python`: the first
        snapshot reads topic configs through confluent-kafka and leaves kafka-python unstarted (a
        dashboard's first paint then does not share the GIL with its ~0.2 s import); later snapshots
        start it while their metadata is on its way.
        """
        if log_dirs not in LOG_DIR_MODES:
            raise UsageError(f"log_dirs must be one of {', '.join(LOG_DIR_MODES)}, not {log_dirs!r}")
        self.settings = settings
        self.log_dirs_mode = log_dirs
        self.want_elr = elr
        self._defer_kafka_python = defer_kafka_python  # until the first snapshot is read
        self._secrets = settings.secrets()
        self._forward_log = librdkafka_logger
        self._lock = threading.Lock()  # one snapshot at a time
        self._clients_lock = threading.Lock()  # guards the client references below
        self._closed = False
        self._events = _EventLog(self._secrets)
        self._admin: AdminClient | None = None
        self._kadmin: Any = None
        self._kp_start: cf.Future[Any] | None = None  # kafka-python being started (`_start_kafka_python`)
        # a broker, kafka-python's connection to it coming up and when it came up (`_warm_node`)
        self._kp_warm: tuple[int, Any, list[float]] | None = None
        self._executor: cf.ThreadPoolExecutor | None = None
        self._inflight: dict[str, cf.Future[Any]] = {}
        self._learnt: tuple[str, ...] = ()  # the brokers of the last metadata read (see `_bootstrap`)
        self._addresses: dict[int, str] = {}  # every broker id the metadata ever listed -> host:port
        self._listed: tuple[tuple[int, str, int], ...] = ()  # (id, host, port) of the last metadata's brokers
        self._racks: dict[int, str | None] = {}  # each broker's rack as last read
        self.waiting_on: str | None = None  # what a snapshot in progress waits for, in words (the header)
        self._md_seconds: float | None = None  # how long the last metadata read took
        self._md_admin: AdminClient | None = None  # the client that read it (its connections are up)
        self._hung: frozenset[int] = frozenset()  # brokers found frozen by the last snapshot
        self._hung_asked: dict[int, cf.Future[Any]] = {}  # each one's config request of that snapshot
        self._table = StateTable()  # partition states, shared by this source's snapshots
        self._partitions_seen = 0  # partitions in the last metadata read
        self._kp_md_node: int | None = None  # the broker whose raw Metadata answer a refresh took last
        self._raw_conn: RawConnection | None = None  # a first read's own connection (kafka/firstread.py)
        # that connection's ApiVersions answer (a future) and the bootstrap server it was asked of
        self._raw_asked: tuple[cf.Future[dict[int, tuple[int, int]]], tuple[str, int]] | None = None
        self._own_sockets = Sockets()  # every connection of our own, shut down by close()
        self._admin = self._new_admin()
        self._versions = BrokerVersions(settings.to_confluent())  # the brokers' Kafka versions

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close both clients and join every thread this source started. Idempotent."""
        with self._clients_lock:
            self._closed = True
            admin, self._admin = self._admin, None
            self._md_admin = None
            kadmin, self._kadmin = self._kadmin, None
            self._kp_warm = None
            raw, self._raw_conn = self._raw_conn, None
            executor, self._executor = self._executor, None
        if raw is not None:
            raw.close()
        self._own_sockets.close_all()
        self._close_kadmin(kadmin)
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        self._inflight.clear()
        del admin  # librdkafka's threads are joined when the last reference goes

    def describe_quorum(self) -> dict[str, Any]:
        """The KRaft metadata quorum (DescribeQuorum through kafka-python: leader, voters and their log
        end offsets); KafkaTuiError when it cannot be read (a ZooKeeper cluster does not have one)."""
        try:
            answer: dict[str, Any] = self._kafka_python(
                time.monotonic() + self.settings.timeout
            ).describe_metadata_quorum()
        except KafkaTuiError:
            raise
        except Exception as exc:
            raise KafkaTuiError(
                self._scrub(f"describing the controller quorum: {one_line(str(exc)) or type(exc).__name__}")
            ) from None
        return answer

    def _reset_clients(self) -> None:
        """Drop both clients after a connection failure: the next snapshot starts afresh."""
        with self._clients_lock:
            self._admin = self._md_admin = None
            kadmin, self._kadmin = self._kadmin, None
        self._close_kadmin(kadmin)

    def _drop_admin(self, admin: AdminClient) -> None:
        """The next snapshot reads through a new librdkafka client: `admin` keeps its connection to a broker
        just found frozen and may send it the next metadata request, which then waits out a whole attempt
        (measured: 1.1-1.6 s, the recording's ISR shrink that much later). A new client cannot finish its
        handshake with a frozen broker, so it never chooses that one."""
        with self._clients_lock:
            if self._admin is admin:
                self._admin = None

    @staticmethod
    def _close_kadmin(kadmin: Any) -> None:
        if kadmin is not None:
            try:
                kadmin.close()
            except Exception:  # closing must not fail the caller
                log.debug("closing kafka-python admin client failed", exc_info=True)

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)

    def _bootstrap(self) -> list[str]:
        """The configured bootstrap servers, then the brokers the last metadata named.

        A new client (after a failure, or a retry) bootstraps from these: when the configured bootstrap
        broker is down, the others still let the dashboard read the cluster, as its old client did.
        """
        return [*self.settings.bootstrap, *(a for a in self._learnt if a not in self.settings.bootstrap)]

    def _new_admin(self) -> AdminClient:
        conf: dict[str, Any] = {
            "socket.connection.setup.timeout.ms": str(max(1000, int(self.settings.timeout * 1000))),
        }
        conf.update(self.settings.to_confluent())
        conf["bootstrap.servers"] = ",".join(self._bootstrap())
        conf["error_cb"] = self._events.error_cb
        conf["logger"] = self._events.logger(self._forward_log)
        try:
            return AdminClient(conf)
        except KafkaException as exc:
            err = _exc_kafka_error(exc)
            reason = err.str() if err is not None else str(exc)
            reason = explain_file_setting(reason, self.settings.to_confluent()) or reason
            raise UsageError(f"invalid client settings: {self._scrub(reason)}") from None
        except (TypeError, ValueError) as exc:
            raise UsageError(f"invalid client settings: {self._scrub(str(exc))}") from None

    def _admin_client(self) -> AdminClient:
        with self._clients_lock:
            if self._closed:
                raise KafkaTuiError("the cluster source is closed")
            if self._admin is None or self._events.fatal:
                self._events = _EventLog(self._secrets)
                self._admin = self._new_admin()
            return self._admin

    def _pool(self) -> cf.ThreadPoolExecutor:
        with self._clients_lock:
            if self._closed:
                raise KafkaTuiError("the cluster source is closed")
            if self._executor is None:
                self._executor = cf.ThreadPoolExecutor(MAX_WORKERS, thread_name_prefix="kafkatui-source")
            return self._executor

    def _kafka_python(self, deadline: float, servers: Sequence[str] = ()) -> Any:
        """The kafka-python admin client, created (bootstrapped from `servers`, brokers known to answer, when
        given) on first use within `deadline`; one being started for this snapshot (`_start_kafka_python`) is
        waited for rather than doubled."""
        starting = self._kp_start
        if starting is not None and not starting.done():
            cf.wait([starting], timeout=max(0.0, deadline - time.monotonic()))
        return self._create_kafka_python(deadline, servers, None)

    def _create_kafka_python(self, deadline: float, servers: Sequence[str], bootstrap_seconds: float | None) -> Any:
        """The kafka-python client, bootstrapped from `servers` (brokers known to answer) when given;
        `bootstrap_seconds` caps the bootstrap (a caller with a fallback does not give it the whole deadline)."""
        with self._clients_lock:
            if self._kadmin is not None:
                return self._kadmin
        kwargs = self.settings.to_kafka_python()
        # kafka-python bootstraps from ONE server picked at random and gives it the whole timeout:
        # a hung broker in the configured list (SIGSTOP, a stuck disk) would cost the log dirs and
        # ELR of one snapshot in N. The brokers the metadata just named are registered and unfenced.
        kwargs["bootstrap_servers"] = list(servers) or list(self._learnt) or self._bootstrap()
        remaining = deadline - time.monotonic()
        if bootstrap_seconds is not None:
            remaining = min(remaining, bootstrap_seconds)
        kwargs["bootstrap_timeout_ms"] = min(kwargs["bootstrap_timeout_ms"], max(500, int(remaining * 1000)))
        kwargs["metadata_max_age_ms"] = 30_000  # learn new brokers soon (brokers only: cheap)
        client = _new_kafka_python_admin(kwargs)
        with self._clients_lock:
            if not self._closed and self._kadmin is None:
                self._kadmin = client
                return client
            kept = self._kadmin
        self._close_kadmin(client)  # closed meanwhile, or another thread's client won
        if kept is None:
            raise KafkaTuiError("the cluster source is closed")
        return kept

    def _start_kafka_python(self, early: _EarlyBrokerConfigs, deadline: float) -> Any:
        """Pool thread, while the metadata is on its way: import kafka-python (~0.2 s) and bootstrap it
        from the first brokers that answer their own config request (it reads the topic configs).

        With one bootstrap server and no broker learnt yet (a first read, `check`), that server is the one
        the metadata must come from anyway: kafka-python bootstraps from it at once, while the metadata
        is on its way, instead of a round trip or two later (each a full RTT from a far bastion)."""
        import_kafka_python()
        servers: list[str] = []
        first = len(self.settings.bootstrap) == 1 and not self._learnt
        if not first:
            wait = min(ANSWERED_WAIT_SECONDS, deadline - time.monotonic())
            servers = [_address(host, port) for host, port in early.answered(wait)]
        client = self._create_kafka_python(deadline, servers, KP_BOOTSTRAP_SECONDS)
        if first:
            self._warm_connection(client)
        return client

    def _warm_connection(self, kadmin: Any) -> None:
        """Open kafka-python's connection to the bootstrap server's broker now (its bootstrap connection is
        closed once bootstrapped), while the metadata is still on its way: the topic configs then go out on
        it as soon as the metadata names the topics, not a round trip (ApiVersions, and the TLS and SASL
        handshakes) later. Not waited for: `_warm_node` says whether it came up."""
        try:
            manager = kadmin._manager
            (server,) = self.settings.bootstrap
            node = next(b.node_id for b in manager.cluster.brokers() if _address(b.host, b.port) == server)
            ready: list[float] = []

            def connect() -> Any:
                conn = manager.get_connection(node)
                conn.init_future.add_callback(lambda _: ready.append(time.monotonic()))
                return conn

            self._kp_warm = (int(node), manager.call_soon(connect), ready)
        except Exception as exc:  # advertised under another address, or another kafka-python: not warmed
            log.debug("no kafka-python connection opened early: %s", exc)

    def _warm_node(self, kadmin: Any, answered_at: Mapping[int, float]) -> int | None:
        """The broker whose kafka-python connection `_warm_connection` opened (one use: the first read's topic
        configs), unless it is slower than the others: its connection came up (ApiVersions, one round trip)
        after another broker answered its own config request (ApiVersions and DescribeConfigs on a new
        connection, two, sent at about the same time: `answered_at`), or it is still coming up while one has.
        Still coming up and no other broker heard from: requests sent meanwhile wait for it, which is sooner
        than on a new connection."""
        warm, self._kp_warm = self._kp_warm, None
        if warm is None or kadmin is None or kadmin is not self._kadmin:
            return None
        node, opened, ready = warm
        others = [at for bid, at in answered_at.items() if bid != node]
        first_other = min(others) if others else None
        try:
            conn = opened.value if opened.is_done and opened.succeeded() else None
            if conn is None or conn.closed:
                return None
        except Exception:
            return None
        if ready:
            return node if first_other is None or ready[0] <= first_other else None
        return node if first_other is None else None

    def _kafka_python_for_configs(self, md: Any, answered: Sequence[int], deadline: float) -> Any:
        """The kafka-python client for topic configs, or None (then confluent-kafka reads them).

        The one `_start_kafka_python` began during the metadata, else one bootstrapped now from the
        `answered` brokers (their config request answered: they are not hung); either gets at most
        KP_BOOTSTRAP_SECONDS, since the confluent-kafka path is the fallback.
        """
        starting = self._kp_start
        try:
            if starting is not None and self._kadmin is None:
                cf.wait([starting], timeout=max(0.0, min(KP_BOOTSTRAP_SECONDS, deadline - time.monotonic())))
                if not starting.done():
                    return None  # still connecting: confluent-kafka this time, kafka-python from the next
            servers = [_address(md.brokers[bid].host, md.brokers[bid].port) for bid in answered]
            return self._create_kafka_python(deadline, servers, KP_BOOTSTRAP_SECONDS)
        except KafkaTuiError:
            raise  # the source was closed meanwhile
        except Exception as exc:
            reason = _kp_reason(exc, KP_BOOTSTRAP_SECONDS)
            log.debug("kafka-python unavailable for topic configs: %s", self._scrub(reason))
            return None
