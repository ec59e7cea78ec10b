"""Prometheus metrics: the standard ``grpc_server_*`` family for every RPC type, and helpers.

``MetricsInterceptor`` is a ``grpc.aio.ServerInterceptor`` that records, labelled by
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
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, start_http_server

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


class _Call:
    """Book-keeping of one RPC."""

    __slots__ = ("labels", "start")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self.start = time.perf_counter()
        GRPC_STARTED.labels(*labels).inc()

    def done(self, context: Any, exc: BaseException | None) -> None:
        GRPC_HANDLED.labels(*self.labels, _code_name(context, exc)).inc()
        GRPC_SECONDS.labels(*self.labels).observe(time.perf_counter() - self.start)


def _bind_request(context: Any, method: str) -> None:
    request_id = None
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id":
            request_id = str(value)
    logs.clear()
    logs.bind(rpc=method, request_id=request_id or uuid.uuid4().hex[:16])


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """Counts and times every RPC (see the module doc), unary and streaming alike."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method
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

        async def count_requests(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
            async for r in requests:
                GRPC_RECEIVED.labels(*labels).inc()
                yield r

        if not handler.response_streaming:
            async def unary_response(request: Any, context: Any) -> Any:
                call = _Call(labels)
                _bind_request(context, method)
                if handler.request_streaming:
                    request = count_requests(request)
                else:
                    GRPC_RECEIVED.labels(*labels).inc()
                exc: BaseException | None = None
                try:
                    response = await behavior(request, context)
                    GRPC_SENT.labels(*labels).inc()
                    return response
                except BaseException as e:
                    exc = e
                    raise
                finally:
                    call.done(context, exc)

            wrapped: Any = unary_response
        else:
            async def stream_response(request: Any, context: Any) -> AsyncIterator[Any]:
                call = _Call(labels)
                _bind_request(context, method)
                if handler.request_streaming:
                    request = count_requests(request)
                else:
                    GRPC_RECEIVED.labels(*labels).inc()
                exc: BaseException | None = None
                try:
                    result = behavior(request, _CountingContext(context, labels))
                    if hasattr(result, "__aiter__"):
                        # Closed at once when the call ends early, so the handler's own clean-up
                        # (``finally``) runs now, not whenever the garbage collector gets to it.
                        async with contextlib.aclosing(result) as items:
                            async for item in items:
                                GRPC_SENT.labels(*labels).inc()
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
                       response_serializer=handler.response_serializer)


class _CountingContext:
    """A streaming call's context whose ``write`` counts the message sent, as a yielded one is
    (handlers that write with ``context.write``); everything else is the call's own context."""

    def __init__(self, context: Any, labels: tuple[str, str, str]) -> None:
        self._context = context
        self._labels = labels

    async def write(self, message: Any) -> None:
        await self._context.write(message)
        GRPC_SENT.labels(*self._labels).inc()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def start_metrics_server(host_port: str, registry: CollectorRegistry = REGISTRY) -> tuple[Any, int]:
    """Serve ``/metrics`` on ``host:port`` (port 0 = any free port). Returns (server, port)."""
    host, _, port = host_port.rpartition(":")
    server, _thread = start_http_server(int(port), addr=host or "0.0.0.0", registry=registry)
    return server, server.server_port
