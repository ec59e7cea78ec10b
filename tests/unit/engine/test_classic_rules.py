"""Every board/tile/turn/scoring/end sentence of words-with-friends-classic.txt (family ``classic``).

Classic English values used below: A1 B4 C4 D2 E1 G3 H3 I1 N2 O1 Q10 R1 S1 T1 X8 Z10; blank 0.
Classic board squares used: H8 star (no bonus); D8, L8 DW; D1, L1 TW; G1, I1 TL; E7 DL; F6 TL.
"""

from __future__ import annotations

import pytest
from engine_helpers import board_word, move, new_game, play, refused, score_of

from wordarena.engine.errors import Rule
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Exchange, Pass, Play, Resign, apply
from wordarena.engine.game.state import Seat

LEX = {"CAT", "CATS", "AT", "TA", "AC", "BAT", "BO", "DOG", "BOX", "AX", "HEART", "QI", "ZA", "TAE",
       "RETAINS", "HEARTS", "AE", "OE", "AA", "GO", "SAT", "TAT", "EAT", "TEA", "QAT", "ZAX"}


def classic(**kw):
    kw.setdefault("lexicon", LEX)
    return new_game("classic", **kw)


# --- Tile Placement --------------------------------------------------------------------------


def test_classic_first_word_must_cover_the_centre_star():
    """"The first word must be placed so that 1 of the tiles is on the star in the center of the
    board." """
    state = classic(racks=["CATSEOX", "QIZAEOT"])
    refused(state, Play(0, move("8A", "CAT")), Rule.FIRST_MOVE_OFF_START)
    refused(state, Play(0, move("H9", "CAT")), Rule.FIRST_MOVE_OFF_START)
    state, events = play(state, 0, "8F", "CAT")
    assert board_word(state, "8F", 3) == "CAT"
    assert events[0].type == "play"


def test_classic_later_words_must_share_a_tile_with_the_board():
    """"Every word following that must be placed so that at least 1 tile is shared from an
    existing word on the board." """
    state = classic(racks=["CATSEOX", "QIZAEOT"], tiles=[("8G", "CAT")])
    refused(state, Play(0, move("2B", "AX")), Rule.NOT_CONNECTED)
    refused(state, Play(0, move("7F", "E")), Rule.NOT_CONNECTED)  # diagonal only
    state, _ = play(state, 0, "8G", "...S")
    assert board_word(state, "8G", 4) == "CATS"


def test_classic_tiles_in_one_line_only():
    """"Tiles can only be placed in the same line vertically or horizontally each turn." """
    state = classic(racks=["CATSEOX", "QIZAEOT"])
    bent = move("8G", "CA") + move("I9", "T")
    refused(state, Play(0, bent), Rule.NOT_IN_LINE)
    refused(state, Play(0, move("8G", "C") + move("8I", "T")), Rule.GAP)


def test_classic_one_play_may_form_several_words():
    """"Tiles can be placed so that multiple new words are formed simultaneously using
    neighboring letters." AT across on top of CA makes AC and TA down: 2 + 5 + 2."""
    state = classic(racks=["ATSEOXB", "QIZAEOT"], tiles=[("8G", "CAT")])
    state, events = play(state, 0, "7G", "AT")
    assert events[0].data["words"] == ["AT", "AC", "TA"]
    assert state.scores == (9, 0)


def test_classic_a_play_making_an_illegal_neighbouring_word_is_refused():
    """"Words cannot be placed if they create an illegal word using neighboring letters."
    (stated under Tile Placement and again under Scoring)."""
    state = classic(racks=["ATZEOXB", "QIEAEOT"], tiles=[("8G", "CAT")])
    lexicon = {"CAT", "AT", "AC"}  # TA is missing
    state = state.evolve(lexicon=lexicon)
    err = refused(state, Play(0, move("7G", "AT")), Rule.WORD_NOT_IN_LEXICON)
    assert err.words == ("TA",)
    err = refused(state, Play(0, move("7G", "ZA")), Rule.WORD_NOT_IN_LEXICON)
    assert set(err.words) == {"ZA", "ZC", "AA"}


