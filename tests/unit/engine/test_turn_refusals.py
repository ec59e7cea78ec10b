"""What a refused turn tells the player (engine/game/turns.py), and the limits at their exact
edges: the rule and the text are written here by hand, as the match server sends both in
RuleViolation; an exchange allowed one time too many, or refused with one tile too many in the
bag, is a defect a player meets."""

from __future__ import annotations

import pytest
from engine_helpers import new_game, passes, play, refused

from wordarena.engine.errors import InputError, Rule
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, Exchange, Pass, apply, start_game
from wordarena.engine.game.actions import Kick, Leave, Resign, TimeOut
from wordarena.engine.game.state import Seat


def test_turns_out_of_order_or_for_no_seat_are_refused_in_plain_words() -> None:
    state = new_game("scrabble", 3)
    assert str(refused(state, Pass(1), Rule.NOT_YOUR_TURN)) == "it is seat 0's turn, not seat 1's"
    assert str(refused(state, Pass(3), Rule.NOT_ALLOWED)) == "there is no seat 3"
    assert str(refused(state, Pass(-1), Rule.NOT_ALLOWED)) == "there is no seat -1"
    state, _ = apply(state, Resign(1))
    assert str(refused(state, Resign(1), Rule.PLAYER_NOT_ACTIVE)) == "seat 1 is no longer in the game"
    # Seat 1 has gone: after seat 0 it is seat 2's turn.
    state = passes(state, 0)
    assert state.to_move == 2
    state, _ = apply(state, Resign(0))
    assert state.over
    assert str(refused(state, Pass(2), Rule.GAME_OVER)) == "the game is over"


def test_accept_or_check_refusals_name_what_is_missing() -> None:
    state = new_game("wordtiles", racks=["CATEIOU", "DOGEIRN"])
    for seat in (0, 1):  # to move or not: nothing is pending for anyone
        assert str(refused(state, Decide(seat, True), Rule.NOTHING_PENDING)) == \
            "there is no pending play to accept or check"
    state, _ = play(state, 0, "8H", "CAT")
    assert state.pending is not None
    # Only the decider has a pending play (match.proto: NO_PENDING_PLAY for any other seat).
    assert str(refused(state, Decide(0, False), Rule.NOTHING_PENDING)) == \
        "seat 1 decides the pending play, not seat 0"
    assert str(refused(state, Pass(1), Rule.PENDING_DECISION)) == "accept or check the pending play first"
    assert str(refused(state, Exchange(1, ("D",)), Rule.PENDING_DECISION)) == \
        "accept or check the pending play first"


def test_exchange_refusals_name_the_tiles_and_the_limits() -> None:
    state = new_game("scrabble", racks=["ABCDEFG", "HIJKLMN"])
    assert str(refused(state, Exchange(0, ()), Rule.NO_TILES)) == "name the tiles to exchange"
    assert str(refused(state, Exchange(0, ("A", "1")), Rule.LETTER_NOT_IN_SET)) == \
        f"not tiles of the {state.ruleset.tiles.id} set: '1'"
    assert str(refused(state, Exchange(0, ("Z",)), Rule.TILES_NOT_ON_RACK)) == "tiles not on your rack: Z"


def test_scrabble_exchange_needs_seven_in_the_bag_exactly() -> None:
    # Scrabble: at least 7 tiles in the bag. Seven is enough; six is not.
    enough = new_game("scrabble", racks=["ABCDEFG", "HIJKLMN"], bag="OPQRSTU")
    after, events = apply(enough, Exchange(0, ("A", "B")))
    assert sorted(after.racks[0]) == sorted("CDEFG" + "OP")
    assert events[0].data["count"] == 2 and len(after.bag) == 7
    short = new_game("scrabble", racks=["ABCDEFG", "HIJKLMN"], bag="OPQRST")
    assert str(refused(short, Exchange(0, ("A",)), Rule.EXCHANGE_BAG_TOO_SMALL)) == \
        "exchanging needs at least 7 tiles in the bag; it has 6"


def test_classic_exchange_needs_as_many_in_the_bag_as_are_swapped() -> None:
    # Words With Friends: any time the bag has tiles, but no more swapped than it holds.
    state = new_game("classic", racks=["ABCDEFG", "HIJKLMN"], bag="OPQ")
    after, _ = apply(state, Exchange(0, ("A", "B", "C")))
    assert sorted(after.racks[0]) == sorted("DEFG" + "OPQ")
    assert str(refused(state, Exchange(0, ("A", "B", "C", "D")), Rule.EXCHANGE_BAG_TOO_SMALL)) == \
        "exchanging needs at least 4 tiles in the bag; it has 3"


