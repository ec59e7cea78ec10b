"""gRPC-Web (and the Connect protocol) for browsers, in the server's own process and event loop.

``WebServer`` serves, on an HTTP port of its own (``--web-listen``), the very method handlers the
native gRPC server runs: ``GrpcServer`` registers each servicer once, through
``metrics.InstrumentedServer``, which keeps the instrumented handlers; the web app calls those
same handlers with a ``webcontext.WebContext``. So a browser's call goes through the same
authentication, rate limits, error mapping and metrics as a native one, and no RPC is written
twice. The protocols are the Connect project's Python runtime (``connectrpc``: gRPC-Web, binary
and base64 text, and Connect with the binary codec); the HTTP server is uvicorn, run as a task
of the server's loop (HTTP/1.1; see docs/architecture.md for why these two).

Around the RPCs (``WebApp``):

* CORS (``Cors``): a request with an ``Origin`` header is answered only when the origin is the
  page's own (same scheme, host and port as the request's ``Host``) or on the allow-list
  (``--web-origins``, comma-separated origins, ``*`` for any); anything else gets 403, preflight
  included. An allowed cross-origin call gets ``Access-Control-Allow-Origin`` (its origin) and
  ``Access-Control-Expose-Headers`` with the gRPC-Web status headers.
* static files (``static_root``): GET / HEAD of any other path serves a file of that directory
  (``/`` its ``index.html``); the lobby serves the web client this way.
* ``/config.json`` (``config``): a JSON document the page reads (the lobby's: where the match
  servers' web ports are, ``--web-match-urls``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import mimetypes
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import grpc
import uvicorn
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor_pool, message_factory

from wordarena.services.common import logs
from wordarena.services.common.webcontext import WebContext

__all__ = ["GRPC_WEB_EXPOSED", "Cors", "WebApp", "WebServer", "endpoints", "parse_origins"]

log = logs.get_logger(__name__)

ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
                   Awaitable[None]]

#: Response headers a cross-origin page may read: the gRPC-Web status, and what Connect adds.
GRPC_WEB_EXPOSED = ("grpc-status", "grpc-message", "grpc-status-details-bin", "grpc-encoding",
                    "connect-content-encoding")
#: Request headers a cross-origin page may send (the preflight's answer).
ALLOWED_HEADERS = ("authorization", "content-type", "x-grpc-web", "x-user-agent", "grpc-timeout",
                   "x-request-id", "connect-protocol-version", "connect-timeout-ms",
                   "grpc-accept-encoding", "connect-accept-encoding", "content-encoding")


class _Codec:
    """The protobuf binary codec over ``google.protobuf`` messages; a handler's answer may be
    ``bytes`` it serialized already (as on native gRPC, ``metrics._serializer``)."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Any) -> bytes:
        return message if type(message) is bytes else message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        return message_class.FromString(bytes(data))


def _method_info(path: str, handler: grpc.RpcMethodHandler) -> MethodInfo[Any, Any]:
    service, _, name = path.lstrip("/").partition("/")
    desc = descriptor_pool.Default().FindMethodByName(f"{service}.{name}")
    kind = StreamType.SERVER_STREAM if handler.response_streaming else StreamType.UNARY
    return MethodInfo(name=name, service_name=service,
                      input=message_factory.GetMessageClass(desc.input_type),
                      output=message_factory.GetMessageClass(desc.output_type),
                      idempotency_level=IdempotencyLevel.UNKNOWN, stream_type=kind)


def _unary(handler: grpc.RpcMethodHandler) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
    behavior = handler.unary_unary

    async def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        context = WebContext(ctx)
        answer = await behavior(request, context)
        code = context.code()
        if code is not None and code is not grpc.StatusCode.OK:  # set_code without abort
            await context.abort(code, context.details())
        return answer

    return call


