"""Fixtures: a real lobby on loopback gRPC (SQLite or PostgreSQL), real match servers on the same
store, and a fake match server for the failures a real one cannot be made to show."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from wordarena.services.common import auth
from wordarena.services.common.config import Settings
from wordarena.services.lobby.app import Lobby
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.match.main import MatchServer
from wordarena.services.match.main import start as start_match
from wordarena.v1 import (
    common_pb2,
    control_pb2,
    control_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    match_pb2,
    match_pb2_grpc,
)

# Databases: the ``database_url`` (SQLite, then PostgreSQL) and ``postgres_database`` fixtures of
# tests/conftest.py, which honour WORDARENA_TEST_POSTGRES_URL as every other test does.


@dataclass
class FakeMatchServer(control_pb2_grpc.MatchControlServiceServicer):
    """A MatchControlService that accepts matches and remembers them. With ``hold`` set,
    ``CreateMatch`` sets ``entered`` and waits for ``hold`` before it answers (an allocation in
    flight, for as long as a test likes). ``AbortMatch`` calls are recorded in ``abort_calls``
    (every attempt) and ``aborted`` (the match ids it answered OK); while ``abort_failures``
    holds codes, each call fails with the next one (a server that is unreachable for a while)."""

    keys: auth.TokenKeys
    created: list[control_pb2.CreateMatchRequest] = field(default_factory=list)
    refuse: grpc.StatusCode | None = None
    address: str = ""
    hold: asyncio.Event | None = None
    entered: asyncio.Event = field(default_factory=asyncio.Event)
    abort_calls: list[control_pb2.AbortMatchRequest] = field(default_factory=list)
    aborted: list[str] = field(default_factory=list)
    abort_failures: list[grpc.StatusCode] = field(default_factory=list)

    async def _check_service(self, context) -> None:  # type: ignore[no-untyped-def]
        token = auth.bearer_token_from_metadata(context.invocation_metadata())
        try:
            claims = self.keys.verify(token or "")
        except auth.TokenError as exc:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, exc.message)
        if not claims.is_service:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "service token needed")

    async def CreateMatch(self, request, context):  # type: ignore[no-untyped-def]
        await self._check_service(context)
        if self.refuse is not None:
            await context.abort(self.refuse, "refused by test")
        if self.hold is not None:
            self.entered.set()
            await self.hold.wait()
        self.created.append(request)
        return control_pb2.CreateMatchResponse(match_id=request.match_id, address=self.address, seed=1)

    async def AbortMatch(self, request, context):  # type: ignore[no-untyped-def]
        await self._check_service(context)
        self.abort_calls.append(request)
        if self.abort_failures:
            await context.abort(self.abort_failures.pop(0), "abort refused by test")
        if request.match_id not in {c.match_id for c in self.created}:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        already = request.match_id in self.aborted
        if not already:
            self.aborted.append(request.match_id)
        return control_pb2.AbortMatchResponse(match_id=request.match_id, already_aborted=already,
                                              reason=request.reason)

    async def GetLoad(self, request, context):  # type: ignore[no-untyped-def]
        return control_pb2.GetLoadResponse(load=control_pb2.ServerLoad(capacity=100))


@dataclass
class LobbyEnv:
    """A running lobby plus helpers."""

    lobby: Lobby
    address: str
    channel: grpc.aio.Channel
    stub: lobby_pb2_grpc.LobbyServiceStub
    registry: control_pb2_grpc.MatchRegistryServiceStub
    service_md: tuple[tuple[str, str], ...]
    settings: Settings
    server: object
    db: object

    async def guest(self, name: str | None = None) -> tuple[str, tuple[tuple[str, str], ...]]:
        """Signs a new guest in (as ``name``, else a fresh ``g…`` name): its player id and the
        call metadata that carries its token."""
        resp = await self.stub.SignInGuest(
            lobby_pb2.SignInGuestRequest(display_name=name or f"g{uuid.uuid4().hex[:10]}"))
        return resp.player.player_id, (("authorization", f"Bearer {resp.token.token}"),)


async def start_lobby(
    database_url: str, data_dir: Path, listen: str = "127.0.0.1:0", *, web_listen: str = "",
    web_origins: str = "", web_extra: dict[str, Any] | None = None, **options_: Any
) -> LobbyEnv:
    """Starts a lobby on an ephemeral loopback port (``options_``: ``LobbyOptions`` overrides;
    ``listen="[::]:0"`` takes IPv4 and IPv6 clients: two client addresses on one machine;
    ``web_listen``: a gRPC-Web port too, ``web_extra`` its lobby flags such as ``web_root``)."""
    settings = Settings(service="lobby", listen=listen, database_url=database_url, data_dir=data_dir,
                        web_listen=web_listen, web_origins=web_origins, extra=dict(web_extra or {}))
    # Tests sign many guests in from one address: the guest throttle is opened wide unless a
    # test sets it (test_lobby_sign_in_abuse).
    options = LobbyOptions(password_time_cost=1, password_memory_kib=1024, matchmaking_tick_s=0.05,
                           guest_sign_in_burst=100_000, address_failure_burst=100_000)
    for k, v in options_.items():
        setattr(options, k, v)
    server, lobby, db = await build_lobby(settings, options)
    await lobby.start()
    port = await server.start()
    address = f"127.0.0.1:{port}"
    channel = grpc.aio.insecure_channel(address)
    token = lobby.keys.issue("match-test", "match-test", 3600, kind="service")
    return LobbyEnv(
        lobby=lobby,
        address=address,
        channel=channel,
        stub=lobby_pb2_grpc.LobbyServiceStub(channel),
        registry=control_pb2_grpc.MatchRegistryServiceStub(channel),
        service_md=(("authorization", f"Bearer {token}"),),
        settings=settings,
        server=server,
        db=db,
    )


async def backdate_ticket(env: LobbyEnv, ticket_id: str, seconds: float) -> None:
    """Makes a quick-match ticket older (its row's ``created_at``), as if it had waited."""
    from sqlalchemy import update

    from wordarena.services.lobby.models import TicketRow

    await env.lobby.db.run(
        lambda s: s.exec(
            update(TicketRow)
            .where(TicketRow.id == ticket_id)
            .values(created_at=TicketRow.created_at - seconds)
        )
    )


async def backdate_sign_in_failures(env: LobbyEnv, seconds: float) -> None:
    """Makes every recorded failed sign-in older, as if that much time had passed since."""
    import json

    from sqlmodel import select

    from wordarena.services.lobby.models import SignInFailureRow

    def work(s: Any) -> None:
        for r in s.exec(select(SignInFailureRow)):
            r.failures = json.dumps([t - seconds for t in json.loads(r.failures)])
            r.expires_at -= seconds
            s.add(r)

    await env.lobby.db.run(work)


async def stop_lobby(env: LobbyEnv) -> None:
    """Stops a lobby started by ``start_lobby``."""
    await env.channel.close()
    await env.server.stop(0.5)  # type: ignore[attr-defined]
    env.db.close()  # type: ignore[attr-defined]


@pytest.fixture
async def env(database_url: str, tmp_path: Path) -> AsyncIterator[LobbyEnv]:
    """A running lobby."""
    e = await start_lobby(database_url, tmp_path)
    yield e
    await stop_lobby(e)


async def start_fake_match_server(
    env: LobbyEnv, hold: asyncio.Event | None = None, capacity: int = 100, *,
    server_id: str = "ms-1", active: int = 0,
) -> tuple[FakeMatchServer, Any]:
    """A fake match server on loopback, registered with the lobby of ``env`` as ``server_id``
    with ``active`` matches (``hold``: CreateMatch waits for it). Returns the fake and its gRPC
    server (stop it)."""
    fake = FakeMatchServer(env.lobby.keys, hold=hold)
    server = grpc.aio.server()
    control_pb2_grpc.add_MatchControlServiceServicer_to_server(fake, server)
    fake.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    await server.start()
    await env.registry.RegisterMatchServer(
        control_pb2.RegisterMatchServerRequest(
            server_id=server_id, address=fake.address,
            load=control_pb2.ServerLoad(active_matches=active, capacity=capacity)
        ),
        metadata=env.service_md,
    )
    return fake, server


@pytest.fixture
async def match_server(env: LobbyEnv) -> AsyncIterator[FakeMatchServer]:
    """A fake match server registered with the lobby: only for a test that needs what a real
    server cannot be made to do (refuse CreateMatch, hang inside it, fail AbortMatch)."""
    fake, server = await start_fake_match_server(env)
    yield fake
    await server.stop(0)


async def eventually(check: Any, timeout: float = 20.0) -> Any:
    """Poll ``check()`` (async) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def start_real_match_server(env: LobbyEnv, server_id: str = "ms-real", *,
                                  web_listen: str = "") -> MatchServer:
    """A real match server (``services.match.main.start``) on loopback, on the lobby's own store
    (SQLite file or PostgreSQL database), linked to the lobby of ``env`` (``--lobby``): it
    registers itself, sends heartbeats and reports results as in production. Returns once the
    lobby has it registered; stop it with ``stop_real_match_server``."""
    settings = Settings(service="match", listen="127.0.0.1:0", advertise_address="127.0.0.1:0",
                        data_dir=env.settings.data_dir, database_url=env.settings.database_url,
                        server_id=server_id, shutdown_grace=0.5, web_listen=web_listen,
                        extra={"lobby": env.address, "report_retry_base": 0.05, "report_retry_max": 0.3,
                               "bot_delay": 0.0})
    srv = await start_match(settings)
    assert srv.link is not None
    await asyncio.wait_for(srv.link.registered.wait(), 20)
    return srv


async def stop_real_match_server(srv: MatchServer) -> None:
    """Stops a server started by ``start_real_match_server`` (and closes its store)."""
    await srv.stop(0.2)


async def active_matches(srv: MatchServer, env: LobbyEnv) -> int:
    """The match server's own count of its active matches (``GetLoad``, as the lobby asks it)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = control_pb2_grpc.MatchControlServiceStub(channel)
        load = (await stub.GetLoad(control_pb2.GetLoadRequest(), metadata=env.service_md)).load
        return int(load.active_matches)


async def view_at(address: str, match_id: str, md: Any) -> match_pb2.MatchView:
    """What a player sees of ``match_id`` at ``address`` (the address the lobby gave it)."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        return (await stub.GetMatch(match_pb2.GetMatchRequest(match_id=match_id), metadata=md)).match


async def submit_at(address: str, match_id: str, md: Any, move: common_pb2.Move,
                    expected_seq: int) -> match_pb2.SubmitTurnResponse:
    """A player's move at ``address``, with the seq the player last saw."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        return await stub.SubmitTurn(match_pb2.SubmitTurnRequest(
            match_id=match_id, expected_seq=expected_seq, request_id=uuid.uuid4().hex, move=move),
            metadata=md)


@pytest.fixture
async def real_match_server(env: LobbyEnv) -> AsyncIterator[MatchServer]:
    """A real match server registered with the lobby of ``env``, on the same store."""
    srv = await start_real_match_server(env)
    yield srv
    await stop_real_match_server(srv)
