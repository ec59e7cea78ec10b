"""What a refused play tells the player (engine/placement.py): the rule and the text, written here
by hand, for each way a placement can be wrong. The match server sends both in RuleViolation."""

from __future__ import annotations

import pytest

from wordarena.engine.board import with_tiles
from wordarena.engine.errors import InputError, Rule, RuleError
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
    # The same gaps with the tiles sent last first: the line is walked back from the first sent.
    (CAT, [Placement(6, 7, "T"), Placement(6, 5, "A")], Rule.GAP, "the play leaves a gap at G7"),
    (CAT, [Placement(9, 7, "T"), Placement(6, 7, "A")], Rule.GAP, "the play leaves a gap at H9"),
    (CAT, [Placement(6, 5, "A"), Placement(5, 6, "T")], Rule.NOT_IN_LINE,
     "all tiles of a play must lie in one row or column (read through portals)"),
    (CAT, [Placement(2, 2, "A"), Placement(2, 3, "T")], Rule.NOT_CONNECTED,
     "the play must connect to the tiles on the board"),
    (EMPTY, [Placement(0, 0, "A"), Placement(0, 1, "T")], Rule.FIRST_MOVE_OFF_START,
     "the first word must cover the start square H8"),
])
def test_a_refused_placement_names_its_rule_in_plain_words(cells, placements, rule, text) -> None:
    with pytest.raises(RuleError) as err:
        check_placement(SCRABBLE, cells, placements, 0)
    assert err.value.rule is rule and str(err.value) == text


def test_refusals_for_the_square_or_the_tile_name_them() -> None:
    fortress = get_ruleset("warofwords", "en", "warofwords-fortress")
    cells = (None,) * len(fortress.board.squares)
    with pytest.raises(RuleError) as err:
        check_placement(fortress, cells, [Placement(0, 0, "A")], 0)
    assert err.value.rule is Rule.SQUARE_BLOCKED and str(err.value) == "A1 is titanium"
    with pytest.raises(RuleError) as err:
        check_placement(SCRABBLE, CAT, [Placement(6, 7, "*")], 0)
    assert err.value.rule is Rule.LETTER_NOT_IN_SET and str(err.value) == "Scrabble has no wildcard tiles"
    with pytest.raises(RuleError) as err:
        check_placement(SCRABBLE, CAT, [Placement(6, 7, "1")], 0)
    assert err.value.rule is Rule.LETTER_NOT_IN_SET
    assert str(err.value) == "'1' is not a letter of the scrabble-en set"
    with pytest.raises(RuleError) as err:
        check_placement(SCRABBLE, CAT, [Placement(6, 7, "1", True)], 0)
    assert err.value.rule is Rule.BAD_BLANK and str(err.value) == "'1' is not a letter of the scrabble-en set"


@pytest.mark.parametrize(("family", "placements", "rule", "text"), [
    ("wordtiles", [Placement(7, 7, "A")], Rule.FIRST_MOVE_TOO_SHORT,
     "the first word must have at least 2 letters"),
    ("warofwords", [Placement(0, 1, "A"), Placement(0, 2, "T")], Rule.NOT_CONNECTED,
     "a word must connect to a letter on the board or cover a Star or Water"),
])
def test_the_families_first_play_refusals_in_plain_words(family, placements, rule, text) -> None:
    ruleset = get_ruleset(family)
    with pytest.raises(RuleError) as err:
        check_placement(ruleset, (None,) * len(ruleset.board.squares), placements, 0)
    assert err.value.rule is rule and str(err.value) == text


def test_a_malformed_placement_is_an_input_error_naming_the_field() -> None:
    with pytest.raises(InputError) as err:
        check_placement(SCRABBLE, CAT, [Placement("7", 7, "A")], 0)  # type: ignore[arg-type]
    assert err.value.where == "placement"
    assert err.value.detail == ("a placement is (row: int, col: int, letter: str), "
                                "not Placement(row='7', col=7, letter='A', blank=False, facing='')")


def test_tiles_not_on_the_rack_are_named() -> None:
    with pytest.raises(RuleError) as err:
        check_tokens_on_rack(["A", "B", "C"], ["A", "A", "Q", "B"])
    assert err.value.rule is Rule.TILES_NOT_ON_RACK and str(err.value) == "tiles not on your rack: AQ"
    check_tokens_on_rack(["A", "A"], ["A", "A"])  # repeats on the rack are counted
