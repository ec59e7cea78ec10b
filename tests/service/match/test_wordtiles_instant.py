"""A Word Tiles table with the instant challenge mode (lobby.proto offers it for every family):
a play whose word is not in the lexicon is refused at once, as in classic, instead of waiting for
accept-or-check; accept-or-check is refused for a family that does not play it."""

from __future__ import annotations

import itertools

import grpc
import pytest
from match_harness import Harness, Player

from wordarena.engine.lexicon import load_lexicon
from wordarena.services.common.errors import details_of
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import errors_pb2 as e

#: The English word list the match plays with: the test's own reading of the lexicon.
LEXICON = load_lexicon("en")


async def _non_word_play(player: Player, mid: str) -> tuple[c.Move, int]:
    """Two of the player's letters across the centre that spell no word of the word list."""
    view = await player.view(mid)
    letters = [t.letter for t in view.rack.tiles if not t.is_blank]
    a, b = next((x, y) for x, y in itertools.permutations(letters, 2) if x + y not in LEXICON)
    centre = view.board.rows // 2
    move = c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=centre, col=centre), letter=a),
        c.Placement(square=c.Square(row=centre, col=centre + 1), letter=b)]))
    return move, view.last_seq


async def _mover(harness: Harness, srv: object, mid: str) -> Player:
    alice, bob = harness.player(srv, "alice"), harness.player(srv, "bob")  # type: ignore[arg-type]
    return (alice, bob)[(await alice.view(mid)).to_move_seat]


async def test_instant_word_tiles_refuses_a_non_word_at_once(harness: Harness) -> None:
    srv = await harness.start()
    instant = await harness.create(srv, ruleset="wordtiles", seed=11, challenge_mode=c.CHALLENGE_MODE_INSTANT)
    player = await _mover(harness, srv, instant)
    move, seq = await _non_word_play(player, instant)
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await player.submit(instant, move, seq)
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    (violation,) = [d for d in details_of(ei.value) if isinstance(d, e.RuleViolation)]
    assert violation.code == e.RULE_CODE_WORD_NOT_IN_LEXICON
    assert not (await player.view(instant)).HasField("pending")
    # The same kind of play at a default Word Tiles table waits for the next player's decision.
    usual = await harness.create(srv, ruleset="wordtiles", seed=11)
    player = await _mover(harness, srv, usual)
    move, seq = await _non_word_play(player, usual)
    await player.submit(usual, move, seq)
    assert (await player.view(usual)).HasField("pending")


async def test_accept_or_check_is_refused_for_classic(harness: Harness) -> None:
    srv = await harness.start()
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await harness.create(srv, ruleset="classic", challenge_mode=c.CHALLENGE_MODE_ACCEPT_OR_CHECK)
    assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "options.challenge_mode" in str(details_of(ei.value))
