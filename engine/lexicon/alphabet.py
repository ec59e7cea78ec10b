"""Per-language alphabets: the letters a lexicon (and a tile set) of that language may hold.

Each alphabet is an ordered tuple of single upper-case letters, in the language's own
alphabetical order (Spanish Ñ after N, Portuguese Ç after C, German umlauts after their base
letter, Polish letters after theirs). A normalised word is made only of letters of its
language's alphabet; anything else rejects the word.
"""

from __future__ import annotations

_LATIN = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _without(letters: str) -> tuple[str, ...]:
    return tuple(c for c in _LATIN if c not in letters)


def _insert_after(base: tuple[str, ...], extra: dict[str, str]) -> tuple[str, ...]:
    out: list[str] = []
    for c in base:
        out.append(c)
        out.extend(extra.get(c, ""))
    return tuple(out)


ALPHABETS: dict[str, tuple[str, ...]] = {
    "en": _LATIN,
    "en-gb": _LATIN,
    # K and W are absent from classic Spanish; Ñ is its own tile.
    "es": _insert_after(_without("KW"), {"N": "Ñ"}),
    # J, K, W, X and Y are absent from classic Italian.
    "it": _without("JKWXY"),
    # K, W and Y are absent from classic (Brazilian) Portuguese; Ç is its own tile.
    "pt": _insert_after(_without("KWY"), {"C": "Ç"}),
    # Umlauts are letters of their own; ß is spelt SS.
    "de": _insert_after(_LATIN, {"A": "Ä", "O": "Ö", "U": "Ü"}),
    "fr": _LATIN,
    # The Polish alphabet (as in Polish Scrabble): no Q, V or X.
    "pl": _insert_after(
        _without("QVX"),
        {"A": "Ą", "C": "Ć", "E": "Ę", "L": "Ł", "N": "Ń", "O": "Ó", "S": "Ś", "Z": "ŹŻ"},
    ),
}

LANGUAGES: tuple[str, ...] = tuple(ALPHABETS)


def alphabet_for(language: str) -> tuple[str, ...]:
    """Return the alphabet of ``language`` (a key of :data:`ALPHABETS`).

    Raises ``KeyError`` with the known languages listed when ``language`` is unknown.
    """
    try:
        return ALPHABETS[language]
    except KeyError:
        known = ", ".join(LANGUAGES)
        raise KeyError(f"unknown language {language!r} (known: {known})") from None
