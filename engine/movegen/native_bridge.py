"""The native move-generation core (C, engine/movegen/native/movegen.c) and the choice of
implementation.

``WORDARENA_MOVEGEN`` picks the generator: ``auto`` (the default: native when the extension was
built, else Python, with a one-line notice on stderr at first use), ``native`` (an error when the
extension is missing) or ``python`` (the pure-Python reference, ``engine.movegen.generator``).

The C core is handed flat arrays: the lexicon's own (``first``, ``targets``, ``terminal``) with
the tile-letter index of each edge and the child letters of each node (computed once per
lexicon and alphabet), and per position the board, the rack and the scorer's per-square tables
(``tables.SquareTables``, flattened once per ruleset and board effects). War of Words wildcards
are letter index ``len(letters)`` (``engine/movegen/native/wildcards.c`` walks them as node
sets); open portal pairs come as the chains of squares the lines follow (``portal_arrays``,
``engine/movegen/native/portals.c``). What :func:`native_moves` declines with None goes to the
Python generator (see docs/movegen.md).
"""

from __future__ import annotations

import os
import sys
from array import array
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType
from typing import Any

from wordarena.engine.board import Cells
from wordarena.engine.errors import InputError
from wordarena.engine.lexicon import Lexicon
from wordarena.engine.movegen.move import Move, NewTile
from wordarena.engine.movegen.portals import line_geometry
from wordarena.engine.movegen.tables import SquareTables
from wordarena.engine.placement import Links
from wordarena.engine.rulesets.model import FirstPlay, Ruleset
from wordarena.engine.scoring import BoardEffects, tile_value
from wordarena.engine.tiles import BLANK, WILDCARD, Tile

ENV = "WORDARENA_MOVEGEN"
CHOICES = ("auto", "native", "python")
_NO_LETTER = 255
_MAX_LINE = 64
_MAX_TILES = 15
_MAX_SPAN = 256  # longest chain of squares through portals (MAXSPAN in movegen.h)


def _load() -> tuple[ModuleType | None, str]:
    try:
        from wordarena.engine.movegen import native_core  # type: ignore[attr-defined]
    except ImportError as exc:
        return None, str(exc)
    return native_core, ""


_module, _why = _load()
_noticed = False


def implementation() -> str:
    """``native`` or ``python``: the generator ``api.generate`` uses, as ``WORDARENA_MOVEGEN``
    asks (read at every call, so tests and tools may switch it). Raises ``InputError`` when
    the native one is asked for but was not built."""
    global _noticed
    wanted = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if wanted not in CHOICES:
        raise InputError(f"{ENV} must be one of {', '.join(CHOICES)}, not {wanted!r}", ENV)
    if wanted == "python":
        return "python"
    if _module is None:
        if wanted == "native":
            raise InputError(
                f"{ENV}=native, but the native move generator is not built ({_why}); "
                "reinstall wordarena with a C compiler, or set it to auto or python", ENV)
        if not _noticed:
            _noticed = True
            print("wordarena: native move generator unavailable; using the pure-Python one",
                  file=sys.stderr)
        return "python"
    return "native"


def available() -> bool:
    """True when the native extension was built and imports."""
    return _module is not None


def native_module() -> ModuleType | None:
    """The extension module (``native_core``), None when it was not built. For the other
    native entry points beside the generator (the end-game search, engine.bots.endgame_native)."""
    return _module


# -- the lexicon, as the C core walks it --------------------------------------------------------

_dawgs: dict[tuple[int, tuple[str, ...]], tuple[Any, tuple[Any, ...]]] = {}


