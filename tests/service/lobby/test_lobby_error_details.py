"""The lobby attaches only the error details protos/README.md documents for each RPC, read from
real refusals over loopback gRPC (malformed text in every field, domain refusals, throttling)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import grpc
import pytest
from lobby_harness import LobbyEnv
from test_lobby_hardening import call_rpc, cases, set_field, string_paths

from wordarena.services.common.errors import details_of
from wordarena.v1 import common_pb2, lobby_pb2

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "protos"))
from test_error_details_doc import documented_details

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_refusals_carry_only_the_documented_details(env: LobbyEnv) -> None:
    documented = documented_details()
    seen: dict[str, set[str]] = {}

    async def refused(method: str, coro: object) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await coro  # type: ignore[misc]
        names = {d.DESCRIPTOR.full_name for d in details_of(ei.value)}
        service = "LobbyService" if f"LobbyService.{method}" in documented else None
        if service is None:
            return  # the internal registry service is not in the client's table
        seen.setdefault(method, set()).update(names)
        assert names <= documented[f"LobbyService.{method}"], (method, ei.value.code(), names)

    name = f"g{uuid.uuid4().hex[:8]}"
    _, md = await env.guest(name)
    table = await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
        settings=lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2),
        request_id=uuid.uuid4().hex), metadata=md)
    for method, make, who in cases(table.table.table_id):
        caller = {"none": (), "guest": md, "service": env.service_md}[who]
        for path in string_paths(make()):
            request = make()
            set_field(request, path, "a\x00b")
            await refused(method, call_rpc(env, method, request, caller))
    # domain refusals
    bad_seats = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=3)
    await refused("CreateTable", env.stub.CreateTable(
        lobby_pb2.CreateTableRequest(settings=bad_seats, request_id=uuid.uuid4().hex), metadata=md))
    await refused("JoinTable", env.stub.JoinTable(
        lobby_pb2.JoinTableRequest(table_id="nope", request_id=uuid.uuid4().hex), metadata=md))
    await refused("DescribeRuleset", env.stub.DescribeRuleset(
        lobby_pb2.DescribeRulesetRequest(ruleset=common_pb2.RulesetRef(ruleset_id="chess"))))
    await env.stub.ClaimAccount(lobby_pb2.ClaimAccountRequest(password="correct-horse"), metadata=md)
    for _ in range(6):
        await refused("SignIn", env.stub.SignIn(
            lobby_pb2.SignInRequest(name=name, password="wrong-password")))
    assert "google.rpc.RetryInfo" in seen["SignIn"]
    assert "google.rpc.BadRequest" in seen["CreateTable"]
    assert "wordarena.v1.LobbyViolation" in seen["JoinTable"]
