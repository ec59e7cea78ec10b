"""The match manager's commit path as a client sees it (``scripts/mutation commit-path`` runs
these against its mutants): an acknowledged turn is in the log a restarted server reads back, a
repeated request is one turn, and ``expected_seq`` is accepted exactly inside ``game_seq..seq``.
Every value checked comes from what the client received (answers, the stream, GetMatch)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest
from grpc_helpers import refused
from match_harness import (
    SERVICE_TOKEN,
    Harness,
    Player,
    client_move,
    client_moves,
    expected_notation,
    pass_move,
    play_move,
    recording_lobby,
)

from wordarena.services.common.errors import detail
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import control_pb2 as ctl
from wordarena.v1 import errors_pb2 as e
from wordarena.v1 import match_pb2 as m

# the store is what this proves: on SQLite and PostgreSQL (tests/conftest.py)
pytestmark = pytest.mark.database


async def _stream(p: Player, mid: str, until: int, after: int = 0) -> list[c.Event]:
    """The events of the match from ``after`` up to seq ``until``, as StreamMatch sends them."""
    out: list[c.Event] = []
    call = p.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=after), metadata=p.md)
    try:
        async with asyncio.timeout(30):  # an event that never comes fails the test, not hangs it
            async for msg in call:
                if msg.event.HasField("heartbeat"):
                    continue
                out.append(msg.event)
                if msg.event.seq >= until:
                    break
    finally:
        call.cancel()
    return out


async def test_an_acknowledged_turn_and_its_answer_are_what_a_restarted_server_shows(
    harness: Harness,
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=5)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    played = await alice.submit(mid, client_move(view), view.last_seq, request_id="turn-1")
    assert played.events[0].HasField("turn_played") and played.events[0].seq == view.last_seq + 1
    assert played.last_seq == played.events[-1].seq
    passed = await bob.submit(mid, pass_move(), played.last_seq, request_id="turn-2")
    assert [ev.seq for ev in passed.events] == [played.last_seq + 1]
    seen_by_bob = await _stream(bob, mid, passed.last_seq)
    alice_before, bob_before = await alice.view(mid), await bob.view(mid)
    assert [ev.seq for ev in seen_by_bob] == list(range(1, passed.last_seq + 1))

    await srv.stop(0.5)  # everything acknowledged must be in the log the next server reads
    srv2 = await harness.start()
    alice2, bob2 = harness.player(srv2, "alice"), harness.player(srv2, "bob")
    assert await _stream(bob2, mid, passed.last_seq) == seen_by_bob
    for before, p in ((alice_before, alice2), (bob_before, bob2)):
        after = await p.view(mid)
        assert after.last_seq == after.game_seq == passed.last_seq
        assert (after.board, after.rack, after.to_move_seat) == (
            before.board,
            before.rack,
            before.to_move_seat,
        )
        assert [s.score for s in after.seats] == [s.score for s in before.seats]
    # The answers were stored with the turns: the same request ids get them again, byte for
    # byte, and no turn is added; a new request id with the seq Alice holds is a new turn.
    assert await alice2.submit(mid, pass_move(), view.last_seq, request_id="turn-1") == played
    assert await bob2.submit(mid, pass_move(), played.last_seq, request_id="turn-2") == passed
    assert (await bob2.view(mid)).last_seq == passed.last_seq
    again = await alice2.submit(mid, pass_move(), passed.last_seq, request_id="turn-3")
    assert [ev.seq for ev in again.events] == [passed.last_seq + 1]
    assert again.events[0].HasField("turn_passed") and again.events[0].turn_passed.seat == 0


async def test_a_long_log_reads_back_the_same_live_after_a_restart_and_by_request_id(
    harness: Harness,
) -> None:
    """Most of a long match's log is held compactly in memory (``eventlog.KEEP_DECODED``): a
    late subscriber, the server that rebuilds it, and a repeated early request all see what the
    players saw live."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=9)
    players = [harness.player(srv, "alice"), harness.player(srv, "bob")]
    answers: list[tuple[c.Move, int, m.SubmitTurnResponse]] = []
    for k in range(14):  # turns alternate; the game is far from over
        p, view = players[k % 2], await players[k % 2].view(mid)
        move = client_move(view)
        answers.append((move, view.last_seq, await p.submit(mid, move, view.last_seq, request_id=f"t{k}")))
    last = answers[-1][2].last_seq
    assert last >= 14
    live = await _stream(players[1], mid, last)
    assert [ev.seq for ev in live] == list(range(1, last + 1))
    assert await _stream(players[1], mid, last) == live  # a second late subscriber
    move, seq, first = answers[0]
    assert await players[0].submit(mid, move, seq, request_id="t0") == first

    await srv.stop(0.5)
    srv2 = await harness.start()
    bob2 = harness.player(srv2, "bob")
    assert await _stream(bob2, mid, last) == live
    alice2 = harness.player(srv2, "alice")
    assert await alice2.submit(mid, move, seq, request_id="t0") == first


