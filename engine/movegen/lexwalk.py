"""Walking the compiled lexicon for move generation: child maps, wildcard walks, cross-checks.

The lexicon (``engine.lexicon.Lexicon``, a minimal DAWG in flat arrays) stays as it is; this
module keeps, per lexicon, a list of per-node ``{letter: child}`` maps filled on first visit (so
only the few thousand nodes a game touches ever get a dict) and a cache of cross-check bitsets
keyed by the letters above and below a square.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wordarena.engine.tiles import WILDCARD

_CROSS_CACHE_LIMIT = 200_000


class NodeTable(dict[int, int]):
    """node -> a number computed by ``of(node)`` on first lookup. A dict, so that the
    generator's list comprehensions read it in C."""

    __slots__ = ("of",)

    def __init__(self, of: Callable[[int], int]) -> None:
        super().__init__()
        self.of = of

    def __missing__(self, node: int) -> int:
        found = self[node] = self.of(node)
        return found


class LexWalker:
    """Fast node access over one lexicon, for one alphabet of tile letters."""

    __slots__ = (
        "bits", "cross_cache", "edge_lists", "end_bits", "grandkid_bits", "kid_bits", "lexicon", "maps",
        "root", "terminal",
    )

    def __init__(self, lexicon: Any, bits: dict[str, int]) -> None:
        self.lexicon = lexicon
        self.root: int = lexicon.root
        self.terminal: Sequence[int] = lexicon.terminal
        self.maps: list[dict[str, int] | None] = [None] * len(lexicon.terminal)
        self.bits = bits
        self.cross_cache: dict[tuple[str, str], int] = {}
        self.kid_bits: list[int | None] = [None] * len(lexicon.terminal)
        self.edge_lists: list[tuple[tuple[str, int, int], ...] | None] = (
            [None] * len(lexicon.terminal))
        # node -> the letters two steps down: whether any child can be followed by a letter,
        # the cheap first test before a left part is tried against a tile after the anchor
        self.grandkid_bits = NodeTable(self._grandkid_bits)
        # node -> the letters whose child ends a word: a placement there can end the word
        self.end_bits = NodeTable(self._end_bits)

    def child_bits(self, node: int) -> int:
        """Bitset of the tile letters that continue some word from ``node`` (cached)."""
        found = self.kid_bits[node]
        if found is None:
            bits = self.bits
            found = 0
            for letter in self.children(node):
                found |= bits.get(letter, 0)
            self.kid_bits[node] = found
        return found

    def _end_bits(self, node: int) -> int:
        found = 0
        terminal = self.terminal
        for _letter, child, bit in self.edges(node):
            if terminal[child]:
                found |= bit
        return found

    def _grandkid_bits(self, node: int) -> int:
        found = 0
        for _letter, child, _bit in self.edges(node):
            found |= self.child_bits(child)
        return found

    def edges(self, node: int) -> tuple[tuple[str, int, int], ...]:
        """``(letter, child, bit)`` of each child of ``node`` whose letter is a tile letter
        (cached): what a blank loop iterates, testing one bit per child before anything else."""
        found = self.edge_lists[node]
        if found is None:
            bits = self.bits
            found = tuple(
                (letter, child, bits[letter])
                for letter, child in self.children(node).items() if letter in bits
            )
            self.edge_lists[node] = found
        return found

    def children(self, node: int) -> dict[str, int]:
        """``{letter: child}`` of ``node`` (cached)."""
        found = self.maps[node]
        if found is None:
            found = self.maps[node] = self.lexicon.child_map(node)
        return found

    def nodes_after(self, node: int, text: str) -> list[int]:
        """Every node reached from ``node`` by spelling ``text``; a wildcard ``*`` in ``text``
        stands for any tile letter (so several nodes may be reached)."""
        nodes = [node]
        for letter in text:
            nxt: list[int] = []
            for n in nodes:
                kids = self.children(n)
                if letter == WILDCARD:
                    nxt.extend(c for ch, c in kids.items() if ch in self.bits)
                else:
                    c = kids.get(letter)
                    if c is not None:
                        nxt.append(c)
            if not nxt:
                return nxt
            nodes = nxt
        return nodes

    def cross_bits(self, prefix: str, suffix: str) -> int:
        """Bitset of the tile letters ``L`` such that ``prefix + L + suffix`` is a word
        (wildcards in ``prefix`` / ``suffix`` resolved as the words module does)."""
        key = (prefix, suffix)
        found = self.cross_cache.get(key)
        if found is not None:
            return found
        bits = 0
        terminal = self.terminal
        for node in self.nodes_after(self.root, prefix):
            for letter, child in self.children(node).items():
                bit = self.bits.get(letter, 0)
                if not bit or bits & bit:
                    continue
                if any(terminal[n] for n in self.nodes_after(child, suffix)):
                    bits |= bit
        if len(self.cross_cache) >= _CROSS_CACHE_LIMIT:
            self.cross_cache.clear()
        self.cross_cache[key] = bits
        return bits


_walkers: dict[tuple[int, tuple[str, ...]], tuple[Any, LexWalker]] = {}


def walker_for(lexicon: Any, letters: tuple[str, ...]) -> LexWalker:
    """The (cached) walker of ``lexicon`` for the tile letters ``letters`` (bit k = letter k)."""
    key = (id(lexicon), letters)
    found = _walkers.get(key)
    if found is None or found[0] is not lexicon:
        if len(_walkers) > 64:
            _walkers.clear()
        bits = {letter: 1 << k for k, letter in enumerate(letters)}
        found = _walkers[key] = (lexicon, LexWalker(lexicon, bits))
    return found[1]


def clear_caches() -> None:
    """Forget every walker (child maps and cross-check caches): for cold-start benchmarks."""
    _walkers.clear()
