"""The conformance suite's world: a real lobby and a real match server registered with it, on
loopback gRPC (one SQLite file each), and clients that act as a third-party client would: guests
signed in through LobbyService, tables and matches made through the lobby, and every call made
over gRPC with the bearer token. Only the contract is used (``wordarena.v1``)."""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from wordarena.services.common.config import Settings
from wordarena.services.common.errors import details_of
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.match.main import MatchServer
from wordarena.services.match.main import start as start_match
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2_grpc, lobby_pb2_grpc, match_pb2_grpc
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import lobby_pb2 as lb
from wordarena.v1 import match_pb2 as m

_names = itertools.count(1)
#: The lobby's per-watcher queue of table changes: small, so that a WatchTables client that does
#: not read is cut off after a few hundred changes (HTTP/2 buffers the first 64 KiB).
WATCH_QUEUE = 16


def rid() -> str:
    """A fresh request id."""
    return uuid.uuid4().hex


@dataclass
class Guest:
    """A signed-in guest: bearer metadata and stubs."""

    player_id: str
    name: str
    token: str
    lobby: lobby_pb2_grpc.LobbyServiceStub
    match: match_pb2_grpc.MatchServiceStub

    @property
    def md(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.token}")]

    async def view(self, match_id: str) -> m.MatchView:
        return (await self.match.GetMatch(m.GetMatchRequest(match_id=match_id), metadata=self.md)).match

    async def submit(self, match_id: str, move: c.Move, expected_seq: int | None = None,
                     request_id: str = "") -> m.SubmitTurnResponse:
        seq = expected_seq if expected_seq is not None else (await self.view(match_id)).last_seq
        return await self.match.SubmitTurn(m.SubmitTurnRequest(
            match_id=match_id, expected_seq=seq, request_id=request_id or rid(), move=move), metadata=self.md)

    async def chat(self, match_id: str, text: str, request_id: str = "") -> m.SendChatResponse:
        return await self.match.SendChat(m.SendChatRequest(
            match_id=match_id, request_id=request_id or rid(), text=text), metadata=self.md)


@dataclass
class World:
    """The running servers and what the promises need to make players, tables and matches."""

    lobby_address: str
    match_address: str
    lobby_channel: grpc.aio.Channel
    match_channel: grpc.aio.Channel
    service_md: list[tuple[str, str]]
    data_dir: Path
    lobby_server: Any = None
    lobby_db: Any = None
    match_server: MatchServer | None = None
    lobby_app: Any = None
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    @property
    def lobby(self) -> lobby_pb2_grpc.LobbyServiceStub:
        return lobby_pb2_grpc.LobbyServiceStub(self.lobby_channel)

    @property
    def control(self) -> control_pb2_grpc.MatchControlServiceStub:
        return control_pb2_grpc.MatchControlServiceStub(self.match_channel)

    @property
    def registry(self) -> control_pb2_grpc.MatchRegistryServiceStub:
        return control_pb2_grpc.MatchRegistryServiceStub(self.lobby_channel)

    @property
    def anonymous(self) -> match_pb2_grpc.MatchServiceStub:
        return match_pb2_grpc.MatchServiceStub(self.match_channel)

    async def guest(self, prefix: str = "g") -> Guest:
        name = f"{prefix}-{next(_names):03d}"
        r = await self.lobby.SignInGuest(lb.SignInGuestRequest(display_name=name))
        return Guest(r.player.player_id, name, r.token.token, self.lobby,
                     match_pb2_grpc.MatchServiceStub(self.match_channel))

    async def table(self, host: Guest, ruleset: str = "classic", seats: int = 2, *,
                    spectators: bool = True, private: bool = False, host_start: bool = False,
                    clock_minutes: int = 0) -> lb.Table:
        options = c.MatchOptions(spectators_allowed=spectators)
        if clock_minutes:
            options.clock.per_player.seconds = clock_minutes * 60
        settings = lb.TableSettings(
            ruleset=c.RulesetRef(ruleset_id=ruleset), seats=seats, options=options,
            visibility=lb.VISIBILITY_PRIVATE if private else lb.VISIBILITY_PUBLIC,
            start_policy=lb.START_POLICY_HOST if host_start else lb.START_POLICY_UNSPECIFIED)
        r = await host.lobby.CreateTable(lb.CreateTableRequest(settings=settings, request_id=rid()),
                                         metadata=host.md)
        return r.table

    async def match(self, ruleset: str = "classic", *, spectators: bool = True,
                    players: int = 2, clock_minutes: int = 0) -> tuple[str, list[Guest]]:
        """A started match between new guests, seated in order (seat 0 moves first)."""
        guests = [await self.guest("p") for _ in range(players)]
        table = await self.table(guests[0], ruleset, players, spectators=spectators,
                                 clock_minutes=clock_minutes)
        for g in guests[1:]:
            await g.lobby.JoinTable(lb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                    metadata=g.md)

        async def started() -> lb.Table | None:
            t = (await guests[0].lobby.GetTable(lb.GetTableRequest(table_id=table.table_id),
                                                metadata=guests[0].md)).table
            return t if t.match.match_id else None

        started_table = await eventually(started)
        mid = started_table.match.match_id
        by_seat = {s.player.player_id: s.index for s in started_table.seats if s.HasField("player")}
        guests.sort(key=lambda g: by_seat[g.player_id])
        view = await guests[0].view(mid)
        first = view.to_move_seat
        return mid, guests[first:] + guests[:first] if first else guests

    async def tournament_sweeps(self, n: int = 2) -> None:
        """Waits until the lobby's tournament loop has finished ``n`` more sweeps: then a sweep
        that began after every change made so far has looked at it (the event to wait on
        before checking that a sweep did *not* pair a round, instead of sleeping)."""
        target = self.lobby_app.runner.sweeps + n

        async def swept() -> bool:
            return self.lobby_app.runner.sweeps >= target

        await eventually(swept)

    async def close(self) -> None:
        for ch in (self.lobby_channel, self.match_channel, *self.channels):
            await ch.close()
        if self.match_server is not None:
            await self.match_server.stop(0.5)
        if self.lobby_server is not None:
            await self.lobby_server.stop(0.5)
            self.lobby_db.close()


