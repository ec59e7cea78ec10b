"""common.proto: "requests above the servers' size limit (1 MiB by default) fail with
RESOURCE_EXHAUSTED" — a client's view of the default limit, just under and just over it."""

from __future__ import annotations

import grpc
import pytest
from lobby_harness import LobbyEnv

from wordarena.v1 import lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

MIB = 1024 * 1024


async def _sign_in(env: LobbyEnv, name: str) -> grpc.StatusCode:
    call = env.channel.unary_unary("/wordarena.v1.LobbyService/SignInGuest",
                                   request_serializer=lobby_pb2.SignInGuestRequest.SerializeToString,
                                   response_deserializer=lobby_pb2.SignInGuestResponse.FromString)
    try:
        await call(lobby_pb2.SignInGuestRequest(display_name=name), timeout=30)
    except grpc.aio.AioRpcError as err:
        return err.code()
    return grpc.StatusCode.OK


async def test_a_request_over_one_mib_is_refused_for_its_size(env: LobbyEnv) -> None:
    assert await _sign_in(env, "x" * (MIB + 1)) == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_a_request_under_one_mib_reaches_the_rules(env: LobbyEnv) -> None:
    # Read and judged by the lobby: a name that long breaks the name rules, not the size limit.
    assert await _sign_in(env, "x" * (MIB - 1024)) == grpc.StatusCode.INVALID_ARGUMENT
