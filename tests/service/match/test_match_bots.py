"""Bot seats play with ``engine.bots``: in Word Tiles a bot decides on the pending play (level 3+
checks a word it does not know), then plays its own turn; bot moves run off the event loop.

The test sees what alice's client sees: her view (GetMatch) and the events of her stream."""

from __future__ import annotations

import asyncio
import itertools

from match_harness import Harness, Player, client_moves, play_move

from wordarena.engine.game import Play
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.placement import Placement
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m


async def _until_alice_decides_or_moves(alice: Player, mid: str,
                                        after_seq: int) -> tuple[m.MatchView, list[c.Event]]:
    """Alice's stream from ``after_seq`` until the bot has finished (alice to move or to decide on
    the bot's pending play): her view then, and the events she received."""
    events: list[c.Event] = []
    call = alice.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=after_seq), metadata=alice.md)
    try:
        async with asyncio.timeout(20):
            async for msg in call:
                if msg.event.HasField("heartbeat"):
                    continue
                events.append(msg.event)
                view = await alice.view(mid)
                pending = view.HasField("pending")
                alice_acts = view.pending.decider_seat == 0 if pending else view.to_move_seat == 0
                if view.last_seq == msg.event.seq and alice_acts:
                    return view, events
    finally:
        call.cancel()
    raise AssertionError(f"the bot did not move: {[ev.WhichOneof('kind') for ev in events]}")


async def test_wordtiles_bot_checks_an_unknown_word_then_accepts_or_checks_a_valid_one(
        harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice",), bots=(3,), seed=5)
    alice = harness.player(srv, "alice")
    view = await alice.view(mid)
    moves = client_moves(view)
    lexicon = load_lexicon(view.ruleset.language or "en")
    # A play with a word the lexicon lacks (the best play's letters rearranged): the level-3 bot
    # checks it and the play fails.
    best = moves[0].placements()
    bogus = next(
        (tuple(Placement(p.row, p.col, letter, p.blank) for p, letter in zip(best, perm, strict=True))
         for perm in itertools.permutations([p.letter for p in best]) if "".join(perm) not in lexicon),
        None)
    assert bogus is not None, "every arrangement of the best play is a word"
    await alice.submit(mid, play_move(Play(0, bogus)), view.last_seq)
    view, events = await _until_alice_decides_or_moves(alice, mid, view.last_seq)
    kinds = [ev.WhichOneof("kind") for ev in events]
    assert kinds[:2] == ["play_pending", "play_checked"], kinds
    checked = events[1].play_checked
    assert checked.seat == 0 and checked.checker_seat == 1
    assert checked.result == c.CHECK_RESULT_FAILED and checked.points == 0
    assert list(checked.invalid_words) == ["".join(p.letter for p in bogus)]
    assert not any(sq.HasField("tile") and sq.tile.owner_seat == 0 for sq in view.board.squares)

    if view.HasField("pending"):  # the bot's own play awaits alice's decision: she accepts
        r = await alice.stub.DecidePending(m.DecidePendingRequest(
            match_id=mid, expected_seq=view.last_seq, request_id="accept-1", decision=m.DECISION_ACCEPT),
            metadata=alice.md)
        assert r.events[0].HasField("play_accepted")
        view = await alice.view(mid)
    # A valid play: the bot accepts or checks (it holds), then plays its own turn.
    assert view.to_move_seat == 0 and not view.HasField("pending")
    move = client_moves(view)[0]
    await alice.submit(mid, play_move(move.to_play(0)), view.last_seq)
    view, events = await _until_alice_decides_or_moves(alice, mid, view.last_seq)
    kinds = [ev.WhichOneof("kind") for ev in events]
    assert kinds[0] == "play_pending"
    assert kinds[1] in ("play_accepted", "play_checked"), kinds
    if kinds[1] == "play_checked":
        assert events[1].play_checked.result == c.CHECK_RESULT_HELD
    assert any(k in ("play_pending", "tiles_exchanged", "turn_passed") for k in kinds[2:]), kinds
    assert view.seats[0].score == move.score
