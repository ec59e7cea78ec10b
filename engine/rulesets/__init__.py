"""Rules as data: boards, tile sets and the per-family policies of each ruleset.

* ``model``    ``Ruleset``: everything that makes one game differ from another, as data and named
  policies (``Bingo``, ``ExchangeRule``, ``ClockRule`` …)
* ``catalog``  the shipped rulesets: four families, each a few policies over shared data; tile sets
* ``layout``   board layouts: the static properties of every square (premiums and terrain)

A playable ruleset (data and the family's turn hooks) comes from
``wordarena.engine.families.get_ruleset``, which sits above the game loop and the families.
"""

from wordarena.engine.rulesets.catalog import (
    FAMILIES,
    LANGUAGES,
    list_rulesets,
    load_tileset,
    ruleset_fields,
    split_ruleset_id,
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
    "Ruleset", "Square", "WordCheck", "WordFactor", "ZeroTurnRule", "board_ids",
    "list_rulesets", "load_layout", "load_tileset", "ruleset_fields", "split_ruleset_id",
]
