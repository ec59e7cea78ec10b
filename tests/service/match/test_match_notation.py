"""Notation over gRPC: ``turn_played.notation`` names the square where the main word starts, even
when that square holds a tile already on the board, and typing it back places the same tiles.

Everything the test knows comes from the client's side: the board and rack of ``GetMatch``, the
events of ``StreamMatch``. The engine's move generator is the test's oracle for a legal play.
"""

from __future__ import annotations

from typing import Any

from match_harness import Harness, client_cells, client_rack, pass_move

from wordarena.engine.families import parse_ruleset_id
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate
from wordarena.engine.notation import placements_from_word, word_from_placements
from wordarena.engine.tiles import Tile
from wordarena.v1 import common_pb2 as c
from wordarena.v1 import match_pb2 as m

MAX_TURNS = 30


def _square(p: Any) -> tuple[int, int]:
    return p.row, p.col


def _through_first(ruleset: Any, cells: tuple[Tile | None, ...], rack: list[str]) -> Any:
    """A legal play whose main word starts on a tile already on the board, or None."""
    for move in generate(ruleset, cells, rack, load_lexicon(ruleset.lexicon)):
        _, word = word_from_placements(ruleset.board, cells, move.placements(), move.across)
        if word.startswith("."):
            return move
    return None


async def test_turn_played_notation_starts_on_a_tile_already_on_the_board(harness: Harness) -> None:
    srv = await harness.start()
    mid = await harness.create(srv, ruleset="scrabble", seed=11)
    players = [harness.player(srv, "alice"), harness.player(srv, "bob")]
    view = await players[0].view(mid)
    ruleset = parse_ruleset_id(view.ruleset.ruleset_id)
    layout = ruleset.board
    for _ in range(MAX_TURNS):
        me = players[view.to_move_seat]
        view = await me.view(mid)
        cells = client_cells(view)
        move = _through_first(ruleset, cells, client_rack(view)) if any(cells) else None
        if move is None:  # not yet: play on (the oracle's best move) until such a play exists
            await me.submit(mid, _best(ruleset, cells, client_rack(view)), view.last_seq)
            view = await me.view(mid)
            continue
        position, word = word_from_placements(layout, cells, move.placements(), move.across)
        submit = c.Move(play=c.PlayMove(placements=[
            c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
            for p in move.placements()]))
        await me.submit(mid, submit, view.last_seq)
        stream = me.stub.StreamMatch(m.StreamMatchRequest(match_id=mid, after_seq=view.last_seq),
                                     metadata=me.md)
        event = (await stream.read()).event
        stream.cancel()
        assert event.WhichOneof("kind") == "turn_played"
        notation = event.turn_played.notation
        # The square named is where the main word starts: a tile that was already there.
        assert notation == f"{position} {word}", (notation, position, word)
        typed_position, typed_word = notation.split(" ")
        again = placements_from_word(layout, cells, typed_position, typed_word)
        # (Placement does not order: compare by square)
        assert sorted(again, key=_square) == sorted(move.placements(), key=_square)
        return
    raise AssertionError(f"no play through a tile at the start of a word in {MAX_TURNS} turns")


def _best(ruleset: Any, cells: tuple[Tile | None, ...], rack: list[str]) -> c.Move:
    moves = generate(ruleset, cells, rack, load_lexicon(ruleset.lexicon))
    if not moves:
        return pass_move()
    best = max(moves, key=lambda mv: (mv.score, mv.tiles))
    return c.Move(play=c.PlayMove(placements=[
        c.Placement(square=c.Square(row=p.row, col=p.col), letter=p.letter, is_blank=p.blank)
        for p in best.placements()]))

