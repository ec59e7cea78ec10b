"""A minimal DAWG in flat arrays: compiling, the binary file format, and :class:`Lexicon`.

Layout (compressed sparse rows). Nodes are numbered ``0 .. node_count-1``; the outgoing edges
of node ``n`` are the slots ``first[n] .. first[n+1]-1`` of two parallel edge arrays, sorted in
alphabet order:

* ``letters`` — a ``str`` with one letter per edge slot, so that finding a child is a single
  C-level ``letters.find(letter, first[n], first[n+1])``;
* ``targets`` — ``array('I')``: the node each edge leads to;
* ``terminal`` — ``bytes``, one per node: 1 when the path from the root to it spells a word.

File format (all integers little-endian)::

    magic        8 bytes  b"WADAWG\\r\\n"
    version      u16      FORMAT_VERSION
    header_size  u16      bytes before the payload (a multiple of 4)
    node_count   u32
    edge_count   u32
    word_count   u32
    root         u32
    letters_size u32      bytes of the UTF-8 letters section
    crc32        u32      zlib.crc32 of the payload
    language     u8 length + UTF-8
    alphabet     u8 length + UTF-8 (the letters in order)
    zero padding to header_size
    payload:     first    (node_count + 1) x u32
                 targets  edge_count x u32
                 terminal node_count x u8
                 letters  letters_size bytes of UTF-8 (edge_count letters)
    reversed prefixes (optional, to the end of the file): a whole file in this format (its own
                 header and checksum, nothing after it) holding every prefix of the words
                 spelled backwards (:attr:`Lexicon.reversed_prefixes`)

Loading is a read, a CRC, and ``array.frombytes`` on memoryview slices: no per-node Python
objects are created.

Why the reversed prefixes: a DAWG reads words forwards only, so it cannot say which letters
may come *before* a string. Reading a string backwards from the root of the reversed-prefix
DAWG can: its children are the letters that precede it in some word, and a terminal node
reached by reading on means the whole string read so far starts a word. The move generator
uses it to find the left parts that can stand in front of a word already on the board
(``engine.movegen.before_run``).
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from wordarena.engine.lexicon.errors import LexiconError

MAGIC = b"WADAWG\r\n"
FORMAT_VERSION = 2  # 2: the reversed prefixes follow the payload
REVERSED_PREFIXES_MAX_WORDS = 1_000_000
_FIXED = struct.Struct("<8sHHIIIIII")


def _u32_typecode() -> str:
    for code in "IL":
        if array(code).itemsize == 4:
            return code
    raise RuntimeError("no 4-byte unsigned array type on this platform")  # pragma: no cover


_U32 = _u32_typecode()
_SWAP = sys.byteorder == "big"


class Lexicon:
    """A compiled word list of one language: membership and a node-walking API.

    Nodes are ints; :attr:`root` is the empty prefix, and ``-1`` means "no such node".
    For tight loops, the flat arrays are public (read-only by convention): :attr:`first`,
    :attr:`letters`, :attr:`targets`, :attr:`terminal`.
    """

    __slots__ = (
        "_child_maps",
        "alphabet",
        "first",
        "language",
        "letters",
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
        first: array[int],
        letters: str,
        targets: array[int],
        terminal: bytes,
        root: int,
        word_count: int,
        reversed_prefixes: Lexicon | None = None,
    ) -> None:
        self.language = language
        self.alphabet = alphabet
        self.first = first
        self.letters = letters
        self.targets = targets
        self.terminal = terminal
        self.root = root
        self.word_count = word_count
        # every prefix of the words spelled backwards, as a DAWG of its own (see the module
        # docstring); None for that DAWG itself
        self.reversed_prefixes = reversed_prefixes
        self._child_maps: list[dict[str, int] | None] = [None] * len(terminal)

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
        cached = self._child_maps[node]
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
        cached = self._child_maps[node]
        if cached is None:
            start, end = self.first[node], self.first[node + 1]
            cached = dict(zip(self.letters[start:end], self.targets[start:end], strict=True))
            self._child_maps[node] = cached
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
        return _encode(self)

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
        return _decode(memoryview(data), source)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Lexicon:
        """Load a compiled lexicon file; raises :class:`LexiconError` naming what is wrong."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise LexiconError(f"cannot read compiled lexicon: {exc.strerror}", str(path)) from exc
        return _decode(memoryview(data), str(path))


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
    first = array(_U32)
    targets = array(_U32)
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


# -- encoding and decoding -------------------------------------------------------------------


