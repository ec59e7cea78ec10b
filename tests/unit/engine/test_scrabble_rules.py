"""The standard Scrabble rules the engine plays (family ``scrabble``), as tournament records
(GCG) count them: centre star is a DW, bingo 50, exchanges need 7 tiles in the bag, six
scoreless turns end the game, the player who goes out gains twice the others' racks.

Scrabble values: A E I O R S T 1; D G 2; B C M P 3; F H V W Y 4; K 5; J X 8; Q Z 10.
"""

from __future__ import annotations

import pytest
from engine_helpers import move, new_game, play, refused, score_of

from wordarena.engine.errors import InputError, Rule
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Exchange, Pass, Play, Resign, apply, start_game

LEX = {"CAT", "CATS", "AT", "TA", "AC", "RETAINS", "ZA", "QI"}


def scrabble(players=2, **kw):
    kw.setdefault("lexicon", LEX)
    return new_game("scrabble", players, **kw)


RACKS = ["CATSEQZ", "RETAINS", "ABDEFGH", "IJKLMNO"]


def test_scrabble_first_play_covers_the_centre_double_word():
    """The first word covers the centre star, a double-word square: CAT = (3 + 1 + 1) x 2."""
    state = scrabble(racks=RACKS[:2])
    refused(state, Play(0, move("8A", "CAT")), Rule.FIRST_MOVE_OFF_START)
    refused(state, Play(0, move("8H", "C")), Rule.NO_WORD)
    assert score_of(state, "8G", "CAT") == 10


def test_scrabble_bingo_is_50():
    """Using all seven tiles earns 50: RETAINS from 8H (DW), I on L8 (DL): (7 + 1) x 2 + 50."""
    state = scrabble(racks=[RACKS[1], RACKS[0]])
    state, events = play(state, 0, "8H", "RETAINS")
    assert events[0].data["breakdown"]["bingo"] == 50
    assert state.scores[0] == 8 * 2 + 50


def test_scrabble_blank_scores_zero():
    state = scrabble(racks=["?ATSEQZ", RACKS[1]])
    assert score_of(state, "8G", "cAT") == 4


def test_scrabble_exchange_needs_seven_tiles_in_the_bag():
    """Tournament rule: no exchange with fewer than seven tiles in the bag; exchanges unlimited."""
    state = scrabble(racks=RACKS[:2], bag="ABCDEF")
    refused(state, Exchange(0, ("Q",)), Rule.EXCHANGE_BAG_TOO_SMALL)
    state = scrabble(racks=RACKS[:2], bag="ABCDEFG")
    for _ in range(2):
        state = apply(state, Exchange(0, ("Q",) if "Q" in state.racks[0] else (state.racks[0][0],)))[0]
        state = apply(state, Exchange(1, (state.racks[1][0],)))[0]
    assert state.exchanges == (2, 2) and not state.over


def test_scrabble_six_scoreless_turns_end_the_game():
    """Six consecutive scoreless turns (passes, exchanges) end the game; each rack is deducted."""
    state = scrabble(racks=["QZ", "AE"], tiles=[("8G", "CAT")], scores=[40, 10])
    for k in range(6):
        assert not state.over
        state = apply(state, Pass(k % 2))[0]
    assert state.over and state.result.reason == "zero-turns"
    assert state.result.adjustments == (-20, -2)


def test_scrabble_going_out_earns_twice_the_other_racks():
    """The player who goes out adds twice the value of the tiles left on the other racks (the GCG
    convention `(RACK) +2x`); the others are not deducted."""
    state = scrabble(3, racks=["S", "QZ", "AE"], tiles=[("8G", "CAT")], bag="",
                     scores=[0, 50, 10])
    state, _ = play(state, 0, "8G", "...S")
    assert state.result.adjustments == (44, 0, 0)
    assert state.result.scores == (6 + 44, 50, 10)


def test_scrabble_two_to_four_players():
    for n in (2, 3, 4):
        start_game(get_ruleset("scrabble"), n, 1, None, False)
    with pytest.raises(InputError):
        start_game(get_ruleset("scrabble"), 5, 1, None, False)


def test_scrabble_resignation_ends_a_two_player_game():
    state = scrabble(racks=RACKS[:2], scores=[0, 100])
    state, _ = apply(state, Resign(1))
    assert state.result.winners == (0,)


def test_scrabble_overtime_costs_ten_points_per_started_minute_at_the_end():
    # Six passes end the game; seat 0 reported 61 s over its clock (two started minutes), seat 1
    # 60 s (one): the penalties come off the final scores, which decide the winner.
    state = scrabble(racks=RACKS[:2], scores=[30, 15])
    for turn in range(6):
        state, events = apply(state, Pass(turn % 2), overtime=[61.0, 60.0])
    assert state.result.overtime_penalties == (-20, -10)
    over = events[-1].data
    assert over["overtime_penalties"] == [-20, -10]
    assert over["scores"] == [30 + over["adjustments"][0] - 20, 15 + over["adjustments"][1] - 10]


def test_scrabble_overtime_penalty_also_counts_when_the_game_ends_by_resignation():
    state = scrabble(racks=RACKS[:2], scores=[30, 15])
    state, _ = apply(state, Resign(1), overtime=[119.0, 0.0])
    assert state.result.scores == (10, 15) and state.result.winners == (0,)


def test_overtime_data_must_be_one_non_negative_number_per_seat():
    state = scrabble(racks=RACKS[:2])
    for bad in ([1.0], [1.0, -1.0], ["x", 0]):
        with pytest.raises(InputError) as ei:
            apply(state, Pass(0), overtime=bad)
        assert ei.value.where == "overtime"
