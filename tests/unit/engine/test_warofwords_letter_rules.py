"""The letter core of war-of-words-2.txt (family ``warofwords``): placement, wildcards, scoring
with nL and additive nW multipliers, the Bonus Letter, bingos, swaps, passes, the end of the game,
leaving / forfeiting / kicking, inactive players and ties. Action tiles, terrain effects and
persistent effects come later.

warofwords English values: A E I L N O R S T U 1; D G 2; B C M P 3; F H V W Y 4; K 5; J X 8;
Q Z 10; wildcard ``*`` 0. Open Field board (default): H8 Star; D8 and L8 4L; A1, H1, O1, A8 3W;
B2 2W; C7 2L. Oasis board: Water at D4/E4 (and more), Stars at B2/N2, no Star in the centre.
"""

from __future__ import annotations

import pytest
from engine_helpers import board_word, move, new_game, play, refused, score_of

from wordarena.engine.errors import Rule
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Exchange, Kick, Leave, Pass, Play, Resign, apply, start_game
from wordarena.engine.game.state import Seat
from wordarena.engine.scoring import bingo_bonus, word_factor

LEX = {"CAT", "CATS", "AT", "TA", "AC", "BAT", "BO", "DOG", "COT", "CUT", "TO", "ZOO", "OX",
       "RETAINS", "STRAINED", "QI", "BAD", "BED"}

RACKS = ["CATSDOGE", "ZOOXQIEE", "RETAINSL", "UNLITERS"]


def wow(players=2, **kw):
    kw.setdefault("lexicon", LEX)
    return new_game("warofwords", players, **kw)


def oasis(players=2, **kw):
    return wow(players, board="warofwords-oasis", **kw)


# --- the rack and the supply -----------------------------------------------------------------


def test_warofwords_rack_holds_eight_tiles():
    """"The bottom portion of your screen contains the rack, a collection of eight tiles" """
    state, _ = start_game(get_ruleset("warofwords"), 4, 3, None, False)
    assert all(len(r) == 8 for r in state.racks)
    assert get_ruleset("warofwords").rack_size == 8


def test_warofwords_empty_rack_slots_refilled_from_the_supply():
    """"Any empty slots in your rack will be replenished from the supply." """
    state = wow(racks=RACKS[:2])
    state, events = play(state, 0, "8G", "CAT")
    assert len(state.racks[0]) == 8
    assert events[1].type == "tiles-drawn" and events[1].data["count"] == 3


# --- placement -------------------------------------------------------------------------------


def test_warofwords_word_is_one_contiguous_horizontal_or_vertical_line():
    """"A word must consist of contiguous letters (in a row), and must be either horizontal or
    vertical." / "A single contiguous horizontal or vertical line of letters must be played on
    the board." """
    state = wow(racks=RACKS[:2])
    refused(state, Play(0, move("8G", "CA") + move("I9", "T")), Rule.NOT_IN_LINE)
    refused(state, Play(0, move("8G", "C") + move("8I", "T")), Rule.GAP)
    assert play(state, 0, "H7", "CAT")[0].scores[0] > 0


def test_warofwords_words_read_left_to_right_and_top_to_bottom():
    """"Words are read left-to-right or top-to-bottom." — whatever order the tiles come in."""
    state = wow(racks=RACKS[:2])
    backwards = tuple(reversed(move("8G", "CAT")))
    _, events = apply(state, Play(0, backwards))
    assert events[0].data["words"] == ["CAT"]
    backwards = tuple(reversed(move("H7", "CAT")))
    _, events = apply(state, Play(0, backwards))
    assert events[0].data["words"] == ["CAT"]
    refused(state, Play(0, move("8G", "TAC")), Rule.WORD_NOT_IN_LEXICON)


