"""A first read's configs on connections of our own (`kafkatui.kafka.firstread`, `configs_wire`): the topics'
on the connection the metadata came on (or a faster broker's), each broker's on one of its own. Part of
`kafkatui.kafka.source.KafkaClusterSource`."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Sequence
from typing import Any

from kafkatui.kafka import configs_wire, firstread, topicconfigs
from kafkatui.kafka.answers import BrokerConfigSender, Nodes
from kafkatui.kafka.clients import SourceClients, _address
from kafkatui.kafka.settings import parse_host_port


class OwnReads(SourceClients):
    """The own-connection config reads of `kafkatui.kafka.source.KafkaClusterSource`."""

    topic_config_keys: frozenset[str]  # the source's TOPIC_CONFIG_KEYS and BROKER_CONFIG_KEYS
    broker_config_keys: frozenset[str]

    def _own_topic_configs(
        self, conn: firstread.RawConnection, names: Sequence[str], version: int, timeout: float
    ) -> topicconfigs.TopicConfigs:
        return configs_wire.topic_configs(
            conn, names, self.topic_config_keys, configs_wire.TOPICS_PER_REQUEST, version, timeout
        )

    def _own_topic_configs_of(
        self, names: Sequence[str], versions: dict[int, tuple[int, int]], version: int, timeout: float, bid: int
    ) -> cf.Future[topicconfigs.TopicConfigs]:
        """The topic configs asked of broker `bid` on a new connection of our own (on the pool)."""

        def ask() -> topicconfigs.TopicConfigs:
            host, port = parse_host_port(self._addresses[bid])
            sock = firstread.connect(host, port, self.settings.to_confluent(), timeout, self._own_sockets)
            conn = firstread.RawConnection(sock, versions, (host, port), self._own_sockets)
            return self._own_topic_configs(conn, names, version, timeout)

        return self._pool().submit(ask)

    def _own_broker_config_sender(self) -> BrokerConfigSender:
        """Broker configs of a first read on connections of our own (`configs_wire.broker_configs`): one
        request each, once the bootstrap server answered our own ApiVersions (it names the version; the
        brokers' addresses come with the nodes); nothing before (then librdkafka sends them). Not waiting
        for our own Metadata: DescribeCluster often names the brokers first (the lab's first reads, 3.9 in
        ZooKeeper mode: 1 in 3), and the early requests went through librdkafka then."""
        conf = self.settings.to_confluent()

        def send(nodes: Nodes, timeout: float) -> dict[int, cf.Future[Any]]:
            asked = self._raw_asked
            if asked is None or not asked[0].done() or asked[0].exception() is not None:
                return {}
            versions, bootstrap = asked[0].result(), asked[1]
            out: dict[int, cf.Future[Any]] = {}
            # the bootstrap server's broker first: its answer is what the others' are compared with
            first = [node for node in nodes if _address(node[1], node[2]) == _address(*bootstrap)]
            for bid, host, port in first + [node for node in nodes if node not in first]:
                out[bid] = self._pool().submit(
                    configs_wire.broker_configs,
                    host,
                    port,
                    conf,
                    versions,
                    bid,
                    self.broker_config_keys,
                    timeout,
                    self._own_sockets,
                )
            return out

        return send
