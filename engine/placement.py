"""The geometry of a play and the words it forms — one code path for every family.

``check_placement`` refuses a play that breaks a placement rule (``RuleError`` naming it) and
otherwise returns the ``Play`` geometry: the new tiles, the direction and every word formed
(main word first, then cross words in board order). Lexicon checks and scoring come after, in
``engine.game.turns`` and ``engine.scoring``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engine.board import Cells, square_name
from engine.errors import InputError, Rule, RuleError
from engine.rulesets.layout import STAR, WATER, BoardLayout
from engine.rulesets.model import FirstPlay, Ruleset
from engine.tiles import BLANK, WILDCARD, Tile


@dataclass(frozen=True, slots=True)
class Placement:
    """One tile put down: the square, the letter it shows and whether it is a blank.

    A War of Words wildcard shows ``"*"`` (it takes its letters word by word); a War of Words
    action tile shows its token (``"@bomb"``), handled by ``engine.warofwords``."""

    row: int
    col: int
    letter: str
    blank: bool = False
    facing: str = ""  # warofwords: a Blaster's direction (up, down, left, right)

    @property
    def token(self) -> str:
        """The rack token this placement uses."""
        return BLANK if self.blank else self.letter


@dataclass(frozen=True, slots=True)
class Word:
    """A word formed by a play: its squares in reading order and which of them are new."""

    squares: tuple[int, ...]
    across: bool
    new: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class Geometry:
    """A play that passed the placement rules."""

    placed: tuple[tuple[int, Tile], ...]  # (square index, tile) of each new tile
    across: bool  # direction of the main word
    words: tuple[Word, ...]  # main word (if 2+ letters) first, then cross words


def word_text(cells: Cells, word: Word) -> str:
    """The letters of a word as they lie on ``cells`` (wildcards as ``*``)."""
    return "".join(cells[i].letter for i in word.squares)  # type: ignore[union-attr]


def check_tokens_on_rack(rack: Sequence[str], tokens: Sequence[str]) -> None:
    """Refuse (TILES_NOT_ON_RACK) unless every token is on the rack, counting repeats."""
    missing = Counter(tokens) - Counter(rack)
    if missing:
        shown = "".join(sorted(missing.elements()))
        raise RuleError(Rule.TILES_NOT_ON_RACK, f"tiles not on your rack: {shown}")


def check_placement(
    ruleset: Ruleset, cells: Cells, placements: Sequence[Placement], seat: int
) -> Geometry:
    """Apply the placement rules to a play on ``cells``; return its geometry."""
    layout = ruleset.board
    if not placements:
        raise RuleError(Rule.NO_TILES, "a play must place at least one tile")
    indexes = [_check_square(ruleset, cells, p) for p in placements]
    if len(set(indexes)) != len(indexes):
        raise RuleError(Rule.DUPLICATE_SQUARE, "two tiles on the same square")
    rows = {p.row for p in placements}
    cols = {p.col for p in placements}
    if len(rows) > 1 and len(cols) > 1:
        raise RuleError(Rule.NOT_IN_LINE, "all tiles of a play must lie in one row or column")
    placed = tuple(
        (i, Tile(p.letter, p.blank, seat)) for i, p in zip(indexes, placements, strict=True)
    )
    after = list(cells)
    for i, tile in placed:
        after[i] = tile
    across = _direction(layout, after, placed, len(rows) == 1 and len(cols) > 1)
    _check_no_gap(layout, after, indexes, across)
    new = {i for i, _ in placed}
    # Connection first: a lone tile off the layout (or a one-tile first play) is refused for
    # where it stands, not for the word it fails to make.
    _check_connection(ruleset, cells, indexes, new)
    words = _words(layout, after, new, indexes, across)
    if not words:
        raise RuleError(Rule.NO_WORD, "a play must form a word of at least two letters")
    return Geometry(placed, across, words)


def _check_square(ruleset: Ruleset, cells: Cells, p: Placement) -> int:
    layout = ruleset.board
    if type(p.row) is not int or type(p.col) is not int or not isinstance(p.letter, str):
        raise InputError(f"a placement is (row: int, col: int, letter: str), not {p!r}", "placement")
    if not layout.in_bounds(p.row, p.col):
        raise RuleError(Rule.OFF_BOARD, f"({p.row}, {p.col}) is off the board")
    index = layout.index(p.row, p.col)
    where = square_name(p.row, p.col)
    if cells[index] is not None:
        raise RuleError(Rule.SQUARE_OCCUPIED, f"{where} already holds a tile")
    if layout.squares[index].blocked:
        raise RuleError(Rule.SQUARE_BLOCKED, f"{where} is {layout.squares[index].terrain}")
    if p.letter == WILDCARD:
        if p.blank or WILDCARD not in ruleset.tiles.counts:
            raise RuleError(Rule.LETTER_NOT_IN_SET, f"{ruleset.name} has no wildcard tiles")
    elif not ruleset.tiles.has_letter(p.letter):
        rule = Rule.BAD_BLANK if p.blank else Rule.LETTER_NOT_IN_SET
        raise RuleError(rule, f"{p.letter!r} is not a letter of the {ruleset.tiles.id} set")
    return index


def _direction(
    layout: BoardLayout, after: list[Tile | None], placed: tuple[tuple[int, Tile], ...],
    across: bool,
) -> bool:
    """Direction of the main word; a single tile takes the direction of its longer word."""
    if len(placed) > 1:
        return across
    i = placed[0][0]
    return _run_length(layout, after, i, True) >= _run_length(layout, after, i, False)


def _check_no_gap(
    layout: BoardLayout, after: list[Tile | None], indexes: list[int], across: bool
) -> None:
    step = 1 if across else layout.cols
    for i in range(min(indexes), max(indexes) + 1, step):
        if after[i] is None:
            raise RuleError(Rule.GAP, f"the play leaves a gap at {square_name(*divmod(i, layout.cols))}")


def _words(
    layout: BoardLayout, after: list[Tile | None], new: set[int], indexes: list[int], across: bool
) -> tuple[Word, ...]:
    words = []
    main = _run(layout, after, indexes[0], across)
    if len(main) > 1:
        words.append(Word(main, across, tuple(i in new for i in main)))
    for i in sorted(indexes):
        cross = _run(layout, after, i, not across)
        if len(cross) > 1:
            words.append(Word(cross, not across, tuple(j in new for j in cross)))
    return tuple(words)


def _run(layout: BoardLayout, after: Sequence[Tile | None], i: int, across: bool) -> tuple[int, ...]:
    """Indexes of the contiguous tiles through ``i`` in one direction, in reading order."""
    cols = layout.cols
    step = 1 if across else cols
    row = i // cols

    def inside(j: int) -> bool:
        return 0 <= j < len(after) and (not across or j // cols == row)

    start = i
    while inside(start - step) and after[start - step] is not None:
        start -= step
    end = i
    while inside(end + step) and after[end + step] is not None:
        end += step
    return tuple(range(start, end + step, step))


def _run_length(layout: BoardLayout, after: Sequence[Tile | None], i: int, across: bool) -> int:
    return len(_run(layout, after, i, across))


def _check_connection(ruleset: Ruleset, cells: Cells, indexes: list[int], new: set[int]) -> None:
    layout = ruleset.board
    if any(_touches_old_tile(layout, cells, i) for i in indexes):
        return
    if ruleset.first_play is FirstPlay.STAR_OR_WATER:
        if any(layout.squares[i].terrain in (STAR, WATER) for i in indexes):
            return
        raise RuleError(
            Rule.NOT_CONNECTED, "a word must connect to a letter on the board or cover a Star or Water"
        )
    board_empty = all(c is None for c in cells)
    if not board_empty:
        raise RuleError(Rule.NOT_CONNECTED, "the play must connect to the tiles on the board")
    if layout.start is not None and layout.start not in new:
        raise RuleError(
            Rule.FIRST_MOVE_OFF_START,
            f"the first word must cover the start square {square_name(*divmod(layout.start, layout.cols))}",
        )
    if len(new) < ruleset.first_play_min_tiles:
        raise RuleError(
            Rule.FIRST_MOVE_TOO_SHORT,
            f"the first word must have at least {ruleset.first_play_min_tiles} letters",
        )


def _touches_old_tile(layout: BoardLayout, cells: Cells, i: int) -> bool:
    row, col = divmod(i, layout.cols)
    for rr, cc in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= rr < layout.rows and 0 <= cc < layout.cols and cells[rr * layout.cols + cc]:
            return True
    return False
