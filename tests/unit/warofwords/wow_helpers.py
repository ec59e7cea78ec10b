"""Builders for War of Words action-tile tests: a game on a chosen board with chosen racks,
letters already on the board owned by chosen seats, and action tiles already lying there.

Squares are named as players name them: ``"H8"`` is column H, row 8 (0-based row 7, col 7).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from wordarena.engine.board import COLUMNS, parse_position, with_tiles
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import GameState, Play, apply, start_game
from wordarena.engine.game.events import Event
from wordarena.engine.placement import Placement
from wordarena.engine.tiles import Tile
from wordarena.engine.warofwords.arena import Marker, SquareChange


class AnyWord:
    """A lexicon that accepts every word."""

    def __contains__(self, word: object) -> bool:
        return True


ANY = AnyWord()


def sq(name: str, cols: int = 15) -> int:
    """Index of a square named like ``H8``."""
    col = COLUMNS.index(name[0].upper())
    row = int(name[1:]) - 1
    return row * cols + col


def rc(name: str) -> tuple[int, int]:
    return divmod(sq(name), 15)


def game(
    board: str = "warofwords-field",
    *,
    racks: Sequence[Sequence[str]] = ((), ()),
    tiles: Iterable[tuple[str, str, int]] = (),
    effects: Iterable[object] = (),
    bag: Sequence[str] | None = None,
    scores: Sequence[int] | None = None,
    seed: int = 11,
    bonus_letter: str | None = None,
    keep_clouds: bool = False,
) -> GameState:
    """A started 2+ player game rearranged: ``tiles`` are (position, word, owner) in GCG
    notation (``8H`` across, ``H8`` down); the bag holds no letter duplicates check (tests
    build positions, not supplies); bonus letter off unless given."""
    players = len(racks)
    ruleset = get_ruleset("warofwords", "en", board)
    state, _ = start_game(ruleset, players, seed, ANY, True)  # type: ignore[arg-type]
    placed = []
    for position, word, owner in tiles:
        row, col, across = parse_position(position)
        for k, ch in enumerate(word):
            r, c = (row, col + k) if across else (row + k, col)
            placed.append((r * 15 + c, Tile(ch, False, owner)))
    base = tuple(e for e in state.effects if keep_clouds)
    state = state.evolve(
        cells=with_tiles(state.cells, placed),
        racks=tuple(tuple(r) for r in racks),
        bag=tuple(bag) if bag is not None else tuple("EEEEEEEEEEEEEEEEEEEE"),
        bonus_letter=bonus_letter,
        effects=base + tuple(effects),
        scores=tuple(scores) if scores is not None else (0,) * players,
    )
    return state


def put(name: str, token: str, facing: str = "") -> Placement:
    row, col = rc(name)
    return Placement(row, col, token, False, facing)


def word(position: str, letters: str) -> list[Placement]:
    row, col, across = parse_position(position)
    return [Placement(row + (0 if across else k), col + (k if across else 0), ch)
            for k, ch in enumerate(letters) if ch != "."]


def play(state: GameState, seat: int, *placements: Placement | list[Placement],
         moves: tuple = ()) -> tuple[GameState, list[Event]]:
    flat: list[Placement] = []
    for p in placements:
        flat.extend(p if isinstance(p, list) else [p])
    return apply(state, Play(seat, tuple(flat), moves))


def effect_events(events: list[Event], effect: str | None = None) -> list[Event]:
    return [e for e in events if e.type == "effect" and (effect is None or e.data["effect"] == effect)]


def points(events: list[Event], effect: str | None = None) -> dict[int, int]:
    """Points per seat that effects moved in these events."""
    out: dict[int, int] = {}
    for e in effect_events(events, effect):
        if e.seat is not None:
            out[e.seat] = out.get(e.seat, 0) + e.data["points"]
    return out


def letter_at(state: GameState, name: str) -> str | None:
    t = state.cells[sq(name)]
    return None if t is None else t.letter


def marker(kind: str, name: str, owner: int, age: int = 0) -> Marker:
    return Marker(kind, sq(name), owner, age)


def change(name: str, square: object) -> SquareChange:
    return SquareChange(sq(name), square)  # type: ignore[arg-type]
