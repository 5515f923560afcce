"""Run a simulated cluster on a background thread: the Python API for tests and the demo."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

from kafkatui.sim.cluster import SimCluster
from kafkatui.sim.security import SecurityConfig
from kafkatui.sim.server import SimServer

T = TypeVar("T")


class SimRunner:
    """A SimCluster plus its listeners, running on its own event-loop thread.

    Every method that touches the cluster runs on the simulator's thread, so tests and the
    demo can call them from anywhere::

        with SimRunner(brokers=3) as sim:
            sim.call(lambda c: c.create_topic("orders", 6, 3))
            sim.crash(2)

    `security` secures every broker listener (see `SecurityConfig`; default PLAINTEXT)::

        SimRunner(security={"protocol": "SASL_SSL", "users": {"ops": "secret"},
                            "mechanisms": ["SCRAM-SHA-512"], "certfile": ..., "keyfile": ...})
    """

    def __init__(
        self,
        cluster: SimCluster | None = None,
        *,
        base_port: int = 0,
        security: SecurityConfig | Mapping[str, Any] | None = None,
        **cluster_kwargs: Any,
    ) -> None:
        self.cluster = cluster or SimCluster(**cluster_kwargs)
        self.server = SimServer(self.cluster, base_port=base_port, security=security)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self.extras: list[Any] = []  # objects with async start()/stop() run on the same loop (control API)

    # lifecycle -----------------------------------------------------------
    def start(self) -> SimRunner:
        self._thread = threading.Thread(target=self._run, name="kafkatui-sim", daemon=True)
        self._thread.start()
        self._started.wait(30)
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self.server.start())
            for extra in self.extras:
                loop.run_until_complete(extra.start())
        except BaseException as exc:  # surfaced to start()'s caller
            self._error = exc
            self._started.set()
            return
        self._started.set()
        try:
            loop.run_forever()
        finally:
            for extra in self.extras:
                loop.run_until_complete(extra.stop())
            loop.run_until_complete(self.server.stop())
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(15)
        self._loop = None

    def __enter__(self) -> SimRunner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # access --------------------------------------------------------------
    @property
    def bootstrap(self) -> str:
        return self.server.bootstrap

    def port_of(self, broker_id: int) -> int:
        return self.server.listeners[broker_id].port

    def call(self, fn: Callable[[SimCluster], T], timeout: float = 30.0) -> T:
        """Run `fn(cluster)` on the simulator thread and return its result."""
        if self._loop is None:
            return fn(self.cluster)
        fut: Future[T] = Future()

        def run() -> None:
            try:
                fut.set_result(fn(self.cluster))
            except BaseException as exc:
                fut.set_exception(exc)

        self._loop.call_soon_threadsafe(run)
        return fut.result(timeout)

    def wait_for(self, predicate: Callable[[SimCluster], bool], timeout: float = 30.0, interval: float = 0.05) -> bool:
        """Poll `predicate(cluster)` on the simulator thread until true; False on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.call(predicate):
                return True
            time.sleep(interval)
        return False

    # faults, for tests and the control API -----------------------------------
    def crash(self, broker_id: int) -> None:
        self.call(lambda c: c.crash(broker_id))

    def restore(self, broker_id: int) -> None:
        self.call(lambda c: c.restore(broker_id))

    def shutdown(self, broker_id: int) -> None:
        self.call(lambda c: c.shutdown(broker_id))

    def hang(self, broker_id: int) -> None:
        self.call(lambda c: c.hang(broker_id))

    def isolate(self, broker_id: int) -> None:
        self.call(lambda c: c.isolate(broker_id))

    def slow(self, broker_id: int, factor: float) -> None:
        self.call(lambda c: c.slow(broker_id, factor))

    def delay_responses(self, broker_id: int, seconds: float) -> None:
        self.call(lambda c: c.delay_responses(broker_id, seconds))