def _le_bytes(values: array[int]) -> bytes:
    if _SWAP:  # pragma: no cover - big-endian hosts
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _encode(lex: Lexicon) -> bytes:
    letters = lex.letters.encode("utf-8")
    payload = b"".join((_le_bytes(lex.first), _le_bytes(lex.targets), lex.terminal, letters))
    lang = lex.language.encode("utf-8")
    alpha = "".join(lex.alphabet).encode("utf-8")
    strings = bytes([len(lang)]) + lang + bytes([len(alpha)]) + alpha
    header_size = (_FIXED.size + len(strings) + 3) // 4 * 4
    fixed = _FIXED.pack(
        MAGIC,
        FORMAT_VERSION,
        header_size,
        lex.node_count,
        lex.edge_count,
        lex.word_count,
        lex.root,
        len(letters),
        zlib.crc32(payload),
    )
    padding = b"\0" * (header_size - _FIXED.size - len(strings))
    backwards = b"" if lex.reversed_prefixes is None else _encode(lex.reversed_prefixes)
    return fixed + strings + padding + payload + backwards


def _decode(data: memoryview, source: str, nested: bool = False) -> Lexicon:
    if len(data) < _FIXED.size:
        raise LexiconError(f"not a compiled lexicon: file too short ({len(data)} bytes)", source)
    magic, version, header_size, nodes, edges, words, root, letters_size, crc = _FIXED.unpack_from(data)
    if magic != MAGIC:
        raise LexiconError(f"not a compiled lexicon: bad magic {bytes(magic)!r}", source)
    if version != FORMAT_VERSION:
        raise LexiconError(
            f"unsupported lexicon format version {version} (this build reads {FORMAT_VERSION})",
            source,
        )
    language, alphabet = _decode_strings(data, header_size, source)
    expected = header_size + 4 * (nodes + 1) + 4 * edges + nodes + letters_size
    if len(data) < expected:
        raise LexiconError(f"truncated: {len(data)} bytes, header announces {expected}", source)
    backwards = None
    if len(data) > expected:
        if nested:
            raise LexiconError(f"oversized: {len(data)} bytes, header announces {expected}", source)
        backwards = _decode(data[expected:], f"{source} (reversed prefixes)", nested=True)
    payload = data[header_size:expected]
    if zlib.crc32(payload) != crc:
        raise LexiconError("checksum mismatch: the file is corrupt", source)
    first, off = _u32s(payload, 0, nodes + 1), 4 * (nodes + 1)
    targets, off = _u32s(payload, off, edges), off + 4 * edges
    terminal, off = bytes(payload[off : off + nodes]), off + nodes
    letters = _decode_letters(payload[off:], edges, source)
    _check_structure(first, targets, terminal, root, edges, source)
    return Lexicon(language, alphabet, first, letters, targets, terminal, root, words, backwards)


def _decode_strings(data: memoryview, header_size: int, source: str) -> tuple[str, tuple[str, ...]]:
    pos = _FIXED.size
    out: list[str] = []
    for field in ("language", "alphabet"):
        if pos >= header_size or pos >= len(data):
            raise LexiconError(f"header too short for the {field} field", source)
        size = data[pos]
        raw = bytes(data[pos + 1 : pos + 1 + size])
        if len(raw) != size or pos + 1 + size > header_size:
            raise LexiconError(f"header too short for the {field} field", source)
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise LexiconError(f"{field} field is not UTF-8", source) from exc
        pos += 1 + size
    return out[0], tuple(out[1])


def _u32s(payload: memoryview, offset: int, count: int) -> array[int]:
    values = array(_U32)
    values.frombytes(payload[offset : offset + 4 * count])
    if _SWAP:  # pragma: no cover - big-endian hosts
        values.byteswap()
    return values


def _decode_letters(raw: memoryview, edges: int, source: str) -> str:
    try:
        letters = str(raw, "utf-8")
    except UnicodeDecodeError as exc:
        raise LexiconError("letters section is not UTF-8", source) from exc
    if len(letters) != edges:
        raise LexiconError(f"letters section holds {len(letters)} letters, not {edges}", source)
    return letters


def _check_structure(
    first: array[int], targets: array[int], terminal: bytes, root: int, edges: int, source: str
) -> None:
    nodes = len(terminal)
    if nodes == 0 or not 0 <= root < nodes:
        raise LexiconError(f"root node {root} out of range (nodes: {nodes})", source)
    if first[0] != 0 or first[-1] != edges:
        raise LexiconError("edge index does not span the edge table", source)
    if edges and max(targets) >= nodes:
        raise LexiconError("an edge points past the last node", source)
    if terminal.translate(None, b"\x00\x01"):
        raise LexiconError("terminal flags must be 0 or 1", source)