def test_warofwords_first_word_covers_the_star():
    """"Every word has to connect to an existing letter on the board, or it needs to be
    positioned over at least one Star or Water tile." On the Open Field the only Star is the
    centre."""
    state = wow(racks=RACKS[:2])
    refused(state, Play(0, move("8A", "CAT")), Rule.NOT_CONNECTED)
    play(state, 0, "8F", "CAT")


def test_warofwords_word_may_stand_alone_on_water():
    """"This word must connect with at least one other word on the board, be situated over a
    Star, or be played partially or fully on Water." """
    state = oasis(racks=RACKS[:2])
    refused(state, Play(0, move("8G", "CAT")), Rule.NOT_CONNECTED)  # plain centre: no Star
    play(state, 0, "4D", "AT")  # fully on Water
    play(state, 0, "4C", "CAT")  # partially on Water
    play(state, 0, "2A", "CAT")  # over the Star on B2


def test_warofwords_star_allows_a_second_island():
    """A word over a Star needs no connection even when other words lie on the board."""
    state = oasis(racks=RACKS[:2], tiles=[("4D", "AT")])
    refused(state, Play(0, move("8G", "CAT")), Rule.NOT_CONNECTED)
    state, _ = play(state, 0, "N1", "CAT")  # N2 is a Star
    assert board_word(state, "N1", 3) == "CAT"


def test_warofwords_all_words_formed_must_be_valid():
    """"Letters can be placed so that multiple new words are formed simultaneously using
    neighboring letters, as long as each word that is created is valid." / "Each word is checked
    for validity against the War of Words word list." """
    state = wow(racks=["ATSDOGEC", RACKS[1]], tiles=[("8G", "CAT")],
                lexicon={"CAT", "AT", "AC"})
    err = refused(state, Play(0, move("7G", "AT")), Rule.WORD_NOT_IN_LEXICON)
    assert err.words == ("TA",)
    state = state.evolve(lexicon={"CAT", "AT", "AC", "TA"})
    _, events = play(state, 0, "7G", "AT")
    assert events[0].data["words"] == ["AT", "AC", "TA"]


def test_warofwords_at_least_one_tile_must_be_played():
    """"At least one tile of any type must be played." """
    state = wow(racks=RACKS[:2])
    refused(state, Play(0, ()), Rule.NO_TILES)


# --- wildcards -------------------------------------------------------------------------------


def test_warofwords_wildcard_finds_a_valid_word():
    """"The game automatically attempts to find a valid word when a Wildcard Tile is
    encountered. All possibilities for the wildcards are checked until a word is found."
    wordarena tries letters in alphabet order: C*T is CAT before COT and CUT."""
    state = wow(racks=["C*TSDOGE", RACKS[1]], lexicon={"CUT", "COT", "CAT"})
    state, events = play(state, 0, "8G", "C*T")
    assert events[0].data["words"] == ["CAT"]
    state = wow(racks=["C*TSDOGE", RACKS[1]], lexicon={"CUT", "COT"})
    _, events = play(state, 0, "8G", "C*T")
    assert events[0].data["words"] == ["COT"]


def test_warofwords_wildcard_without_a_reading_is_invalid():
    """"If no word is found, the word is not valid." """
    state = wow(racks=["C*TSDOGE", RACKS[1]], lexicon={"DOG"})
    err = refused(state, Play(0, move("8G", "C*T")), Rule.WORD_NOT_IN_LEXICON)
    assert err.words == ("C*T",)


def test_warofwords_one_wildcard_may_be_different_letters_in_different_words():
    """"Wildcards are evaluated separately for each word they are in; therefore, a single
    Wildcard Tile can act as multiple letters simultaneously." C*T across reads CAT, D*G down
    reads DOG."""
    state = wow(racks=["*ATSDOGE", RACKS[1]], tiles=[("8G", "C.T"), ("H7", "D.G")],
                lexicon={"CAT", "DOG"})
    state, events = play(state, 0, "8H", "*")
    assert events[0].data["words"] == ["CAT", "DOG"]
    # the wildcard is worth 0: CAT = C 3 + T 1, DOG = D 2 + G 2
    assert events[0].data["score"] == 8
    tile = state.cells[state.ruleset.board.index(7, 7)]
    assert tile.letter == "*" and tile.wildcard


