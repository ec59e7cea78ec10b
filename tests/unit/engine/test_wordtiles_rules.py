"""Every board/tile/turn/scoring/end sentence of word-tiles.txt (family ``wordtiles``).

English wordtiles values: A E I L N O R S T U 1 (yellow); D G 2 (green); B C F H M P V W Y 3
(blue); J K Q X Z 5 (red); blank 0. Squares used: H8 centre red; F8, J8 blue; C8 yellow;
F3 word x2; A3 word x3; H3 yellow; D3 green.
"""

from __future__ import annotations

import pytest
from engine_helpers import accept, board_word, check, move, new_game, play, refused, score_of

from wordarena.engine.errors import InputError, Rule, RuleError
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, Exchange, Leave, Pass, Play, TimeOut, apply, start_game
from wordarena.engine.game.state import Seat

LEX = {"ZA", "AZ", "CAT", "CATS", "SCAT", "SCATS", "AT", "TA", "AC", "QI", "JO", "TO", "SAT",
       "RETAINS", "OX", "XI", "EH", "HE", "ITS", "SIT"}


def wordtiles(players=2, **kw):
    kw.setdefault("lexicon", LEX)
    return new_game("wordtiles", players, **kw)


RACKS = ["ZAQIJOS", "CATSEHX", "RETAINS", "OXEHLIT"]


# --- 2. Goal and language --------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_wordtiles_two_to_four_players(players):
    """"Word Tiles is a word game for two to four players." """
    state, _ = start_game(get_ruleset("wordtiles"), players, 1, None, False)
    assert len(state.racks) == players and all(len(r) == 7 for r in state.racks)


@pytest.mark.parametrize("players", [1, 5])
def test_wordtiles_refuses_other_player_counts(players):
    """"Two to four players build words on a 15 x 15 board." """
    with pytest.raises(InputError):
        start_game(get_ruleset("wordtiles"), players, 1, None, False)
    board = get_ruleset("wordtiles").board
    assert (board.rows, board.cols) == (15, 15)


def test_wordtiles_seven_letters_on_the_rack():
    """"You have seven letters on your rack" / "Each has up to seven letters on the rack." """
    assert get_ruleset("wordtiles").rack_size == 7


def test_wordtiles_language_decides_dictionary_and_tiles():
    """"The dictionary, the letter distribution and values depend on the game's shared language.
    An English room requires English words even from a player with a Polish interface." """
    en, pl = get_ruleset("wordtiles", "en"), get_ruleset("wordtiles", "pl")
    assert (en.lexicon, pl.lexicon) == ("en", "pl")
    assert en.tiles.has_letter("Q") and not pl.tiles.has_letter("Q")
    assert pl.tiles.has_letter("Ż") and not en.tiles.has_letter("Ż")
    # a play is checked against the room's lexicon, whoever makes it
    state = wordtiles(racks=RACKS[:2], lexicon={"ZA"})
    state = apply(state, Play(0, move("8G", "QI")))[0]
    state, events = check(state, 1)
    assert events[0].data["held"] is False and events[0].data["invalid_words"] == ["QI"]


# --- 3. First and later moves ----------------------------------------------------------------


def test_wordtiles_first_word_needs_two_letters_through_the_centre():
    """"The first word must have at least two letters and pass through the centre square." """
    state = wordtiles(racks=RACKS[:2])
    refused(state, Play(0, move("8H", "Z")), Rule.FIRST_MOVE_TOO_SHORT)
    refused(state, Play(0, move("8A", "ZA")), Rule.FIRST_MOVE_OFF_START)
    state, events = play(state, 0, "8H", "ZA")
    assert events[0].type == "play-pending"


