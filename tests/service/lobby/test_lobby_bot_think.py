"""Bot levels 1..6 and the bots' think time at the lobby: TableSettings.bot_think_ms,
BotSeat.bot_think_ms and SitBotRequest.bot_think_ms are checked (INVALID_ARGUMENT naming the
field), shown back in the table, and handed to the match server per seat (a seat's own think
time, else the table's)."""

from __future__ import annotations

import uuid

import grpc
from grpc_helpers import refused
from lobby_harness import FakeMatchServer, LobbyEnv

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2, errors_pb2, lobby_pb2


def rid() -> str:
    return uuid.uuid4().hex


def _settings(
    ruleset: str, seats: int, bots: list[lobby_pb2.BotSeat], think: int = 0
) -> lobby_pb2.TableSettings:
    return lobby_pb2.TableSettings(
        ruleset=common_pb2.RulesetRef(ruleset_id=ruleset),
        seats=seats,
        bots=bots,
        bot_think_ms=think,
        start_policy=lobby_pb2.START_POLICY_HOST,
    )


async def _refused(call: object) -> str:
    err = await refused(call)  # type: ignore[arg-type]
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    violation = detail(err, errors_pb2.LobbyViolation)
    assert violation is not None
    return violation.field


async def test_think_times_and_level_6_are_checked(env: LobbyEnv) -> None:
    _, host = await env.guest()

    def create(s: lobby_pb2.TableSettings) -> object:
        return env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=s, request_id=rid()), metadata=host)

    bot6 = lobby_pb2.BotSeat(seat=1, bot_level=6)
    assert await _refused(create(_settings("classic", 2, [bot6], think=99))) == "settings.bot_think_ms"
    assert await _refused(create(_settings("classic", 2, [bot6], think=30_001))) == "settings.bot_think_ms"
    slow = lobby_pb2.BotSeat(seat=1, bot_level=6, bot_think_ms=40_000)
    assert await _refused(create(_settings("classic", 2, [slow]))) == "settings.bots[0].bot_think_ms"
    seven = lobby_pb2.BotSeat(seat=1, bot_level=7)
    assert await _refused(create(_settings("classic", 2, [seven]))) == "settings.bots[0].bot_level"

    table = (await create(_settings("scrabble", 3, []))).table  # type: ignore[attr-defined]
    sit = lobby_pb2.SitBotRequest(table_id=table.table_id, bot_level=6, bot_think_ms=5, request_id=rid())
    assert await _refused(env.stub.SitBot(sit, metadata=host)) == "bot_think_ms"
    sit7 = lobby_pb2.SitBotRequest(table_id=table.table_id, bot_level=7, request_id=rid())
    assert await _refused(env.stub.SitBot(sit7, metadata=host)) == "bot_level"


async def test_think_times_reach_the_match_server_per_seat(
    env: LobbyEnv, match_server: FakeMatchServer
) -> None:
    _, host = await env.guest()
    s = _settings(
        "scrabble",
        4,
        [lobby_pb2.BotSeat(seat=1, bot_level=6, bot_think_ms=800), lobby_pb2.BotSeat(seat=2, bot_level=6)],
        think=1200,
    )
    table = (
        await env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=s, request_id=rid()), metadata=host)
    ).table
    assert table.settings.bot_think_ms == 1200
    assert [(b.seat, b.bot_level, b.bot_think_ms) for b in table.settings.bots] == [(1, 6, 800), (2, 6, 0)]
    await env.stub.SitBot(
        lobby_pb2.SitBotRequest(table_id=table.table_id, bot_level=5, bot_think_ms=300, request_id=rid()),
        metadata=host,
    )
    got = await env.stub.GetTable(lobby_pb2.GetTableRequest(table_id=table.table_id), metadata=host)
    assert got.table.settings.bot_think_ms == 1200  # read back from the store
    await env.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=table.table_id, request_id=rid()), metadata=host
    )
    seats = match_server.created[-1].seats
    bots = [(s.index, s.bot_level, s.bot_think_ms) for s in seats if s.WhichOneof("occupant") == "bot_level"]
    assert bots == [(1, 6, 800), (2, 6, 1200), (3, 5, 300)]
    assert all(s.bot_think_ms == 0 for s in seats if s.WhichOneof("occupant") == "player")