async def test_a_request_sent_twice_at_once_is_one_turn(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=6)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    move = client_move(view)
    first, second = await asyncio.gather(
        alice.submit(mid, move, view.last_seq, request_id="twice"),
        alice.submit(mid, move, view.last_seq, request_id="twice"),
    )
    assert first == second
    events = await _stream(bob, mid, first.last_seq)
    assert sum(ev.HasField("turn_played") for ev in events) == 1
    after = await bob.view(mid)
    assert after.last_seq == first.last_seq and after.to_move_seat == 1
    assert after.seats[0].score == first.events[0].turn_played.points > 0


async def test_expected_seq_is_accepted_from_game_seq_to_the_latest_seq_and_nowhere_else(
    harness: Harness,
) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, seed=7)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    start = (await alice.view(mid)).last_seq
    turn = await alice.submit(mid, pass_move(), start)
    game_seq = turn.last_seq
    for k in range(2):  # two chats: the latest seq moves on, the game does not
        await bob.stub.SendChat(
            m.SendChatRequest(match_id=mid, request_id=uuid.uuid4().hex, text=f"c{k}"), metadata=bob.md
        )
    latest = game_seq + 2
    assert ((v := await bob.view(mid)).game_seq, v.last_seq) == (game_seq, latest)

    ahead = await refused(bob.submit(mid, pass_move(), latest + 1))
    assert ahead.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert ahead.details() == (
        f"expected_seq: {latest + 1} is ahead of the match: its latest seq is "
        f"{latest}; send a seq you have received"
    )
    stale = await refused(bob.submit(mid, pass_move(), game_seq - 1))
    assert stale.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert stale.details() == (
        f"expected_seq {game_seq - 1} is stale: the game moved on at seq {game_seq} (latest seq {latest})"
    )
    s = detail(stale, e.StaleSeq)
    assert (s.current_seq, s.expected_seq, s.game_seq) == (latest, game_seq - 1, game_seq)
    assert (await bob.view(mid)).last_seq == latest  # refusals store nothing

    # Both ends of the range are good: game_seq itself, then (for Alice) the latest seq.
    r = await bob.submit(mid, pass_move(), game_seq)
    assert [ev.seq for ev in r.events] == [latest + 1]
    r = await alice.submit(mid, pass_move(), r.last_seq)
    assert [ev.seq for ev in r.events] == [latest + 2]


async def test_two_time_outs_in_a_row_are_two_events(harness: Harness) -> None:
    """A time-out is committed with no request id, like every action the server takes itself;
    each one is its own turn in the log (none is mistaken for a repeat of the one before). Word
    Tiles with three players: Alice's clock runs out, then Bob's; Carl is left and wins. The clocks
    are shortened on the runtime (they run in minutes); what is checked is what Carl's stream and
    view show."""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carl"), seed=4)
    rt = srv.manager.matches[mid]
    carl = harness.player(srv, "carl")
    start = (await carl.view(mid)).last_seq
    for seat in (0, 1):
        async with rt.lock:  # this seat is to move: its clock now has a moment left
            rt.clocks[seat] = 0.2
            srv.manager.start_turn(rt)
        (ev,) = await _stream(carl, mid, start + 1, after=start)
        assert ev.HasField("player_timed_out") and ev.player_timed_out.seat == seat, ev
        start = ev.seq
    view = await carl.view(mid)
    assert [s.status for s in view.seats] == [
        c.SEAT_STATUS_TIMED_OUT,
        c.SEAT_STATUS_TIMED_OUT,
        c.SEAT_STATUS_ACTIVE,
    ]
    over = [ev for ev in await _stream(carl, mid, view.last_seq) if ev.HasField("game_over")]
    assert len(over) == 1 and list(over[0].game_over.winner_seats) == [2]


