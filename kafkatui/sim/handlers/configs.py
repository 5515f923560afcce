"""Config APIs: DescribeConfigs, IncrementalAlterConfigs and legacy AlterConfigs.

Values, sources and validation come from the cluster's ConfigStore; this module adds what
a Kafka broker checks before it answers or forwards (Kafka's ConfigHelper and
ConfigAdminManager): resource types, that a broker resource names the receiving broker,
duplicate resources and null values. Alters are forwarded to the controller in KRaft, so
every broker accepts them.

Broker loggers (BROKER_LOGGER, KIP-412) are not simulated: Kafka reports them with config
source 6 (DYNAMIC_BROKER_LOGGER_CONFIG), which confluent-kafka's ConfigSource enum cannot
represent, so describing or altering a logger answers INVALID_REQUEST with a message saying so.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kafka.protocol.admin.configs import (
    AlterConfigsRequest,
    AlterConfigsResponse,
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)

from kafkatui.sim import errors as E
from kafkatui.sim.configs import OP_DELETE, ConfigEntry, ConfigError
from kafkatui.sim.handlers.admin import forward_to_controller, topic_name_error
from kafkatui.sim.protocol import RequestContext, api

TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8
RESOURCE_TYPE_NAMES = {
    0: "UNKNOWN",
    TOPIC: "TOPIC",
    BROKER: "BROKER",
    BROKER_LOGGER: "BROKER_LOGGER",
    16: "CLIENT_METRICS",
    32: "GROUP",
}

LOGGERS_NOT_SIMULATED = "The simulator does not model broker loggers (BROKER_LOGGER resources)."
ALTER_TIMEOUT_MS = 30_000

Failure = tuple[int, str | None]


class RequestError(Exception):
    """A per-resource error found before the ConfigStore is asked."""

    def __init__(self, error_code: int, message: str | None) -> None:
        super().__init__(message or f"error {error_code}")
        self.error_code = error_code
        self.message = message


def _failure(exc: RequestError | ConfigError | E.SimError) -> Failure:
    return exc.error_code, exc.message or None


def _node_id(name: str, prefix: str) -> int:
    try:
        return int(name)
    except ValueError:
        raise RequestError(E.INVALID_REQUEST, f"{prefix} id must be an integer, but it is: {name}") from None


def _duplicates(resources: list[Any]) -> set[tuple[int, str]]:
    """(type, name) pairs named more than once: Kafka refuses each of those resources."""
    counts = Counter((int(r.resource_type), r.resource_name) for r in resources)
    return {key for key, n in counts.items() if n > 1}


# --------------------------------------------------------------------------- DescribeConfigs (32)
DC = DescribeConfigsResponse
DCResult = DC.DescribeConfigsResult
DCEntry = DCResult.DescribeConfigsResourceResult
DCSynonym = DCEntry.DescribeConfigsSynonym


def _entry(e: ConfigEntry, include_documentation: bool) -> Any:
    return DCEntry(
        name=e.name,
        value=None if e.sensitive else e.value,
        read_only=e.read_only,
        config_source=int(e.source),
        is_default=e.is_default,
        is_sensitive=e.sensitive,
        synonyms=[DCSynonym(name=s.name, value=s.value, source=int(s.source)) for s in e.synonyms],
        config_type=int(e.type),
        documentation=e.doc if include_documentation else None,
    )


def _describe(ctx: RequestContext, resource: Any, include_synonyms: bool) -> list[ConfigEntry]:
    """The entries for one DescribeConfigs resource; raises RequestError / ConfigError."""
    store = ctx.cluster.configs
    kind = int(resource.resource_type)
    name: str = resource.resource_name
    keys = resource.configuration_keys or None  # null or empty: every config
    if kind == TOPIC:
        problem = topic_name_error(name)
        if problem:
            raise RequestError(E.INVALID_TOPIC_EXCEPTION, problem)
        if name not in ctx.cluster.topics:
            # Kafka's ConfigHelper sets only the error code here, no message
            raise RequestError(E.UNKNOWN_TOPIC_OR_PARTITION, None)
        return store.describe_topic(name, keys, include_synonyms, broker_id=ctx.broker.id)
    if kind == BROKER:
        if not name:
            return store.describe_broker_default(keys, include_synonyms)
        broker_id = _node_id(name, "Broker")
        if broker_id != ctx.broker.id:
            raise RequestError(
                E.INVALID_REQUEST,
                f"Unexpected broker id, expected {ctx.broker.id} or empty string, but received {name}",
            )
        return store.describe_broker(broker_id, keys, include_synonyms)
    if kind == BROKER_LOGGER:
        if not name:
            raise RequestError(E.INVALID_REQUEST, "Broker id must not be empty")
        broker_id = _node_id(name, "Broker")
        if broker_id != ctx.broker.id:
            raise RequestError(E.INVALID_REQUEST, f"Unexpected broker id, expected {ctx.broker.id} but received {name}")
        raise RequestError(E.INVALID_REQUEST, LOGGERS_NOT_SIMULATED)
    raise RequestError(E.INVALID_REQUEST, f"Unsupported resource type: {RESOURCE_TYPE_NAMES.get(kind, kind)}")


@api(DescribeConfigsRequest, DescribeConfigsResponse)
async def handle_describe_configs(ctx: RequestContext, req: Any) -> Any:
    """DescribeConfigs: topic and broker configs with sources, synonyms (v1+), types and docs (v3+)."""
    include_synonyms = bool(req.include_synonyms)
    include_documentation = ctx.version >= 3 and bool(req.include_documentation)
    results: list[Any] = []
    # the answers depend on the configs and on which topics exist, not on leaders or ISRs: a broker's
    # controlled shutdown (13,993 ISR changes at 105,000 partitions) re-encoded 2,001 topics' configs
    # per broker view, 0.13 s each on the simulator's single loop
    generation = (id(ctx.cluster), ctx.cluster.configs.version(), tuple(ctx.cluster.topics))
    if _CACHE.get("generation") != generation:
        _CACHE.clear()
        _CACHE["generation"] = generation
    # the encoded answer too, as a broker's would cost next to nothing (a 1,000-topic answer is 1.6 MB
    # and takes the Python encoder about 0.1 s): kept until a config changes or a topic comes or goes.
    # Topic answers are shared by brokers set alike (a real cluster has no cold broker to warm up).
    topic_view = ctx.cluster.configs.topic_view_of(ctx.broker.id)
    only_topics = all(int(r.resource_type) == TOPIC for r in req.resources)
    body_key = (
        "body",
        topic_view if only_topics else ctx.broker.id,
        ctx.version,
        include_synonyms,
        include_documentation,
        tuple(
            (
                int(r.resource_type),
                r.resource_name,
                None if r.configuration_keys is None else tuple(r.configuration_keys),
            )
            for r in req.resources
        ),
    )
    body = _CACHE.get(body_key)
    if body is not None:
        return body
    for resource in req.resources:
        keys = tuple(resource.configuration_keys) if resource.configuration_keys is not None else None
        cache_key = (
            topic_view if int(resource.resource_type) == TOPIC else ctx.broker.id,
            resource.resource_type,
            resource.resource_name,
            keys,
            include_synonyms,
            include_documentation,
        )
        cached = _CACHE.get(cache_key)
        if cached is not None:
            results.append(cached)
            continue
        code, message = E.NONE, None
        configs: list[Any] = []
        try:
            entries = _describe(ctx, resource, include_synonyms)
        except (RequestError, ConfigError, E.SimError) as exc:
            code, message = _failure(exc)
        else:
            configs = [_entry(e, include_documentation) for e in entries]
        result = DCResult(
            error_code=code,
            error_message=message,
            resource_type=resource.resource_type,
            resource_name=resource.resource_name,
            configs=configs,
        )
        _CACHE[cache_key] = result
        results.append(result)
    response = DC(version=ctx.version, throttle_time_ms=0, results=results)
    body = _CACHE[body_key] = _Encoded(response, bytes(response.encode(version=ctx.version)))
    return body


class _Encoded:
    """A DescribeConfigs response that keeps its encoding; reads like the response (`results`, ...)."""

    def __init__(self, response: Any, body: bytes) -> None:
        self._response = response
        self._body = body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._response, name)

    def encode(self, version: int | None = None, **_: Any) -> bytes:
        return self._body


_CACHE: dict[Any, Any] = {}
"""Described resources, valid while configs, metadata and the answering broker stay the same."""


# --------------------------------------------------------------------------- alters
def _alter_target(ctx: RequestContext, resource: Any, legacy: bool) -> tuple[str, str]:
    """The ConfigStore resource an alter names, after the broker's own checks (ConfigAdminManager)."""
    kind = int(resource.resource_type)
    name: str = resource.resource_name
    if kind == TOPIC:
        return "topic", name
    if kind == BROKER:
        if name:
            node = _node_id(name, "Node")
            if node != ctx.broker.id:
                raise RequestError(
                    E.INVALID_REQUEST, f"Unexpected broker id, expected {ctx.broker.id}, but received {name}"
                )
        return "broker", name
    if kind == BROKER_LOGGER and not legacy:
        raise RequestError(E.INVALID_REQUEST, LOGGERS_NOT_SIMULATED)
    raise RequestError(E.INVALID_REQUEST, f"Unknown resource type {kind}")


