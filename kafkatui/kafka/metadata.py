"""The metadata read of a snapshot: without it, no snapshot (`MetadataRead._metadata`), and the
one-line `KafkaTuiError` that says why when it fails (refused, DNS, TLS, SASL, not Kafka, no answer).

Part of `kafkatui.kafka.source.KafkaClusterSource`; the classification of librdkafka's errors is
`kafkatui.kafka.diagnose`.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import struct
import time
from collections.abc import Sequence
from typing import Any

from confluent_kafka import KafkaError
from confluent_kafka.admin import AdminClient

from kafkatui.kafka import firstread
from kafkatui.kafka.answers import POLL_SECONDS
from kafkatui.kafka.clients import SourceClients, _kp_connected
from kafkatui.kafka.diagnose import _UNVERIFIED, _best, _exc_kafka_error, _probe, _timed_out, classify_kafka_error
from kafkatui.kafka.errors import AuthenticationError, KafkaTuiError, MetadataTimeoutError, NotKafkaError, UsageError
from kafkatui.kafka.metadata_wire import MetadataColumns, decode
from kafkatui.kafka.settings import parse_host_port
from kafkatui.kafka.tlsprobe import (
    PROBE_TIMEOUT,
    REJECTED_CLIENT_CERT,
    client_certificate_hint,
    explain,
    verify_failure_reason,
)
from kafkatui.kafka.versions import ask as ask_api_versions
from kafkatui.model.snapshot import StateTable

FAIL_FAST_GRACE = 1.0
"""How long librdkafka may retry before "every bootstrap server failed" ends the attempt."""
ATTEMPTS = 2
"""A metadata request gets timeout/ATTEMPTS (at least 0.5 s), then another is sent."""
QUIET_SECONDS = 0.25
"""Without a connection error this soon, the metadata request goes out even before DescribeCluster answers."""
OWN_ANSWER_GRACE = 0.1
"""How long a first read still waits for its own connection's ApiVersions after another bootstrap server
answered one (a hung first server costs that much, at most)."""
STATE_TABLE_MIN = 100_000
"""Distinct partition states a source's table may hold before it starts a new one (see `_state_table`)."""
KP_METADATA_BROKERS = 2
"""Brokers a refresh's metadata is asked of through kafka-python before librdkafka is asked too."""
RETRY_SECONDS = 0.1
PROBE_SECONDS = 1.0
_RETRIABLE = (KafkaError._TIMED_OUT, KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._DESTROY_BROKER)
"""Request failures worth another attempt. _DESTROY_BROKER: librdkafka dropped the broker handle
the request waited on (a bootstrap or departed broker it no longer keeps), not an answer."""


log = logging.getLogger(__name__)


