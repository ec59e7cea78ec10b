"""Sign-in abuse, as hostile clients over gRPC: a flood of guest sign-ins from one address is
throttled (and nobody else is), failed passwords from one address slow down that address only
(they do not lock the owner out), and a guest's token stops working once the guest has claimed
the account. The lobby listens on IPv4 and IPv6: 127.0.0.1 and ::1 are two client addresses."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from lobby_harness import LobbyEnv, backdate_sign_in_failures, start_lobby, stop_lobby
from sqlmodel import select

from wordarena.services.common.errors import detail
from wordarena.services.lobby.models import PlayerRow
from wordarena.services.lobby.options import LobbyOptions
from wordarena.v1 import lobby_pb2, lobby_pb2_grpc

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
async def dual(
    database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[LobbyEnv, lobby_pb2_grpc.LobbyServiceStub]]:
    """A lobby on both address families, its IPv4 stub and a stub from the IPv6 loopback."""
    env = await start_lobby(
        database_url,
        tmp_path,
        listen="[::]:0",
        guest_sign_in_burst=LobbyOptions().guest_sign_in_burst,
        address_failure_burst=LobbyOptions().address_failure_burst,
    )
    port = env.address.rsplit(":", 1)[1]
    v6 = grpc.aio.insecure_channel(f"[::1]:{port}")
    yield env, lobby_pb2_grpc.LobbyServiceStub(v6)
    await v6.close()
    await stop_lobby(env)


def _name() -> str:
    return f"g{uuid.uuid4().hex[:10]}"


async def _code(call: object) -> grpc.aio.AioRpcError | None:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as err:
        return err
    return None


def _retry_s(err: grpc.aio.AioRpcError) -> float:
    info = detail(err, error_details_pb2.RetryInfo)
    assert info is not None, "RESOURCE_EXHAUSTED without RetryInfo"
    return info.retry_delay.ToNanoseconds() / 1e9


async def test_a_guest_flood_from_one_address_is_throttled_and_others_still_sign_in(dual) -> None:  # type: ignore[no-untyped-def]
    env, other = dual
    burst = env.lobby.opt.guest_sign_in_burst
    assert (burst, env.lobby.opt.guest_sign_in_rate) == (20, 0.2)  # the defaults lobby.proto states
    for _ in range(burst):
        await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=_name()))
    err = await _code(env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=_name())))
    assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "too many guest sign-ins" in (err.details() or "")
    wait = _retry_s(err)
    assert 0 < wait <= 1 / env.lobby.opt.guest_sign_in_rate
    # the refused attempt created no player (held no name) ...
    players = await env.lobby.db.run(lambda s: len(list(s.exec(select(PlayerRow.id)))))
    assert players == burst
    # ... and another address still signs in
    ok = await other.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=_name()))
    assert ok.player.guest


async def test_an_attacker_failing_passwords_does_not_lock_the_owner_out(dual) -> None:  # type: ignore[no-untyped-def]
    env, owner = dual
    g = await owner.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Rosalind"))
    await owner.ClaimAccount(
        lobby_pb2.ClaimAccountRequest(password="correct-horse"),
        metadata=(("authorization", f"Bearer {g.token.token}"),),
    )
    codes = []
    for _ in range(12):  # the attacker, from 127.0.0.1, keeps guessing
        err = await _code(env.stub.SignIn(lobby_pb2.SignInRequest(name="rosalind", password="wrong-guess")))
        assert err is not None
        codes.append(err.code())
    assert codes[:5] == [grpc.StatusCode.UNAUTHENTICATED] * 5
    assert codes[5:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 7  # backoff: the next in 1 s
    # the owner, from ::1, signs in at once
    ok = await owner.SignIn(lobby_pb2.SignInRequest(name="Rosalind", password="correct-horse"))
    assert ok.player.display_name == "Rosalind"
    # and the attacker is still held back
    err = await _code(env.stub.SignIn(lobby_pb2.SignInRequest(name="rosalind", password="correct-horse")))
    assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_failed_sign_ins_back_off_exponentially(dual) -> None:  # type: ignore[no-untyped-def]
    env, _ = dual
    throttle = env.lobby.opt.sign_in_throttle
    wrong = lobby_pb2.SignInRequest(name="Sam", password="wrong-password")
    for _ in range(throttle.limit):
        err = await _code(env.stub.SignIn(wrong))
        assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    waits = []
    for _ in range(4):
        err = await _code(env.stub.SignIn(wrong))
        assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert err.details() == "too many failed sign-ins"
        waits.append(_retry_s(err))
        await backdate_sign_in_failures(env, waits[-1] + 0.05)  # as if the client waited
        err = await _code(env.stub.SignIn(wrong))  # allowed again, and failed
        assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
    # 1, 2, 4, 8 s (each measured a moment after the failure it follows)
    assert [round(w) for w in waits] == [1, 2, 4, 8]
    # an hour without failures forgets them: the next wrong password is checked again
    await backdate_sign_in_failures(env, throttle.window_s + 1)
    err = await _code(env.stub.SignIn(wrong))
    assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_a_guest_token_is_revoked_when_the_guest_claims_the_account(dual) -> None:  # type: ignore[no-untyped-def]
    env, other = dual
    _, old = await env.guest("Winifred")
    assert (await env.stub.GetMe(lobby_pb2.GetMeRequest(), metadata=old)).player.guest
    claimed = await env.stub.ClaimAccount(
        lobby_pb2.ClaimAccountRequest(password="correct-horse"), metadata=old
    )
    for stub in (env.stub, other):
        for call in (
            stub.GetMe(lobby_pb2.GetMeRequest(), metadata=old),
            stub.RefreshToken(lobby_pb2.RefreshTokenRequest(), metadata=old),
        ):
            err = await _code(call)
            assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "revoked" in (err.details() or "")
    new = (("authorization", f"Bearer {claimed.token.token}"),)
    me = await other.GetMe(lobby_pb2.GetMeRequest(), metadata=new)
    assert me.player.display_name == "Winifred" and not me.player.guest


async def test_guessing_many_names_from_one_address_is_throttled(dual) -> None:  # type: ignore[no-untyped-def]
    """Password spraying: one wrong guess on each of many names, from one address. Past the
    address's budget of failures (30 by default) every SignIn from it is refused unchecked,
    whatever the name; an owner at another address signs in."""
    env, owner = dual
    g = await owner.SignInGuest(lobby_pb2.SignInGuestRequest(display_name="Philippa"))
    await owner.ClaimAccount(
        lobby_pb2.ClaimAccountRequest(password="correct-horse"),
        metadata=(("authorization", f"Bearer {g.token.token}"),),
    )
    budget = env.lobby.opt.address_failure_burst
    assert budget == 30
    codes = []
    for k in range(budget + 3):
        err = await _code(env.stub.SignIn(lobby_pb2.SignInRequest(name=f"name{k:03d}", password="hunter2!")))
        assert err is not None
        codes.append(err.code())
    assert codes[:budget] == [grpc.StatusCode.UNAUTHENTICATED] * budget
    assert codes[budget:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 3
    err = await _code(env.stub.SignIn(lobby_pb2.SignInRequest(name="Philippa", password="correct-horse")))
    assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _retry_s(err) > 0
    ok = await owner.SignIn(lobby_pb2.SignInRequest(name="Philippa", password="correct-horse"))
    assert ok.player.display_name == "Philippa"
