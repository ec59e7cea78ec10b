"""Move generation: every legal play of a position, exactly as the validator and scorer see it.

* entry points
  * ``api``           generation on game states and on bare data, native or Python as ``native_bridge`` says
  * ``move``          ``Move`` (score, new tiles, direction) and ``describe_move`` (``8H``, words, breakdown)
* the Python generator (Appel–Jacobson over the compiled DAWG), one concept a module
  * ``generator``     the drive: anchors, cross-checks, left parts, recording each move
  * ``generation``    the state of one generation, shared by its phases
  * ``extend``        extend-right over one DAWG node at a time: the hot loop
  * ``wildcards``     extend-right for War of Words wildcards, over sets of DAWG nodes
  * ``before_run``    left parts in front of a run of tiles, read backwards from the run
  * ``portals``       generation through War of Words portals
  * ``lexwalk``       walking the compiled lexicon: child maps, wildcard walks, cross-checks
  * ``tables``        per-square tables of the scorer's factors, so the inner loop adds plain numbers
* the C generator (``native/``)
  * ``native_bridge`` the arrays handed to the C core, and the choice of implementation
    (``WORDARENA_MOVEGEN``)

Public API:

* :func:`generate_moves` — the moves of the player to move (or of ``seat``) in a ``GameState``,
  best first;
* :func:`generate` — the same on bare data (ruleset, cells, rack, lexicon, board effects);
* :class:`Move` — ``move.to_play(seat)`` gives the ``engine.game.Play`` action;
* :func:`describe_move` — position (``8H``), words formed and score breakdown of a move.
"""

from wordarena.engine.movegen.api import generate, generate_moves, sort_moves
from wordarena.engine.movegen.lexwalk import clear_caches
from wordarena.engine.movegen.move import Move, MoveInfo, describe_move

__all__ = [
    "Move", "MoveInfo", "clear_caches", "describe_move", "generate", "generate_moves", "sort_moves",
]
