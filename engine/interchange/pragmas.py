"""The pragmas wordarena adds to the GCG records it writes, and their one reader.

``#ruleset classic/en`` names the ruleset as ``wordarena gcg check --ruleset`` takes it (a family,
or ``family/language[/board]``, the id CGP's ``ruleset`` operation carries too); ``#language en``
the tile set's language, as ``--language``; ``#seed 17`` the match's seed (written only with the
racks: it fixes the bag's order and every random effect, so War of Words' effects replay).
"""

from __future__ import annotations

from wordarena.engine.errors import InputError
from wordarena.engine.interchange.gcg import GameRecord

RULESET = "ruleset"
LANGUAGE = "language"
SEED = "seed"


def pragma(record: GameRecord, name: str) -> str | None:
    """The value of the last ``#name`` pragma of ``record`` (kept in ``record.pragmas``)."""
    values = [value for key, value in record.pragmas if key == name]
    return values[-1] if values else None


def record_ruleset_id(record: GameRecord) -> str | None:
    """The ruleset id the record's ``#ruleset`` / ``#language`` pragmas name, or None.

    ``#ruleset`` may be a whole id (``scrabble/pl``, which wins) or a family, which ``#language``
    (default ``en``) completes, as ``--ruleset`` and ``--language`` do."""
    ruleset = pragma(record, RULESET)
    if not ruleset:
        return None
    if "/" in ruleset:
        return ruleset
    return f"{ruleset}/{pragma(record, LANGUAGE) or 'en'}"


def record_seed(record: GameRecord) -> int | None:
    """The ``#seed`` pragma as a number, or None; a seed that is not a number is an error."""
    seed = pragma(record, SEED)
    if seed is None:
        return None
    try:
        return int(seed)
    except ValueError:
        raise InputError(f"#seed {seed!r} is not a number", SEED) from None