# --- swaps and passes ------------------------------------------------------------------------


def test_warofwords_five_swaps_per_player():
    """"You're only allowed to swap your tiles a total of 5 times throughout the entire game." /
    "Players are only allowed 5 swaps total in a single game." """
    state = wow(racks=RACKS[:2])
    for _ in range(5):
        state = apply(state, Exchange(0, (state.racks[0][0],)))[0]
        state = apply(state, Exchange(1, (state.racks[1][0],)))[0]
    assert state.exchanges == (5, 5)
    refused(state, Exchange(0, (state.racks[0][0],)), Rule.EXCHANGE_LIMIT)
    assert not state.over  # swaps are not passes


def test_warofwords_pass_or_swap_instead_of_a_word():
    """"If you can't play any words, you can choose to Pass your turn or Swap some tiles." /
    "you do have to play something (or pass or swap tiles)." """
    state = wow(racks=RACKS[:2])
    state, events = apply(state, Pass(0))
    assert events[0].type == "passed" and state.to_move == 1
    state, events = apply(state, Exchange(1, ("Z", "Q")))
    assert events[0].type == "exchanged" and state.to_move == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_warofwords_third_consecutive_pass_ends_the_game(players):
    """"If you and your opponents collectively pass their turns 3 times in a row, the game is
    over." / "The game also ends on the third consecutive Pass. So in a two player game if
    Player 1 passes, then Player 2 passes, then Player 1 passes, the game will end. In a 3-4
    player game, if Player 1 passes, then Player 2 passes, then Player 3 passes, the game will
    end" """
    state = wow(players, racks=RACKS[:players], tiles=[("8G", "CAT")])
    for k in range(3):
        assert not state.over
        state = apply(state, Pass(k % players))[0]
    assert state.over and state.result.reason == "zero-turns"


def test_warofwords_a_swap_breaks_the_run_of_passes():
    """Only passes count towards the "third consecutive Pass"; a swap is not a pass and starts
    the count again (wordarena's reading, docs/rules.md)."""
    state = wow(racks=RACKS[:2], tiles=[("8G", "CAT")])
    state = apply(state, Pass(0))[0]
    state = apply(state, Pass(1))[0]
    state = apply(state, Exchange(0, ("C",)))[0]
    state = apply(state, Pass(1))[0]
    state = apply(state, Pass(0))[0]
    assert not state.over
    state = apply(state, Pass(1))[0]
    assert state.over


# --- constructive scoring --------------------------------------------------------------------


def test_warofwords_letter_multiplier_only_under_letters_played_this_turn():
    """"For any letters played during this turn, multiply the score listed on each letter by the
    value listed on any L Multipliers under it. (Letters that are part of this word, but not
    played during this turn, do not utilize any Multiplier Tiles.)" D8 is 4L."""
    state = wow(racks=["BADSOGEC", RACKS[1]], tiles=[("8E", "AD")])
    assert score_of(state, "8D", "B..") == 3 * 4 + 1 + 2
    state = wow(racks=["BADSOGEC", RACKS[1]], tiles=[("8D", "BA")])
    assert score_of(state, "8D", "..D") == 3 + 1 + 2


def test_warofwords_bonus_letter_adds_ten_to_the_word():
    """"If the Bonus Letter is one of the letters in the word, add 10 points to the word."
    Old letters count too; the Bonus Letter comes before the W multipliers."""
    state = wow(racks=["CATSDOGE", RACKS[1]], bonus_letter="C")
    _, events = play(state, 0, "8G", "CAT")
    word = events[0].data["breakdown"]["words"][0]
    assert (word["bonus_letter"], word["score"]) == (10, 3 + 1 + 1 + 10)
    state = wow(racks=["SDOGEATC", RACKS[1]], tiles=[("8G", "CAT")], bonus_letter="C")
    assert score_of(state, "8G", "...S") == 6 + 10
    # B on B2 (2W) above AT: (3 + 1 + 1 + 10) x 2
    state = wow(racks=["BDOGEATC", RACKS[1]], tiles=[("B3", "AT")], bonus_letter="A")
    assert score_of(state, "B2", "B..") == 30