def test_classic_swap_uses_the_turn():
    """"Swap tiles: A player may use their turn to swap tile on their rack with new ones from the
    Tile Bag, however they will not be allowed to play any words on the board until their next
    turn." """
    state = classic(racks=["CATSEOX", "QIZAEOT"])
    bag_before = len(state.bag)
    state, events = apply(state, Exchange(0, ("X", "O")))
    assert events[0].type == "exchanged"
    assert len(state.racks[0]) == 7 and len(state.bag) == bag_before
    assert state.racks[0][:5] == tuple("CATSE")
    assert state.to_move == 1
    refused(state, Play(0, move("8G", "CAT")), Rule.NOT_YOUR_TURN)


def test_classic_pass_uses_the_turn():
    """"Pass your turn: A player may pass their turn, but in doing so will not be allowed to play
    any words on the board until their next turn." """
    state = classic(racks=["CATSEOX", "QIZAEOT"])
    state, events = apply(state, Pass(0))
    assert events[0].type == "passed"
    assert state.to_move == 1 and state.racks[0] == tuple("CATSEOX")
    refused(state, Play(0, move("8G", "CAT")), Rule.NOT_YOUR_TURN)


@pytest.mark.parametrize("who", [0, 1])
def test_classic_resign_any_time_counts_as_a_loss(who):
    """"Resign: A player may resign anytime, but it counts as a loss." Even out of turn, even
    when ahead: the other player wins."""
    state = classic(racks=["CATSEOX", "QIZAEOT"], scores=[50, 10])
    state, events = apply(state, Resign(who))
    assert state.over
    assert state.result.winners == (1 - who,)
    assert state.seats[who] is Seat.RESIGNED
    assert events[-1].type == "game-over"


def test_classic_blank_stands_for_any_letter_and_scores_nothing():
    """"Blank Tiles can be used as a substitute for any letter, but they have no point value" """
    state = classic(racks=["?ATSEOX", "QIZAEOT"])
    assert score_of(state, "8G", "cAT") == 2  # C (blank) 0 + A 1 + T 1; the star has no bonus
    state, _ = play(state, 0, "8G", "cAT")
    tile = state.cells[state.ruleset.board.index(7, 6)]
    assert tile.letter == "C" and tile.blank


def test_classic_blank_may_not_stand_for_a_letter_the_set_lacks():
    """Blanks substitute letters of the game's language only (Spanish: no K or W via a blank)."""
    state = classic(racks=["?ATSEOX", "QIZAEOT"])
    refused(state, Play(0, move("8G", "ñAT")), Rule.BAD_BLANK)
    es = get_ruleset("classic", "es")
    refused(classic(racks=["?ATSEOX", "QIZAEOT"], language="es"), Play(0, move("8G", "kAT")), Rule.BAD_BLANK)
    assert not es.tiles.has_letter("K") and not es.tiles.has_letter("W")
    assert es.tiles.has_letter("Ñ")


# --- Scoring -------------------------------------------------------------------------------


def test_classic_dl_and_tl_count_only_for_tiles_played_this_turn():
    """"Double the value of any tiles that were played this turn on a DL space, and triple the
    value of any tile that was played on a TL space this turn. Do not double the value of tiles
    on DL and TL spaces for tiles that were played on previous rounds." """
    # D on E7 (DL): 2x2 + O 1 + G 3 = 8
    state = classic(racks=["DGBXATS", "QIZAEOT"], tiles=[("7F", "O")])
    assert score_of(state, "7E", "D.G") == 8
    # B on F6 (TL): 4x3 + O 1 + X 8 = 21
    state = classic(racks=["DGBXATS", "QIZAEOT"], tiles=[("6G", "O")])
    assert score_of(state, "6F", "B.X") == 21
    # the X already on F6 (TL) is not tripled again: A 1 + X 8 = 9
    state = classic(racks=["DGBATSE", "QIZAEOT"], tiles=[("6F", "X")])
    assert score_of(state, "6E", "A.") == 9


def test_classic_word_counts_every_letter_old_and_new():
    """"Add up the values of all letters in the word, even if some were played on a previous
    turn." CAT + S = 4 + 1 + 1 + 1."""
    state = classic(racks=["SDGBXAT", "QIZAEOT"], tiles=[("8G", "CAT")])
    assert score_of(state, "8G", "...S") == 7


