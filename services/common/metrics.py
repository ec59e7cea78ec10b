"""Prometheus metrics: the standard ``grpc_server_*`` family for every RPC type, and helpers.

``instrument`` wraps every method handler at registration (``InstrumentedServer``) and records, labelled by
``grpc_type`` (unary / server_stream / client_stream / bidi_stream), ``grpc_service`` and
``grpc_method``:

* ``grpc_server_started_total``            RPCs started
* ``grpc_server_handled_total{grpc_code}`` RPCs finished, by status code name (OK, NOT_FOUND …)
* ``grpc_server_handling_seconds``         histogram of the time to finish (streams: whole stream)
* ``grpc_server_msg_received_total``       request messages received
* ``grpc_server_msg_sent_total``           response messages sent

It also binds a ``request_id`` (from ``x-request-id`` metadata, else a fresh one) and the RPC
name to the structlog context of the call. ``start_metrics_server(host_port)`` serves
``/metrics`` over HTTP.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

from wordarena.services.common import logs

_LABELS = ("grpc_type", "grpc_service", "grpc_method")

GRPC_STARTED = Counter("grpc_server_started_total", "RPCs started on the server.", _LABELS)
GRPC_HANDLED = Counter("grpc_server_handled_total", "RPCs completed on the server, by status code.",
                       (*_LABELS, "grpc_code"))
GRPC_SECONDS = Histogram(
    "grpc_server_handling_seconds", "Time to complete an RPC (streams: the whole stream).", _LABELS,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
)
GRPC_RECEIVED = Counter("grpc_server_msg_received_total", "Request messages received.", _LABELS)
GRPC_SENT = Counter("grpc_server_msg_sent_total", "Response messages sent.", _LABELS)


def split_method(full: str) -> tuple[str, str]:
    """``/pkg.Service/Method`` → (``pkg.Service``, ``Method``)."""
    parts = full.lstrip("/").split("/", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else ("unknown", full)


def _code_name(context: Any, exc: BaseException | None) -> str:
    code = None
    try:
        code = context.code()
    except Exception:  # pragma: no cover - older grpc without code()
        code = None
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):
        for sc in grpc.StatusCode:
            if sc.value[0] == code:
                return sc.name
    if exc is None:
        return "OK"
    import asyncio

    # The call ended before its handler did: the client cancelled it or closed its connection
    # (grpc cancels a unary handler, and closes a streaming handler's response iterator:
    # GeneratorExit), or its deadline passed. Not an error of the server.
    if isinstance(exc, asyncio.CancelledError | GeneratorExit):
        try:
            remaining = context.time_remaining()
        except Exception:  # pragma: no cover - a context without a deadline API
            remaining = None
        return "DEADLINE_EXCEEDED" if remaining is not None and remaining <= 0 else "CANCELLED"
    return "UNKNOWN"


class _Method:
    """The metric children of one RPC method, looked up once (``labels()`` takes a lock and a
    dictionary look-up on every call)."""

    __slots__ = ("handled", "labels", "seconds", "started")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self.started = GRPC_STARTED.labels(*labels)
        self.seconds = GRPC_SECONDS.labels(*labels)
        self.handled: dict[str, Any] = {}

    def done(self, code: str, seconds: float) -> None:
        child = self.handled.get(code)
        if child is None:
            child = self.handled[code] = GRPC_HANDLED.labels(*self.labels, code)
        child.inc()
        self.seconds.observe(seconds)


class _Call:
    """Book-keeping of one RPC."""

    __slots__ = ("method", "start")

    def __init__(self, method: _Method) -> None:
        self.method = method
        self.start = time.perf_counter()
        method.started.inc()

    def done(self, context: Any, exc: BaseException | None) -> None:
        self.method.done(_code_name(context, exc), time.perf_counter() - self.start)


def _bind_request(context: Any, method: str) -> None:
    request_id = None
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id":
            request_id = str(value)
    logs.clear()
    logs.bind(rpc=method, request_id=request_id or os.urandom(8).hex())  # 16 hex digits


def _serializer(serialize: Callable[[Any], bytes] | None) -> Callable[[Any], bytes] | None:
    """A response serializer that also sends ``bytes`` as they are: a handler may answer with
    a message it serialized already (a stored answer, an event shared by several streams)."""
    if serialize is None:
        return None

    def write(message: Any) -> bytes:
        return message if type(message) is bytes else serialize(message)

    return write


def instrument(method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """``handler`` of the RPC ``method`` (``/pkg.Service/Method``) counted and timed (see the
    module doc), and answering pre-serialized ``bytes`` as they are. Built once per method at
    registration: a ``grpc.aio`` server interceptor would redo this work on every call (a
    coroutine, closures and a new handler per RPC)."""
    service, name = split_method(method)
    if handler.request_streaming and handler.response_streaming:
        kind, factory = "bidi_stream", grpc.stream_stream_rpc_method_handler
        behavior = handler.stream_stream
    elif handler.request_streaming:
        kind, factory = "client_stream", grpc.stream_unary_rpc_method_handler
        behavior = handler.stream_unary
    elif handler.response_streaming:
        kind, factory = "server_stream", grpc.unary_stream_rpc_method_handler
        behavior = handler.unary_stream
    else:
        kind, factory = "unary", grpc.unary_unary_rpc_method_handler
        behavior = handler.unary_unary
    labels = (kind, service, name)
    per_method = _Method(labels)
    received = GRPC_RECEIVED.labels(*labels)
    sent = GRPC_SENT.labels(*labels)

    async def count_requests(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for r in requests:
            received.inc()
            yield r

    def begin(request: Any, context: Any) -> tuple[_Call, Any]:
        """Start the call's book-keeping and logging context; the request (a stream of them
        counted as they arrive) to hand to the handler."""
        call = _Call(per_method)
        _bind_request(context, method)
        if handler.request_streaming:
            return call, count_requests(request)
        received.inc()
        return call, request

    if not handler.response_streaming:
        async def unary_response(request: Any, context: Any) -> Any:
            call, request = begin(request, context)
            exc: BaseException | None = None
            try:
                response = await behavior(request, context)
                sent.inc()
                return response
            except BaseException as e:
                exc = e
                raise
            finally:
                call.done(context, exc)

        wrapped: Any = unary_response
    else:
        async def stream_response(request: Any, context: Any) -> AsyncIterator[Any]:
            call, request = begin(request, context)
            exc: BaseException | None = None
            try:
                result = behavior(request, _CountingContext(context, sent))
                if hasattr(result, "__aiter__"):
                    # Closed at once when the call ends early, so the handler's own clean-up
                    # (``finally``) runs now, not whenever the garbage collector gets to it.
                    async with contextlib.aclosing(result) as items:
                        async for item in items:
                            sent.inc()
                            yield item
                else:  # a handler that writes with context.write()
                    await result
            except BaseException as e:
                exc = e
                raise
            finally:
                call.done(context, exc)

        wrapped = stream_response
    return factory(wrapped, request_deserializer=handler.request_deserializer,
                   response_serializer=_serializer(handler.response_serializer))


class InstrumentedServer:
    """What the generated ``add_XServicer_to_server`` functions (and health, reflection) are
    given instead of the ``grpc.aio`` server: it registers every method handler through
    ``instrument``. Handlers of a generic handler that is not a plain method table are
    registered as they are (none in this project)."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self.server = server
        #: Every instrumented handler by ``/pkg.Service/Method``: what the gRPC-Web port serves
        #: too (``services.common.web``), so a browser's call runs the same handler.
        self.handlers: dict[str, grpc.RpcMethodHandler] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        out = []
        for h in handlers:
            table = getattr(h, "_method_handlers", None)
            if isinstance(table, dict):
                service = h.service_name()
                wrapped = {m: self.handlers.get(m) or instrument(m, mh) for m, mh in table.items()}
                self.handlers.update(wrapped)
                h = grpc.method_handlers_generic_handler(
                    service, {m.rpartition("/")[2]: mh for m, mh in wrapped.items()})
            out.append(h)
        self.server.add_generic_rpc_handlers(out)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        wrapped = {}
        for name, h in handlers.items():
            path = f"/{service}/{name}"
            wrapped[name] = self.handlers.setdefault(path, instrument(path, h))
        self.server.add_registered_method_handlers(service, wrapped)