def _names(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


class MetadataRead(SourceClients):
    """The metadata phase of `kafkatui.kafka.source.KafkaClusterSource`."""

    def _attempt_seconds(self) -> float:
        """How long one metadata request may go unanswered before another is sent (see `_metadata`):
        half the timeout, or, once a metadata read was timed, four times that (at least 1 s): a hung
        broker chosen for it then costs about a second, not half the timeout."""
        half = max(0.5, self.settings.timeout / ATTEMPTS)
        if self._md_seconds is None:
            return half
        return min(half, max(1.0, 4 * self._md_seconds))

    def _kp_metadata(self, start: float, deadline: float) -> tuple[MetadataColumns | None, cf.Future[Any] | None]:
        """A refresh's metadata through kafka-python's connections, read from the raw answer into columns
        (`kafkatui.kafka.metadata_wire`): confluent-kafka's object per partition and their reading cost
        ~0.45 s of CPU a read at 105,000 partitions, this ~0.15 s.

        Asked of a broker kafka-python is connected to, not found frozen, with the fewest requests in flight;
        when it has not answered within one attempt (`_attempt_seconds`: a broker slow after a change, or one
        that just froze), of another as well, up to KP_METADATA_BROKERS, the first answer winning (the others
        cost kafka-python's IO thread the framing of a few MB, no decoding). (columns, None) when one
        answered; (None, a request still on its way) or (None, None) otherwise: then librdkafka's
        `list_topics` is asked (`_metadata`, which finds a hung broker's way around and says why a read
        failed), racing the request left."""
        kadmin = self._kadmin
        if kadmin is None:
            return None, None
        from kafkatui.kafka import kpraw

        # the broker that answered the last one first (it was alive then), the others by id
        candidates = [bid for bid, _, _ in self._listed if bid not in self._hung]
        candidates.sort(key=lambda bid: bid != self._kp_md_node)
        pending: list[cf.Future[Any]] = []
        asked: dict[int, int] = {}  # id of a request -> the broker asked
        for _ in range(KP_METADATA_BROKERS):
            node = _idle_node(kadmin, candidates)
            remaining = deadline - time.monotonic()
            if node is None or remaining <= 0.05:
                break
            candidates.remove(node)
            pending.append(kpraw.send(kadmin, kpraw.metadata_request(), node, remaining))
            asked[id(pending[-1])] = node
            while pending:
                # at most a third of what is left an attempt: librdkafka's way must still have time
                done, _ = cf.wait(
                    pending, timeout=min(self._attempt_seconds(), remaining / 3), return_when=cf.FIRST_COMPLETED
                )
                if not done:
                    break  # slow: ask another broker too
                for sent in done:
                    pending.remove(sent)
                    md = self._read_answer(sent, start, "through kafka-python")
                    if md is not None:
                        self._kp_md_node = asked[id(sent)]
                        return md, None
                remaining = deadline - time.monotonic()
        return None, (pending[0] if pending else None)

    def _read_answer(self, sent: cf.Future[Any], start: float, where: str) -> MetadataColumns | None:
        """The columns of a raw Metadata answer `sent` (done: (version, body)), or None when it failed or could
        not be read (`where` it was asked, for the debug log)."""
        exc = sent.exception()
        if exc is not None:
            log.debug("metadata %s failed: %r", where, exc)
            return None
        got = sent.result()
        version, body = got[0], got[1]
        conn = got[2] if len(got) > 2 else None  # our own connection: it carries the topic configs next
        try:
            md = decode(body, version, self._state_table(self._partitions_seen))
        except (struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
            log.debug("metadata v%s %s unreadable: %r", version, where, exc)
            if conn is not None:
                conn.close()
            return None
        self._md_seconds = time.monotonic() - start
        if conn is not None:
            self._take_raw_connection(conn)
        return md

    def _take_raw_connection(self, conn: firstread.RawConnection | None) -> None:
        """Keep the first read's own connection for its topic configs (closing one kept before)."""
        with self._clients_lock:
            old, self._raw_conn = self._raw_conn, conn
            if self._closed and conn is not None:
                self._raw_conn = None
                old = conn
        if old is not None:
            old.close()

    def _state_table(self, partitions: int) -> StateTable:
        """The table of partition states this source's snapshots share (so that equal states of two
        snapshots have equal ids), started afresh when churn has grown it far past the cluster's size."""
        if len(self._table) > max(STATE_TABLE_MIN, 4 * partitions):
            self._table = StateTable()
        return self._table

    def _metadata(
        self,
        admin: AdminClient,
        start: float,
        deadline: float,
        cluster: cf.Future[Any],
        racing: cf.Future[Any] | None = None,
    ) -> tuple[Any, AdminClient]:
        """All topics' metadata (list_topics) and the client that got it; fails fast when it can. `racing`:
        kafka-python's request still on its way (`_kp_metadata`): its columns when it answers first.

        librdkafka reports connection errors only through error_cb, served by poll(), and
        list_topics blocks: so this thread polls while `cluster` (DescribeCluster, a future)
        shows whether the cluster answers, and list_topics runs on worker threads once it does
        (or when no connection error came early: the controller may be the hung broker).

        librdkafka sends list_topics to any broker whose connection is up, a hung one included,
        and keeps choosing it. So an attempt left unanswered for `_attempt_seconds` is followed
        by one from a new client: a hung broker never completes a new connection's handshake,
        so the new client cannot choose it. That client then replaces the old one.

        Round trips: DescribeCluster answers after three (ApiVersions, librdkafka's bootstrap Metadata,
        then a new connection's ApiVersions to the broker it names), four or more from a bastion 100 ms
        away. So list_topics goes out as soon as the cluster is known to answer: at once when this client
        read the metadata before (a refresh: its connections are up; a failure still costs at most one
        attempt), else when a bootstrap server answers an ApiVersions of our own (`_kafka_answers`), which
        puts it on librdkafka's bootstrap connection, as kcat's. Never before: a list_topics to a refused
        port blocks its whole attempt, and `close()` would wait for it.
        """
        protocol = self.settings.to_confluent().get("security.protocol", "PLAINTEXT").upper()
        pool = self._pool()
        attempt = self._attempt_seconds()
        grace = min(FAIL_FAST_GRACE, self.settings.timeout / 2)
        clients = [admin]
        attempts: dict[cf.Future[Any], AdminClient] = {}
        started: dict[cf.Future[Any], float] = {}  # when each attempt went out
        next_attempt = start
        last_exc: BaseException | None = None
        known = admin is self._md_admin
        answering, raw, raw_versions = ([], None, None) if known else self._kafka_answers(protocol, attempt)
        other_answered: float | None = None  # when a bootstrap server first answered an ApiVersions of ours
        try:
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
                if raw is not None and raw.done():
                    got = self._read_answer(raw, start, "on a connection of our own")
                    raw = None
                    if got is not None:
                        with self._clients_lock:
                            if self._admin is admin:
                                self._md_admin = admin
                        return got, admin
                now = time.monotonic()
                if other_answered is None and any(f.done() and f.exception() is None for f in answering):
                    other_answered = now
                # our own Metadata request is on its way on a connection that answered: no second one meanwhile;
                # nor while that connection's ApiVersions is younger than the quiet time and no other bootstrap
                # server answered ours (a loaded core ran DescribeCluster's three round trips first), or one did
                # only a moment ago (the lab, 3 servers: the others' ApiVersions answered in 1-2 ms, ours in
                # 30 ms on a thread started a moment later, and librdkafka's Metadata then came first 1 in 10)
                holding = bool(
                    raw is not None
                    and raw_versions is not None
                    and (
                        (raw_versions.done() and raw_versions.exception() is None and now - start < attempt)
                        or (
                            not raw_versions.done()
                            and now - start < QUIET_SECONDS
                            and (other_answered is None or now - other_answered < OWN_ANSWER_GRACE)
                        )
                    )
                )
                # DescribeCluster goes to the metadata's "controller", which KRaft picks at random: with a broker
                # known frozen it may wait on that one, so the metadata request goes out without waiting
                quiet = 0.0 if self._hung else QUIET_SECONDS
                ready = not holding and (
                    known
                    or (cluster.done() and cluster_exc is None)
                    or any(f.done() and f.exception() is None for f in answering)
                    or (now - start >= quiet and not events)
                    or now - start >= grace + 2 * POLL_SECONDS
                )
                if ready and now >= next_attempt and deadline - now > 0.05:
                    if len(clients) == 1 and next_attempt > start:
                        clients.append(self._new_admin())  # a retry: from a client with fresh connections
                    remaining = deadline - now
                    seconds = remaining if remaining <= attempt * 1.5 else attempt  # the last one gets the rest
                    sent = pool.submit(clients[-1].list_topics, timeout=seconds)
                    attempts[sent] = clients[-1]
                    started[sent] = now
                    next_attempt = now + seconds
                # only futures still pending: a done one (the DescribeCluster that failed with a retriable
                # error, a probe that answered) would end every wait at once, a busy loop holding the GIL
                # that stalled the dashboard's keys by 0.1-0.4 s while all brokers were down
                waiting = [f for f in (attempts if ready else [*attempts, cluster, *answering]) if not f.done()]
                if raw is not None:
                    waiting.append(raw)
                if racing is not None:
                    if racing.done():
                        got = self._read_answer(racing, start, "through kafka-python")
                        racing = None
                        if got is not None:
                            return got, admin
                    else:
                        waiting.append(racing)
                pause = max(0.0, min(POLL_SECONDS, deadline - now))
                if waiting:
                    cf.wait(waiting, timeout=pause, return_when=cf.FIRST_COMPLETED)
                else:
                    time.sleep(pause)
                for fut in [f for f in attempts if f.done()]:
                    client = attempts.pop(fut)
                    exc = fut.exception()
                    if exc is None:
                        self._md_seconds = time.monotonic() - start
                        with self._clients_lock:
                            if client is not admin and self._admin is admin:
                                self._admin = client  # the old one may hold a hung broker's connection
                            if self._admin is client:
                                self._md_admin = client
                        return fut.result(), client
                    err = _exc_kafka_error(exc)
                    if err is None or err.code() not in _RETRIABLE:
                        raise self._request_failure(exc, start, protocol) from None
                    last_exc = exc
                    # failed early: retry soon, unless a later attempt is already on its way (an attempt that
                    # timed out just as the next one went out: a second one at once decoded the 105,000-partition
                    # answer twice when a slow cluster answered both)
                    if not any(started[f] > started[fut] for f in attempts):
                        next_attempt = min(next_attempt, time.monotonic() + RETRY_SECONDS)
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
        finally:
            if raw is not None:  # not used: its connection is closed once it is done
                firstread.discard(raw)

    def _kafka_answers(
        self, protocol: str, metadata_seconds: float
    ) -> tuple[list[cf.Future[Any]], cf.Future[Any] | None, cf.Future[Any] | None]:
        """An ApiVersions of our own to each configured bootstrap server (at most three), on the pool: one
        that answers is a Kafka listener this client can reach. To the first, an all-topics Metadata request
        follows on the same connection when `firstread.usable` (`kafkatui.kafka.firstread`). (ApiVersions
        futures, the Metadata future, that connection's ApiVersions future.) Not with SASL: a broker answers
        ApiVersions before authentication, so the answer would not say that the client can log in, and no
        Metadata at all."""
        if protocol not in firstread.PROTOCOLS:
            return [], None, None
        conf = self.settings.to_confluent()
        seconds = min(PROBE_SECONDS, self.settings.timeout / 2)
        out: list[cf.Future[Any]] = []
        raw: cf.Future[Any] | None = None
        raw_versions: cf.Future[Any] | None = None
        self._raw_asked = None
        for server in self.settings.bootstrap[:3]:
            try:
                host, port = parse_host_port(server)
            except UsageError:
                continue
            if raw is None and firstread.usable(conf):
                raw_versions = cf.Future()
                self._raw_asked = (raw_versions, (host, port))
                raw = self._pool().submit(
                    firstread.ask, host, port, conf, seconds, metadata_seconds, raw_versions, self._own_sockets
                )
                out.append(raw_versions)
            else:
                out.append(self._pool().submit(ask_api_versions, host, port, conf, seconds))
        return out, raw, raw_versions

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


def _idle_node(kadmin: Any, candidates: Sequence[int]) -> int | None:
    """Of `candidates`, a broker kafka-python is connected to with the fewest requests in flight (the
    first in `candidates` among equals); None when it is connected to none of them."""
    best: tuple[int, int, int] | None = None
    for rank, bid in enumerate(candidates):
        if not _kp_connected(kadmin, bid):
            continue
        try:
            inflight = len(kadmin._manager._conns[bid].in_flight_requests)
        except Exception:  # another kafka-python
            inflight = 0
        if best is None or (inflight, rank, bid) < best:
            best = (inflight, rank, bid)
    return best[2] if best is not None else None
