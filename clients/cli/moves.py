"""Moves typed the way players write them, turned into contract messages.

``8H WORD`` plays across from H8, ``H8 WORD`` down; a lower-case letter is a blank standing for
that letter; ``.`` (or the letter already there) is a tile on the board the play passes through.
War of Words action tiles are a square and a rack token: ``H8 @bomb``, ``K3 @3W``,
``H8 @blaster:right``; parts of one play are joined with ``+`` (``8H WORD + K10 @bomb``,
``E5 @portal + K11 @portal``); ``C3>E5`` moves your Rain or Whirlwind from C3 to E5 as part
of a play (``8H WORD + C3>E5``; a move alone is not a turn). ``pass``, ``swap ABC @bomb``
(``?`` for a blank, ``*`` a wildcard; also ``exchange``), ``resign``. The geometry is the
engine's own notation parser (:func:`engine.notation.placements_from_word`,
:func:`engine.notation.placement_from_action`), run on the board the server showed us.
"""

from __future__ import annotations

import re

from wordarena.clients.cli import actions
from wordarena.clients.cli.client import EXIT_USAGE, ClientError
from wordarena.engine.board import parse_position
from wordarena.engine.errors import InputError
from wordarena.engine.notation import placement_from_action, placements_from_word
from wordarena.engine.placement import Placement as EnginePlacement
from wordarena.engine.tiles import Tile as EngineTile
from wordarena.v1 import common_pb2


