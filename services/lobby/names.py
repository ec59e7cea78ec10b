"""Display names: what is allowed, and when two names are "the same" (impersonation).

A display name is 3..24 characters of letters (any script), digits, space, ``_``, ``-`` and
``.``, starting and ending with a letter or digit, without two separators in a row. Names are
stored NFC-normalised as typed.

Two names collide when their *skeletons* are equal (:func:`name_skeleton`): Unicode TR39's
confusable skeleton (Unicode's ``confusables.txt``: :mod:`.confusables`), made case-, accent- and
separator-insensitive as well: NFKD, invisible characters, separators and kashidas (the Arabic
tatweel, the N'Ko lajanyalan: they only stretch a join) removed, then rounds of
TR39 mapping, combining marks dropped and casefolding, plus a few look-alikes TR39 keeps apart
(``l``→``i``, ``3``→``e``, ``5``→``s``, ``vv``→``w``...). So "Alice", "ALICE", "A.lice", "Al1ce",
"Аlice" (Cyrillic А), "Ꭺlice" (Cherokee Ꭺ), "Alice" plus a variation selector and "Alice" plus
a tatweel are one name.
A few names are reserved (``admin``, ``lobby``, ``bot``...).
"""

from __future__ import annotations

import itertools
import unicodedata

from wordarena.services.common.text import invisible
from wordarena.services.lobby import confusables
from wordarena.services.lobby.errors import LobbyError, Status

__all__ = [
    "NAME_KEY_MAX",
    "NAME_MAX",
    "NAME_MIN",
    "RESERVED_SKELETONS",
    "name_skeleton",
    "validate_display_name",
]

NAME_MIN = 3
NAME_MAX = 24
#: The longest skeleton a name may have (the ``name_key`` column's width): some letters stand for
#: a whole sequence once decomposed (ligatures).
NAME_KEY_MAX = 96
_SEPARATORS = frozenset(" _-.")
#: Kashidas: they only stretch the join between two letters (Arabic tatweel, N'Ko lajanyalan),
#: so a name with them reads as the name without. NFKD first turns the Arabic presentation
#: forms that carry a tatweel (U+FE71, U+FE77 ...) into a tatweel and a mark.
_ELONGATION = frozenset("\u0640\u07fa")

#: Look-alikes beyond TR39 (which keeps ``l``/``i``, digits and letters, and ``ß`` apart), after
#: its mapping and casefolding: ``l``→``i``, digits and symbols read as letters (``Al1ce``, ``ADM1N``).
_BEYOND_TR39: dict[str, str] = {
    "l": "i",
    "!": "i",
    "3": "e",
    "4": "a",
    "5": "s",
    "7": "t",
    "8": "b",
    "9": "g",
    "$": "s",
    "@": "a",
    "ß": "ss",
    "ø": "o",
    "đ": "d",
    "ð": "d",
    "þ": "p",
}
_MULTI = (("vv", "w"), ("cl", "d"))
#: Rounds of TR39 mapping and casefolding until the text is stable (casefolding can make a letter
#: that has a prototype of its own: ``I`` → ``i``; two rounds suffice in practice).
_ROUNDS = 4


def _fold_round(text: str) -> str:
    """One round: TR39 skeleton, combining marks dropped, casefolded, the extra look-alikes."""
    folded = "".join(ch for ch in confusables.skeleton(text) if not unicodedata.combining(ch)).casefold()
    return "".join(_BEYOND_TR39.get(ch, ch) for ch in folded)


def name_skeleton(name: str) -> str:
    """The comparison key of a name: equal skeletons mean the names impersonate each other."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text
                   if not invisible(ch) and ch not in _SEPARATORS and ch not in _ELONGATION)
    for _ in range(_ROUNDS):
        folded = _fold_round(text)
        if folded == text:
            break
        text = folded
    for a, b in _MULTI:
        text = text.replace(a, b)
    return text


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
        shown = ", ".join(
            repr(c) if c.isprintable() and not invisible(c) else f"U+{ord(c):04X}" for c in bad[:5]
        )
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
    if len(skeleton) > NAME_KEY_MAX:
        raise LobbyError.invalid(
            "display name is too long once its ligatures are spelled out", field, "NAME_INVALID"
        )
    if len(skeleton) < 2:
        raise LobbyError.invalid("display name needs at least two letters or digits", field, "NAME_INVALID")
    if skeleton in RESERVED_SKELETONS:
        raise LobbyError(Status.ALREADY_EXISTS, "that display name is reserved", "NAME_TAKEN", field)
    return name
