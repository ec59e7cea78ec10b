"""Level 6 ("champion"): the simulated choice of a play, and the seam to the exact end game.

* :func:`simulated_pick` — while the bag has tiles (the pre-end-game included: the worlds of
  ``engine.bots.simulation`` are then the possible bags), the candidate with the best simulated
  result; None means "exchange" (the bot's own exchange choice);
* :func:`endgame_action` — with the bag empty in a 2-player game, the exact end-game search
  (``engine.bots.endgame.solve_endgame``) when that module is installed; None otherwise, and
  the bot falls back to level 5's end game.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from wordarena.engine.bots.leaves import LeaveTable
from wordarena.engine.bots.simulation import SimSettings, candidates_of, simulate
from wordarena.engine.game.actions import Action
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move

ENDGAME_MODULE = "wordarena.engine.bots.endgame"


def simulated_pick(
    state: GameState,
    moves: Sequence[Move],
    table: LeaveTable,
    lexicon: Any,
    exchange: tuple[tuple[str, ...], float] | None,
    settings: SimSettings,
    seed: int,
) -> Move | None:
    """The play (None: the exchange) that simulates best for the seat to move. ``exchange``
    is the bot's best exchange (tiles kept, leave value) or None when it may not exchange."""
    if not moves:
        return None
    seat = state.to_move
    found = candidates_of(state, seat, moves, table, settings.candidates, exchange)
    lex = lexicon if lexicon is not None else state.lexicon
    result = simulate(state, seat, found, lex, table, settings, seed)
    best = result.best
    return moves[0] if best is None else best.move


def _endgame_module() -> ModuleType | None:
    # Imported by name so that this module works before the end-game search is merged.
    try:
        return importlib.import_module(ENDGAME_MODULE)
    except ImportError:
        return None


def endgame_action(state: GameState, lexicon: Any, budget_s: float, seed: int) -> Action | None:
    """The exact end game's action (bag empty, 2 players, no pending play), or None when the
    position is not an end game or the search is not available."""
    if state.bag or state.players != 2 or state.pending is not None or state.over:
        return None
    module = _endgame_module()
    if module is None:
        return None
    lex = lexicon if lexicon is not None else state.lexicon
    result = module.solve_endgame(state, lex, budget_s, seed)
    action: Action | None = getattr(result, "action", None)
    return action
