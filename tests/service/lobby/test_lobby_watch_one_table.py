"""lobby.proto's TableFilter.table_id: a player who joined a host-started table watches just that
table and learns the moment it starts — the match id and the match server's address — without
polling."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from lobby_harness import LobbyEnv, view_at

from wordarena.services.match.main import MatchServer
from wordarena.v1 import common_pb2, lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


async def test_a_joiner_watching_one_table_sees_it_start(env: LobbyEnv,
                                                         real_match_server: MatchServer) -> None:
    _, host = await env.guest(f"h{uuid.uuid4().hex[:8]}")
    _, joiner = await env.guest(f"j{uuid.uuid4().hex[:8]}")
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2,
                                       start_policy=lobby_pb2.START_POLICY_HOST)
    other = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=settings, request_id=uuid.uuid4().hex), metadata=host)).table
    table = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=settings, request_id=uuid.uuid4().hex), metadata=host)).table
    joined = await env.stub.JoinTable(lobby_pb2.JoinTableRequest(
        table_id=table.table_id, request_id=uuid.uuid4().hex), metadata=joiner)
    watch = env.stub.WatchTables(lobby_pb2.WatchTablesRequest(filter=lobby_pb2.TableFilter(
        table_id=table.table_id, statuses=[lobby_pb2.TABLE_STATUS_OPEN, lobby_pb2.TABLE_STATUS_STARTING,
                                           lobby_pb2.TABLE_STATUS_STARTED])), metadata=joiner)
    seen: list[lobby_pb2.WatchTablesResponse] = []

    async def until_started() -> lobby_pb2.WatchTablesResponse:
        async for change in watch:
            seen.append(change)
            if change.kind == lobby_pb2.TABLE_CHANGE_KIND_SYNCED:
                await env.stub.StartTable(lobby_pb2.StartTableRequest(
                    table_id=table.table_id, request_id=uuid.uuid4().hex), metadata=host)
            if change.kind == lobby_pb2.TABLE_CHANGE_KIND_STARTED:
                return change
        raise AssertionError("the stream ended before the table started")

    started = await asyncio.wait_for(until_started(), timeout=20)
    watch.cancel()
    assert started.table.table_id == table.table_id
    assert started.table.status == lobby_pb2.TABLE_STATUS_STARTED
    where = started.table.match
    assert where.address == f"127.0.0.1:{real_match_server.port}"
    # The joiner learnt enough from the stream alone to open the match, in its seat: Table.match
    # names the caller's seat when seated (issue 41, finding 15: the STARTED change had none).
    view = await view_at(where.address, where.match_id, joiner)
    assert joined.seat in (0, 1) and view.viewer_seat == joined.seat
    assert where.HasField("seat") and where.seat == joined.seat
    # Only that table, never the other open one.
    assert {c.table.table_id for c in seen if c.HasField("table")} == {table.table_id}
    assert other.table_id != table.table_id
