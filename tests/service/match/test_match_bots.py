"""Bot seats play with ``engine.bots``: in Word Tiles a bot decides on the pending play (level 3+
checks a word it does not know), then plays its own turn; bot moves run off the event loop."""

from __future__ import annotations

import asyncio
import itertools

from match_harness import Harness, play_move
from wordarena.engine.analysis import word_strength
from wordarena.engine.game import Play
from wordarena.engine.movegen import generate_moves
from wordarena.engine.placement import Placement
from wordarena.v1 import match_pb2 as m


async def _wait_turn(rt: object, seat: int, timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if rt.state.over or rt.state.to_move == seat:  # type: ignore[attr-defined]
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the bot did not move")


async def test_wordtiles_bot_accepts_or_checks_then_plays(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="wordtiles", players=("alice",), bots=(3,), seed=5)
    alice = harness.player(srv, "alice")
    rt = srv.manager.matches[mid]
    moves = generate_moves(rt.state, 0)
    # A play with a word the lexicon lacks: the level-3 bot checks it and the play fails.
    best = moves[0].placements()
    bogus = None
    for perm in itertools.permutations([p.letter for p in best]):
        pls = tuple(Placement(p.row, p.col, letter, p.blank) for p, letter in zip(best, perm, strict=True))
        if word_strength(rt.state, pls, 0, moves).invalid_words:
            bogus = pls
            break
    if bogus is not None:
        await alice.submit(mid, play_move(Play(0, bogus)), rt.seq)
        await _wait_turn(rt, 0)
        kinds = [ev.kind for ev in rt.events]
        assert "play-checked" in kinds
        checked = next(ev for ev in rt.events if ev.kind == "play-checked")
        assert not checked.payload["engine"][0]["data"].get("held")
    if rt.state.pending is not None:  # the bot's own play awaits Alice's decision
        await alice.stub.DecidePending(m.DecidePendingRequest(
            match_id=mid, expected_seq=rt.seq, request_id="accept-1", decision=m.DECISION_ACCEPT),
            metadata=alice.md)
    # A valid play: the bot accepts or checks (it holds), then plays its own turn.
    moves = generate_moves(rt.state, 0)
    before = len(rt.events)
    await alice.submit(mid, play_move(moves[0].to_play(0)), rt.seq)
    await _wait_turn(rt, 0)
    kinds = [ev.kind for ev in rt.events[before:]]
    assert kinds[0] == "play-pending"
    assert kinds[1] in ("play-accepted", "play-checked")
    assert any(k in ("play-pending", "tiles-exchanged", "turn-passed") for k in kinds[2:])
    assert rt.state.to_move == 0