def test_warofwords_bonus_letter_counts_once_per_word_and_not_for_wildcards():
    """The +10 is per word (not per copy of the letter), and a wildcard that reads as the Bonus
    Letter is not the Bonus Letter tile (wordarena's reading, docs/rules.md)."""
    state = wow(racks=["DOGEC*TA", RACKS[1]], tiles=[("8G", "CAT")], bonus_letter="A",
                lexicon={"CATA", "CAT"})
    assert score_of(state, "8G", "...A") == 3 + 1 + 1 + 1 + 10
    assert score_of(state, "8G", "...*") == 3 + 1 + 1 + 10  # the old A still counts
    state = wow(racks=["DOGEC*TS", RACKS[1]], bonus_letter="A", lexicon={"CAT"})
    assert score_of(state, "8G", "C*T") == 3 + 0 + 1


def test_warofwords_word_multipliers_add_up():
    """"For each W Multiplier under letters that were played during this turn, multiply the
    entire word's score by the value listed on the Multiplier Tile. ... W Multipliers are
    additive with each other. For example, if a word is played over a 3W and a 5W, the word's
    score is multiplied by 8." Row 1 of the Open Field: A1 and H1 are 3W, so x6 (not x9)."""
    ruleset = get_ruleset("warofwords")
    assert word_factor(ruleset, [3, 5]) == 8
    assert word_factor(ruleset, [3, 3]) == 6
    assert word_factor(get_ruleset("classic"), [3, 3]) == 9
    state = wow(racks=["ESDOGCAT", RACKS[1]], tiles=[("1B", "NOTIST")], check=False)
    assert score_of(state, "1A", "E......S") == 8 * 6


def test_warofwords_word_multipliers_only_under_letters_played_this_turn():
    """"(Letters that were not played during this turn do not utilize any Multipliers.)" """
    state = wow(racks=["ESDOGCAT", RACKS[1]], tiles=[("1A", "ENOTIST")], check=False)
    assert score_of(state, "1A", ".......S") == 8 * 3  # H1 (3W) new, A1 (3W) old


def test_warofwords_each_word_scored_and_multipliers_counted_again():
    """"It's possible to create multiple words with the same play. When this happens, each new
    word is scored separately as above. Multipliers are counted multiple times if they are under
    letters that were played during this turn." B on B2 (2W): BAT down and BO across."""
    state = wow(racks=["BDOGEATC", RACKS[1]], tiles=[("B3", "AT"), ("2C", "O")])
    state, events = play(state, 0, "2B", "B")
    words = {w["word"]: w["score"] for w in events[0].data["breakdown"]["words"]}
    assert words == {"BAT": 10, "BO": 8}
    assert state.scores[0] == 18


def test_warofwords_bingo_for_eight_letters_is_100():
    """"If a player plays 8 letters in a single turn, they receive a "bingo" and an extra 100
    points." """
    state = wow(racks=["STRAINED", RACKS[1]])
    _, events = play(state, 0, "8A", "STRAINED")
    assert events[0].data["breakdown"]["bingo"] == 100


def test_warofwords_bingo_for_seven_letters_is_65():
    """"Or, if a player plays 7 letters in a single turn, they receive a "bingo" and an extra 65
    points." """
    state = wow(racks=["RETAINSL", RACKS[1]])
    _, events = play(state, 0, "8B", "RETAINS")
    assert events[0].data["breakdown"]["bingo"] == 65


