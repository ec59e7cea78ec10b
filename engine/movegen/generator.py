"""Every legal play of a position: Appel–Jacobson over the compiled DAWG.

For each direction and each line (row or column) the generator marks the *anchors* (empty
squares next to a tile; on an empty board the start square; in War of Words also every Star and
Water square, which lets a play stand alone) and computes, for each empty square with tiles above
or below it, the *cross-check* bitset of the letters that make a valid cross word there, and the
score that cross word would add. From each anchor it builds *left parts* from the rack (or takes
the tiles already left of it) and *extends right* through the DAWG, placing rack tiles on empty
squares and walking over tiles already on the board. Scores are accumulated on the way from
per-square tables derived from ``engine.scoring`` (see ``tables``), and a move is materialised
only when a complete word is recorded.

Each move is found once: it is built from its leftmost anchor (left-part squares are never
anchors), a single tile forming words both ways is kept only in the across pass, and a War of
Words wildcard placement is walked once, as a set of DAWG nodes (``wildcards``; a seen-set
guards against repeats there).

This module drives one generation (its state is ``generation.Generation``): anchors,
cross-checks, left parts and their look-ahead, and the recorder of moves; the extend-right
recursion is in ``extend`` (one DAWG node) and ``wildcards`` (node sets), the left parts before
a long run in ``before_run``. ``api.generate`` picks this generator or the one reading lines
through War of Words portals (``portals``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wordarena.engine.board import Cells
from wordarena.engine.movegen.before_run import LONG_RUN, left_parts_before_run
from wordarena.engine.movegen.extend import plain_extender
from wordarena.engine.movegen.generation import (
    Generation,
    LeftPart,
    LeftPartGroup,
    ViableParts,
    Walk,
)
from wordarena.engine.movegen.lexwalk import LexWalker
from wordarena.engine.movegen.move import Move, NewTile
from wordarena.engine.movegen.tables import BLANK_KEY, SquareTables
from wordarena.engine.movegen.wildcards import wild_extender, wild_left_parts
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.scoring import BoardEffects
from wordarena.engine.tiles import BLANK, WILDCARD

new_move = tuple.__new__  # Move(...) without the named tuple's Python-level __new__




class Generator(Generation):
    """One call of the generator on plain rows and columns (``portals`` reads lines through
    portal pairs): anchors, cross-checks, left parts and the look-ahead, and the recorder."""

    def __init__(
        self,
        ruleset: Ruleset,
        tables: SquareTables,
        walker: LexWalker,
        cells: Cells,
        rack: Sequence[str],
        effects: BoardEffects,
    ) -> None:
        super().__init__(ruleset, tables, walker, cells, rack, effects)
        self.anchor = self.find_anchors(ruleset, self.opening)

    # -- setup -----------------------------------------------------------------------------

    def find_anchors(self, ruleset: Ruleset, first_play: bool) -> list[bool]:
        t, cells = self.t, self.cells
        rows, cols = t.rows, t.cols
        if first_play:
            start = ruleset.board.start
            if start is None:
                return [not b for b in t.blocked]
            return [i == start for i in range(rows * cols)]
        anchor = [False] * (rows * cols)
        for i, tile in enumerate(cells):
            if tile is not None or t.blocked[i]:
                continue
            if t.free_start[i]:
                anchor[i] = True
                continue
            r, c = divmod(i, cols)
            anchor[i] = (
                (r > 0 and cells[i - cols] is not None)
                or (r < rows - 1 and cells[i + cols] is not None)
                or (c > 0 and cells[i - 1] is not None)
                or (c < cols - 1 and cells[i + 1] is not None)
            )
        return anchor

    def run(self) -> list[Move]:
        if self.tiles_on_rack == 0:
            return []
        t = self.t
        mirror = self.mirrored()
        for across in (True,) if mirror else (True, False):
            for k in range(t.rows if across else t.cols):
                squares = (range(k * t.cols, (k + 1) * t.cols) if across
                           else range(k, t.rows * t.cols, t.cols))
                if any(self.anchor[s] for s in squares):
                    self.generate_line(list(squares), across)
        if mirror:
            self._add_mirror()
        return self.out

    def mirrored(self) -> bool:
        """On an empty board whose squares and anchors are symmetric about the diagonal, the
        down moves are the across moves transposed: generate across only, then mirror."""
        t = self.t
        if not t.symmetric or any(tile is not None for tile in self.cells):
            return False
        n = t.cols
        anchor = self.anchor
        return all(anchor[r * n + c] == anchor[c * n + r] for r in range(n) for c in range(r))

    def _add_mirror(self) -> None:
        cols = self.t.cols
        out = self.out
        mirrored = [
            new_move(Move, (m.score, tuple(((s % cols) * cols + s // cols, letter, blank)
                                            for s, letter, blank in m.tiles), False, cols))
            for m in out
        ]
        out.extend(mirrored)

    def cross_check(self, s: int, across: bool) -> tuple[int, dict[str, int] | None, int]:
        """(cross-check bits, cross score per letter or None when no cross word, run length)
        of the empty square ``s`` for plays whose main word runs ``across``."""
        t, cells = self.t, self.cells
        if t.blocked[s]:
            return 0, None, 1
        cols = t.cols
        if across:
            step, pos, limit = cols, s // cols, t.rows
        else:
            step, pos, limit = 1, s % cols, cols
        before: list[int] = []
        j, p = s, pos
        while p > 0 and cells[j - step] is not None:
            j -= step
            p -= 1
            before.append(j)
        after: list[int] = []
        j, p = s, pos
        while p < limit - 1 and cells[j + step] is not None:
            j += step
            p += 1
            after.append(j)
        before.reverse()
        return self.cross_word(s, before, after)

    def cross_word(
        self, s: int, before: list[int], after: list[int]
    ) -> tuple[int, dict[str, int] | None, int]:
        """What ``cross_check`` answers for the empty square ``s`` between the tiles on the squares
        ``before`` and ``after`` it (in reading order) in the other direction."""
        if not before and not after:
            return self.t.all_bits, None, 1
        cells = self.cells
        prefix = "".join(cells[i].letter for i in before)  # type: ignore[union-attr]
        suffix = "".join(cells[i].letter for i in after)  # type: ignore[union-attr]
        bits = self.w.cross_bits(prefix, suffix)
        return bits, self._cross_scores(s, before + after, bits), len(before) + len(after) + 1

    def _cross_scores(self, s: int, old: list[int], bits: int) -> dict[str, int]:
        t = self.t
        base = sum(self.face[i] for i in old)
        has_bonus = any(self.old_bonus[i] for i in old)
        factor = t.cross_factor[s]
        bp = t.bonus_points
        values = t.new_value[s]
        scores = {BLANK_KEY: (base + (bp if has_bonus else 0)) * factor}
        counts = self.counts
        every = counts[BLANK] or counts[WILDCARD]
        for letter, bit in t.bits.items():
            if bits & bit and (every or counts.get(letter)):
                bonus = bp if (has_bonus or self.is_bonus[letter]) else 0
                scores[letter] = (base + values[letter] + bonus) * factor
        return scores

    # -- one line ----------------------------------------------------------------------------

    def line_checks(
        self, squares: list[int], across: bool
    ) -> tuple[list[str | None], list[int], list[dict[str, int]], list[int]]:
        """Per square of the line: the letter on it (None when empty) and, for an empty one,
        its cross-check bits, cross-word scores and cross-run length."""
        cells = self.cells
        n = len(squares)
        letters = [None if cells[s] is None else cells[s].letter for s in squares]  # type: ignore[union-attr]
        cross: list[int] = [0] * n
        xscore: list[dict[str, int]] = [self.zero] * n
        xlen = [1] * n
        for i, s in enumerate(squares):
            if letters[i] is None:
                bits, scores, length = self.cross_check(s, across)
                cross[i] = bits
                xlen[i] = length
                if scores is not None:
                    xscore[i] = scores
        return letters, cross, xscore, xlen

    def generate_line(self, squares: list[int], across: bool) -> None:
        """Generate every move whose main word lies on this line."""
        n = len(squares)
        letters, cross, xscore, xlen = self.line_checks(squares, across)
        anchors = [self.anchor[s] for s in squares]
        self.line_cross = cross
        self.line_letters = letters
        extend, release = self.extender(squares, letters, cross, xscore, xlen, across)
        for a in range(n):
            if anchors[a] and cross[a]:
                self.from_anchor(a, squares, letters, anchors, extend)
        release()

    def from_anchor(
        self, a: int, squares: list[int], letters: list[str | None], anchors: list[bool],
        extend: Callable[..., None],
    ) -> None:
        t = self.t
        if a > 0 and letters[a - 1] is not None:
            start = a - 1
            while start > 0 and letters[start - 1] is not None:
                start -= 1
            text = "".join(letters[start:a])  # type: ignore[arg-type]
            msum = sum(self.face[squares[j]] for j in range(start, a))
            bon = int(any(self.old_bonus[squares[j]] for j in range(start, a)))
            nodes = self.w.nodes_after(self.w.root, text)
            for node in [tuple(nodes)] if self.dedup and nodes else nodes:
                extend(a, node, start, a, [], msum, 0 if t.additive else 1, bon, 0)
            return
        limit = 0
        j = a - 1
        while j >= 0 and letters[j] is None and not t.blocked[squares[j]] and not anchors[j]:
            limit += 1
            j -= 1
        limit = min(limit, self.tiles_on_rack - 1)
        self._left_parts(a, squares, limit, extend)

    def _left_parts(self, a: int, squares: list[int], limit: int, extend: Callable[..., None]) -> None:
        """Extend from anchor ``a`` after every left part of up to ``limit`` rack tiles that
        could go on: its node has a child letter the rack can still play at the anchor."""
        t, counts = self.t, self.counts
        additive = t.additive
        new_value, word_mult, is_bonus = t.new_value, t.word_mult, self.is_bonus
        natural, blank_tile = t.natural, t.blank
        extend(a, self.w.root, a, a, [], 0, 0 if additive else 1, 0, 0)
        if not limit:
            return
        viable_parts = self._viable_left_parts(a)
        wf = 0 if additive else 1
        for k in range(1, limit + 1):
            start = a - k
            line = squares[start:a]
            # the word factor of the left part's squares (the same whatever goes there)
            wf = wf + word_mult[line[0]] if additive else wf * word_mult[line[0]]
            for node, parts in viable_parts(k):
                for letters, tokens in parts:
                    msum, bon = 0, 0
                    placed = []
                    for s, letter, token in zip(line, letters, tokens, strict=True):
                        if token == WILDCARD:
                            placed.append((s, WILDCARD, False))
                        elif token == letter:
                            msum += new_value[s][letter]
                            bon |= is_bonus[letter]
                            placed.append(natural[s][letter])
                        else:
                            placed.append(blank_tile[s][letter])
                    for token in tokens:
                        counts[token] -= 1
                    extend(a, node, start, a, placed, msum, wf, bon, k)
                    for token in tokens:
                        counts[token] += 1

    def _viable_left_parts(self, a: int) -> Callable[[int], ViableParts]:
        """The left parts of each length worth extending from anchor ``a``: those whose node
        has a child letter that fits the anchor's cross-check and lets the word go on (see
        ``_look_ahead``). The test depends only on the anchor's cross-check and on what lies
        after it (``_look_ahead_key``), which many anchors share, so the filtered lists are
        kept per such signature for the whole generation."""
        key = self._look_ahead_key(a)
        signature = (self.line_cross[a], key)
        found = self.viable_cache.get(signature)
        if found is not None:
            return found
        csa = self.line_cross[a]
        backwards = self.w.lexicon.reversed_prefixes
        if key is not None and len(key[0]) >= LONG_RUN and backwards:
            found = left_parts_before_run(self, backwards, key[0], csa).__getitem__
            self.viable_cache[signature] = found
            return found
        by_length = self._left_part_table()
        good = None if key is None else self._look_ahead(key)
        # the bit of the tile after the anchor, for a cheap first test
        tile_bit = self.t.bits[key[0][0]] if key is not None and key[0] else 0
        lists: dict[int, ViableParts] = {}

        def parts_of_length(k: int) -> ViableParts:
            kept = lists.get(k)
            if kept is None:
                last = k + 1 >= self.tiles_on_rack
                grandkids = self.w.grandkid_bits
                if self.dedup:  # node sets (``wildcards``)
                    kept = [
                        (nodes, parts) for nodes, mask, wild, parts in by_length[k]
                        if (mask and wild) or (mask & csa and (good is None or any(
                            good(node, mask & csa, last) for node in nodes
                            if not tile_bit or grandkids[node] & tile_bit)))
                    ]
                elif tile_bit:  # most left parts fail here: a first test two letters down
                    kept = [
                        (node, parts) for node, mask, wild, parts in by_length[k]
                        if (mask and wild) or (mask & csa and grandkids[node] & tile_bit
                                               and good(node, mask & csa, last))  # type: ignore[misc]
                    ]
                else:
                    kept = [
                        (node, parts) for node, mask, wild, parts in by_length[k]
                        if (mask and wild)
                        or (mask & csa and (good is None or good(node, mask & csa, last)))
                    ]
                lists[k] = kept
            return kept

        self.viable_cache[signature] = parts_of_length
        return parts_of_length

    def _look_ahead_key(self, a: int) -> tuple[str, int, bool] | None:
        """What the look-ahead from anchor ``a`` depends on: the run of tiles after the anchor,
        the letters that could go on the empty square after that run (0: none, or no square),
        and whether the run ends in a wildcard. None when a wildcard is next to the anchor."""
        line = self.line_letters
        n = len(line)
        after = a + 1  # the first square after the anchor that holds no letter tile
        while after < n and line[after] is not None and line[after] != WILDCARD:
            after += 1
        run = "".join(line[a + 1:after])  # type: ignore[arg-type]
        wild_cut = after < n and line[after] == WILDCARD
        if wild_cut and not run:
            return None
        if after >= n or wild_cut:
            return run, 0, wild_cut
        return run, self.line_cross[after] & self.playable(), False

    def _look_ahead(self, key: tuple[str, int, bool]) -> Callable[[int, int, bool], int]:
        """A test for a left part ending in ``node`` before an anchor whose look-ahead key is
        ``key`` (``_look_ahead_key``): the bit of the first of the letters ``cand`` (those that
        fit the anchor) that lets the word still go on after it, 0 when none does: through the
        whole run of tiles after the anchor, then ending or going on to the empty square after
        it (``last``: no rack tile would be left for that square). Shared by the anchors with
        the same key; not memoised per node, since a node is rarely asked twice (measured: the
        memo cost more than it saved)."""
        found = self.look_cache.get(key)
        if found is not None:
            return found
        run, need, wild_cut = key
        w = self.w
        terminal, kid_bits, child_bits = w.terminal, w.kid_bits, w.child_bits
        edge_lists, edges_of, maps, children = w.edge_lists, w.edges, w.maps, w.children

        # The walker's caches are read inline and its methods called only on a miss: this
        # runs for every candidate left part (a call per step costs 3-5 % of a generation).
        def good(node: int, cand: int, last: bool) -> int:
            child: int | None  # a DAWG node, None off the DAWG
            for _letter, child, bit in edge_lists[node] or edges_of(node):
                if not bit & cand:
                    continue
                for letter in run:  # through the tiles after the anchor
                    child = (maps[child] or children(child)).get(letter)
                    if child is None:
                        break
                else:
                    if wild_cut or terminal[child]:
                        return bit
                    if not last:
                        kb = kid_bits[child]
                        if (child_bits(child) if kb is None else kb) & need:
                            return bit
            return 0

        self.look_cache[key] = good
        return good

    def _left_part_table(self) -> list[list[LeftPartGroup]]:
        """Every left part the rack can spell (a DAWG prefix of 1 .. tiles-1 letters), by
        length: (node, child bits it could still use, wildcard left, [(letters, tokens)]).
        With wildcards the parts are node sets (``wildcards.wild_left_parts``)."""
        if self.left_parts is not None:
            return self.left_parts
        if self.dedup:
            self.left_parts = wild_left_parts(self)
            return self.left_parts
        w, counts = self.w, self.counts
        kid_bits, child_bits = w.kid_bits, w.child_bits
        edge_lists, edge_list = w.edge_lists, w.edges
        groups: list[dict[tuple[int, int], list[LeftPart]]] = [{} for _ in range(self.tiles_on_rack)]
        depth_limit = self.tiles_on_rack - 1

        # ``lav``: the letters still on the rack (every letter while a blank is left); ``mask``:
        # those of them that go on from ``node`` (never 0: a dead end is not entered)
        def visit(
            node: int, letters: tuple[str, ...], tokens: tuple[str, ...], lav: int, mask: int,
            depth: int,
        ) -> None:
            if depth:
                # left parts ending in the same node with the same letters left to play
                # share one look-ahead test per anchor
                group = groups[depth]
                parts = group.get((node, mask))
                if parts is None:
                    parts = group[(node, mask)] = []
                parts.append((letters, tokens))
                if depth >= depth_limit:
                    return
            edges = edge_lists[node]
            if edges is None:
                edges = edge_list(node)
            deeper = depth + 1
            for letter, child, bit in edges:
                if not bit & mask:
                    continue
                kb = kid_bits[child]
                if kb is None:
                    kb = child_bits(child)
                more = None
                if counts.get(letter):
                    counts[letter] -= 1
                    lav2 = lav if counts[letter] or counts[BLANK] else lav & ~bit
                    if kb & lav2:
                        more = (*letters, letter)
                        visit(child, more, (*tokens, letter), lav2, kb & lav2, deeper)
                    counts[letter] += 1
                if counts[BLANK]:
                    counts[BLANK] -= 1
                    lav2 = lav if counts[BLANK] else letters_left()
                    if kb & lav2:
                        visit(child, more or (*letters, letter), (*tokens, BLANK), lav2,
                              kb & lav2, deeper)
                    counts[BLANK] += 1

        letters_left = self.letters_left
        lav = self.playable()
        if child_bits(w.root) & lav:
            visit(w.root, (), (), lav, child_bits(w.root) & lav, 0)
        # ``visit`` refers to itself through its closure cell: drop it so that the cycle does
        # not keep the search's temporaries alive for the cyclic collector (paused meanwhile).
        visit = None  # type: ignore[assignment]
        table = [[(node, mask, False, parts) for (node, mask), parts in by_node.items()]
                 for by_node in groups]
        self.left_parts = table
        return table

    def extender(
        self, squares: list[int], letters: list[str | None], cross: list[int],
        xscore: list[dict[str, int]], xlen: list[int], across: bool,
        end_only: bool = False, relaxed: frozenset[int] = frozenset(),
        checked: Callable[[tuple[NewTile, ...]], Move | None] | None = None,
    ) -> tuple[Callable[..., None], Callable[[], None]]:
        """The extend-right recursion for one line, closed over the line's tables, and a
        function to call when the line is done. With War of Words wildcards (on the rack or
        the board) the recursion walks sets of DAWG nodes instead (``wildcards``)."""
        state: Walk = [0, 0, []]  # anchor, start, placed tiles
        record = self._recorder(state, len(squares), xlen, across, end_only, relaxed, checked)
        if not self.dedup:
            return plain_extender(self, state, record, squares, letters, cross, xscore)
        # War of Words wildcards: single nodes go through the plain recursion (which places a
        # wildcard by handing the node set it opens to the node-set one, through ``hook``)
        # unless the line holds a wildcard, which only the node-set recursion can walk.
        hook: list[Any] = [None]
        plain = None
        if WILDCARD not in letters:
            plain = plain_extender(self, state, record, squares, letters, cross, xscore, hook)
        return wild_extender(self, state, record, squares, letters, cross, xscore, plain, hook)

    def _recorder(
        self, state: Walk, n: int, xlen: list[int], across: bool, end_only: bool,
        relaxed: frozenset[int], checked: Callable[[tuple[NewTile, ...]], Move | None] | None,
    ) -> Callable[[int, int, int, int, int, int], None]:
        """The function that records the move in ``state`` (anchor, start, placed tiles) when
        its main word ends before square ``i`` of the line: ``nt`` new tiles, the main word's
        sum, word factor and Bonus Letter flag, and the cross words' scores. On portal lines
        (``end_only``, ``relaxed``) a move using a relaxed square is judged by ``checked``."""
        t = self.t
        bp, bingo, cols = t.bonus_points, t.bingo, t.cols
        min_tiles = self.min_tiles
        out, seen, dedup = self.out, self.seen, self.dedup

        def record(i: int, nt: int, msum: int, wf: int, bon: int, xsum: int) -> None:
            anchor, start, placed = state
            if i - start < 2 or nt < min_tiles:
                return
            direction = across
            if nt == 1:
                if across:
                    direction = i - start >= xlen[anchor]
                elif xlen[anchor] > 1:
                    return  # a single tile forming an across word: found in the across pass
            key = tuple(placed)
            if dedup:
                if key in seen:
                    return
                seen.add(key)
            score = (msum + (bp if bon else 0)) * (wf or 1) + xsum + bingo[nt]
            out.append(new_move(Move, (score, key, direction, cols)))

        if not (end_only or relaxed):
            return record
        # portal lines only (see ``portals``)
        fast_record = record
        if relaxed and checked is None:
            raise ValueError("relaxed squares need a checker for the moves using them")
        judge = checked or _unjudged

        def portal_record(i: int, nt: int, msum: int, wf: int, bon: int, xsum: int) -> None:
            if end_only and i != n:
                return  # a ring cut after this line's end: only words ending there
            placed = state[2]
            if relaxed and any(p[0] in relaxed for p in placed):
                if i - state[1] < 2 or nt < min_tiles:
                    return
                if nt == 1 and not across and xlen[state[0]] > 1:
                    return
                key = tuple(placed)
                if key in seen:
                    return
                seen.add(key)
                move = judge(key)
                if move is not None:
                    out.append(move)
                return
            fast_record(i, nt, msum, wf, bon, xsum)

        return portal_record


def _unjudged(tiles: tuple[NewTile, ...]) -> Move | None:
    raise AssertionError("a move on a relaxed square reached a line without a checker")
