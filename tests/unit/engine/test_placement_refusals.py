"""What a refused play tells the player (engine/placement.py): the rule and the text, written here
by hand, for each way a placement can be wrong. The match server sends both in RuleViolation."""

from __future__ import annotations

import pytest

from wordarena.engine.board import with_tiles
from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.placement import Placement, check_placement, check_tokens_on_rack
from wordarena.engine.tiles import Tile

SCRABBLE = get_ruleset("scrabble")
EMPTY = (None,) * (15 * 15)
CAT = with_tiles(EMPTY, ((7 * 15 + 7, Tile("C", False, 0)), (7 * 15 + 8, Tile("A", False, 0)),
                         (7 * 15 + 9, Tile("T", False, 0))))  # CAT across from 8H


@pytest.mark.parametrize(("cells", "placements", "rule", "text"), [
    (CAT, [], Rule.NO_TILES, "a play must place at least one tile"),
    (CAT, [Placement(6, 7, "A"), Placement(6, 7, "B")], Rule.DUPLICATE_SQUARE,
     "two tiles on the same square"),
    (CAT, [Placement(7, 7, "X")], Rule.SQUARE_OCCUPIED, "H8 already holds a tile"),
    (CAT, [Placement(15, 0, "A")], Rule.OFF_BOARD, "(15, 0) is off the board"),
    (CAT, [Placement(6, 5, "A"), Placement(6, 7, "T")], Rule.GAP, "the play leaves a gap at G7"),
    (CAT, [Placement(6, 5, "A"), Placement(6, 6, "T"), Placement(6, 9, "S")], Rule.GAP,
     "the play leaves a gap at H7"),
    (CAT, [Placement(2, 2, "A"), Placement(2, 3, "T")], Rule.NOT_CONNECTED,
     "the play must connect to the tiles on the board"),
    (EMPTY, [Placement(0, 0, "A"), Placement(0, 1, "T")], Rule.FIRST_MOVE_OFF_START,
     "the first word must cover the start square H8"),
])
def test_a_refused_placement_names_its_rule_in_plain_words(cells, placements, rule, text) -> None:
    with pytest.raises(RuleError) as err:
        check_placement(SCRABBLE, cells, placements, 0)
    assert err.value.rule is rule and str(err.value) == text


def test_tiles_not_on_the_rack_are_named() -> None:
    with pytest.raises(RuleError) as err:
        check_tokens_on_rack(["A", "B", "C"], ["A", "A", "Q", "B"])
    assert err.value.rule is Rule.TILES_NOT_ON_RACK and str(err.value) == "tiles not on your rack: AQ"
    check_tokens_on_rack(["A", "A"], ["A", "A"])  # repeats on the rack are counted
