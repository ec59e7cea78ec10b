"""The shipped rulesets as data: four families, each a few policies over shared data.

``ruleset_fields("classic", "es")`` → the fields of the Words With Friends rules with the Spanish
tile set and lexicon; ``wordarena.engine.families.get_ruleset`` joins them with the family's turn
hooks into a playable :class:`Ruleset`. Adding a language is adding a tile-set file; adding a
board is adding a board file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from wordarena.engine.errors import InputError
from wordarena.engine.rulesets.layout import board_ids, load_layout
from wordarena.engine.rulesets.model import (
    Bingo,
    ClockRule,
    ExchangeRule,
    FirstPlay,
    OutRule,
    WordCheck,
    WordFactor,
    ZeroTurnRule,
)
from wordarena.engine.tiles import TileSet

FAMILIES = ("classic", "wordtiles", "scrabble", "warofwords")

LANGUAGES: dict[str, tuple[str, ...]] = {
    "classic": ("en", "en-gb", "es", "it", "pt", "de", "fr"),
    "wordtiles": ("en", "pl"),
    "scrabble": ("en", "pl"),
    "warofwords": ("en",),
}

DEFAULT_BOARD = {
    "classic": "classic",
    "wordtiles": "wordtiles",
    "scrabble": "scrabble",
    "warofwords": "warofwords-field",
}

NO_CLOCK = ClockRule(default=0, minimum=0, maximum=7 * 24 * 3600)
#: Correspondence play (classic, warofwords): no game clock unless a table sets one; each turn
#: has a deadline, 3 days unless the table sets another (War of Words: "When a player doesn't
#: play a turn for at least 3 days, other players in the game can elect to Kick Idle Player").
CORRESPONDENCE = ClockRule(default=0, minimum=0, maximum=7 * 24 * 3600, turn_deadline=3 * 86400)


def _classic(base: dict[str, Any]) -> dict[str, Any]:
    return base | {
        "name": "Words With Friends (classic)",
        "max_players": 2,
        "bingos": (Bingo(7, 35),),
        # "any time the bag has tiles": no minimum beyond having tiles to swap with.
        "exchange": ExchangeRule(min_bag=1, per_player=None),
        # Three successive scoreless turns end the game unless the score is 0-0; a 0-0 game
        # that never scores ends after six (wordarena's rule; see docs/rules.md).
        "zero_turns": ZeroTurnRule(frozenset({"pass", "exchange", "scoreless"}), 3,
                                   zero_zero_limit=6),
        "out_rule": OutRule.TRANSFER,
    }


def _wordtiles(base: dict[str, Any]) -> dict[str, Any]:
    return base | {
        "name": "Word Tiles",
        "max_players": 4,
        "bingos": (Bingo(7, 50),),
        "colour_bonus": 3,
        "word_check": WordCheck.DEFERRED,
        "first_play_min_tiles": 2,
        "exchange": ExchangeRule(min_bag=7, per_player=3),
        # Two full rounds without a word placed; exchanges, failed plays and lost turns count.
        "zero_turns": ZeroTurnRule(frozenset({"pass", "exchange", "failed", "lost"}), 2,
                                   per_active_player=True),
        "out_rule": OutRule.TRANSFER,
        "clock": ClockRule(default=10 * 60, minimum=3 * 60, maximum=20 * 60),
    }


def _scrabble(base: dict[str, Any]) -> dict[str, Any]:
    return base | {
        "name": "Scrabble",
        "max_players": 4,
        "bingos": (Bingo(7, 50),),
        "exchange": ExchangeRule(min_bag=7, per_player=None),
        "zero_turns": ZeroTurnRule(frozenset({"pass", "exchange", "scoreless", "failed"}), 6),
        "out_rule": OutRule.DOUBLE,
        # The tournament chess clock (NASPA / WESPA): 25 minutes each by default; 10 points per
        # started minute over, and a player 10 minutes over loses on time (docs/rules.md).
        "clock": ClockRule(default=25 * 60, minimum=5 * 60, maximum=90 * 60, overtime_points=10,
                           max_overtime=10 * 60),
    }


def _warofwords(base: dict[str, Any]) -> dict[str, Any]:
    return base | {
        "name": "War of Words 2",
        "max_players": 4,
        "rack_size": 8,
        # First match wins: 8 letters, else 7 letters, else 8 tiles of any kind.
        "bingos": (Bingo(8, 100, letters_only=True), Bingo(7, 65, letters_only=True),
                   Bingo(8, 40)),
        "word_factor": WordFactor.ADD,
        "first_play": FirstPlay.STAR_OR_WATER,
        "exchange": ExchangeRule(min_bag=1, per_player=5),
        "zero_turns": ZeroTurnRule(frozenset({"pass"}), 3),
        "out_rule": OutRule.DEDUCT,
        "bonus_letter": True,
        # "Kick Idle Player": another player may remove the one holding up the game.
        "idle_kick": True,
    }


POLICIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "classic": _classic,
    "wordtiles": _wordtiles,
    "scrabble": _scrabble,
    "warofwords": _warofwords,
}


@cache
def load_tileset(tileset_id: str) -> TileSet:
    """Load a shipped tile set (``classic-en``, ``wordtiles-pl`` …)."""
    path = resources.files("wordarena.engine.rulesets") / "data" / "tilesets" / f"{tileset_id}.json"
    if not path.is_file():
        raise InputError(f"no tile set {tileset_id!r} is shipped", "tileset")
    return TileSet.from_json(json.loads(path.read_text(encoding="utf-8")))


def ruleset_fields(family: str, language: str = "en", board: str | None = None) -> dict[str, Any]:
    """The fields of the ruleset of ``family`` in ``language`` on ``board`` (the family's default
    board), all but its hooks; ``InputError`` names what is unknown."""
    if family not in POLICIES:
        raise InputError(f"unknown ruleset family {family!r}; known: {', '.join(FAMILIES)}",
                         "ruleset")
    if language not in LANGUAGES[family]:
        raise InputError(
            f"{family} is not played in {language!r}; languages: {', '.join(LANGUAGES[family])}",
            "language",
        )
    board_id = board or DEFAULT_BOARD[family]
    if family == "warofwords" and not board_id.startswith("warofwords"):
        raise InputError(f"{board_id!r} is not a War of Words board", "board")
    if family != "warofwords" and board_id.startswith("warofwords"):
        raise InputError(f"{board_id!r} is a War of Words board", "board")
    base: dict[str, Any] = {
        "id": "/".join([family, language] + ([board_id] if board else [])),
        "family": family,
        "language": language,
        "board": load_layout(board_id),
        "tiles": load_tileset(f"{family}-{language}"),
        "lexicon": language,
        "rack_size": 7,
        "min_players": 2,
        "word_factor": WordFactor.MULTIPLY,
        "colour_bonus": 0,
        "word_check": WordCheck.IMMEDIATE,
        "first_play": FirstPlay.START_SQUARE,
        "first_play_min_tiles": 1,
        "bonus_letter": False,
        "bonus_letter_points": 10,
        "clock": CORRESPONDENCE if family in ("classic", "warofwords") else NO_CLOCK,
    }
    return POLICIES[family](base)


def split_ruleset_id(ruleset_id: str) -> tuple[str, ...]:
    """``"family[/language[/board]]"`` (as written in records and CGP options) in its parts."""
    parts = tuple(ruleset_id.split("/"))
    if not 1 <= len(parts) <= 3 or not all(parts):
        raise InputError(f"ruleset id {ruleset_id!r} is not family[/language[/board]]", "ruleset")
    return parts


def list_rulesets() -> list[dict[str, Any]]:
    """Every playable (family, language, board) with its board and tile set available."""
    out = []
    for family in FAMILIES:
        boards = [b for b in board_ids() if (b.startswith("warofwords") == (family == "warofwords"))]
        for language in LANGUAGES[family]:
            try:
                load_tileset(f"{family}-{language}")
            except InputError:
                continue
            out.append({"family": family, "language": language, "boards": boards,
                        "default_board": DEFAULT_BOARD[family]})
    return out
