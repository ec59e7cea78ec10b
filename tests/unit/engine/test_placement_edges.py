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


def test_a_word_across_from_column_a_does_not_take_the_row_above_s_last_letter() -> None:
    # A tile on O4 (the row above's last square) is not before A5 on the line across.
    cells = with_tiles(EMPTY, ((3 * 15 + 14, Tile("X", False, 0)), (4 * 15 + 1, Tile("T", False, 0))))
    play = check_placement(SCRABBLE, cells, [Placement(4, 0, "A")], 0)  # A on A5: AT across
    after = with_tiles(cells, play.placed)
    assert [word_text(after, w) for w in play.words] == ["AT"]
    assert play.words[0].squares == (4 * 15, 4 * 15 + 1)


def test_a_word_is_read_back_through_a_portal_to_the_partner_s_entry() -> None:
    # Portal pair P = D8, Q = K8 (War of Words): along row 8 the square after P is L8, so the
    # square before L8 is P. C on P, then A T played on L8 M8: the word is CAT, not AT.
    p, q = 7 * 15 + 3, 7 * 15 + 10
    links = {p: q, q: p}
    cells = with_tiles(EMPTY, ((p, Tile("C", False, 0)),))
    play = check_placement(SCRABBLE, cells, [Placement(7, 11, "A"), Placement(7, 12, "T")], 0, links)
    after = with_tiles(cells, play.placed)
    (word,) = play.words
    assert word.across and word_text(after, word) == "CAT"
    assert word.squares == (p, q + 1, q + 2) and word.new == (False, True, True)


def test_a_word_across_ending_on_column_o_does_not_take_the_next_row_s_first_letter() -> None:
    # A tile on A6 (the next row's first square) is not after O5 on the line across.
    cells = with_tiles(EMPTY, ((5 * 15, Tile("X", False, 0)), (4 * 15 + 13, Tile("A", False, 0))))
    play = check_placement(SCRABBLE, cells, [Placement(4, 14, "T")], 0)  # T on O5: AT across
    after = with_tiles(cells, play.placed)
    assert [word_text(after, w) for w in play.words] == ["AT"]
    assert play.words[0].squares == (4 * 15 + 13, 4 * 15 + 14)


def test_a_word_down_from_a1_is_read_from_the_top_row() -> None:
    cells = with_tiles(EMPTY, ((0, Tile("A", False, 0)),))  # A on A1
    play = check_placement(SCRABBLE, cells, [Placement(1, 0, "T")], 0)  # T on A2: AT down
    after = with_tiles(cells, play.placed)
    (word,) = play.words
    assert not word.across and word_text(after, word) == "AT" and word.squares == (0, 15)


def test_a_word_is_read_back_down_through_a_portal_to_the_partner_s_entry() -> None:
    # Portal pair P = D4, Q = K9: down column D the square after P is K10 (below Q), so the
    # square above K10 is P. C on P, then A T played on K10 K11: the word is CAT, down.
    p, q = 3 * 15 + 3, 8 * 15 + 10
    links = {p: q, q: p}
    cells = with_tiles(EMPTY, ((p, Tile("C", False, 0)),))
    play = check_placement(SCRABBLE, cells, [Placement(9, 10, "A"), Placement(10, 10, "T")], 0, links)
    after = with_tiles(cells, play.placed)
    (word,) = play.words
    assert not word.across and word_text(after, word) == "CAT"
    assert word.squares == (p, q + 15, q + 30)


def test_tiles_on_two_rows_joined_through_a_portal_play_across() -> None:
    # Portal pair P = F3, Q = D11: across row 3 the square after P is E11. C lies on E3; A on
    # P and T on E11 are two rows apart, yet one line across: the word is CAT.
    p, q = 2 * 15 + 5, 10 * 15 + 3
    links = {p: q, q: p}
    cells = with_tiles(EMPTY, ((2 * 15 + 4, Tile("C", False, 0)),))
    play = check_placement(SCRABBLE, cells, [Placement(2, 5, "A"), Placement(10, 4, "T")], 0, links)
    after = with_tiles(cells, play.placed)
    assert play.across
    assert word_text(after, play.words[0]) == "CAT"
    assert play.words[0].squares == (2 * 15 + 4, p, q + 1)

