"""The lobby's test harnesses with every player's LobbyService and TournamentService calls sent
through the lobby's gRPC-Web port (issue 39: every limit holds on the browser path exactly as on
native gRPC; the fair-play tests run over it too), as ``web_stub.WebHarness`` does for the match
server.

``WebLobby.start_lobby`` / ``stop_lobby`` stand in for ``lobby_harness``'s and
``WebLobby.servers`` for ``tournament_servers.servers``: the lobby is started with its web port,
and the ``LobbyEnv`` / ``Servers`` handed to the test has a ``WebChannel`` as its ``channel``
and ``WebStub``s as its ``stub``, so every stub a test or helper builds on ``env.channel``
(``tournament_harness.stub``, ``Servers.guest``, ``LobbyServiceStub(env.channel)``) calls over
gRPC-Web too. What stays native is what a browser never calls: the match servers' link to the
lobby and ``env.registry`` (MatchRegistryService, a service token's). Every call sent to a web
port is recorded (``calls``), so a test asserts that the calls it depends on went over the web
(``over_the_web``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import httpx
import lobby_harness
import tournament_servers
from google.protobuf import descriptor_pool
from lobby_harness import LobbyEnv
from web_stub import WebStub

from wordarena.v1 import lobby_pb2_grpc, tournament_pb2_grpc


class WebChannel:
    """A stand-in for a ``grpc.aio`` channel to the lobby: a generated stub built on it
    (``LobbyServiceStub(channel)``) gets ``WebStub`` methods, calling over gRPC-Web at ``base``.
    ``native``: the native channel it stands in for, closed with it."""

    def __init__(self, client: httpx.AsyncClient, base: str, native: grpc.aio.Channel | None = None) -> None:
        self.client, self.base, self.native = client, base, native

    def _method(self, method: str, *_: Any, **__: Any) -> Any:
        service, _, name = method.lstrip("/").partition("/")
        found = descriptor_pool.Default().FindServiceByName(service)
        return getattr(WebStub(self.client, self.base, found), name)

    unary_unary = unary_stream = _method  # gRPC-Web has no client streams

    async def close(self, grace: float | None = None) -> None:
        if self.native is not None:
            await self.native.close(grace)


class WebLobby:
    """The lobby harnesses over the web port; ``calls``: the URL path of every call sent."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.hosts: list[tuple[str, str]] = []  # (host, method name) of each call

        async def sent(request: httpx.Request) -> None:
            self.calls.append(request.url.path)
            self.hosts.append((request.url.host, request.url.path.rsplit("/", 1)[-1]))

        self.client = httpx.AsyncClient(timeout=60, event_hooks={"request": [sent]})

    def channel(self, port: int, host: str = "127.0.0.1",
                native: grpc.aio.Channel | None = None) -> WebChannel:
        """A channel to the web port ``port`` (``host``: ``[::1]`` for the IPv6 loopback)."""
        return WebChannel(self.client, f"http://{host}:{port}", native)

    async def start_lobby(self, database_url: str, data_dir: Path, listen: str = "127.0.0.1:0",
                          **options: Any) -> LobbyEnv:
        """``lobby_harness.start_lobby`` with a web port on the same interfaces (``[::]:0``
        for a lobby on both address families), the env's channel and stub over it."""
        options.setdefault("web_listen", "[::]:0" if listen.startswith("[") else "127.0.0.1:0")
        env = await lobby_harness.start_lobby(database_url, data_dir, listen, **options)
        env.channel = self.channel(env.server.web_port, native=env.channel)  # type: ignore[attr-defined,assignment]
        env.stub = lobby_pb2_grpc.LobbyServiceStub(env.channel)
        return env

    async def stop_lobby(self, env: LobbyEnv) -> None:
        await lobby_harness.stop_lobby(env)  # closes the native channel too

    @asynccontextmanager
    async def servers(self, database_url: str, tmp_path: Path,
                      **options: Any) -> AsyncIterator[tournament_servers.Servers]:
        """``tournament_servers.servers`` with the lobby's web port, the env's channel and
        TournamentService stub over it (the director signed in before, natively)."""
        async with tournament_servers.servers(database_url, tmp_path, web_listen="127.0.0.1:0",
                                              **options) as env:
            env.channel = self.channel(env.web_port)  # type: ignore[assignment]
            env.stub = tournament_pb2_grpc.TournamentServiceStub(env.channel)
            yield env

    def from_host(self, host: str, *methods: str) -> None:
        """Each of ``methods`` was called over the web port at ``host`` (``127.0.0.1``, ``::1``):
        on loopback, the client address the lobby saw."""
        missing = [m for m in methods if (host, m) not in self.hosts]
        assert not missing, (host, missing, sorted(set(self.hosts)))

    def over_the_web(self, *methods: str) -> None:
        """Each of ``methods`` (``Service/Method`` or ``Method``) was called over the web."""
        sent = {p.rsplit("/", 2)[-2].rsplit(".", 1)[-1] + "/" + p.rsplit("/", 1)[-1] for p in self.calls}
        names = {s.rsplit("/", 1)[-1] for s in sent}
        missing = [m for m in methods if m not in (sent if "/" in m else names)]
        assert not missing, (missing, sorted(sent))

    async def close(self) -> None:
        await self.client.aclose()