def test_wordtiles_one_line_no_gaps_old_letters_may_lie_between():
    """"Place new letters in one row or one column, with no empty gaps inside the word; earlier
    letters may lie between them." """
    state = wordtiles(racks=["SSQIJOZ", RACKS[1]], tiles=[("8G", "CAT")])
    refused(state, Play(0, move("8F", "S") + move("G9", "S")), Rule.NOT_IN_LINE)
    refused(state, Play(0, move("8E", "S") + move("8K", "S")), Rule.GAP)
    state, events = play(state, 0, "8F", "S...S")
    assert events[0].data["words"] == ["SCATS"]


def test_wordtiles_later_plays_connect_by_a_side():
    """"Later plays must connect by a side to the existing layout." """
    state = wordtiles(racks=RACKS[:2], tiles=[("8G", "CAT")])
    refused(state, Play(0, move("9J", "QI")), Rule.NOT_CONNECTED)  # corner to corner only
    refused(state, Play(0, move("2B", "QI")), Rule.NOT_CONNECTED)
    play(state, 0, "9I", "ZA")  # Z under T: touches by a side


def test_wordtiles_confirmed_letters_stay():
    """"Letters already confirmed stay on the board." A square holding a letter takes no other."""
    state = wordtiles(racks=RACKS[:2], tiles=[("8G", "CAT")])
    refused(state, Play(0, move("8H", "ZA")), Rule.SQUARE_OCCUPIED)


# --- 4. Checking words -----------------------------------------------------------------------


def test_wordtiles_next_player_accepts_and_goes_on():
    """"The words you place wait for the next player's decision. They may accept them (then they
    stay and that player goes on)" """
    state = wordtiles(racks=RACKS[:2])
    state, _ = play(state, 0, "8H", "ZA")
    assert state.pending is not None and state.to_move == 1
    assert state.scores == (0, 0)  # waiting, not yet credited
    refused(state, Pass(1), Rule.PENDING_DECISION)
    refused(state, Play(1, move("9H", "AT")), Rule.PENDING_DECISION)
    refused(state, Decide(0, True), Rule.NOTHING_PENDING)  # seat 1 decides: nothing for seat 0
    state = accept(state, 1)
    assert state.pending is None and state.to_move == 1
    assert board_word(state, "8H", 2) == "ZA"
    assert state.scores == (16, 0)  # Z on the red centre: 5 x 3 + A 1


def test_wordtiles_checked_play_that_holds_stays_and_checker_loses_turn():
    """"If all are in the dictionary, they stay and the checker loses their turn." """
    state = wordtiles(3, racks=RACKS[:3])
    state, _ = play(state, 0, "8H", "ZA")
    state, events = check(state, 1)
    assert events[0].data["held"] is True
    assert board_word(state, "8H", 2) == "ZA" and state.scores == (16, 0, 0)
    assert state.to_move == 2


def test_wordtiles_checked_play_that_fails_is_taken_back_as_a_pass():
    """"If even one is missing, the move is taken back (counted as a pass) and the checker
    plays." """
    state = wordtiles(racks=["JOQIZAS", RACKS[1]], lexicon={"ZA"})
    state, _ = play(state, 0, "8G", "JO")
    state, events = check(state, 1)
    assert events[0].data["held"] is False
    assert board_word(state, "8G", 2) == ".." and state.scores == (0, 0)
    assert sorted(state.racks[0]) == sorted("JOQIZAS")
    assert state.to_move == 1 and state.zero_run == 1
    state, _ = play(state, 1, "8G", "CAT")
    assert state.pending is not None


def test_wordtiles_check_includes_short_crosswise_words():
    """"... or check all the new words in the dictionary of the chosen language, including short
    words formed crosswise." AT on top of CAT is a word, but its cross word TA is not."""
    state = wordtiles(racks=["ATSIJOQ", RACKS[1]], tiles=[("8G", "CAT")],
                      lexicon={"CAT", "AT", "AC"})
    state, _ = play(state, 0, "7G", "AT")
    state, events = check(state, 1)
    assert events[0].data["held"] is False and events[0].data["invalid_words"] == ["TA"]


