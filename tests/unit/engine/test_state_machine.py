"""The state machine: ``start_game``, ``apply`` and ``replay`` — refusals with their rule codes,
events, hidden information, determinism from the seed, and exact replays."""

from __future__ import annotations

import json

import pytest
from engine_helpers import ANY, move, new_game, play, refused

from wordarena.engine.errors import InputError, Rule
from wordarena.engine.families import get_ruleset, replay
from wordarena.engine.game import (
    Decide,
    Exchange,
    Kick,
    Leave,
    Pass,
    Play,
    Resign,
    TimeOut,
    action_from_dict,
    action_to_dict,
    apply,
    set_rack,
    start_game,
)
from wordarena.engine.game.events import Event


def test_start_game_deals_from_a_seeded_shuffle():
    ruleset = get_ruleset("classic")
    a, _ = start_game(ruleset, 2, 42, None, False)
    b, _ = start_game(ruleset, 2, 42, None, False)
    c, _ = start_game(ruleset, 2, 43, None, False)
    assert a == b and (a.racks, a.bag) != (c.racks, c.bag)
    assert sorted(a.bag + a.racks[0] + a.racks[1]) == sorted(ruleset.tiles.initial_bag())
    assert a.to_move == 0 and a.scores == (0, 0)


def test_start_game_needs_a_lexicon_to_check_words():
    with pytest.raises(InputError, match="lexicon"):
        start_game(get_ruleset("classic"), 2, 1, None, True)


def test_warofwords_picks_a_bonus_letter_from_the_seed():
    ruleset = get_ruleset("warofwords")
    a, events = start_game(ruleset, 2, 5, None, False)
    assert a.bonus_letter in ruleset.tiles.letters
    assert events[0].data["bonus_letter"] == a.bonus_letter
    assert start_game(ruleset, 2, 5, None, False)[0].bonus_letter == a.bonus_letter


def test_not_your_turn():
    state = new_game("classic", check=False)
    for action in (Pass(1), Exchange(1, (state.racks[1][0],)),
                   Play(1, move("8G", "".join(state.racks[1][:2]).replace("?", "E")))):
        refused(state, action, Rule.NOT_YOUR_TURN)


def test_no_such_seat():
    state = new_game("classic", check=False)
    refused(state, Pass(2), Rule.NOT_ALLOWED)
    refused(state, Resign(-1), Rule.NOT_ALLOWED)
    refused(new_game("warofwords", check=False), Kick(0, by=7), Rule.NOT_ALLOWED)


def test_player_no_longer_in_the_game():
    state = new_game("wordtiles", 3, check=False)
    state = apply(state, Leave(1))[0]
    for action in (Resign(1), Leave(1), TimeOut(1)):
        refused(state, action, Rule.PLAYER_NOT_ACTIVE)


def test_game_over_refuses_everything():
    state = new_game("classic", check=False)
    state = apply(state, Resign(0))[0]
    for action in (Pass(1), Resign(1), Exchange(1, ("A",)), Decide(1, True)):
        refused(state, action, Rule.GAME_OVER)


def test_decide_without_a_pending_play():
    refused(new_game("wordtiles", check=False), Decide(0, True), Rule.NOTHING_PENDING)
    refused(new_game("classic", check=False), Decide(0, False), Rule.NOTHING_PENDING)


def test_checking_needs_a_lexicon():
    state = new_game("wordtiles", check=False, racks=["ZAQIJOS", "CATSEHX"])
    state = play(state, 0, "8H", "ZA")[0]
    refused(state, Decide(1, False), Rule.NOT_ALLOWED)


def test_exchange_refusals():
    state = new_game("classic", check=False, racks=["CATSEOX", "QIZAEON"])
    refused(state, Exchange(0, ()), Rule.NO_TILES)
    refused(state, Exchange(0, ("Q",)), Rule.TILES_NOT_ON_RACK)
    refused(state, Exchange(0, ("T", "T")), Rule.TILES_NOT_ON_RACK)
    for token in ("1", "é", "*", "", "a"):
        refused(state, Exchange(0, (token,)), Rule.LETTER_NOT_IN_SET)
    empty = new_game("classic", check=False, racks=["CATSEOX", "QIZAEON"], bag="")
    refused(empty, Exchange(0, ("C",)), Rule.EXCHANGE_BAG_TOO_SMALL)
    small = new_game("classic", check=False, racks=["CATSEOX", "QIZAEON"], bag="AB")
    refused(small, Exchange(0, tuple("CAT")), Rule.EXCHANGE_BAG_TOO_SMALL)
    assert apply(small, Exchange(0, tuple("CA")))[0].bag != ()


