"""Board layouts as data: the static properties of every square (premiums and terrain)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from wordarena.engine.errors import InputError

# Terrain kinds. Scenery and titanium squares cannot take a tile; stars and water let a
# War of Words play stand unconnected; sand matters to quicksand (action tiles).
PLAIN, STAR, WATER, SCENERY, TITANIUM, SAND = "", "star", "water", "scenery", "titanium", "sand"
BLOCKING = frozenset({SCENERY, TITANIUM})


@dataclass(frozen=True, slots=True)
class Square:
    """What a square gives a tile newly placed on it."""

    letter_mult: int = 1  # DL/TL/QL and War of Words nL: multiplies the new tile's value
    word_mult: int = 1  # DW/TW/QW and War of Words nW: multiplies (or adds to) the word factor
    colour: int = 0  # wordtiles: a new tile worth exactly this many points is tripled
    terrain: str = PLAIN

    @property
    def blocked(self) -> bool:
        return self.terrain in BLOCKING

    @property
    def label(self) -> str:
        """Short name a client can show (DL, TW, 3L, red, star, water …), '' when plain."""
        parts = []
        if self.colour:
            parts.append(COLOUR_NAMES[self.colour])
        if self.letter_mult > 1:
            parts.append(f"{self.letter_mult}L")
        if self.word_mult > 1:
            parts.append(f"{self.word_mult}W")
        if self.terrain:
            parts.append(self.terrain)
        return "+".join(parts)


COLOUR_NAMES = {1: "yellow", 2: "green", 3: "blue", 5: "red"}

# Layout characters shared by every board file (see shared/reference/README.md).
LEGEND: dict[str, Square] = {
    ".": Square(),
    "d": Square(letter_mult=2),
    "t": Square(letter_mult=3),
    "q": Square(letter_mult=4),
    "D": Square(word_mult=2),
    "T": Square(word_mult=3),
    "Q": Square(word_mult=4),
    "y": Square(colour=1),
    "g": Square(colour=2),
    "b": Square(colour=3),
    "r": Square(colour=5),
    "S": Square(terrain=STAR),
    "w": Square(terrain=WATER),
    "#": Square(terrain=SCENERY),
    "%": Square(terrain=TITANIUM),
    ":": Square(terrain=SAND),
}


@dataclass(frozen=True)
class BoardLayout:
    """A board: its size, the static squares (row-major) and the start square, if any."""

    id: str
    name: str
    description: str
    rows: int
    cols: int
    squares: tuple[Square, ...]
    start: int | None  # index of the start star; None where plays start on Stars / Water
    water_patch: tuple[int, ...]  # per square: water patch id, -1 when not water

    def index(self, row: int, col: int) -> int:
        return row * self.cols + col

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols

    def square(self, row: int, col: int) -> Square:
        return self.squares[row * self.cols + col]

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for clients."""
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "rows": self.rows,
            "cols": self.cols,
            "start": None if self.start is None else divmod(self.start, self.cols),
            "premiums": {
                f"{r},{c}": sq.label
                for i, sq in enumerate(self.squares)
                if sq.label
                for r, c in [divmod(i, self.cols)]
            },
        }


def parse_layout(data: dict[str, Any]) -> BoardLayout:
    """Build a layout from its JSON form; malformed data raises ``InputError``."""
    bid = str(data.get("id", "?"))
    rows_text = data.get("layout")
    if not isinstance(rows_text, list) or not rows_text:
        raise InputError("layout must be a non-empty list of strings", f"board {bid}")
    cols = len(rows_text[0])
    squares: list[Square] = []
    for y, row in enumerate(rows_text):
        if not isinstance(row, str) or len(row) != cols:
            raise InputError(f"row {y} must be a string of {cols} squares", f"board {bid}")
        for x, ch in enumerate(row):
            if ch not in LEGEND:
                raise InputError(f"unknown square {ch!r} at row {y}, column {x}", f"board {bid}")
            squares.append(LEGEND[ch])
    start = data.get("start")
    start_index = None if start is None else int(start[1]) * cols + int(start[0])
    return BoardLayout(
        id=bid,
        name=str(data.get("name", bid)),
        description=str(data.get("description", "")),
        rows=len(rows_text),
        cols=cols,
        squares=tuple(squares),
        start=start_index,
        water_patch=_water_patches(squares, len(rows_text), cols, bool(data.get("joined_water"))),
    )


def _water_patches(squares: list[Square], rows: int, cols: int, joined: bool) -> tuple[int, ...]:
    """Label orthogonally connected water squares; ``joined`` boards share one patch."""
    patch = [-1] * len(squares)
    next_id = 0
    for start, sq in enumerate(squares):
        if sq.terrain != WATER or patch[start] >= 0:
            continue
        stack = [start]
        patch[start] = next_id
        while stack:
            i = stack.pop()
            r, c = divmod(i, cols)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                j = rr * cols + cc
                inside = 0 <= rr < rows and 0 <= cc < cols
                if inside and squares[j].terrain == WATER and patch[j] < 0:
                    patch[j] = next_id
                    stack.append(j)
        next_id += 0 if joined else 1
    return tuple(patch)


@cache
def load_layout(board_id: str) -> BoardLayout:
    """Load a shipped board by id (``classic``, ``wordtiles``, ``scrabble``, ``warofwords-…``)."""
    path = resources.files("wordarena.engine.rulesets") / "data" / "boards" / f"{board_id}.json"
    if not path.is_file():
        raise InputError(f"unknown board {board_id!r}; known: {', '.join(board_ids())}", "board")
    return parse_layout(json.loads(path.read_text(encoding="utf-8")))


def board_ids() -> list[str]:
    """Ids of every shipped board."""
    folder = resources.files("wordarena.engine.rulesets") / "data" / "boards"
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))
