"""The state of one move generation, shared by its phases.

The generator (``generator``) sets a :class:`Generation` up and drives it; its phases —
extend-right over one DAWG node (``extend``) or over node sets (``wildcards``), and the left
parts found backwards from a run of tiles (``before_run``) — read and update it. The phases
import this module only, and the generator imports the phases: the imports run one way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from wordarena.engine.board import Cells
from wordarena.engine.movegen.lexwalk import LexWalker
from wordarena.engine.movegen.move import Move, NewTile
from wordarena.engine.movegen.tables import BLANK_KEY, SquareTables
from wordarena.engine.rulesets.model import FirstPlay, Ruleset
from wordarena.engine.scoring import BoardEffects, tile_value
from wordarena.engine.tiles import BLANK, WILDCARD

# Per square of a line: face value of its tile, Bonus Letter flag, value of a new tile of each
# letter, word multiplier (``Generation.line_values``)
LineValues = tuple[list[int], list[int], list[dict[str, int]], list[int]]
# The move being built, shared by the extend-right recursion and the recorder:
# [anchor, start of the word, the new tiles placed so far]
Walk = list[Any]
# A left part: its letters as shown (a wildcard as ``*``) and the rack tokens it uses
LeftPart = tuple[tuple[str, ...], tuple[str, ...]]
# A DAWG node; with War of Words wildcards, the tuple of nodes a node-set walk is at
NodeKey = Any
# Left parts of one length ending in one node(s): (node(s), child bits the rack could still
# use, a wildcard left, the parts)
LeftPartGroup = tuple[NodeKey, int, bool, list[LeftPart]]
# The left parts worth extending from an anchor, by node(s)
ViableParts = list[tuple[NodeKey, list[LeftPart]]]


class Generation:
    """One call of the generator: the position, the rack and the moves found so far, as the
    phases read them. The anchors are the generator's to find (``Generator.find_anchors``)."""

    def __init__(
        self,
        ruleset: Ruleset,
        tables: SquareTables,
        walker: LexWalker,
        cells: Cells,
        rack: Sequence[str],
        effects: BoardEffects,
    ) -> None:
        self.t = tables
        self.w = walker
        self.cells = cells
        counts = Counter(tok for tok in rack if tok in tables.bits or tok in (BLANK, WILDCARD))
        self.counts: dict[str, int] = dict(counts)
        self.counts.setdefault(BLANK, 0)
        self.counts.setdefault(WILDCARD, 0)
        self.tiles_on_rack = sum(counts.values())
        # the letters on the rack (not blanks or wildcards), in tile-set order
        self.rack_letters = [letter for letter in tables.letters if counts.get(letter)]
        self._values_of: tuple[list[int], LineValues] | None = None
        self.face = [
            0 if tile is None else tile_value(ruleset, tile, effects) for tile in cells
        ]
        bonus = tables.bonus_letter
        self.is_bonus = {letter: int(letter == bonus) for letter in tables.letters}
        self.old_bonus = [
            int(tile is not None and bonus is not None and not tile.blank and tile.letter == bonus)
            for tile in cells
        ]
        empty = all(tile is None for tile in cells)
        start_square = ruleset.first_play is FirstPlay.START_SQUARE
        self.min_tiles = ruleset.first_play_min_tiles if (empty and start_square) else 1
        self.opening = empty and start_square  # the first play, through the start square
        self.anchor: list[bool] = []  # per square: an anchor (set by the generator)
        self.dedup = self.counts[WILDCARD] > 0 or any(
            tile is not None and tile.letter == WILDCARD for tile in cells
        )
        self.seen: set[tuple[NewTile, ...]] = set()
        # node-set walks (``wildcards``): each set's step by a letter, and its child bits
        self.set_steps: dict[tuple[tuple[int, ...], str], tuple[int, ...]] = {}
        self.set_bits: dict[tuple[int, ...], int] = {}
        # cross score of a square without a cross word: 0 whatever goes there
        self.zero = dict.fromkeys(tables.letters, 0) | {BLANK_KEY: 0}
        self.left_parts: list[list[LeftPartGroup]] | None = None
        self.viable_cache: dict[tuple[int, tuple[str, int, bool] | None],
                                Callable[[int], ViableParts]] = {}
        self.look_cache: dict[tuple[str, int, bool], Callable[[int, int, bool], int]] = {}
        self.line_cross: list[int] = []
        self.line_letters: list[str | None] = []
        self.out: list[Move] = []

    def letters_left(self) -> int:
        """The letters on the rack now (blanks and wildcards aside), as cross-check bits."""
        bits, counts = self.t.bits, self.counts
        found = 0
        for letter in self.rack_letters:
            if counts[letter]:
                found |= bits[letter]
        return found

    def playable(self) -> int:
        """The letters the rack can play now: every letter while a blank or a wildcard is
        left, else its own."""
        counts = self.counts
        return self.t.all_bits if counts[BLANK] or counts[WILDCARD] else self.letters_left()

    def line_values(self, squares: list[int]) -> LineValues:
        """Per square of the line, for the extend-right recursions: the face value of the tile
        on it, whether that tile is the Bonus Letter, the value of a new tile of each letter,
        and the word multiplier. Kept for the line in hand, which both recursions may walk."""
        if self._values_of is None or self._values_of[0] is not squares:
            t = self.t
            values = ([self.face[s] for s in squares], [self.old_bonus[s] for s in squares],
                      [t.new_value[s] for s in squares], [t.word_mult[s] for s in squares])
            self._values_of = (squares, values)
        return self._values_of[1]
