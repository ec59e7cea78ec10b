"""The notation players type and records keep (engine/notation.py), with every expected value
written here by hand: the squares a word lays tiles on, the tiles it plays through, the action
tiles of War of Words, and each refusal's text and field."""

from __future__ import annotations

import pytest

from wordarena.engine.board import with_tiles
from wordarena.engine.errors import InputError
from wordarena.engine.families import get_ruleset
from wordarena.engine.notation import (
    placed_notation,
    placement_from_action,
    placements_from_word,
    play_notation,
    word_chars,
)
from wordarena.engine.placement import Placement
from wordarena.engine.tiles import Tile

LAYOUT = get_ruleset("scrabble").board
EMPTY = (None,) * (LAYOUT.rows * LAYOUT.cols)
# CAT across from 8H: C on H8, A on I8, T on J8.
CAT = with_tiles(EMPTY, ((7 * 15 + 7, Tile("C", False, 0)), (7 * 15 + 8, Tile("A", False, 0)),
                        (7 * 15 + 9, Tile("T", False, 0))))


def test_word_chars_marks_dots_and_parenthesised_letters_as_played_through() -> None:
    assert list(word_chars("S(CA)T.")) == [("S", False), ("C", True), ("A", True), ("T", False),
                                           (".", True)]
    assert list(word_chars("ab")) == [("a", False), ("b", False)]


def test_a_word_lays_its_new_tiles_and_plays_through_the_old_ones() -> None:
    # SCATS across from 8G through CAT: S on G8 and K8; blanks are lower case.
    assert placements_from_word(LAYOUT, CAT, "8G", "S...s") == (
        Placement(7, 6, "S"), Placement(7, 10, "S", blank=True))
    assert placements_from_word(LAYOUT, CAT, "8G", "S(CAT)S") == (
        Placement(7, 6, "S"), Placement(7, 10, "S"))
    assert placements_from_word(LAYOUT, CAT, "8G", "SCATS") == (
        Placement(7, 6, "S"), Placement(7, 10, "S"))
    # Down from H7 through the C: A on H7, then C (old), then E on H9.
    assert placements_from_word(LAYOUT, CAT, "H7", "A.E") == (Placement(6, 7, "A"), Placement(8, 7, "E"))


@pytest.mark.parametrize(("position", "word", "message"), [
    ("8G", "", "the word is empty"),
    ("8M", "ZEBRAS", "'ZEBRAS' from 8M runs off the board"),
    ("8G", "SDOG", "H8 holds C, not D"),
    ("7A", "A.B", "'.' at B7 is played through, but the square is empty"),
    ("7A", "A(B)", "'B' at B7 is played through, but the square is empty"),
    ("7A", "A1", "'1' is not a letter"),
    ("8H", "CAT", "'CAT' at 8H places no new tile"),
])
def test_a_word_that_cannot_be_laid_is_refused_in_plain_words(position: str, word: str,
                                                               message: str) -> None:
    with pytest.raises(InputError) as err:
        placements_from_word(LAYOUT, CAT, position, word)
    assert err.value.detail == message and err.value.where == "word"


def test_notation_names_the_square_where_the_main_word_starts() -> None:
    s_at_g8 = (Placement(7, 6, "S"), Placement(7, 10, "S", blank=True))
    assert play_notation(LAYOUT, CAT, s_at_g8, across=True) == "8G S...s"
    assert play_notation(LAYOUT, CAT, (Placement(8, 7, "E"),), across=False) == "H8 .E"
    assert play_notation(LAYOUT, CAT, (), across=True) == ""
    placed = [[7 * 15 + 6, "S", False], [7 * 15 + 10, "S", True]]  # as engine events store a play
    assert placed_notation(LAYOUT, CAT, placed, True) == "8G S...s"


@pytest.mark.parametrize(("square", "action", "expected"), [
    ("H8", "@bomb", Placement(7, 7, "@bomb")),
    ("8H", "@BOMB", Placement(7, 7, "@bomb")),
    ("K3", "@3w", Placement(2, 10, "@3W")),
    ("H8", "@blaster:Right", Placement(7, 7, "@blaster", facing="right")),
    ("A1", "@blaster: up", Placement(0, 0, "@blaster", facing="up")),
])
def test_an_action_tile_is_written_as_its_square_and_token(square: str, action: str,
                                                          expected: Placement) -> None:
    layout = get_ruleset("warofwords").board
    assert placement_from_action(layout, square, action) == expected


@pytest.mark.parametrize(("action", "message"), [
    ("@dragon", "'@dragon' is not an action tile (e.g. @bomb, @3W, @blaster:right)"),
    ("@blaster", "say which way the blaster fires: @blaster:up, :down, :left or :right"),
    ("@blaster:sideways", "say which way the blaster fires: @blaster:up, :down, :left or :right"),
    ("@bomb:left", "only a Blaster has a facing, not @bomb"),
])
def test_a_wrong_action_tile_is_refused_in_plain_words(action: str, message: str) -> None:
    layout = get_ruleset("warofwords").board
    with pytest.raises(InputError) as err:
        placement_from_action(layout, "H8", action)
    assert err.value.detail == message and err.value.where == "action"