async def start_world(data_dir: Path) -> World:
    """A lobby and a match server that registers with it (the lobby's development keys)."""
    settings = Settings(service="lobby", listen="127.0.0.1:0", data_dir=data_dir,
                        database_url=f"sqlite:///{data_dir / 'lobby.db'}")
    # Every guest signs in from 127.0.0.1: the per-address guest throttle and the guests' caps on
    # open tables and tournaments are opened wide (they are checked where ELSEWHERE says).
    options = LobbyOptions(password_time_cost=1, password_memory_kib=1024, matchmaking_tick_s=0.05,
                           heartbeat_interval_s=0.2, watch_queue_size=WATCH_QUEUE,
                           guest_sign_in_burst=100_000, tournament_tick_s=0.1,
                           max_open_tables_per_guest_address=100_000,
                           max_open_tournaments_per_guest_address=100_000)
    server, lobby, db = await build_lobby(settings, options)
    await lobby.start()
    port = await server.start()
    match_settings = Settings(
        service="match", listen="127.0.0.1:0", advertise_address="127.0.0.1:0", data_dir=data_dir,
        database_url=f"sqlite:///{data_dir / 'match.db'}", server_id="conformance", shutdown_grace=0.5,
        extra={"lobby": f"127.0.0.1:{port}", "heartbeat_seconds": 0.5, "report_retry_base": 0.05,
               "report_retry_max": 0.3})
    srv = await start_match(match_settings)
    assert srv.link is not None
    await asyncio.wait_for(srv.link.registered.wait(), 20)
    token = lobby.keys.issue("conformance", "conformance", 3600, kind="service")
    return World(f"127.0.0.1:{port}", f"127.0.0.1:{srv.port}",
                 grpc.aio.insecure_channel(f"127.0.0.1:{port}"),
                 grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}"),
                 [("authorization", f"Bearer {token}")], data_dir, server, db, srv, lobby)


async def eventually(check: Callable[[], Awaitable[Any]], timeout: float = 20.0) -> Any:
    """Poll ``check()`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


async def refused(call: Awaitable[Any], code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    """The error ``call`` fails with, which must have status ``code``."""
    try:
        await call
    except grpc.aio.AioRpcError as err:
        assert err.code() == code, f"expected {code.name}, got {err.code().name}: {err.details()}"
        return err
    raise AssertionError(f"expected {code.name}, the call succeeded")


def rule(err: grpc.aio.AioRpcError) -> int:
    """The RuleViolation code among the error's details (0 if none)."""
    return next((d.code for d in details_of(err) if isinstance(d, e.RuleViolation)), 0)


def lobby_code(err: grpc.aio.AioRpcError) -> int:
    """The LobbyViolation code among the error's details (0 if none)."""
    return next((d.code for d in details_of(err) if isinstance(d, e.LobbyViolation)), 0)


def detail(err: grpc.aio.AioRpcError, kind: type) -> Any:
    """The first detail of type ``kind``, or None."""
    return next((d for d in details_of(err) if isinstance(d, kind)), None)


Check = Callable[[World], Awaitable[None]]

#: "Service.Rpc" -> {the promise, as the .proto comment states it: the check that keeps it}.
PROMISES: dict[str, dict[str, Check]] = {}


def promise(rpc: str, text: str) -> Callable[[Check], Check]:
    """Register a check for one promise the contract makes about ``rpc`` ("Service.Rpc")."""

    def register(check: Check) -> Check:
        assert text not in PROMISES.setdefault(rpc, {}), f"{rpc}: {text!r} twice"
        PROMISES[rpc][text] = check
        return check

    return register
