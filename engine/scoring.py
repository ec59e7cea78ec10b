"""One scorer for every family, with the breakdown that explains each point.

Per word: each tile's value (0 for blanks and wildcards; 1 for every letter once a War of Words
board is irradiated), multiplied for *new* tiles only by the square's letter multiplier, by the
colour bonus when the tile's value matches the square's colour (wordtiles), and by the
electrification of the water patch under it (warofwords). The word's letter sum, plus the Bonus
Letter points (warofwords), is multiplied by the word factor of the new tiles' word squares:
the product (classic, scrabble, wordtiles) or the sum (warofwords) of their multipliers. A play
scores the sum of its words plus the first bingo bonus its tile count earns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from wordarena.engine.board import Cells, square_name
from wordarena.engine.placement import Geometry, Word
from wordarena.engine.rulesets.layout import COLOUR_NAMES, WATER, Square
from wordarena.engine.rulesets.model import Ruleset, WordFactor
from wordarena.engine.tiles import Tile, is_letter_token


@dataclass(frozen=True, slots=True)
class PremiumUse:
    """A premium square that counted: where, what (DL, TW, red, 3W, water …) and its factor."""

    square: str
    kind: str
    factor: int


@dataclass(frozen=True, slots=True)
class LetterScore:
    """How one letter of a word scored: where, the letter as it reads (a blank or wildcard in
    lower case), its face value, whether it is new this turn, its letter factor (premium and
    colour), the water's electrification, and the points it adds before word factors."""

    square: int
    letter: str
    base_value: int
    new: bool
    letter_factor: int
    electrification: int
    points: int

    def to_dict(self) -> dict[str, object]:
        return {"square": self.square, "letter": self.letter, "value": self.base_value,
                "new": self.new, "factor": self.letter_factor,
                "electrification": self.electrification, "points": self.points}


