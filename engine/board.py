"""The live board: which tile lies on which square, and the notation players use for squares.

Cells are a flat, row-major tuple (``None`` = empty) so that a new board is one tuple copy and
a state stays immutable. Positions follow GCG: ``8H`` is row 8, column H, a play *across*;
``H8`` is the same square, a play *down*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wordarena.engine.errors import InputError
from wordarena.engine.tiles import Tile

Cells = tuple[Tile | None, ...]

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ACROSS = re.compile(r"^(\d{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])(\d{1,2})$")


def empty_cells(rows: int, cols: int) -> Cells:
    return (None,) * (rows * cols)


def with_tiles(cells: Cells, tiles: Iterable[tuple[int, Tile]]) -> Cells:
    """A copy of ``cells`` with tiles set on the given indexes."""
    out = list(cells)
    for index, tile in tiles:
        out[index] = tile
    return tuple(out)


def without_tiles(cells: Cells, indexes: Iterable[int]) -> Cells:
    """A copy of ``cells`` with the given squares emptied."""
    out = list(cells)
    for index in indexes:
        out[index] = None
    return tuple(out)


def parse_position(text: str, rows: int = 15, cols: int = 15) -> tuple[int, int, bool]:
    """``"8H"`` → (7, 7, across=True); ``"H8"`` → (7, 7, across=False). 0-based row, col."""
    text = text.strip()
    across = _ACROSS.match(text)
    down = _DOWN.match(text)
    if across:
        row, col, is_across = int(across.group(1)) - 1, COLUMNS.index(across.group(2).upper()), True
    elif down:
        row, col, is_across = int(down.group(2)) - 1, COLUMNS.index(down.group(1).upper()), False
    else:
        raise InputError(f"{text!r} is not a position like 8H (across) or H8 (down)", "position")
    if not (0 <= row < rows and 0 <= col < cols):
        raise InputError(f"{text!r} is off the {rows}x{cols} board", "position")
    return row, col, is_across


def format_position(row: int, col: int, across: bool) -> str:
    """Inverse of ``parse_position``."""
    return f"{row + 1}{COLUMNS[col]}" if across else f"{COLUMNS[col]}{row + 1}"


def square_name(row: int, col: int) -> str:
    """A square's name without direction (``H8``)."""
    return f"{COLUMNS[col]}{row + 1}"
