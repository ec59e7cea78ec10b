"""The match server over gRPC-Web (``--web-listen``), real HTTP on loopback: a whole match played
through it, its stream resumed by seq and compared message for message with the native stream,
refusals answered with the native call's very ``google.rpc.Status``, the metrics counting the
web calls, and CORS (same-origin by default, an allow-list otherwise)."""

from __future__ import annotations

import asyncio
import re
import urllib.request
import uuid

import grpc
import httpx
import pytest
from grpc_status import rpc_status
from grpcweb import GrpcWebError, frame, headers, stream, unary
from match_harness import Harness, client_move, pass_move

from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

SVC = "/wordarena.v1.MatchService/"


def base(srv: object) -> str:
    return f"http://127.0.0.1:{srv.grpc.web_port}"  # type: ignore[attr-defined]


async def test_a_match_played_over_grpc_web_streams_what_native_grpc_streams(
        harness: Harness, http: httpx.AsyncClient) -> None:
    srv = await harness.start(web_listen="127.0.0.1:0")
    mid = await harness.create(srv, seed=11)
    tokens = {p: harness.keys.issue(p, p.title(), 3600) for p in ("alice", "bob")}
    url = base(srv)
    bob_native = harness.player(srv, "bob")
    web_seen: list[bytes] = []
    done = asyncio.Event()

    async def follow_over_web() -> None:
        """Bob's stream over gRPC-Web, dropped after a few events and resumed by seq."""
        last, cut_after = 0, 3
        while True:
            n = 0
            async for msg in stream(http, url, SVC + "StreamMatch", m.StreamMatchRequest(
                    match_id=mid, after_seq=last), m.StreamMatchResponse, tokens["bob"]):
                if msg.event.HasField("heartbeat"):
                    continue
                web_seen.append(msg.SerializeToString())
                last = msg.event.seq
                n += 1
                if msg.event.HasField("game_over"):
                    done.set()
                    return
                if n >= cut_after:
                    break

    follower = asyncio.create_task(follow_over_web())
    for turn in range(60):
        view = (await unary(http, url, SVC + "GetMatch", m.GetMatchRequest(match_id=mid),
                            m.GetMatchResponse, tokens["alice"])).match
        if not view.HasField("to_move_seat"):
            break
        who = ("alice", "bob")[view.to_move_seat]
        view = (await unary(http, url, SVC + "GetMatch", m.GetMatchRequest(match_id=mid),
                            m.GetMatchResponse, tokens[who])).match
        move = client_move(view) if turn < 6 else c.Move(resign=c.ResignMove())
        answer = await unary(http, url, SVC + "SubmitTurn", m.SubmitTurnRequest(
            match_id=mid, move=move, expected_seq=view.last_seq, request_id=uuid.uuid4().hex),
            m.SubmitTurnResponse, tokens[who])
        assert answer.last_seq > view.last_seq
    await asyncio.wait_for(done.wait(), 30)
    await follower
    final = await bob_native.view(mid)
    assert final.status == m.MATCH_STATUS_FINISHED
    seqs = [m.StreamMatchResponse.FromString(b).event.seq for b in web_seen]
    assert seqs == list(range(1, final.last_seq + 1))  # every event once, across the resumptions
    native = [msg.SerializeToString() async for msg in bob_native.stub.StreamMatch(
        m.StreamMatchRequest(match_id=mid), metadata=bob_native.md)]
    assert web_seen == native  # byte for byte what the native stream sends bob (his rack only)