def test_classic_dw_doubles_the_word():
    """"Double the value of the word if any tiles this turn were played on a DW space" —
    HEART from D8 (DW): (3+1+1+1+1) x 2."""
    state = classic(racks=["HEARTSO", "QIZAEOT"])
    assert score_of(state, "8D", "HEART") == 14


def test_classic_two_dw_squares_quadruple_the_word():
    """"(and double it again in the case where 2 DW spaces were played upon)" — nine 1-point
    letters from D8 to L8 covering both DWs: 9 x 4."""
    state = classic(racks=["AEIOETS", "QIZAEOT"], tiles=[("8G", "RST")])
    state = state.evolve(lexicon=None, check_words=False)
    assert score_of(state, "8D", "AEI...OET") == 36


def test_classic_tw_triples_and_two_tw_multiply_by_nine():
    """"Triple the value of the word if any tiles this turn were played on a TW space (and triple
    it again if 2 TW spaces were used)." Row 1: D1 and L1 are TW, G1 and I1 TL (old tiles)."""
    state = classic(racks=["AEIOETS", "QIZAEOT"], tiles=[("1G", "RST")])
    state = state.evolve(lexicon=None, check_words=False)
    assert score_of(state, "1D", "AEI...OET") == 81
    assert score_of(state, "1F", "A...") == 4  # F1 is plain, the TLs under RST are old
    assert score_of(state, "1D", "AEI...") == 18  # D1 TW: 6 x 3


def test_classic_premium_word_squares_are_not_reused():
    """"Do not multiply words if tiles on DW or TW spaces were used from a previous turn." HEART
    lies on D8 (DW); HEARTS scores its letters once, without the DW."""
    state = classic(racks=["SDGBXAT", "QIZAEOT"], tiles=[("8D", "HEART")])
    assert score_of(state, "8D", ".....S") == 8


def test_classic_each_word_scored_with_its_bonuses_and_summed():
    """"It is possible to create multiple words with the same play. In this case, score each new
    word separately, including bonuses, and sum all of the new words together." B on D8 (DW)
    makes BAT down (6 x 2) and BO across (5 x 2)."""
    state = classic(racks=["BDGXATS", "QIZAEOT"], tiles=[("D9", "AT"), ("8E", "O")])
    state, events = play(state, 0, "8D", "B")
    words = {w["word"]: w["score"] for w in events[0].data["breakdown"]["words"]}
    assert words == {"BAT": 12, "BO": 10}
    assert state.scores[0] == 22


def test_classic_bingo_35_for_all_seven_tiles():
    """"35 bonus points are awarded whenever a player uses all 7 tiles on their rack in a single
    turn." RETAINS from B8: (1+1+1+1+1+2+1) x 2 (D8) + 35."""
    state = classic(racks=["RETAINS", "QIZAEOT"])
    state, events = play(state, 0, "8B", "RETAINS")
    assert events[0].data["breakdown"]["bingo"] == 35
    assert state.scores[0] == 16 + 35
    assert get_ruleset("classic").rack_size == 7


# --- End Game ------------------------------------------------------------------------------


def test_classic_game_ends_when_a_rack_empties_with_the_bag_empty():
    """"The game ends when one player plays every tile in his rack, and there are no tiles
    remaining to draw from." """
    state = classic(racks=["S", "QZ"], tiles=[("8G", "CAT")], bag="")
    state, _events = play(state, 0, "8G", "...S")
    assert state.over and state.result.reason == "out"
    # with tiles left in the bag the same play refills the rack and the game goes on
    state2 = classic(racks=["S", "QZ"], tiles=[("8G", "CAT")], bag="EE")
    state2, _ = play(state2, 0, "8G", "...S")
    assert not state2.over and state2.racks[0] == ("E", "E")


def test_classic_last_tile_takes_the_opponents_rack_value():
    """"After the last tile is played, the opposing player will lose points equal to the sum of
    the value of his remaining tiles. This amount is then awarded to the player who placed the
    last tile." """
    state = classic(racks=["S", "QZ"], tiles=[("8G", "CAT")], bag="", scores=[100, 120])
    state, _ = play(state, 0, "8G", "...S")
    assert state.result.adjustments == (20, -20)
    assert state.result.scores == (100 + 7 + 20, 100)
    assert state.result.winners == (0,)


