"""Display names: what is allowed, and when two names are "the same" (impersonation).

A display name is 3..24 characters of letters (any script), digits, space, ``_``, ``-`` and
``.``, starting and ending with a letter or digit, without two separators in a row. Names are
stored NFC-normalised as typed.

Two names collide when their *skeletons* are equal. The skeleton is case-, accent-, separator-
and confusable-insensitive: NFKD, combining marks dropped, casefolded, common look-alikes mapped to
one letter (Cyrillic/Greek homoglyphs, ``0``→``o``, ``1``/``l``/``|``→``i``, ``5``→``s``,
``rn``→``m``, ``vv``→``w``...), separators removed. So "Alice", "ALICE", "A.lice", "Al1ce" and
"Аlice" (Cyrillic А) are one name. A few names are reserved (``admin``, ``lobby``, ``bot``...).
"""

from __future__ import annotations

import itertools
import unicodedata

from wordarena.services.common.text import invisible
from wordarena.services.lobby.errors import LobbyError, Status

__all__ = ["NAME_MAX", "NAME_MIN", "RESERVED_SKELETONS", "name_skeleton", "validate_display_name"]

NAME_MIN = 3
NAME_MAX = 24
_SEPARATORS = frozenset(" _-.")

# Look-alikes, after casefolding and accent stripping. Values are the canonical letter.
_CONFUSABLES: dict[str, str] = {
    # digits and symbols
    "0": "o",
    "1": "i",
    "l": "i",
    "|": "i",
    "!": "i",
    "3": "e",
    "4": "a",
    "5": "s",
    "7": "t",
    "8": "b",
    "9": "g",
    "$": "s",
    "@": "a",
    "ı": "i",
    "ł": "i",
    "ø": "o",
    "đ": "d",
    "ð": "d",
    "ß": "ss",
    "æ": "ae",
    "œ": "oe",
    "þ": "p",
    # Cyrillic
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "ԁ": "d",
    "ɡ": "g",
    "ԛ": "q",
    "ԝ": "w",
    "һ": "h",
    "ӏ": "i",
    "ь": "b",
    # Greek
    "α": "a",
    "β": "b",
    "ε": "e",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "μ": "u",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "ω": "w",
    "γ": "y",
    "ς": "s",
    "σ": "o",
}
_MULTI = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def name_skeleton(name: str) -> str:
    """The comparison key of a name: equal skeletons mean the names impersonate each other."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch) and not invisible(ch)).casefold()
    mapped = "".join(_CONFUSABLES.get(ch, ch) for ch in text if ch not in _SEPARATORS)
    for a, b in _MULTI:
        mapped = mapped.replace(a, b)
    # Second pass: the multi-letter rules may create new single look-alikes (none now), and
    # repeated runs ("aalice") are kept: they are visibly different.
    return "".join(_CONFUSABLES.get(ch, ch) for ch in mapped)


_RESERVED = {
    "admin",
    "administrator",
    "moderator",
    "mod",
    "system",
    "lobby",
    "server",
    "wordarena",
    "bot",
    "support",
    "staff",
    "root",
    "guest",
    "null",
    "none",
    "anonymous",
}
RESERVED_SKELETONS: frozenset[str] = frozenset(name_skeleton(n) for n in _RESERVED)


def _allowed_char(ch: str) -> bool:
    if ch in _SEPARATORS:
        return True
    if invisible(ch):  # a Hangul filler is a letter, a variation selector a mark: both invisible
        return False
    cat = unicodedata.category(ch)
    return cat.startswith("L") or cat == "Nd" or cat.startswith("M")


def validate_display_name(raw: str, field: str = "display_name") -> str:
    """Returns the normalised name or raises ``LobbyError`` (INVALID_ARGUMENT, NAME_INVALID)."""
    if not isinstance(raw, str):
        raise LobbyError.invalid("display name must be text", field, "NAME_INVALID")
    name = unicodedata.normalize("NFC", raw)
    if len(name) < NAME_MIN or len(name) > NAME_MAX:
        raise LobbyError.invalid(
            f"display name must be {NAME_MIN}..{NAME_MAX} characters, got {len(name)}", field, "NAME_INVALID"
        )
    bad = sorted({ch for ch in name if not _allowed_char(ch)})
    if bad:
        shown = ", ".join(repr(c) if c.isprintable() and not invisible(c) else f"U+{ord(c):04X}"
                          for c in bad[:5])
        raise LobbyError.invalid(
            f"display name may hold letters, digits, space, '_', '-' and '.' only (not {shown})",
            field,
            "NAME_INVALID",
        )
    if name[0] in _SEPARATORS or name[-1] in _SEPARATORS or unicodedata.category(name[0]).startswith("M"):
        raise LobbyError.invalid(
            "display name must start and end with a letter or digit", field, "NAME_INVALID"
        )
    if any(a in _SEPARATORS and b in _SEPARATORS for a, b in itertools.pairwise(name)):
        raise LobbyError.invalid("display name may not have two separators in a row", field, "NAME_INVALID")
    skeleton = name_skeleton(name)
    if len(skeleton) < 2:
        raise LobbyError.invalid("display name needs at least two letters or digits", field, "NAME_INVALID")
    if skeleton in RESERVED_SKELETONS:
        raise LobbyError(Status.ALREADY_EXISTS, "that display name is reserved", "NAME_TAKEN", field)
    return name
