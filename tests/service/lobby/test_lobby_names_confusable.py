"""Display names that look the same to a reader are one name (Unicode TR39 confusables): a
second player signing in with a look-alike of a name in use is refused NAME_TAKEN — over gRPC,
as a client signs in. Each look-alike below was accepted by the hand-made table that came
before Unicode's own data."""

from __future__ import annotations

import grpc
import pytest
from lobby_harness import LobbyEnv

from wordarena.v1 import lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def _sign_in(env: LobbyEnv, name: str) -> grpc.StatusCode:
    try:
        await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=name))
    except grpc.aio.AioRpcError as err:
        return err.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize(
    "look_alike",
    [
        "\u039carjorie",  # Greek capital Mu
        "\u13b7arjorie",  # Cherokee letter LU, drawn as M
        "Marj\u0585rie",  # Armenian small letter OH
        "\u0271arjorie",  # Latin m with hook: TR39's skeleton of m is rn, and so is this
        "\u041carjorie",  # Cyrillic capital EM
    ],
)
async def test_a_look_alike_of_a_name_in_use_is_taken(env: LobbyEnv, look_alike: str) -> None:
    assert await _sign_in(env, "Marjorie") == grpc.StatusCode.OK
    assert await _sign_in(env, look_alike) == grpc.StatusCode.ALREADY_EXISTS


async def test_a_look_alike_is_free_when_the_name_it_copies_is_not_in_use(env: LobbyEnv) -> None:
    """The skeleton is a key, not a ban: a name in a script of its own signs in."""
    assert await _sign_in(env, "\u13b7arjorie") == grpc.StatusCode.OK
    assert await _sign_in(env, "Marjorie") == grpc.StatusCode.ALREADY_EXISTS
    assert await _sign_in(env, "Margery") == grpc.StatusCode.OK