def test_war_of_words_allows_five_exchanges_a_player_and_not_a_sixth() -> None:
    state = new_game("warofwords")
    for n in range(5):
        for seat in (0, 1):
            state, _ = apply(state, Exchange(seat, (state.racks[seat][0],)))
            assert state.exchanges[seat] == n + 1 and not state.over
    assert str(refused(state, Exchange(0, (state.racks[0][0],)), Rule.EXCHANGE_LIMIT)) == \
        "each player may exchange 5 times a game; you have"


def test_kick_refusals_say_who_may_kick_whom() -> None:
    scrabble = new_game("scrabble")
    assert str(refused(scrabble, Kick(0, 1), Rule.NOT_ALLOWED)) == "Scrabble has no Kick Idle Player"
    state = new_game("warofwords", 3)
    for seat, by in ((0, 0), (0, 3), (0, -1)):
        assert str(refused(state, Kick(seat, by), Rule.NOT_ALLOWED)) == \
            "only another active player can kick an idle player"
    assert str(refused(state, Kick(1, 0), Rule.NOT_ALLOWED)) == "seat 1 is not idle: it is seat 0's turn"
    left, _ = apply(state, Leave(2))
    assert str(refused(left, Kick(0, 2), Rule.NOT_ALLOWED)) == \
        "only another active player can kick an idle player"
    # The idle seat to move is kicked by another; the turn passes on.
    kicked, events = apply(state, Kick(0, 2))
    assert events[0].type == "kicked" and events[0].data["by"] == 2
    assert kicked.to_move == 1


def test_leaving_in_the_first_round_is_marked_and_later_is_not() -> None:
    state = new_game("scrabble", 3)
    _, events = apply(state, TimeOut(1))
    assert events[0].data["first_round"] is True
    state = passes(state, 0, 1)
    assert state.rounds == 0  # not yet back round to seat 0
    state = passes(state, 2)
    assert state.rounds == 1 and state.to_move == 0
    _, events = apply(state, Resign(2))
    assert events[0].data["first_round"] is False


def test_a_resignation_of_the_seat_to_move_hands_the_turn_on() -> None:
    state = new_game("scrabble", 3)
    state, _ = apply(state, Resign(0))
    assert state.to_move == 1 and not state.over
    state, _ = apply(state, Resign(2))  # not to move: the turn stays with seat 1
    assert state.over  # one player left


def test_a_game_for_the_wrong_number_of_players_is_refused_naming_the_range() -> None:
    with pytest.raises(InputError) as err:
        start_game(get_ruleset("classic", "en"), 3, 1, check_words=False)
    assert err.value.where == "players"
    assert err.value.detail == "Words With Friends (classic) is played by 2-2 players, not 3"
    with pytest.raises(InputError) as err:
        start_game(get_ruleset("scrabble", "en"), 1, 1, check_words=False)
    assert err.value.detail == "Scrabble is played by 2-4 players, not 1"
    start_game(get_ruleset("scrabble", "en"), 4, 1, check_words=False)
    with pytest.raises(InputError) as err:
        start_game(get_ruleset("scrabble", "en"), 2, 1)
    assert (err.value.where, err.value.detail) == (
        "lexicon", "a lexicon is needed to check words (or pass check_words=False)")


@pytest.mark.parametrize(("action", "name", "status"), [
    (Leave, "left", Seat.LEFT), (Resign, "resigned", Seat.RESIGNED), (TimeOut, "timed-out", Seat.TIMED_OUT)])
def test_a_player_who_goes_is_recorded_under_the_event_the_server_shows(action, name, status) -> None:
    # The match server shows "left" and "resigned" as PlayerLeft (LEFT / RESIGNED) and
    # "timed-out" as PlayerTimedOut; an event under any other name is shown to nobody.
    state = new_game("scrabble", 3)
    state, events = apply(state, action(1))
    assert [(e.type, e.seat) for e in events] == [(name, 1)]
    assert state.seats[1] is status and not state.over


def test_the_dealt_racks_are_private_in_the_start_event() -> None:
    # Everyone but a rack's seat gets Event.public(): the racks must sit under "private".
    state, (started,) = start_game(get_ruleset("scrabble", "en"), 3, 5, check_words=False)
    assert started.data["private"] == {"racks": [list(r) for r in state.racks]}
    assert "racks" not in str(started.public().data)


