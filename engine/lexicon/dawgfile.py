"""The compiled lexicon file: encoding, and loading by memory-mapping it.

File format (all integers little-endian; every section starts on an 8-byte boundary of the
file, so a mapped file is walked in place, by the native move generator too)::

    magic        8 bytes  b"WADAWG\\r\\n"
    version      u16      FORMAT_VERSION
    header_size  u16      bytes before the payload (a multiple of 8)
    node_count   u32
    edge_count   u32
    word_count   u32
    root         u32
    letters_size u32      bytes of the UTF-8 letters section
    crc32        u32      zlib.crc32 of the payload
    language     u8 length + UTF-8
    alphabet     u8 length + UTF-8 (the letters in order)
    zero padding to header_size
    payload, each section zero-padded to a multiple of 8 bytes:
                 first    (node_count + 1) x u32
                 targets  edge_count x u32
                 terminal node_count x u8
                 edges    edge_count x u8: each edge's letter as its index in the alphabet
                 letters  letters_size bytes of UTF-8 (edge_count letters)
    reversed prefixes (optional, to the end of the file): a whole file in this format (its own
                 header and checksum, nothing after it) holding every prefix of the words
                 spelled backwards (:attr:`Lexicon.reversed_prefixes`)

Loading maps the file read-only and checks both checksums (about 1 ms for the 4.5 MB of
``en``): nothing else is copied or decoded. ``first``, ``targets``, ``terminal`` and the edge
indexes are ``memoryview`` slices of the mapping, which the C core reads as they are; the
letters as a ``str`` and the per-node child maps, which only the pure-Python generator needs,
are built on first use. A file whose checksum matches was written whole by the compiler, which
checked its structure; a corrupt or truncated one, or one of another format version, raises
:class:`LexiconError` (the catalog then compiles it afresh).
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
import zlib
from array import array
from collections.abc import Callable
from typing import Any, TypeVar

from wordarena.engine.lexicon.errors import LexiconError

# what decoding builds: ``dawg.Lexicon`` (passed in by it, so that this module does not import it)
L = TypeVar("L")

MAGIC = b"WADAWG\r\n"
# 2: the reversed prefixes follow the payload; 3: 8-byte aligned sections and the edge indexes
FORMAT_VERSION = 3
FIXED = struct.Struct("<8sHHIIIIII")
_SWAP = sys.byteorder == "big"


def u32_typecode() -> str:
    """The ``array`` type code of a 4-byte unsigned integer on this platform."""
    for code in "IL":
        if array(code).itemsize == 4:
            return code
    raise RuntimeError("no 4-byte unsigned array type on this platform")  # pragma: no cover


U32 = u32_typecode()


def _pad(size: int) -> int:
    return (size + 7) // 8 * 8


def _le_bytes(values: array[int] | memoryview) -> bytes:
    if _SWAP:  # pragma: no cover - big-endian hosts
        values = array(U32, values)
        values.byteswap()
    return values.tobytes()


def _section(data: bytes) -> bytes:
    return data + b"\0" * (_pad(len(data)) - len(data))


def encode(lex: Any) -> bytes:
    """``lex`` (a ``dawg.Lexicon``) in the file format above."""
    letters: bytes = lex.letters.encode("utf-8")
    payload = b"".join(
        _section(part)
        for part in (
            _le_bytes(lex.first),
            _le_bytes(lex.targets),
            bytes(lex.terminal),
            bytes(lex.edge_index),
            letters,
        )
    )
    lang: bytes = lex.language.encode("utf-8")
    alpha: bytes = "".join(lex.alphabet).encode("utf-8")
    strings = bytes([len(lang)]) + lang + bytes([len(alpha)]) + alpha
    header_size = _pad(FIXED.size + len(strings))
    fixed = FIXED.pack(
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
    padding = b"\0" * (header_size - FIXED.size - len(strings))
    backwards = lex.reversed_prefixes
    return fixed + strings + padding + payload + (b"" if backwards is None else encode(backwards))


def load(path: str | os.PathLike[str], make: Callable[..., L]) -> L:
    """Map the compiled lexicon file at ``path``, check it (see the module docstring) and
    build the lexicon with ``make`` (``dawg.Lexicon``)."""
    source = os.fspath(path)
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size == 0:
                raise LexiconError("not a compiled lexicon: file too short (0 bytes)", source)
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise LexiconError(f"cannot read compiled lexicon: {exc.strerror}", source) from exc
    return decode(memoryview(mapped), source, make)


def decode(data: memoryview, source: str, make: Callable[..., L], nested: bool = False) -> L:
    """The lexicon held by ``data`` (a file's bytes or mapping), viewed in place, built with
    ``make`` (``dawg.Lexicon``)."""
    if len(data) < FIXED.size:
        raise LexiconError(f"not a compiled lexicon: file too short ({len(data)} bytes)", source)
    magic, version, header_size, nodes, edges, words, root, letters_size, crc = FIXED.unpack_from(data)
    if magic != MAGIC:
        raise LexiconError(f"not a compiled lexicon: bad magic {bytes(magic)!r}", source)
    if version != FORMAT_VERSION:
        raise LexiconError(
            f"unsupported lexicon format version {version} (this build reads {FORMAT_VERSION})",
            source,
        )
    language, alphabet = _decode_strings(data, header_size, source)
    sizes = (4 * (nodes + 1), 4 * edges, nodes, edges, letters_size)
    expected = header_size + sum(_pad(size) for size in sizes)
    if len(data) < expected:
        raise LexiconError(f"truncated: {len(data)} bytes, header announces {expected}", source)
    backwards = None
    if len(data) > expected:
        if nested:
            raise LexiconError(f"oversized: {len(data)} bytes, header announces {expected}", source)
        backwards = decode(data[expected:], f"{source} (reversed prefixes)", make, nested=True)
    payload = data[header_size:expected]
    if zlib.crc32(payload) != crc:
        raise LexiconError("checksum mismatch: the file is corrupt", source)
    parts, offset = [], 0
    for size in sizes:
        parts.append(payload[offset : offset + size])
        offset += _pad(size)
    first, targets = _u32s(parts[0]), _u32s(parts[1])
    terminal, edge_index, letters = parts[2], parts[3], parts[4]
    if nodes == 0 or not 0 <= root < nodes:
        raise LexiconError(f"root node {root} out of range (nodes: {nodes})", source)
    if first[0] != 0 or first[nodes] != edges:
        raise LexiconError("edge index does not span the edge table", source)
    return make(
        language,
        alphabet,
        first,
        _LazyLetters(letters, edges, source),
        targets,
        terminal,
        root,
        words,
        backwards,
        edge_index,
    )


class _LazyLetters:
    """The UTF-8 letters section, decoded to a ``str`` only when asked (by the pure-Python
    generator and the word-listing tools; the C core reads the edge indexes)."""

    __slots__ = ("count", "raw", "source")

    def __init__(self, raw: memoryview, count: int, source: str) -> None:
        self.raw, self.count, self.source = raw, count, source

    def decode(self) -> str:
        try:
            letters = str(self.raw, "utf-8")
        except UnicodeDecodeError as exc:
            raise LexiconError("letters section is not UTF-8", self.source) from exc
        if len(letters) != self.count:
            raise LexiconError(f"letters section holds {len(letters)} letters, not {self.count}", self.source)
        return letters


def _u32s(raw: memoryview) -> memoryview | array[int]:
    if _SWAP:  # pragma: no cover - big-endian hosts: a swapped copy
        values = array(U32)
        values.frombytes(raw)
        values.byteswap()
        return values
    raw = raw.cast("B")
    return raw.cast("I") if U32 == "I" else raw.cast("L")


def _decode_strings(data: memoryview, header_size: int, source: str) -> tuple[str, tuple[str, ...]]:
    pos = FIXED.size
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
