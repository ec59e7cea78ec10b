"""MatchService and MatchControl over real gRPC on loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
import urllib.request
from collections import Counter

import grpc
import pytest
from match_harness import (
    SERVICE_TOKEN,
    Harness,
    Player,
    client_cells,
    client_move,
    client_moves,
    client_rack,
    expected_notation,
    pass_move,
    play_move,
)

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


def _not_a_word(view: m.MatchView) -> str:
    """Two or three of the viewer's rack letters that the lexicon does not know, in rack order."""
    from itertools import permutations

    from wordarena.engine.families import parse_ruleset_id
    from wordarena.engine.lexicon import load_lexicon

    lexicon = load_lexicon(parse_ruleset_id(view.ruleset.ruleset_id).lexicon)
    letters = [t.letter for t in view.rack.tiles if not t.is_blank]
    for n in (3, 2):
        for perm in permutations(letters, n):
            if "".join(perm) not in lexicon:
                return "".join(perm)
    raise AssertionError(f"every arrangement of {letters} is a word")


async def test_refused_submissions_name_the_rule_and_change_nothing(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    va = await alice.view(mid)
    assert va.viewer_seat == 0 and va.to_move_seat == 0 and va.last_seq == 1 and len(va.rack.tiles) == 7
    vb = await bob.view(mid)
    assert len(vb.rack.tiles) == 7 and vb.seats[0].rack_count == 7

    # Bob out of turn: refused with a RuleViolation.
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await bob.submit(mid, pass_move(), va.last_seq)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(exc.value, e.RuleViolation).code == e.RULE_CODE_NOT_YOUR_TURN
    # Alice plays letters of her rack that spell no word: refused naming the word.
    word = _not_a_word(va)
    bogus = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=7, col=7 + k), letter=letter) for k, letter in enumerate(word)]))
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await alice.submit(mid, bogus, va.last_seq)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    violation = detail(exc.value, e.RuleViolation)
    assert violation.code == e.RULE_CODE_WORD_NOT_IN_LEXICON
    assert violation.code_name == "WORD_NOT_IN_LEXICON" and word in violation.message
    assert list(violation.words) == [word]
    # Off the board: INVALID_ARGUMENT.
    off = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=99, col=0), letter=va.rack.tiles[0].letter or "A")]))
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await alice.submit(mid, off, va.last_seq)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert detail(exc.value, e.RuleViolation).code == e.RULE_CODE_OFF_BOARD
    # Nothing was written: both views (seq, board, racks, scores) are exactly as before.
    assert await alice.view(mid) == va and await bob.view(mid) == vb