@pytest.mark.parametrize(("board", "patches"), [
    ("warofwords-oasis", 4), ("warofwords-swamp", 1), ("warofwords-field", 0)])
def test_every_water_patch_starts_at_electrification_one(board: str, patches: int) -> None:
    # DescribeRuleset and the board view promise each water patch at electrification 1 at the
    # start; one level per patch of the board, no more.
    state, _ = start_game(get_ruleset("warofwords", "en", board), 2, 1, check_words=False)
    assert state.electrification == (1,) * patches


class OnlyCat:
    """A lexicon of one word."""

    def __contains__(self, word: object) -> bool:
        return word == "CAT"


def test_a_failed_check_leaves_the_turn_with_the_checker_and_completes_no_round() -> None:
    # Word Tiles: seat 0's DOG is checked by seat 1 and fails; seat 1 plays on in the same
    # round. Rounds decide whether leaving counts as a loss (first_round: a War of Words
    # leaver in the first round is not charged a loss); a round counted here would be wrong.
    state = new_game("wordtiles", racks=["DOGEIRN", "CATEIOU"], lexicon=OnlyCat())
    state, _ = play(state, 0, "8H", "DOG")
    state, events = apply(state, Decide(1, False))
    assert events[0].type == "play-checked" and events[0].data["held"] is False
    assert state.to_move == 1 and state.rounds == 0
    state = passes(state, 1)
    assert state.to_move == 0 and state.rounds == 1


def test_an_accepted_play_stands_and_the_decider_plays_next() -> None:
    # Word Tiles: seat 1 accepts seat 0's pending CAT; the match server shows "play-accepted"
    # (who accepted whose play) and it is seat 1's turn.
    state = new_game("wordtiles", racks=["CATEIOU", "DOGEIRN"])
    state, _ = play(state, 0, "8H", "CAT")
    state, events = apply(state, Decide(1, True))
    assert (events[0].type, events[0].seat, events[0].data["by"]) == ("play-accepted", 1, 0)
    assert state.pending is None and state.to_move == 1 and state.scores[0] > 0
    # What the accepted event shows is the play itself: its squares and its points.
    assert [p[0] for p in events[0].data["placed"]] == [7 * 15 + 7, 7 * 15 + 8, 7 * 15 + 9]
    assert events[0].data["score"] == state.scores[0]


def test_a_check_that_holds_keeps_the_play_and_costs_the_checker_the_turn() -> None:
    state = new_game("wordtiles", racks=["CATEIOU", "DOGEIRN"], lexicon=OnlyCat())
    state, _ = play(state, 0, "8H", "CAT")
    state, events = apply(state, Decide(1, False))
    assert (events[0].type, events[0].seat, events[0].data["by"], events[0].data["held"]) == (
        "play-checked", 1, 0, True)
    assert state.pending is None and state.to_move == 0 and state.scores[0] > 0
    assert events[0].data["score"] == state.scores[0] and len(events[0].data["placed"]) == 3


def test_a_check_without_a_lexicon_is_refused_in_plain_words() -> None:
    state = new_game("wordtiles", racks=["CATEIOU", "DOGEIRN"], check=False)
    state, _ = play(state, 0, "8H", "CAT")
    assert str(refused(state, Decide(1, False), Rule.NOT_ALLOWED)) == \
        "no lexicon is loaded to check words against"


def test_a_seat_that_has_gone_may_not_take_a_turn() -> None:
    state = new_game("scrabble", 3)
    state, _ = apply(state, Resign(1))
    state = passes(state, 0)
    assert str(refused(state, Pass(1), Rule.PLAYER_NOT_ACTIVE)) == "seat 1 is no longer in the game"


def test_an_exchange_tells_the_player_what_went_back_and_what_came() -> None:
    # The match server shows the exchanging player its returned tiles from data["private"].
    state = new_game("scrabble", racks=["ABCDEFG", "HIJKLMN"], bag="OPQRSTUV")
    after, events = apply(state, Exchange(0, ("A", "B")))
    assert sorted(after.racks[0]) == sorted("CDEFGOP")
    assert events[0].data["private"] == {"returned": ["A", "B"], "drawn": ["O", "P"]}
    assert "returned" not in str(events[0].public().data)
