"""CGP (Crossword Game Position): one line that gives a position without its history.

``<board> <racks> <scores> <zero turns> [opcode operand…;]…`` as macondo and Woogles write it:

- board: rows top to bottom separated by ``/``; a number is a run of empty squares, an upper-case
  letter a tile, a lower-case letter a blank showing that letter; a tile of several characters
  is written in brackets (``[CH]``, blank ``[ch]``);
- racks: one per player, separated by ``/``, the player to move first; ``?`` is a blank; a rack
  may be partly known or empty;
- scores: one per rack, same order, separated by ``/``;
- zero turns: consecutive scoreless turns just before the position;
- operations: an opcode, operands, a closing ``;`` (``lex NWL20;``). wordarena reads ``bdn``
  (board name), ``ld`` (letter distribution), ``lex`` (lexicon) and its own ``ruleset``
  (``ruleset classic/en;``); every other operation is kept as written.

``parse_cgp``/``format_cgp`` translate text and ``Cgp`` exactly; ``position_from_cgp`` and
``position_to_cgp`` translate between CGP and engine states.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wordarena.engine.board import Cells
from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset, parse_ruleset_id
from wordarena.engine.game.rng import rng_for
from wordarena.engine.game.state import GameState, Lexicon, Seat
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.tiles import BLANK, WILDCARD, Tile
from wordarena.engine.warofwords.clouds import hidden_squares

UNKNOWN_OWNER = -1  # the seat of a tile read from a CGP board (CGP does not say who played it)

# Names other programs use, and the wordarena (family, language, board) they stand for.
BOARD_NAMES = {"CrosswordGame": "scrabble", "SuperCrosswordGame": "superscrabble"}
DISTRIBUTION_NAMES = {"english": ("scrabble", "en"), "polish": ("scrabble", "pl")}

Square = tuple[str, bool] | None  # (letter, blank) or empty


@dataclass(frozen=True)
class Cgp:
    """A CGP line, field by field."""

    board: tuple[tuple[Square, ...], ...]
    racks: tuple[tuple[str, ...], ...]  # tokens, player to move first
    scores: tuple[int, ...]
    zero_turns: int
    operations: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def option(self, opcode: str) -> str | None:
        """The operands of the first ``opcode`` operation, joined by spaces (None if absent)."""
        return next((" ".join(args) for op, args in self.operations if op == opcode), None)


# --- text <-> Cgp --------------------------------------------------------------------------


def parse_cgp(text: str) -> Cgp:
    """Parse a CGP line; malformed input raises ``InputError`` naming the field."""
    fields = text.strip().split()
    if len(fields) < 4:
        raise InputError("a CGP line has board, racks, scores and zero-turn fields "
                         f"(found {len(fields)})", "cgp")
    board = _parse_board(fields[0])
    racks = tuple(_parse_rack(r, f"rack {i + 1}") for i, r in enumerate(fields[1].split("/")))
    scores = tuple(_parse_int(s, f"score {i + 1}") for i, s in enumerate(fields[2].split("/")))
    if len(scores) != len(racks):
        raise InputError(f"{len(racks)} racks but {len(scores)} scores", "scores")
    zero = _parse_int(fields[3], "zero turns")
    if zero < 0:
        raise InputError(f"{zero} is negative", "zero turns")
    return Cgp(board, racks, scores, zero, _parse_operations(" ".join(fields[4:])))


def _parse_int(text: str, where: str) -> int:
    body = text[1:] if text[:1] in "+-" else text
    if not body.isdigit():
        raise InputError(f"{text!r} is not a number", where)
    return int(text)


def _parse_board(text: str) -> tuple[tuple[Square, ...], ...]:
    rows = tuple(_parse_row(row, f"board row {i + 1}") for i, row in enumerate(text.split("/")))
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise InputError(f"rows have different widths: {[len(r) for r in rows]}", "board")
    return rows


def _parse_row(text: str, where: str) -> tuple[Square, ...]:
    squares: list[Square] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            run = int(text[i:j])
            if run == 0:
                raise InputError("a run of 0 empty squares", where)
            squares.extend([None] * run)
            i = j
            continue
        letter, i = _read_tile(text, i, where)
        if letter == BLANK:
            raise InputError("'?' is a rack blank; a blank on the board is its lowercase letter",
                             where)
        squares.append(_board_square(letter, where))
    if not squares:
        raise InputError("empty row", where)
    return tuple(squares)


def _board_square(letter: str, where: str) -> tuple[str, bool]:
    if letter == WILDCARD:
        return letter, False
    if letter.isupper():
        return letter, False
    if letter.islower():
        return letter.upper(), True
    raise InputError(f"{letter!r} is neither an upper-case tile nor a lower-case blank", where)


def _read_tile(text: str, i: int, where: str) -> tuple[str, int]:
    """The tile at ``text[i]`` (one character, or ``[XY]``) and the index after it."""
    char = text[i]
    if char == "[":
        end = text.find("]", i)
        if end < 0:
            raise InputError(f"'[' at {i + 1} is not closed", where)
        inner = text[i + 1: end]
        if not inner or "[" in inner:
            raise InputError(f"bad multi-character tile {text[i:end + 1]!r}", where)
        return inner, end + 1
    if char.isalpha() or char in (BLANK, WILDCARD):
        return char, i + 1
    raise InputError(f"unexpected {char!r} at {i + 1}", where)


def _parse_rack(text: str, where: str) -> tuple[str, ...]:
    tokens: list[str] = []
    i = 0
    while i < len(text):
        token, i = _read_tile(text, i, where)
        if token not in (BLANK, WILDCARD) and not token.startswith("@") and not token.isupper():
            raise InputError(f"rack tiles are upper-case letters or '?', not {token!r}", where)
        tokens.append(token)
    return tuple(tokens)


def _parse_operations(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not text:
        return ()
    if not text.rstrip().endswith(";"):
        raise InputError(f"the last operation {text.split(';')[-1].strip()!r} is not closed by "
                         "';'", "operations")
    operations = []
    for n, chunk in enumerate(text.rstrip().split(";")[:-1], start=1):
        parts = chunk.split()
        if not parts:
            raise InputError("empty operation (';;')", f"operation {n}")
        operations.append((parts[0], tuple(parts[1:])))
    return tuple(operations)


def format_cgp(cgp: Cgp) -> str:
    """The CGP line of ``cgp`` (``parse_cgp(format_cgp(c)) == c``)."""
    board = "/".join(_format_row(row) for row in cgp.board)
    racks = "/".join("".join(_token_text(t) for t in rack) for rack in cgp.racks)
    scores = "/".join(str(s) for s in cgp.scores)
    fields = [board, racks, scores, str(cgp.zero_turns)]
    fields.extend(" ".join((op, *args)) + ";" for op, args in cgp.operations)
    return " ".join(fields)


def _format_row(row: Sequence[Square]) -> str:
    out: list[str] = []
    run = 0
    for square in row:
        if square is None:
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        letter, blank = square
        out.append(_token_text(letter.lower() if blank else letter))
    if run:
        out.append(str(run))
    return "".join(out)


def _token_text(token: str) -> str:
    return token if len(token) == 1 else f"[{token}]"


# --- Cgp <-> engine state ------------------------------------------------------------------


def position_from_cgp(
    text: str, ruleset: Ruleset | None = None, lexicon: Lexicon | None = None, seed: int = 0
) -> GameState:
    """The engine state of a CGP position. The first rack is the player to move (seat 0); the
    other seats follow in rack order. The ruleset comes from the ``ruleset`` operation, else
    ``ruleset``, else ``bdn``/``ld``, else Scrabble in English. Tiles on the board and on the
    racks are taken out of the bag, which is shuffled from ``seed``. Words are checked only when
    a ``lexicon`` is given. An impossible position raises ``InputError`` naming the field."""
    cgp = parse_cgp(text)
    rules = cgp_ruleset(cgp, ruleset)
    cells = _cells(cgp, rules)
    _check_racks(cgp, rules)
    used = Counter(t.token for t in cells if t is not None)
    _check_counts(rules, used, Counter(), "board")
    for i, rack in enumerate(cgp.racks):
        used += Counter(rack)
        _check_counts(rules, used, Counter(rack), f"rack {i + 1}")
    bag = list((Counter(rules.tiles.initial_bag()) - used).elements())
    rng_for(seed, 0).shuffle(bag)
    players = len(cgp.racks)
    patches = max(rules.board.water_patch, default=-1) + 1
    return GameState(
        ruleset=rules, seed=seed, cells=cells, racks=cgp.racks, bag=tuple(bag),
        scores=cgp.scores, to_move=0, seats=(Seat.ACTIVE,) * players,
        zero_run=cgp.zero_turns, exchanges=(0,) * players, electrification=(1,) * patches,
        turn=players if used else 0, check_words=lexicon is not None, lexicon=lexicon,
    )


def cgp_ruleset(cgp: Cgp, default: Ruleset | None = None) -> Ruleset:
    """The ruleset a CGP names (``ruleset``, else ``default``, else ``bdn``/``ld``)."""
    named = cgp.option("ruleset")
    if named:
        try:
            return parse_ruleset_id(named)
        except InputError as exc:
            raise InputError(exc.detail, "ruleset") from exc
    if default is not None:
        return default
    family, language = "scrabble", "en"
    board: str | None = None
    ld = cgp.option("ld")
    if ld:
        family, language = _distribution(ld)
    bdn = cgp.option("bdn")
    if bdn:
        board = BOARD_NAMES.get(bdn, bdn)
    try:
        return get_ruleset(family, language, board if board != family else None)
    except InputError as exc:
        raise InputError(exc.detail, "bdn" if board else "ld") from exc


def _distribution(name: str) -> tuple[str, str]:
    if name in DISTRIBUTION_NAMES:
        return DISTRIBUTION_NAMES[name]
    family, _, language = name.partition("-")  # a wordarena tile set id: scrabble-en
    if not language:
        raise InputError(f"unknown letter distribution {name!r}; known: "
                         f"{', '.join(DISTRIBUTION_NAMES)} or a tile set id like scrabble-en", "ld")
    return family, language


def _cells(cgp: Cgp, ruleset: Ruleset) -> Cells:
    layout = ruleset.board
    if len(cgp.board) != layout.rows or len(cgp.board[0]) != layout.cols:
        raise InputError(f"the board is {len(cgp.board[0])}x{len(cgp.board)} but {layout.id} is "
                         f"{layout.cols}x{layout.rows}", "board")
    cells: list[Tile | None] = []
    for r, row in enumerate(cgp.board):
        for c, square in enumerate(row):
            if square is None:
                cells.append(None)
                continue
            letter, blank = square
            if not _known_letter(ruleset, letter, blank):
                raise InputError(f"{letter!r} is not a letter of the {ruleset.tiles.id} set",
                                 f"board row {r + 1}")
            if layout.squares[layout.index(r, c)].blocked:
                raise InputError(f"a tile on blocked square {c + 1}", f"board row {r + 1}")
            cells.append(Tile(letter, blank, UNKNOWN_OWNER))
    return tuple(cells)


def _known_letter(ruleset: Ruleset, letter: str, blank: bool) -> bool:
    if letter == WILDCARD:
        return not blank and WILDCARD in ruleset.tiles.counts
    return ruleset.tiles.has_letter(letter)


def _check_racks(cgp: Cgp, ruleset: Ruleset) -> None:
    players = len(cgp.racks)
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise InputError(f"{ruleset.name} is played by {ruleset.min_players}-"
                         f"{ruleset.max_players} players, not {players}", "racks")
    for i, rack in enumerate(cgp.racks):
        if len(rack) > ruleset.rack_size:
            raise InputError(f"{len(rack)} tiles but racks hold {ruleset.rack_size}",
                             f"rack {i + 1}")


def _check_counts(ruleset: Ruleset, used: Counter[str], new: Counter[str], where: str) -> None:
    """Refuse tokens the set lacks and more copies of a tile than the set has."""
    counts = ruleset.tiles.counts
    for token in new:
        if token not in counts:
            raise InputError(f"tile {token!r} is not in the {ruleset.tiles.id} set", where)
    for token, n in used.items():
        if n > counts.get(token, 0):
            raise InputError(f"{n} x {token!r} on the board and racks so far, but the "
                             f"{ruleset.tiles.id} set has {counts.get(token, 0)}", where)


def position_to_cgp(state: GameState, lexicon: str | None = None) -> str:
    """The CGP line of ``state``: racks and scores from the seat to move on, and the options
    ``bdn``, ``ld``, ``lex`` (``lexicon`` or the ruleset's) and ``ruleset``."""
    return format_cgp(_cgp_of(state, lexicon, range(state.players), frozenset()))


def view_to_cgp(state: GameState, seat: int | None, lexicon: str | None = None) -> str:
    """The CGP line of what ``seat`` sees of ``state`` (None: a spectator): its own rack only,
    the other racks empty, and no tile under a War of Words cloud. Safe to hand to that player."""
    shown = () if seat is None else (seat,)
    return format_cgp(_cgp_of(state, lexicon, shown, hidden_squares(state)))


def _cgp_of(state: GameState, lexicon: str | None, racks_shown: Iterable[int],
            hidden: frozenset[int]) -> Cgp:
    ruleset = state.ruleset
    layout = ruleset.board
    board = tuple(
        tuple(None if layout.index(r, c) in hidden else _square(state.cells[layout.index(r, c)])
              for c in range(layout.cols))
        for r in range(layout.rows)
    )
    order = [(state.to_move + k) % state.players for k in range(state.players)]
    shown = set(racks_shown)
    return Cgp(
        board=board,
        racks=tuple(tuple(state.racks[s]) if s in shown else () for s in order),
        scores=tuple(state.scores[s] for s in order),
        zero_turns=state.zero_run,
        operations=_options(ruleset, lexicon),
    )


def _square(tile: Tile | None) -> Square:
    return None if tile is None else (tile.letter, tile.blank)


def _options(ruleset: Ruleset, lexicon: str | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    board = next((name for name, bid in BOARD_NAMES.items() if bid == ruleset.board.id),
                 ruleset.board.id)
    ld = next((name for name, fl in DISTRIBUTION_NAMES.items()
               if fl == (ruleset.family, ruleset.language)), ruleset.tiles.id)
    return (("bdn", (board,)), ("ld", (ld,)), ("lex", (lexicon or ruleset.lexicon,)),
            ("ruleset", (ruleset.id,)))
