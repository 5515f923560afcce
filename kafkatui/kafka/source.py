"""Read a cluster into a `ClusterSnapshot`: the only code that talks to Kafka for the model.

`KafkaClusterSource` uses two clients, each for what it does well:

* confluent-kafka (librdkafka) for the metadata (one `list_topics`; `describe_cluster`
  alongside for the racks) and for broker configs: one DescribeConfigs per broker (librdkafka
  allows one BROKER resource per call, and a broker's own configs must be asked of that broker),
  sent as soon as DescribeCluster names the brokers, while the metadata of every topic is still
  on its way;
* kafka-python's KafkaAdminClient for topic configs (DescribeConfigs naming only the kept keys,
  `TOPICS_PER_DESCRIBE` topics a request, all in flight at once: `kafkatui.kafka.topicconfigs`;
  confluent-kafka reads them when kafka-python cannot), DescribeLogDirs (replica sizes and offset
  lag, one request per broker, in parallel) and DescribeTopicPartitions (ELR, KIP-966; only asked
  for topics with a partition under min ISR, the only time an ELR can be non-empty; skipped when
  the brokers do not support API 75).

Timing: the metadata must arrive within ``settings.timeout``; configs, log dirs and ELR get
what is left, at least `MIN_PHASE_SECONDS`. Connection failures that librdkafka reports with a
reason (refused, DNS, TLS, SASL, not Kafka) end the attempt after `FAIL_FAST_GRACE`; a failure
without one costs the timeout plus a TCP probe of at most `PROBE_SECONDS`. A hung broker costs
one metadata attempt (see `KafkaClusterSource._metadata`), then shows as problems. A broker that
died but is still listed (the controller fences it only after its session timeout) is found by a
TCP probe once the other answers are in, and costs no wait (`DOWN_PROBE_AFTER`).

Without metadata there is no snapshot: the failure becomes a `KafkaTuiError` subclass with a
one-line message naming host:port and cause (see `kafkatui.kafka.errors`). Anything after the
metadata that fails (configs denied, a broker hung or dying mid-fetch) gives a snapshot with
``partial=True`` and one line per problem.

The partitions are read in one pass into columns of a `StateTable` the source keeps across its
snapshots (`kafkatui.model.snapshot.Partitions`: no object per partition, and equal states of two
snapshots have equal ids), while the configs are in flight (`kafkatui.kafka.answers`). Errors are
classified in `kafkatui.kafka.diagnose`.

Clients are created once and reused across snapshots, and recreated after a connection
failure. A source may be called from any thread; snapshots are serialised. `close()` joins
every thread the source started (waiting at most for one unanswered metadata attempt).

Size: about 900 lines after `ruff format`: one class whose phases (metadata, overlapped config,
log-dir and ELR requests, client lifecycle) share its clients, deadline and lock; error diagnosis
(`diagnose`) and answer parsing (`answers`) are already apart. Moving the kafka-python half (log dirs,
ELR) into its own module is the next split.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatui.kafka import topicconfigs
from kafkatui.kafka.answers import (
    MIN_PHASE_SECONDS,
    POLL_SECONDS,
    _add_elr,
    _config_values,
    _describe_topic_partitions,
    _Details,
    _EarlyBrokerConfigs,
    _int,
    _kp_send,
    _outcome,
    _read_partitions,
    _storage,
)
from kafkatui.kafka.diagnose import (
    _UNVERIFIED,
    ClientEvent,
    _best,
    _EventLog,
    _exc_kafka_error,
    _kp_reason,
    _probe,
    _timed_out,
    classify_event,
    classify_kafka_error,
)
from kafkatui.kafka.errors import (
    AuthenticationError,
    KafkaTuiError,
    MetadataTimeoutError,
    NotKafkaError,
    UsageError,
    one_line,
    scrub,
)
from kafkatui.kafka.settings import ConnectionSettings, parse_host_port
from kafkatui.kafka.tlsprobe import (
    PROBE_TIMEOUT,
    REJECTED_CLIENT_CERT,
    client_certificate_hint,
    explain,
    explain_file_setting,
    verify_failure_reason,
)
from kafkatui.kafka.versions import BrokerVersions, cluster_version
from kafkatui.model.snapshot import (
    BrokerInfo,
    ClusterSnapshot,
    ConfigValue,
    ReplicaLog,
    StateTable,
    TopicInfo,
)

log = logging.getLogger(__name__)

TOPIC_CONFIG_KEYS = frozenset(
    {
        "min.insync.replicas",
        "unclean.leader.election.enable",
        "leader.replication.throttled.replicas",
        "follower.replication.throttled.replicas",
        "cleanup.policy",
        "retention.ms",
        "retention.bytes",
    }
)
"""Topic configs kept in a snapshot (DescribeConfigs answers with all; the rest is dropped)."""

BROKER_CONFIG_KEYS = frozenset(
    {
        "min.insync.replicas",
        "unclean.leader.election.enable",
        "replica.lag.time.max.ms",
        "leader.replication.throttled.rate",
        "follower.replication.throttled.rate",
        "default.replication.factor",
        "offsets.topic.replication.factor",
        "transaction.state.log.replication.factor",
        "transaction.state.log.min.isr",
        "broker.rack",
        "process.roles",
        "controller.quorum.voters",
        "zookeeper.connect",
    }
)
"""Broker configs kept in a snapshot (process.roles and controller.quorum.voters tell a KRaft cluster's
controller: `controller_of`; zookeeper.connect, set only in ZooKeeper mode, the mode: `model.mode`)."""

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})
"""Kafka's internal topics (Topic.INTERNAL_TOPICS); librdkafka's metadata has no internal flag."""

TOPICS_PER_DESCRIBE = 1000
"""Topics per DescribeConfigs request; bigger clusters send several requests in parallel."""

ANSWERED_WAIT_SECONDS = 1.0
"""How long topic configs wait for a first broker to answer its own config request (to send them there)."""

KP_BOOTSTRAP_SECONDS = 1.0
"""How long kafka-python may take to connect before topic configs go through confluent-kafka instead."""

LEARN_BROKERS_SECONDS = 1.0
"""At most this long a snapshot waits for kafka-python to learn a broker the metadata names and it does not."""


FAIL_FAST_GRACE = 1.0
"""How long librdkafka may retry before "every bootstrap server failed" ends the attempt."""

ATTEMPTS = 2
"""A metadata request gets timeout/ATTEMPTS (at least 0.5 s), then another is sent."""

QUIET_SECONDS = 0.25
"""Without a connection error this soon, the metadata request goes out even before DescribeCluster answers."""

RETRY_SECONDS = 0.1
PROBE_SECONDS = 1.0
DOWN_PROBE_AFTER = 0.3
"""Seconds after the config requests went out when brokers still silent are probed: refused = down."""
STRAGGLER_SECONDS = 1.0
ABSENT_PROBE_SECONDS = 0.5
KNOWN_HUNG_GRACE = 0.25
"""How long a broker found frozen by the previous snapshot is waited for once the others have answered."""
"""How much longer than the others a broker that accepts connections but does not answer is waited for."""
NOT_ANSWERING = "not answering: it accepts connections but sent no answer (frozen: a GC pause or a stuck disk?)"
MAX_WORKERS = 16
LOG_DIR_MODES = ("all", "out-of-sync", "none")
STATE_TABLE_MIN = 100_000
"""Distinct partition states a source's table may hold before it starts a new one (see `_state_table`)."""

