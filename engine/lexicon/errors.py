"""The lexicon's error type."""

from __future__ import annotations

from wordarena.engine.errors import InputError


class LexiconError(InputError):
    """A word list or compiled lexicon that cannot be used: missing, unreadable or malformed.

    The message names the file (and line or field) at fault and, for a missing system word
    list, the Debian package that provides it.
    """