def dawg_arrays(lexicon: Any, letters: tuple[str, ...]) -> tuple[Any, ...]:
    """(first, targets, terminal, edge letter indexes, child bits per node, root, ordered) of
    ``lexicon`` for the tile letters ``letters`` (cached per lexicon and alphabet); ordered:
    every node's edges in ascending letter order (the compiler's order when the tile letters
    are the alphabet's), so the core finds a letter's edge by counting."""
    key = (id(lexicon), letters)
    found = _dawgs.get(key)
    if found is None or found[0] is not lexicon:
        assert _module is not None
        # the lexicon's edges hold alphabet indexes; the core wants tile-letter indexes
        tile = {ch: k for k, ch in enumerate(letters)}
        table = bytes(tile.get(ch, _NO_LETTER) for ch in lexicon.alphabet)
        if table == bytes(range(len(table))):  # the same order: the file's bytes as they are
            edge_letters = lexicon.edge_index
        else:
            edge_letters = bytes(lexicon.edge_index).translate(table.ljust(256, b"\xff"))
        kids = array("Q", bytes(8 * len(lexicon.terminal)))
        ordered = _module.kid_bits(lexicon.first, edge_letters, kids)
        if len(_dawgs) > 16:
            _dawgs.clear()
        arrays = (lexicon.first, lexicon.targets, lexicon.terminal, edge_letters, kids,
                  lexicon.root, ordered)
        found = _dawgs[key] = (lexicon, arrays)
    return found[1]


# -- the per-square tables, flat ----------------------------------------------------------------

_flat: dict[int, tuple[SquareTables, tuple[Any, ...]]] = {}


def flat_tables(tables: SquareTables) -> tuple[Any, ...]:
    """(new_value, word_mult, cross_factor, blocked, free_start, bingo) of ``tables`` as flat
    arrays (cached per tables object)."""
    found = _flat.get(id(tables))
    if found is None or found[0] is not tables:
        letters = tables.letters
        new_value = array("i", [v[ch] for v in tables.new_value for ch in letters])
        arrays = (
            new_value,
            array("i", tables.word_mult),
            array("i", tables.cross_factor),
            bytes(tables.blocked),
            bytes(tables.free_start),
            array("i", tables.bingo),
        )
        if len(_flat) > 256:
            _flat.clear()
        found = _flat[id(tables)] = (tables, arrays)
    return found[1]


_faces: dict[tuple[int, BoardEffects, tuple[str, ...]], tuple[Ruleset, array[int]]] = {}


def face_values(ruleset: Ruleset, effects: BoardEffects, letters: tuple[str, ...]) -> array[int]:
    """``tile_value`` of a tile on the board per tile-letter index (``letters``, then the
    wildcard) and blank: entry ``2 * index + blank`` (cached per ruleset, effects and
    alphabet)."""
    key = (id(ruleset), effects, letters)
    found = _faces.get(key)
    if found is None or found[0] is not ruleset:
        values = array("i", [tile_value(ruleset, Tile(letter, blank, 0), effects)
                             for letter in (*letters, WILDCARD) for blank in (False, True)])
        if len(_faces) > 64:
            _faces.clear()
        found = _faces[key] = (ruleset, values)
    return found[1]


# -- War of Words portals ------------------------------------------------------------------------

PortalArrays = tuple["array[int]", "array[int]", "array[int]", "array[int]"]
_portals: dict[tuple[int, tuple[tuple[int, int], ...]], tuple[Ruleset, PortalArrays | None]] = {}


def portal_arrays(ruleset: Ruleset, links: Links) -> PortalArrays | None:
    """(partner, perp, squares, chains) of the open portal pairs ``links`` for the C core
    (``native/portals.c``): each square's partner (-1: none); each square's line id across then
    down; the squares of every chain, across first, lines before rings; and per chain (offset,
    length, across, ring). Cached per board and pairs; None when a chain is longer than the
    core's lines (``_MAX_SPAN``: impossible on a board of up to 256 squares)."""
    key = (id(ruleset), tuple(sorted(links.items())))
    found = _portals.get(key)
    if found is None or found[0] is not ruleset:
        geometry = line_geometry(ruleset, links)
        size = ruleset.board.rows * ruleset.board.cols
        partner = array("i", [-1] * size)
        for s, t in links.items():
            partner[s] = t
        perp = array("i", [0] * (2 * size))
        squares = array("i")
        chains = array("i")
        too_long = False
        for across in (True, False):
            lines, rings = geometry[across]
            for k, line in enumerate([*lines, *rings]):
                too_long |= len(line) > _MAX_SPAN
                for s in line:
                    perp[(0 if across else size) + s] = k
                chains.extend((len(squares), len(line), int(across), int(k >= len(lines))))
                squares.extend(line)
        if len(_portals) > 64:
            _portals.clear()
        found = _portals[key] = (ruleset, None if too_long else (partner, perp, squares, chains))
    return found[1]


