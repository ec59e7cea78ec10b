"""A generated move: the new tiles, the direction of its main word and its score.

A ``Move`` is a small named tuple so that generating tens of thousands of them stays cheap. Two
moves are the same move exactly when they put the same letters (and blanks) on the same squares;
``key`` is that identity. Everything else a client wants (position ``8H``, the words formed, the
score breakdown) is derived on demand from the position with :func:`describe_move`.
"""

from __future__ import annotations

from typing import NamedTuple

from wordarena.engine.board import Cells, with_tiles
from wordarena.engine.game.actions import Play
from wordarena.engine.notation import format_play, word_from_placements
from wordarena.engine.placement import NO_LINKS, Links, Placement, check_placement, word_text
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.scoring import NO_EFFECTS, BoardEffects, ScoreBreakdown, score_play
from wordarena.engine.tiles import BLANK, Tile

# One new tile: (square index, letter shown, True when a blank shows it). A War of Words
# wildcard shows "*" and is not a blank.
NewTile = tuple[int, str, bool]


class Move(NamedTuple):
    """A legal play found by the generator.

    ``tiles`` are in reading order; ``across`` is the direction of the main word as the
    placement validator sees it (a single tile takes the direction of its longer word)."""

    score: int
    tiles: tuple[NewTile, ...]
    across: bool
    cols: int

    @property
    def key(self) -> tuple[NewTile, ...]:
        """The move's identity: squares, letters and blanks."""
        return self.tiles

    @property
    def tokens(self) -> tuple[str, ...]:
        """The rack tokens the move uses (``?`` for each blank)."""
        return tuple(BLANK if blank else letter for _, letter, blank in self.tiles)

    @property
    def tile_count(self) -> int:
        return len(self.tiles)

    def placements(self) -> tuple[Placement, ...]:
        """The move as validator placements (row, column, letter, blank)."""
        cols = self.cols
        return tuple(Placement(i // cols, i % cols, letter, blank) for i, letter, blank in self.tiles)

    def to_play(self, seat: int) -> Play:
        """The ``engine.game.Play`` action that makes this move for ``seat``."""
        return Play(seat, self.placements())

    def notation(self) -> str:
        """The new tiles as letters, blanks in lower case (``QuIT``-style, new tiles only)."""
        return "".join(letter.lower() if blank else letter for _, letter, blank in self.tiles)


class MoveInfo(NamedTuple):
    """A move explained on its position: where it lies, the words it forms, its breakdown."""

    move: Move
    position: str  # GCG-style: 8H across, H8 down (first square of the main word)
    word: str  # the main word as laid, blanks in lower case, wildcards as "*"
    words: tuple[str, ...]  # every word formed (wildcards resolved), main word first
    breakdown: ScoreBreakdown
    notation: str  # ``engine.notation``: "8H .OPE", played-through tiles as "."


def describe_move(
    ruleset: Ruleset,
    cells: Cells,
    move: Move,
    resolve: tuple[str, ...] | None = None,
    effects: BoardEffects = NO_EFFECTS,
    links: Links = NO_LINKS,
) -> MoveInfo:
    """Position, words and breakdown of ``move`` on ``cells`` (through the validator and the
    scorer, so the explanation is the engine's own). ``resolve`` gives the words as checked
    (wildcards resolved); by default they are the laid texts. ``links``: War of Words open
    portal pairs (``engine.warofwords.arena.portal_links``), read through as the engine does."""
    geometry = check_placement(ruleset, cells, move.placements(), 0, links)
    after = with_tiles(cells, geometry.placed)
    texts = tuple(word_text(after, w) for w in geometry.words)
    words = resolve if resolve is not None else texts
    breakdown = score_play(ruleset, after, geometry, words, move.tokens, effects)
    main = geometry.words[0]
    laid = "".join(_shown(after[i]) for i in main.squares)
    position, written = word_from_placements(ruleset.board, cells, move.placements(), main.across)
    return MoveInfo(move, position, laid, tuple(words), breakdown, format_play(position, written))


def _shown(tile: Tile | None) -> str:
    assert tile is not None
    return tile.letter.lower() if tile.blank else tile.letter