async def test_a_turn_sent_after_the_clock_ran_out_meets_the_time_out_first(harness: Harness) -> None:
    """A clock that has run out times the seat out before the seat's own request is looked at,
    even when the server's timer has not fired yet: the late turn is refused and the log shows the
    time-out, not the turn. (The clock is set to zero on the runtime without re-arming its timer,
    which still waits for the ten minutes the seat had.)"""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice", "bob", "carl"), seed=4)
    rt = srv.manager.matches[mid]
    alice, carl = harness.player(srv, "alice"), harness.player(srv, "carl")
    view = await alice.view(mid)
    async with rt.lock:
        rt.clocks[0] = 0.0
    late = await refused(alice.submit(mid, pass_move(), view.last_seq, request_id="late"))
    assert late.code() == grpc.StatusCode.FAILED_PRECONDITION
    (ev,) = await _stream(carl, mid, view.last_seq + 1, after=view.last_seq)
    assert ev.HasField("player_timed_out") and ev.player_timed_out.seat == 0
    after = await carl.view(mid)
    assert after.last_seq == view.last_seq + 1 and after.to_move_seat == 1
    assert after.seats[0].status == c.SEAT_STATUS_TIMED_OUT


async def test_a_turn_sent_to_a_finished_match_is_told_the_game_is_over(harness: Harness) -> None:
    """After Bob resigns, Alice's turn (with the seq she received) is refused with the rule it
    breaks, GAME_OVER, and nothing is added to the log."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=8)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    passed = await alice.submit(mid, pass_move(), view.last_seq)
    resigned = await bob.submit(mid, c.Move(resign=c.ResignMove()), passed.last_seq)
    assert any(ev.HasField("game_over") for ev in resigned.events)
    err = await refused(alice.submit(mid, pass_move(), resigned.last_seq))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_GAME_OVER
    assert (await alice.view(mid)).last_seq == resigned.last_seq


async def test_a_turn_queued_behind_an_abort_is_refused_not_applied(harness: Harness) -> None:
    """Alice's first turn waits on the match's lock while AbortMatch holds it and stores the
    abort; once the abort is stored and the lock is free, the turn is refused as about an aborted
    match (MATCH_ABORTED; with ``commit``'s aborted check mutated, the turn went on to the seq
    check and was told its seq was stale, as if it could be sent again) and nothing follows the
    abort in the log. The
    order is forced with two seams on the server, for ordering only (no value checked comes from
    them): the store's append holds the abort until released, and the match lock's ``acquire``
    says when the turn has reached the lock."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=9)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    manager = srv.manager
    rt = manager.matches[mid]
    append = manager.store.append
    abort_storing, abort_may_store = asyncio.Event(), asyncio.Event()

    async def held_append(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("status") == "aborted":
            abort_storing.set()
            await abort_may_store.wait()
        return await append(*args, **kwargs)

    manager.store.append = held_append  # type: ignore[method-assign]
    control = harness.control(srv)
    svc = [("authorization", f"Bearer {SERVICE_TOKEN}")]
    abort = asyncio.ensure_future(
        control.AbortMatch(ctl.AbortMatchRequest(match_id=mid, reason="cancelled"), metadata=svc)
    )
    async with asyncio.timeout(30):
        await abort_storing.wait()  # the abort holds the match's lock now
    assert rt.lock.locked()
    acquire, turn_waits = rt.lock.acquire, asyncio.Event()

    async def noted_acquire() -> bool:
        turn_waits.set()
        return await acquire()

    rt.lock.acquire = noted_acquire  # type: ignore[method-assign]
    turn = asyncio.ensure_future(alice.submit(mid, pass_move(), view.last_seq, request_id="queued"))
    async with asyncio.timeout(30):
        await turn_waits.wait()  # the turn is at the lock, behind the abort
        abort_may_store.set()
        aborted = await abort
        err = await refused(turn)
    assert not aborted.already_aborted
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert err.details() == f"match {mid!r} was aborted by the service; it has no result"
    assert detail(err, e.RuleViolation).code == e.RULE_CODE_MATCH_ABORTED
    after = await refused(alice.view(mid))  # the match is gone for players, its log has no turn
    assert detail(after, e.RuleViolation).code == e.RULE_CODE_MATCH_ABORTED
    again = await control.AbortMatch(ctl.AbortMatchRequest(match_id=mid), metadata=svc)
    assert again.already_aborted and again.reason == "cancelled"
    # No RPC reads an aborted match's log; the stored log (as test_match_abort reads it) ends
    # with the abort, right after the seq Alice had received.
    stored = await manager.store.load(mid)
    assert stored is not None
    assert [ev.seq for ev in stored.events] == list(range(1, view.last_seq + 2))
    assert stored.events[-1].kind == "aborted"


async def _resign_game(p: tuple[Player, Player], mid: str) -> m.MatchView:
    """Alice passes, Bob resigns: the game ends on Bob's turn. Returns Alice's view after it."""
    alice, bob = p
    passed = await alice.submit(mid, pass_move(), (await alice.view(mid)).last_seq)
    resigned = await bob.submit(mid, c.Move(resign=c.ResignMove()), passed.last_seq)
    assert any(ev.HasField("game_over") for ev in resigned.events)
    return await alice.view(mid)


async def test_a_finished_game_is_stored_as_finished_and_reported_once(harness: Harness) -> None:
    """The turn that ends the game finishes the match: GetMatch shows it finished with an end
    time, a server restarted from the database shows the same, and the lobby receives the result
    once, with that end time (a second match's report, sent after the restart, shows the report
    loop has run since: the first one was not sent again)."""
    async with recording_lobby() as registry:
        srv = await harness.start(lobby=registry.address)
        mid = await harness.create(srv, seed=10)
        players = harness.player(srv, "alice"), harness.player(srv, "bob")
        view = await _resign_game(players, mid)
        assert view.status == m.MATCH_STATUS_FINISHED
        assert view.HasField("end_time") and view.end_time.seconds > 0
        assert view.result.winner_seats == [0]
        await registry.wait_for(mid)

        await srv.stop(0.5)
        srv2 = await harness.start(lobby=registry.address)
        alice2 = harness.player(srv2, "alice")
        after = await alice2.view(mid)
        assert after.status == m.MATCH_STATUS_FINISHED
        assert after.end_time == view.end_time and after.last_seq == view.last_seq
        mid2 = await harness.create(srv2, seed=11)
        await _resign_game((alice2, harness.player(srv2, "bob")), mid2)
        await registry.wait_for(mid2)
        assert [r.match_id for r in registry.reports] == [mid, mid2]
        (report,) = [r for r in registry.reports if r.match_id == mid]
        assert report.end_time == view.end_time
        assert report.reason == view.result.reason != c.GAME_OVER_REASON_UNSPECIFIED


async def test_a_stream_opened_after_a_play_replays_its_notation(harness: Harness) -> None:
    """TurnPlayed.notation ("8H WORD") of a turn read back from the match's log — a stream
    opened after the play, and one opened after a restart — is the play as the player wrote it
    (by hand from the board, not by the engine's notation module). A commit-path mutant that
    stored no notation survived every test; this one fails on it."""
    srv = await harness.start()
    mid = await harness.create(srv, seed=10)
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")
    view = await alice.view(mid)
    best = client_moves(view)[0]
    answer = await alice.submit(mid, play_move(best.to_play(0)), view.last_seq)
    written = expected_notation(view, best.placements(), best.across)
    played = [ev for ev in await _stream(bob, mid, answer.last_seq) if ev.HasField("turn_played")]
    assert [ev.turn_played.notation for ev in played] == [written]
    await srv.stop(0.5)
    srv2 = await harness.start()
    again = [ev for ev in await _stream(harness.player(srv2, "bob"), mid, answer.last_seq)
             if ev.HasField("turn_played")]
    assert [ev.turn_played.notation for ev in again] == [written]


async def test_the_turn_that_ends_a_game_shows_the_scores_before_the_rack_adjustments(
    harness: Harness,
) -> None:
    """Event.scores is "every seat's score after this event": the sixth pass of a Scrabble game
    (seed 4: racks worth 9 and 12) leaves both on 0, and the GameOver that follows it shows them
    after the racks are deducted, -9 and -12 — live and replayed after a restart. (A commit-path
    mutant that added the adjustments to the pass's scores instead of taking them off survived
    every test; this fails on it.)"""
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="scrabble", seed=4)
    players = harness.player(srv, "alice"), harness.player(srv, "bob")
    for _ in range(6):
        view = await players[0].view(mid)
        await players[view.to_move_seat].submit(mid, pass_move(), view.last_seq)
    view = await players[0].view(mid)
    assert view.HasField("result")

    def last_two(events: list[c.Event]) -> list[tuple[str, list[int]]]:
        return [(ev.WhichOneof("kind") or "", list(ev.scores)) for ev in events[-2:]]

    expected = [("turn_passed", [0, 0]), ("game_over", [-9, -12])]
    assert last_two(await _stream(players[1], mid, view.last_seq)) == expected
    await srv.stop(0.5)
    srv2 = await harness.start()
    assert last_two(await _stream(harness.player(srv2, "bob"), mid, view.last_seq)) == expected
