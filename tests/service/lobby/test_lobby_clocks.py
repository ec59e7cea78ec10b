"""Each family's timing as the lobby offers it (DescribeRuleset) and takes it per table
(CreateTable's ``options.clock``): a bad value is refused naming the field and no table is
made."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from lobby_harness import LobbyEnv

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2, lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def _describe(env: LobbyEnv, ruleset: str) -> lobby_pb2.RulesetDescription:
    return (await env.stub.DescribeRuleset(
        lobby_pb2.DescribeRulesetRequest(ruleset=c.RulesetRef(ruleset_id=ruleset)))).ruleset


async def test_each_family_describes_its_timing(env: LobbyEnv) -> None:
    scrabble = await _describe(env, "scrabble")
    assert (scrabble.clock_default.seconds, scrabble.clock_min.seconds, scrabble.clock_max.seconds) \
        == (25 * 60, 5 * 60, 90 * 60)
    assert scrabble.overtime_points == 10 and scrabble.max_overtime.seconds == 600
    assert not scrabble.HasField("turn_deadline_default")
    assert "10 points off per started minute; 10 minutes over loses the game" in scrabble.rules_text
    wordtiles = await _describe(env, "wordtiles")
    assert wordtiles.clock_default.seconds == 600 and not wordtiles.overtime_points
    assert not wordtiles.HasField("turn_deadline_default")
    for family in ("classic", "warofwords"):
        d = await _describe(env, family)
        assert d.turn_deadline_default.seconds == 3 * 86400, family
        assert not d.HasField("clock_default") and not d.overtime_points, family
        assert "Each turn must be played within 72 hours" in d.rules_text, family


@pytest.mark.parametrize(
    ("ruleset", "clock", "field"),
    [
        ("scrabble", c.ClockSettings(idle_kick_after=Duration(seconds=7200)),
         "settings.options.clock.idle_kick_after"),
        ("classic", c.ClockSettings(idle_kick_after=Duration(seconds=1800)),
         "settings.options.clock.idle_kick_after"),
        ("scrabble", c.ClockSettings(per_player=Duration(seconds=91 * 60)),
         "settings.options.clock.per_player"),
    ],
)
async def test_a_bad_clock_is_refused_naming_the_field(
        env: LobbyEnv, ruleset: str, clock: c.ClockSettings, field: str) -> None:
    _, meta = await env.guest()
    settings = lobby_pb2.TableSettings(ruleset=c.RulesetRef(ruleset_id=ruleset), seats=2,
                                       options=c.MatchOptions(clock=clock))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
            settings=settings, request_id=uuid.uuid4().hex), metadata=meta)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert detail(err.value, errors_pb2.LobbyViolation).field == field
    listed = await env.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=meta)
    assert not listed.tables


async def test_a_table_keeps_its_chosen_turn_deadline(env: LobbyEnv) -> None:
    _, meta = await env.guest("Dora")
    clock = c.ClockSettings(idle_kick_after=Duration(seconds=12 * 3600))
    table = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=c.RulesetRef(ruleset_id="warofwords"), seats=2,
                                         options=c.MatchOptions(clock=clock)),
        request_id=uuid.uuid4().hex), metadata=meta)).table
    assert table.settings.options.clock.idle_kick_after.seconds == 12 * 3600
