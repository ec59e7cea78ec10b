"""The lobby's fair-play tests, run over gRPC-Web (issue 39: every limit holds on the browser path
exactly as on native gRPC; the fair-play tests run over it too): the tests of
``tests/service/lobby`` named below, unchanged, with every player's LobbyService and
TournamentService calls sent through the lobby's web port (``web_lobby_harness``); each checks
that the calls it depends on went over the web. The per-address limits must see a browser's
address as the native port sees a client's: the TCP peer (127.0.0.1 here; ::1 for the second
address of the sign-in tests), whatever headers the request carries."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from grpcweb import GrpcWebError, unary
from lobby_harness import LobbyEnv
from web_lobby_harness import WebLobby

from wordarena.services.lobby.options import LobbyOptions
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc


@pytest.fixture
async def web() -> AsyncIterator[WebLobby]:
    w = WebLobby()
    try:
        yield w
    finally:
        await w.close()


@pytest.fixture
async def web_env(web: WebLobby, database_url: str, tmp_path: Path) -> AsyncIterator[LobbyEnv]:
    """``lobby_harness.env`` over the web port."""
    env = await web.start_lobby(database_url, tmp_path)
    yield env
    await web.stop_lobby(env)


@pytest.fixture
async def web_dual(web: WebLobby, database_url: str,
                   tmp_path: Path) -> AsyncIterator[tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]]:
    """``test_lobby_sign_in_abuse.dual`` over the web port: a lobby whose web port takes IPv4 and
    IPv6, its env's stub from 127.0.0.1 and a stub from ::1 (two client addresses)."""
    env = await web.start_lobby(database_url, tmp_path, listen="[::]:0",
                                guest_sign_in_burst=LobbyOptions().guest_sign_in_burst,
                                address_failure_burst=LobbyOptions().address_failure_burst)
    yield env, lobby_pb2_grpc.LobbyServiceStub(web.channel(env.server.web_port, "[::1]"))  # type: ignore[attr-defined]
    await web.stop_lobby(env)


# -- the client address a per-address limit sees ------------------------------------------------


async def test_a_forwarded_for_header_does_not_change_a_browsers_address(
    web: WebLobby, database_url: str, tmp_path: Path
) -> None:
    """A browser's address is its TCP peer, as a native client's is: a guest flood from one
    address that names another in X-Forwarded-For on every call (each a new one) is throttled
    after the burst all the same, as it is natively (where the header is plain metadata)."""
    env = await web.start_lobby(database_url, tmp_path, guest_sign_in_burst=3)
    base = f"http://127.0.0.1:{env.server.web_port}"  # type: ignore[attr-defined]
    path = "/wordarena.v1.LobbyService/SignInGuest"
    try:
        codes = []
        for k in range(5):
            req = lobby_pb2.SignInGuestRequest(display_name=f"Forwarded{k}")
            try:
                await unary(web.client, base, path, req, lobby_pb2.SignInGuestResponse,
                            **{"x-forwarded-for": f"203.0.113.{k + 1}"})
                codes.append(grpc.StatusCode.OK.value[0])
            except GrpcWebError as err:
                codes.append(err.code)
        exhausted = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert codes == [0, 0, 0, exhausted, exhausted]
        native = lobby_pb2_grpc.LobbyServiceStub(env.channel.native)  # type: ignore[attr-defined]
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await native.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Native"),
                                     metadata=(("x-forwarded-for", "198.51.100.7"),))
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # one address, both ports
    finally:
        await web.stop_lobby(env)
