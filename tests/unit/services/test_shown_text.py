"""What players' text may show other players (services/common/text.py): controls and hiding or
reordering format characters refused, joiners that scripts need kept, invisible text refused."""

from __future__ import annotations

import re

import pytest

from wordarena.services.common.text import invisible, shown_text


@pytest.mark.parametrize("text, why", [
    ("gg \x1b]52;c;aGk=\x07", "U+001B"),     # a clipboard write
    ("hi\x1b[2J", "U+001B"),                 # clear the screen
    ("a\x00b", "U+0000"),
    ("\u202eolleh", "U+202E"),               # right-to-left override
    ("a\u2066b\u2069", "U+2066"),            # an isolate
    ("zero\u200bwidth", "U+200B"),
    ("\u3164\u3164", "nothing visible"),     # Hangul fillers only
    ("  \ufe0f ", "nothing visible"),
    ("", "nothing visible"),
])
def test_refused(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        shown_text(text)


@pytest.mark.parametrize("text, shown", [
    ("  good game ", "good game"),
    ("می\u200cخواهم", "می\u200cخواهم"),            # Persian keeps its zero-width non-joiner
    ("👩\u200d💻 nice", "👩\u200d💻 nice"),            # an emoji sequence keeps its joiner
    ("cafe\u0301", "café"),                          # NFC
])
def test_kept(text: str, shown: str) -> None:
    assert shown_text(text) == shown


def test_invisible_knows_the_fillers_and_selectors() -> None:
    assert all(invisible(ch) for ch in "\u3164\u115f\u1160\uffa0\ufe0f\u034f\u180b\u200b")
    assert not any(invisible(ch) for ch in "aÅ\u200c"[:2])