def test_wordtiles_blank_is_worth_zero_and_keeps_its_letter():
    """"A blank stands for a chosen letter, but is worth zero and keeps the assigned letter after
    confirmation." """
    state = wordtiles(racks=["?AQIJOS", RACKS[1]])
    state, events = play(state, 0, "8H", "zA")
    assert events[0].data["score"] == 1  # the blank on red gets nothing: 0 + A 1
    state = accept(state, 1)
    tile = state.cells[state.ruleset.board.index(7, 7)]
    assert (tile.letter, tile.blank) == ("Z", True)
    assert board_word(state, "8H", 2) == "ZA"


# --- 5. Points and bonuses -------------------------------------------------------------------


def test_wordtiles_every_word_formed_is_added_up():
    """"The values of the letters of every word formed are added up." AT over CA/TA: AT 2 + AC 4
    + TA 2 (G7 and I7 are blue, but A and T are yellow tiles)."""
    state = wordtiles(racks=["ATSIJOQ", RACKS[1]], tiles=[("8G", "CAT")])
    state, events = play(state, 0, "7G", "AT")
    assert events[0].data["words"] == ["AT", "AC", "TA"]
    assert events[0].data["score"] == 8


def test_wordtiles_colour_square_triples_a_tile_of_its_colour_only():
    """"A coloured dot on a square triples the value of a new tile of the same colour: yellow for
    1 point, green for 2, blue for 3 and red for 5." """
    state = wordtiles(racks=["ZAQIJOS", RACKS[1]])
    assert score_of(state, "8H", "ZA") == 5 * 3 + 1  # red Z on the red centre
    assert score_of(state, "8H", "AZ") == 1 + 5  # yellow A on red: no bonus
    # C (blue, 3) on the blue F8, A on G8 plain, T (yellow) on the red H8
    state = wordtiles(racks=["CATSEHX", RACKS[0]])
    assert score_of(state, "8F", "CAT") == 9 + 1 + 1
    # yellow on yellow: T on C8 (yellow) = 3; green on green: D on D3 (green) = 6
    state = wordtiles(racks=["TADGOSE", RACKS[0]], tiles=[("8D", "O")], check=False)
    assert score_of(state, "8C", "T.") == 3 + 1
    state = wordtiles(racks=["TADGOSE", RACKS[0]], tiles=[("3E", "O")], check=False)
    assert score_of(state, "3D", "D.") == 6 + 1


def test_wordtiles_word_squares_multiply_the_whole_word():
    """"A diamond with "x2" or "x3" multiplies the whole word by that." F3 is x2, A3 is x3."""
    state = wordtiles(racks=["SATEOIL", RACKS[0]], tiles=[("3G", "AT")], check=False)
    assert score_of(state, "3F", "S..") == (1 + 1 + 1) * 2
    state = wordtiles(racks=["SATEOIL", RACKS[0]], tiles=[("3B", "AT")], check=False)
    assert score_of(state, "3A", "S..") == (1 + 1 + 1) * 3


def test_wordtiles_two_word_squares_multiply_together():
    """Two word squares under one word multiply (x2 and x2 = x4): the classic reading, which the
    text does not contradict (docs/rules.md). F3 and J3 are both x2; H3 is yellow."""
    state = wordtiles(racks=["SATEOIL", RACKS[0]], tiles=[("3G", "ATE")], check=False)
    assert score_of(state, "3F", "S...O") == 5 * 4


def test_wordtiles_bonuses_only_when_a_tile_is_first_placed():
    """"Bonuses work only when a tile is first placed, and later use of an old letter does not
    trigger them again." The Z on the red centre and the S on the x2 square are old tiles."""
    state = wordtiles(racks=["SATEOIL", RACKS[1]], tiles=[("8H", "Z")])
    assert score_of(state, "8H", ".A") == 5 + 1
    state = wordtiles(racks=["DAEOILS", RACKS[1]], tiles=[("3F", "SA")], check=False)
    assert score_of(state, "3F", "..D") == 1 + 1 + 2