async def test_a_repeated_request_id_returns_the_first_answer_and_a_stale_seq_names_the_current_one(
        harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    seq = view.last_seq
    move = client_move(view)
    first = await alice.submit(mid, move, seq, request_id="req-1")
    assert first.last_seq > seq and first.events[0].HasField("turn_played")
    after_first = await bob.view(mid)
    assert after_first.last_seq == first.last_seq and after_first.to_move_seat == 1
    # The same request id again: the first answer, nothing changes.
    again = await alice.submit(mid, move, seq, request_id="req-1")
    assert again == first
    assert await bob.view(mid) == after_first
    # A stale expected_seq: FAILED_PRECONDITION with the current seq.
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await bob.submit(mid, pass_move(), seq, request_id="req-2")
    stale = detail(exc.value, e.StaleSeq)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert stale.current_seq == first.last_seq and stale.expected_seq == seq
    assert await bob.view(mid) == after_first
    # The seq the client read from the refusal is the one that works.
    ok = await bob.submit(mid, pass_move(), stale.current_seq, request_id="req-2")
    assert ok.events[0].HasField("turn_passed") and ok.last_seq == stale.current_seq + 1


async def _play_out(mid: str, players: dict[int, Player], max_turns: int = 400) -> m.MatchView:
    """Each seat to move plays its best move on the board it sees, with the seq it read."""
    view = await players[0].view(mid)
    for _ in range(max_turns):
        if not view.HasField("to_move_seat"):
            return view
        me = players[view.to_move_seat]
        view = await me.view(mid)
        await me.submit(mid, client_move(view), view.last_seq)
        view = await me.view(mid)
    return view


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
    view = await _play_out(mid, {0: alice, 1: bob}, max_turns=30)
    if view.HasField("to_move_seat"):
        me = (alice, bob)[view.to_move_seat]
        view = await me.view(mid)
        await me.submit(mid, c.Move(resign=c.ResignMove()), view.last_seq)
    await asyncio.wait_for(done.wait(), 20)
    await task
    final = await alice.view(mid)
    assert final.status == m.MATCH_STATUS_FINISHED
    assert seen == list(range(1, final.last_seq + 1))


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
    view = await alice.view(mid)
    for _ in range(200):
        if not view.HasField("to_move_seat"):
            break
        me = (alice, bob)[view.to_move_seat]
        view = await me.view(mid)
        await me.submit(mid, client_move(view), view.last_seq)
        view = await me.view(mid)
        await carol.view(mid)
    else:
        me = (alice, bob)[view.to_move_seat]
        await me.submit(mid, c.Move(resign=c.ResignMove()), (await me.view(mid)).last_seq)
    await asyncio.wait_for(asyncio.gather(*streams.values()), 20)
    # The stored log (not the projection) says what each rack held after each event.
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
                    assert client_rack(msg.match) == racks_at[msg.match.last_seq][seat]
            for ev in events:
                if ev.HasField("viewer_rack"):
                    assert seat is not None
                    assert [t.letter or "?" for t in ev.viewer_rack.tiles] == racks_at[ev.seq][seat]
                if ev.HasField("tiles_exchanged") and ev.tiles_exchanged.seat != seat:
                    assert not ev.tiles_exchanged.returned
    assert any(ev.HasField("game_over") for msg in carol.received if hasattr(msg, "event")
               for ev in [msg.event])


@pytest.mark.database  # restarts on its store
async def test_restart_resumes_from_the_log(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=9)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    await _play_out(mid, {0: alice, 1: bob}, max_turns=6)
    before = await alice.view(mid)
    assert before.last_seq == 7
    await srv.stop(0.5)
    srv2 = await harness.start()
    alice2, bob2 = harness.player(srv2, "alice"), harness.player(srv2, "bob")
    after = await alice2.view(mid)
    before.ClearField("seats")
    after.ClearField("seats")
    assert after == before
    r = await (alice2, bob2)[after.to_move_seat].submit(mid, pass_move(), after.last_seq)
    assert r.last_seq == before.last_seq + 1


@pytest.mark.database  # restarts on its store
async def test_clock_runs_out_as_a_timeout_event_and_survives_restart(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carl"), seed=4)
    rt = srv.manager.matches[mid]
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    assert 599 < view.seats[0].clock.remaining.ToTimedelta().total_seconds() <= 600
    await alice.submit(mid, pass_move(), view.last_seq)
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
    bob = Player(ch, harness.keys.issue("bob", "Bob", 3600), "bob")
    call = bob.stub.StreamMatch(m.StreamMatchRequest(match_id=mid), metadata=bob.md)
    first = await call.read()
    assert first.event.seq == 1
    rt = srv.manager.matches[mid]
    assert len(rt.subscribers) == 1
    for k in range(3000):  # bob does not read: his queue overflows, and he is cut off at once
        await alice.stub.SendChat(m.SendChatRequest(match_id=mid, request_id=f"c{k}", text="x" * 499),
                                  metadata=alice.md)
        if not rt.subscribers:
            break
    assert not rt.subscribers  # while bob has still read nothing
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
    port = harness.servers[0].grpc.metrics_port
    # The interceptor counts a call once it has answered: wait for the NOT_FOUND just refused.
    async with asyncio.timeout(20):
        while 'grpc_code="NOT_FOUND"' not in (body := await asyncio.to_thread(
                lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode())):
            await asyncio.sleep(0.05)
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


async def _wait_for_my_turn(player: Player, mid: str, seat: int) -> m.MatchView:
    """Follow the match stream from the current view until ``seat`` is to move; its view then."""
    view = await player.view(mid)
    if view.to_move_seat == seat:
        return view
    call = player.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=view.last_seq),
                                   metadata=player.md)
    try:
        async with asyncio.timeout(20):
            async for msg in call:
                if msg.event.HasField("heartbeat"):
                    continue
                view = await player.view(mid)
                if view.to_move_seat == seat:
                    return view
    finally:
        call.cancel()
    raise AssertionError(f"seat {seat} never came to move; last view at seq {view.last_seq}")


