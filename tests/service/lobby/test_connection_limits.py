"""Connection limits of every server (GrpcServer; docs/operations.md, "Security model"), over
real connections to a lobby: connections past ``--max-connections`` are not served until one
closes, a connection may hold ``--max-streams-per-connection`` calls at once (more wait their
turn), and a connection with no call open is closed after ``--max-connection-idle``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from wordarena.services.common.config import Settings
from wordarena.services.lobby.main import build_lobby
from wordarena.services.lobby.options import LobbyOptions
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc


@pytest.fixture
async def lobby_port(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[int]:
    settings = Settings(
        service="lobby",
        listen="127.0.0.1:0",
        data_dir=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'lobby.db'}",
        **request.param,
    )
    server, lobby, db = await build_lobby(
        settings, LobbyOptions(password_time_cost=1, password_memory_kib=1024)
    )
    await lobby.start()
    port = await server.start()
    yield port
    await lobby.stop()
    await server.stop(0.5)
    db.close()


async def _rulesets(ch: grpc.aio.Channel, timeout: float) -> grpc.StatusCode:
    try:
        await lobby_pb2_grpc.LobbyServiceStub(ch).ListRulesets(
            lobby_pb2.ListRulesetsRequest(), timeout=timeout
        )
    except grpc.aio.AioRpcError as err:
        return err.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("lobby_port", [{"max_connections": 2}], indirect=True)
async def test_connections_past_the_limit_wait_until_one_closes(lobby_port: int) -> None:
    # each channel its own connection (channels in one process share them by default)
    own = [("grpc.use_local_subchannel_pool", 1)]
    chans = [grpc.aio.insecure_channel(f"127.0.0.1:{lobby_port}", options=own) for _ in range(3)]
    try:
        assert await _rulesets(chans[0], 5) == grpc.StatusCode.OK
        assert await _rulesets(chans[1], 5) == grpc.StatusCode.OK
        assert await _rulesets(chans[2], 1.5) in (
            grpc.StatusCode.UNAVAILABLE,
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        await chans[0].close()
        ok = lobby_pb2_grpc.LobbyServiceStub(chans[2]).ListRulesets(
            lobby_pb2.ListRulesetsRequest(), timeout=15, wait_for_ready=True
        )
        assert len((await ok).rulesets) > 0
    finally:
        for ch in chans:
            await ch.close()


@pytest.mark.parametrize("lobby_port", [{"max_streams_per_connection": 2}], indirect=True)
async def test_a_connection_holds_at_most_its_streams_at_once(lobby_port: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{lobby_port}") as ch:
        stub = lobby_pb2_grpc.LobbyServiceStub(ch)
        guest = await stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Streamer"))
        md = (("authorization", f"Bearer {guest.token.token}"),)
        watches = [stub.WatchTables(lobby_pb2.WatchTablesRequest(), metadata=md) for _ in range(2)]
        for w in watches:
            await w.initial_metadata()
        # a third call on this connection waits for a free stream
        assert await _rulesets(ch, 1.0) == grpc.StatusCode.DEADLINE_EXCEEDED
        watches[0].cancel()
        assert await _rulesets(ch, 5.0) == grpc.StatusCode.OK
        watches[1].cancel()


@pytest.mark.parametrize("lobby_port", [{"max_connection_idle": 0.5}], indirect=True)
async def test_an_idle_connection_is_closed_by_the_server(lobby_port: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{lobby_port}") as ch:
        assert await _rulesets(ch, 5) == grpc.StatusCode.OK
        assert ch.get_state() == grpc.ChannelConnectivity.READY
        state = ch.get_state()
        while state == grpc.ChannelConnectivity.READY:
            await asyncio.wait_for(ch.wait_for_state_change(state), 5)
            state = ch.get_state()
        assert state == grpc.ChannelConnectivity.IDLE
        assert await _rulesets(ch, 5) == grpc.StatusCode.OK  # and the client reconnects