def test_wordtiles_fifty_points_for_all_seven_tiles():
    """"Laying all seven tiles in one move gives an extra 50 points." """
    state = wordtiles(racks=["RETAINS", RACKS[1]])
    state, events = play(state, 0, "8B", "RETAINS")
    assert events[0].data["breakdown"]["bingo"] == 50
    # R(B8) E(C8 yellow: 3) T A I(F8 blue: no) N S(H8 red: no) = 1+3+1+1+1+1+1 + 50
    assert events[0].data["score"] == 59


def test_wordtiles_rack_refilled_to_seven_while_the_bag_has_tiles():
    """"After a move the rack is refilled to seven as long as there are tiles in the bag."
    wordarena draws when the pending play is confirmed (docs/rules.md)."""
    state = wordtiles(racks=RACKS[:2])
    state, _ = play(state, 0, "8H", "ZA")
    assert len(state.racks[0]) == 5
    state = accept(state, 1)
    assert len(state.racks[0]) == 7
    state = wordtiles(racks=RACKS[:2], bag="E")
    state = accept(play(state, 0, "8H", "ZA")[0], 1)
    assert len(state.racks[0]) == 6 and state.bag == ()


# --- 6. Exchange, pass and the end -----------------------------------------------------------


def test_wordtiles_pass_or_exchange_loses_the_turn():
    """"You can pass or exchange chosen letters, losing your turn." """
    state = wordtiles(racks=RACKS[:2])
    state = apply(state, Pass(0))[0]
    assert state.to_move == 1
    state, events = apply(state, Exchange(1, ("X", "H")))
    assert state.to_move == 0 and events[0].type == "exchanged"
    assert state.racks[1][:5] == tuple("CATSE")


def test_wordtiles_three_exchanges_each():
    """"Everyone has three exchanges" """
    state = wordtiles(racks=RACKS[:2])
    for _ in range(3):
        state = apply(state, Exchange(0, (state.racks[0][0],)))[0]
        # (the zero-turn run is reset by hand: only the exchange count matters here)
        state = apply(state, Pass(1))[0].evolve(zero_run=0)
    assert state.exchanges == (3, 0)
    refused(state, Exchange(0, (state.racks[0][0],)), Rule.EXCHANGE_LIMIT)
    state = apply(state, Pass(0))[0]
    state = apply(state, Exchange(1, (state.racks[1][0],)))[0]  # the other player still can


def test_wordtiles_exchange_needs_seven_tiles_in_the_bag():
    """"... available with at least seven tiles in the bag." """
    state = wordtiles(racks=RACKS[:2], bag="ABCDEF")
    refused(state, Exchange(0, ("Z",)), Rule.EXCHANGE_BAG_TOO_SMALL)
    state = wordtiles(racks=RACKS[:2], bag="ABCDEFG")
    state = apply(state, Exchange(0, ("Z",)))[0]
    assert len(state.bag) == 7


@pytest.mark.parametrize("players", [2, 3])
def test_wordtiles_two_full_rounds_without_a_word_end_the_game(players):
    """"Two full rounds of players without a word placed end the game, and exchanges also count
    towards this limit." """
    state = wordtiles(players, racks=RACKS[:players], tiles=[("8G", "CAT")])
    turns = 2 * players
    for k in range(turns):
        seat = k % players
        if k == 1:
            state = apply(state, Exchange(seat, (state.racks[seat][0],)))[0]
        else:
            state = apply(state, Pass(seat))[0]
        assert state.over == (k == turns - 1)
    assert state.result.reason == "zero-turns"


def test_wordtiles_failed_plays_count_towards_the_two_rounds():
    """A play taken back after a check "counts as a pass" — also towards the two-round end."""
    state = wordtiles(racks=RACKS[:2], tiles=[("8G", "CAT")], lexicon={"CAT"})
    state = apply(state, Pass(0))[0]
    state = apply(state, Pass(1))[0]
    state = apply(state, Pass(0))[0]
    state = play(state, 1, "8G", "...S")[0]
    state, _ = check(state, 0)
    assert state.over and state.result.reason == "zero-turns"


