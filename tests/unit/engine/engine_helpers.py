"""Small builders for rule tests: a game with chosen racks and board, moves in GCG notation.

``move("8H", "CAT")`` places C, A, T across from H8 (row 8, column H); ``move("H8", "CAT")``
places them down. In the word, ``.`` skips a square already holding a tile, a lower-case letter
is a blank standing for that letter, and ``*`` is a War of Words wildcard.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from wordarena.engine.board import parse_position, with_tiles
from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import (
    Action,
    Decide,
    Exchange,
    GameState,
    Pass,
    Play,
    apply,
    start_game,
)
from wordarena.engine.game.events import Event
from wordarena.engine.placement import Placement
from wordarena.engine.tiles import BLANK, Tile, is_action


class AnyWord:
    """A lexicon that accepts every word."""

    def __contains__(self, word: object) -> bool:
        return True


ANY = AnyWord()


def move(position: str, word: str, rows: int = 15, cols: int = 15) -> tuple[Placement, ...]:
    """The placements of ``word`` laid from ``position`` (``.`` = square already taken)."""
    row, col, across = parse_position(position, rows, cols)
    out = []
    for k, ch in enumerate(word):
        r, c = (row, col + k) if across else (row + k, col)
        if ch == ".":
            continue
        if ch.islower():
            out.append(Placement(r, c, ch.upper(), True))
        else:
            out.append(Placement(r, c, ch))
    return tuple(out)


def tokens_of(word: str) -> list[str]:
    """Rack tokens of a word as written for ``move`` (blanks become ``?``)."""
    return [BLANK if ch.islower() else ch for ch in word if ch != "."]


def new_game(
    family: str,
    players: int = 2,
    *,
    language: str = "en",
    board: str | None = None,
    seed: int = 7,
    lexicon: object = ANY,
    check: bool = True,
    racks: Sequence[str | Sequence[str]] | None = None,
    tiles: Iterable[tuple[str, str]] = (),
    bag: str | Sequence[str] | None = None,
    bonus_letter: str | None = None,
    scores: Sequence[int] | None = None,
) -> GameState:
    """A started game, rearranged for a test.

    ``tiles`` are (position, word) already on the board (owned by seat 0, taken out of the bag);
    ``racks`` give each seat exactly these tokens; ``bag`` replaces the bag (``""`` empties it).
    Tiles are moved between bag, racks and board so that the whole set stays conserved unless
    ``bag`` is given explicitly."""
    ruleset = get_ruleset(family, language, board)
    state, _ = start_game(ruleset, players, seed, lexicon if check else None, check)  # type: ignore[arg-type]
    pool = list(state.bag) + [t for r in state.racks for t in r]
    placed: list[tuple[int, Tile]] = []
    layout = ruleset.board
    for position, word in tiles:
        for p in move(position, word, layout.rows, layout.cols):
            placed.append((layout.index(p.row, p.col), Tile(p.letter, p.blank, 0)))
            pool.remove(p.token)
    new_racks = [tuple(state.racks[s] if racks is None else racks[s]) for s in range(players)]
    for rack in new_racks:
        for t in rack:
            if not is_action(t):  # action tiles are not in the letter supply yet
                pool.remove(t)
    final_bag = tuple(pool) if bag is None else tuple(bag)
    state = state.evolve(
        cells=with_tiles(state.cells, placed),
        racks=tuple(new_racks),
        bag=final_bag,
    )
    if bonus_letter is not None:
        state = state.evolve(bonus_letter=bonus_letter)
    if scores is not None:
        state = state.evolve(scores=tuple(scores))
    return state


def play(state: GameState, seat: int, position: str, word: str) -> tuple[GameState, list[Event]]:
    """Apply a play written in GCG notation."""
    layout = state.ruleset.board
    return apply(state, Play(seat, move(position, word, layout.rows, layout.cols)))


def score_of(state: GameState, position: str, word: str, seat: int | None = None) -> int:
    """Points a play earns (the first event's score), without keeping the new state."""
    seat = state.to_move if seat is None else seat
    _, events = play(state, seat, position, word)
    return int(events[0].data["score"])


def refused(state: GameState, action: Action, rule: Rule) -> RuleError:
    """Assert that ``action`` is refused for ``rule``; return the error."""
    with pytest.raises(RuleError) as info:
        apply(state, action)
    assert info.value.rule is rule, f"expected {rule.value}, got {info.value.rule.value}: {info.value}"
    return info.value


def passes(state: GameState, *seats: int) -> GameState:
    """Each seat in turn passes (or, with a pending wordtiles play, the next one accepts)."""
    for seat in seats:
        state, _ = apply(state, Pass(seat))
    return state


def accept(state: GameState, seat: int) -> GameState:
    state, _ = apply(state, Decide(seat, True))
    return state


def check(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    return apply(state, Decide(seat, False))


def exchange(state: GameState, seat: int, tiles: str) -> GameState:
    state, _ = apply(state, Exchange(seat, tuple(tiles)))
    return state


def board_word(state: GameState, position: str, length: int) -> str:
    """The letters lying on the board from ``position`` (``.`` for empty squares)."""
    layout = state.ruleset.board
    row, col, across = parse_position(position, layout.rows, layout.cols)
    out = []
    for k in range(length):
        r, c = (row, col + k) if across else (row + k, col)
        tile = state.cells[layout.index(r, c)]
        out.append("." if tile is None else tile.letter)
    return "".join(out)
