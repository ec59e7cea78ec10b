"""Display names that look like another's, or like nothing: an existing name plus an invisible
character (variation selector, combining grapheme joiner, Mongolian selector, Hangul filler) is
the same name, and a name of Hangul fillers only is refused — over gRPC, as a client signs in."""

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


@pytest.mark.parametrize("extra", ["\ufe0f", "\u034f", "\u180b", "\u3164"])
async def test_an_invisible_character_does_not_make_a_new_name(env: LobbyEnv, extra: str) -> None:
    assert await _sign_in(env, "Marjorie") == grpc.StatusCode.OK
    assert await _sign_in(env, f"Marjorie{extra}") in (grpc.StatusCode.ALREADY_EXISTS,
                                                        grpc.StatusCode.INVALID_ARGUMENT)
    assert await _sign_in(env, f"Mar{extra}jorie") in (grpc.StatusCode.ALREADY_EXISTS,
                                                        grpc.StatusCode.INVALID_ARGUMENT)


async def test_a_name_of_hangul_fillers_only_is_refused(env: LobbyEnv) -> None:
    assert await _sign_in(env, "\u3164\u3164\u3164\u3164") == grpc.StatusCode.INVALID_ARGUMENT