def _check_names(names: list[str], nulls: list[str]) -> None:
    if len(set(names)) != len(names):
        raise RequestError(E.INVALID_REQUEST, "Error due to duplicate config keys")
    if nulls:
        raise RequestError(E.INVALID_REQUEST, "Null value not supported for : " + ", ".join(nulls))


# --------------------------------------------------------------------------- IncrementalAlterConfigs (44)
IA = IncrementalAlterConfigsResponse
IAResult = IA.AlterConfigsResourceResponse


def _incremental(ctx: RequestContext, resource: Any, validate_only: bool) -> None:
    ops = [(c.name, int(c.config_operation), c.value) for c in resource.configs]
    _check_names([n for n, _, _ in ops], [n for n, op, v in ops if op != OP_DELETE and v is None])
    target = _alter_target(ctx, resource, legacy=False)
    ctx.cluster.alter_configs(target, ops, validate_only)


async def _alter_all(ctx: RequestContext, req: Any, apply: Any, result_cls: Any) -> list[Any]:
    """Per-resource results of an alter request: duplicates refused, each resource applied on its own."""
    failure = await forward_to_controller(ctx, ALTER_TIMEOUT_MS)
    dups = _duplicates(req.resources)
    validate_only = bool(req.validate_only)
    results: list[Any] = []
    for resource in req.resources:
        code, message = E.NONE, None
        if (int(resource.resource_type), resource.resource_name) in dups:
            code, message = E.INVALID_REQUEST, "Each resource must appear at most once."
        elif failure is not None:
            code, message = failure
        else:
            try:
                apply(ctx, resource, validate_only)
            except (RequestError, ConfigError, E.SimError) as exc:
                code, message = _failure(exc)
        results.append(
            result_cls(
                error_code=code,
                error_message=message,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
            )
        )
    return results


@api(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse)
async def handle_incremental_alter_configs(ctx: RequestContext, req: Any) -> Any:
    """IncrementalAlterConfigs (KIP-339): SET/DELETE/APPEND/SUBTRACT the named keys only."""
    results = await _alter_all(ctx, req, _incremental, IAResult)
    return IA(version=ctx.version, throttle_time_ms=0, responses=results)


# --------------------------------------------------------------------------- AlterConfigs (33)
AC = AlterConfigsResponse
ACResult = AC.AlterConfigsResourceResponse


def _legacy(ctx: RequestContext, resource: Any, validate_only: bool) -> None:
    entries = [(c.name, c.value) for c in resource.configs]
    _check_names([n for n, _ in entries], [n for n, v in entries if v is None])
    target = _alter_target(ctx, resource, legacy=True)
    ctx.cluster.alter_configs_legacy(target, dict(entries), validate_only)


@api(AlterConfigsRequest, AlterConfigsResponse)
async def handle_alter_configs(ctx: RequestContext, req: Any) -> Any:
    """Legacy AlterConfigs: replaces the resource's whole set of overrides (others are dropped)."""
    results = await _alter_all(ctx, req, _legacy, ACResult)
    return AC(version=ctx.version, throttle_time_ms=0, responses=results)
