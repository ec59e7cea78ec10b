"""Lexicons: word lists normalised per language and compiled to a flat-array DAWG.

* ``catalog``    named lexicons: where each comes from, the compiled-file cache, ``load_lexicon``
* ``alphabet``   each language's letters, in order (``ALPHABETS``)
* ``normalize``  per-language normalisation of raw dictionary entries into playable words
* ``build``      compiling raw word lists to a lexicon file, with a report of what was kept and why not
* ``dawg``       the flat-array DAWG: compiling words into one, and ``Lexicon``, its node walk
* ``dawgfile``   the compiled lexicon file: its format, writing it, loading it by memory map
* ``errors``     ``LexiconError``: missing, unreadable or malformed word lists and lexicon files

Public API:

* :func:`load_lexicon` — a named lexicon (``en`` default, ``en-gb``, ``es``, ``it``, ``pt``,
  ``de``, ``fr``, ``pl``), cached in-process;
* :class:`Lexicon` — ``word in lex``, ``len(lex)``, and the node walk used by move generation:
  ``root``, ``child(node, letter)``, ``child_map(node)``, ``is_terminal(node)``,
  ``children(node)``;
* :func:`normalize_word` / :func:`normalize` — per-language normalisation of raw entries;
* :func:`build_lexicon` — compile word lists to a lexicon file, with a :class:`BuildReport`.
"""

from wordarena.engine.lexicon.alphabet import ALPHABETS, LANGUAGES, alphabet_for
from wordarena.engine.lexicon.build import BuildReport, build_lexicon, compile_lexicon, read_word_list
from wordarena.engine.lexicon.catalog import (
    DEFAULT_LEXICON,
    SOURCES,
    available_lexicons,
    cache_dir,
    load_lexicon,
)
from wordarena.engine.lexicon.dawg import Lexicon, compile_words
from wordarena.engine.lexicon.errors import LexiconError
from wordarena.engine.lexicon.normalize import Normalized, Reason, normalize, normalize_word

__all__ = [
    "ALPHABETS",
    "DEFAULT_LEXICON",
    "LANGUAGES",
    "SOURCES",
    "BuildReport",
    "Lexicon",
    "LexiconError",
    "Normalized",
    "Reason",
    "alphabet_for",
    "available_lexicons",
    "build_lexicon",
    "cache_dir",
    "compile_lexicon",
    "compile_words",
    "load_lexicon",
    "normalize",
    "normalize_word",
    "read_word_list",
]
