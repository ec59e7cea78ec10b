"""The board as plain text: coordinates, premium squares and tiles (blanks in lowercase).

Premiums of an empty square: ``=`` triple word, ``-`` double word, ``"`` triple letter,
``'`` double letter, ``*`` the start square, ``~`` quadruple word, ``^`` quadruple letter;
wordtiles colour squares show their colour's value (``1`` ``2`` ``3`` ``5``); War of Words
terrain: ``S`` star, ``w`` water, ``#`` scenery / titanium, ``:`` sand. ``.`` is a plain square.
"""

from __future__ import annotations

from wordarena.engine.board import COLUMNS, Cells
from wordarena.engine.rulesets.layout import SAND, SCENERY, STAR, TITANIUM, WATER, BoardLayout, Square

_WORD = {2: "-", 3: "=", 4: "~"}
_LETTER = {2: "'", 3: '"', 4: "^"}
_TERRAIN = {STAR: "S", WATER: "w", SCENERY: "#", TITANIUM: "#", SAND: ":"}


def square_symbol(square: Square) -> str:
    """One character for an empty square."""
    if square.terrain in _TERRAIN:
        return _TERRAIN[square.terrain]
    if square.word_mult > 1:
        return _WORD.get(square.word_mult, "=")
    if square.letter_mult > 1:
        return _LETTER.get(square.letter_mult, '"')
    if square.colour:
        return str(square.colour)
    return "."


def board_text(layout: BoardLayout, cells: Cells) -> str:
    """The board, one row a line, with column letters on top and row numbers on the left."""
    lines = ["    " + " ".join(COLUMNS[: layout.cols])]
    for row in range(layout.rows):
        chars = []
        for col in range(layout.cols):
            index = layout.index(row, col)
            tile = cells[index]
            if tile is not None:
                chars.append(tile.letter.lower() if tile.blank else tile.letter)
            elif index == layout.start and not layout.squares[index].word_mult > 2:
                chars.append("*")
            else:
                chars.append(square_symbol(layout.squares[index]))
        lines.append(f"{row + 1:>3} " + " ".join(chars))
    return "\n".join(lines)
