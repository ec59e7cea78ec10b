"""Per-language normalisation of raw dictionary entries into playable words.

The rules (from the classic rule text) in short:

* a playable word is upper case, at least two letters long, and made only of letters of its
  language's alphabet (:data:`engine.lexicon.alphabet.ALPHABETS`);
* proper nouns, abbreviations, and entries with hyphens, apostrophes, digits or spaces are
  rejected (never "repaired");
* diacritics are dropped, except on the letters a language keeps as tiles of their own:
  Spanish Ñ, Portuguese Ç, German Ä/Ö/Ü, Polish Ą/Ć/Ę/Ł/Ń/Ó/Ś/Ź/Ż;
* German ß becomes SS; French (and any language's) ligatures Œ and Æ become OE and AE;
* after folding, a word holding a letter its language excludes (Spanish K/W, Italian
  J/K/W/X/Y, Portuguese K/W/Y, Polish Q/V/X) is rejected.

Debian word lists mark proper nouns by capitalisation, so when a list also holds lower-case
words, an entry starting with a capital is a proper noun. German is the exception: every
German noun is capitalised, so a capital there says nothing (see ``CAPITALISED_NOUNS``).
An all-capitals entry (``USA``, ``NATO``) in such a list is an abbreviation. A list with no
lower-case words at all (an upper-case tournament list) carries no case information.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from wordarena.engine.lexicon.alphabet import ALPHABETS, alphabet_for

#: Bumped whenever a rule here changes, so that cached compiled lexicons are rebuilt.
NORMALIZE_VERSION = 1

#: Languages whose lists capitalise common nouns, so a capital does not mark a proper noun.
CAPITALISED_NOUNS: frozenset[str] = frozenset({"de"})

MIN_WORD_LENGTH = 2

_LIGATURES = {"Œ": "OE", "Æ": "AE", "ẞ": "SS", "ß": "SS", "Ĳ": "IJ"}
_APOSTROPHES = frozenset("'’ʼ`´")
_HYPHENS = frozenset("-‐‑‒–—")


class Reason(StrEnum):
    """Why an entry is not a playable word. Values are stable, for reports."""

    EMPTY = "empty"
    SPACE = "space"
    DIGIT = "digit"
    APOSTROPHE = "apostrophe"
    HYPHEN = "hyphen"
    ABBREVIATION = "abbreviation"
    PROPER_NOUN = "proper-noun"
    MIXED_CASE = "mixed-case"
    SYMBOL = "symbol"
    EXCLUDED_LETTER = "excluded-letter"
    FOREIGN_LETTER = "foreign-letter"
    TOO_SHORT = "too-short"


@dataclass(frozen=True, slots=True)
class Normalized:
    """The outcome of normalising one entry: ``word`` when kept, else ``reason`` (and detail)."""

    word: str | None
    reason: Reason | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        """True when the entry gave a playable word."""
        return self.word is not None


def normalize(raw: str, language: str, *, case_marks_proper: bool = True) -> Normalized:
    """Normalise one raw entry of a ``language`` word list.

    ``case_marks_proper`` says whether the list's capitalisation is meaningful: true for a list
    that also holds lower-case words (every Debian list), so that a capitalised entry is a
    proper noun (except in :data:`CAPITALISED_NOUNS` languages) and an all-capitals entry an
    abbreviation; pass false for an all-capitals list. Raises ``KeyError`` for an unknown
    language.
    """
    alphabet = alphabet_for(language)
    if len(raw) >= MIN_WORD_LENGTH and _plain_pattern(language).fullmatch(raw):
        return Normalized(raw.upper())  # lower-case letters of the alphabet only: nothing to do
    return normalize_by_rules(raw, language, alphabet, case_marks_proper)


def normalize_by_rules(
    raw: str, language: str, alphabet: tuple[str, ...], case_marks_proper: bool
) -> Normalized:
    """:func:`normalize` by the whole rules, without its fast path for plain lower-case words
    (which must agree with this; a property test checks it)."""
    entry = unicodedata.normalize("NFC", raw.strip())
    if not entry:
        return Normalized(None, Reason.EMPTY)
    rejected = _reject_by_form(entry)
    if rejected is None and case_marks_proper:
        rejected = _reject_by_case(entry, language)
    if rejected is not None:
        return rejected
    return _fold(entry, language, alphabet)


def normalize_word(raw: str, language: str, *, case_marks_proper: bool = True) -> str | None:
    """Return the playable form of ``raw`` in ``language``, or None when it is not playable.

    Use :func:`normalize` to learn why an entry was rejected.
    """
    return normalize(raw, language, case_marks_proper=case_marks_proper).word


def _reject_by_form(entry: str) -> Normalized | None:
    for ch in entry:
        if ch.isspace():
            return Normalized(None, Reason.SPACE)
        if ch.isdigit():
            return Normalized(None, Reason.DIGIT)
        if ch in _APOSTROPHES:
            return Normalized(None, Reason.APOSTROPHE)
        if ch in _HYPHENS:
            return Normalized(None, Reason.HYPHEN)
        if ch == ".":
            return Normalized(None, Reason.ABBREVIATION)
    return None


def _reject_by_case(entry: str, language: str) -> Normalized | None:
    letters = [c for c in entry if c.isalpha()]
    if not letters:
        return None
    upper = [c.isupper() for c in letters]
    if all(upper) and len(letters) >= MIN_WORD_LENGTH:
        return Normalized(None, Reason.ABBREVIATION)
    if any(upper[1:]):
        return Normalized(None, Reason.MIXED_CASE)
    if upper[0] and language not in CAPITALISED_NOUNS:
        return Normalized(None, Reason.PROPER_NOUN)
    return None


def _fold(entry: str, language: str, alphabet: tuple[str, ...]) -> Normalized:
    keep = _keep_set(language)
    out: list[str] = []
    for ch in entry:
        up = ch.upper()
        if up in keep:
            out.append(up)
            continue
        folded = _fold_char(up)
        if folded is None:
            reason = Reason.FOREIGN_LETTER if ch.isalpha() else Reason.SYMBOL
            return Normalized(None, reason, ch)
        out.append(folded)
    word = "".join(out)
    for ch in word:
        if ch not in keep:
            reason = Reason.EXCLUDED_LETTER if "A" <= ch <= "Z" else Reason.FOREIGN_LETTER
            return Normalized(None, reason, ch)
    if len(word) < MIN_WORD_LENGTH:
        return Normalized(None, Reason.TOO_SHORT)
    return Normalized(word)


def _fold_char(up: str) -> str | None:
    """Fold one upper-cased character to plain letters, or None when it is not a letter."""
    if up in _LIGATURES:
        return _LIGATURES[up]
    if len(up) > 1:  # str.upper() already expanded it (e.g. "ß" -> "SS", "ﬁ" -> "FI")
        parts = [_fold_char(c) for c in up]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
    base = "".join(c for c in unicodedata.normalize("NFD", up) if not unicodedata.combining(c))
    if len(base) == 1 and base.isalpha():
        return base
    return None


_KEEP_CACHE: dict[str, frozenset[str]] = {}


def _keep_set(language: str) -> frozenset[str]:
    keep = _KEEP_CACHE.get(language)
    if keep is None:
        keep = _KEEP_CACHE[language] = frozenset(ALPHABETS[language])
    return keep


_PLAIN_CACHE: dict[str, re.Pattern[str]] = {}


def _plain_pattern(language: str) -> re.Pattern[str]:
    """Entries made only of lower-case forms of the alphabet's letters (the common case)."""
    pattern = _PLAIN_CACHE.get(language)
    if pattern is None:
        lower = "".join(c.lower() for c in ALPHABETS[language] if c.lower().upper() == c)
        pattern = _PLAIN_CACHE[language] = re.compile(f"[{re.escape(lower)}]+")
    return pattern
