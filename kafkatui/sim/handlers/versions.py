"""ApiVersions: the version ranges the simulator really serves."""

from __future__ import annotations

from typing import Any

from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse

from kafkatui.model.rules import Line
from kafkatui.sim import errors as E
from kafkatui.sim.kafkaversion import advertised
from kafkatui.sim.protocol import REGISTRY, RequestContext, api


def api_versions_response(error_code: int, version: int, line: Line | None = None) -> Any:
    """Our ranges, cut to Kafka release `line`'s when the simulator answers as one (`kafkaversion`)."""
    served = [(s.key, s.min_version, s.max_version) for s in sorted(REGISTRY.values(), key=lambda s: s.key)]
    keys = [
        ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
        for k, lo, hi in advertised(served, line)
    ]
    return ApiVersionsResponse(
        version=version,
        error_code=error_code,
        api_keys=keys,
        throttle_time_ms=0,
        supported_features=[],
        finalized_features_epoch=-1,
        finalized_features=[],
        zk_migration_ready=False,
    )


def api_versions_body(error_code: int, version: int, line: Line | None = None) -> bytes:
    return bytes(api_versions_response(error_code, version, line).encode(version=version))


@api(ApiVersionsRequest, ApiVersionsResponse)
async def handle_api_versions(ctx: RequestContext, req: Any) -> Any:
    return api_versions_response(E.NONE, ctx.version, ctx.cluster.kafka_line)
