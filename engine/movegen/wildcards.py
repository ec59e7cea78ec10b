"""Extend-right for War of Words wildcards: the recursion walks *sets* of DAWG nodes.

A wildcard shows ``*`` and may stand for any letter in each word it is part of, so a placement
with a wildcard is one move however many letters would make it a word. Walking one DAWG node at
a time would follow every letter the wildcard could be and find the same placement again and
again (two wildcards: hundreds of times). Here the state is the tuple of every node the letters
so far can reach: a tile moves each node along its letter, a wildcard (on the rack or on the
board) moves each node along every letter, and a word ends when any node of the set is a word
end. Every placement is then reached once per start square, and the set shrinks back to a node
or two a few letters after the wildcard.

The scores are the plain generator's (``generator``): a wildcard is worth 0 points and its cross
word scores like a blank's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from wordarena.engine.movegen.generation import Generation, LeftPartGroup, Walk
from wordarena.engine.movegen.lexwalk import LexWalker
from wordarena.engine.movegen.move import NewTile
from wordarena.engine.movegen.tables import BLANK_KEY
from wordarena.engine.tiles import BLANK, WILDCARD

Nodes = tuple[int, ...]


def nodes_by(w: LexWalker, nodes: Nodes, letter: str) -> Nodes:
    """The nodes reached from ``nodes`` by ``letter`` (distinct, in order)."""
    maps = w.maps
    found: dict[int, None] = {}
    for node in nodes:
        kids = maps[node]
        if kids is None:
            kids = maps[node] = w.lexicon.child_map(node)
        child = kids.get(letter)
        if child is not None:
            found[child] = None
    return tuple(found)


def nodes_by_any(w: LexWalker, nodes: Nodes) -> Nodes:
    """The nodes reached from ``nodes`` by any tile letter: what a wildcard does."""
    edge_lists = w.edge_lists
    found: dict[int, None] = {}
    for node in nodes:
        edges = edge_lists[node]
        if edges is None:
            edges = w.edges(node)
        for _letter, child, _bit in edges:
            found[child] = None
    return tuple(found)


def kid_bits_of(w: LexWalker, nodes: Nodes) -> int:
    """The letters that continue some word from some node of ``nodes``."""
    kid_bits = w.kid_bits
    bits = 0
    for node in nodes:
        found = kid_bits[node]
        bits |= w.child_bits(node) if found is None else found
    return bits


def wild_left_parts(g: Generation) -> list[list[LeftPartGroup]]:
    """Every left part the rack can spell, by length, as node sets: ``(nodes, child bits the
    rack could still use, wildcard left, [(letters as shown, tokens)])``; a wildcard shows
    ``*``. Each placement of tiles appears once (the plain table lists one per DAWG path)."""
    w, t, counts = g.w, g.t, g.counts
    bits = t.bits
    rack_letters = g.rack_letters
    groups: list[list[LeftPartGroup]] = [[] for _ in range(g.tiles_on_rack)]
    depth_limit = g.tiles_on_rack - 1

    def visit(nodes: Nodes, letters: tuple[str, ...], tokens: tuple[str, ...]) -> None:
        depth = len(letters)
        mask = kid_bits_of(w, nodes)
        if depth and mask:
            mask &= g.playable()
            if mask:
                groups[depth].append((nodes, mask, counts[WILDCARD] > 0, [(letters, tokens)]))
        if depth >= depth_limit or not mask:
            return
        for letter in rack_letters:
            if counts[letter] and mask & bits[letter]:
                counts[letter] -= 1
                visit(nodes_by(w, nodes, letter), (*letters, letter), (*tokens, letter))
                counts[letter] += 1
        if counts[BLANK]:
            counts[BLANK] -= 1
            for letter, bit in bits.items():
                if mask & bit:
                    visit(nodes_by(w, nodes, letter), (*letters, letter), (*tokens, BLANK))
            counts[BLANK] += 1
        if counts[WILDCARD]:
            counts[WILDCARD] -= 1
            visit(nodes_by_any(w, nodes), (*letters, WILDCARD), (*tokens, WILDCARD))
            counts[WILDCARD] += 1

    visit((w.root,), (), ())
    visit = None  # type: ignore[assignment]  # break the closure cycle (see ``generator``)
    return groups


def wild_extender(
    g: Generation, state: Walk, record: Callable[..., None], squares: list[int],
    letters: list[str | None], cross: list[int], xscore: list[dict[str, int]],
    plain: tuple[Callable[..., None], Callable[[], None]] | None = None,
    hook: list[Any] | None = None,
) -> tuple[Callable[..., None], Callable[[], None]]:
    """The node-set extend-right recursion for one line (same calling convention as the plain
    one: ``extend(anchor, nodes, start, i, placed, msum, wf, bon, nt)``). ``plain``: the plain
    extender of the same line (None when the line holds a wildcard), which takes over whenever
    the set is down to one node and hands back through ``hook`` the set a wildcard opens."""
    plain_extend, plain_release = plain if plain is not None else (None, None)
    t, w = g.t, g.w
    n = len(squares)
    counts = g.counts
    terminal = w.terminal
    bits = t.bits
    additive = t.additive
    face, old_bonus, new_value, word_mult = g.line_values(squares)
    is_bonus = g.is_bonus
    rack_letters = g.rack_letters
    natural, blank_tile = t.natural, t.blank
    tile_limit = g.tiles_on_rack

    spread = partial(nodes_by_any, w)
    # The same node sets recur from anchor to anchor (a left part's set, then each letter
    # after it): their steps and child bits are kept for the whole generation.
    steps, set_bits = g.set_steps, g.set_bits

    def step(nodes: Nodes, letter: str) -> Nodes:
        found = steps.get((nodes, letter))
        if found is None:
            found = steps[(nodes, letter)] = nodes_by(w, nodes, letter)
        return found

    def ext(i: int, nodes: Nodes, msum: int, wf: int, bon: int, xsum: int, nt: int) -> None:
        if plain_extend is not None and len(nodes) == 1:
            plain_extend(state[0], nodes[0], state[1], i, state[2], msum, wf, bon, nt, xsum)
            return
        while i < n:
            letter = letters[i]
            if letter is None:
                break
            nodes = spread(nodes) if letter == WILDCARD else step(nodes, letter)
            if not nodes:
                return
            msum += face[i]
            bon |= old_bonus[i]
            i += 1
        if i > state[0]:
            for node in nodes:
                if terminal[node]:
                    record(i, nt, msum, wf, bon, xsum)
                    break
        if i == n or nt >= tile_limit:
            return
        cs = cross[i]
        if not cs:
            return
        kb = set_bits.get(nodes)
        if kb is None:
            kb = set_bits[nodes] = kid_bits_of(w, nodes)
        s = squares[i]
        nv = new_value[i]
        xs = xscore[i]
        nwf = wf + word_mult[i] if additive else wf * word_mult[i]
        i1, nt1 = i + 1, nt + 1
        placed = state[2]
        fit = kb & cs
        for letter in rack_letters:
            if counts[letter] and fit & bits[letter]:
                counts[letter] -= 1
                placed.append(natural[s][letter])
                ext(i1, step(nodes, letter), msum + nv[letter], nwf, bon | is_bonus[letter],
                    xsum + xs[letter], nt1)
                placed.pop()
                counts[letter] += 1
        zero = xs[BLANK_KEY]
        if counts[BLANK] and fit:
            counts[BLANK] -= 1
            for letter, bit in bits.items():
                if fit & bit:
                    placed.append(blank_tile[s][letter])
                    ext(i1, step(nodes, letter), msum, nwf, bon, xsum + zero, nt1)
                    placed.pop()
            counts[BLANK] += 1
        if counts[WILDCARD] and kb:  # any letter of the main word; ``cs``: some fits across
            counts[WILDCARD] -= 1
            placed.append((s, WILDCARD, False))
            ext(i1, spread(nodes), msum, nwf, bon, xsum + zero, nt1)
            placed.pop()
            counts[WILDCARD] += 1

    def extend(
        anchor: int, nodes: Nodes | int, start: int, i: int, placed: list[NewTile], msum: int,
        wf: int,
        bon: int, nt: int,
    ) -> None:
        state[0], state[1], state[2] = anchor, start, placed
        ext(i, (nodes,) if isinstance(nodes, int) else nodes, msum, wf, bon, 0, nt)

    if hook is not None:
        hook[0] = ext

    def release() -> None:
        nonlocal ext  # break the closure's self-reference (see ``generator``)
        del ext
        if hook is not None:
            hook[0] = None
        if plain_release is not None:
            plain_release()

    return extend, release
