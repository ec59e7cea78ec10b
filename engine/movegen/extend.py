"""Extend-right over one DAWG node at a time: the generator's hot loop.

From an anchor (after its left part) the recursion walks the DAWG over the tiles on the board
and places rack tiles on the empty squares, letters and blanks, accumulating the main word's
sum, word factor and Bonus Letter and the cross words' scores from the per-square tables, and
records a move (``generator.Generation._recorder``) when a word ends. A War of Words wildcard
from the rack is handed to the node-set recursion of ``wildcards``.

The loops for a rack with blanks and one without are kept apart on purpose: this is where the
time goes (``docs/movegen.md``, Speed).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from wordarena.engine.movegen.generation import Generation, Walk
from wordarena.engine.movegen.move import NewTile
from wordarena.engine.movegen.tables import BLANK_KEY
from wordarena.engine.movegen.wildcards import nodes_by_any
from wordarena.engine.tiles import BLANK, WILDCARD


def plain_extender(
    g: Generation, state: Walk, record: Callable[..., None], squares: list[int],
    letters: list[str | None], cross: list[int], xscore: list[dict[str, int]],
    wild_hook: list[Any] | None = None,
) -> tuple[Callable[..., None], Callable[[], None]]:
    """Extend-right over one DAWG node at a time, on a line without wildcards. A wildcard
    from the rack is handed to the node-set recursion in ``wild_hook[0]``."""
    t, w = g.t, g.w
    n = len(squares)
    counts = g.counts
    maps, child_map = w.maps, w.lexicon.child_map
    terminal = w.terminal
    bits = t.bits
    additive = t.additive
    face, old_bonus, new_value, word_mult = g.line_values(squares)
    is_bonus = g.is_bonus
    rack_bits = [(letter, bits[letter]) for letter in g.rack_letters]
    blanks = counts[BLANK] > 0
    kid_bits, child_bits = w.kid_bits, w.child_bits
    edge_lists, edge_list = w.edge_lists, w.edges
    all_bits = t.all_bits
    natural, blank_tile = t.natural, t.blank
    # Per square: the letters that fit the next square when it is empty (0 when it holds a
    # tile or is off the line).
    ahead = [
        cross[i + 1] if i + 1 < n and letters[i + 1] is None else 0 for i in range(n)
    ]
    # Per square: the bit of the tile on the next square, which a child must continue
    # with (0 when the next square is empty or off the line).
    ahead_tile = [
        bits[letters[i + 1]] if i + 1 < n and letters[i + 1] is not None else 0  # type: ignore[index]
        for i in range(n)
    ]
    # Per square, what a placement there reads, in one tuple (unpacked at once)
    square_info = [
        (s, natural[s], new_value[i], xscore[i], word_mult[i], ahead[i], ahead_tile[i])
        for i, s in enumerate(squares)
    ]
    wilds = counts[WILDCARD] > 0  # none now: none later in this recursion either
    # The same two squares on: what fits there when it is empty, else the bit of its tile.
    ahead2, tile2 = [*ahead[1:], 0], [*ahead_tile[1:], 0]
    end_bits, grandkids = w.end_bits, w.grandkid_bits
    runs = _runs_after(letters, cross, face, old_bonus)
    children = w.children
    tile_limit = g.tiles_on_rack
    spread = partial(nodes_by_any, w)
    letters_left = g.letters_left

    # ``lav``: the letters left on the rack, kept up to date on the way down so that a
    # child is entered only if what is left of the rack (any letter while a blank or a
    # wildcard is left) can go on from it.
    def ext(
        i: int, node: int, msum: int, wf: int, bon: int, xsum: int, nt: int, lav: int,
    ) -> None:
        go_on: int  # letters that could follow (a truth value where a tile follows)
        blank_on: int
        while i < n:
            letter = letters[i]
            if letter is None:
                break
            kids = maps[node]
            if kids is None:
                kids = maps[node] = child_map(node)
            child = kids.get(letter)
            if child is None:
                return
            node = child
            msum += face[i]
            bon |= old_bonus[i]
            i += 1
        if i > state[0] and terminal[node]:
            record(i, nt, msum, wf, bon, xsum)
        if i == n:
            return
        kb = kid_bits[node]
        if kb is None:
            kb = child_bits(node)
        cs = cross[i]
        wild_here = wilds and counts[WILDCARD] and kb and cs
        blank_left = blanks and counts[BLANK]
        fit = kb & cs if blank_left or wild_here else kb & lav & cs
        if not fit and not wild_here:
            return
        s, nat, nv, xs, wm, nxt, tile_next = square_info[i]
        nwf = wf + wm if additive else wf * wm
        i1, nt1 = i + 1, nt + 1
        placed = state[2]
        # A child the word cannot go on from (no tile next, nothing left to play on the
        # empty next square) is a leaf: recorded here when it ends a word, without a call.
        if nt1 >= tile_limit:
            nxt = 0
        elif wild_here and nxt:
            nxt = all_bits  # a wildcard fits wherever some letter fits across
        if wild_here:
            placed.append((s, WILDCARD, False))
            counts[WILDCARD] -= 1
            wild_hook[0](i1, spread((node,)), msum, nwf, bon, xsum + xs[BLANK_KEY], nt1)  # type: ignore[index]
            counts[WILDCARD] += 1
            placed.pop()
        if not blank_left:
            kids = maps[node]
            if kids is None:
                kids = maps[node] = child_map(node)
            for letter, bit in rack_bits:
                if not fit & bit or not counts[letter]:
                    continue
                child = kids[letter]
                kb = kid_bits[child]
                if kb is None:
                    kb = child_bits(child)
                lav2 = lav if counts[letter] > 1 else lav & ~bit
                if tile_next:
                    if not kb & tile_next:
                        continue
                    # walk the tiles after this square here: most words die on them
                    run, past, need, run_sum, run_bon = runs[i]
                    for ch in run:
                        child = (maps[child] or children(child)).get(ch)
                        if child is None:
                            break
                    if child is None:
                        continue
                    if not terminal[child]:
                        kb = kid_bits[child]
                        if kb is None:
                            kb = child_bits(child)
                        # a wildcard goes on wherever some letter fits across
                        if nt1 >= tile_limit or not kb & (
                                (all_bits if need else 0) if wild_here else need & lav2):
                            continue
                    counts[letter] -= 1
                    placed.append(nat[letter])
                    ext(past, child, msum + nv[letter] + run_sum, nwf,
                        bon | is_bonus[letter] | run_bon, xsum + xs[letter], nt1, lav2)
                    placed.pop()
                    counts[letter] += 1
                    continue
                # A leaf: nothing left on the rack goes on from the child to the next square;
                # or (no wildcard left) no letter there ends a word, and none could be followed
                # on the square after it (by a rack letter or the tile there).
                elif not kb & nxt & (all_bits if wild_here else lav2) or (
                    not wild_here and not end_bits[child] & nxt & lav2
                    and not grandkids[child] & (
                        (ahead2[i] & lav2 if nt1 + 1 < tile_limit else 0) | tile2[i])
                ):
                    if terminal[child]:
                        placed.append(nat[letter])
                        record(i1, nt1, msum + nv[letter], nwf, bon | is_bonus[letter],
                               xsum + xs[letter])
                        placed.pop()
                    continue
                counts[letter] -= 1
                placed.append(nat[letter])
                ext(i1, child, msum + nv[letter], nwf, bon | is_bonus[letter],
                    xsum + xs[letter], nt1, lav2)
                placed.pop()
                counts[letter] += 1
            return
        blank_score = xs[BLANK_KEY]
        blank_at = blank_tile[s]
        # what the rack can play after a blank goes here (its last blank: only its letters)
        after_blank = all_bits if blank_left > 1 or wild_here else lav
        edges = edge_lists[node]
        if edges is None:
            edges = edge_list(node)
        for letter, child, bit in edges:
            if not bit & fit:
                continue
            kb = kid_bits[child]
            if kb is None:
                kb = child_bits(child)
            if tile_next:
                if not kb & tile_next:
                    continue
                go_on = blank_on = True
            else:
                go_on = kb & nxt
                blank_on = go_on & after_blank
                if not go_on and not terminal[child]:
                    continue
            if counts.get(letter):
                placed.append(nat[letter])
                lav2 = lav if counts[letter] > 1 else lav & ~bit
                if go_on:  # a blank is still left: any letter can follow
                    counts[letter] -= 1
                    ext(i1, child, msum + nv[letter], nwf, bon | is_bonus[letter],
                        xsum + xs[letter], nt1, lav2)
                    counts[letter] += 1
                elif terminal[child]:
                    record(i1, nt1, msum + nv[letter], nwf, bon | is_bonus[letter],
                           xsum + xs[letter])
                placed.pop()
            placed.append(blank_at[letter])
            if blank_on:
                counts[BLANK] -= 1
                ext(i1, child, msum, nwf, bon, xsum + blank_score, nt1, lav)
                counts[BLANK] += 1
            elif terminal[child]:
                record(i1, nt1, msum, nwf, bon, xsum + blank_score)
            placed.pop()

    def extend(
        anchor: int, node: int, start: int, i: int, placed: list[NewTile], msum: int, wf: int,
        bon: int, nt: int, xsum: int = 0,
    ) -> None:
        state[0], state[1], state[2] = anchor, start, placed
        ext(i, node, msum, wf, bon, xsum, nt, letters_left())

    def release() -> None:
        # ``ext`` refers to itself through its closure cell; clearing the cell breaks the
        # cycle so the line's tables are freed at once instead of waiting for the cyclic
        # collector, whose next pass would otherwise have to scan them all.
        nonlocal ext
        del ext

    return extend, release


Run = tuple[str, int, int, int, int]
NO_RUN: Run = ("", 0, 0, 0, 0)  # a square whose next square holds no tile (never read)


def _runs_after(
    letters: list[str | None], cross: list[int], face: list[int], old_bonus: list[int],
) -> list[Run]:
    """Per square whose next square holds a tile: the run of tiles from there (its letters),
    the square after it, the letters that fit that square (0 off the line), and the run's
    face value and Bonus Letter flag (``NO_RUN`` for the other squares)."""
    n = len(letters)
    out: list[Run] = [NO_RUN] * n
    for i in range(n - 1):
        if letters[i + 1] is None:
            continue
        past = i + 1
        while past < n and letters[past] is not None:
            past += 1
        run = "".join(letters[i + 1:past])  # type: ignore[arg-type]
        out[i] = (run, past, cross[past] if past < n else 0, sum(face[i + 1:past]),
                  int(any(old_bonus[i + 1:past])))
    return out
