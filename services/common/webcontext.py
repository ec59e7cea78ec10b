"""The grpc.aio servicer context, for a call that came in over gRPC-Web or Connect (``web``).

A browser's call is served by the Connect project's Python runtime (``connectrpc``), which hands
a handler its own ``RequestContext``. The servicers are written against ``grpc.aio``'s context,
so ``WebContext`` gives them that, on top of the Connect one — every method a servicer, the
error mapping (``errors.abort_with``) or the metrics (``metrics.instrument``) calls:

* ``invocation_metadata()``: the request's headers (``-bin`` ones base64-decoded), so the bearer
  token is read from ``authorization`` by the same ``BearerAuth`` as a native call;
* ``peer()``: ``ipv4:ADDR:PORT`` / ``ipv6:[ADDR]:PORT`` as gRPC writes it, so rate limits per
  client address (``ratelimit.client_address``) hold on this path too;
* ``abort`` / ``abort_with_status``: raise ``WebAbort``, a ``connectrpc`` error carrying the code,
  the message and the ``google.rpc.Status`` details of ``grpc-status-details-bin`` (the runtime
  writes them back into that trailer); it is also a ``grpc.aio.AbortError``, as a native abort is;
* ``write``: a message of a handler that writes instead of yielding (``StreamMatch``), handed to
  the response stream; it returns once the runtime has sent it, as a native write returns once
  gRPC has taken it (``WebContext.stream`` drives such a handler);
* ``code()``, ``details()``, ``set_code``, ``set_details``, ``time_remaining()``, ``cancelled()``,
  ``set_trailing_metadata``, ``send_initial_metadata``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

__all__ = ["WebAbort", "WebContext"]

_DETAILS_KEY = "grpc-status-details-bin"
#: grpc.StatusCode -> the Connect code of the same meaning (OK has none: it is no error).
_CODES = {sc: Code[sc.name.replace("CANCELLED", "CANCELED")] for sc in grpc.StatusCode
          if sc is not grpc.StatusCode.OK}


class WebAbort(ConnectError, grpc.aio.AbortError):
    """A call ended by ``abort``: its code, message and ``google.rpc.Status`` details."""


def _status_code(code: Any) -> grpc.StatusCode:
    if isinstance(code, grpc.StatusCode):
        return code
    for sc in grpc.StatusCode:
        if sc.value[0] == code:
            return sc
    return grpc.StatusCode.UNKNOWN


def _peer(client_address: str | None) -> str:
    """gRPC's peer string for ``host:port`` (``host`` possibly an IPv6 address)."""
    if not client_address:
        return "unknown"
    host, _, port = client_address.rpartition(":")
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


class WebContext:
    """A ``grpc.aio.ServicerContext`` for one gRPC-Web / Connect call (see the module doc)."""

    __slots__ = ("_cancelled", "_code", "_ctx", "_details", "_metadata", "_peer", "_writes")

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self._ctx = ctx
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._cancelled = False
        self._metadata: tuple[tuple[str, str | bytes], ...] | None = None
        self._peer = _peer(ctx.client_address)
        #: (message, future set once it was sent) of a handler that writes (``stream``).
        self._writes: asyncio.Queue[tuple[Any, asyncio.Future[None]] | None] | None = None

    # -- what the call brought ----------------------------------------------------------------

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        if self._metadata is None:
            out: list[tuple[str, str | bytes]] = []
            for key, value in self._ctx.request_headers.allitems():
                if key.endswith("-bin"):
                    with contextlib.suppress(ValueError):
                        out.append((key, base64.b64decode(value + "=" * (-len(value) % 4))))
                else:
                    out.append((key, value))
            self._metadata = tuple(out)
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        ms = self._ctx.timeout_ms
        return None if ms is None else max(ms / 1000.0, 0.0)

    def cancelled(self) -> bool:
        return self._cancelled

    def done(self) -> bool:
        return self._cancelled or self._code is not None

    # -- the status -----------------------------------------------------------------------------

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    def set_code(self, code: Any) -> None:
        self._code = _status_code(code)

    def set_details(self, details: str) -> None:
        self._details = details

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str | bytes]]) -> None:
        trailers = self._ctx.response_trailers
        for key, value in metadata:
            if key == _DETAILS_KEY:
                continue  # written by the runtime from the error's details
            trailers.add(key, base64.b64encode(value).decode().rstrip("=")
                         if isinstance(value, bytes) else value)

    async def send_initial_metadata(self, metadata: Sequence[tuple[str, str | bytes]]) -> None:
        headers = self._ctx.response_headers
        for key, value in metadata:
            headers.add(key, base64.b64encode(value).decode().rstrip("=")
                        if isinstance(value, bytes) else value)

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Sequence[tuple[str, str | bytes]] = ()) -> None:
        """End the call with ``code``: raises ``WebAbort`` (the details of a
        ``grpc-status-details-bin`` entry of ``trailing_metadata`` go with it)."""
        self._code, self._details = code, details
        wire_details: list[WireAny] = []
        for key, value in trailing_metadata:
            if key == _DETAILS_KEY and isinstance(value, bytes):
                status = status_pb2.Status.FromString(value)
                details = status.message or details
                wire_details = [WireAny(type_url=d.type_url, value=d.value) for d in status.details]
        self.set_trailing_metadata(trailing_metadata)
        raise WebAbort(_CODES.get(code, Code.UNKNOWN), details, wire_details)

    async def abort_with_status(self, status: grpc.Status) -> None:
        await self.abort(status.code, status.details, status.trailing_metadata)

    # -- handlers that write ---------------------------------------------------------------------

    async def write(self, message: Any) -> None:
        """Hands ``message`` to the response stream; returns once it was sent."""
        if self._writes is None:
            raise RuntimeError("write() on a call that is not a server stream")
        sent = asyncio.get_running_loop().create_future()
        self._writes.put_nowait((message, sent))
        await sent

    async def stream(self, run: Callable[[WebContext], AsyncIterator[Any]]) -> AsyncIterator[Any]:
        """The messages of a server-streaming handler ``run(self)``, whether it yields them or
        writes them (``write``): the handler runs as a task of its own, cancelled when the call
        ends early (the client went away), as grpc.aio cancels a native one."""
        self._writes = writes = asyncio.Queue()

        async def pump() -> None:
            try:
                async with contextlib.aclosing(run(self)) as items:
                    async for item in items:
                        await self.write(item)
            finally:
                writes.put_nowait(None)

        task = asyncio.ensure_future(pump())
        try:
            while (item := await writes.get()) is not None:
                message, sent = item
                yield message
                if not sent.done():
                    sent.set_result(None)
            await task  # the handler's status: returned, or raised
        finally:
            if not task.done():
                self._cancelled = True
                task.cancel()
            # the handler's end awaited (its clean-up has run), its error retrieved
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
