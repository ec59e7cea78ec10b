"""Oversized repeated fields are refused by their length, before any item is read (issue 38,
item 9): a CreateTable with 100,000 bot seats (600 KB, under the 1 MiB message limit) cost the
lobby a quarter of a second of CPU, walking every seat, before it said "at most 3 bots".

The refusal names the field, and the work the lobby does for it does not grow with the list:
the Python function calls made in this process (client and lobby share it) while the call runs,
counted with ``sys.setprofile``, are about those of a refusal of a list one item too long."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Awaitable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from lobby_harness import LobbyEnv

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2, errors_pb2, lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def _refused(call: Awaitable[Any]) -> tuple[grpc.aio.AioRpcError, int]:
    """The refusal of ``call`` and the Python calls this process made while it ran."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call
    finally:
        sys.setprofile(None)
    return refused.value, calls


def _table_with_bots(n: int) -> lobby_pb2.CreateTableRequest:
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"),
                                       bots=[lobby_pb2.BotSeat(seat=1, bot_level=1)] * n)
    return lobby_pb2.CreateTableRequest(settings=settings, request_id=uuid.uuid4().hex)


def _names_the_field(err: grpc.aio.AioRpcError, field: str) -> None:
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (err.code(), err.details())
    bad = detail(err, error_details_pb2.BadRequest)
    assert bad is not None and [v.field for v in bad.field_violations] == [field]
    violation = detail(err, errors_pb2.LobbyViolation)
    assert violation is not None and violation.field == field


async def test_a_table_with_a_hundred_thousand_bots_is_refused_without_reading_them(env: LobbyEnv) -> None:
    _, md = await env.guest()
    huge = _table_with_bots(100_000)
    assert 500_000 < huge.ByteSize() < 1024 * 1024
    # Warm up (first-call imports and caches), then the yardstick: five seats, one too many.
    await _refused(env.stub.CreateTable(_table_with_bots(5), metadata=md))
    small_err, small_calls = await _refused(env.stub.CreateTable(_table_with_bots(5), metadata=md))
    _names_the_field(small_err, "settings.bots")
    huge_err, huge_calls = await _refused(env.stub.CreateTable(huge, metadata=md))
    _names_the_field(huge_err, "settings.bots")
    assert huge_calls < small_calls + 1000, (huge_calls, small_calls)


async def test_a_table_filter_with_a_hundred_thousand_states_is_refused_naming_it(env: LobbyEnv) -> None:
    _, md = await env.guest()
    flood = lobby_pb2.ListTablesRequest(filter=lobby_pb2.TableFilter(
        statuses=[lobby_pb2.TABLE_STATUS_OPEN] * 100_000))
    err, _ = await _refused(env.stub.ListTables(flood, metadata=md))
    _names_the_field(err, "filter.statuses")
    # Four states, each once, as a client may list them: answered.
    every = lobby_pb2.ListTablesRequest(filter=lobby_pb2.TableFilter(statuses=[
        lobby_pb2.TABLE_STATUS_OPEN, lobby_pb2.TABLE_STATUS_STARTING, lobby_pb2.TABLE_STATUS_STARTED,
        lobby_pb2.TABLE_STATUS_CLOSED]))
    await env.stub.ListTables(every, metadata=md)
