"""Plays that reach the last row or the last column read their words to the edge and stop there
(engine/placement.py's ``next_square`` at the board's bottom and right edges). A defect here
shows the player a wrong word, or an internal error instead of the play."""

from __future__ import annotations

from wordarena.engine.board import with_tiles
from wordarena.engine.families import get_ruleset
from wordarena.engine.placement import Placement, check_placement, word_text
from wordarena.engine.tiles import Tile

SCRABBLE = get_ruleset("scrabble")
EMPTY = (None,) * (15 * 15)


def _down(col: int, first_row: int, letters: str) -> tuple:
    return with_tiles(EMPTY, tuple(((first_row + k) * 15 + col, Tile(ch, False, 0))
                                   for k, ch in enumerate(letters)))


def test_a_word_down_column_a_ending_on_a15_is_read_to_the_edge() -> None:
    cells = _down(0, 11, "CAT")  # A12 A13 A14
    play = check_placement(SCRABBLE, cells, [Placement(14, 0, "S")], 0)  # S on A15
    after = with_tiles(cells, play.placed)
    (word,) = play.words
    assert not word.across and word_text(after, word) == "CATS"
    assert word.squares == (11 * 15, 12 * 15, 13 * 15, 14 * 15) and word.new == (False,) * 3 + (True,)


def test_a_word_down_column_a_from_a15_upward_and_across_row_15() -> None:
    cells = _down(0, 12, "DO")  # A13 A14
    # G on A15 makes DOG down; A15..C15 across makes GAS: the main word runs across row 15.
    play = check_placement(SCRABBLE, cells, [Placement(14, 0, "G"), Placement(14, 1, "A"),
                                             Placement(14, 2, "S")], 0)
    after = with_tiles(cells, play.placed)
    assert play.across
    assert [word_text(after, w) for w in play.words] == ["GAS", "DOG"]


def test_a_word_down_the_last_column_ending_on_o15() -> None:
    cells = _down(14, 11, "CAT")  # O12 O13 O14
    play = check_placement(SCRABBLE, cells, [Placement(14, 14, "S")], 0)
    after = with_tiles(cells, play.placed)
    assert [word_text(after, w) for w in play.words] == ["CATS"]
