"""The lobby over gRPC-Web (``--web-listen``), real HTTP on loopback: sign-ins under the same
per-address limit as native calls, a refused CreateTable with the native call's very
``google.rpc.Status``, WatchTables streaming a table created natively, and the static files and
``/config.json`` of the web port."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from grpcweb import GrpcWebError, stream, unary
from lobby_harness import LobbyEnv, start_lobby, stop_lobby

from wordarena.v1 import common_pb2, lobby_pb2

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

SVC = "/wordarena.v1.LobbyService/"
BURST = 3


@pytest.fixture
async def web(database_url: str, tmp_path: Path) -> AsyncIterator[tuple[LobbyEnv, str]]:
    """A lobby with a web port serving a directory of its own, and that port's URL."""
    root = tmp_path / "site"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("<h1>the page</h1>")
    (root / "js" / "app.js").write_text("console.log(1)")
    (tmp_path / "secret.txt").write_text("not for the web")
    e = await start_lobby(database_url, tmp_path / "data", web_listen="127.0.0.1:0",
                          web_extra={"web_root": str(root),
                                     "web_match_urls": "10.1.2.3:50052=https://m1.example.org"},
                          guest_sign_in_burst=BURST)
    yield e, f"http://127.0.0.1:{e.server.web_port}"  # type: ignore[attr-defined]
    await stop_lobby(e)


def _guest() -> lobby_pb2.SignInGuestRequest:
    return lobby_pb2.SignInGuestRequest(display_name=f"g{uuid.uuid4().hex[:8]}")


async def test_sign_ins_over_grpc_web_count_against_the_same_address_limit(
        web: tuple[LobbyEnv, str]) -> None:
    env, url = web
    async with httpx.AsyncClient(timeout=30) as http:
        for _ in range(BURST):
            answer = await unary(http, url, SVC + "SignInGuest", _guest(), lobby_pb2.SignInGuestResponse)
            assert answer.token.token
        with pytest.raises(GrpcWebError) as refused:
            await unary(http, url, SVC + "SignInGuest", _guest(), lobby_pb2.SignInGuestResponse)
    assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    assert any(isinstance(d, error_details_pb2.RetryInfo) for d in refused.value.details())
    # the browser's address is the native client's (loopback): its bucket is empty there too
    with pytest.raises(grpc.aio.AioRpcError) as native:
        await env.stub.SignInGuest(_guest())
    assert native.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_a_refused_create_table_carries_the_native_status_and_watch_tables_streams(
        web: tuple[LobbyEnv, str]) -> None:
    env, url = web
    async with httpx.AsyncClient(timeout=30) as http:
        guest = await unary(http, url, SVC + "SignInGuest", _guest(), lobby_pb2.SignInGuestResponse)
        token = guest.token.token
        md = (("authorization", f"Bearer {token}"),)
        bad = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=3)
        with pytest.raises(grpc.aio.AioRpcError) as native:
            await env.stub.CreateTable(
                lobby_pb2.CreateTableRequest(settings=bad, request_id=uuid.uuid4().hex), metadata=md)
        with pytest.raises(GrpcWebError) as over_web:
            await unary(http, url, SVC + "CreateTable",
                        lobby_pb2.CreateTableRequest(settings=bad, request_id=uuid.uuid4().hex),
                        lobby_pb2.CreateTableResponse, token)
        expected = rpc_status.from_call(native.value)
        assert expected is not None and len(expected.details) >= 2  # LobbyViolation, BadRequest
        assert over_web.value.status == expected
        with pytest.raises(GrpcWebError) as unauthenticated:
            await unary(http, url, SVC + "CreateTable",
                        lobby_pb2.CreateTableRequest(settings=bad, request_id=uuid.uuid4().hex),
                        lobby_pb2.CreateTableResponse)
        assert unauthenticated.value.code == grpc.StatusCode.UNAUTHENTICATED.value[0]

        good = lobby_pb2.TableSettings(ruleset=common_pb2.RulesetRef(ruleset_id="classic"), seats=2)
        created: list[str] = []
        seen: list[tuple[int, str]] = []

        async def watch() -> None:
            async for change in stream(http, url, SVC + "WatchTables", lobby_pb2.WatchTablesRequest(),
                                       lobby_pb2.WatchTablesResponse, token):
                seen.append((change.kind, change.table.table_id))
                if change.kind == lobby_pb2.TABLE_CHANGE_KIND_SYNCED:
                    table = await env.stub.CreateTable(lobby_pb2.CreateTableRequest(
                        settings=good, request_id=uuid.uuid4().hex), metadata=md)
                    created.append(table.table.table_id)
                elif change.table.table_id in created:
                    return

        await asyncio.wait_for(watch(), 30)
    assert seen[0] == (lobby_pb2.TABLE_CHANGE_KIND_SYNCED, "")
    assert seen[-1] == (lobby_pb2.TABLE_CHANGE_KIND_OPENED, created[0])