@cache
def _letter_index(letters: tuple[str, ...]) -> dict[str, int]:
    """Tile-letter index of each letter, the wildcard last (a wildcard on the board)."""
    return {**{ch: k for k, ch in enumerate(letters)}, WILDCARD: len(letters)}


Judge = Callable[[tuple[NewTile, ...]], Move | None]


def native_moves(
    ruleset: Ruleset, tables: SquareTables, lexicon: Any, cells: Cells, rack: Sequence[str],
    effects: BoardEffects, links: Links | None = None, judge: Judge | None = None,
    limit: int | None = None,
) -> list[Move] | None:
    """Every legal play (best first) from the C core, or None when it declines the position:
    a lexicon that is not a compiled ``Lexicon``, a board or rack past its limits, or War of
    Words wildcards whose node sets outgrow the core's stack (none seen in the tests).

    ``links``: War of Words open portal pairs (as for ``engine.placement.check_placement``);
    ``judge`` then checks and scores the plays whose tiles share a cross word through a portal
    (``engine.movegen.portals.judged_move``). ``limit``: only the first ``limit`` moves of that
    list (the others are found and ordered, but not built as ``Move`` tuples)."""
    if not isinstance(lexicon, Lexicon):  # the core walks a compiled DAWG's arrays only
        return None
    portals: tuple[Any, ...] | None = None
    if links:
        if judge is None:
            raise ValueError("portal positions need a judge for the plays on entangled squares")
        flat = portal_arrays(ruleset, links)
        if flat is None:
            return None
        portals = (*flat, judge)
    letters = tables.letters
    index = _letter_index(letters)
    counts = bytearray(len(letters) + 1)
    blanks = 0
    for token in rack:
        k = index.get(token)
        if k is not None:
            counts[k] += 1
        elif token == BLANK:
            blanks += 1
    wildcards = counts.pop()
    if (tables.rows > _MAX_LINE or tables.cols > _MAX_LINE or len(letters) > 63
            or sum(counts) + blanks + wildcards > min(_MAX_TILES, len(tables.bingo) - 1)):
        return None
    new_value, word_mult, cross_factor, blocked, free_start, bingo = flat_tables(tables)
    first, targets, terminal, edge_letters, kids, root, ordered = dawg_arrays(lexicon, letters)
    start = ruleset.board.start
    bonus = tables.bonus_letter
    assert _module is not None
    # the core reads the board from ``cells`` itself (that loop over every square, in Python
    # here, was about a tenth of a mid-game generation)
    board = cells if type(cells) is tuple else tuple(cells)
    moves: list[Move] | None = _module.generate(
        first, targets, terminal, edge_letters, kids, root, tables.rows, tables.cols,
        board, face_values(ruleset, effects, letters), new_value, word_mult, cross_factor,
        blocked, free_start, bingo, int(tables.additive), -1 if bonus is None else index[bonus],
        tables.bonus_points, counts, blanks, wildcards, ruleset.first_play_min_tiles,
        int(ruleset.first_play is FirstPlay.START_SQUARE), -1 if start is None else start,
        (*letters, WILDCARD), Move, portals, -1 if limit is None else limit, int(ordered),
    )
    return moves
