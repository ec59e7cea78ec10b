"""Promises of match.proto / errors.proto / common.proto that a client relies on, each driven
through real gRPC on loopback as a client sees it: its stream, GetMatch, and the error's status
and details (never the server's internals)."""

from __future__ import annotations

import asyncio
import logging
import urllib.request
import uuid
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_helpers import refused
from match_harness import Harness, Player, engine_move, pass_move

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m


async def _chat(p: Player, mid: str, text: str = "hello") -> c.Event:
    r = await p.stub.SendChat(m.SendChatRequest(match_id=mid, request_id=uuid.uuid4().hex, text=text),
                              metadata=p.md)
    return r.event


# --- 1. chat never makes a turn stale ---------------------------------------------------------


async def test_a_chat_after_the_seq_a_player_saw_does_not_make_the_turn_stale(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    seen = (await alice.view(mid)).last_seq
    chat = await _chat(bob, mid)
    assert chat.seq == seen + 1
    r = await alice.submit(mid, pass_move(), seen)
    assert r.events[0].HasField("turn_passed")
    # The chat's seq itself (the latest seq Alice has seen) is as good.
    await _chat(alice, mid)
    view = await bob.view(mid)
    r = await bob.submit(mid, pass_move(), view.last_seq)
    assert r.events[0].HasField("turn_passed")


async def test_match_view_game_seq_is_the_seq_of_the_last_event_that_changed_the_game(
        harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    passed = await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    turn_seq = passed.events[-1].seq
    chats = [await _chat(bob, mid, f"c{k}") for k in range(3)]
    view = await bob.view(mid)
    assert view.game_seq == turn_seq
    assert view.last_seq == chats[-1].seq
    # Anything older than game_seq is stale: StaleSeq says where the game is.
    err = await refused(bob.submit(mid, pass_move(), turn_seq - 1))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    stale = detail(err, e.StaleSeq)
    assert (stale.expected_seq, stale.game_seq, stale.current_seq) == (turn_seq - 1, turn_seq, view.last_seq)


async def test_a_chat_flood_delays_a_scripted_players_turns_by_no_round_trip(harness: Harness) -> None:
    srv = await harness.start(chat_rate=1000.0, chat_burst=1000, chat_per_match=100000)
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    flooder = harness.player(srv, "bob")
    sent = 0
    stop = asyncio.Event()

    async def flood() -> None:
        nonlocal sent
        while not stop.is_set():
            await _chat(flooder, mid, "spam")
            sent += 1

    task = asyncio.create_task(flood())
    try:
        for turn in range(4):  # each player: GetMatch, then one SubmitTurn, which must be accepted
            p = (alice, bob)[turn % 2]
            view = await p.view(mid)
            await asyncio.sleep(0.01)  # the flood goes on between the player's read and its turn
            r = await p.submit(mid, pass_move(), view.last_seq)
            assert r.events[0].HasField("turn_passed")
    finally:
        stop.set()
        await task
    assert sent >= 4


async def test_a_heartbeats_seq_is_a_good_expected_seq(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    await _chat(bob, mid)
    call = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=alice.md)
    try:
        while not (msg := await call.read()).event.HasField("heartbeat"):
            pass
    finally:
        call.cancel()
    r = await alice.submit(mid, pass_move(), msg.event.seq)
    assert r.events[0].HasField("turn_passed")


# --- 3. a spectator submitting a turn ----------------------------------------------------------


async def test_a_spectator_submitting_a_turn_is_told_it_has_no_seat(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, spectators_allowed=True)
    carol = harness.player(srv, "carol")
    view = await carol.view(mid)  # spectators are allowed
    assert not view.HasField("viewer_seat")
    err = await refused(carol.submit(mid, pass_move(), view.last_seq))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "no spectators" not in (err.details() or "")
    assert "spectator" in (err.details() or "")
    v = detail(err, e.RuleViolation)
    assert v is not None and v.code == e.RULE_CODE_NOT_YOUR_SEAT and v.code_name == "NOT_YOUR_SEAT"


async def test_an_outsider_of_a_match_without_spectators_gets_not_your_seat(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    carol = harness.player(srv, "carol")
    err = await refused(carol.view(mid))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "no spectators" in (err.details() or "")
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_NOT_YOUR_SEAT


# --- 4. TilesDrawn retired; viewer_rack only when the event changed the rack -------------------


def test_tiles_drawn_is_retired_with_its_field_number_and_name_reserved() -> None:
    ev = c.Event.DESCRIPTOR
    assert "tiles_drawn" not in ev.fields_by_name
    from google.protobuf import descriptor_pb2

    proto = descriptor_pb2.DescriptorProto()
    ev.CopyToProto(proto)
    assert any(r.start <= 24 < r.end for r in proto.reserved_range)
    assert "tiles_drawn" in proto.reserved_name


async def test_viewer_rack_is_set_only_on_events_that_changed_the_viewers_rack(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=11)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    events: list[c.Event] = []

    async def follow() -> None:
        async for msg in alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=alice.md):
            if not msg.event.HasField("heartbeat"):
                events.append(msg.event)

    reader = asyncio.create_task(follow())
    rt = srv.manager.matches[mid]  # only to pick legal moves, as a client's own move generator would
    for _ in range(200):
        view = await alice.view(mid)
        if view.status == m.MATCH_STATUS_FINISHED:
            break
        p = (alice, bob)[view.to_move_seat]
        await p.submit(mid, engine_move(rt.state, view.to_move_seat), view.last_seq)
    await asyncio.wait_for(reader, 10)
    assert events[-1].HasField("game_over")
    rack: list[tuple[str, bool]] = []
    for ev in events:
        kind = ev.WhichOneof("kind")
        mine = {"turn_played": ev.turn_played.seat, "tiles_exchanged": ev.tiles_exchanged.seat}.get(kind)
        if kind == "match_started" or mine == 0:
            assert ev.HasField("viewer_rack"), ev
            rack = [(t.letter, t.is_blank) for t in ev.viewer_rack.tiles]
        else:
            assert not ev.HasField("viewer_rack"), f"{kind} at seq {ev.seq} repeats the rack {rack}"
    assert events[-1].game_over.final_scores


# --- 5. a request id reused across methods -----------------------------------------------------


async def test_a_request_id_reused_for_another_method_is_refused_with_its_own_rule_code(
        harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    await alice.stub.SendChat(m.SendChatRequest(match_id=mid, request_id="rid-1", text="hi"),
                              metadata=alice.md)
    view = await alice.view(mid)
    err = await refused(alice.submit(mid, pass_move(), view.last_seq, request_id="rid-1"))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    v = detail(err, e.RuleViolation)
    assert v.code == e.RULE_CODE_REQUEST_ID_REUSED and v.code_name == "REQUEST_ID_REUSED"
    assert (await alice.view(mid)).game_seq == view.game_seq  # nothing changed


async def test_a_refused_requests_id_is_not_kept_and_may_be_sent_again(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await bob.view(mid)
    err = await refused(bob.submit(mid, pass_move(), view.last_seq, request_id="bob-1"))
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_NOT_YOUR_TURN
    await alice.submit(mid, pass_move(), view.last_seq)
    r = await bob.submit(mid, pass_move(), (await bob.view(mid)).last_seq, request_id="bob-1")
    assert r.events[0].turn_passed.seat == 1


# --- 6. expected_seq omitted, or ahead of the match -------------------------------------------


async def test_an_omitted_expected_seq_is_invalid_argument_naming_the_field(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    err = await refused(alice.submit(mid, pass_move(), 0))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    bad = detail(err, error_details_pb2.BadRequest)
    assert [f.field for f in bad.field_violations] == ["expected_seq"]
    assert detail(err, e.StaleSeq) is None and "stale" not in (err.details() or "")


async def test_an_omitted_expected_seq_in_decide_pending_is_invalid_argument(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles")
    bob = harness.player(srv, "bob")
    err = await refused(bob.stub.DecidePending(m.DecidePendingRequest(
        match_id=mid, request_id="d1", decision=m.DECISION_ACCEPT), metadata=bob.md))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert detail(err, error_details_pb2.BadRequest).field_violations[0].field == "expected_seq"


async def test_an_expected_seq_ahead_of_the_match_is_its_own_case(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    err = await refused(alice.submit(mid, pass_move(), view.last_seq + 5))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert detail(err, e.StaleSeq) is None
    assert "ahead" in (err.details() or "") and "stale" not in (err.details() or "")
    bad = detail(err, error_details_pb2.BadRequest)
    assert bad.field_violations[0].field == "expected_seq"
    assert str(view.last_seq) in bad.field_violations[0].description
    assert (await alice.view(mid)).last_seq == view.last_seq


# --- 8. a stream the client cancels is CANCELLED, not an error ---------------------------------


async def test_a_stream_ended_by_the_client_counts_cancelled_and_logs_no_error(
        harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    srv = await harness.start(chat_rate=1e6, chat_burst=100000, chat_per_match=100000, heartbeat_seconds=0.05)
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    caplog.set_level(logging.INFO)
    before = await _stream_handled(srv.grpc.metrics_port)
    open_before = await _metric(srv.grpc.metrics_port, "wordarena_stream_subscribers")
    stop = asyncio.Event()

    async def flood() -> None:  # events keep coming while the clients go away
        while not stop.is_set():
            await _chat(alice, mid, "x" * 400)

    task = asyncio.create_task(flood())
    streams = 20
    try:
        for k in range(streams):
            ch = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}")
            bob = Player(ch, harness.keys.issue("bob", "Bob", 60), "bob")
            call = bob.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=bob.md)
            for _ in range(1 + k % 7):
                await call.read()
            if k % 2:
                call.cancel()  # the client cancels its call
            await ch.close()  # and closes its socket
    finally:
        stop.set()
        await task
    # Each stream is counted when the server has finished it: wait until all are, then look at
    # how (the codes), rather than sleeping and hoping they were.
    async with asyncio.timeout(20):
        while sum((after := await _stream_handled(srv.grpc.metrics_port)).values()) < (
                sum(before.values()) + streams):
            await asyncio.sleep(0.05)
    grown = {code: n - before.get(code, 0.0) for code, n in after.items() if n != before.get(code, 0.0)}
    assert grown == {"CANCELLED": float(streams)}, grown
    assert await _metric(srv.grpc.metrics_port, "wordarena_stream_subscribers") <= open_before
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def _metric(port: int, name: str) -> float:
    body = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode())
    return sum(float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
               if line.startswith(name + " ") or line.startswith(name + "{"))


async def _stream_handled(port: int) -> dict[str, float]:
    """grpc_server_handled_total of StreamMatch by grpc_code, from /metrics as Prometheus reads it."""
    body = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode())
    out: dict[str, float] = {}
    for line in body.splitlines():
        if line.startswith("grpc_server_handled_total{") and 'grpc_method="StreamMatch"' in line:
            code = line.split('grpc_code="', 1)[1].split('"', 1)[0]
            out[code] = out.get(code, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


# --- a stream ends after GameOver, also when the client already has it ------------------------

async def test_a_stream_of_a_finished_match_after_its_game_over_ends_at_once(harness: Harness) -> None:
    """"The stream ends after GameOver has been sent": a client reconnecting with the seq of
    the GameOver it already has (nothing can follow it: no chat after the end) gets the stream
    ended with OK at once, not heartbeats for ever."""
    srv = await harness.start()
    alice = harness.player(srv, "alice")
    mid = await harness.create(srv)
    view = await alice.view(mid)
    await alice.stub.SubmitTurn(m.SubmitTurnRequest(
        match_id=mid, expected_seq=view.last_seq, request_id=uuid.uuid4().hex,
        move=c.Move(resign=c.ResignMove())), metadata=alice.md)
    last = (await alice.view(mid)).last_seq
    everything = [msg async for msg in alice.stub.StreamMatch(
        m.StreamMatchRequest(match_id=mid), metadata=alice.md)]
    assert everything[-1].event.WhichOneof("kind") == "game_over"
    call = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=last),
                                  metadata=alice.md)
    after = await asyncio.wait_for(_read_all(call), timeout=5)
    assert after == []
    assert await call.code() == grpc.StatusCode.OK


async def _read_all(call: Any) -> list[Any]:
    return [msg async for msg in call]
