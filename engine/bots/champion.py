"""Level 6 ("champion"): the simulated choice of a play, and the seam to the exact end game.

* :func:`simulated_pick` — while the bag has tiles (the pre-end-game included: the worlds of
  ``engine.bots.simulation`` are then the possible bags), the candidate with the best simulated
  result; None means "exchange" (the bot's own exchange choice);
* :func:`endgame_action` — with the bag empty in a 2-player game, the exact end-game search
  (``engine.bots.endgame.solve_endgame``) where it applies; None otherwise (War of Words,
  3–4 players), and the bot falls back to level 5's end game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from wordarena.engine.bots import endgame
from wordarena.engine.bots.leaves import LeaveTable
from wordarena.engine.bots.simulation import SimSettings, candidates_of, simulate
from wordarena.engine.game.actions import Action
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import Move

#: The end game's node budget when a bot has no time budget: about 0.15 CPU s with the native
#: search (C), 1–2 s with the Python one; the same nodes and move with either (bench/results/bots-history.md).
ENDGAME_NODES = 20_000


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


def endgame_action(state: GameState, lexicon: Any, budget_s: float, seed: int) -> Action | None:
    """The exact end game's action (``engine.bots.endgame``: bag empty, 2 players, a family the
    search covers; the C search when the extension is built, else the Python one), or None
    when the position is not such an end game (War of Words, 3–4 players, a pending play):
    the bot then plays level 5's end game. ``budget_s`` 0 (no time
    budget, as in repeatable benches) bounds the search by :data:`ENDGAME_NODES` instead."""
    if not endgame.supports(state):
        return None
    lex = lexicon if lexicon is not None else state.lexicon
    if budget_s > 0:
        return endgame.solve_endgame(state, lex, budget_s, seed).action
    return endgame.solve_endgame(state, lex, math.inf, seed, node_limit=ENDGAME_NODES).action