class _ViewLayout:
    """The bits of a board layout the notation parser needs, from a BoardView."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.start = None

    def index(self, row: int, col: int) -> int:
        return row * self.cols + col

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols


def _cells(board: common_pb2.BoardView) -> tuple[EngineTile | None, ...]:
    rows, cols = board.rows or 15, board.cols or 15
    cells: list[EngineTile | None] = [None] * (rows * cols)
    for sq in board.squares:
        if sq.HasField("tile") and (sq.tile.letter or sq.tile.is_wildcard):
            idx = sq.square.row * cols + sq.square.col
            if 0 <= idx < len(cells):
                cells[idx] = EngineTile(sq.tile.letter.upper() or "*", sq.tile.is_blank, 0)
    return tuple(cells)


PLAY_EXAMPLES = ("8H WORD (across), H8 WORD (down), H8 @bomb, 8H WORD + K10 @bomb, "
                 "8H WORD + C3>E5 (moves your Rain or Whirlwind from C3 to E5)")
#: The examples where there are no action tiles (every family but War of Words).
LETTER_EXAMPLES = ("8H WORD (across from H8), H8 WORD (down from H8), 8H W.RD ('.' = a tile "
                   "already on the board, lower case = a blank)")
NO_ACTION_TILES = "Action tiles (@bomb …) and moves of a Rain or Whirlwind are War of Words only"
_PARTS = re.compile(r"\s*[+,]\s*")
_SHIFT = re.compile(r"^(\w+)\s*>\s*(\w+)$")


def placement_pb(p: EnginePlacement) -> common_pb2.Placement:
    """An engine placement as the contract's: a letter (or blank), a War of Words wildcard, or
    an action tile with its factor and facing."""
    pl = common_pb2.Placement(square=common_pb2.Square(row=p.row, col=p.col))
    if p.letter.startswith("@"):
        kind, factor = actions.from_token(p.letter)
        pl.action = kind  # type: ignore[assignment]
        pl.action_factor = factor
        if p.facing:
            pl.facing = actions.FACINGS[p.facing]  # type: ignore[assignment]
    elif p.letter == "*":
        pl.is_wildcard = True
    else:
        pl.letter = p.letter
        pl.is_blank = p.blank
    return pl


def placements(board: common_pb2.BoardView, position: str, word: str) -> list[common_pb2.Placement]:
    """The placements of ``word`` (or of one action tile, ``@bomb``) laid from ``position`` on
    ``board`` (raises ClientError)."""
    layout = _ViewLayout(board.rows or 15, board.cols or 15)
    try:
        if word.startswith("@"):
            found: tuple[EnginePlacement, ...] = (
                placement_from_action(layout, position, word),)  # type: ignore[arg-type]
        else:
            found = placements_from_word(layout, _cells(board), position, word)  # type: ignore[arg-type]
    except InputError as exc:
        raise ClientError(f"Cannot read the move: {exc}", EXIT_USAGE) from exc
    return [placement_pb(p) for p in found]


def split_play(text: str, action_tiles: bool = True) -> list[tuple[str, str]]:
    """``"8H WORD + K10 @bomb + C3>E5"`` → [("8H", "WORD"), ("K10", "@bomb"), ("C3", ">E5")];
    raises ClientError when a part is not a position and a word (or a square and an action tile,
    or a move ``FROM>TO``). Without ``action_tiles`` (a family other than War of Words) a play is
    one word, and the refusal suggests only what that family takes."""
    parts = []
    for part in _PARTS.split(text.strip()) if action_tiles else [text.strip()]:
        shift = _SHIFT.match(part)
        if shift:
            if not action_tiles:
                raise ClientError(NO_ACTION_TILES, EXIT_USAGE)
            parts.append((shift.group(1), ">" + shift.group(2)))
            continue
        words = part.split()
        if len(words) != 2:
            examples = PLAY_EXAMPLES if action_tiles else LETTER_EXAMPLES
            raise ClientError(f"Cannot read {part or text!r}: write a play as {examples}",
                              EXIT_USAGE)
        if not action_tiles and words[1].startswith("@"):
            raise ClientError(NO_ACTION_TILES, EXIT_USAGE)
        parts.append((words[0], words[1]))
    return parts


def effect_move(board: common_pb2.BoardView, origin: str, target: str) -> common_pb2.EffectMove:
    """``C3>E5``: the move of the Rain or Whirlwind the board shows on ``origin`` to
    ``target`` (raises ClientError when none lies there)."""
    layout = _ViewLayout(board.rows or 15, board.cols or 15)
    try:
        row, col, _ = parse_position(origin, layout.rows, layout.cols)
        to_row, to_col, _ = parse_position(target, layout.rows, layout.cols)
    except InputError as exc:
        raise ClientError(f"Cannot read the move {origin}>{target}: {exc}", EXIT_USAGE) from exc
    for eff in board.effects:
        if eff.movable and (eff.origin.row, eff.origin.col) == (row, col):
            return common_pb2.EffectMove(effect_id=eff.effect_id,
                                         to=common_pb2.Square(row=to_row, col=to_col))
    raise ClientError(f"There is no Rain or Whirlwind on {origin.upper()} to move", EXIT_USAGE)


def play_move(board: common_pb2.BoardView, text: str, action_tiles: bool = True) -> common_pb2.PlayMove:
    """A play written in notation, parts joined with ``+``: its placements and its moves of a
    Rain or Whirlwind (``C3>E5``); ``action_tiles``: see :func:`split_play`."""
    out = common_pb2.PlayMove()
    for position, word in split_play(text, action_tiles):
        if word.startswith(">"):
            out.effect_moves.append(effect_move(board, position, word[1:]))
        else:
            out.placements.extend(placements(board, position, word))
    return out


def play_placements(board: common_pb2.BoardView, text: str,
                    action_tiles: bool = True) -> list[common_pb2.Placement]:
    """Every placement of a play written in notation, parts joined with ``+`` (a play that moves
    a Rain or Whirlwind is refused: Word Strength ranks tiles only)."""
    play = play_move(board, text, action_tiles)
    if play.effect_moves:
        raise ClientError("Word Strength ranks the tiles of a play: leave out the move of your "
                          "Rain or Whirlwind", EXIT_USAGE)
    return list(play.placements)


def exchange_tiles(letters: str, action_tiles: bool = True) -> list[common_pb2.Tile]:
    """``"AB? @bomb"`` → tiles to return (``?`` is a blank, ``*`` a wildcard, ``@name`` an
    action tile: War of Words only, ``action_tiles``)."""
    if not letters.strip():
        raise ClientError("Say which tiles to swap, e.g. swap QV? or swap @bomb" if action_tiles
                          else "Say which tiles to swap, e.g. swap QV? ('?' = a blank)", EXIT_USAGE)
    tiles = []
    for word in letters.split():
        if word.startswith("@") and not action_tiles:
            raise ClientError(NO_ACTION_TILES, EXIT_USAGE)
        if word.startswith("@"):
            kind, factor = actions.from_token(word)
            if not kind:
                raise ClientError(f"{word!r} is not an action tile (e.g. @bomb, @3W)", EXIT_USAGE)
            tiles.append(common_pb2.Tile(action=kind, action_factor=factor))  # type: ignore[arg-type]
            continue
        for ch in word:
            if ch == "?":
                tiles.append(common_pb2.Tile(letter="?", is_blank=True))
            elif ch == "*":
                tiles.append(common_pb2.Tile(letter="*", is_wildcard=True))
            elif ch.isalpha():
                tiles.append(common_pb2.Tile(letter=ch.upper()))
            else:
                raise ClientError(f"{ch!r} is not a tile: use letters, ? for a blank, * for a "
                                  "wildcard, @name for an action tile", EXIT_USAGE)
    return tiles


def parse_move(board: common_pb2.BoardView, text: str, action_tiles: bool = True) -> common_pb2.Move:
    """A typed turn (``8H WORD``, ``H8 WORD``, ``H8 @bomb``, ``pass``, ``swap ABC``, ``resign``)
    as a Move; ``action_tiles`` False (not War of Words): no ``@`` tiles or ``C3>E5`` moves."""
    text = text.strip()
    head, _, rest = text.partition(" ")
    verb = head.lower()
    if verb == "pass" and not rest.strip():
        return common_pb2.Move(pass_turn=common_pb2.PassMove())
    if verb in ("swap", "exchange"):
        return common_pb2.Move(exchange=common_pb2.ExchangeMove(tiles=exchange_tiles(rest, action_tiles)))
    if is_resign(text):
        return common_pb2.Move(resign=common_pb2.ResignMove())
    return common_pb2.Move(play=play_move(board, text, action_tiles))


def is_resign(text: str) -> bool:
    """True when the typed turn is ``resign`` (which ends the game as a loss: confirm first)."""
    return text.strip().lower() == "resign"


def has_action_tiles(ruleset: common_pb2.RulesetRef) -> bool:
    """True for War of Words, the one family with action tiles and movable effects."""
    return ruleset.family == common_pb2.FAMILY_WAROFWORDS
