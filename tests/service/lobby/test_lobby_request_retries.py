"""A retried request id answers the same retryable status until its first call is final (issue 38,
item 11): a client whose StartTable timed out while the lobby was creating the match retries with
the same request id; every retry before the match exists is ABORTED with RetryInfo (never the
FAILED_PRECONDITION "table is starting" the half-done start would cause), and once the match is
created the same id answers OK with where to play — the first call's start, finished although its
client stopped waiting, not a second match.

The match server is the fake one: a real match server cannot be made to hang inside CreateMatch
for as long as the test needs."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from google.rpc import error_details_pb2
from lobby_harness import LobbyEnv, start_fake_match_server

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2, lobby_pb2


async def _host_with_a_bot(env: LobbyEnv) -> tuple[tuple[tuple[str, str]], str]:
    _, md = await env.guest()
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2,
                                       start_policy=lobby_pb2.START_POLICY_HOST)
    table = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=settings, request_id=uuid.uuid4().hex), metadata=md)).table
    await env.stub.SitBot(lobby_pb2.SitBotRequest(table_id=table.table_id, bot_level=1,
                                                  request_id=uuid.uuid4().hex), metadata=md)
    return md, table.table_id


async def test_a_retry_of_an_unfinished_start_is_aborted_with_retry_info_until_the_start_is_done(
    env: LobbyEnv,
) -> None:
    hold = asyncio.Event()
    fake, server = await start_fake_match_server(env, hold)
    try:
        md, table_id = await _host_with_a_bot(env)
        start = lobby_pb2.StartTableRequest(table_id=table_id, request_id=uuid.uuid4().hex)
        # The first call: the client stops waiting while the lobby waits for CreateMatch.
        first = asyncio.ensure_future(env.stub.StartTable(start, metadata=md, timeout=0.5))
        await asyncio.wait_for(fake.entered.wait(), 10)
        with pytest.raises(grpc.aio.AioRpcError) as gone:
            await first
        assert gone.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        seen = (await env.stub.GetTable(lobby_pb2.GetTableRequest(table_id=table_id), metadata=md)).table
        assert seen.status == lobby_pb2.TABLE_STATUS_STARTING
        # Retries while the match is being created: the same retryable answer each time, within
        # the retry's own deadline.
        for _ in range(3):
            with pytest.raises(grpc.aio.AioRpcError) as retry:
                await env.stub.StartTable(start, metadata=md, timeout=1.5)
            err = retry.value
            assert err.code() == grpc.StatusCode.ABORTED, (err.code(), err.details())
            assert detail(err, error_details_pb2.RetryInfo) is not None
        assert not fake.created, "CreateMatch answered while held"
        hold.set()
        # The same id once the start is done: where to play, the match the first call created.
        done = await env.stub.StartTable(start, metadata=md, timeout=10)
        assert [m.match_id for m in fake.created] == [done.assignment.match_id]
        assert done.assignment.address == fake.address
        again = await env.stub.StartTable(start, metadata=md, timeout=10)
        assert again == done
        seen = (await env.stub.GetTable(lobby_pb2.GetTableRequest(table_id=table_id), metadata=md)).table
        assert seen.status == lobby_pb2.TABLE_STATUS_STARTED
        assert seen.match.match_id == done.assignment.match_id
    finally:
        hold.set()
        await server.stop(0)
