"""ApiVersions: the version ranges the simulator really serves."""

from __future__ import annotations

from typing import Any

from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse

from kafkatui.sim import errors as E
from kafkatui.sim.protocol import REGISTRY, RequestContext, api


def api_versions_response(error_code: int, version: int) -> Any:
    keys = [
        ApiVersionsResponse.ApiVersion(api_key=s.key, min_version=s.min_version, max_version=s.max_version)
        for s in sorted(REGISTRY.values(), key=lambda s: s.key)
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


def api_versions_body(error_code: int, version: int) -> bytes:
    return bytes(api_versions_response(error_code, version).encode(version=version))


@api(ApiVersionsRequest, ApiVersionsResponse)
async def handle_api_versions(ctx: RequestContext, req: Any) -> Any:
    return api_versions_response(E.NONE, ctx.version)
