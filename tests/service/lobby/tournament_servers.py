"""A real lobby and a real match server in-process on loopback gRPC, for tournament tests: the
lobby creates each game's match on the match server, which plays it (bots) or waits for its
players and reports the result through the result path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from wordarena.services.common.config import Settings
from wordarena.services.common.db import Database
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.services.match.main import start as start_match
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc, tournament_pb2_grpc
from wordarena.v1 import tournament_pb2 as tp

Metadata = list[tuple[str, str]]


@dataclass
class Servers:
    """The running lobby and match server, a channel to the lobby and a guest director."""

    channel: grpc.aio.Channel
    db: Database
    stub: tournament_pb2_grpc.TournamentServiceStub
    md: Metadata
    director_id: str
    web_port: int = 0  # the lobby's gRPC-Web port (``servers(..., web_listen=...)``)

    async def guest(self, name: str) -> tuple[str, Metadata]:
        """A new guest: (player id, call metadata)."""
        g = await lobby_pb2_grpc.LobbyServiceStub(self.channel).SignInGuest(
            lobby_pb2.SignInGuestRequest(display_name=name)
        )
        return g.player.player_id, [("authorization", f"Bearer {g.token.token}")]

    async def watch_to_end(self, tid: str, timeout: float = 600) -> tp.TournamentState:
        """The tournament's last state: the watch stream ends after the FINISHED state."""
        final: list[tp.TournamentState] = []

        async def watch() -> None:
            req = tp.WatchTournamentRequest(tournament_id=tid)
            async for msg in self.stub.WatchTournament(req, metadata=self.md):
                final[:] = [msg.state]

        await asyncio.wait_for(watch(), timeout)
        return final[0]


async def start_linked_match(tmp_path: Path, lobby_port: int, server_id: str, **extra: Any) -> Any:
    """A real match server on its own SQLite file in ``tmp_path``, linked to the lobby on
    ``lobby_port`` (quick result-report retries; ``extra``: more match-server settings)."""
    return await start_match(
        Settings(
            service="match",
            listen="127.0.0.1:0",
            advertise_address="127.0.0.1:0",
            data_dir=tmp_path,
            database_url=f"sqlite:///{tmp_path / 'match.db'}",
            server_id=server_id,
            shutdown_grace=0.5,
            extra={"lobby": f"127.0.0.1:{lobby_port}", "report_retry_base": 0.05,
                   "report_retry_max": 0.3, **extra},
        )
    )


@asynccontextmanager
async def servers(database_url: str, tmp_path: Path, *, web_listen: str = "",
                  **options: Any) -> AsyncIterator[Servers]:
    """A lobby (``LobbyOptions`` overridden by ``options``; ``web_listen``: its gRPC-Web port
    too) and a match server linked to it."""
    settings = Settings(service="lobby", listen="127.0.0.1:0", database_url=database_url, data_dir=tmp_path,
                        web_listen=web_listen)
    opts: dict[str, Any] = {
        "password_time_cost": 1,
        "password_memory_kib": 1024,
        "matchmaking_tick_s": 0.05,
        "heartbeat_interval_s": 0.2,
        "tournament_tick_s": 0.5,
    }
    server, lobby, db = await build_lobby(settings, LobbyOptions(**(opts | options)))
    await lobby.start()
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    ms = await start_linked_match(tmp_path, port, "ms-t")
    try:
        assert ms.link is not None
        await asyncio.wait_for(ms.link.registered.wait(), 10)
        env = Servers(channel, db, tournament_pb2_grpc.TournamentServiceStub(channel), [], "",
                      web_port=server.web_port)
        env.director_id, env.md = await env.guest("Director")
        yield env
    finally:
        await channel.close()
        await ms.stop(0.2)
        await server.stop(0.2)
        db.close()
        await lobby.stop()
