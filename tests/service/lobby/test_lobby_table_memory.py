"""A table the lobby forgets (closed or started long ago) leaves nothing behind, also while
someone watches the tables: neither its cached view nor the watcher's note of having seen it."""

from __future__ import annotations

import asyncio
import uuid

from lobby_harness import LobbyEnv

from wordarena.v1 import common_pb2, lobby_pb2


async def _change(stream: object, table_id: str) -> lobby_pb2.WatchTablesResponse:
    while True:
        msg = await asyncio.wait_for(stream.read(), 10.0)  # type: ignore[attr-defined]
        if msg.table.table_id == table_id:
            return msg


async def test_an_expired_table_leaves_memory_while_the_tables_are_watched(env: LobbyEnv) -> None:
    _, watcher = await env.guest("Watcher")
    every_status = lobby_pb2.TableFilter(statuses=[
        lobby_pb2.TABLE_STATUS_OPEN, lobby_pb2.TABLE_STATUS_STARTING,
        lobby_pb2.TABLE_STATUS_STARTED, lobby_pb2.TABLE_STATUS_CLOSED])
    stream = env.stub.WatchTables(lobby_pb2.WatchTablesRequest(filter=every_status), metadata=watcher)
    first = await asyncio.wait_for(stream.read(), 10.0)
    assert first.kind == lobby_pb2.TABLE_CHANGE_KIND_SYNCED
    _, host = await env.guest("Host")
    table = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic")),
        request_id=uuid.uuid4().hex), metadata=host)).table
    assert (await _change(stream, table.table_id)).kind == lobby_pb2.TABLE_CHANGE_KIND_OPENED
    cache = env.lobby.cache
    env.lobby.opt.table_expiry_s = 0.0  # it has been open too long now
    await env.lobby.table_ops.expire()
    closed = await _change(stream, table.table_id)  # the watcher is told, after the lobby forgot it
    assert closed.kind == lobby_pb2.TABLE_CHANGE_KIND_CLOSED
    assert not cache.holds(table.table_id)
    stream.cancel()
