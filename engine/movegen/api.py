"""Move generation on game states."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from functools import partial
from operator import itemgetter
from typing import Any

from wordarena.engine.board import Cells
from wordarena.engine.errors import InputError
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen.generator import Generator
from wordarena.engine.movegen.lexwalk import walker_for
from wordarena.engine.movegen.move import Move
from wordarena.engine.movegen.native_bridge import implementation, native_moves
from wordarena.engine.movegen.portals import PortalGenerator, judged_move
from wordarena.engine.movegen.tables import square_tables
from wordarena.engine.placement import NO_LINKS, Links
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.scoring import NO_EFFECTS, BoardEffects

_score = itemgetter(0)
_tiles = itemgetter(1)


def generate(
    ruleset: Ruleset,
    cells: Cells,
    rack: Sequence[str],
    lexicon: Any,
    effects: BoardEffects = NO_EFFECTS,
    links: Links = NO_LINKS,
    *,
    ordered: bool = False,
    limit: int | None = None,
) -> list[Move]:
    """Every legal play of ``rack`` on ``cells`` (letter plays only; action tiles are ignored).
    ``ordered`` sorts them best first (``sort_moves``); ``limit``: only the ``limit`` best,
    best first (the native core then builds no others).

    ``links`` are War of Words open portal pairs (square -> partner, as for
    ``engine.placement.check_placement``): lines are then read through them (see ``portals``);
    without links the plain rows and columns are walked, exactly as before.

    The one dispatch point between the native core and the pure-Python generator
    (``engine.movegen.native_bridge``, ``WORDARENA_MOVEGEN``): the native core answers every position
    it covers (its moves come best first, as ``sort_moves`` orders them); the Python generator
    those it declines (see docs/movegen.md)."""
    if limit is not None and limit < 0:
        raise InputError(f"limit must be at least 0, not {limit}", "limit")
    moves, in_order = _generate(ruleset, cells, rack, lexicon, effects, links, limit)
    if in_order or not (ordered or limit is not None):
        return moves
    return sort_moves(moves) if limit is None else sort_moves(moves)[:limit]


def native_generate(
    ruleset: Ruleset, cells: Cells, rack: Sequence[str], lexicon: Any,
    effects: BoardEffects = NO_EFFECTS, links: Links = NO_LINKS, limit: int | None = None,
) -> list[Move] | None:
    """The native core's moves (best first; the first ``limit`` of them), or None when it
    declines the position."""
    tables = square_tables(ruleset, effects)
    judge = partial(judged_move, ruleset, cells, links, lexicon, effects) if links else None
    return native_moves(ruleset, tables, lexicon, cells, rack, effects, links, judge, limit)


def _generate(
    ruleset: Ruleset, cells: Cells, rack: Sequence[str], lexicon: Any, effects: BoardEffects,
    links: Links, limit: int | None = None,
) -> tuple[list[Move], bool]:
    """``generate``'s moves, and whether they are already in ``sort_moves`` order (then only
    the first ``limit`` of them; else all of them)."""
    if implementation() == "native":
        moves = native_generate(ruleset, cells, rack, lexicon, effects, links, limit)
        if moves is not None:
            return moves, True
    tables = square_tables(ruleset, effects)
    walker = walker_for(lexicon, tables.letters)
    # The generator makes no reference cycles; the cyclic collector would only rescan the many
    # small tuples it allocates, so it is paused for the call.
    paused = gc.isenabled()
    gc.disable()
    try:
        if links:
            return PortalGenerator(ruleset, tables, walker, cells, rack, effects, links).run(), False
        return Generator(ruleset, tables, walker, cells, rack, effects).run(), False
    finally:
        if paused:
            gc.enable()


def sort_moves(moves: list[Move]) -> list[Move]:
    """Best first, by score; equal scores by their tiles (square, letter, blank, in reading
    order, as tuples compare): one order whichever generator found the moves, so a seeded bot
    plays the same game on the native core and on the Python one."""
    moves.sort(key=_tiles)
    moves.sort(key=_score, reverse=True)
    return moves


def generate_moves(
    state: GameState, seat: int | None = None, lexicon: Any = None, *, ordered: bool = True,
    limit: int | None = None,
) -> list[Move]:
    """Every legal letter play for ``seat`` (default: the seat to move) in ``state``.

    Uses the state's lexicon unless ``lexicon`` is given. Every move returned is accepted by
    ``engine.game.apply`` (as ``move.to_play(seat)``) with the same score. ``ordered`` sorts
    best first. ``limit``: only the ``limit`` best (ordered), the same list as
    ``generate_moves(state, seat, lexicon)[:limit]``; on the native core the others are not
    built as ``Move`` tuples.

    War of Words Portals: on a position with an open portal pair lines are read through the
    portals (``engine.movegen.portals``), so plays through a portal are generated too."""
    lex = lexicon if lexicon is not None else state.lexicon
    if lex is None:
        raise InputError("move generation needs a lexicon", "lexicon")
    who = state.to_move if seat is None else seat
    if not 0 <= who < state.players:
        raise InputError(f"there is no seat {who}", "seat")
    ruleset = board_ruleset(state)
    links: Links = NO_LINKS
    if state.effects:
        from wordarena.engine.warofwords.arena import portal_links

        links = portal_links(state) or NO_LINKS
    return generate(ruleset, state.cells, state.racks[who], lex, state.board_effects, links,
                    ordered=ordered, limit=limit)


_live: dict[tuple[int, tuple[Any, ...]], tuple[Ruleset, Ruleset]] = {}


def board_ruleset(state: GameState) -> Ruleset:
    """The ruleset whose board is the board as it is now: in War of Words, multipliers placed,
    grown or destroyed and scenery destroyed by action tiles (``engine.warofwords.arena``);
    cached per set of changes, so move generation reuses its square tables."""
    if not state.effects:
        return state.ruleset
    from wordarena.engine.warofwords.arena import SquareChange, live_ruleset

    changes = tuple(e for e in state.effects if isinstance(e, SquareChange))
    if not changes:
        return state.ruleset
    key = (id(state.ruleset), changes)
    found = _live.get(key)
    if found is None or found[0] is not state.ruleset:
        if len(_live) > 64:
            _live.clear()
        found = _live[key] = (state.ruleset, live_ruleset(state))
    return found[1]