def test_refused_actions_leave_the_state_as_it_was():
    state = new_game("classic", lexicon={"CAT"}, racks=["CATSEOX", "QIZAEON"])
    before = state
    for action, rule in [(Play(0, move("8G", "TAC")), Rule.WORD_NOT_IN_LEXICON),
                         (Play(0, move("8A", "CAT")), Rule.FIRST_MOVE_OFF_START),
                         (Exchange(0, ("Z",)), Rule.TILES_NOT_ON_RACK),
                         (Pass(1), Rule.NOT_YOUR_TURN)]:
        refused(state, action, rule)
        assert state == before


def test_word_not_in_lexicon_names_the_words():
    state = new_game("classic", lexicon={"CAT"}, racks=["CATSEOX", "QIZAEON"])
    err = refused(state, Play(0, move("8G", "TACO")), Rule.WORD_NOT_IN_LEXICON)
    assert err.words == ("TACO",) and "TACO" in str(err) and err.code == "word-not-in-lexicon"


def test_turn_events_carry_the_action_and_hide_private_data():
    state = new_game("classic", lexicon=ANY, racks=["CATSEOX", "QIZAEON"])
    state, events = play(state, 0, "8G", "CAT")
    assert [e.type for e in events] == ["play", "tiles-drawn"]
    assert action_from_dict(events[0].data["action"]) == Play(0, move("8G", "CAT"))
    drawn = events[1]
    assert len(drawn.data["private"]["tiles"]) == 3
    assert "private" not in drawn.public().data and drawn.public().data["count"] == 3
    state, events = apply(state, Exchange(1, ("Q", "Z")))
    assert events[0].public().data == {"count": 2, "action": events[0].data["action"]}


def test_game_over_event_reports_the_result():
    state = new_game("classic", check=False, racks=["CATSEOX", "QIZAEON"], scores=[10, 20])
    state, events = apply(state, Resign(1))
    over = events[-1]
    assert over.type == "game-over"
    assert over.data["winners"] == [0] and over.data["scores"] == [10, 20]


def test_events_and_actions_round_trip_through_json():
    state = new_game("wordtiles", 3, lexicon=ANY, racks=["ZAQIJOS", "CATSEHX", "RETAINS"])
    log = []
    for action in (Play(0, move("8H", "ZA")), Decide(1, True), Exchange(1, ("X",)),
                   Pass(2), TimeOut(0)):
        state, events = apply(state, action)
        log += events
    for event in log:
        again = Event.from_dict(json.loads(json.dumps(event.to_dict())))
        assert again == event
        if "action" in event.data:
            action = action_from_dict(event.data["action"])
            assert action_to_dict(action) == event.data["action"]


def test_replay_rebuilds_the_state_exactly():
    ruleset = get_ruleset("classic")
    state, log = start_game(ruleset, 2, 11, None, False)
    letters = "".join(t if t != "?" else "e" for t in state.racks[0][:3])
    for action in (Play(0, move("8G", letters)), Exchange(1, state.racks[1][:2]), Pass(0)):
        state, events = apply(state, action)
        log += events
    rebuilt = replay(log)
    assert rebuilt == state and rebuilt.turn == 3


def test_replay_refuses_a_tampered_log():
    state, log = start_game(get_ruleset("classic"), 2, 11, None, False)
    state, events = apply(state, Pass(0))
    log += events
    bad = [*log, Event("passed", 1, {})]  # an event no action explains
    with pytest.raises(InputError):
        replay(bad)
    with pytest.raises(InputError):
        replay(log[1:])
    forged = [log[0], Event("passed", 0, {"action": {"kind": "pass", "seat": 0}, "x": 1})]
    with pytest.raises(InputError):
        replay(forged)


def test_set_rack_swaps_with_the_bag_and_refuses_what_is_not_there():
    state = new_game("classic", check=False)
    total = sorted(state.bag + state.racks[0])
    state2 = set_rack(state, 0, tuple("QZJX"[:1]))
    assert state2.racks[0] == ("Q",)
    assert sorted(state2.bag + state2.racks[0]) == total
    with pytest.raises(InputError):
        set_rack(state, 0, ("Q", "Q"))