def test_warofwords_bingo_for_eight_tiles_of_any_kind_is_40():
    """"Failing that, if a player plays 8 tiles in a single turn (which can be any mix of letters
    or actions), they receive a "bingo" and an extra 40 points." (Action tiles come later; the
    bingo table already counts them.)"""
    ruleset = get_ruleset("warofwords")
    assert bingo_bonus(ruleset, [*"RETAINS", "@bomb"]) == 65
    assert bingo_bonus(ruleset, [*"RETAIN", "@bomb", "@medic"]) == 40
    assert bingo_bonus(ruleset, list("RETAINS*")) == 100  # wildcards are letters
    assert bingo_bonus(ruleset, list("RETAIN")) == 0


# --- end of game ---------------------------------------------------------------------------


def test_warofwords_game_ends_when_supply_and_a_rack_run_out_of_letters():
    """"The game ends when the supply runs out of letters, and one player uses up all of their
    letters." / "The game ends when all letters are exhausted from the supply, and one of the
    players plays all of their letters." """
    state = wow(racks=["S", "ZQ"], tiles=[("8G", "CAT")], bag="")
    state, _ = play(state, 0, "8G", "...S")
    assert state.over and state.result.reason == "out"


def test_warofwords_action_tiles_left_do_not_stop_the_end():
    """"Actions can remain in the supply, and can also remain in players' racks, and they will
    not stop the game from ending if all letters are used up." """
    state = wow(racks=[["S", "@bomb"], ["Z", "Q", "@medic"]], tiles=[("8G", "CAT")],
                bag=["@poison"])
    state, _ = play(state, 0, "8G", "...S")
    assert state.over and state.result.reason == "out"


def test_warofwords_remaining_letters_are_deducted_and_nobody_gains_them():
    """"If you're left with letters at the end of the game, the value of your remaining letters
    will be deducted from your score." / "When the game ends, any letters remaining in each
    player's rack will be deducted from the player's score." The player who went out gains
    nothing. "Action Tiles that remain in the rack are not worth any points and will not change
    the score." """
    state = wow(racks=["S", ["Z", "Q", "@medic"]], tiles=[("8G", "CAT")], bag="",
                scores=[10, 40])
    state, _ = play(state, 0, "8G", "...S")
    assert state.result.adjustments == (0, -20)
    assert state.result.scores == (16, 20)


def test_warofwords_deduction_also_after_three_passes():
    """"This deduction occurs even if the game ended due to three consecutive passes." """
    state = wow(racks=["CAT", ["Z", "@bomb"]], tiles=[("8G", "CAT")], scores=[10, 40])
    for k in range(3):
        state = apply(state, Pass(k % 2))[0]
    assert state.result.adjustments == (-5, -10)


def test_warofwords_no_deduction_when_the_game_ends_by_resigning():
    """"It does not occur when the game ends due to players resigning." / "If the game ends
    because the second-to-last player resigns, the remaining player wins the game." """
    state = wow(racks=RACKS[:2], scores=[10, 40])
    state, _ = apply(state, Resign(1))
    assert state.result.adjustments == (0, 0)
    assert state.result.scores == (10, 40)
    assert state.result.winners == (0,)


def test_warofwords_games_can_end_in_a_tie():
    """"Games can end in a tie." / "The player with the most points wins!" """
    state = wow(racks=["CAT", "BOA"], tiles=[("8G", "DOG")], scores=[20, 20])
    for k in range(3):
        state = apply(state, Pass(k % 2))[0]
    assert state.result.winners == (0, 1)
    state = wow(racks=["CAT", "ZOO"], tiles=[("8G", "DOG")], scores=[20, 30])
    for k in range(3):
        state = apply(state, Pass(k % 2))[0]
    assert state.result.winners == (1,)


# --- leaving, forfeiting, kicking ------------------------------------------------------------


def test_warofwords_leaving_in_the_first_round_is_flagged():
    """"During the first round of turns, any player may choose to Leave Game without incurring a
    loss on their record." The event says whether the first round was still on."""
    state = wow(3, racks=RACKS[:3])
    state = apply(state, Pass(0))[0]
    state, events = apply(state, Leave(2))
    assert events[0].data["first_round"] is True
    assert not state.over  # two players remain


