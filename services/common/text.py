"""Text that players write and other players read (chat, display names): what may reach another
player's screen. One place decides, for both servers.

* Unicode NFC, so one text has one form.
* No control characters (C0, C1, DEL): they drive terminals (clear the screen, set a window
  title, write the clipboard).
* No format characters that reorder or hide text (bidi embeddings, overrides and isolates,
  zero-width spaces, word joiners, the BOM), except the zero-width joiner and non-joiner, which
  scripts such as Persian or Devanagari and emoji sequences need.
* Not invisible: text made only of spaces and *default-ignorable* code points (Hangul fillers,
  variation selectors, the combining grapheme joiner …) is refused.
"""

from __future__ import annotations

import unicodedata

__all__ = ["invisible", "refused_chars", "shown_text"]

#: Format characters that scripts need (ZWNJ, ZWJ) and emoji presentation selectors.
_SCRIPT_FORMAT = frozenset("\u200c\u200d")

#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): drawn as nothing.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


def invisible(ch: str) -> bool:
    """Whether ``ch`` is drawn as nothing: a default-ignorable code point."""
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


def refused_chars(text: str) -> list[str]:
    """The characters of ``text`` that may not reach another player: controls, and format
    characters other than the joiners scripts need."""
    return sorted({ch for ch in text
                   if unicodedata.category(ch) == "Cc"
                   or (unicodedata.category(ch) == "Cf" and ch not in _SCRIPT_FORMAT)})


def shown_text(raw: str) -> str:
    """``raw`` as it may be shown to other players (NFC, trimmed), or ``ValueError`` saying why
    not: a refused character (named by its code point) or nothing visible."""
    text = unicodedata.normalize("NFC", raw).strip()
    bad = refused_chars(text)
    if bad:
        names = ", ".join(f"U+{ord(ch):04X}" for ch in bad[:5])
        raise ValueError(f"control or format characters are not allowed ({names})")
    if not any(not ch.isspace() and not invisible(ch) for ch in text):
        raise ValueError("nothing visible")
    return text
