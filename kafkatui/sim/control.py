"""A loopback control endpoint for a running simulator (`kafkatui sim ctl ...`).

One JSON object per line in each direction: {"cmd": "crash", "broker": 2} -> {"ok": true, ...}.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
from typing import Any

from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.configs import ConfigError
from kafkatui.sim.errors import SimError

log = logging.getLogger("kafkatui.sim.control")

COMMANDS = (
    "status",
    "events",
    "crash",
    "restart",
    "restore",
    "shutdown",
    "hang",
    "isolate",
    "slow",
    "pause",
    "set-config",
    "load",
    "speed",
    "elect",
)


def execute(cluster: SimCluster, req: dict[str, Any]) -> dict[str, Any]:
    """Run one control command against the cluster (on the simulator thread)."""
    cmd = req.get("cmd")
    try:
        broker = int(req["broker"]) if "broker" in req and req["broker"] is not None else None
        if cmd == "status":
            return {"ok": True, **status(cluster)}
        if cmd == "events":
            n = int(req.get("n", 50))
            return {
                "ok": True,
                "events": [
                    {"ts_ms": e.ts_ms, "kind": e.kind.value, "text": e.describe()}
                    for e in cluster.events.snapshot()[-n:]
                ],
            }
        if cmd in ("crash", "restart", "restore", "shutdown", "hang", "isolate"):
            if broker is None:
                return {"ok": False, "error": f"{cmd} needs a broker id"}
            getattr(cluster, cmd)(broker)
            return {"ok": True}
        if cmd == "slow":
            if broker is None:
                return {"ok": False, "error": "slow needs a broker id"}
            cluster.slow(broker, float(req.get("factor", 0.05)))
            return {"ok": True}
        if cmd == "pause":
            if broker is None:
                return {"ok": False, "error": "pause needs a broker id"}
            cluster.pause(broker, int(float(req.get("seconds", 15)) * 1000))
            return {"ok": True}
        if cmd == "set-config":
            resource = ("topic", str(req["topic"])) if req.get("topic") else ("broker", str(req.get("broker") or ""))
            value = req.get("value")
            cluster.alter_configs(resource, [(str(req["key"]), 1 if value is None else 0, value)], False)
            return {"ok": True}
        if cmd == "load":
            cluster.set_load(str(req["topic"]), float(req.get("rate", 100)), int(req.get("acks", -1)))
            return {"ok": True}
        if cmd == "speed":
            cluster.clock.set_speed(float(req["speed"]))
            return {"ok": True, "speed": cluster.clock.speed}
        if cmd == "elect":
            kind = 1 if req.get("type") == "unclean" else 0
            results = cluster.elect_leaders(kind, None)
            return {"ok": True, "elected": sum(1 for code, _ in results.values() if code == 0)}
    except (SimError, ConfigError) as exc:
        return {"ok": False, "error": exc.message or str(exc)}
    except (KeyError, ValueError, TypeError) as exc:
        return {"ok": False, "error": f"bad {cmd} request: {exc}"}
    return {"ok": False, "error": f"unknown command {cmd!r}; known: {', '.join(COMMANDS)}"}


def status(cluster: SimCluster) -> dict[str, Any]:
    return {
        "cluster_id": cluster.cluster_id,
        "controller": cluster.controller_id,
        "now_ms": cluster.now_ms,
        "speed": cluster.clock.speed,
        "brokers": [
            {
                "id": b.id,
                "port": b.port,
                "rack": b.rack,
                "state": b.state.value,
                "fenced": b.fenced,
                "slow": b.slow_factor,
                "paused": b.paused(cluster.now_ms),
            }
            for b in sorted(cluster.brokers.values(), key=lambda b: b.id)
        ],
        "topics": len(cluster.topics),
        **cluster.summary(),
        "lost_acked_records": cluster.lost_acked_records,
        "loads": {
            t: {"rate": ld.rate, "acks": ld.acks, "accepted": ld.accepted, "rejected": ld.rejected}
            for t, ld in cluster.loads.items()
        },
    }


class ControlServer:
    """Serves control commands on 127.0.0.1:`port` for one cluster."""

    def __init__(self, cluster: SimCluster, port: int) -> None:
        self.cluster = cluster
        self.port = port
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._on_connect, "127.0.0.1", self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                try:
                    req = json.loads(line)
                    if not isinstance(req, dict):
                        raise ValueError("not an object")
                    resp = execute(self.cluster, req)
                except ValueError as exc:
                    resp = {"ok": False, "error": f"bad request: {exc}"}
                except Exception as exc:  # a bug must not close the endpoint: say it and keep serving
                    log.exception("control command failed")
                    resp = {"ok": False, "error": f"internal error: {exc!r}"}
                writer.write(json.dumps(resp).encode() + b"\n")
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


def send(port: int, request: dict[str, Any], timeout: float = 5.0, host: str = "127.0.0.1") -> dict[str, Any]:
    """Client side of the control endpoint."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(json.dumps(request).encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
    result: dict[str, Any] = json.loads(buf or b"{}")
    return result