def test_wordtiles_game_ends_when_bag_and_a_rack_are_empty():
    """"The game also ends when the bag and one player's rack are empty." """
    state = wordtiles(racks=["S", "QZ"], tiles=[("8G", "CAT")], bag="")
    state = play(state, 0, "8G", "...S")[0]
    assert not state.over  # still pending
    state = accept(state, 1)
    assert state.over and state.result.reason == "out"


def test_wordtiles_remaining_letters_go_to_the_player_who_went_out():
    """"The values of the remaining letters are subtracted from their owners, and the player
    finishing with an empty rack also gets the sum of the opponents' penalties. The highest score
    wins." """
    state = wordtiles(3, racks=["S", "QZ", "AE"], tiles=[("8G", "CAT")], bag="",
                      scores=[10, 30, 25])
    state = accept(play(state, 0, "8G", "...S")[0], 1)
    # CATS: C 3 + A + T + S on J8 (blue; S is yellow) = 6
    assert state.result.adjustments == (12, -10, -2)
    assert state.result.scores == (28, 20, 23)
    assert state.result.winners == (0,)


def test_wordtiles_two_round_end_deducts_every_rack():
    """At the two-round end each player loses their own rack value (nobody went out)."""
    state = wordtiles(racks=["QZ", "AE"], tiles=[("8G", "CAT")], scores=[30, 10])
    for k in range(4):
        state = apply(state, Pass(k % 2))[0]
    assert state.result.adjustments == (-10, -2)
    assert state.result.winners == (0,)


def test_wordtiles_equal_scores_tie():
    """"The highest score wins." — equal highest scores share the win."""
    state = wordtiles(racks=["QZ", "XJ"], tiles=[("8G", "CAT")], scores=[30, 30])
    for k in range(4):
        state = apply(state, Pass(k % 2))[0]
    assert state.result.winners == (0, 1)


# --- 7. The clock and leaving ----------------------------------------------------------------


def test_wordtiles_clock_is_three_to_twenty_minutes():
    """"At the table you set each player's time for the whole game (3 to 20 minutes)." """
    clock = get_ruleset("wordtiles").clock
    assert (clock.minimum, clock.maximum) == (180, 1200)
    assert clock.minimum <= clock.default <= clock.maximum


def test_wordtiles_time_out_drops_the_player_and_the_others_play_on():
    """"When your time runs out, you drop out of the game and the others play on." """
    state = wordtiles(3, racks=RACKS[:3])
    state, events = apply(state, TimeOut(0))
    assert events[0].type == "timed-out"
    assert state.seats[0] is Seat.TIMED_OUT and not state.over
    assert state.to_move == 1
    refused(state, Pass(0), Rule.PLAYER_NOT_ACTIVE)
    state = apply(state, Pass(1))[0]
    assert state.to_move == 2
    state = apply(state, Pass(2))[0]
    assert state.to_move == 1  # seat 0 is skipped


@pytest.mark.parametrize("action", [TimeOut, Leave])
def test_wordtiles_one_player_left_wins(action):
    """"If one player remains, they win. Leaving the game works the same way." Even behind."""
    state = wordtiles(racks=RACKS[:2], scores=[50, 0])
    state, _ = apply(state, action(0))
    assert state.over and state.result.winners == (1,)
    assert state.result.adjustments == (0, 0)


def test_wordtiles_dropped_player_is_not_scored_at_the_end():
    """A dropped player's rack is not deducted at the end and they cannot win (docs/rules.md)."""
    state = wordtiles(3, racks=["S", "QZ", "AE"], tiles=[("8G", "CAT")], bag="",
                      scores=[10, 99, 25])
    state = apply(state, Leave(1))[0]
    state = accept(play(state, 0, "8G", "...S")[0], 2)
    assert state.result.adjustments == (2, 0, -2)
    assert state.result.winners == (2,)


