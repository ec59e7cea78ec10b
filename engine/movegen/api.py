"""Move generation on game states."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from engine.errors import InputError
from engine.game.state import GameState
from engine.movegen.generator import generate
from engine.movegen.move import Move

_score = itemgetter(0)


def sort_moves(moves: list[Move]) -> list[Move]:
    """Best first, by score; equal scores keep the generator's (deterministic) order."""
    moves.sort(key=_score, reverse=True)
    return moves


def generate_moves(
    state: GameState, seat: int | None = None, lexicon: Any = None, *, ordered: bool = True
) -> list[Move]:
    """Every legal letter play for ``seat`` (default: the seat to move) in ``state``.

    Uses the state's lexicon unless ``lexicon`` is given. Every move returned is accepted by
    ``engine.game.apply`` (as ``move.to_play(seat)``) with the same score. ``ordered`` sorts
    best first."""
    lex = lexicon if lexicon is not None else state.lexicon
    if lex is None:
        raise InputError("move generation needs a lexicon", "lexicon")
    who = state.to_move if seat is None else seat
    if not 0 <= who < state.players:
        raise InputError(f"there is no seat {who}", "seat")
    moves = generate(state.ruleset, state.cells, state.racks[who], lex, state.board_effects)
    return sort_moves(moves) if ordered else moves
