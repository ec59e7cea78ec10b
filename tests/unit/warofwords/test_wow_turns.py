"""war-of-words-2.txt, Placement Rules and Constructive Scoring, as they concern action tiles:
what a turn with action tiles is, and how the word of that turn is scored."""

from __future__ import annotations

import pytest
from wow_helpers import game, letter_at, play, points, put, rc, sq, word

from wordarena.engine.errors import Rule, RuleError
from wordarena.engine.game import Pass, Play, apply
from wordarena.engine.game.actions import Move, action_from_dict, action_to_dict
from wordarena.engine.rulesets.layout import Square
from wordarena.engine.warofwords.arena import live_squares, markers
from wordarena.engine.warofwords.catalog import ACTIONS, Kind


def test_in_lieu_of_a_word_one_or_more_action_tiles_may_be_played_this_counts_as_a_turn():
    s = game(racks=[("@shield", "@medic", "A"), ("B",)])
    s2, events = play(s, 0, put("H8", "@shield"), put("C3", "@medic"))
    assert s2.to_move == 1 and s2.turn == 1 and s2.zero_run == 0
    assert events[0].type == "play" and events[0].data["actions"] == [
        [sq("H8"), "@shield"], [sq("C3"), "@medic"]]
    assert {m.kind for m in markers(s2)} == {"shield", "medic"}
    assert s2.racks[0][:1] == ("A",) and len(s2.racks[0]) == 8  # refilled to eight


def test_any_action_tiles_may_be_played_as_well_as_a_word_during_a_single_turn():
    s = game(racks=[("C", "A", "T", "@poison", "@3L"), ("B",)])
    s2, events = play(s, 0, word("8G", "CAT"), put("A1", "@poison"), put("B1", "@3L"))
    assert events[0].data["words"] == ["CAT"] and events[0].data["score"] == 5
    assert live_squares(s2)[sq("B1")] == Square(letter_mult=3)
    assert [m.kind for m in markers(s2)] == ["poison"]


def test_moving_rain_or_whirlwind_and_doing_nothing_else_does_not_count_as_a_turn():
    s = game(racks=[("@bomb",), ("B",)],
             effects=[__import__("wow_helpers").marker("rain", "C3", 0)])
    r, c = rc("C3")
    with pytest.raises(RuleError) as info:
        apply(s, Play(0, (), (Move(r, c, r + 1, c),)))
    assert info.value.rule is Rule.NO_TILES


def test_at_least_one_tile_of_any_type_must_be_played_with_a_move():
    from wow_helpers import marker
    s = game(racks=[("@shield",), ("B",)], effects=[marker("rain", "C3", 0)])
    r, c = rc("C3")
    s2, _events = apply(s, Play(0, (put("O15", "@shield"),), (Move(r, c, r, c + 5),)))
    assert [m.index for m in markers(s2) if m.kind == "rain"] == [sq("H3")]
    assert s2.to_move == 1


def test_only_your_own_rain_or_whirlwind_can_be_moved():
    from wow_helpers import marker
    s = game(racks=[("@shield",), ("B",)], effects=[marker("rain", "C3", 1)])
    r, c = rc("C3")
    with pytest.raises(RuleError) as info:
        apply(s, Play(0, (put("O15", "@shield"),), (Move(r, c, r, c + 1),)))
    assert info.value.rule is Rule.EFFECT_NOT_MOVABLE


def test_action_tiles_must_be_on_the_rack_and_known():
    s = game(racks=[("@bomb",), ("B",)])
    with pytest.raises(RuleError) as info:
        play(s, 0, put("H8", "@nuke"))
    assert info.value.rule is Rule.TILES_NOT_ON_RACK
    with pytest.raises(RuleError) as info:
        play(game(racks=[("@frog",), ()]), 0, put("H8", "@frog"))
    assert info.value.rule is Rule.LETTER_NOT_IN_SET


def test_a_blaster_needs_a_facing_and_other_tiles_have_none():
    s = game(racks=[("@blaster", "@bomb"), ("B",)])
    with pytest.raises(RuleError):
        play(s, 0, put("H8", "@blaster"))
    with pytest.raises(RuleError):
        play(s, 0, put("H8", "@bomb", "up"))
    play(s, 0, put("H8", "@blaster", "up"))


def test_multiplier_and_star_tiles_go_on_empty_squares():
    s = game(racks=[("@2W", "@star"), ("B",)], tiles=[("8G", "CAT", 1)])
    with pytest.raises(RuleError) as info:
        play(s, 0, put("H8", "@2W"))
    assert info.value.rule is Rule.SQUARE_OCCUPIED
    with pytest.raises(RuleError):
        play(game(board="warofwords-oasis", racks=[("@star",), ()]), 0, put("D4", "@star"))
    s2, _ = play(s, 0, put("E5", "@2W"), put("B12", "@star"))
    squares = live_squares(s2)
    assert squares[sq("E5")] == Square(word_mult=2) and squares[sq("B12")].terrain == "star"


