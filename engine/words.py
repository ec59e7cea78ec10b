"""Checking the words of a play against a lexicon, War of Words wildcards included.

A wildcard (``*``) takes, word by word, the first letters (in alphabet order) that make the
word valid, so one wildcard may stand for different letters in different words."""

from __future__ import annotations

from collections.abc import Container, Sequence
from functools import lru_cache
from itertools import product

from wordarena.engine.lexicon.dawg import Lexicon
from wordarena.engine.tiles import WILDCARD


def resolve_word(text: str, lexicon: Container[str], letters: Sequence[str]) -> str | None:
    """``text`` if it is a word, or its first valid reading with wildcards filled; else None."""
    if WILDCARD not in text:
        return text if text in lexicon else None
    if isinstance(lexicon, Lexicon) and all(len(letter) == 1 for letter in letters):
        return _first_reading(lexicon, text, tuple(letters))
    holes = [i for i, ch in enumerate(text) if ch == WILDCARD]
    chars = list(text)
    for choice in product(letters, repeat=len(holes)):
        for i, letter in zip(holes, choice, strict=True):
            chars[i] = letter
        candidate = "".join(chars)
        if candidate in lexicon:
            return candidate
    return None


@lru_cache(maxsize=1 << 16)
def _first_reading(lexicon: Lexicon, text: str, letters: tuple[str, ...]) -> str | None:
    """The same reading found in one walk down a DAWG lexicon (``Lexicon.first_reading``),
    remembered: the move generator judges plays through War of Words portals one by one, and
    their cross words (and a board wildcard's) recur from play to play."""
    return lexicon.first_reading(text, WILDCARD, letters)


def resolve_words(
    texts: Sequence[str], lexicon: Container[str], letters: Sequence[str]
) -> list[str | None]:
    """``resolve_word`` for each word of a play."""
    return [resolve_word(t, lexicon, letters) for t in texts]


def invalid_words(texts: Sequence[str], resolved: Sequence[str | None]) -> tuple[str, ...]:
    """The words (as laid, wildcards shown as ``*``) that have no valid reading."""
    return tuple(t for t, r in zip(texts, resolved, strict=True) if r is None)