def test_wordtiles_time_out_of_the_decider_passes_the_decision_on():
    """A pending play survives its decider timing out: the next player decides."""
    state = wordtiles(3, racks=RACKS[:3])
    state = play(state, 0, "8H", "ZA")[0]
    state = apply(state, TimeOut(1))[0]
    assert state.pending is not None and state.to_move == 2
    state = accept(state, 2)
    assert state.scores[0] == 16 and state.to_move == 2


def test_wordtiles_leaving_with_a_pending_play_takes_it_back():
    """A player who leaves while their play waits for a decision takes it back: the board holds
    only confirmed letters and the next player simply plays (docs/rules.md)."""
    state = wordtiles(3, racks=RACKS[:3])
    state = play(state, 0, "8H", "ZA")[0]
    state = apply(state, Leave(0))[0]
    assert state.pending is None and board_word(state, "8H", 2) == ".."
    assert sorted(state.racks[0]) == sorted(RACKS[0])
    assert state.to_move == 1
    state = play(state, 1, "8G", "CAT")[0]
    assert state.pending is not None


def test_wordtiles_a_turn_lost_to_a_check_counts_as_a_turn_without_a_word():
    """A checker whose check fails to find a bad word "loses their turn": that lost turn places
    no word, so it counts towards the two rounds (wordarena's reading, docs/rules.md); the held
    play itself is a word and restarts the count."""
    state = wordtiles(racks=RACKS[:2], tiles=[("8G", "CAT")])
    state = apply(state, Pass(0))[0]
    state = apply(state, Pass(1))[0]
    assert state.zero_run == 2
    state = play(state, 0, "8G", "...S")[0]
    state, _ = check(state, 1)
    assert state.zero_run == 1 and state.to_move == 0
    for seat in (0, 1):
        state = apply(state, Pass(seat))[0]
    assert not state.over
    state = apply(state, Pass(0))[0]
    assert state.over and state.result.reason == "zero-turns"


def test_wordtiles_two_rounds_count_the_players_still_in_the_game():
    """"Two full rounds of players": the run needed is twice the number of players still in the
    game when the run is counted — after a drop-out, the next turn without a word may end it
    (wordarena's reading, docs/rules.md)."""
    state = wordtiles(3, racks=RACKS[:3], tiles=[("8G", "CAT")])
    for seat in (0, 1, 2, 0):
        state = apply(state, Pass(seat))[0]
    state = apply(state, TimeOut(1))[0]
    assert not state.over and state.zero_run == 4
    state = apply(state, Pass(2))[0]
    assert state.over and state.result.reason == "zero-turns"


def test_wordtiles_with_instant_checks_refuses_a_non_word_and_replays_so():
    """A table's instant challenge mode: Word Tiles refuses an unknown word at once (as classic)
    instead of letting it wait for accept-or-check, and a replay of the log plays the same way."""
    from wordarena.engine.families import replay
    from wordarena.engine.game import set_rack
    from wordarena.engine.rulesets.model import WordCheck

    state, events = start_game(get_ruleset("wordtiles"), 2, 5, LEX, True, WordCheck.IMMEDIATE)
    assert state.ruleset.word_check is WordCheck.IMMEDIATE
    assert get_ruleset("wordtiles").word_check is WordCheck.DEFERRED  # the catalogue is untouched
    state = set_rack(state, 0, tuple("ZQXCATS"))
    with pytest.raises(RuleError) as refusal:
        play(state, 0, "8G", "ZQX")
    assert refusal.value.rule is Rule.WORD_NOT_IN_LEXICON
    rebuilt = replay(events, lambda name: LEX)
    assert rebuilt.ruleset.word_check is WordCheck.IMMEDIATE