def _unseen_by(view: m.MatchView) -> Counter[str]:
    """Tiles the viewer has not seen: the ruleset's whole tile set, less the tiles on the board
    (a blank counts as ``?``) and less the viewer's own rack."""
    from wordarena.engine.families import parse_ruleset_id

    unseen = Counter(parse_ruleset_id(view.ruleset.ruleset_id).tiles.counts)
    unseen -= Counter("?" if sq.tile.is_blank else sq.tile.letter
                      for sq in view.board.squares if sq.HasField("tile"))
    unseen -= Counter(client_rack(view))
    return +unseen


async def test_bot_plays_its_seat_and_tile_bag_preview_and_chat_show_what_the_player_can_check(
        harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, players=("alice",), bots=(3,))
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    await alice.submit(mid, client_move(view), view.last_seq)
    view = await _wait_for_my_turn(alice, mid, 0)
    assert view.last_seq >= 3 and view.seats[1].score > 0
    # Two plays are on the board: the tile bag counts exactly the tiles alice has not seen.
    bag = await alice.stub.TileBag(m.TileBagRequest(match_id=mid), metadata=alice.md)
    expected = _unseen_by(view)
    got = Counter({("?" if tc.tile.is_blank else tc.tile.letter): tc.count for tc in bag.unseen})
    assert got == expected
    assert bag.unseen_count == sum(expected.values())
    assert bag.opponent_rack_count == view.seats[1].rack_count == 7
    assert bag.bag_count == view.bag_count == bag.unseen_count - bag.opponent_rack_count
    # PreviewPlay scores alice's best play as the engine scores it on the board she sees.
    moves = client_moves(view)
    assert moves
    best = moves[0]
    pv = await alice.stub.PreviewPlay(m.PreviewPlayRequest(
        match_id=mid, placements=play_move(best.to_play(0)).play.placements), metadata=alice.md)
    assert pv.legal and not pv.HasField("violation") and not pv.score_hidden
    assert pv.breakdown.total == best.score
    assert pv.breakdown.tiles_placed == best.tile_count
    assert pv.breakdown.bingo_bonus == (35 if best.tile_count == 7 else 0)
    assert pv.breakdown.total == pv.breakdown.words_total + pv.breakdown.bingo_bonus
    assert pv.breakdown.words_total == sum(w.score for w in pv.breakdown.words)
    notation = expected_notation(view, best.placements(), best.across)
    main = pv.breakdown.words[0]
    assert main.main_word and main.word == _read_word(view, notation)
    # Chat is logged, and the chat answer carries the text.
    chat = await alice.stub.SendChat(m.SendChatRequest(match_id=mid, request_id="hello", text="hi"),
                                     metadata=alice.md)
    assert chat.event.chat.text == "hi"
    log = await alice.stub.ListLog(m.ListLogRequest(match_id=mid), metadata=alice.md)
    assert [ev.chat.text for ev in log.events if ev.HasField("chat")] == ["hi"]


def _read_word(view: m.MatchView, notation: str) -> str:
    """The word of ``notation`` as it reads on the board: ``.`` is the tile already there."""
    position, written = notation.split(" ")
    across = position[0].isdigit()
    row = int(position.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ") if across else position[1:]) - 1
    col = ord(position[-1] if across else position[0]) - ord("A")
    cells = client_cells(view)
    out = []
    for k, ch in enumerate(written):
        r, c_ = (row, col + k) if across else (row + k, col)
        out.append(cells[r * view.board.cols + c_].letter if ch == "." else ch.upper())
    return "".join(out)


async def test_chat_between_reading_the_seq_and_submitting_does_not_make_the_turn_stale(
        harness: Harness) -> None:
    """DESIGN: "expected_seq is checked against the last event that changes the game, never
    against chat". Alice reads the seq, Bob chats, Alice submits with the seq she read."""
    srv = await harness.start()
    mid = await harness.create(srv)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    await bob.stub.SendChat(m.SendChatRequest(match_id=mid, request_id="gl", text="good luck"),
                            metadata=bob.md)
    played = await alice.submit(mid, client_move(view), view.last_seq)
    assert played.events[0].HasField("turn_played")