def test_warofwords_first_round_ends_when_play_comes_back_to_the_first_player():
    """"Once the first round of play is over (play has come back to the original challenger),
    any player who elects to Forfeit Game will incur a loss." — even when someone already left
    during the first round."""
    state = wow(3, racks=RACKS[:3])
    state = apply(state, Pass(0))[0]
    state = apply(state, Leave(1))[0]
    state = apply(state, Pass(2))[0]  # back to seat 0: the first round is over
    assert state.to_move == 0
    state, events = apply(state, Resign(2))
    assert events[0].data["first_round"] is False


def test_warofwords_game_goes_on_while_two_players_remain():
    """"As long as at least 2 players remain in the game, the game will continue." """
    state = wow(4, racks=RACKS)
    state = apply(state, Resign(3))[0]
    state = apply(state, Resign(1))[0]
    assert not state.over and state.active_seats == (0, 2)
    state = apply(state, Resign(0))[0]
    assert state.over and state.result.winners == (2,)


def test_warofwords_inactive_players_cannot_win():
    """"Inactive players cannot win the game, however, even if the game ends and they have the
    most points." / "For the purposes of the win/loss record, players who leave a game early
    (but after the initial round of turns) take a loss and cannot win." """
    state = wow(3, racks=["CAT", "DOG", "BED"], tiles=[("8G", "ZOO")], scores=[10, 90, 20])
    state = apply(state, Pass(0))[0]
    state = apply(state, Leave(1))[0]
    state = apply(state, Pass(2))[0]
    state = apply(state, Pass(0))[0]
    assert state.over
    assert state.result.winners == (2,)
    # "any letters remaining in each player's rack will be deducted": DOG, the leaver's too.
    assert state.result.scores[1] == 90 - 5


def test_warofwords_kick_idle_player():
    """"When a player doesn't play a turn for at least 3 days, other players in the game can
    elect to Kick Idle Player. This causes the idle player to incur a loss and be removed from
    the game." (The match server measures the three days.)"""
    state = wow(3, racks=RACKS[:3])
    state = apply(state, Pass(0))[0]
    state, events = apply(state, Kick(1, by=2))
    assert events[0].type == "kicked" and events[0].data["by"] == 2
    assert state.seats[1] is Seat.KICKED and not state.over
    assert state.to_move == 2


def test_warofwords_only_the_idle_player_can_be_kicked_by_another():
    """Kick Idle Player: only the player whose turn it is can be idle, and only another player
    still in the game can kick."""
    state = wow(3, racks=RACKS[:3])
    refused(state, Kick(1, by=2), Rule.NOT_ALLOWED)  # seat 1 is not holding up the game
    refused(state, Kick(0, by=0), Rule.NOT_ALLOWED)
    state = apply(state, Leave(2))[0]
    refused(state, Kick(0, by=2), Rule.NOT_ALLOWED)


def test_warofwords_kick_that_ends_the_game_wins_only_with_a_higher_score():
    """"If kicking the idle player results in the game ending, and the remaining player has a
    higher score, the remaining player receives a win." """
    state = wow(racks=RACKS[:2], scores=[10, 5])
    state = apply(state, Pass(0))[0]
    ended, _ = apply(state, Kick(1, by=0))
    assert ended.over and ended.result.winners == (0,)
    state = state.evolve(scores=(5, 10))
    ended, _ = apply(state, Kick(1, by=0))
    assert ended.over and ended.result.winners == ()


def test_kick_idle_player_is_a_war_of_words_rule():
    """Kick Idle Player belongs to War of Words; the other families time players out instead."""
    for family in ("classic", "wordtiles", "scrabble"):
        state = new_game(family, check=False)
        refused(state, Kick(0, by=1), Rule.NOT_ALLOWED)