class _CountingContext:
    """A streaming call's context whose ``write`` counts the message sent, as a yielded one is
    (handlers that write with ``context.write``); everything else is the call's own context."""

    def __init__(self, context: Any, sent: Any) -> None:
        self._context = context
        self._sent = sent

    async def write(self, message: Any) -> None:
        await self._context.write(message)
        self._sent.inc()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class _QuietHandler(WSGIRequestHandler):
    """Serves ``/metrics`` without a log line per scrape."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


def start_metrics_server(host_port: str, registry: CollectorRegistry = REGISTRY) -> tuple[Any, int]:
    """Serve ``/metrics`` on ``host:port`` (port 0 = any free port) from a daemon thread, as
    prometheus_client's ``start_http_server`` does. Returns (server, port); stop it with
    ``stop_metrics_server``."""
    host, _, port = host_port.rpartition(":")
    family, _, _, _, sockaddr = socket.getaddrinfo(host.strip("[]") or "0.0.0.0", int(port),
                                                   type=socket.SOCK_STREAM,
                                                   flags=socket.AI_PASSIVE)[0]

    class Server(ThreadingWSGIServer):
        address_family = family

    server = make_server(sockaddr[0], int(port), make_wsgi_app(registry), Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server, server.server_port


def stop_metrics_server(server: Any) -> None:
    """Stop a server of ``start_metrics_server`` at once and close its socket. ``shutdown()``
    alone waits until the serving loop next looks for it, up to its poll interval (0.5 s, the
    time every graceful stop used to wait): a connection to the port wakes the loop now."""
    stopper = threading.Thread(target=server.shutdown, name="metrics-stop")
    stopper.start()
    address = server.server_address[:2]
    while stopper.is_alive():
        with contextlib.suppress(OSError), socket.create_connection(address, timeout=0.1):
            pass
        stopper.join(0.01)
    server.server_close()