async def test_refusals_over_grpc_web_carry_the_native_status(harness: Harness,
                                                               http: httpx.AsyncClient) -> None:
    srv = await harness.start(web_listen="127.0.0.1:0")
    mid = await harness.create(srv, seed=3)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    waiting = (alice, bob)[1 - view.to_move_seat]
    token = harness.keys.issue(waiting.player_id, waiting.player_id.title(), 3600)
    url = base(srv)

    # Not this player's turn: the same RuleViolation over both paths.
    request = m.SubmitTurnRequest(match_id=mid, move=pass_move(), expected_seq=view.last_seq,
                                  request_id=uuid.uuid4().hex)
    with pytest.raises(grpc.aio.AioRpcError) as native:
        await waiting.stub.SubmitTurn(request, metadata=waiting.md)
    request.request_id = uuid.uuid4().hex
    with pytest.raises(GrpcWebError) as web:
        await unary(http, url, SVC + "SubmitTurn", request, m.SubmitTurnResponse, token)
    expected = rpc_status.from_call(native.value)
    assert expected is not None and expected.details
    assert web.value.code == native.value.code().value[0] == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert web.value.status == expected
    assert any(isinstance(d, e.RuleViolation) for d in web.value.details())

    # A seq the match never had: INVALID_ARGUMENT with a BadRequest, again the native status.
    request = m.SubmitTurnRequest(match_id=mid, move=pass_move(), expected_seq=view.last_seq + 9,
                                  request_id=uuid.uuid4().hex)
    with pytest.raises(grpc.aio.AioRpcError) as native:
        await waiting.stub.SubmitTurn(request, metadata=waiting.md)
    with pytest.raises(GrpcWebError) as web:
        await unary(http, url, SVC + "SubmitTurn", request, m.SubmitTurnResponse, token)
    assert web.value.status == rpc_status.from_call(native.value)
    assert web.value.message == native.value.details()

    # No token, a forged one: UNAUTHENTICATED, for a unary call and a stream.
    for bad in (None, "forged"):
        with pytest.raises(GrpcWebError) as web:
            await unary(http, url, SVC + "GetMatch", m.GetMatchRequest(match_id=mid), m.GetMatchResponse, bad)
        assert web.value.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
        with pytest.raises(GrpcWebError) as web:
            async for _ in stream(http, url, SVC + "StreamMatch", m.StreamMatchRequest(match_id=mid),
                                  m.StreamMatchResponse, bad):
                pytest.fail("a stream without a valid token sent a message")
        assert web.value.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
    # The internal service is not on the web port.
    r = await http.post(url + "/wordarena.v1.MatchControlService/GetLoad", content=b"\0\0\0\0\0",
                        headers={"content-type": "application/grpc-web+proto"})
    assert r.status_code == 404
    # The token travels in the header only: one in the URL is not read.
    with pytest.raises(GrpcWebError) as web:
        await unary(http, url, SVC + "GetMatch?authorization=Bearer%20" + token,
                    m.GetMatchRequest(match_id=mid), m.GetMatchResponse)
    assert web.value.code == grpc.StatusCode.UNAUTHENTICATED.value[0]


def _handled(port: int, method: str, code: str) -> float:
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    pattern = r'grpc_server_handled_total\{grpc_code="CODE",grpc_method="METHOD",[^}]*\} (\S+)'
    found = re.search(pattern.replace("CODE", code).replace("METHOD", method), body)
    return float(found.group(1)) if found else 0.0


async def test_web_calls_are_counted_by_the_servers_metrics(harness: Harness,
                                                             http: httpx.AsyncClient) -> None:
    srv = await harness.start(web_listen="127.0.0.1:0")
    mid = await harness.create(srv)
    token = harness.keys.issue("alice", "Alice", 3600)
    port = srv.grpc.metrics_port
    ok = await asyncio.to_thread(_handled, port, "GetMatch", "OK")
    refused = await asyncio.to_thread(_handled, port, "GetMatch", "NOT_FOUND")
    for _ in range(3):
        await unary(http, base(srv), SVC + "GetMatch", m.GetMatchRequest(match_id=mid),
                    m.GetMatchResponse, token)
    with pytest.raises(GrpcWebError):
        await unary(http, base(srv), SVC + "GetMatch", m.GetMatchRequest(match_id="nope"),
                    m.GetMatchResponse, token)
    assert await asyncio.to_thread(_handled, port, "GetMatch", "OK") == ok + 3
    assert await asyncio.to_thread(_handled, port, "GetMatch", "NOT_FOUND") == refused + 1


