"""grpc.aio server bootstrap shared by the services.

``GrpcServer`` wires the conventions of the design: message size limits, metrics for every RPC
(``metrics.instrument``, applied to each handler as it is registered), the standard health
service (``grpc.health.v1``), server reflection (v1 and v1alpha), an optional Prometheus
``/metrics`` endpoint, an optional gRPC-Web port for browsers (``--web-listen``: the services
added with ``web=True``, through the same handlers; ``services.common.web``), and graceful
shutdown: on SIGTERM / SIGINT every service is set NOT_SERVING, the ``on_drain`` callbacks run
(e.g. end streams with UNAVAILABLE), in-flight calls get ``grace`` seconds to finish, then the
server stops.

    server = GrpcServer(settings)
    server.add(match_pb2_grpc.add_MatchServiceServicer_to_server, servicer,
               "wordarena.v1.MatchService")
    port = await server.start()
    await server.wait_for_termination_signal()   # returns after the graceful stop
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from wordarena.services.common import lifeline, logs
from wordarena.services.common.config import Settings
from wordarena.services.common.metrics import InstrumentedServer, start_metrics_server, stop_metrics_server
from wordarena.services.common.reflection import enable_reflection
from wordarena.services.common.web import Cors, WebApp, WebServer, endpoints

log = logs.get_logger(__name__)

DrainHook = Callable[[], Awaitable[None]]


#: Middle-generation collections between full collections (CPython's default is 10).
GC_FULL_EVERY = 1000


def tune_gc() -> None:
    """Fewer full garbage collections for a long-running server. A full collection walks every
    live object (hundreds of live matches: ~100 ms, a pause for every call in flight) while the
    cyclic garbage grpc.aio makes per call is young and goes with the cheap young collections.
    Everything loaded at start-up (modules, rulesets, lexicons) moves to a permanent generation
    that collections skip, and full collections run only after ``GC_FULL_EVERY`` middle ones
    (and, as always, only once a quarter of the old objects are new since the last one)."""
    gc.collect()
    gc.freeze()
    g0, g1, _ = gc.get_threshold()
    gc.set_threshold(g0, g1, GC_FULL_EVERY)


class GrpcServer:
    """One grpc.aio server with health, reflection, metrics and graceful shutdown."""

    def __init__(self, settings: Settings, *, listen: str | None = None,
                 interceptors: Sequence[grpc.aio.ServerInterceptor] = ()) -> None:
        self.settings = settings
        self.listen = listen or settings.listen
        limit = settings.max_message_bytes
        self.server = grpc.aio.server(
            interceptors=list(interceptors) or None,
            options=[
                ("grpc.max_receive_message_length", limit),
                ("grpc.max_send_message_length", limit),
                ("grpc.so_reuseport", 0),
                ("grpc.keepalive_time_ms", 60_000),
                ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
                # connection limits (docs/operations.md, "Security model")
                ("grpc.max_allowed_incoming_connections", settings.max_connections),
                # Past it, gRPC's client holds long calls back, but a burst of short ones is partly
                # refused UNAVAILABLE (REFUSED_STREAM): the server counts a call until it has
                # released it ("grpc.http.overload_protection", on by default: the defence against
                # HTTP/2 rapid reset, kept). docs/operations.md tells clients to retry UNAVAILABLE.
                ("grpc.max_concurrent_streams", settings.max_streams_per_connection),
                ("grpc.max_connection_idle_ms", int(settings.max_connection_idle * 1000)),
            ],
        )
        # Every handler counted and timed, wrapped once at registration (``metrics.instrument``).
        self.registrar: Any = InstrumentedServer(self.server)
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.registrar)
        self.service_names: list[str] = [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
        self.port = 0
        self.metrics_port = 0
        self._metrics_server: Any = None
        self._drain_hooks: list[DrainHook] = []
        #: The services the web port serves (``add(..., web=True)``), what else it serves
        #: (``static_root``, ``/config.json``), and the web server once started.
        self.web_services: list[str] = [self.service_names[0]]
        self.web_static: Path | None = None
        #: ``/config.json``: a document, or an async function making it for each request
        self.web_config: Any = None
        self.web: WebServer | None = None
        self.web_port = 0
        self._stopping = asyncio.Event()
        self._stopped = asyncio.Event()

    def add(self, add_fn: Callable[[Any, grpc.aio.Server], None], servicer: Any, full_name: str, *,
            web: bool = False) -> None:
        """Register a servicer (``add_XServicer_to_server``) under its full service name; with
        ``web``, the web port (when there is one) serves it too."""
        add_fn(servicer, self.registrar)
        self.service_names.append(full_name)
        if web:
            self.web_services.append(full_name)

    def on_drain(self, hook: DrainHook) -> None:
        """Run ``hook`` when shutting down, after health turns NOT_SERVING."""
        self._drain_hooks.append(hook)

    async def start(self, *, serving: bool = True) -> int:
        """Bind, start serving and mark every service SERVING. Returns the bound port.

        With ``serving=False`` health says NOT_SERVING (the port answers, readiness probes fail)
        until ``set_serving`` is called, e.g. once the match server has recovered its matches."""
        enable_reflection(self.service_names, self.registrar)
        self.port = self.server.add_insecure_port(self.listen)
        if self.port == 0:
            raise OSError(f"cannot listen on {self.listen}")
        await self.server.start()
        tune_gc()
        hc = health_pb2.HealthCheckResponse
        status = hc.SERVING if serving else hc.NOT_SERVING
        for name in ["", *self.service_names]:
            await self.health.set(name, status)
        if self.settings.metrics_listen:
            self._metrics_server, self.metrics_port = start_metrics_server(self.settings.metrics_listen)
        if self.settings.web_listen:
            await self._start_web()
        log.info("server started", listen=self.listen, port=self.port, metrics_port=self.metrics_port,
                 web_port=self.web_port, services=self.service_names)
        return self.port

    async def _start_web(self) -> None:
        app = WebApp(endpoints(self.registrar.handlers, self.web_services),
                     cors=Cors(self.settings.web_origins.split(",")),
                     read_max_bytes=self.settings.max_message_bytes, static_root=self.web_static,
                     config=self.web_config)
        self.web = WebServer(app, self.settings.web_listen, self.settings.max_connections)
        try:
            self.web_port = await self.web.start()
        except OSError:
            await self.server.stop(0)
            raise

    async def set_serving(self) -> None:
        """Mark every service SERVING (after ``start(serving=False)``); nothing once stopping."""
        if self._stopping.is_set():
            return
        for name in ["", *self.service_names]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        log.info("serving")

    async def stop(self, grace: float | None = None) -> None:
        """Graceful stop: NOT_SERVING, drain hooks, then stop with ``grace`` seconds for calls."""
        if self._stopping.is_set():
            await self._stopped.wait()
            return
        self._stopping.set()
        grace = self.settings.shutdown_grace if grace is None else grace
        log.info("shutting down", grace=grace)
        await self.health.enter_graceful_shutdown()
        for hook in self._drain_hooks:
            try:
                await asyncio.wait_for(hook(), timeout=max(grace, 0.1))
            except Exception as exc:  # pragma: no cover - logged, shutdown goes on
                log.warning("drain hook failed", error=repr(exc))
        if self.web is not None:
            await asyncio.gather(self.server.stop(grace), self.web.stop(grace))
        else:
            await self.server.stop(grace)
        if self._metrics_server is not None:
            await asyncio.to_thread(stop_metrics_server, self._metrics_server)
            self._metrics_server = None
        self._stopped.set()
        log.info("server stopped")

    async def wait_for_termination_signal(self) -> None:
        """Block until SIGTERM / SIGINT (or ``stop``, or the end of the parent process that
        started this server: ``lifeline``), then stop gracefully."""
        loop = asyncio.get_running_loop()
        requested = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # non-main thread
                loop.add_signal_handler(sig, requested.set)

        def parent_gone() -> None:
            log.warning("the parent process is gone: stopping")
            requested.set()

        lifeline.watch_parent(loop, parent_gone)
        waiter = asyncio.ensure_future(requested.wait())
        stopper = asyncio.ensure_future(self._stopping.wait())
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        stopper.cancel()
        await self.stop()
