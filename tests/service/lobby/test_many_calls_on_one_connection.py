"""500 calls at once on one connection, against a lobby with the default limit of 100 calls open
per connection (issue 38, item 10; docs/operations.md, "Security model").

gRPC's client holds back the calls beyond the limit as it counts them, but the server counts a
finished call until it has released it (its defence against HTTP/2 rapid reset), so in a burst
of short calls some are refused: UNAVAILABLE, HTTP/2 REFUSED_STREAM. The operations guide said
they "wait on the client until one ends", yet 342–399 of 500 calls sent at once were refused
(358–398 of 500 sign-ins here).
What holds, and what the guide now says: every call is answered, OK or refused; a refused call
never ran (retried, the same guest name is still free); and a client whose channel retries
UNAVAILABLE (a retry policy in its service config) gets every one of them through."""

from __future__ import annotations

import asyncio
import json
import uuid

import grpc
import pytest
from lobby_harness import LobbyEnv

from wordarena.v1 import lobby_pb2, lobby_pb2_grpc

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

CALLS = 500
RETRY_UNAVAILABLE = json.dumps({"methodConfig": [{
    "name": [{"service": "wordarena.v1.LobbyService"}],
    "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.05s", "maxBackoff": "1s",
                    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]})


async def _sign_in(stub: lobby_pb2_grpc.LobbyServiceStub, name: str) -> grpc.aio.AioRpcError | None:
    try:
        await stub.SignInGuest(lobby_pb2.SignInGuestRequest(display_name=name), timeout=60)
    except grpc.aio.AioRpcError as err:
        return err
    return None


def _names() -> list[str]:
    tag = uuid.uuid4().hex[:6]
    return [f"g{tag}x{i}" for i in range(CALLS)]


async def test_calls_past_the_limit_are_answered_or_refused_unrun(env: LobbyEnv) -> None:
    own = [("grpc.use_local_subchannel_pool", 1)]  # one connection of its own
    async with grpc.aio.insecure_channel(env.address, options=own) as ch:
        stub = lobby_pb2_grpc.LobbyServiceStub(ch)
        names = _names()
        answers = await asyncio.gather(*(_sign_in(stub, n) for n in names))
        refused = [n for n, err in zip(names, answers, strict=True) if err is not None]
        for err in answers:
            if err is not None:
                assert err.code() == grpc.StatusCode.UNAVAILABLE, (err.code(), err.details())
                assert "RST_STREAM" in err.details() and "error code 7" in err.details(), err.details()
        # A refused call never ran: its name is still free (a guest with it would make NAME_TAKEN).
        again = await asyncio.gather(*(_sign_in(stub, n) for n in refused[:50]))
        assert [err.code() if err else None for err in again] == [None] * len(again)


async def test_a_client_that_retries_unavailable_gets_every_call_through(env: LobbyEnv) -> None:
    """A channel retry policy for UNAVAILABLE gets most refused calls through by itself; gRPC caps
    its attempts at 5, so on a loaded machine a few still come back UNAVAILABLE, and the client
    retries them with a backoff: every call then gets through, each exactly once (a guest name
    used twice would be NAME_TAKEN)."""
    options = [("grpc.use_local_subchannel_pool", 1), ("grpc.service_config", RETRY_UNAVAILABLE),
               ("grpc.enable_retries", 1)]
    async with grpc.aio.insecure_channel(env.address, options=options) as ch:
        stub = lobby_pb2_grpc.LobbyServiceStub(ch)

        async def until_through(name: str) -> grpc.aio.AioRpcError | None:
            for attempt in range(30):
                err = await _sign_in(stub, name)
                if err is None or err.code() != grpc.StatusCode.UNAVAILABLE:
                    return err
                await asyncio.sleep(min(0.05 * 2 ** attempt, 1.0))  # the backoff, not a proof
            return err

        answers = await asyncio.gather(*(until_through(n) for n in _names()))
        failed = [(err.code(), err.details()) for err in answers if err is not None]
        assert failed == []
