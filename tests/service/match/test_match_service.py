"""MatchService and MatchControl over real gRPC on loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
import urllib.request

import grpc
import pytest
from match_harness import SERVICE_TOKEN, Harness, engine_move, pass_move, play_move
from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

SVC = [("authorization", f"Bearer {SERVICE_TOKEN}")]


async def test_create_match_control_auth_and_idempotency(harness: Harness) -> None:
    srv = await harness.start()
    control = harness.control(srv)
    req = ctl.CreateMatchRequest(match_id="m-1", ruleset=c.RulesetRef(ruleset_id="classic"), seed=7, seats=[
        ctl.SeatAssignment(index=0, player=c.Player(player_id="alice", display_name="Alice")),
        ctl.SeatAssignment(index=1, bot_level=2)])
    first = await control.CreateMatch(req, metadata=SVC)
    again = await control.CreateMatch(req, metadata=SVC)
    assert first == again and first.seed == 7
    other = ctl.CreateMatchRequest()
    other.CopyFrom(req)
    other.seed = 8
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await control.CreateMatch(other, metadata=SVC)
    assert exc.value.code() == grpc.StatusCode.ALREADY_EXISTS
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await control.CreateMatch(req)
    assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
    alice_token = harness.keys.issue("alice", "Alice", 60)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await control.GetLoad(ctl.GetLoadRequest(), metadata=[("authorization", f"Bearer {alice_token}")])
    assert exc.value.code() == grpc.StatusCode.PERMISSION_DENIED
    bad = ctl.CreateMatchRequest(match_id="m-2", ruleset=c.RulesetRef(ruleset_id="nope"), seats=req.seats)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await control.CreateMatch(bad, metadata=SVC)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    load = await control.GetLoad(ctl.GetLoadRequest(), metadata=SVC)
    assert load.load.active_matches == 1


async def test_two_players_stale_seq_duplicate_and_refused(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    va = await alice.view(mid)
    assert va.viewer_seat == 0 and va.to_move_seat == 0 and va.last_seq == 1 and len(va.rack.tiles) == 7
    vb = await bob.view(mid)
    assert [t.letter for t in vb.rack.tiles] != [] and vb.seats[0].rack_count == 7

    # Bob out of turn: refused with a RuleViolation, nothing written.
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await bob.submit(mid, pass_move(), 1)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(exc.value, e.RuleViolation).code == e.RULE_CODE_NOT_YOUR_TURN
    # Alice plays an unknown word: refused naming the word; nothing written.
    bogus = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=7, col=7 + k), letter=t.letter or "E")
        for k, t in enumerate(va.rack.tiles[:3])]))
    state_before = srv.manager.matches[mid].state
    try:
        await alice.submit(mid, bogus, 1)
    except grpc.aio.AioRpcError as err:
        v = detail(err, e.RuleViolation)
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and v is not None and v.code_name
    assert (await alice.view(mid)).last_seq in (1, 3)
    if (await alice.view(mid)).last_seq == 1:
        assert srv.manager.matches[mid].state is state_before
        # Off the board: INVALID_ARGUMENT.
        off = c.Move(play=c.PlayMove(placements=[c.Placement(square=c.Square(row=99, col=0), letter="A")]))
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await alice.submit(mid, off, 1)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert detail(exc.value, e.RuleViolation).code == e.RULE_CODE_OFF_BOARD

    rt = srv.manager.matches[mid]
    seq = rt.seq
    move = engine_move(rt.state, rt.state.to_move)
    player = alice if rt.state.to_move == 0 else bob
    first = await player.submit(mid, move, seq, request_id="req-1")
    assert first.last_seq > seq
    # The same request id again: the first answer, nothing changes.
    again = await player.submit(mid, move, seq, request_id="req-1")
    assert again == first and rt.seq == first.last_seq
    # A stale expected_seq: FAILED_PRECONDITION with the current seq.
    other = bob if player is alice else alice
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await other.submit(mid, pass_move(), seq, request_id="req-2")
    stale = detail(exc.value, e.StaleSeq)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert stale.current_seq == first.last_seq and stale.expected_seq == seq
    ok = await other.submit(mid, pass_move(), first.last_seq, request_id="req-2")
    assert ok.events[0].HasField("turn_passed")


async def _play_out(harness: Harness, srv: object, mid: str, players: dict[int, object],
                    max_turns: int = 400) -> None:
    for _ in range(max_turns):
        rt = harness.servers[-1].manager.matches[mid]
        if rt.state.over:
            return
        seat = rt.state.to_move
        await players[seat].submit(mid, engine_move(rt.state, seat), rt.seq)  # type: ignore[attr-defined]


async def test_stream_reconnects_see_each_event_once(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=11)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    seen: list[int] = []
    done = asyncio.Event()
    rng = random.Random(5)

    async def follow() -> None:
        last = 0
        while True:
            call = bob.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=last), metadata=bob.md)
            cut_after = rng.randint(1, 6)
            n = 0
            async for msg in call:
                bob.received.append(msg)
                ev = msg.event
                if ev.HasField("heartbeat"):
                    continue
                seen.append(ev.seq)
                last = ev.seq
                n += 1
                if ev.HasField("game_over"):
                    done.set()
                    return
                if n >= cut_after:
                    call.cancel()
                    break

    task = asyncio.create_task(follow())
    await _play_out(harness, srv, mid, {0: alice, 1: bob}, max_turns=30)
    rt = srv.manager.matches[mid]
    if not rt.state.over:
        await alice.submit(mid, c.Move(resign=c.ResignMove()), rt.seq) if rt.state.to_move == 0 else \
            await bob.submit(mid, c.Move(resign=c.ResignMove()), rt.seq)
    await asyncio.wait_for(done.wait(), 20)
    await task
    assert seen == list(range(1, rt.seq + 1))


async def test_hidden_information_on_every_message(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=3, spectators_allowed=True)
    alice, bob, carol = harness.player(srv, "alice"), harness.player(srv, "bob"), harness.player(srv, "carol")
    streams = {}
    for who in (alice, bob, carol):
        async def read(p=who) -> None:
            async for msg in p.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=p.md):
                p.received.append(msg)
        streams[who.player_id] = asyncio.create_task(read())
    for _ in range(200):
        rt = srv.manager.matches[mid]
        if rt.state.over:
            break
        seat = rt.state.to_move
        await (alice, bob)[seat].submit(mid, engine_move(rt.state, seat), rt.seq)
        await (alice, bob)[seat].view(mid)
        await carol.view(mid)
    else:
        rt = srv.manager.matches[mid]
        await (alice, bob)[rt.state.to_move].submit(mid, c.Move(resign=c.ResignMove()), rt.seq)
    await asyncio.wait_for(asyncio.gather(*streams.values()), 20)
    rt = srv.manager.matches[mid]
    racks_at = {ev.seq: ev.payload["after"]["racks"] for ev in rt.events if "after" in ev.payload}
    for seat, p in ((0, alice), (1, bob), (None, carol)):
        assert p.received
        for msg in p.received:
            events = list(getattr(msg, "events", [])) + ([msg.event] if hasattr(msg, "event") else [])
            if isinstance(msg, m.GetMatchResponse):
                if seat is None:
                    assert not msg.match.HasField("rack") and not msg.match.HasField("viewer_seat")
                else:
                    assert msg.match.viewer_seat == seat
            for ev in events:
                if ev.HasField("viewer_rack"):
                    assert seat is not None
                    assert [t.letter or "?" for t in ev.viewer_rack.tiles] == racks_at[ev.seq][seat]
                if ev.HasField("tiles_exchanged") and ev.tiles_exchanged.seat != seat:
                    assert not ev.tiles_exchanged.returned
    assert any(ev.HasField("game_over") for msg in carol.received if hasattr(msg, "event")
               for ev in [msg.event])


async def test_restart_resumes_from_the_log(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=9)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    for _ in range(6):
        rt = srv.manager.matches[mid]
        await (alice, bob)[rt.state.to_move].submit(mid, engine_move(rt.state, rt.state.to_move), rt.seq)
    before = await alice.view(mid)
    await srv.stop(0.5)
    srv2 = await harness.start()
    alice2, bob2 = harness.player(srv2, "alice"), harness.player(srv2, "bob")
    after = await alice2.view(mid)
    before.ClearField("seats")
    after.ClearField("seats")
    assert after == before
    rt = srv2.manager.matches[mid]
    r = await (alice2, bob2)[rt.state.to_move].submit(mid, pass_move(), rt.seq)
    assert r.last_seq == before.last_seq + 1


async def test_clock_runs_out_as_a_timeout_event_and_survives_restart(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carl"), seed=4)
    rt = srv.manager.matches[mid]
    assert rt.clocks is not None and rt.clocks[0] == 600
    alice = harness.player(srv, "alice")
    await alice.submit(mid, pass_move(), rt.seq)
    # Pretend seat 1 has 0.3 s left: the server times it out by itself.
    async with rt.lock:
        rt.clocks[1] = 0.3
        srv.manager.start_turn(rt)
    for _ in range(50):
        if rt.state.seats[1].value == "timed-out":
            break
        await asyncio.sleep(0.05)
    assert rt.state.seats[1].value == "timed-out" and rt.events[-1].kind == "timed-out"
    clocks = list(rt.clocks)
    await srv.stop(0.5)
    srv2 = await harness.start()
    carl = harness.player(srv2, "carl")
    view = await carl.view(mid)
    assert view.seats[1].status == c.SEAT_STATUS_TIMED_OUT
    assert abs(view.seats[0].clock.remaining.ToTimedelta().total_seconds() - clocks[0]) < 1
    assert view.seats[2].clock.running


async def test_slow_consumer_is_cut_off(harness: Harness) -> None:
    # The flood of chat that fills Bob's queue is far over the default chat limits: lift them.
    srv = await harness.start(stream_queue=4, chat_rate=1e6, chat_burst=10000, chat_per_match=10000)
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    # Bob's channel keeps a small flow-control window, so an unread stream backs up quickly.
    ch = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}", options=[("grpc.http2.bdp_probe", 0)])
    harness.channels.append(ch)
    from match_harness import Player

    bob = Player(ch, harness.keys.issue("bob", "Bob", 3600), "bob")
    call = bob.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=bob.md)
    first = await call.read()
    assert first.event.seq == 1
    rt = srv.manager.matches[mid]
    for k in range(3000):  # bob does not read: his queue overflows
        await alice.stub.SendChat(m.SendChatRequest(match_id=mid, request_id=f"c{k}", text="x" * 499),
                                  metadata=alice.md)
        if any(sub.overflowed for sub in rt.subscribers):
            break
    assert any(sub.overflowed for sub in rt.subscribers)
    last = 1

    async def drain() -> grpc.StatusCode | None:
        nonlocal last
        try:
            while True:
                msg = await call.read()
                if msg is grpc.aio.EOF:
                    return None
                last = msg.event.seq
        except grpc.aio.AioRpcError as err:
            assert detail(err, e.StreamCutOff).last_delivered_seq == last
            return err.code()

    assert await asyncio.wait_for(drain(), 20) == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_metrics_health_and_bad_tokens(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice = harness.player(srv, "alice")
    await alice.view(mid)
    call = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=alice.md)
    await call.read()
    call.cancel()
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await alice.stub.GetMatch(m.GetMatchRequest(match_id=mid),
                                  metadata=[("authorization", "Bearer forged")])
    assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await alice.stub.GetMatch(m.GetMatchRequest(match_id="nope"), metadata=alice.md)
    assert exc.value.code() == grpc.StatusCode.NOT_FOUND
    await asyncio.sleep(0.2)
    port = harness.servers[0].grpc.metrics_port
    body = await asyncio.to_thread(lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode())
    assert 'grpc_server_handled_total{grpc_code="OK",grpc_method="GetMatch"' in body
    assert 'grpc_code="UNAUTHENTICATED"' in body and 'grpc_code="NOT_FOUND"' in body
    assert 'grpc_server_started_total{grpc_method="StreamMatch",grpc_service="wordarena.v1.MatchService",' \
           'grpc_type="server_stream"}' in body
    assert "grpc_server_msg_sent_total" in body and "grpc_server_handling_seconds_bucket" in body
    assert "wordarena_matches_active" in body and "wordarena_event_append_seconds" in body
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    health = health_pb2_grpc.HealthStub(harness.channel(srv))
    r = await health.Check(health_pb2.HealthCheckRequest(service="wordarena.v1.MatchService"))
    assert r.status == health_pb2.HealthCheckResponse.SERVING


async def test_bot_plays_its_seat_and_preview_tilebag_chat(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, players=("alice",), bots=(3,))
    alice = harness.player(srv, "alice")
    rt = srv.manager.matches[mid]
    await alice.submit(mid, engine_move(rt.state, 0), rt.seq)
    for _ in range(100):
        if rt.state.to_move == 0:
            break
        await asyncio.sleep(0.05)
    assert rt.state.to_move == 0 and rt.seq >= 3
    bag = await alice.stub.TileBag(m.TileBagRequest(match_id=mid), metadata=alice.md)
    assert bag.unseen_count == bag.bag_count + bag.opponent_rack_count
    from wordarena.engine.movegen import generate_moves
    best = generate_moves(rt.state, 0)
    play = best[0].to_play(0) if best else None
    if play is not None:
        pv = await alice.stub.PreviewPlay(m.PreviewPlayRequest(match_id=mid,
                                                               placements=play_move(play).play.placements),
                                          metadata=alice.md)
        assert pv.legal and pv.breakdown.total > 0
    chat = await alice.stub.SendChat(m.SendChatRequest(match_id=mid, request_id="hello", text="hi"),
                                     metadata=alice.md)
    assert chat.event.chat.text == "hi"
    log = await alice.stub.ListLog(m.ListLogRequest(match_id=mid), metadata=alice.md)
    assert [ev.chat.text for ev in log.events] == ["hi"]