async def test_cors_is_same_origin_unless_an_origin_is_allowed(harness: Harness,
                                                                http: httpx.AsyncClient) -> None:
    closed = await harness.start(web_listen="127.0.0.1:0")
    opened = await harness.start(web_listen="127.0.0.1:0", web_origins="https://play.example.org")
    mid = await harness.create(closed)
    token = harness.keys.issue("alice", "Alice", 3600)
    preflight = {"origin": "https://play.example.org", "access-control-request-method": "POST",
                 "access-control-request-headers": "authorization,content-type,x-grpc-web"}

    # By default a foreign page is refused: the preflight and the call itself.
    r = await http.options(base(closed) + SVC + "GetMatch", headers=preflight)
    assert r.status_code == 403 and "access-control-allow-origin" not in r.headers
    with pytest.raises(AssertionError, match="403"):
        await unary(http, base(closed), SVC + "GetMatch", m.GetMatchRequest(match_id=mid),
                    m.GetMatchResponse, token, origin="https://play.example.org")
    # The page's own origin needs no list.
    own = base(closed)
    got = await unary(http, own, SVC + "GetMatch", m.GetMatchRequest(match_id=mid), m.GetMatchResponse,
                      token, origin=own)
    assert got.match.match_id == mid

    # An allowed origin: the preflight is answered, the call carries the headers a page reads.
    r = await http.options(base(opened) + SVC + "GetMatch", headers=preflight)
    assert r.status_code == 204
    assert r.headers["access-control-allow-origin"] == "https://play.example.org"
    assert "POST" in r.headers["access-control-allow-methods"]
    allowed = {h.strip() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "x-grpc-web", "grpc-timeout"} <= allowed
    r = await http.post(base(opened) + SVC + "GetMatch", content=b"\0\0\0\0\0",
                        headers={"content-type": "application/grpc-web+proto",
                                 "origin": "https://play.example.org", "authorization": f"Bearer {token}"})
    assert r.headers["access-control-allow-origin"] == "https://play.example.org"
    exposed = {h.strip() for h in r.headers["access-control-expose-headers"].split(",")}
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed
    r = await http.options(base(opened) + SVC + "GetMatch",
                           headers=preflight | {"origin": "https://evil.example.org"})
    assert r.status_code == 403


async def test_the_web_port_takes_no_more_connections_at_once_than_max_connections(
        harness: Harness) -> None:
    """``--max-connections`` bounds the web port as it bounds the native one: with two streams
    held open, a third connection is answered 503, and is served once a stream has ended."""
    srv = await harness.start(web_listen="127.0.0.1:0", max_connections=2)
    mid = await harness.create(srv, seed=11)
    token = harness.keys.issue("alice", "Alice", 3600)
    url = base(srv)
    request = m.GetMatchRequest(match_id=mid)
    held = [httpx.AsyncClient(timeout=30) for _ in range(2)]
    streams = []
    try:
        for client in held:  # each its own connection, each with a stream open on it
            call = client.stream("POST", url + SVC + "StreamMatch", headers=headers(token),
                                 content=frame(m.StreamMatchRequest(match_id=mid, after_seq=0)))
            response = await call.__aenter__()
            assert response.status_code == 200
            streams.append(call)
        async with httpx.AsyncClient(timeout=30) as third:
            refused = await third.post(url + SVC + "GetMatch", content=frame(request), headers=headers(token))
            assert refused.status_code == 503
        await streams.pop().__aexit__(None, None, None)
        await held[1].aclose()
        async with httpx.AsyncClient(timeout=30) as third:
            answer = await unary(third, url, SVC + "GetMatch", request, m.GetMatchResponse, token)
            assert answer.match.match_id == mid
    finally:
        for call in streams:
            await call.__aexit__(None, None, None)
        for client in held:
            await client.aclose()
