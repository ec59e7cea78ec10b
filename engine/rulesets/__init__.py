"""Rules as data: boards, tile sets and the per-family policies of each ruleset."""

from wordarena.engine.rulesets.catalog import (
    FAMILIES,
    LANGUAGES,
    get_ruleset,
    list_rulesets,
    load_tileset,
    parse_ruleset_id,
)
from wordarena.engine.rulesets.layout import BoardLayout, Square, board_ids, load_layout
from wordarena.engine.rulesets.model import (
    Bingo,
    ExchangeRule,
    FirstPlay,
    OutRule,
    Ruleset,
    WordCheck,
    WordFactor,
    ZeroTurnRule,
)

__all__ = [
    "FAMILIES", "LANGUAGES", "Bingo", "BoardLayout", "ExchangeRule", "FirstPlay", "OutRule",
    "Ruleset", "Square", "WordCheck", "WordFactor", "ZeroTurnRule", "board_ids", "get_ruleset",
    "list_rulesets", "load_layout", "load_tileset", "parse_ruleset_id",
]
