"""The `lab ctl` channel: one JSON line in, one JSON line out, over TCP on 127.0.0.1.

The foreground `kafkatui lab` process owns the JVMs (it started them, and they die with it), so
faults and restarts are carried out by it; `lab ctl` only asks. The port is in DIR/lab.json.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafkatui.lab.errors import NoLab

VERBS = ("crash", "shutdown", "hang", "restore", "restart", "status")
"""Verbs of `kafkatui lab ctl` carried out by the lab process (`load` runs in the ctl process)."""

Handler = Callable[[str, str], dict[str, Any]]


class ControlServer:
    """Accepts `lab ctl` requests; `poll` handles what arrived within `timeout` seconds."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port: int = self.sock.getsockname()[1]

    def poll(self, timeout: float) -> None:
        """Serve the requests waiting now (one at a time, each to the end)."""
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if not ready:
            return
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(5)
            try:
                line = conn.makefile("rb").readline(4096)
                req = json.loads(line or b"{}")
                verb, node = str(req.get("verb", "")), str(req.get("node", ""))
                if verb not in VERBS:
                    reply: dict[str, Any] = {"ok": False, "message": f"unknown verb {verb!r}"}
                else:
                    reply = self.handler(verb, node)
            except (OSError, ValueError) as exc:
                reply = {"ok": False, "message": f"bad request: {exc}"}
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps(reply).encode() + b"\n")

    def close(self) -> None:
        """Stop listening."""
        self.sock.close()


def request(root: Path, verb: str, node: str = "", timeout: float = 330.0) -> dict[str, Any]:
    """Send one request to the lab running in `root`; NoLab when none answers.

    `timeout` outlasts the lab's own wait for a restarted node (300 s), which then answers itself."""
    try:
        state = json.loads((root / "lab.json").read_text(encoding="utf-8"))
        port = int(state["control_port"])
    except FileNotFoundError:
        raise NoLab(f"no lab in {root}: start one with `kafkatui lab --dir {root}`") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise NoLab(f"{root / 'lab.json'} names no control port: is `kafkatui lab` running there?") from None
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.settimeout(timeout)
            conn.sendall(json.dumps({"verb": verb, "node": node}).encode() + b"\n")
            line = conn.makefile("rb").readline()
    except TimeoutError:
        raise NoLab(f"the lab in {root} gave no answer to {verb} within {timeout:.0f} s (see its output)") from None
    except OSError:
        raise NoLab(f"the lab in {root} does not answer (it has stopped, or was killed)") from None
    if not line:
        raise NoLab(f"the lab in {root} closed the connection without an answer")
    reply: dict[str, Any] = json.loads(line)
    return reply
