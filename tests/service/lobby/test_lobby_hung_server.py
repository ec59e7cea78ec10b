"""A match server that heartbeats but answers nothing (hung) does not stall allocation: the lobby
gives CreateMatch a short deadline while another server could take the match, tries the next,
and tries the hung one last for a while after."""

from __future__ import annotations

import asyncio
import time
import uuid

import grpc
import pytest
from lobby_harness import FakeMatchServer, LobbyEnv

from wordarena.v1 import common_pb2, control_pb2, control_pb2_grpc, lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def _register(env: LobbyEnv, server_id: str, active: int,
                    hold: asyncio.Event | None = None) -> tuple[FakeMatchServer, grpc.aio.Server]:
    fake = FakeMatchServer(env.lobby.keys, hold=hold)
    server = grpc.aio.server()
    control_pb2_grpc.add_MatchControlServiceServicer_to_server(fake, server)
    fake.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    await server.start()
    await env.registry.RegisterMatchServer(
        control_pb2.RegisterMatchServerRequest(
            server_id=server_id, address=fake.address,
            load=control_pb2.ServerLoad(active_matches=active, capacity=100)),
        metadata=env.service_md)
    return fake, server


async def _start_a_table(env: LobbyEnv) -> tuple[lobby_pb2.StartTableResponse, float]:
    token = (await env.stub.SignInGuest(lobby_pb2.SignInGuestRequest(
        display_name=f"g{uuid.uuid4().hex[:10]}"))).token.token
    md = (("authorization", f"Bearer {token}"),)
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


async def test_a_hung_match_server_costs_one_short_wait_then_is_tried_last(env: LobbyEnv) -> None:
    never = asyncio.Event()
    # The hung server is the least loaded, so it is the lobby's first choice.
    hung, hung_server = await _register(env, "ms-hung", active=0, hold=never)
    good, good_server = await _register(env, "ms-good", active=50)
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
