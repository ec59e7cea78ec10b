"""Move generation: every legal play of a position, exactly as the validator and scorer see it.

* :func:`generate_moves` — the moves of the player to move (or of ``seat``) in a ``GameState``,
  best first;
* :func:`generate` — the same on bare data (ruleset, cells, rack, lexicon, board effects);
* :class:`Move` — score, new tiles (square, letter, blank), direction; ``move.to_play(seat)``
  gives the ``engine.game.Play`` action;
* :func:`describe_move` — position (``8H``), words formed and score breakdown of a move.
"""

from wordarena.engine.movegen.api import generate, generate_moves, sort_moves
from wordarena.engine.movegen.lexwalk import clear_caches
from wordarena.engine.movegen.move import Move, MoveInfo, describe_move

__all__ = [
    "Move", "MoveInfo", "clear_caches", "describe_move", "generate", "generate_moves", "sort_moves",
]