async def test_the_web_port_serves_its_files_and_config_and_nothing_outside(
        web: tuple[LobbyEnv, str]) -> None:
    _, url = web
    async with httpx.AsyncClient(timeout=30) as http:
        r = await http.get(url + "/")
        assert r.status_code == 200 and r.text == "<h1>the page</h1>"
        assert r.headers["content-type"] == "text/html; charset=utf-8"
        r = await http.get(url + "/js/app.js")
        assert r.status_code == 200 and r.text == "console.log(1)"
        assert "javascript" in r.headers["content-type"]
        r = await http.get(url + "/config.json")
        assert r.json() == {"match_servers": {"10.1.2.3:50052": "https://m1.example.org"}}
        for path in ("/%2e%2e/secret.txt", "/js/%2e%2e/%2e%2e/secret.txt", "/missing.html"):
            r = await http.get(url + path)
            assert r.status_code == 404, path
            assert "not for the web" not in r.text
        # the Connect protocol (binary): the message as the body, no frames
        r = await http.post(url + SVC + "ListRulesets",
                            content=lobby_pb2.ListRulesetsRequest().SerializeToString(),
                            headers={"content-type": "application/proto", "connect-protocol-version": "1"})
        assert r.status_code == 200 and r.headers["content-type"] == "application/proto"
        rulesets = lobby_pb2.ListRulesetsResponse.FromString(r.content).rulesets
        assert "classic" in {x.ruleset_id for x in rulesets}
        r = await http.post(url + "/wordarena.v1.MatchRegistryService/Heartbeat", content=b"\0\0\0\0\0",
                            headers={"content-type": "application/grpc-web+proto"})
        assert r.status_code == 404  # the internal services are not on the web port


async def test_config_json_lists_the_web_url_each_match_server_registered(
    web: tuple[LobbyEnv, str], http: httpx.AsyncClient
) -> None:
    """A match server tells the lobby where browsers reach it (RegisterMatchServerRequest.web_url,
    its advertised host and web port by default); the lobby's /config.json lists it under its
    gRPC address — no flag needed, so a deployment's page finds every match server — and an
    operator's --web-match-urls entry stays. The URL answers gRPC-Web."""
    from lobby_harness import start_real_match_server, stop_real_match_server

    env, url = web
    srv = await start_real_match_server(env, web_listen="127.0.0.1:0")
    try:
        servers = (await http.get(url + "/config.json")).json()["match_servers"]
        here = f"127.0.0.1:{srv.port}"
        assert servers == {here: f"http://127.0.0.1:{srv.grpc.web_port}",
                           "10.1.2.3:50052": "https://m1.example.org"}
        r = await http.post(servers[here] + "/grpc.health.v1.Health/Check", content=b"\0\0\0\0\0",
                            headers={"content-type": "application/grpc-web+proto"})
        assert r.status_code == 200 and b"grpc-status:0" in r.content.replace(b" ", b"")
    finally:
        await stop_real_match_server(srv)


async def test_a_match_server_web_url_must_be_an_http_url(web: tuple[LobbyEnv, str]) -> None:
    from wordarena.v1 import control_pb2

    env, _ = web
    for bad in ("ftp://x.org/", "javascript:alert(1)", "http:///nohost", "https://x.org/?q=1",
                "http://" + "a" * 260 + ".org/"):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await env.registry.RegisterMatchServer(control_pb2.RegisterMatchServerRequest(
                server_id="ms-bad", address="127.0.0.1:1", web_url=bad), metadata=env.service_md)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, bad
