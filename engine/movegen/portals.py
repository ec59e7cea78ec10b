"""Move generation through War of Words portals (docs/warofwords.md, "Portal").

The plain generator walks rows and columns. With an open portal pair a line is instead the chain
of squares :func:`engine.placement.next_square` walks — a row (or column) spliced with another
one at a portal square — and every square lies on exactly one line per direction. Chains that
close on themselves are *rings* (a pair on one row or column); a ring has no first letter, so a
word on it must leave an empty square before and after it. The same Appel–Jacobson search then
runs on each line, with anchors and cross-checks read through the portals too.

What differs from the plain walk:

* **Lines**: every chain from a square with no square before it, plus each ring. A ring is cut
  once at each of its empty squares *f*; the cut line is the ring from the square after *f* to
  the square before it, and on it only the words ending at its last square are kept — so a word
  on a ring is found once, on the cut at the empty square just after it.
* **Anchors and cross-checks**: the four line neighbours of a square through ``next_square``; a
  cross word that would close a ring allows no letter.
* **Entangled squares**: through a portal one perpendicular line may cross a line twice, so two
  new tiles of one play can share a cross word (formed once). The empty squares of a line that
  share a perpendicular line with another of its empty squares get no cross-check; a play using
  one is checked and scored by the engine's own validator and scorer instead of the tables.
* **Both directions**: the tiles of a play may lie on one line across *and* one line down; the
  play is then found in both passes and kept once, with the direction ``check_placement`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wordarena.engine.board import Cells, with_tiles
from wordarena.engine.errors import RuleError
from wordarena.engine.movegen.generator import Generator, new_move
from wordarena.engine.movegen.lexwalk import LexWalker
from wordarena.engine.movegen.move import Move, NewTile
from wordarena.engine.movegen.tables import SquareTables
from wordarena.engine.placement import Links, Placement, check_placement, next_square, word_text
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.scoring import BoardEffects, score_play
from wordarena.engine.tiles import BLANK
from wordarena.engine.words import invalid_words, resolve_words

LineGeometry = dict[bool, tuple[list[list[int]], list[list[int]]]]
_geometry: dict[tuple[int, tuple[tuple[int, int], ...]], tuple[Ruleset, LineGeometry]] = {}


def line_geometry(ruleset: Ruleset, links: Links) -> LineGeometry:
    """(lines, rings) across and down (``portal_lines``), cached per board and pairs: the same
    for every position until a portal pair opens or closes. Not to be changed by the caller."""
    key = (id(ruleset), tuple(sorted(links.items())))
    found = _geometry.get(key)
    if found is None or found[0] is not ruleset:
        if len(_geometry) > 64:
            _geometry.clear()
        found = _geometry[key] = (
            ruleset, {across: portal_lines(ruleset, links, across) for across in (True, False)})
    return found[1]


def portal_lines(ruleset: Ruleset, links: Links, across: bool) -> tuple[list[list[int]], list[list[int]]]:
    """(lines, rings) in one direction: every chain of squares walked with ``next_square`` from
    a square with none before it, and every chain that closes on itself."""
    layout = ruleset.board
    size = len(layout.squares)
    seen = [False] * size
    lines: list[list[int]] = []
    for s in range(size):
        if next_square(layout, links, s, across, False) is None:
            line: list[int] = []
            j: int | None = s
            while j is not None:
                line.append(j)
                seen[j] = True
                j = next_square(layout, links, j, across, True)
            lines.append(line)
    rings: list[list[int]] = []
    for s in range(size):
        if not seen[s]:
            ring: list[int] = []
            at = s
            while not seen[at]:
                ring.append(at)
                seen[at] = True
                after = next_square(layout, links, at, across, True)
                assert after is not None, "a ring has no end"
                at = after
            rings.append(ring)
    return lines, rings


class PortalGenerator(Generator):
    """One generator call on a position with open portal pairs."""

    def __init__(
        self, ruleset: Ruleset, tables: SquareTables, walker: LexWalker, cells: Cells,
        rack: Sequence[str], effects: BoardEffects, links: Links,
    ) -> None:
        self.ruleset = ruleset
        self.links = links
        self.effects = effects
        super().__init__(ruleset, tables, walker, cells, rack, effects)
        self.line_id: dict[bool, list[int]] = {}
        self.geometry = line_geometry(ruleset, links)
        for across, (lines, rings) in self.geometry.items():
            ids = [0] * len(cells)
            for k, line in enumerate([*lines, *rings]):
                for s in line:
                    ids[s] = k
            self.line_id[across] = ids

    def find_anchors(self, ruleset: Ruleset, first_play: bool) -> list[bool]:
        if first_play:
            return super().find_anchors(ruleset, first_play)
        t, cells, layout, links = self.t, self.cells, ruleset.board, self.links
        anchor = [False] * len(cells)
        for i, tile in enumerate(cells):
            if tile is not None or t.blocked[i]:
                continue
            if t.free_start[i]:
                anchor[i] = True
                continue
            for across in (True, False):
                for forward in (True, False):
                    j = next_square(layout, links, i, across, forward)
                    if j is not None and cells[j] is not None:
                        anchor[i] = True
        return anchor

    def mirrored(self) -> bool:
        return False

    def run(self) -> list[Move]:
        if self.tiles_on_rack == 0:
            return []
        cells, anchor = self.cells, self.anchor
        for across in (True, False):
            lines, rings = self.geometry[across]
            for line in lines:
                if any(anchor[s] for s in line):
                    self.generate_line(line, across)
            for ring in rings:
                if not any(anchor[s] for s in ring):
                    continue
                n = len(ring)
                for k, f in enumerate(ring):
                    if cells[f] is None:
                        self.generate_line([ring[(k + 1 + j) % n] for j in range(n - 1)], across, True)
        return self._once()

    def _once(self) -> list[Move]:
        """Each play once: a play whose tiles lie on a line across and on a line down is found
        in both passes; it keeps the direction ``check_placement`` tries first."""
        found: dict[tuple[NewTile, ...], Move] = {}
        cols = self.t.cols
        for move in self.out:
            key = tuple(sorted(move.tiles))
            if key in found:
                rows = {s // cols for s, _, _ in key}
                columns = {s % cols for s, _, _ in key}
                first = found[key]
                across = len(rows) == 1 and len(columns) > 1
                found[key] = new_move(Move, (first.score, first.tiles, across, cols))
            else:
                found[key] = move
        return list(found.values())

    def cross_check(self, s: int, across: bool) -> tuple[int, dict[str, int] | None, int]:
        t, cells, layout, links = self.t, self.cells, self.ruleset.board, self.links
        if t.blocked[s]:
            return 0, None, 1
        down = not across
        before: list[int] = []
        j = next_square(layout, links, s, down, False)
        while j is not None and cells[j] is not None:
            before.append(j)
            j = next_square(layout, links, j, down, False)
        if j == s:
            return 0, None, 1  # a letter here would close a ring through a portal
        after: list[int] = []
        j = next_square(layout, links, s, down, True)
        while j is not None and cells[j] is not None:
            after.append(j)
            j = next_square(layout, links, j, down, True)
        before.reverse()
        return self.cross_word(s, before, after)

    def generate_line(self, squares: list[int], across: bool, end_only: bool = False) -> None:
        """As the plain line, plus: the entangled squares (see the module) and, on a cut ring,
        only the words ending at the line's last square."""
        t = self.t
        n = len(squares)
        letters, cross, xscore, xlen = self.line_checks(squares, across)
        perp = self.line_id[not across]
        by_perp: dict[int, list[int]] = {}
        for i, s in enumerate(squares):
            if letters[i] is None and not t.blocked[s]:
                by_perp.setdefault(perp[s], []).append(i)
        relaxed: set[int] = set()
        for group in by_perp.values():
            if len(group) > 1:
                for i in group:
                    cross[i] = t.all_bits
                    xscore[i] = self.zero
                    relaxed.add(squares[i])
        anchors = [self.anchor[s] for s in squares]
        self.line_cross = cross
        self.line_letters = letters
        extend, release = self.extender(squares, letters, cross, xscore, xlen, across,
                                        end_only, frozenset(relaxed), self.checked_move)
        for a in range(n):
            if anchors[a] and cross[a]:
                self.from_anchor(a, squares, letters, anchors, extend)
        release()

    def checked_move(self, tiles: tuple[NewTile, ...]) -> Move | None:
        """The play ``tiles`` judged by the engine itself (``judged_move``)."""
        return judged_move(self.ruleset, self.cells, self.links, self.w.lexicon, self.effects,
                           tiles)


def judged_move(
    ruleset: Ruleset, cells: Cells, links: Links, lexicon: Any, effects: BoardEffects,
    tiles: tuple[NewTile, ...],
) -> Move | None:
    """The play ``tiles`` checked and scored by the engine itself (validator, word list with
    wildcard resolution, scorer), or None when it is not legal: the plays on entangled squares,
    for this generator and for the native core (``native/portals.c``)."""
    cols = ruleset.board.cols
    placements = [Placement(s // cols, s % cols, letter, blank) for s, letter, blank in tiles]
    try:
        geometry = check_placement(ruleset, cells, placements, 0, links)
    except RuleError:
        return None
    after = with_tiles(cells, geometry.placed)
    texts = [word_text(after, w) for w in geometry.words]
    resolved = resolve_words(texts, lexicon, ruleset.tiles.letters)
    if invalid_words(texts, resolved):
        return None
    tokens = tuple(BLANK if blank else letter for _, letter, blank in tiles)
    words = tuple(r or x for r, x in zip(resolved, texts, strict=True))
    score = score_play(ruleset, after, geometry, words, tokens, effects).total
    return new_move(Move, (score, tiles, geometry.across, cols))
