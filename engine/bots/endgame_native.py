"""The native end-game search (C, ``engine/movegen/native/endgame*.c``): the arrays it is handed.

The C search is the same search as ``engine.bots.endgame`` (negamax, alpha-beta, iterative
deepening, principal variation search, the same move ordering and table rules), run on
incremental C state with the native move generator's internals. What it does not compute
itself comes from the engine, as in the Python search:

* a play's score: the generator's scoring (the same C code as ``engine.movegen.native_moves``,
  fed the same per-square tables, ``engine.movegen.tables``);
* the end of the game: the engine's ``end_game``, called back from C (``final``) and cached per
  (racks, reason, out seat);
* the run of zero turns: the family's ``zero_turns.counts`` and the engine's ``zero_turn_limit``;
* tile face values: ``engine.scoring.tile_value`` per (letter, blank), as the generator
  reads them (``native_bridge.face_values``).

:func:`run` returns None when the native search cannot take the position (the extension is not
built, the lexicon is not a compiled DAWG, a rack token outside the tile set): the caller then
runs the Python search.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from wordarena.engine.game.endgame import zero_turn_limit
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import Lexicon
from wordarena.engine.movegen import Move
from wordarena.engine.movegen.native_bridge import (
    dawg_arrays,
    face_values,
    flat_tables,
    native_module,
)
from wordarena.engine.movegen.tables import square_tables
from wordarena.engine.rulesets.model import FirstPlay
from wordarena.engine.tiles import BLANK

#: log2 of the transposition table's slots (32 bytes each: 2**20 is 32 MB, touched lazily).
TT_BITS = 20
_KINDS = {"word": 1, "scoreless": 2, "pass": 4}  # EG_WORD, EG_SCORELESS, EG_PASS (endgame.h)

Final = Callable[[tuple[str, ...], tuple[str, ...], str, "int | None"], tuple[int, int]]
#: (value for the seat to move from here, exact, nodes, depth of the last iteration, line)
Raw = tuple[int, bool, int, int, list[Move | None]]


def available() -> bool:
    """True when the extension with the native end-game search is built."""
    core = native_module()
    return core is not None and hasattr(core, "endgame_search")


def run(
    state: GameState, lexicon: Any, budget_s: float, node_limit: int | None, cutoffs: bool,
    final: Final,
) -> Raw | None:
    """The native search from ``state`` (see the module doc), or None when it cannot take it.
    ``final(rack0, rack1, reason, out_seat)``: what the engine's ``end_game`` adds to each
    seat's score with those racks. A pass in the line is None."""
    core = native_module()
    if core is None or not hasattr(core, "endgame_search") or not isinstance(lexicon, Lexicon):
        return None
    ruleset, effects = state.ruleset, state.board_effects
    tables = square_tables(ruleset, effects)
    letters = tables.letters
    nl = len(letters)
    index = {ch: k for k, ch in enumerate(letters)}
    index[BLANK] = nl
    racks = []
    for rack in state.racks:
        counts = bytearray(nl + 1)
        for token in rack:
            k = index.get(token)
            if k is None:
                return None
            counts[k] += 1
        racks.append(bytes(counts))
    cells = bytearray(b"\xff" * len(state.cells))
    face = array("i", bytes(4 * len(state.cells)))
    old_bonus = bytearray(len(state.cells))
    bonus = tables.bonus_letter
    face_of = face_values(ruleset, effects, letters)  # the generator's, per letter and blank
    for s, tile in enumerate(state.cells):
        if tile is None:
            continue
        k = index.get(tile.letter)
        if k is None or k == nl:
            return None
        cells[s] = k
        face[s] = face_of[2 * k + tile.blank]
        old_bonus[s] = tile.letter == bonus and not tile.blank
    value = ruleset.tiles.value
    values = array("i", [value(ch) for ch in (*letters, BLANK)])
    kinds = sum(bit for kind, bit in _KINDS.items() if kind in ruleset.zero_turns.counts)
    limits = (zero_turn_limit(state.evolve(scores=(1, 0))),
              zero_turn_limit(state.evolve(scores=(0, 0))))
    new_value, word_mult, cross_factor, blocked, free_start, bingo = flat_tables(tables)
    start = ruleset.board.start
    got = core.endgame_search(
        dawg_arrays(lexicon, letters),
        (tables.rows, tables.cols, new_value, word_mult, cross_factor, blocked, free_start, bingo,
         int(tables.additive), -1 if bonus is None else index[bonus], tables.bonus_points),
        (bytes(cells), face, bytes(old_bonus), face_of),
        (racks[0], racks[1], state.to_move, state.zero_run, int(any(state.scores)),
         int(ruleset.first_play is FirstPlay.START_SQUARE), -1 if start is None else start,
         ruleset.first_play_min_tiles),
        (*limits, kinds, values),
        budget_s, -1 if node_limit is None else node_limit, int(cutoffs), final,
        (*letters, BLANK), TT_BITS,
    )
    result, exact, nodes, depth, line = got
    cols = tables.cols
    moves: list[Move | None] = [
        None if m is None else Move(m[0], m[1], m[2], cols) for m in line
    ]
    return result, exact, nodes, depth, moves
