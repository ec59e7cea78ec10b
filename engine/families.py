"""The rule families, playable: each ruleset's data (``engine.rulesets``) joined with the hooks
its turns plug into the one game loop (``engine.game.play`` for classic, Word Tiles and scrabble;
``engine.warofwords`` for War of Words' action tiles, terrain, effects and clouds).

This module sits above the game loop and the families, so the loop never imports a family and
the rulesets stay data: the way the Go engine macondo hands its game its variant's policies
through the rules object.

    ruleset = get_ruleset("classic", "es")
    state = replay(events)      # a whole event log, its ruleset named in game-started
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from wordarena.engine.game.events import Event
from wordarena.engine.game.play import STANDARD, FamilyHooks
from wordarena.engine.game.replay import replay as replay_log
from wordarena.engine.game.state import GameState, Lexicon
from wordarena.engine.rulesets.catalog import FAMILIES, list_rulesets, ruleset_fields, split_ruleset_id
from wordarena.engine.rulesets.model import Ruleset
from wordarena.engine.warofwords.turn import WAR_OF_WORDS

__all__ = ["FAMILIES", "HOOKS", "get_ruleset", "list_rulesets", "parse_ruleset_id", "replay"]

#: The turn hooks of each family.
HOOKS: dict[str, FamilyHooks] = {
    "classic": STANDARD,
    "wordtiles": STANDARD,
    "scrabble": STANDARD,
    "warofwords": WAR_OF_WORDS,
}


@cache
def get_ruleset(family: str, language: str = "en", board: str | None = None) -> Ruleset:
    """The ruleset of ``family`` in ``language`` on ``board`` (the family's default board);
    ``InputError`` names what is unknown."""
    return Ruleset(**ruleset_fields(family, language, board), hooks=HOOKS[family])


def parse_ruleset_id(ruleset_id: str) -> Ruleset:
    """Resolve ``"family[/language[/board]]"`` (as written in records and CGP options)."""
    return get_ruleset(*split_ruleset_id(ruleset_id))


def replay(
    events: Sequence[Event], lexicon_for: Callable[[str], Lexicon | None] = lambda name: None
) -> GameState:
    """The state after ``events`` (a whole log, starting with ``game-started``), its ruleset
    resolved by :func:`parse_ruleset_id`."""
    return replay_log(events, lexicon_for, ruleset_for=parse_ruleset_id)