DTP_API_KEY = 75
VERSIONS_WAIT = 1.0
"""How long a snapshot waits, after its other answers, for ApiVersions answers still on their way
(one per broker not yet known: the first read; a hung broker's is picked up by a later read)."""
_RETRIABLE = (KafkaError._TIMED_OUT, KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._DESTROY_BROKER)
"""Request failures worth another attempt. _DESTROY_BROKER: librdkafka dropped the broker handle
the request waited on (a bootstrap or departed broker it no longer keeps), not an answer."""


class ClusterSource(Protocol):
    """Anything that produces snapshots: a live cluster, a recording, a test double."""

    def snapshot(self) -> ClusterSnapshot:
        """Read the cluster now. Raises KafkaTuiError when no snapshot at all is possible."""
        ...

    def close(self) -> None:
        """Release connections and threads. Idempotent."""
        ...


def _address(host: str, port: int) -> str:
    """host:port as a bootstrap server (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _names(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _unreadable_topics(failed: Mapping[str, list[str]], problems: list[str]) -> None:
    for reason, names in failed.items():
        problems.append(
            f"configs of {len(names)} topic(s) unreadable: {reason}; broker or Kafka defaults assumed "
            f"({_names(sorted(names))})"
        )


def _used_states(parts: Mapping[str, Any]) -> set[int]:
    used: set[int] = set()
    for each in parts.values():
        used.update(each.states)
    return used


def _answered(broker_futures: Mapping[int, cf.Future[Any]], md: Any, wait: float) -> list[int]:
    """The listed brokers whose own config request answered (waiting up to `wait` for a first one)."""

    def now_answered() -> list[int]:
        return [
            bid
            for bid, fut in sorted(broker_futures.items())
            if bid in md.brokers and fut.done() and not fut.cancelled() and fut.exception() is None
        ]

    found = now_answered()
    deadline = time.monotonic() + wait
    pending = [f for f in broker_futures.values() if not f.done()]
    while not found and pending and time.monotonic() < deadline:
        cf.wait(pending, timeout=max(0.0, deadline - time.monotonic()), return_when=cf.FIRST_COMPLETED)
        pending = [f for f in pending if not f.done()]
        found = now_answered()
    return found


def _learn_brokers(kadmin: Any, broker_ids: Sequence[int], wait: float) -> None:
    """Make kafka-python's broker list (refreshed every 30 s) hold every broker the metadata just named:
    a broker back from a crash would otherwise be "not in the cluster" to it, and its log dirs unknown,
    for up to 30 s after the events said it joined. Asks one refresh and waits at most `wait` seconds."""
    try:
        cluster = kadmin._manager.cluster
        if all(cluster.broker_metadata(bid) is not None for bid in broker_ids):
            return
        update = cluster.request_update()
    except Exception as exc:  # another kafka-python: its own refresh will do
        log.debug("kafka-python broker list not refreshed: %s", exc)
        return
    deadline = time.monotonic() + wait
    while not update.is_done and time.monotonic() < deadline:
        time.sleep(0.02)


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


# --------------------------------------------------------------------------- the source
class KafkaClusterSource:
    """A `ClusterSource` for a real Kafka cluster (or anything speaking its protocol)."""

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
        self._executor: cf.ThreadPoolExecutor | None = None
        self._inflight: dict[str, cf.Future[Any]] = {}
        self._learnt: tuple[str, ...] = ()  # the brokers of the last metadata read (see `_bootstrap`)
        self._addresses: dict[int, str] = {}  # every broker id the metadata ever listed -> host:port
        self.waiting_on: str | None = None  # what a snapshot in progress waits for, in words (the header)
        self._md_seconds: float | None = None  # how long the last metadata read took
        self._hung: frozenset[int] = frozenset()  # brokers found frozen by the last snapshot
        self._table = StateTable()  # partition states, shared by this source's snapshots
        self._admin = self._new_admin()
        self._versions = BrokerVersions(settings.to_confluent())  # the brokers' Kafka versions

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> KafkaClusterSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close both clients and join every thread this source started. Idempotent."""
        with self._clients_lock:
            self._closed = True
            admin, self._admin = self._admin, None
            kadmin, self._kadmin = self._kadmin, None
            executor, self._executor = self._executor, None
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
            self._admin = None
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

    def _kafka_python(self, deadline: float) -> Any:
        """The kafka-python admin client, created (bootstrapped) on first use within `deadline`; one
        being started for this snapshot (`_start_kafka_python`) is waited for rather than doubled."""
        starting = self._kp_start
        if starting is not None and not starting.done():
            cf.wait([starting], timeout=max(0.0, deadline - time.monotonic()))
        return self._create_kafka_python(deadline, (), None)

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
        from the first brokers that answer their own config request (it reads the topic configs)."""
        importlib.import_module("kafka.admin")
        wait = min(ANSWERED_WAIT_SECONDS, deadline - time.monotonic())
        servers = [_address(host, port) for host, port in early.answered(wait)]
        return self._create_kafka_python(deadline, servers, KP_BOOTSTRAP_SECONDS)

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

    def _state_table(self, md: Any) -> StateTable:
        """The table of partition states this source's snapshots share (so that equal states of two
        snapshots have equal ids), started afresh when churn has grown it far past the cluster's size."""
        partitions = sum(len(t.partitions) for t in md.topics.values())
        if len(self._table) > max(STATE_TABLE_MIN, 4 * partitions):
            self._table = StateTable()
        return self._table

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> ClusterSnapshot:
        """Read metadata, configs, log dirs and ELR; raises KafkaTuiError when no metadata."""
        with self._lock:
            try:
                return self._snapshot()
            finally:
                self.waiting_on = None

    def _snapshot(self) -> ClusterSnapshot:
        """The body of `snapshot`, under its lock."""
        start = time.monotonic()
        deadline = start + self.settings.timeout
        self.waiting_on = "the metadata"
        admin = self._admin_client()
        # DescribeCluster (a Metadata request without topics, sent to the controller) gives
        # the racks and tells "connected, but the full metadata is slow" from "no answer"
        cluster = admin.describe_cluster(request_timeout=self.settings.timeout)
        early = _EarlyBrokerConfigs(admin, deadline)
        self._pool().submit(early.run, cluster)
        deferred = self._defer_kafka_python
        if not deferred and self._kadmin is None and (self._kp_start is None or self._kp_start.done()):
            self._kp_start = self._pool().submit(self._start_kafka_python, early, deadline)
        try:
            md, admin = self._metadata(admin, start, deadline, cluster)
        except BaseException as exc:
            early.take(None)
            if isinstance(exc, KafkaTuiError):
                self._reset_clients()
            raise
        # the partitions' state is as of this answer: DescribeCluster before it can wait seconds for a
        # hung broker, and a stamp from the start made the recorder date changes that much too early
        taken_at = time.time()
        self._learnt = tuple(_address(b.host, b.port) for _, b in sorted(md.brokers.items()))
        listed = {bid: (b.host, b.port) for bid, b in md.brokers.items()}
        self._versions.start(listed, self._pool())  # ApiVersions of brokers not yet known, meanwhile
        # a broker absent from the metadata whose port still accepts connections was fenced for not
        # answering (frozen), not crashed: probed alongside the details, at no cost to the read
        absent = {bid: a for bid, a in self._addresses.items() if bid not in md.brokers}
        frozen = self._pool().submit(self._accepting, absent) if absent else None
        self._addresses.update({bid: _address(b.host, b.port) for bid, b in md.brokers.items()})
        self.waiting_on = "the brokers' configs"
        was_hung = self._hung
        try:
            snap = self._details(admin, md, cluster, deadline, early.take(admin), deferred)
        except KafkaException as exc:  # raised by a call itself, not through a future
            err = _exc_kafka_error(exc)
            if err is None:
                raise KafkaTuiError(self._scrub(f"reading configs and log dirs: {exc}")) from None
            raise classify_kafka_error(err, "reading configs and log dirs", self.settings.timeout) from None
        if snap.unresponsive - was_hung:
            self._drop_admin(admin)
        self._defer_kafka_python = False
        self._versions.forget(snap.refused)  # down: maybe restarted as another version, ask again
        versions = self._versions.result(listed, min(VERSIONS_WAIT, max(0.0, deadline - time.monotonic())))
        roles = [(c.get("process.roles") or ConfigValue(None)).value for c in snap.broker_configs.values()]
        unresponsive = set(snap.unresponsive)
        if frozen is not None:
            done, _ = cf.wait([frozen], timeout=max(0.0, min(PROBE_SECONDS, deadline - time.monotonic())))
            if done and frozen.exception() is None:
                unresponsive.update(frozen.result())
        return ClusterSnapshot(
            cluster_id=md.cluster_id,
            controller_id=controller_of(md.controller_id, snap.broker_configs),
            brokers=snap.brokers,
            topics=snap.topics,
            broker_configs=snap.broker_configs,
            log_dirs=snap.log_dirs,
            taken_at=taken_at,
            fetch_seconds=time.monotonic() - start,
            partial=bool(snap.problems),
            problems=tuple(self._scrub(one_line(p)) for p in snap.problems),
            bootstrap=self.settings.bootstrap_servers,
            refused=snap.refused,
            unresponsive=frozenset(unresponsive),
            kafka=cluster_version(versions, roles),
        )

    def _accepting(self, addresses: Mapping[int, str]) -> set[int]:
        """The brokers among `addresses` whose port accepts a TCP connection (one after the other: a pool
        thread itself; a refused port answers at once)."""
        return {bid for bid, addr in addresses.items() if _probe(addr, ABSENT_PROBE_SECONDS) is None}

    # the metadata: without it, no snapshot ----------------------------------------------
    def _attempt_seconds(self) -> float:
        """How long one metadata request may go unanswered before another is sent (see `_metadata`):
        half the timeout, or, once a metadata read was timed, four times that (at least 1 s): a hung
        broker chosen for it then costs about a second, not half the timeout."""
        half = max(0.5, self.settings.timeout / ATTEMPTS)
        if self._md_seconds is None:
            return half
        return min(half, max(1.0, 4 * self._md_seconds))

    def _metadata(
        self, admin: AdminClient, start: float, deadline: float, cluster: cf.Future[Any]
    ) -> tuple[Any, AdminClient]:
        """All topics' metadata (list_topics) and the client that got it; fails fast when it can.

        librdkafka reports connection errors only through error_cb, served by poll(), and
        list_topics blocks: so this thread polls while `cluster` (DescribeCluster, a future)
        shows whether the cluster answers, and list_topics runs on worker threads once it does
        (or when no connection error came early: the controller may be the hung broker).

        librdkafka sends list_topics to any broker whose connection is up, a hung one included,
        and keeps choosing it. So an attempt left unanswered for `_attempt_seconds` is followed
        by one from a new client: a hung broker never completes a new connection's handshake,
        so the new client cannot choose it. That client then replaces the old one.
        """
        protocol = self.settings.to_confluent().get("security.protocol", "PLAINTEXT").upper()
        pool = self._pool()
        attempt = self._attempt_seconds()
        grace = min(FAIL_FAST_GRACE, self.settings.timeout / 2)
        clients = [admin]
        attempts: dict[cf.Future[Any], AdminClient] = {}
        next_attempt = start
        last_exc: BaseException | None = None
        while True:
            for client in clients:
                client.poll(0)  # serves error_cb
            events = self._events.since(start)
            if any(e.code == KafkaError._ALL_BROKERS_DOWN for e in events) and time.monotonic() - start >= grace:
                # every bootstrap server failed, librdkafka says: decisive, unless only because
                # requests timed out (a hung server: wait for the deadline)
                found = _best(events, protocol)
                if found is not None:
                    raise self._decorate(*found) from None
                if not any(_timed_out(e) for e in events):
                    raise self._timeout_failure(start, protocol, all_down=True) from None
            cluster_exc = cluster.exception() if cluster.done() else None
            if cluster_exc is not None:
                err = _exc_kafka_error(cluster_exc)
                if err is None or err.code() not in _RETRIABLE:
                    raise self._request_failure(cluster_exc, start, protocol) from None
            now = time.monotonic()
            # DescribeCluster goes to the metadata's "controller", which KRaft picks at random: with a broker
            # known frozen it may wait on that one, so the metadata request goes out without waiting
            quiet = 0.0 if self._hung else QUIET_SECONDS
            ready = (
                (cluster.done() and cluster_exc is None)
                or (now - start >= quiet and not events)
                or now - start >= grace + 2 * POLL_SECONDS
            )
            if ready and now >= next_attempt and deadline - now > 0.05:
                if len(clients) == 1 and next_attempt > start:
                    clients.append(self._new_admin())  # a retry: from a client with fresh connections
                remaining = deadline - now
                seconds = remaining if remaining <= attempt * 1.5 else attempt  # the last one gets the rest
                attempts[pool.submit(clients[-1].list_topics, timeout=seconds)] = clients[-1]
                next_attempt = now + seconds
            waiting: list[cf.Future[Any]] = list(attempts) if ready else [*attempts, cluster]
            cf.wait(waiting, timeout=max(0.0, min(POLL_SECONDS, deadline - now)), return_when=cf.FIRST_COMPLETED)
            for fut in [f for f in attempts if f.done()]:
                client = attempts.pop(fut)
                exc = fut.exception()
                if exc is None:
                    self._md_seconds = time.monotonic() - start
                    if client is not admin:
                        with self._clients_lock:
                            if self._admin is admin:
                                self._admin = client  # the old one may hold a hung broker's connection
                    return fut.result(), client
                err = _exc_kafka_error(exc)
                if err is None or err.code() not in _RETRIABLE:
                    raise self._request_failure(exc, start, protocol) from None
                last_exc = exc
                next_attempt = min(next_attempt, time.monotonic() + RETRY_SECONDS)  # failed early: retry soon
            if time.monotonic() >= deadline:
                for client in clients:
                    client.poll(0)
                if cluster.done() and cluster.exception() is None:
                    raise MetadataTimeoutError(
                        f"connected to {self.settings.bootstrap_servers}, but the metadata of all topics did not "
                        f"arrive within {self.settings.timeout:g}s (a large cluster may need a longer --timeout)"
                    ) from None
                if last_exc is not None:
                    raise self._request_failure(last_exc, start, protocol) from None
                raise self._timeout_failure(start, protocol) from None

    def _decorate(self, err: KafkaTuiError, failing: int) -> KafkaTuiError:
        err = self._explain_verify_failure(err)
        total = len(self._bootstrap())
        what = "bootstrap servers" if total == len(self.settings.bootstrap) else "bootstrap servers and known brokers"
        if failing > 1 or total > 1:
            err = type(err)(f"{err.message} ({failing} of {total} {what} failing)")
        err.message = self._scrub(err.message)
        return err

    def _explain_verify_failure(self, err: KafkaTuiError) -> KafkaTuiError:
        """librdkafka's "certificate verify failed" with the cause, found by one TLS probe; a client
        certificate the broker rejected with what is wrong with it, when this side can tell."""
        if isinstance(err, AuthenticationError) and err.message.endswith(REJECTED_CLIENT_CERT):
            return AuthenticationError(err.message + client_certificate_hint(self.settings.to_confluent()))
        m = _UNVERIFIED.match(err.message)
        if not isinstance(err, AuthenticationError) or m is None:
            return err
        addr = m.group("addr")
        try:
            host, port = parse_host_port(addr)
        except UsageError:
            return err
        reason = verify_failure_reason(
            host, port, self.settings.to_confluent(), min(PROBE_TIMEOUT, self.settings.timeout)
        )
        if reason is None:
            return err
        return AuthenticationError(f"TLS handshake with {addr} failed: certificate verify failed: {explain(reason)}")

    def _request_failure(self, exc: BaseException, start: float, protocol: str) -> KafkaTuiError:
        found = _best(self._events.since(start), protocol)
        if found is not None:
            return self._decorate(*found)
        err = _exc_kafka_error(exc)
        if err is not None and err.code() in _RETRIABLE:
            return self._timeout_failure(start, protocol)
        if err is not None:
            return classify_kafka_error(
                err, f"reading the metadata from {self.settings.bootstrap_servers}", self.settings.timeout
            )
        return KafkaTuiError(self._scrub(f"reading the metadata from {self.settings.bootstrap_servers}: {exc}"))

    def _timeout_failure(self, start: float, protocol: str, all_down: bool = False) -> KafkaTuiError:
        """No answer within the timeout, or all brokers down without a reason: does TCP connect?

        librdkafka gives no reason when a server accepts the connection and closes it at once;
        with `all_down` a port that accepts TCP is therefore one that hangs up on Kafka clients.
        """
        found = _best(self._events.since(start), protocol)
        if found is not None:
            return self._decorate(*found)
        addrs = self.settings.bootstrap[:5]
        with cf.ThreadPoolExecutor(len(addrs), thread_name_prefix="kafkatui-probe") as pool:
            outcomes = list(pool.map(lambda a: _probe(a, PROBE_SECONDS), addrs))
        accepted = [a for a, failure in zip(addrs, outcomes, strict=True) if failure is None]
        failures = [failure for failure in outcomes if failure is not None]
        if accepted and all_down:
            verb = "accepts" if len(accepted) == 1 else "accept"
            return NotKafkaError(
                f"{_names(accepted, 3)} {verb} TCP connections but closes them during the Kafka handshake: "
                f"not a Kafka listener, or one that expects TLS or SASL (security protocol here: {protocol})"
            )
        if accepted:
            return MetadataTimeoutError(
                f"no answer from {_names(accepted, 3)} within {self.settings.timeout:g}s: the port accepts connections "
                "but the Kafka request got no reply (broker hung or overloaded, or not a Kafka listener)"
            )
        if failures:
            return self._decorate(failures[0], len(failures))
        return MetadataTimeoutError(f"no cluster metadata within {self.settings.timeout:g}s")

    # phase 3: configs, log dirs, ELR ---------------------------------------------------
    def _details(
        self,
        admin: AdminClient,
        md: Any,
        cluster: cf.Future[Any],
        deadline: float,
        early: Mapping[int, cf.Future[Any]],
        deferred: bool,
    ) -> _Details:
        phase_deadline = max(deadline, time.monotonic() + MIN_PHASE_SECONDS)
        budget = phase_deadline - time.monotonic()
        problems: list[str] = []
        broker_ids = sorted(md.brokers)
        topic_names = sorted(md.topics)

        # configs: all requests in flight at once
        broker_futures: dict[int, cf.Future[Any]] = {}
        for bid in broker_ids:
            sent = early.get(bid)
            if sent is None:
                res = ConfigResource(ResourceType.BROKER, str(bid))
                sent = admin.describe_configs([res], request_timeout=budget)[res]
            broker_futures[bid] = sent
        # topic configs through kafka-python, which can name the few keys kept (kafkatui.kafka.topicconfigs);
        # confluent-kafka when kafka-python cannot connect
        topic_futures: dict[str, cf.Future[Any]] = {}
        kp_configs: cf.Future[list[Any]] | None = None
        # topic configs go to a broker that just answered its own config request: not one that died
        # since the metadata (still listed until fenced), nor a hung one
        answered = _answered(broker_futures, md, min(ANSWERED_WAIT_SECONDS, phase_deadline - time.monotonic()))
        node = answered[0] if answered else None
        kadmin: Any = (
            self._kafka_python_for_configs(md, answered, phase_deadline) if topic_names and not deferred else None
        )
        if kadmin is not None:
            requests = topicconfigs.describe_requests(topic_names, TOPIC_CONFIG_KEYS, TOPICS_PER_DESCRIBE)
            kp_configs = self._pool().submit(_kp_send, kadmin, requests, node, budget)
        else:
            topic_futures = self._describe_topics(admin, topic_names, budget, node)

        # kafka-python: log dirs per broker, in parallel; naming the partitions spares
        # kafka-python a metadata request of its own
        logdir_futures: dict[int, cf.Future[Any]] = {}
        hosted: dict[int, dict[str, list[int]]] = {bid: {} for bid in broker_ids}
        # the partitions first: CPU work that overlaps the config requests in flight
        live = frozenset(broker_ids)
        table = self._state_table(md)
        parts, any_out_of_sync = _read_partitions(md, topic_names, live, table)
        want_kp = bool(broker_ids) and (
            self.log_dirs_mode == "all" or (any_out_of_sync and (self.log_dirs_mode == "out-of-sync" or self.want_elr))
        )
        if want_kp and kadmin is None:
            try:
                kadmin = self._kafka_python(phase_deadline)
            except KafkaTuiError:
                raise  # the source was closed meanwhile
            except Exception as exc:
                problems.append(
                    "log dirs and ELR unavailable: the kafka-python client could not connect: "
                    f"{_kp_reason(exc, budget)}"
                )
        only_out_of_sync = self.log_dirs_mode == "out-of-sync"
        if kadmin is not None and self.log_dirs_mode != "none" and (any_out_of_sync or not only_out_of_sync):
            for name in topic_names:
                for p in md.topics[name].partitions.values():
                    replicas = p.replicas
                    if only_out_of_sync and len(p.isrs) >= len(replicas):
                        continue
                    for r in replicas:
                        per_broker = hosted.get(r)
                        if per_broker is not None:
                            per_broker.setdefault(name, []).append(p.id)
            pool = self._pool()
            _learn_brokers(kadmin, broker_ids, min(LEARN_BROKERS_SECONDS, phase_deadline - time.monotonic()))
            for bid in broker_ids:
                if only_out_of_sync and not hosted[bid]:
                    continue
                key = f"logdirs:{bid}"
                previous = self._inflight.get(key)
                if previous is not None and not previous.done():
                    problems.append(f"log dirs of broker {bid} unknown: an earlier request is still unanswered")
                    continue
                fut = pool.submit(kadmin.describe_log_dirs, hosted[bid], [bid])
                self._inflight[key] = fut
                logdir_futures[bid] = fut

        # wait for the configs (ELR needs the topics' min ISR)
        routed: list[cf.Future[Any]] = [*topic_futures.values()]  # sent to `node`
        if kp_configs is not None:
            routed.append(kp_configs)
        waited: list[cf.Future[Any]] = [*routed, *broker_futures.values()]
        down, hung = self._wait_unless_down(waited, broker_futures, md, phase_deadline, (node, routed))
        if node in down or node in hung:  # it answered, then died or froze: what is asked again goes elsewhere
            node = next((b for b in _answered(broker_futures, md, 0.0) if b not in down and b not in hung), None)
        if kp_configs is not None:
            topic_configs = self._kp_topic_configs(
                kp_configs, admin, topic_names, node, phase_deadline, budget, problems
            )
        else:
            topic_configs = self._topic_configs(topic_futures, budget, problems)
        for bid in sorted(hung):
            down[bid] = NOT_ANSWERING
        broker_configs = self._broker_configs(broker_futures, budget, problems, down)
        described = cluster.result() if cluster.done() and cluster.exception() is None else None
        brokers = self._brokers(md, described, broker_configs)

        elr: dict[tuple[str, int], dict[str, Any]] | None = None
        if kadmin is not None and self.want_elr:
            suspect = any_out_of_sync or any(table.states[sid][0] < 0 for sid in _used_states(parts))
            elr = self._elr(kadmin, md, topic_configs, broker_configs, phase_deadline, budget, problems, suspect, node)

        # a frozen broker's log dirs are not waited for: the others' are what this snapshot can say
        cf.wait(
            [f for bid, f in logdir_futures.items() if bid not in hung],
            timeout=max(0.0, phase_deadline - time.monotonic()),
        )
        for bid in hung & logdir_futures.keys():
            if not logdir_futures[bid].done():
                problems.append(f"log dirs of broker {bid} unknown: {NOT_ANSWERING}")
                del logdir_futures[bid]
        log_dirs: dict[tuple[str, int, int], ReplicaLog] | None = None
        if logdir_futures:
            log_dirs = self._log_dirs(logdir_futures, hosted, budget, problems)
        elif self.log_dirs_mode == "out-of-sync" and (kadmin is not None or not any_out_of_sync):
            log_dirs = {}  # nothing out of sync: nothing to ask

        if elr is not None:
            _add_elr(parts, elr)
        topics: dict[str, TopicInfo] = {}
        for name in topic_names:
            t = md.topics[name]
            topics[name] = TopicInfo(
                name=name,
                partitions=parts[name],
                internal=name in INTERNAL_TOPICS,
                configs=topic_configs.get(name, {}),
                error_code=t.error.code() if t.error is not None else 0,
            )
        refused = frozenset(bid for bid in down if bid not in hung)
        return _Details(brokers, topics, broker_configs, log_dirs, problems, refused, hung)

    @staticmethod
    def _brokers(
        md: Any, cluster: Any, broker_configs: Mapping[int, Mapping[str, ConfigValue]]
    ) -> tuple[BrokerInfo, ...]:
        racks: dict[int, str | None] = {}
        for node in getattr(cluster, "nodes", None) or ():
            racks[node.id] = node.rack or None
        out = []
        for bid in sorted(md.brokers):
            b = md.brokers[bid]
            rack = racks.get(bid)
            if rack is None:
                cv = broker_configs.get(bid, {}).get("broker.rack")
                rack = cv.value if cv is not None and cv.value else None
            out.append(BrokerInfo(id=bid, host=b.host, port=b.port, rack=rack))
        return tuple(out)

    @staticmethod
    def _describe_topics(
        admin: AdminClient, names: Sequence[str], budget: float, node: int | None
    ) -> dict[str, cf.Future[Any]]:
        """Topic DescribeConfigs through confluent-kafka (every config, with synonyms), to broker `node`
        (None: librdkafka's choice, the metadata's "controller", which KRaft picks at random and may be
        a dead broker not yet fenced)."""
        futures: dict[str, cf.Future[Any]] = {}
        where: dict[str, Any] = {} if node is None else {"broker": node}
        for i in range(0, len(names), TOPICS_PER_DESCRIBE):
            resources = [ConfigResource(ResourceType.TOPIC, n) for n in names[i : i + TOPICS_PER_DESCRIBE]]
            for res, fut in admin.describe_configs(resources, request_timeout=budget, **where).items():
                futures[res.name] = fut
        return futures

    def _topic_configs(
        self, futures: Mapping[str, cf.Future[Any]], budget: float, problems: list[str]
    ) -> dict[str, dict[str, ConfigValue]]:
        out: dict[str, dict[str, ConfigValue]] = {}
        failed: dict[str, list[str]] = {}
        seen: dict[tuple[Any, ...], ConfigValue] = {}
        for name, fut in futures.items():
            result, reason = _outcome(fut, budget)
            if reason is not None:
                if "UNKNOWN_TOPIC_OR_PART" in reason:
                    continue  # deleted since the metadata was read
                failed.setdefault(reason, []).append(name)
                continue
            out[name] = _config_values(result, TOPIC_CONFIG_KEYS, seen)
        _unreadable_topics(failed, problems)
        return out

    def _kp_topic_configs(
        self,
        fut: cf.Future[list[Any]],
        admin: AdminClient,
        names: Sequence[str],
        node: int | None,
        deadline: float,
        budget: float,
        problems: list[str],
    ) -> dict[str, dict[str, ConfigValue]]:
        """The kafka-python answer; confluent-kafka's when that request failed and time is left."""
        if fut.done() and fut.exception() is None:
            got = topicconfigs.read_responses(fut.result(), TOPIC_CONFIG_KEYS, budget)
            _unreadable_topics(got.failed, problems)
            return got.configs
        reason = (
            _kp_reason(fut.exception() or TimeoutError(), budget) if fut.done() else f"no answer within {budget:.1f}s"
        )
        if deadline - time.monotonic() >= MIN_PHASE_SECONDS:
            log.debug("topic configs through kafka-python failed (%s); asking through confluent-kafka", reason)
            futures = self._describe_topics(admin, names, deadline - time.monotonic(), node)
            cf.wait(list(futures.values()), timeout=max(0.0, deadline - time.monotonic()))
            return self._topic_configs(futures, budget, problems)
        _unreadable_topics({reason: list(names)}, problems)
        return {}

    def _wait_unless_down(
        self,
        waited: list[cf.Future[Any]],
        broker_futures: Mapping[int, cf.Future[Any]],
        md: Any,
        deadline: float,
        routed: tuple[int | None, list[cf.Future[Any]]] = (None, []),
    ) -> tuple[dict[int, str], frozenset[int]]:
        """Wait for `waited` until `deadline`, except for brokers found down or frozen: ({broker id: why},
        the brokers that accept connections but do not answer).

        A broker killed a moment ago stays in the metadata until the controller fences it (its
        session timeout, 9-18 s), and librdkafka keeps retrying it until the request times out: the
        whole timeout for every refresh. So after DOWN_PROBE_AFTER the brokers whose own config
        request is still unanswered get a TCP probe; a refused connection means nothing listens
        there, and the snapshot stops waiting for that broker. A frozen broker (SIGSTOP, a long GC
        pause, a stuck disk) accepts the connection: it is waited for at most STRAGGLER_SECONDS more
        once the others have answered, so that it does not hold up what they said. Brokers whose
        request failed fast (librdkafka met the refusal itself) are probed too: the snapshot's
        `refused` shows them down until they are fenced. `routed`: a broker and the requests sent to it
        (the topic configs, to a broker that had just answered): a broker that answered its own request
        and froze or died before answering those is found the same way (the walk's recorder waited out the
        whole timeout there, and its next read of the ISR came 6 s after the shrink).
        """
        node, sent = routed

        def owed(bid: int) -> list[cf.Future[Any]]:
            """The requests to `bid` still unanswered."""
            mine = [broker_futures[bid], *(sent if bid == node else ())]
            return [f for f in mine if not f.done()]

        down: dict[int, str] = {}
        hung: frozenset[int] = frozenset()
        # brokers frozen at the last snapshot are not waited for again: the others' answers first
        known = {bid for bid in self._hung if bid in broker_futures and not broker_futures[bid].done()}
        pending = [f for f in waited if not f.done() and all(f is not broker_futures[bid] for bid in known)]
        probed = False
        while pending:
            now = time.monotonic()
            if now >= deadline:
                break
            wait = deadline - now if probed else min(DOWN_PROBE_AFTER, deadline - now)
            cf.wait(pending, timeout=wait, return_when=cf.ALL_COMPLETED)
            pending = [f for f in pending if not f.done()]
            if probed or not pending:
                break
            probed = True
            silent = [bid for bid, fut in broker_futures.items() if owed(bid) or fut.exception() is not None]
            down, accepting = self._probe_brokers(silent, md)
            hung = frozenset(bid for bid in accepting if owed(bid))
            silent_ids = sorted({*hung, *(bid for bid in silent if bid not in down and owed(bid))})
            if silent_ids:
                self.waiting_on = "broker " + ", ".join(map(str, silent_ids))
            dropped = [f for bid in (*down, *hung) for f in (broker_futures[bid], *(sent if bid == node else ()))]
            pending = [f for f in pending if all(f is not d for d in dropped)]
            if hung:  # the others first, then the frozen ones a little longer
                cf.wait(pending, timeout=max(0.0, deadline - time.monotonic()), return_when=cf.ALL_COMPLETED)
                late = [f for bid in hung for f in owed(bid)]
                cf.wait(late, timeout=max(0.0, min(STRAGGLER_SECONDS, deadline - time.monotonic())))
                hung = frozenset(bid for bid in hung if owed(bid))
                pending = [f for f in pending if not f.done()]
        if not probed:  # a request that failed fast (librdkafka saw the refusal itself): why?
            failed = [bid for bid, fut in broker_futures.items() if fut.done() and fut.exception() is not None]
            down, _ = self._probe_brokers(failed, md)
        if known:  # a broker that woke up answers within a moment: it is not called frozen again
            late = [broker_futures[bid] for bid in known]
            cf.wait(late, timeout=max(0.0, min(KNOWN_HUNG_GRACE, deadline - time.monotonic())))
        hung = frozenset({*hung, *(bid for bid in known if not broker_futures[bid].done() and bid not in down)})
        self._hung = hung
        return down, hung

    def _probe_brokers(self, bids: list[int], md: Any) -> tuple[dict[int, str], set[int]]:
        """The listed brokers among `bids` whose port refuses a TCP connection ({broker id: why}), and
        those whose port accepts one."""
        bids = [bid for bid in bids if bid in md.brokers]
        addrs = [_address(md.brokers[bid].host, md.brokers[bid].port) for bid in bids]
        outcomes = list(self._pool().map(lambda a: _probe(a, PROBE_SECONDS), addrs)) if addrs else []
        refusing = {
            bid: "connection refused: the broker is down (listed until the controller fences it)"
            for bid, found in zip(bids, outcomes, strict=True)
            if found is not None and "connection refused" in str(found)
        }
        return refusing, {bid for bid, found in zip(bids, outcomes, strict=True) if found is None}

    def _broker_configs(
        self, futures: Mapping[int, cf.Future[Any]], budget: float, problems: list[str], down: Mapping[int, str]
    ) -> dict[int, dict[str, ConfigValue]]:
        out: dict[int, dict[str, ConfigValue]] = {}
        for bid, fut in futures.items():
            if bid in down:
                problems.append(f"configs of broker {bid} unreadable: {down[bid]}")
                continue
            result, reason = _outcome(fut, budget)
            if reason is not None:
                problems.append(f"configs of broker {bid} unreadable: {reason}")
                continue
            out[bid] = _config_values(result, BROKER_CONFIG_KEYS)
        return out

    def _log_dirs(
        self,
        futures: Mapping[int, cf.Future[Any]],
        hosted: Mapping[int, Mapping[str, list[int]]],
        budget: float,
        problems: list[str],
    ) -> dict[tuple[str, int, int], ReplicaLog] | None:
        out: dict[tuple[str, int, int], ReplicaLog] = {}
        answered = 0
        for bid, fut in futures.items():
            if not fut.done():
                problems.append(f"log dirs of broker {bid} unknown: no answer within {budget:.1f}s")
                continue
            exc = fut.exception()
            if exc is not None:
                problems.append(f"log dirs of broker {bid} unknown: {_kp_reason(exc, budget)}")
                continue
            dirs: list[dict[str, Any]] = []
            for entry in fut.result() or ():
                if entry.get("broker") == bid:
                    dirs.extend(entry.get("log_dirs") or ())
            if not dirs and hosted.get(bid):
                problems.append(
                    f"log dirs of broker {bid} unknown: the answer listed no log dir "
                    "(DescribeLogDirs not authorized? it needs DESCRIBE on the CLUSTER resource)"
                )
                continue
            answered += 1
            for d in dirs:
                path = str(d.get("log_dir") or "")
                code = int(d.get("error_code") or 0)
                if code:
                    problems.append(f"broker {bid}: log dir {path} is unavailable (error {code}{_storage(code)})")
                    continue
                for t in d.get("topics") or ():
                    for p in t.get("partitions") or ():
                        if p.get("is_future_key"):
                            continue  # a replica being moved between log dirs: the current one counts
                        out[(t["name"], int(p["partition_index"]), bid)] = ReplicaLog(
                            size=int(p.get("partition_size") or 0),
                            offset_lag=int(p.get("offset_lag") or 0),
                            log_dir=path,
                        )
        return out if answered else None

    def _elr(
        self,
        kadmin: Any,
        md: Any,
        topic_configs: Mapping[str, Mapping[str, ConfigValue]],
        broker_configs: Mapping[int, Mapping[str, ConfigValue]],
        deadline: float,
        budget: float,
        problems: list[str],
        suspect: bool,
        node: int | None,
    ) -> dict[tuple[str, int], dict[str, Any]] | None:
        """ELR of partitions under min ISR (DescribeTopicPartitions); None if API 75 is unsupported.

        KIP-966 keeps an ELR only while the ISR is below min ISR, so only topics with such a
        partition are asked; every other partition's ELR is known to be empty. Without a `suspect`
        partition (one out of sync or leaderless) none is under min ISR and none is looked at.
        """
        try:
            supported = DTP_API_KEY in {int(k) for k in kadmin.api_versions()}
        except ValueError:
            # kafka-python 3.0.12 cannot name an API key newer than it knows ("93 is not a valid ApiKey" from
            # Kafka 4.4): such a broker is newer than DescribeTopicPartitions (3.8), so ask it
            supported = True
        except Exception:
            supported = False
        if not supported:
            return None
        default_min_isr = _int(
            next(
                (
                    c["min.insync.replicas"].value
                    for _, c in sorted(broker_configs.items())
                    if "min.insync.replicas" in c
                ),
                None,
            ),
            1,
        )
        wanted: list[str] = []
        for name, t in md.topics.items() if suspect else ():
            cv = topic_configs.get(name, {}).get("min.insync.replicas")
            if cv is not None:
                min_isr = _int(cv.value, default_min_isr)
            elif name in topic_configs:
                min_isr = default_min_isr
            else:  # configs unknown: ask for every under-replicated partition
                min_isr = 1 << 30
            for p in t.partitions.values():
                short = len(p.isrs)
                if (short < min_isr and short < len(p.replicas)) or p.leader < 0:
                    wanted.append(name)
                    break
        if not wanted:
            return {}
        key = "elr"
        previous = self._inflight.get(key)
        if previous is not None and not previous.done():
            problems.append("ELR unknown: an earlier DescribeTopicPartitions request is still unanswered")
            return None
        fut = self._pool().submit(_describe_topic_partitions, kadmin, wanted, deadline, node)
        self._inflight[key] = fut
        done, _ = cf.wait([fut], timeout=max(0.0, deadline - time.monotonic()))
        if not done:
            problems.append(f"ELR unknown for {len(wanted)} topic(s) under min ISR: no answer within {budget:.1f}s")
            return None
        exc = fut.exception()
        if exc is not None:
            problems.append(f"ELR unknown for {len(wanted)} topic(s) under min ISR: {_kp_reason(exc, budget)}")
            return None
        result: dict[tuple[str, int], dict[str, Any]] = fut.result()
        return result


