"""Placement geometry shared by every family: squares, lines, gaps, connection, the words a play
forms, and malformed placements refused with the rule they break."""

from __future__ import annotations

from dataclasses import replace

import pytest
from engine_helpers import move, new_game, play, refused

from wordarena.engine.board import parse_position, with_tiles
from wordarena.engine.errors import InputError, Rule, RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Play, action_from_dict, apply
from wordarena.engine.placement import Placement, check_placement, word_text
from wordarena.engine.rulesets.layout import parse_layout

RACKS = ["CATSEOX", "QIZAEON"]


def game(family="classic", **kw):
    kw.setdefault("racks", RACKS)
    return new_game(family, check=False, **kw)


@pytest.mark.parametrize(("row", "col"), [(15, 7), (7, 15), (-1, 7), (7, -1), (99, 99)])
def test_off_board_is_refused(row, col):
    state = game()
    refused(state, Play(0, (Placement(7, 7, "C"), Placement(row, col, "A"))), Rule.OFF_BOARD)


def test_occupied_square_is_refused():
    state = game(tiles=[("8G", "CAT")])
    refused(state, Play(0, move("8I", "TS")), Rule.SQUARE_OCCUPIED)


def test_two_tiles_on_one_square_are_refused():
    state = game()
    refused(state, Play(0, (Placement(7, 7, "C"), Placement(7, 7, "A"))), Rule.DUPLICATE_SQUARE)


def test_blocked_terrain_takes_no_tile():
    """Scenery and Titanium squares cannot hold a letter."""
    board = parse_layout({"id": "t", "layout": ["..#..", "..S..", "..%..", ".....", "....."]})
    ruleset = replace(get_ruleset("warofwords"), board=board)
    cells = (None,) * 25
    for row in (0, 2):
        with pytest.raises(RuleError) as info:
            check_placement(ruleset, cells, (Placement(1, 2, "A"), Placement(row, 2, "T")), 0)
        assert info.value.rule is Rule.SQUARE_BLOCKED


def test_no_tiles_is_refused():
    refused(game(), Play(0, ()), Rule.NO_TILES)


@pytest.mark.parametrize("letter", ["1", "é", "a", "AB", "", "?", "Ñ", "*"])
def test_letter_not_in_the_set_is_refused(letter):
    """A letter the tile set lacks is refused as such — before the rack is even looked at."""
    state = game()
    refused(state, Play(0, (Placement(7, 7, letter), Placement(7, 8, "A"))), Rule.LETTER_NOT_IN_SET)


@pytest.mark.parametrize("letter", ["1", "é", "ñ", "AB", "?", "*"])
def test_blank_for_a_letter_not_in_the_set_is_refused(letter):
    state = game(racks=["?ATSEOX", RACKS[1]])
    refused(state, Play(0, (Placement(7, 7, letter, True), Placement(7, 8, "A"))),
            Rule.BAD_BLANK if letter != "*" else Rule.LETTER_NOT_IN_SET)


def test_wildcards_exist_only_in_war_of_words():
    state = game(racks=["CATSEOX", RACKS[1]])
    refused(state, Play(0, move("8G", "C*T")), Rule.LETTER_NOT_IN_SET)


def test_tiles_not_on_the_rack_are_refused_counting_repeats():
    state = game()
    err = refused(state, Play(0, move("8G", "CATTS")), Rule.TILES_NOT_ON_RACK)
    assert "T" in str(err)
    refused(state, Play(0, move("8G", "cAT")), Rule.TILES_NOT_ON_RACK)  # no blank on the rack
    refused(state, Play(0, move("8G", "QAT")), Rule.TILES_NOT_ON_RACK)


@pytest.mark.parametrize("bad", [
    {"kind": "play", "seat": 0, "placements": [["x", 7, "A", False]]},
    {"kind": "play", "seat": 0, "placements": [[7, 7, "A"]]},
    {"kind": "play", "seat": 0, "placements": "8H CAT"},
    {"kind": "play", "seat": 0},
    {"kind": "fly", "seat": 0},
    {"seat": 0},
    {"kind": "pass", "seat": "one"},
    {"kind": "exchange", "seat": 0, "tiles": 5},
])
def test_malformed_actions_are_input_errors(bad):
    with pytest.raises(InputError):
        action_from_dict(bad)


def test_placements_with_wrong_types_are_input_errors():
    state = game()
    for bad in (Placement("7", 7, "C"), Placement(7, 7.0, "C"), Placement(7, 7, None)):  # type: ignore[arg-type]
        with pytest.raises(InputError):
            apply(state, Play(0, (bad, Placement(7, 8, "A"))))


def test_single_tile_takes_the_direction_of_its_longer_word():
    state = game(tiles=[("8G", "CAT"), ("J7", "O")])
    state, events = play(state, 0, "8J", "S")
    assert events[0].data["across"] is True
    assert events[0].data["words"] == ["CATS", "OS"]
    state = game(tiles=[("8G", "CA"), ("J7", "AN")])
    state, events = play(state, 0, "J9", "E")
    assert events[0].data["across"] is False
    assert events[0].data["words"] == ["ANE"]


def test_main_word_first_then_cross_words_in_board_order():
    state = game(tiles=[("8G", "CAT")])
    state, events = play(state, 0, "7G", "AT")
    assert events[0].data["words"] == ["AT", "AC", "TA"]
    state = game(tiles=[("G8", "CAT")])
    state, events = play(state, 0, "H8", "OX")
    assert events[0].data["words"] == ["OX", "CO", "AX"]


def test_main_word_includes_old_letters_on_both_ends_and_between():
    state = game(tiles=[("8F", "A"), ("8H", "T"), ("8J", "E")])
    state, events = play(state, 0, "8E", "C.S.X.")
    assert events[0].data["words"] == ["CASTXE"]


def test_play_along_the_board_edge():
    state = game(tiles=[("1A", "CA")])
    state, events = play(state, 0, "1C", "T")
    assert events[0].data["words"] == ["CAT"]
    state = game(tiles=[("15N", "A")])
    state, events = play(state, 0, "15O", "T")
    assert events[0].data["words"] == ["AT"]


def test_row_words_do_not_wrap_round_the_board_edge():
    """A tile on the last column is not next to the first column of the following row."""
    state = game(tiles=[("8N", "A"), ("9A", "E")])
    state, events = play(state, 0, "8O", "T")
    assert events[0].data["words"] == ["AT"]


def test_check_placement_does_not_change_the_board():
    ruleset = get_ruleset("classic")
    cells = (None,) * 225
    geometry = check_placement(ruleset, cells, move("8G", "CAT"), 0)
    assert cells == (None,) * 225
    assert [i for i, _ in geometry.placed] == [112 - 1, 112, 112 + 1]
    after = with_tiles(cells, geometry.placed)
    assert word_text(after, geometry.words[0]) == "CAT"


@pytest.mark.parametrize(("text", "expected"), [("8H", (7, 7, True)), ("H8", (7, 7, False)),
                                                ("15o", (14, 14, True)), ("a1", (0, 0, False))])
def test_positions(text, expected):
    assert parse_position(text) == expected


@pytest.mark.parametrize("text", ["16A", "P1", "8", "HH", "", "0A"])
def test_bad_positions_are_input_errors(text):
    with pytest.raises(InputError):
        parse_position(text)