@dataclass(frozen=True, slots=True)
class WordScore:
    """The score of one word of a play."""

    word: str
    squares: tuple[int, ...]
    letter_sum: int
    bonus_letter: int
    word_factor: int
    score: int
    premiums: tuple[PremiumUse, ...]
    letters: tuple[LetterScore, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """A play's score explained: per word, bingo bonus and total."""

    words: tuple[WordScore, ...]
    bingo: int
    total: int

    def to_dict(self) -> dict[str, object]:
        return {
            "total": self.total,
            "bingo": self.bingo,
            "words": [
                {
                    "word": w.word,
                    "score": w.score,
                    "letter_sum": w.letter_sum,
                    "bonus_letter": w.bonus_letter,
                    "word_factor": w.word_factor,
                    "premiums": [
                        {"square": p.square, "kind": p.kind, "factor": p.factor}
                        for p in w.premiums
                    ],
                    "letters": [ls.to_dict() for ls in w.letters],
                }
                for w in self.words
            ],
        }


@dataclass(frozen=True, slots=True)
class BoardEffects:
    """Board-wide scoring modifiers that live in the game state (warofwords)."""

    bonus_letter: str | None = None
    irradiated: bool = False
    electrification: tuple[int, ...] = field(default=())  # per water patch


NO_EFFECTS = BoardEffects()


def tile_value(ruleset: Ruleset, tile: Tile, effects: BoardEffects = NO_EFFECTS) -> int:
    """Face value of a tile on the board."""
    if tile.blank or tile.wildcard:
        return 0
    if effects.irradiated:
        return 1
    return ruleset.tiles.value(tile.letter)


def letter_factor(
    ruleset: Ruleset, square: Square, index: int, value: int, effects: BoardEffects
) -> tuple[int, list[tuple[str, int]]]:
    """The factor a *new* tile of ``value`` gets on ``square``, with the premiums that gave it."""
    factor = 1
    used: list[tuple[str, int]] = []
    if square.letter_mult > 1:
        factor *= square.letter_mult
        used.append((_letter_premium_name(ruleset, square.letter_mult), square.letter_mult))
    if square.colour and ruleset.colour_bonus and value == square.colour:
        factor *= ruleset.colour_bonus
        used.append((_colour_name(square.colour), ruleset.colour_bonus))
    if square.terrain == WATER and effects.electrification:
        patch = ruleset.board.water_patch[index]
        charge = effects.electrification[patch]
        if charge > 1:
            factor *= charge
            used.append(("water", charge))
    return factor, used


def word_factor(ruleset: Ruleset, multipliers: Sequence[int]) -> int:
    """Combine the word multipliers under a word's new tiles (1 when there are none)."""
    if not multipliers:
        return 1
    if ruleset.word_factor is WordFactor.ADD:
        return sum(multipliers)
    product = 1
    for m in multipliers:
        product *= m
    return product


def bingo_bonus(ruleset: Ruleset, tokens: Sequence[str]) -> int:
    """The first bingo of the ruleset that the played tokens earn (0 if none)."""
    letters = sum(1 for t in tokens if is_letter_token(t))
    for bingo in ruleset.bingos:
        if (letters if bingo.letters_only else len(tokens)) >= bingo.count:
            return bingo.bonus
    return 0


def score_word(
    ruleset: Ruleset, cells: Cells, word: Word, resolved: str, effects: BoardEffects = NO_EFFECTS
) -> WordScore:
    """Score one word lying on ``cells`` (after the play). ``resolved`` is its letters with
    wildcards resolved (the word as checked against the lexicon)."""
    layout = ruleset.board
    letter_sum = 0
    multipliers: list[int] = []
    premiums: list[PremiumUse] = []
    letters: list[LetterScore] = []
    for k, (index, is_new) in enumerate(zip(word.squares, word.new, strict=True)):
        tile = cells[index]
        assert tile is not None
        base = tile_value(ruleset, tile, effects)
        value, factor, charge = base, 1, 1
        if is_new:
            square = layout.squares[index]
            factor, used = letter_factor(ruleset, square, index, base, effects)
            value *= factor
            charge = next((f for kind, f in used if kind == "water"), 1)
            name = square_name(*divmod(index, layout.cols))
            premiums.extend(PremiumUse(name, kind, f) for kind, f in used)
            if square.word_mult > 1:
                multipliers.append(square.word_mult)
                premiums.append(
                    PremiumUse(name, _word_premium_name(ruleset, square.word_mult), square.word_mult)
                )
        letter_sum += value
        shown = resolved[k] if k < len(resolved) else tile.letter
        shown = shown.lower() if tile.blank or tile.wildcard else shown.upper()
        letters.append(LetterScore(index, shown, base, is_new, factor // charge, charge, value))
    bonus = _bonus_letter_points(ruleset, cells, word, effects)
    factor = word_factor(ruleset, multipliers)
    return WordScore(
        word=resolved,
        squares=word.squares,
        letter_sum=letter_sum,
        bonus_letter=bonus,
        word_factor=factor,
        score=(letter_sum + bonus) * factor,
        premiums=tuple(premiums),
        letters=tuple(letters),
    )


def score_play(
    ruleset: Ruleset,
    cells_after: Cells,
    geometry: Geometry,
    resolved: Sequence[str],
    tokens: Sequence[str],
    effects: BoardEffects = NO_EFFECTS,
) -> ScoreBreakdown:
    """Score a play: every word it forms plus its bingo bonus."""
    words = tuple(
        score_word(ruleset, cells_after, w, text, effects)
        for w, text in zip(geometry.words, resolved, strict=True)
    )
    bingo = bingo_bonus(ruleset, tokens)
    return ScoreBreakdown(words, bingo, sum(w.score for w in words) + bingo)


def _bonus_letter_points(ruleset: Ruleset, cells: Cells, word: Word, effects: BoardEffects) -> int:
    """warofwords: +N when a real tile of the word shows the Bonus Letter (a wildcard never
    counts as the Bonus Letter — wordarena's reading; see docs/rules.md)."""
    if not (ruleset.bonus_letter and effects.bonus_letter):
        return 0
    for index in word.squares:
        tile = cells[index]
        if tile is not None and not tile.wildcard and not tile.blank and (
            tile.letter == effects.bonus_letter
        ):
            return ruleset.bonus_letter_points
    return 0


_CLASSIC_LETTER = {2: "DL", 3: "TL", 4: "QL"}
_CLASSIC_WORD = {2: "DW", 3: "TW", 4: "QW"}


def _letter_premium_name(ruleset: Ruleset, mult: int) -> str:
    if ruleset.word_factor is WordFactor.ADD:
        return f"{mult}L"
    return _CLASSIC_LETTER.get(mult, f"{mult}L")


def _word_premium_name(ruleset: Ruleset, mult: int) -> str:
    if ruleset.word_factor is WordFactor.ADD:
        return f"{mult}W"
    return _CLASSIC_WORD.get(mult, f"{mult}W")


def _colour_name(colour: int) -> str:
    return COLOUR_NAMES[colour]