def test_a_star_tile_lets_a_word_stand_unconnected():
    """Every word has to connect to an existing letter, or be over a Star or Water — a Star
    placed from the rack counts."""
    s = game(racks=[("@star", "E"), ("D", "O", "G")])
    s, _ = play(s, 0, put("B12", "@star"))
    with pytest.raises(RuleError):
        play(s, 1, word("2B", "DOG"))
    _s2, events = play(s, 1, word("12A", "DOG"))
    assert events[0].data["words"] == ["DOG"]


def test_multiplier_tiles_placed_from_the_rack_multiply_letters_played_on_them_later():
    """For any letters played during this turn, multiply the score listed on each letter by the
    L Multiplier under it; W Multipliers are additive (3W and 5W: x8)."""
    s = game(racks=[("@5L", "@5W"), ("Z", "O", "O")], tiles=[("8G", "CAT", 0)])
    s, _ = play(s, 0, put("J6", "@5L"), put("J8", "@5W"))  # J6 was 3L: replaced by 5L
    # ZOO down J6-J8: its O on J8 extends CAT (G8-I8) to CATO.
    _s2, events = play(s, 1, word("J6", "ZOO"))
    scores = {w["word"]: w["score"] for w in events[0].data["breakdown"]["words"]}
    assert scores["ZOO"] == (10 * 5 + 1 + 1) * 5
    assert scores["CATO"] == (3 + 1 + 1 + 1) * 5


def test_letters_not_played_this_turn_do_not_use_multiplier_tiles():
    s = game(racks=[("@3W",), ("S",)], tiles=[("8G", "CAT", 0)])
    s, _ = play(s, 0, put("J8", "@3W"))
    s, _ = play(s, 1, word("8J", "S"))
    s = s.evolve(racks=((), ("S", "E")), to_move=1)
    _s2, events = play(s, 1, word("J9", "E"))  # SE down J8-J9: J8 already played
    assert events[0].data["score"] == 2 * 1  # S 1, not x3 again; E on plain J9 1


def test_bingo_eight_tiles_of_any_mix_earns_forty():
    s = game(racks=[("C", "A", "T", "S", "@shield", "@medic", "@poison", "@2L"), ("B",)])
    _s2, events = play(s, 0, word("8G", "CATS"), put("A1", "@shield"), put("A3", "@medic"),
                      put("A5", "@poison"), put("A7", "@2L"))
    assert events[0].data["breakdown"]["bingo"] == 40


def test_action_tiles_alone_can_make_the_eight_tile_bingo():
    tiles = ("@shield", "@medic", "@poison", "@2L", "@3L", "@2W", "@3W", "@star")
    s = game(racks=[tiles, ("B",)])
    names = ["A1", "A3", "A5", "B12", "C12", "D13", "E13", "F13"]
    s2, events = play(s, 0, *[put(n, t) for n, t in zip(names, tiles, strict=True)])
    assert events[0].data["score"] == 40 and s2.scores[0] == 40


def test_a_play_with_action_tiles_replays_from_its_dict():
    from wow_helpers import marker
    r, c = rc("C3")
    action = Play(0, (put("H8", "@blaster", "left"),), (Move(r, c, r, c + 1),))
    assert action_from_dict(action_to_dict(action)) == action
    s = game(racks=[("@blaster",), ("B",)], effects=[marker("rain", "C3", 0)])
    apply(s, action_from_dict(action_to_dict(action)))


def test_the_catalog_has_every_action_of_the_text_and_the_supply_holds_them():
    from wordarena.engine.families import get_ruleset
    names = {"bomb", "blaster", "shield", "nuke", "lightning", "poison", "medic", "rain",
             "fire", "blackhole", "whirlwind", "quicksand", "pirate", "sandstorm", "star", "portal"}
    names |= {f"{n}{k}" for n in range(2, 9) for k in "LW"}
    assert names == set(ACTIONS)
    counts = get_ruleset("warofwords").tiles.counts
    assert all(counts["@" + n] >= 1 for n in names)
    assert all(get_ruleset("warofwords").tiles.value("@" + n) == 0 for n in names)
    assert ACTIONS["blackhole"].kind is Kind.PERSISTENT and not ACTIONS["blackhole"].shieldable


def test_a_pass_is_still_a_pass_with_effects_on_the_board():
    from wow_helpers import marker
    s = game(racks=[("A",), ("B",)], effects=[marker("shield", "C3", 0)])
    s2, _ = apply(s, Pass(0))
    assert s2.zero_run == 1
    assert letter_at(s2, "C3") is None
    assert points([]) == {}
