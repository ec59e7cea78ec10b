"""The pragmas wordarena adds to the GCG records it writes, and their one reader.

``#ruleset classic/en`` names the ruleset as ``wordarena gcg check --ruleset`` takes it (a family,
or ``family/language[/board]``, the id CGP's ``ruleset`` operation carries too); ``#language en``
the tile set's language, as ``--language``; ``#seed 17`` the match's seed (written only with the
racks: it fixes the bag's order and every random effect, so War of Words' effects replay).
"""

from __future__ import annotations

from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset, parse_ruleset_id
from wordarena.engine.interchange.gcg import GameRecord
from wordarena.engine.rulesets.model import Ruleset

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


def record_ruleset(record: GameRecord | None, named: str | None = None,
                   language: str = "en") -> Ruleset:
    """The ruleset to replay ``record`` with: the one every reader of a record uses.

    ``named`` (a command's ``--ruleset``: a family, completed by ``language``, or a whole
    ``family/language[/board]`` id) wins; without it, what the record's ``#ruleset`` /
    ``#language`` pragmas name (records wordarena writes carry them); else scrabble in
    ``language``."""
    chosen = named or (record_ruleset_id(record) if record is not None else None)
    if chosen and "/" in chosen:
        return parse_ruleset_id(chosen)
    return get_ruleset(chosen or "scrabble", language)


def record_seed(record: GameRecord) -> int | None:
    """The ``#seed`` pragma as a number, or None; a seed that is not a number is an error."""
    seed = pragma(record, SEED)
    if seed is None:
        return None
    try:
        return int(seed)
    except ValueError:
        raise InputError(f"#seed {seed!r} is not a number", SEED) from None
