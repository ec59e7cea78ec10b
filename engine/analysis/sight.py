"""The moves a seat can see: analysis speaks only of what the player can read off the board.

On a board with clouds (War of Words' Cloudy Day in the Park) a move whose tiles or words reach
under a cloud is one the player cannot judge, and an answer naming it (a best play through hidden
letters, a count of legal plays that includes it) would tell what lies there. Hindsight and Word
Strength rank and count among these moves only; elsewhere they are every legal move.
"""

from __future__ import annotations

from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move, generate_moves
from wordarena.engine.warofwords.clouds import reads_under_a_cloud

__all__ = ["visible_moves"]


def visible_moves(state: GameState, seat: int) -> list[Move]:
    """Every legal move of ``seat`` in ``state`` (best first) that reads nothing under a cloud."""
    moves = generate_moves(state, seat)
    if not state.effects:
        return moves
    return [m for m in moves if not reads_under_a_cloud(state, (i for i, _, _ in m.tiles))]
