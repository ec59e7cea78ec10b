"""A minimal DAWG in flat arrays: compiling it and :class:`Lexicon` (its binary file: ``dawgfile``).

Layout (compressed sparse rows). Nodes are numbered ``0 .. node_count-1``; the outgoing edges
of node ``n`` are the slots ``first[n] .. first[n+1]-1`` of two parallel edge arrays, sorted in
alphabet order:

* ``letters`` — a ``str`` with one letter per edge slot, so that finding a child is a single
  C-level ``letters.find(letter, first[n], first[n+1])``;
* ``targets`` — ``array('I')``: the node each edge leads to;
* ``terminal`` — ``bytes``, one per node: 1 when the path from the root to it spells a word.

The file format and loading (a memory map walked in place) are in
:mod:`wordarena.engine.lexicon.dawgfile`.

Why the reversed prefixes: a DAWG reads words forwards only, so it cannot say which letters
may come *before* a string. Reading a string backwards from the root of the reversed-prefix
DAWG can: its children are the letters that precede it in some word, and a terminal node
reached by reading on means the whole string read so far starts a word. The move generator
uses it to find the left parts that can stand in front of a word already on the board
(``engine.movegen.before_run``).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from wordarena.engine.lexicon import dawgfile
from wordarena.engine.lexicon.dawgfile import FORMAT_VERSION, MAGIC, U32
from wordarena.engine.lexicon.errors import LexiconError

__all__ = ["FORMAT_VERSION", "MAGIC", "REVERSED_PREFIXES_MAX_WORDS", "Lexicon", "compile_words"]

REVERSED_PREFIXES_MAX_WORDS = 1_000_000
Ints = Any  # u32 values: an array("I"), or a memoryview of a mapped file


class Lexicon:
    """A compiled word list of one language: membership and a node-walking API.

    Nodes are ints; :attr:`root` is the empty prefix, and ``-1`` means "no such node".
    For tight loops, the flat arrays are public (read-only by convention): :attr:`first`,
    :attr:`targets` (u32 values), :attr:`terminal` (a byte per node), :attr:`edge_index` (a byte
    per edge: its letter's index in :attr:`alphabet`) and :attr:`letters` (a ``str``, one letter
    per edge). A loaded lexicon's arrays are views of the mapped file; its :attr:`letters` and
    child maps are built on first use (only the pure-Python generator needs them).
    """

    __slots__ = (
        "_child_maps",
        "_letters",
        "alphabet",
        "edge_index",
        "first",
        "language",
        "reversed_prefixes",
        "root",
        "targets",
        "terminal",
        "word_count",
    )

    def __init__(
        self,
        language: str,
        alphabet: tuple[str, ...],
        first: Ints,
        letters: str | Any,
        targets: Ints,
        terminal: bytes | memoryview,
        root: int,
        word_count: int,
        reversed_prefixes: Lexicon | None = None,
        edge_index: bytes | memoryview | None = None,
    ) -> None:
        """``letters`` is a ``str``, or an object whose ``decode()`` gives it on first use;
        ``edge_index`` is computed from ``letters`` when not given."""
        self.language = language
        self.alphabet = alphabet
        self.first = first
        self._letters = letters
        self.targets = targets
        self.terminal = terminal
        self.root = root
        self.word_count = word_count
        # every prefix of the words spelled backwards, as a DAWG of its own (see the module
        # docstring); None for that DAWG itself
        self.reversed_prefixes = reversed_prefixes
        if edge_index is None:
            table = {ord(letter): k for k, letter in enumerate(alphabet)}
            edge_index = self.letters.translate(table).encode("latin-1")
        self.edge_index = edge_index
        self._child_maps: list[dict[str, int] | None] | None = None

    @property
    def letters(self) -> str:
        """The letter of each edge slot, as one ``str`` (decoded on first use)."""
        letters = self._letters
        if not isinstance(letters, str):
            letters = self._letters = letters.decode()
        return letters

    # -- sizes -----------------------------------------------------------------------------

    def __len__(self) -> int:
        """The number of words."""
        return self.word_count

    @property
    def node_count(self) -> int:
        """The number of nodes of the DAWG."""
        return len(self.terminal)

    @property
    def edge_count(self) -> int:
        """The number of edges of the DAWG."""
        return len(self.targets)

    def __repr__(self) -> str:
        return (
            f"Lexicon({self.language!r}, words={self.word_count}, "
            f"nodes={self.node_count}, edges={self.edge_count})"
        )

    # -- walking ---------------------------------------------------------------------------

    def child(self, node: int, letter: str) -> int:
        """The node reached from ``node`` by ``letter``, or -1 when no word continues so."""
        maps = self._child_maps
        cached = None if maps is None else maps[node]
        if cached is None:
            cached = self.child_map(node)
        return cached.get(letter, -1)

    def is_terminal(self, node: int) -> bool:
        """True when the path from the root to ``node`` spells a word."""
        return self.terminal[node] == 1

    def children(self, node: int) -> Iterator[tuple[str, int]]:
        """The ``(letter, child)`` pairs of ``node``, in alphabet order."""
        start, end = self.first[node], self.first[node + 1]
        return zip(self.letters[start:end], self.targets[start:end], strict=True)

    def child_letters(self, node: int) -> str:
        """The letters that continue some word from ``node``, in alphabet order."""
        return self.letters[self.first[node] : self.first[node + 1]]

    def child_map(self, node: int) -> dict[str, int]:
        """``{letter: child}`` for ``node``, built on first use and kept (do not mutate).

        The fastest way to probe many letters at one node: ``lex.child_map(n).get(letter, -1)``.
        """
        maps = self._child_maps
        if maps is None:  # the first call: one slot per node, kept for the process
            maps = self._child_maps = [None] * len(self.terminal)
        cached = maps[node]
        if cached is None:
            start, end = self.first[node], self.first[node + 1]
            cached = dict(zip(self.letters[start:end], self.targets[start:end], strict=True))
            maps[node] = cached
        return cached

    def walk(self, prefix: str, node: int | None = None) -> int:
        """The node reached by spelling ``prefix`` from ``node`` (default: root), or -1."""
        n = self.root if node is None else node
        first, letters, targets = self.first, self.letters, self.targets
        for letter in prefix:
            i = letters.find(letter, first[n], first[n + 1])
            if i < 0:
                return -1
            n = targets[i]
        return n

    def first_reading(self, pattern: str, wildcard: str, letters: Sequence[str]) -> str | None:
        """The word ``pattern`` spells with each ``wildcard`` filled by one of ``letters`` (single
        characters), the first in the order that tries ``letters`` in turn at the first
        wildcard, then at the next (what trying every filling in that order would find first),
        or None: one walk down the DAWG, leaving a branch as soon as no word continues it."""
        chars = list(pattern)
        end = len(pattern)

        def down(i: int, node: int) -> bool:
            if i == end:
                return self.terminal[node] == 1
            kids = self.child_map(node)
            if pattern[i] != wildcard:
                nxt = kids.get(pattern[i], -1)
                return nxt >= 0 and down(i + 1, nxt)
            for letter in letters:
                nxt = kids.get(letter, -1)
                if nxt >= 0 and down(i + 1, nxt):
                    chars[i] = letter
                    return True
            return False

        return "".join(chars) if end and down(0, self.root) else None

    def __contains__(self, word: object) -> bool:
        """True when ``word`` (an upper-case, normalised str) is a word of the lexicon."""
        if not isinstance(word, str) or not word:
            return False
        n = self.walk(word)
        return n >= 0 and self.terminal[n] == 1

    def words(self, prefix: str = "") -> Iterator[str]:
        """Every word starting with ``prefix``, in alphabet order (for tools and tests)."""
        start = self.walk(prefix)
        if start < 0:
            return
        stack: list[tuple[int, str]] = [(start, prefix)]
        while stack:
            node, spelled = stack.pop()
            if self.terminal[node] and spelled:
                yield spelled
            begin, end = self.first[node], self.first[node + 1]
            for i in range(end - 1, begin - 1, -1):
                stack.append((self.targets[i], spelled + self.letters[i]))

    # -- files -----------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The lexicon in the binary file format (see the module docstring)."""
        return dawgfile.encode(self)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the lexicon to ``path`` atomically (a temporary file, then a rename)."""
        target = Path(path)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(self.to_bytes())
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def from_bytes(cls, data: bytes | memoryview, source: str = "<bytes>") -> Lexicon:
        """Decode a lexicon from the binary format; ``source`` names it in errors."""
        return dawgfile.decode(memoryview(data), source, cls)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Lexicon:
        """Map a compiled lexicon file; raises :class:`LexiconError` naming what is wrong."""
        return dawgfile.load(path, cls)


# -- compiling -------------------------------------------------------------------------------


def compile_words(
    words: Iterable[str], language: str, alphabet: tuple[str, ...], *, reversed_prefixes: bool = True
) -> Lexicon:
    """Compile ``words`` into a minimal DAWG :class:`Lexicon`, with the DAWG of their
    prefixes spelled backwards as :attr:`Lexicon.reversed_prefixes` (unless told not to).

    Words must be non-empty and made of ``alphabet`` letters; they are sorted and deduplicated
    here. Uses Daciuk et al.'s incremental algorithm for sorted input: only the path of the
    previous word is unminimised, every other state is registered once by its signature
    ``(final, (letter, child), ...)``, so memory stays proportional to the minimal automaton.
    Output is deterministic.
    """
    ordered = sorted(set(words))
    _check_letters(ordered, alphabet)
    lexicon = _compile_sorted(ordered, language, alphabet)
    # Past a million words (Polish: 4 million) the prefixes would take gigabytes to collect;
    # the move generator then does without (``engine.movegen.before_run``).
    if reversed_prefixes and len(ordered) <= REVERSED_PREFIXES_MAX_WORDS:
        backwards = {word[:end][::-1] for word in ordered for end in range(1, len(word) + 1)}
        lexicon.reversed_prefixes = _compile_sorted(sorted(backwards), language, alphabet)
    return lexicon


Signature = tuple[Any, ...]  # a DAWG state: (final, (letter, child id), ...)


def _compile_sorted(ordered: list[str], language: str, alphabet: tuple[str, ...]) -> Lexicon:
    register: dict[Signature, int] = {}
    signatures: list[Signature] = []  # by state id
    finals: list[bool] = [False]  # per depth of the previous word's path (0 = root)
    edges: list[list[tuple[str, int]]] = [[]]  # per depth: edges to registered children
    prev = ""
    for word in ordered:
        common = _common_prefix(prev, word)
        _register_path(prev, common, finals, edges, register, signatures)
        for _ in range(len(word) - common):
            finals.append(False)
            edges.append([])
        finals[-1] = True
        prev = word
    _register_path(prev, 0, finals, edges, register, signatures)
    root = len(signatures)
    signatures.append((finals[0], *edges[0]))
    return _flatten(signatures, root, language, alphabet, len(ordered))


def _register_path(
    prev: str,
    down_to: int,
    finals: list[bool],
    edges: list[list[tuple[str, int]]],
    register: dict[Signature, int],
    signatures: list[Signature],
) -> None:
    """Register the states of ``prev``'s path deeper than ``down_to`` (deepest first)."""
    for depth in range(len(finals) - 1, down_to, -1):
        signature = (finals.pop(), *edges.pop())
        state = register.get(signature)
        if state is None:
            state = register[signature] = len(signatures)
            signatures.append(signature)
        edges[depth - 1].append((prev[depth - 1], state))


def _check_letters(words: list[str], alphabet: tuple[str, ...]) -> None:
    allowed = set(alphabet)
    for word in words:
        if not word:
            raise LexiconError("empty word given to the compiler")
        if not allowed.issuperset(word):
            bad = sorted(set(word) - allowed)
            raise LexiconError(f"word {word!r} has letters outside the alphabet: {bad}")


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _flatten(
    signatures: list[Signature], root: int, language: str, alphabet: tuple[str, ...], words: int
) -> Lexicon:
    order = {letter: i for i, letter in enumerate(alphabet)}
    first = array(U32)
    targets = array(U32)
    letters: list[str] = []
    terminal = bytearray(len(signatures))
    for state, (final, *out) in enumerate(signatures):
        first.append(len(targets))
        terminal[state] = 1 if final else 0
        for letter, child in sorted(out, key=lambda edge: order[edge[0]]):
            letters.append(letter)
            targets.append(child)
    first.append(len(targets))
    return Lexicon(language, alphabet, first, "".join(letters), targets, bytes(terminal), root, words)