def _server_stream(handler: grpc.RpcMethodHandler) -> Callable[[Any, RequestContext[Any, Any]], Any]:
    behavior = handler.unary_stream

    def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        return WebContext(ctx).stream(lambda context: behavior(request, context))

    return call


def endpoints(handlers: Mapping[str, grpc.RpcMethodHandler],
              services: Iterable[str]) -> dict[str, Any]:
    """``{"/pkg.Service/Method": Endpoint}`` for the unary and server-streaming methods of
    ``services`` among ``handlers`` (gRPC-Web has no client streams)."""
    wanted = set(services)
    out: dict[str, Any] = {}
    for path, h in handlers.items():
        if path.lstrip("/").partition("/")[0] not in wanted or h.request_streaming:
            continue
        info = _method_info(path, h)
        out[path] = (Endpoint.server_stream(info, _server_stream(h)) if h.response_streaming
                     else Endpoint.unary(info, _unary(h)))
    return out


class _RpcApp(ConnectASGIApplication[None]):
    """connectrpc's ASGI application over a table of endpoints built by ``endpoints``."""

    def __init__(self, table: dict[str, Any], read_max_bytes: int) -> None:
        super().__init__(service=None, endpoints=lambda _: table, read_max_bytes=read_max_bytes,
                         codecs=[_Codec()])
        self.table = table

    @property
    def path(self) -> str:
        return "/"


