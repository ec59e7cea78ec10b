"""A match server that heartbeats but answers nothing (hung) does not stall allocation: the lobby
gives CreateMatch a short deadline while another server could take the match, tries the next,
and tries the hung one last for a while after."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from lobby_harness import LobbyEnv, start_fake_match_server

from wordarena.v1 import common_pb2, lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def _start_a_table(env: LobbyEnv) -> tuple[lobby_pb2.StartTableResponse, float]:
    _, md = await env.guest()
    settings = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2,
                                       start_policy=lobby_pb2.START_POLICY_HOST)
    table = (await env.stub.CreateTable(lobby_pb2.CreateTableRequest(settings=settings,
                                                                     request_id=uuid.uuid4().hex),
                                        metadata=md)).table
    await env.stub.SitBot(lobby_pb2.SitBotRequest(table_id=table.table_id, bot_level=1,
                                                  request_id=uuid.uuid4().hex), metadata=md)
    start = time.monotonic()
    started = await env.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table.table_id,
                                                                    request_id=uuid.uuid4().hex),
                                        metadata=md, timeout=30)
    return started, time.monotonic() - start


@pytest.mark.alone  # the allocations' times are asserted
async def test_a_hung_match_server_costs_one_short_wait_then_is_tried_last(env: LobbyEnv) -> None:
    never = asyncio.Event()
    # Fakes: a real match server cannot be made to hang inside CreateMatch.
    # The hung server is the least loaded, so it is the lobby's first choice.
    hung, hung_server = await start_fake_match_server(env, never, server_id="ms-hung", active=0)
    good, good_server = await start_fake_match_server(env, server_id="ms-good", active=50)
    try:
        first, took = await _start_a_table(env)
        assert first.assignment.address == good.address
        assert hung.entered.is_set(), "the hung server was asked first"
        assert took < env.lobby.opt.create_match_timeout_s / 2, f"allocation waited {took:.1f} s"
        second, took = await _start_a_table(env)
        assert second.assignment.address == good.address
        assert took < 1.0, f"the hung server was asked again first ({took:.1f} s)"
    finally:
        never.set()
        await hung_server.stop(0)
        await good_server.stop(0)
