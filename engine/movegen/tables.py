"""Per-square tables the generator reads instead of re-deriving rules in its inner loop.

Everything here is computed *from* ``engine.scoring``'s own policy functions (``letter_factor``,
``word_factor``, ``bingo_bonus``, ``tile_value``), once per (ruleset, board effects), and cached:
the generator then adds and multiplies plain numbers, and the exactness test proves the result is
the scorer's.
"""

from __future__ import annotations

from dataclasses import dataclass

from wordarena.engine.rulesets.layout import STAR, WATER
from wordarena.engine.rulesets.model import FirstPlay, Ruleset, WordFactor
from wordarena.engine.scoring import BoardEffects, bingo_bonus, letter_factor, word_factor


@dataclass(frozen=True, slots=True)
class SquareTables:
    """Static, effect-dependent numbers for every square of one ruleset's board."""

    rows: int
    cols: int
    new_value: tuple[dict[str, int], ...]  # per square: letter -> value x letter factor (new tile)
    word_mult: tuple[int, ...]  # per square: multiplier fed into the main word's factor
    additive: bool  # word multipliers add (warofwords) instead of multiply
    cross_factor: tuple[int, ...]  # per square: factor of a cross word through a new tile there
    blocked: tuple[bool, ...]
    free_start: tuple[bool, ...]  # per square: a play covering it needs no connection (star/water)
    bingo: tuple[int, ...]  # bonus by number of letter tiles played
    letters: tuple[str, ...]  # the tile set's letters (what a blank / wildcard may stand for)
    bits: dict[str, int]  # letter -> bit of cross-check bitsets
    all_bits: int
    bonus_letter: str | None
    bonus_points: int
    symmetric: bool  # square (rows == cols) and every table is the same under transposition
    natural: tuple[dict[str, tuple[int, str, bool]], ...]  # per square: letter -> new-tile tuple
    blank: tuple[dict[str, tuple[int, str, bool]], ...]  # the same shown by a blank


def _letter_values(ruleset: Ruleset, index: int, effects: BoardEffects) -> dict[str, int]:
    square = ruleset.board.squares[index]
    out: dict[str, int] = {}
    by_value: dict[int, int] = {}
    for letter in ruleset.tiles.letters:
        value = 1 if effects.irradiated else ruleset.tiles.value(letter)
        if value not in by_value:
            by_value[value] = value * letter_factor(ruleset, square, index, value, effects)[0]
        out[letter] = by_value[value]
    return out


def build_tables(ruleset: Ruleset, effects: BoardEffects) -> SquareTables:
    """Compute the tables (uncached)."""
    layout = ruleset.board
    additive = ruleset.word_factor is WordFactor.ADD
    squares = layout.squares
    word_mult = tuple(
        (sq.word_mult if sq.word_mult > 1 else 0) if additive else sq.word_mult for sq in squares
    )
    cross = tuple(
        word_factor(ruleset, [sq.word_mult] if sq.word_mult > 1 else []) for sq in squares
    )
    free = tuple(
        ruleset.first_play is FirstPlay.STAR_OR_WATER and sq.terrain in (STAR, WATER)
        for sq in squares
    )
    letters = tuple(ruleset.tiles.letters)
    bits = {letter: 1 << k for k, letter in enumerate(letters)}
    bonus = effects.bonus_letter if ruleset.bonus_letter else None
    new_value = tuple(_letter_values(ruleset, i, effects) for i in range(len(squares)))
    blocked = tuple(sq.blocked for sq in squares)
    symmetric = layout.rows == layout.cols and all(
        table[r * layout.cols + c] == table[c * layout.cols + r]
        for table in (new_value, word_mult, cross, blocked, free)
        for r in range(layout.rows) for c in range(r)
    )
    return SquareTables(
        rows=layout.rows,
        cols=layout.cols,
        new_value=new_value,
        word_mult=word_mult,
        additive=additive,
        cross_factor=cross,
        blocked=blocked,
        free_start=free,
        bingo=tuple(bingo_bonus(ruleset, ["A"] * n) for n in range(ruleset.rack_size + 1)),
        letters=letters,
        bits=bits,
        all_bits=(1 << len(letters)) - 1,
        bonus_letter=bonus,
        bonus_points=ruleset.bonus_letter_points if bonus else 0,
        symmetric=symmetric,
        natural=tuple({ch: (i, ch, False) for ch in letters} for i in range(len(squares))),
        blank=tuple({ch: (i, ch, True) for ch in letters} for i in range(len(squares))),
    )


# The key of a cross-word score table under which a blank or a wildcard (worth 0) is found.
BLANK_KEY = ""


_by_ruleset: dict[tuple[int, BoardEffects], tuple[Ruleset, SquareTables]] = {}


def square_tables(ruleset: Ruleset, effects: BoardEffects) -> SquareTables:
    """The (cached) tables of ``ruleset`` under board ``effects``."""
    key = (id(ruleset), effects)
    found = _by_ruleset.get(key)
    if found is None or found[0] is not ruleset:
        if len(_by_ruleset) > 256:
            _by_ruleset.clear()
        found = _by_ruleset[key] = (ruleset, build_tables(ruleset, effects))
    return found[1]
