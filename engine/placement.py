"""The geometry of a play and the words it forms — one code path for every family.

``check_placement`` refuses a play that breaks a placement rule (``RuleError`` naming it) and
otherwise returns the ``Play`` geometry: the new tiles, the direction and every word formed
(main word first, then cross words in board order). Lexicon checks and scoring come after, in
``engine.game.turns`` and ``engine.scoring``.

Portals (War of Words): ``links`` maps each square of an open portal pair to its partner. The
one hook is :func:`next_square` — the square after (or before) a square along a line: a line
reaching a portal square continues from the square after its partner. ``_run`` (the words),
the one-line / no-gap check and connection all walk lines with it, so a board without portals
(``links`` empty, every other family) reads exactly as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wordarena.engine.board import Cells, square_name
from wordarena.engine.errors import InputError, Rule, RuleError
from wordarena.engine.rulesets.layout import STAR, WATER, BoardLayout
from wordarena.engine.rulesets.model import FirstPlay, Ruleset
from wordarena.engine.tiles import BLANK, WILDCARD, Tile

Links = Mapping[int, int]  # portal square -> its partner (both squares of every open pair)
NO_LINKS: Links = {}


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
    ruleset: Ruleset, cells: Cells, placements: Sequence[Placement], seat: int,
    links: Links = NO_LINKS,
) -> Geometry:
    """Apply the placement rules to a play on ``cells``; return its geometry. ``links`` are the
    open portal pairs (War of Words); lines are read through them."""
    layout = ruleset.board
    if not placements:
        raise RuleError(Rule.NO_TILES, "a play must place at least one tile")
    indexes = [_check_square(ruleset, cells, p) for p in placements]
    if len(set(indexes)) != len(indexes):
        raise RuleError(Rule.DUPLICATE_SQUARE, "two tiles on the same square")
    rows = {p.row for p in placements}
    cols = {p.col for p in placements}
    placed = tuple(
        (i, Tile(p.letter, p.blank, seat)) for i, p in zip(indexes, placements, strict=True)
    )
    after = list(cells)
    for i, tile in placed:
        after[i] = tile
    across = _direction(layout, after, indexes, len(rows) == 1 and len(cols) > 1, links)
    new = {i for i, _ in placed}
    # Connection first: a lone tile off the layout (or a one-tile first play) is refused for
    # where it stands, not for the word it fails to make.
    _check_connection(ruleset, cells, indexes, new, links)
    words = _words(layout, after, new, indexes, across, links)
    if not words:
        raise RuleError(Rule.NO_WORD, "a play must form a word of at least two letters")
    return Geometry(placed, across, words)


def next_square(
    layout: BoardLayout, links: Links, i: int, across: bool, forward: bool = True
) -> int | None:
    """The square after ``i`` (before it, unless ``forward``) along a line across or down, or
    None at the edge of the board.

    Without portals it is the plain neighbour. A portal square's exit is its partner's: going
    forward from a portal square *P* lands on the square after its partner *Q*, and going back
    from the square after *Q* lands on *P* (so the square after *P* is reached back from *Q*).
    Each square has at most one square after and one before it: lines never merge."""
    cols = layout.cols
    if forward:
        i = links.get(i, i)
        if across:
            return i + 1 if (i + 1) % cols else None
        return i + cols if i + cols < len(layout.squares) else None
    if across:
        return None if i % cols == 0 else links.get(i - 1, i - 1)
    return None if i < cols else links.get(i - cols, i - cols)


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
    layout: BoardLayout, after: list[Tile | None], indexes: list[int], across: bool,
    links: Links,
) -> bool:
    """Direction of the main word, checking that the new tiles lie on one line with no gap
    (read through portals): every new tile lies in the run of letters through the first one.
    A single tile takes the direction of its longer word."""
    if len(indexes) == 1:
        i = indexes[0]
        return _run_length(layout, after, i, True, links) >= \
            _run_length(layout, after, i, False, links)
    for way in (across, not across):
        if set(indexes) <= set(_run(layout, after, indexes[0], way, links)):
            return way
    for way in (across, not across):
        line = _line(layout, links, indexes[0], way)
        if set(indexes) <= set(line):
            at = sorted(line.index(i) for i in indexes)
            gap = next(j for j in line[at[0]:at[-1]] if after[j] is None)
            raise RuleError(Rule.GAP,
                            f"the play leaves a gap at {square_name(*divmod(gap, layout.cols))}")
    raise RuleError(Rule.NOT_IN_LINE,
                    "all tiles of a play must lie in one row or column (read through portals)")


def _line(layout: BoardLayout, links: Links, i: int, across: bool) -> list[int]:
    """Every square of the line through ``i`` (letters or not), in reading order; a line that
    closes on itself through a portal is cut at ``i``."""
    before: list[int] = []
    j = next_square(layout, links, i, across, False)
    while j is not None and j != i:
        before.append(j)
        j = next_square(layout, links, j, across, False)
    behind: list[int] = []
    j = next_square(layout, links, i, across, True)
    while j is not None and j != i:
        behind.append(j)
        j = next_square(layout, links, j, across, True)
    return [*reversed(before), i, *behind]


def _words(
    layout: BoardLayout, after: list[Tile | None], new: set[int], indexes: list[int],
    across: bool, links: Links = NO_LINKS,
) -> tuple[Word, ...]:
    words: list[Word] = []
    main = _run(layout, after, indexes[0], across, links)
    if len(main) > 1:
        words.append(Word(main, across, tuple(i in new for i in main)))
    seen = {main}
    for i in sorted(indexes):
        cross = _run(layout, after, i, not across, links)
        if len(cross) > 1 and cross not in seen:  # through a portal two tiles may share one
            seen.add(cross)
            words.append(Word(cross, not across, tuple(j in new for j in cross)))
    return tuple(words)


def _run(
    layout: BoardLayout, after: Sequence[Tile | None], i: int, across: bool,
    links: Links = NO_LINKS,
) -> tuple[int, ...]:
    """Indexes of the contiguous tiles through ``i`` in one direction, in reading order (read
    through portals). Letters closing a ring through a portal form no word: refused."""
    before: list[int] = []
    j = next_square(layout, links, i, across, False)
    while j is not None and after[j] is not None:
        if j == i:
            raise RuleError(Rule.NOT_ALLOWED, f"the letters through {square_name(*divmod(i, layout.cols))} "
                                              "would close a ring through a portal")
        before.append(j)
        j = next_square(layout, links, j, across, False)
    behind: list[int] = []
    j = next_square(layout, links, i, across, True)
    while j is not None and after[j] is not None:
        behind.append(j)
        j = next_square(layout, links, j, across, True)
    return (*reversed(before), i, *behind)


def _run_length(
    layout: BoardLayout, after: Sequence[Tile | None], i: int, across: bool,
    links: Links = NO_LINKS,
) -> int:
    return len(_run(layout, after, i, across, links))


def _check_connection(
    ruleset: Ruleset, cells: Cells, indexes: list[int], new: set[int], links: Links = NO_LINKS
) -> None:
    layout = ruleset.board
    if any(_touches_old_tile(layout, cells, i, links) for i in indexes):
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


def _touches_old_tile(layout: BoardLayout, cells: Cells, i: int, links: Links = NO_LINKS) -> bool:
    """True when a tile already on the board is next to ``i`` along a line (through portals)."""
    for across in (True, False):
        for forward in (True, False):
            j = next_square(layout, links, i, across, forward)
            if j is not None and cells[j] is not None:
                return True
    return False
