"""Read a cluster into a `ClusterSnapshot`: the only code that talks to Kafka for the model.

`KafkaClusterSource` uses two clients, each for what it does well:

* confluent-kafka (librdkafka) for the metadata (one `list_topics`; on a first read `describe_cluster`
  alongside for the racks) and for broker configs: one DescribeConfigs per broker (librdkafka
  allows one BROKER resource per call, and a broker's own configs must be asked of that broker),
  sent as soon as DescribeCluster (or, on a first read, kafka-python's bootstrap) names the brokers,
  or on a refresh at once to the brokers of the last read, while the metadata of every topic is still
  on its way;
* kafka-python's KafkaAdminClient for topic configs (DescribeConfigs naming only the kept keys,
  `TOPICS_PER_DESCRIBE` topics a request, all in flight at once, written and read by
  `kafkatui.kafka.configs_wire`; confluent-kafka reads them when kafka-python cannot),
  DescribeLogDirs (replica sizes and offset lag, one request per broker, in parallel) and
  DescribeTopicPartitions (ELR, KIP-966; only asked for topics with a partition under min ISR, the
  only time an ELR can be non-empty; skipped when the brokers do not support API 75).

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

Layout: one class, `KafkaClusterSource`, whose phases share its clients, deadline and lock, split by
what they read: `kafkatui.kafka.clients` (the two clients and the pool: `SourceClients`),
`kafkatui.kafka.metadata` (the metadata read and its failures: `MetadataRead`),
`kafkatui.kafka.kpreads` (the kafka-python reads, log dirs and ELR: `KafkaPythonReads`) and this
module (the snapshot, its configs through both clients, the confluent-kafka reads and the waits).
Error diagnosis (`diagnose`) and answer parsing (`answers`) are apart too.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from kafkatui.kafka import brokerconfigs, configs_wire, firstread, topicconfigs
from kafkatui.kafka.answers import (
    MIN_PHASE_SECONDS,
    BrokerConfigSender,
    Nodes,
    _add_elr,
    _config_values,
    _Details,
    _EarlyBrokerConfigs,
    _outcome,
)
from kafkatui.kafka.clients import ANSWERED_WAIT_SECONDS, _address, _kp_brokers, _kp_connected
from kafkatui.kafka.clients import (
    _new_kafka_python_admin as _new_kafka_python_admin,  # re-exported: alter's write paths use it
)
from kafkatui.kafka.diagnose import (
    ClientEvent,
    _exc_kafka_error,
    _kp_reason,
    _probe,
    classify_event,
    classify_kafka_error,
)
from kafkatui.kafka.errors import KafkaTuiError, one_line
from kafkatui.kafka.kpreads import (
    LEARN_BROKERS_SECONDS,
    KafkaPythonReads,
    _describe_log_dirs,
    _describe_topic_configs,
    _learn_brokers,
)
from kafkatui.kafka.metadata import PROBE_SECONDS, MetadataRead, _names
from kafkatui.kafka.metadata_wire import MetadataColumns, from_client, partitions_of
from kafkatui.kafka.ownreads import OwnReads
from kafkatui.kafka.versions import cluster_version
from kafkatui.model.snapshot import BrokerInfo, ClusterSnapshot, ConfigValue, Partitions, ReplicaLog, TopicInfo

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

DOWN_PROBE_AFTER = 0.3
"""Seconds after the config requests went out when brokers still silent are probed: refused = down."""
STRAGGLER_SECONDS = 1.0
PREFER_SECONDS = 0.2
"""At most this much longer topic configs wait for a broker kafka-python is connected to (see `_answered`)."""
PREFER_MIN_SECONDS = 0.05
"""At least this long, when the first answer was in at once."""
ABSENT_PROBE_SECONDS = 0.5
KNOWN_HUNG_GRACE = 0.25
"""How long a broker found frozen by the previous snapshot is waited for once the others have answered."""
"""How much longer than the others a broker that accepts connections but does not answer is waited for."""
NOT_ANSWERING = "not answering: it accepts connections but sent no answer (frozen: a GC pause or a stuck disk?)"

VERSIONS_WAIT = 1.0
"""How long a snapshot waits, after its other answers, for ApiVersions answers still on their way
(one per broker not yet known: the first read; a hung broker's is picked up by a later read)."""


class ClusterSource(Protocol):
    """Anything that produces snapshots: a live cluster, a recording, a test double."""

    def snapshot(self) -> ClusterSnapshot:
        """Read the cluster now. Raises KafkaTuiError when no snapshot at all is possible."""
        ...

    def close(self) -> None:
        """Release connections and threads. Idempotent."""
        ...


def _unreadable_topics(failed: Mapping[str, list[str]], problems: list[str]) -> None:
    for reason, names in failed.items():
        problems.append(
            f"configs of {len(names)} topic(s) unreadable: {reason}; broker or Kafka defaults assumed "
            f"({_names(sorted(names))})"
        )


def _hosted_by_broker(
    parts: Mapping[str, Partitions], hosted: dict[int, dict[str, list[int]]], only_short: bool
) -> None:
    """Add to `hosted` (broker -> topic -> partition ids, for the brokers it holds) every partition's replicas,
    or with `only_short` those of partitions whose ISR is short of their replicas."""
    if not parts:
        return
    known = next(iter(parts.values())).table.states
    used: set[int] = set().union(*(cols.states for cols in parts.values()))
    if only_short:
        used = {sid for sid in used if len(known[sid][2]) < len(known[sid][1])}
    for name, cols in parts.items():
        wanted = used.intersection(cols.states)
        if not wanted:
            continue
        ids = cols.ids
        for i, sid in enumerate(cols.states):
            if sid in wanted:
                pid = ids[i]
                for r in known[sid][1]:
                    per_broker = hosted.get(r)
                    if per_broker is not None:
                        per_broker.setdefault(name, []).append(pid)


def _used_states(parts: Mapping[str, Any]) -> set[int]:
    used: set[int] = set()
    for each in parts.values():
        used.update(each.states)
    return used


def _answered(
    broker_futures: Mapping[int, cf.Future[Any]], md: Any, wait: float, prefer: frozenset[int] = frozenset()
) -> list[int]:
    """The listed brokers whose own config request answered (waiting up to `wait` for a first one), those
    among `prefer` first. When the first to answer is not one of `prefer`, one of those is waited for a
    little longer (as long as the first took, between `PREFER_MIN_SECONDS` and `PREFER_SECONDS`): their
    requests went out together, so they answer within moments of each other."""

    def now_answered() -> list[int]:
        return [
            bid
            for bid, fut in sorted(broker_futures.items())
            if bid in md.brokers and fut.done() and not fut.cancelled() and fut.exception() is None
        ]

    found = now_answered()
    start = time.monotonic()
    deadline = start + wait
    pending = [f for f in broker_futures.values() if not f.done()]
    while not found and pending and time.monotonic() < deadline:
        cf.wait(pending, timeout=max(0.0, deadline - time.monotonic()), return_when=cf.FIRST_COMPLETED)
        pending = [f for f in pending if not f.done()]
        found = now_answered()
    waiting = [f for bid, f in broker_futures.items() if bid in prefer and bid in md.brokers and not f.done()]
    if found and waiting and not prefer.intersection(found):
        took = max(PREFER_MIN_SECONDS, time.monotonic() - start)  # sent earlier (a refresh's) may answer at once
        extra = min(PREFER_SECONDS, took, max(0.0, deadline - time.monotonic()))
        cf.wait(waiting, timeout=extra, return_when=cf.FIRST_COMPLETED)
        found = now_answered()
    return sorted(found, key=lambda bid: bid not in prefer)


# --------------------------------------------------------------------------- the source
class KafkaClusterSource(MetadataRead, KafkaPythonReads, OwnReads):
    """A `ClusterSource` for a real Kafka cluster (or anything speaking its protocol)."""

    topic_config_keys = TOPIC_CONFIG_KEYS
    broker_config_keys = BROKER_CONFIG_KEYS

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
        refresh = admin is self._md_admin
        # a first read on PLAINTEXT or SSL gets its metadata, topic and broker configs on connections of our
        # own (`kafkatui.kafka.firstread`): kafka-python (~0.2 s of CPU to import) only if that fails, or for
        # log dirs and ELR when a partition is out of sync
        own = not refresh and firstread.usable(self.settings.to_confluent())
        early = _EarlyBrokerConfigs(admin, deadline, self._broker_config_sender(own))
        hint: Callable[[], Sequence[tuple[int, str, int]]] | None = None
        if refresh:
            # a refresh: this client's connections are up and the brokers of its last read are known.
            # No DescribeCluster: librdkafka sends it to the controller its cache names, and when that
            # broker has just died it retries the connection without a pause until a newer metadata
            # answer names another one: measured at 105,000 partitions, 1-5 s of a core per refresh in its
            # threads, beside the dashboard's own work. The racks come from the brokers' configs then.
            cluster: cf.Future[Any] = cf.Future()  # never answered: no "connected" signal is needed
            hint = functools.partial(tuple, self._listed)
        else:
            # DescribeCluster (a Metadata request without topics, sent to the controller) gives
            # the racks and tells "connected, but the full metadata is slow" from "no answer"
            cluster = admin.describe_cluster(request_timeout=self.settings.timeout)
        deferred = self._defer_kafka_python
        starting: cf.Future[Any] | None = None
        if not own and not deferred and self._kadmin is None and (self._kp_start is None or self._kp_start.done()):
            starting = self._kp_start = self._pool().submit(self._start_kafka_python, early, deadline)
        if starting is not None and hint is None:
            # a first read: kafka-python's bootstrap Metadata names the brokers before DescribeCluster does
            hint = functools.partial(_kp_brokers, starting)
        self._pool().submit(early.run, cluster, hint)
        try:
            # a refresh asks through kafka-python's connections when they are up, read from the raw answer
            md, racing = self._kp_metadata(start, deadline) if refresh else (None, None)
            if md is None:
                md, admin = self._metadata(admin, start, deadline, cluster, racing)
        except BaseException as exc:
            early.take(None)
            if isinstance(exc, KafkaTuiError):
                self._reset_clients()
            raise
        # the partitions' state is as of this answer: DescribeCluster before it can wait seconds for a
        # hung broker, and a stamp from the start made the recorder date changes that much too early
        taken_at = time.time()
        self._learnt = tuple(_address(b.host, b.port) for _, b in sorted(md.brokers.items()))
        self._listed = tuple((bid, b.host, b.port) for bid, b in sorted(md.brokers.items()))
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
            snap = self._details(admin, md, cluster, deadline, early, deferred)
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

    # phase 3: configs, log dirs, ELR ---------------------------------------------------
    def _details(
        self,
        admin: AdminClient,
        md: Any,
        cluster: cf.Future[Any],
        deadline: float,
        early: _EarlyBrokerConfigs,
        deferred: bool,
    ) -> _Details:
        phase_deadline = max(deadline, time.monotonic() + MIN_PHASE_SECONDS)
        budget = phase_deadline - time.monotonic()
        problems: list[str] = []
        broker_ids = sorted(md.brokers)
        topic_names = sorted(md.topics)

        # configs: all requests in flight at once
        taken = early.take(admin)
        untaken = [bid for bid in broker_ids if bid not in taken]
        send = early.send
        nodes = [(bid, md.brokers[bid].host, md.brokers[bid].port) for bid in untaken]
        broker_futures: dict[int, cf.Future[Any]] = {**taken, **(send(nodes, budget) if send and nodes else {})}
        for bid in broker_ids:
            if bid not in broker_futures:
                res = ConfigResource(ResourceType.BROKER, str(bid))
                broker_futures[bid] = admin.describe_configs([res], request_timeout=budget)[res]
        broker_futures = {bid: broker_futures[bid] for bid in broker_ids}
        # topic configs through kafka-python, which can name the few keys kept (kafkatui.kafka.topicconfigs);
        # confluent-kafka when kafka-python cannot connect
        topic_futures: dict[str, cf.Future[Any]] = {}
        kp_configs: cf.Future[Any] | None = None  # kafka-python's responses, or our own connection's TopicConfigs
        # topic configs go to a broker that just answered its own config request (not one that died since
        # the metadata, still listed until fenced, nor a hung one), or, on a first read, to the bootstrap
        # server's broker on the kafka-python connection opened while the metadata was on its way, unless that
        # broker is slower than the others (`_warm_node`; `_wait_unless_down` watches it like the others)
        kadmin: Any = None
        with self._clients_lock:
            raw_conn, self._raw_conn = self._raw_conn, None
        version = raw_conn.version_of(configs_wire.API_KEY, configs_wire.OWN_VERSIONS) if raw_conn is not None else None
        node = self._warm_node(self._kadmin, early.answered_at)
        if raw_conn is not None and (version is None or not topic_names):
            raw_conn.close()
        elif raw_conn is not None and version is not None:
            # a first read whose metadata came on our own connection: the topic configs follow on it
            # (`kafkatui.kafka.firstread`), or go to a faster broker, and kafka-python is started only if
            # log dirs or ELR need it
            node = next((bid for bid, b in md.brokers.items() if (b.host, b.port) == raw_conn.address), None)
            kp_configs = self._pool().submit(
                configs_wire.hedged_topic_configs,
                self._pool().submit(self._own_topic_configs, raw_conn, topic_names, version, budget),
                broker_futures,
                node,
                functools.partial(self._own_topic_configs_of, topic_names, raw_conn.versions, version, budget),
                budget,
            )
        elif node is not None and node in md.brokers and node not in self._hung and topic_names and not deferred:
            kadmin = self._kadmin
        else:
            # one kafka-python is connected to already spares that connection's ApiVersions round trip
            connected = frozenset(bid for bid in broker_ids if _kp_connected(self._kadmin, bid))
            wait = min(ANSWERED_WAIT_SECONDS, phase_deadline - time.monotonic())
            answered = _answered(broker_futures, md, wait, connected)
            if topic_names and not deferred:
                kadmin = self._kafka_python_for_configs(md, answered, phase_deadline)
            node = answered[0] if answered else None
        if kp_configs is not None:
            pass  # on the first read's own connection
        elif kadmin is not None:
            kp_configs = self._pool().submit(
                _describe_topic_configs, kadmin, topic_names, TOPIC_CONFIG_KEYS, TOPICS_PER_DESCRIBE, node, budget
            )
        else:
            topic_futures = self._describe_topics(admin, topic_names, budget, node)

        # kafka-python: log dirs per broker, in parallel; naming the partitions spares
        # kafka-python a metadata request of its own
        logdir_futures: dict[int, cf.Future[Any]] = {}
        hosted: dict[int, dict[str, list[int]]] = {bid: {} for bid in broker_ids}
        # the partitions first: CPU work that overlaps the config requests in flight
        live = frozenset(broker_ids)
        if not isinstance(md, MetadataColumns):  # librdkafka's answer
            md = from_client(md, self._state_table(sum(len(t.partitions) for t in md.topics.values())))
        self._partitions_seen = md.partition_count()
        table = md.table
        parts, any_out_of_sync = partitions_of(md, topic_names, live)
        want_kp = bool(broker_ids) and (
            self.log_dirs_mode == "all" or (any_out_of_sync and (self.log_dirs_mode == "out-of-sync" or self.want_elr))
        )
        if want_kp and kadmin is None:
            # bootstrapped from a broker that answered its config request: kafka-python picks one server at
            # random and gives it the whole timeout, and a frozen broker still listed cost a first read with
            # one broker frozen its whole timeout, once in three
            wait = min(ANSWERED_WAIT_SECONDS, phase_deadline - time.monotonic())
            answering = [
                _address(md.brokers[bid].host, md.brokers[bid].port) for bid in _answered(broker_futures, md, wait)
            ]
            try:
                kadmin = self._kafka_python(phase_deadline, answering)
            except KafkaTuiError:
                raise  # the source was closed meanwhile
            except Exception as exc:
                problems.append(
                    "log dirs and ELR unavailable: the kafka-python client could not connect: "
                    f"{_kp_reason(exc, budget)}"
                )
        only_out_of_sync = self.log_dirs_mode == "out-of-sync"
        if kadmin is not None and self.log_dirs_mode != "none" and (any_out_of_sync or not only_out_of_sync):
            _hosted_by_broker(parts, hosted, only_out_of_sync)
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
                fut = pool.submit(_describe_log_dirs, kadmin, hosted[bid], bid, budget)
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
        brokers = self._brokers(md, described, broker_configs, self._racks)
        self._racks.update((b.id, b.rack) for b in brokers if b.id not in down)

        elr: dict[tuple[str, int], dict[str, Any]] | None = None
        if kadmin is not None and self.want_elr:
            suspect = any_out_of_sync or any(table.states[sid][0] < 0 for sid in _used_states(parts))
            elr = self._elr(
                kadmin, parts, topic_configs, broker_configs, phase_deadline, budget, problems, suspect, node
            )

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
            topics[name] = TopicInfo(
                name=name,
                partitions=parts[name],
                internal=name in INTERNAL_TOPICS,
                configs=topic_configs.get(name, {}),
                error_code=md.topics[name].error_code,
            )
        refused = frozenset(bid for bid in down if bid not in hung)
        return _Details(brokers, topics, broker_configs, log_dirs, problems, refused, hung)

    @staticmethod
    def _brokers(
        md: Any,
        cluster: Any,
        broker_configs: Mapping[int, Mapping[str, ConfigValue]],
        known: Mapping[int, str | None] | None = None,
    ) -> tuple[BrokerInfo, ...]:
        """The listed brokers with their racks: from DescribeCluster (a first read), else from each broker's
        own `broker.rack`, else, for a broker whose configs did not answer, the rack it had (`known`)."""
        racks: dict[int, str | None] = {}
        for node in getattr(cluster, "nodes", None) or ():
            racks[node.id] = node.rack or None
        out = []
        for bid in sorted(md.brokers):
            b = md.brokers[bid]
            rack = racks.get(bid)
            if rack is None:
                configs = broker_configs.get(bid)
                cv = configs.get("broker.rack") if configs is not None else None
                if cv is not None:
                    rack = cv.value or None
                elif configs is None and known is not None:
                    rack = known.get(bid)
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
        fut: cf.Future[Any],
        admin: AdminClient,
        names: Sequence[str],
        node: int | None,
        deadline: float,
        budget: float,
        problems: list[str],
    ) -> dict[str, dict[str, ConfigValue]]:
        """The kafka-python answer (or our own connection's, read already); confluent-kafka's when that request
        failed and time is left."""
        if fut.done() and fut.exception() is None:
            got: topicconfigs.TopicConfigs = fut.result()
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
        # brokers frozen at the last snapshot are not waited for again: the others' answers first (kafka-python
        # fails a request to one at once when it gave up its connection: no answer either)
        # one whose request of that snapshot was answered after it stopped waiting is slow, not frozen: waited
        # for as any other (else a broker answering in half the timeout, once called frozen, stayed so)
        known = {
            bid
            for bid in self._hung
            if bid in broker_futures
            and brokerconfigs.unanswered(broker_futures[bid])
            and brokerconfigs.unanswered(self._hung_asked.get(bid, broker_futures[bid]))
        }
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
        hung = frozenset(
            {*hung, *(bid for bid in known if brokerconfigs.unanswered(broker_futures[bid]) and bid not in down)}
        )
        self._hung = hung
        self._hung_asked = {bid: broker_futures[bid] for bid in hung}
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

    def _broker_config_sender(self, own: bool) -> BrokerConfigSender | None:
        """How this snapshot sends broker configs: on connections of our own on a first read that reads on its
        own connection (`own`), through kafka-python (`kafkatui.kafka.brokerconfigs`) once it is connected, for
        the brokers it knows (also those our own connections did not take); None otherwise (librdkafka sends
        them all). Frozen
        brokers too: one stopped mid-shutdown dies next, and librdkafka would spin on it then (measured on
        the lab, 4.4: 8 s of CPU in 9 s, the refresh stuck on "the brokers' configs")."""
        kadmin = self._kadmin
        through_kp: BrokerConfigSender | None = None
        if kadmin is not None and not self._defer_kafka_python:

            def through_kp(nodes: Nodes, timeout: float) -> dict[int, cf.Future[Any]]:
                known = [bid for bid, _, _ in nodes if brokerconfigs.knows(kadmin, bid)]
                return brokerconfigs.send(kadmin, known, BROKER_CONFIG_KEYS, timeout) if known else {}

        if not own:
            return through_kp
        mine = self._own_broker_config_sender()
        if through_kp is None:
            return mine
        kp_send = through_kp

        def send(nodes: Nodes, timeout: float) -> dict[int, cf.Future[Any]]:
            # our own connections once our own ApiVersions answered, else kafka-python: a new client's
            # first read after a broker froze, whose librdkafka answered first, sent the frozen broker's
            # request through librdkafka, which spun a core once that broker died (CI, at load)
            out = dict(mine(nodes, timeout))
            rest = [node for node in nodes if node[0] not in out]
            return {**out, **(kp_send(rest, timeout) if rest else {})}

        return send

    def _broker_configs(
        self, futures: Mapping[int, cf.Future[Any]], budget: float, problems: list[str], down: Mapping[int, str]
    ) -> dict[int, dict[str, ConfigValue]]:
        out: dict[int, dict[str, ConfigValue]] = {}
        for bid, fut in futures.items():
            if bid in down:
                problems.append(f"configs of broker {bid} unreadable: {down[bid]}")
                continue
            exc = fut.exception() if fut.done() else None
            if isinstance(exc, brokerconfigs.ConfigsUnreadable):
                problems.append(f"configs of broker {bid} unreadable: {exc}")
                continue
            result, reason = _outcome(fut, budget)
            if reason is not None:
                problems.append(f"configs of broker {bid} unreadable: {reason}")
                continue
            if isinstance(result, brokerconfigs.KeptConfigs):
                out[bid] = result.values
            else:
                out[bid] = _config_values(result, BROKER_CONFIG_KEYS)
        return out


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
