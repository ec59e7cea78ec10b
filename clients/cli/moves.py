"""Moves typed the way players write them, turned into contract messages.

``8H WORD`` plays across from H8, ``H8 WORD`` down; a lower-case letter is a blank standing for
that letter; ``.`` (or the letter already there) is a tile on the board the play passes through.
``pass``, ``swap ABC`` (``?`` for a blank; also ``exchange``), ``resign``. The geometry is the
engine's own notation parser (:func:`engine.notation.placements_from_word`), run on the board
the server showed us.
"""

from __future__ import annotations

from wordarena.clients.cli.client import EXIT_USAGE, ClientError
from wordarena.engine.board import COLUMNS, square_name
from wordarena.engine.errors import InputError
from wordarena.engine.notation import placements_from_word
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


def placements(board: common_pb2.BoardView, position: str, word: str) -> list[common_pb2.Placement]:
    """The placements of ``word`` laid from ``position`` on ``board`` (raises ClientError)."""
    rows, cols = board.rows or 15, board.cols or 15
    try:
        engine_placements = placements_from_word(
            _ViewLayout(rows, cols), _cells(board), position, word)  # type: ignore[arg-type]
    except InputError as exc:
        raise ClientError(f"Cannot read the move: {exc}", EXIT_USAGE) from exc
    out = []
    for p in engine_placements:
        pl = common_pb2.Placement(square=common_pb2.Square(row=p.row, col=p.col), letter=p.letter,
                                  is_blank=p.blank)
        if p.letter == "*":
            pl.letter = ""
            pl.is_wildcard = True
        out.append(pl)
    return out


def split_play(text: str) -> tuple[str, str]:
    """``"8H WORD"`` → ("8H", "WORD"); raises ClientError when it is not position + word."""
    parts = text.split()
    if len(parts) != 2:
        raise ClientError(f"Cannot read {text!r}: write a play as 8H WORD (across) or H8 WORD (down)",
                          EXIT_USAGE)
    return parts[0], parts[1]


def exchange_tiles(letters: str) -> list[common_pb2.Tile]:
    """``"AB?"`` → tiles to return (``?`` is a blank, ``*`` a wildcard)."""
    letters = "".join(letters.split())
    if not letters:
        raise ClientError("Say which tiles to swap, e.g. swap QV?", EXIT_USAGE)
    tiles = []
    for ch in letters:
        if ch == "?":
            tiles.append(common_pb2.Tile(letter="?", is_blank=True))
        elif ch == "*":
            tiles.append(common_pb2.Tile(letter="*", is_wildcard=True))
        elif ch.isalpha():
            tiles.append(common_pb2.Tile(letter=ch.upper()))
        else:
            raise ClientError(f"{ch!r} is not a tile: use letters, ? for a blank", EXIT_USAGE)
    return tiles


def parse_move(board: common_pb2.BoardView, text: str) -> common_pb2.Move:
    """A typed turn (``8H WORD``, ``H8 WORD``, ``pass``, ``swap ABC``, ``resign``) as a Move."""
    text = text.strip()
    head, _, rest = text.partition(" ")
    verb = head.lower()
    if verb == "pass" and not rest.strip():
        return common_pb2.Move(pass_turn=common_pb2.PassMove())
    if verb in ("swap", "exchange"):
        return common_pb2.Move(exchange=common_pb2.ExchangeMove(tiles=exchange_tiles(rest)))
    if verb == "resign" and not rest.strip():
        return common_pb2.Move(resign=common_pb2.ResignMove())
    position, word = split_play(text)
    return common_pb2.Move(play=common_pb2.PlayMove(placements=placements(board, position, word)))


def describe_placements(placed: list[common_pb2.Placement] | tuple[common_pb2.Placement, ...]) -> str:
    """Short text of placements, e.g. ``H8 W, I8 O``."""
    return ", ".join(f"{square_name(p.square.row, p.square.col)} "
                     f"{p.letter.lower() if p.is_blank else p.letter or '*'}" for p in placed)


def column_letters(cols: int) -> str:
    """``A B C …`` for a board ``cols`` wide."""
    return " ".join(COLUMNS[:cols])