def parse_origins(value: str | Iterable[str]) -> frozenset[str]:
    """``--web-origins``: comma-separated origins (``https://play.example.org``), ``*`` for any;
    trailing slashes dropped."""
    items = value.split(",") if isinstance(value, str) else value
    return frozenset(o.strip().rstrip("/") for o in items if o.strip())


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class Cors:
    """The CORS policy: same-origin, plus the origins of ``allowed`` (``*``: any)."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = parse_origins(allowed)

    def allows(self, origin: str, scope: dict[str, Any]) -> bool:
        if "*" in self.allowed or origin in self.allowed:
            return True
        host = _header(scope, b"host")
        return host is not None and origin == f"{scope.get('scheme', 'http')}://{host}"

    def headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        return [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin"),
                (b"access-control-expose-headers", ", ".join(GRPC_WEB_EXPOSED).encode())]

    def preflight(self, origin: str) -> list[tuple[bytes, bytes]]:
        return [*self.headers(origin), (b"access-control-allow-methods", b"POST, OPTIONS"),
                (b"access-control-allow-headers", ", ".join(ALLOWED_HEADERS).encode()),
                (b"access-control-max-age", b"7200")]


async def _respond(send: Callable[[Any], Awaitable[None]], status: int, body: bytes = b"",
                   headers: Iterable[tuple[bytes, bytes]] = (), content_type: bytes = b"text/plain") -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


class WebApp:
    """The ASGI application of a server's web port: CORS, the RPCs, ``/config.json`` and static
    files (see the module doc)."""

    def __init__(self, table: dict[str, Any], *, cors: Cors, read_max_bytes: int = 1024 * 1024,
                 static_root: Path | None = None,
                 config: Mapping[str, Any] | Callable[[], Awaitable[Mapping[str, Any]]] | None = None,
                 ) -> None:
        self.rpc = _RpcApp(table, read_max_bytes)
        self.cors = cors
        self.static_root = static_root.resolve() if static_root else None
        #: ``/config.json``: a document, or a function that makes it anew for each request
        self.config = config

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        origin = _header(scope, b"origin")
        extra: list[tuple[bytes, bytes]] = []
        if origin is not None:
            if not self.cors.allows(origin, scope):
                await _respond(send, 403, b"origin not allowed\n")
                return
            if scope["method"] == "OPTIONS":
                await _respond(send, 204, headers=self.cors.preflight(origin))
                return
            extra = self.cors.headers(origin)
        if scope["path"] in self.rpc.table:
            await self.rpc(scope, receive, _with_headers(send, extra) if extra else send)
        elif scope["method"] in ("GET", "HEAD"):
            await self._get(scope, send, extra)
        else:
            await _respond(send, 404, b"not found\n", extra)

    async def _get(self, scope: dict[str, Any], send: Any, extra: list[tuple[bytes, bytes]]) -> None:
        path = scope["path"]
        if path == "/config.json" and self.config is not None:
            config = self.config() if callable(self.config) else self.config
            doc = await config if inspect.isawaitable(config) else config
            body = json.dumps(dict(doc), sort_keys=True).encode()
            await _respond(send, 200, body, [*extra, (b"cache-control", b"no-store")], b"application/json")
            return
        file = self._file(path)
        if file is None:
            await _respond(send, 404, b"not found\n", extra)
            return
        body = await asyncio.to_thread(file.read_bytes)
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        await _respond(send, 200, b"" if scope["method"] == "HEAD" else body,
                       [*extra, (b"x-content-type-options", b"nosniff")], kind.encode())

    def _file(self, path: str) -> Path | None:
        """The file under ``static_root`` for a URL path (None: none, or outside the root)."""
        if self.static_root is None or "\x00" in path:
            return None
        target = (self.static_root / path.lstrip("/")).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_relative_to(self.static_root) or not target.is_file():
            return None
        return target


def _with_headers(send: Callable[[Any], Awaitable[None]],
                  extra: list[tuple[bytes, bytes]]) -> Callable[[Any], Awaitable[None]]:
    async def wrapped(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return wrapped


class _Uvicorn(uvicorn.Server):
    """uvicorn as a task of the server's loop: the server's own signal handling stays in charge
    (``GrpcServer.wait_for_termination_signal``), so uvicorn installs none."""

    @contextlib.contextmanager
    def capture_signals(self) -> Any:
        yield


class WebServer:
    """``app`` served over HTTP/1.1 on ``listen`` (``host:port``, port 0 = a free one) by uvicorn,
    in the running event loop; past ``max_connections`` connections at once (the native port's
    ``--max-connections``), a new one is answered 503 Service Unavailable. A call's client
    address is the connection's TCP peer; ``X-Forwarded-For`` is not read."""

    def __init__(self, app: ASGIApp, listen: str, max_connections: int | None = None) -> None:
        self.app = app
        self.listen = listen
        self.max_connections = max_connections
        self.port = 0
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Binds and starts serving; returns the bound port."""
        host, _, port = self.listen.rpartition(":")
        host = host.strip("[]") or "0.0.0.0"
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # inherited by the accepted connections: without it a kept-alive connection's answers
        # (headers, message, trailers: several writes) waited ~40 ms each for delayed ACKs
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((host, int(port or 0)))
        except OSError as exc:
            sock.close()
            raise OSError(f"cannot listen on {self.listen} (web): {exc.strerror}") from exc
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(self.app, lifespan="off", log_config=None, access_log=False,
                                server_header=False, timeout_graceful_shutdown=1.0, http="h11",
                                # a client's address is its TCP peer, as on the native port: uvicorn's
                                # default took X-Forwarded-For from a loopback peer as the client's
                                # (one there named a new address per call past every per-address limit)
                                proxy_headers=False,
                                # uvicorn counts the connection asking too: N others at once + 1
                                limit_concurrency=None if self.max_connections is None
                                else self.max_connections + 1)
        self._server = _Uvicorn(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                await self._task  # raises what stopped it
                raise OSError(f"the web server on {self.listen} stopped at start-up")
            await asyncio.sleep(0.01)
        log.info("web server started", listen=self.listen, port=self.port)
        return self.port

    async def stop(self, grace: float = 1.0) -> None:
        """Stops accepting, gives open calls ``grace`` seconds, then cancels what is left."""
        if self._server is None or self._task is None:
            return
        self._server.config.timeout_graceful_shutdown = max(grace, 0.1)
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        self._server = None

