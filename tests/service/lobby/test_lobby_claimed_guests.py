"""A guest's token is refused once the guest claims an account (UNAUTHENTICATED), also after the
lobby's memo of claimed guests was emptied for room: the player is then looked up again."""

from __future__ import annotations

import grpc
import pytest
from lobby_harness import LobbyEnv

from wordarena.services.lobby import accounts
from wordarena.v1 import lobby_pb2


async def test_claimed_guests_tokens_stay_refused_while_the_lobby_remembers_few(
        env: LobbyEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accounts, "MEMO_MAX", 2)
    old_tokens = []
    for n in range(5):
        _, md = await env.guest(f"Guest {n}")
        await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=md)  # seen a guest
        await env.stub.ClaimAccount(lobby_pb2.ClaimAccountRequest(name=f"Claimer{n}", password="password1"),
                                    metadata=md)
        old_tokens.append(md)
    assert len(env.lobby.accounts._claimed) <= 2  # bounded
    for md in old_tokens:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=md)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "claimed" in (err.value.details() or "")