def test_classic_three_scoreless_turns_end_the_game():
    """"The game could also end if three successive turns have occurred with no scoring and as
    long as the score is not zero-zero." Passes and swaps are scoreless turns."""
    state = classic(racks=["CATSEOX", "QIZAEOT"], tiles=[("8G", "CAT")], scores=[10, 4])
    state, _ = apply(state, Pass(0))
    state, _ = apply(state, Exchange(1, ("Q",)))
    assert not state.over
    state, _ = apply(state, Pass(0))
    assert state.over and state.result.reason == "zero-turns"


def test_classic_a_scoring_play_breaks_the_scoreless_run():
    """"three successive turns" — a scoring turn in between restarts the count."""
    state = classic(racks=["CATSEOX", "QIZAEOT"], tiles=[("8G", "CAT")], scores=[10, 4])
    state = apply(state, Pass(0))[0]
    state = apply(state, Pass(1))[0]
    state, _ = play(state, 0, "8G", "...S")
    state = apply(state, Pass(1))[0]
    state = apply(state, Pass(0))[0]
    assert not state.over
    state = apply(state, Pass(1))[0]
    assert state.over


def test_classic_zero_zero_game_goes_on_after_three_scoreless_turns():
    """"... as long as the score is not zero-zero": at 0-0, three scoreless turns do not end the
    game. wordarena ends a 0-0 game after six scoreless turns (docs/rules.md)."""
    state = classic(racks=["CATSEOX", "QIZAEOT"])
    for k in range(5):
        state = apply(state, Pass(k % 2))[0]
        assert not state.over
    state = apply(state, Pass(1))[0]
    assert state.over and state.result.reason == "zero-turns"
    assert state.result.scores == (-17, -25)  # CATSEOX 17, QIZAEOT 25 deducted
    assert state.result.winners == (0,)


def test_classic_scoreless_end_deducts_each_rack():
    """Scoreless end (the text is silent): each player loses their own rack value and nobody
    gains it (wordarena's choice, docs/rules.md)."""
    state = classic(racks=["QZ", "AE"], tiles=[("8G", "CAT")], scores=[30, 10])
    for seat in (0, 1, 0):
        state = apply(state, Pass(seat))[0]
    assert state.result.adjustments == (-20, -2)
    assert state.result.scores == (10, 8)
    assert state.result.winners == (0,)


def test_classic_is_two_players():
    """Classic Words With Friends is a game for two: a third seat is refused."""
    from wordarena.engine.errors import InputError
    from wordarena.engine.game import start_game

    with pytest.raises(InputError):
        start_game(get_ruleset("classic"), 3, 1, None, False)


@pytest.mark.parametrize(("language", "absent"), [("es", "KW"), ("it", "JKWXY"), ("pt", "KWY")])
def test_classic_absent_letters_cannot_be_played_even_with_a_blank(language, absent):
    """Spanish: "K and W are absent and they cannot be used as blank tiles." Italian: "The letters
    J, K, W, X and Y are absent and cannot be used ingame, or replaced by a blank tile."
    Portuguese: "K, W and Y are absent and can not be used to replace blank tiles." """
    state = new_game("classic", language=language, check=False, racks=["?AEOSRT", "AEOSRTI"])
    for letter in absent:
        refused(state, Play(0, move("8G", letter.lower() + "AS")), Rule.BAD_BLANK)
        refused(state, Play(0, move("8G", letter + "AS")), Rule.LETTER_NOT_IN_SET)
    _, events = play(state, 0, "8G", "cAS")
    assert events[0].data["words"] == ["CAS"]


def test_classic_spanish_n_tilde_is_a_tile_and_a_blank_may_be_it():
    """"All diacritics are ignored but Ñ is accepted." """
    state = new_game("classic", language="es", check=False, racks=["?AEOSRT", "AEOSRTI"])
    _, events = play(state, 0, "8G", "AñO")
    assert events[0].data["words"] == ["AÑO"]
