"""Untrusted text made safe to print: the one function every server-supplied string goes through.

Chat messages, display names, table ids, rule messages, error details and definitions come from
other people (through the servers). Printed as they are, an ``ESC`` starts a terminal control
sequence (``ESC ] 52`` writes the clipboard, ``ESC ] 0`` the window title, ``ESC [ 2J`` clears
the screen), a right-to-left override (U+202E) or zero-width character disguises what is shown,
and ``[bold]`` is rich markup when a string is printed through rich's markup parser.

:func:`safe_text` shows control and format characters visibly instead (``␛`` for ESC, ``␀`` for
NUL, ``⟨U+202E⟩`` for a format character) and, with ``markup=True``, escapes rich markup.
:func:`safe_json` does the same job for JSON output without changing the data.
"""

from __future__ import annotations

import re
import unicodedata

from rich.markup import escape

# Categories never printed raw: controls (Cc), format characters (Cf: bidi overrides, zero-width
# joiners, BOM), line / paragraph separators (Zl, Zp), surrogates and unassigned (Cs, Cn), and
# private use (Co), which some terminals map to glyphs of their own.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Cn", "Co"})


def _visible(ch: str, keep_newlines: bool) -> str:
    code = ord(ch)
    if keep_newlines and ch in "\n\t":
        return ch
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟, e.g. ␛ for ESC
    if code == 0x7F:
        return "␡"
    return f"⟨U+{code:04X}⟩"


def is_unsafe(ch: str) -> bool:
    """True for a character that must not reach the terminal as it is."""
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def safe_text(text: object, *, markup: bool = False, keep_newlines: bool = False) -> str:
    """``text`` as it may be printed: control and format characters shown visibly (``␛``,
    ``⟨U+202E⟩``), newlines too unless ``keep_newlines``; with ``markup`` rich markup such as
    ``[red]`` is escaped so it prints literally. Idempotent for ``markup=False``."""
    s = "" if text is None else str(text)
    if any(is_unsafe(ch) for ch in s):
        s = "".join(_visible(ch, keep_newlines) if is_unsafe(ch) else ch for ch in s)
    return escape(s) if markup else s


_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


def safe_json(dumped: str) -> str:
    """A JSON document with every character that could act on a terminal written as a ``\\u``
    escape. JSON escapes C0 controls itself; this covers DEL, C1 controls, bidi overrides and
    zero-width characters. Such characters occur only inside JSON strings, so the data is the
    same when parsed."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