__all__ = [
    "BROKER_CONFIG_KEYS",
    "ClientEvent",
    "ClusterSource",
    "KafkaClusterSource",
    "TOPIC_CONFIG_KEYS",
    "classify_event",
    "classify_kafka_error",
]


def controller_of(reported: int | None, broker_configs: Mapping[int, Mapping[str, ConfigValue]]) -> int:
    """The active controller's id, or -1 when unknown.

    A KRaft broker answers Metadata with a random live broker as "controller" (the quorum is not
    a broker's to name), so there the metadata's id is trusted only on a ZooKeeper cluster (no
    process.roles). On KRaft the brokers' controller.quorum.voters names the controller when the
    quorum has one voter (the usual dedicated controller of small clusters, `kafkatui lab`);
    with several voters which one leads is not in any broker's answer: unknown.
    """
    roles = [(c.get("process.roles") or ConfigValue(None)).value for c in broker_configs.values()]
    if not roles or not any(roles):
        return reported if reported is not None else -1
    voters = {(c.get("controller.quorum.voters") or ConfigValue(None)).value or "" for c in broker_configs.values()}
    ids = {v.split("@", 1)[0].strip() for text in voters for v in text.split(",") if "@" in v}
    if len(ids) == 1:
        (only,) = ids
        if only.isdigit():
            return int(only)
    return -1
