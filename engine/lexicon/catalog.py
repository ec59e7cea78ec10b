"""Named lexicons: where each comes from, the compiled-file cache, and :func:`load_lexicon`.

* ``en`` (default English) ships with the project: the MIT-licensed ``word-list`` 4.1.0
  (``data/en.txt.gz``) plus ``data/en-additions.txt``, compiled and committed as
  ``data/en.dawg`` (a unit test checks it is exactly what the sources compile to).
* The others are built from Debian's system word lists on first use and cached as compiled
  files in :func:`cache_dir` (``$WORDARENA_LEXICON_DIR``, else ``$XDG_CACHE_HOME/wordarena/
  lexicon``, else ``~/.cache/wordarena/lexicon``). A cache file is named after a key of the
  format and normalisation versions and the sources' paths, sizes and modification times, so a
  changed list or rule recompiles. When the cache cannot be written, the lexicon is still
  compiled and used, only not kept.

Loaded lexicons are kept in-process: the same name gives the same object.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from wordarena.engine.lexicon.build import compile_lexicon
from wordarena.engine.lexicon.dawg import FORMAT_VERSION, Lexicon
from wordarena.engine.lexicon.errors import LexiconError
from wordarena.engine.lexicon.normalize import NORMALIZE_VERSION

DATA_DIR = Path(__file__).resolve().parent / "data"
SYSTEM_DICT_DIR = Path("/usr/share/dict")
DEFAULT_LEXICON = "en"


@dataclass(frozen=True)
class LexiconSource:
    """Where a named lexicon comes from."""

    name: str
    language: str
    sources: tuple[Path, ...]
    additions: Path | None = None
    debian_package: str | None = None
    bundled: Path | None = None
    description: str = ""


_EN_ADDITIONS = DATA_DIR / "en-additions.txt"


def _system(name: str, language: str, file: str, package: str, what: str) -> LexiconSource:
    additions = _EN_ADDITIONS if language.startswith("en") else None
    return LexiconSource(name, language, (SYSTEM_DICT_DIR / file,), additions, package, None, what)


SOURCES: dict[str, LexiconSource] = {
    "en": LexiconSource(
        "en",
        "en",
        (DATA_DIR / "en.txt.gz",),
        _EN_ADDITIONS,
        None,
        DATA_DIR / "en.dawg",
        "US English: npm word-list 4.1.0 (MIT) plus WWF additions",
    ),
    "en-gb": _system("en-gb", "en-gb", "british-english", "wbritish", "British English"),
    "es": _system("es", "es", "spanish", "wspanish", "Spanish"),
    "it": _system("it", "it", "italian", "witalian", "Italian"),
    "pt": _system("pt", "pt", "brazilian", "wbrazilian", "Brazilian Portuguese"),
    "de": _system("de", "de", "ngerman", "wngerman", "German (new spelling)"),
    "fr": _system("fr", "fr", "french", "wfrench", "French"),
    "pl": _system("pl", "pl", "polish", "wpolish", "Polish"),
}

_loaded: dict[str, Lexicon] = {}
_lock = threading.Lock()


def available_lexicons() -> tuple[str, ...]:
    """The names :func:`load_lexicon` knows."""
    return tuple(SOURCES)


def cache_dir() -> Path:
    """The directory where compiled lexicons built on first use are kept."""
    explicit = os.environ.get("WORDARENA_LEXICON_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "wordarena" / "lexicon"


def load_lexicon(name: str = DEFAULT_LEXICON) -> Lexicon:
    """Return the named lexicon (``en``, ``en-gb``, ``es``, ``it``, ``pt``, ``de``, ``fr``, ``pl``).

    Compiles and caches it on first use when needed; the same object is returned on later
    calls. Raises :class:`LexiconError` for an unknown name, or when the system word list is
    missing (the message names the Debian package to install).
    """
    lexicon = _loaded.get(name)
    if lexicon is not None:
        return lexicon
    with _lock:
        lexicon = _loaded.get(name)
        if lexicon is None:
            lexicon = _loaded[name] = _load_uncached(_source(name))
    return lexicon


def _source(name: str) -> LexiconSource:
    try:
        return SOURCES[name]
    except KeyError:
        known = ", ".join(SOURCES)
        raise LexiconError(f"unknown lexicon {name!r} (known: {known})") from None


def _load_uncached(source: LexiconSource) -> Lexicon:
    if source.bundled is not None and source.bundled.exists():
        return Lexicon.load(source.bundled)
    _check_sources(source)
    cached = cache_dir() / f"{source.name}-{_cache_key(source)}.dawg"
    if cached.exists():
        try:
            return Lexicon.load(cached)
        except LexiconError:
            pass  # a corrupt, truncated or other-format entry is not trusted: rebuilt below
    lexicon, _ = compile_lexicon(source.sources, source.language, source.additions)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        lexicon.save(cached)
    except OSError:
        return lexicon  # read-only home or cache: use the lexicon without keeping it
    # the mapped file, as every later process sees it: its pages are shared, not copied
    return Lexicon.load(cached)


def _check_sources(source: LexiconSource) -> None:
    for path in source.sources:
        if not path.exists():
            hint = (
                f"; install the Debian package {source.debian_package} "
                f"(apt-get install {source.debian_package})"
                if source.debian_package
                else ""
            )
            raise LexiconError(f"word list for lexicon {source.name!r} not found{hint}", str(path))


def _cache_key(source: LexiconSource) -> str:
    parts = [f"format={FORMAT_VERSION}", f"normalize={NORMALIZE_VERSION}", source.language]
    for path in (*source.sources, *([source.additions] if source.additions else [])):
        stat = path.stat()
        parts.append(f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def clear_loaded() -> None:
    """Forget lexicons loaded in this process (for tests)."""
    with _lock:
        _loaded.clear()
