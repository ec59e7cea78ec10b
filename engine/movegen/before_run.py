"""Left parts in front of a run of tiles, read backwards from the run.

In front of a word already on the board (the *run* after an anchor), few left parts can stand:
of the thousands a blank rack spells, often none. Filtering the whole left-part table against
the run costs a walk through the run per candidate, because a DAWG reads words forwards only.
The lexicon's reversed-prefix DAWG (``Lexicon.reversed_prefixes``) reads backwards: from the run
spelled backwards, its children are the letters that can precede the run in some word, and a
terminal node reached by reading on (the anchor's letter, then the left part right to left)
means the whole string starts a word. So the left parts are enumerated from the run, exactly and
only those whose letters spell ``left part + anchor letter + run`` at the start of a word.

For a short run many strings of the rack precede it somewhere inside words, and the backward
search grows larger than the table it replaces (measured: runs of one or two tiles cost more
this way), so it is used from ``LONG_RUN`` tiles on.
"""

from __future__ import annotations

from typing import Any

from wordarena.engine.movegen.generation import Generation, LeftPart
from wordarena.engine.tiles import BLANK, WILDCARD

LONG_RUN = 3

LeftParts = list[tuple[int, list[tuple[tuple[str, ...], tuple[str, ...]]]]]


def left_parts_before_run(g: Generation, backwards: Any, run: str, fits: int) -> list[LeftParts]:
    """By length (index 0 is empty): ``(node, [(letters, tokens), ...])`` of every left part
    of the rack that, followed by a letter in ``fits`` (the anchor's cross-check, played from
    what the rack has left) and by ``run``, starts a word. ``node`` is the forward DAWG's node
    after the left part; ``backwards`` is the lexicon's reversed-prefix DAWG."""
    counts, bits = g.counts, g.t.bits
    longest = g.tiles_on_rack - 1
    found: list[dict[tuple[str, ...], set[tuple[str, ...]]]] = [{} for _ in range(longest + 1)]
    terminal, children = backwards.terminal, backwards.child_map

    def search(node: int, letters: tuple[str, ...], tokens: tuple[str, ...]) -> None:
        # ``letters`` / ``tokens``: the left part so far, right to left (a wildcard shows ``*``
        # and reads as every letter: the same placement is reached once per letter, kept once)
        depth = len(letters)
        if depth and terminal[node]:
            found[depth].setdefault(letters[::-1], set()).add(tokens[::-1])
        if depth >= longest:
            return
        for letter, child in children(node).items():
            if counts.get(letter):
                counts[letter] -= 1
                search(child, (*letters, letter), (*tokens, letter))
                counts[letter] += 1
            if letter not in bits:
                continue
            for token, shown in ((BLANK, letter), (WILDCARD, WILDCARD)):
                if counts[token]:
                    counts[token] -= 1
                    search(child, (*letters, shown), (*tokens, token))
                    counts[token] += 1

    start = backwards.walk(run[::-1])
    if start >= 0 and longest:
        for letter, child in children(start).items():  # the anchor's letter
            if letter not in bits:
                continue
            # a wildcard may stand for a letter that does not fit across: some letter does
            for token in (letter, BLANK) if bits[letter] & fits else ():
                if counts.get(token):
                    counts[token] -= 1
                    search(child, (), ())
                    counts[token] += 1
            if counts[WILDCARD]:
                counts[WILDCARD] -= 1
                search(child, (), ())
                counts[WILDCARD] += 1
    search = None  # type: ignore[assignment]  # break the closure's self-reference
    return [_by_node(g, parts) for parts in found]


def _by_node(g: Generation, parts: dict[tuple[str, ...], set[tuple[str, ...]]]) -> LeftParts:
    """The left parts grouped by the forward DAWG node each one reaches (with wildcards, the
    tuple of the nodes it may reach, as ``wildcards`` walks them)."""
    w = g.w
    by_node: dict[Any, list[LeftPart]] = {}
    for letters, token_sets in parts.items():
        nodes = w.nodes_after(w.root, "".join(letters))
        node = tuple(nodes) if g.dedup else nodes[0]
        by_node.setdefault(node, []).extend((letters, tokens) for tokens in sorted(token_sets))
    return list(by_node.items())
