"""war-of-words-2.txt, Destructive Scoring: Bomb, Blaster, Whirlwind, Lightning, Nuclear Bomb,
Shields, what destroyed letters cost, 11L reveals, several destructive tiles in one turn."""

from __future__ import annotations

import pytest
from wow_helpers import (
    change,
    effect_events,
    game,
    letter_at,
    marker,
    play,
    points,
    put,
    sq,
    word,
)

from wordarena.engine.rulesets.layout import Square
from wordarena.engine.warofwords import arena as arena_mod
from wordarena.engine.warofwords.arena import live_squares, markers


def test_a_bomb_destroys_letters_wildcards_and_scenery_in_a_3x3_square_centred_on_it():
    # Fortress: D4..L4 is a brick wall (scenery); letters around H5.
    s = game(board="warofwords-fortress", racks=[("@bomb",), ("B",)],
             tiles=[("5G", "C*T", 1), ("6G", "DOG", 1), ("7F", "Z", 1)])
    s2, events = play(s, 0, put("H5", "@bomb"))
    for name in ("G5", "H5", "I5", "G6", "H6", "I6"):
        assert letter_at(s2, name) is None
    assert letter_at(s2, "F7") == "Z"  # outside the 3x3
    squares = live_squares(s2)
    for name in ("G4", "H4", "I4"):
        assert not squares[sq(name)].blocked  # the wall is breached
    assert squares[sq("F4")].blocked
    # C 3, wildcard 0, T 1; D and G on 2W squares (G6, I6) count x2, O 1
    assert points(events, "bomb") == {1: -(3 + 0 + 1 + 2 * 2 + 1 + 2 * 2)}


def test_the_value_of_destroyed_letters_times_underlying_multipliers_is_deducted_from_owners():
    # Open Field: D8 is 4L, A8 is 3W; seat 1 owns the Q on D8 and seat 0 the X on A8.
    s = game(racks=[("@bomb", "@bomb"), ("B",)], tiles=[("8A", "X", 0), ("8C", "IQ", 1)])
    s2, events = play(s, 0, put("B8", "@bomb"), put("D9", "@bomb"))
    assert points(events, "bomb") == {0: -8 * 3, 1: -(10 * 4 + 1)}
    assert s2.scores == (-24, -41)
    lost = [(e.seat, e.data["squares"], e.data["at"], e.data["points"])
            for e in effect_events(events, "bomb")]
    assert lost == [(0, ["A8"], "B8", -24), (1, ["C8"], "B8", -1), (1, ["D8"], "D9", -40)]


def test_a_blaster_destroys_in_its_direction_until_a_titanium_tile():
    # Fortress row 8: Titanium at D8 and L8.
    s = game(board="warofwords-fortress", racks=[("@blaster",), ("B",)],
             tiles=[("8I", "CAT", 1), ("8M", "OX", 1), ("9H", "A", 1)])
    s2, events = play(s, 0, put("H8", "@blaster", "right"))
    assert [letter_at(s2, n) for n in ("I8", "J8", "K8")] == [None, None, None]
    assert letter_at(s2, "M8") == "O" and letter_at(s2, "N8") == "X"
    assert letter_at(s2, "H9") == "A"  # not in its line
    assert points(events) == {1: -(3 * 4 + 1 + 1)}  # I8 is 4L


def test_a_blaster_reaches_the_edge_of_the_board_without_titanium():
    s = game(racks=[("@blaster",), ("B",)], tiles=[("H1", "CAT", 1), ("H10", "DOG", 1)])
    s2, _ = play(s, 0, put("H8", "@blaster", "up"))
    assert [letter_at(s2, n) for n in ("H1", "H2", "H3")] == [None, None, None]
    assert letter_at(s2, "H10") == "D"


def test_a_shield_owned_by_the_opposite_player_stops_a_bomb_and_a_blaster():
    s = game(racks=[("@bomb", "@blaster"), ("B",)], tiles=[("8G", "CAT", 1), ("1A", "OX", 1)],
             effects=[marker("shield", "G9", 1)])
    s2, _events = play(s, 0, put("H7", "@bomb"), put("A3", "@blaster", "up"))
    assert [letter_at(s2, n) for n in ("G8", "H8")] == ["C", "A"]  # G9's 3x3: F8-H10
    assert letter_at(s2, "I8") is None
    assert letter_at(s2, "A1") is None  # no shield there


def test_your_own_shield_does_not_protect_against_your_own_destruction():
    s = game(racks=[("@bomb",), ("B",)], tiles=[("8G", "CAT", 0)],
             effects=[marker("shield", "H8", 0)])
    s2, _ = play(s, 0, put("H7", "@bomb"))
    assert letter_at(s2, "H8") is None


def test_a_whirlwind_destroys_letters_scenery_and_multipliers_unless_shielded():
    # Open Field: G7 and I7 are 2L; H8 the Star.
    s = game(racks=[("@whirlwind",), ("B",)], tiles=[("8G", "CAT", 1)])
    s2, _events = play(s, 0, put("H7", "@whirlwind"))
    squares = live_squares(s2)
    assert squares[sq("G7")] == Square() and squares[sq("I7")] == Square()
    assert squares[sq("H8")].terrain == "star"  # terrain is not a multiplier
    assert [letter_at(s2, n) for n in ("G8", "H8", "I8")] == [None, None, None]
    shielded = game(racks=[("@whirlwind",), ("B",)], tiles=[("8G", "CAT", 1)],
                    effects=[marker("shield", "H9", 1)])
    s3, _ = play(shielded, 0, put("H7", "@whirlwind"))
    assert letter_at(s3, "H8") == "A"


def test_multipliers_are_not_destroyed_except_by_black_hole_quicksand_and_whirlwind():
    """… and any Multipliers revealed by destroying the letter on them may be used again."""
    s = game(racks=[("@bomb",), ("Z", "A", "E")], tiles=[("8C", "ID", 1), ("8F", "O", 1)])
    s2, _ = play(s, 0, put("C7", "@bomb"))  # C7 2L, D8 4L under the D
    assert live_squares(s2)[sq("D8")] == Square(letter_mult=4)
    assert live_squares(s2)[sq("C7")] == Square(letter_mult=2)
    assert letter_at(s2, "D8") is None
    _s3, events = play(s2, 1, word("8C", "ZAE."))
    # Z on C8 (plain) 10, A on D8 (4L, revealed) 4, E 1, old O 1
    assert events[0].data["score"] == 10 + 4 + 1 + 1


def test_other_action_tiles_are_not_destroyed_except_by_black_hole():
    s = game(racks=[("@bomb", "@whirlwind"), ("B",)],
             effects=[marker("poison", "H8", 1), marker("shield", "C3", 1)])
    s2, _ = play(s, 0, put("H7", "@bomb"), put("C4", "@whirlwind"))
    assert {m.kind for m in markers(s2)} >= {"poison", "shield"}


def test_scenery_destroyed_by_a_player_reveals_an_11L_with_a_1_percent_chance(monkeypatch):
    asked: list[float] = []

    def chance(self, p):
        asked.append(p)
        return True

    monkeypatch.setattr(arena_mod.Arena, "chance", chance)
    s = game(board="warofwords-fortress", racks=[("@bomb",), ("B",)])
    s2, events = play(s, 0, put("H5", "@bomb"))
    assert asked == [0.01, 0.01, 0.01]
    assert live_squares(s2)[sq("H4")] == Square(letter_mult=11)
    assert len(effect_events(events, "reveal-11L")) == 3


def test_the_11L_chance_is_drawn_from_the_matchs_seeded_rng():
    """Replay stays exact: the same seed and counter give the same reveals; one RNG draw per
    turn, from state.rng_counter."""
    outcomes = set()
    for seed in range(300):
        s = game(board="warofwords-fortress", racks=[("@bomb",), ("B",)], seed=seed)
        s2, _ = play(s, 0, put("H5", "@bomb"))
        again, _ = play(s, 0, put("H5", "@bomb"))
        assert live_squares(s2) == live_squares(again)
        assert s2.rng_counter == s.rng_counter + 1
        outcomes.add(any(q.letter_mult == 11 for q in live_squares(s2)))
    assert outcomes == {True, False}  # 3 squares x 300 seeds at 1%: both seen


def test_several_destructive_tiles_are_evaluated_top_to_bottom_then_left_to_right():
    s = game(racks=[("@bomb", "@bomb", "@blaster"), ("B",)],
             tiles=[("8G", "CAT", 1), ("3B", "OX", 1)])
    _s2, events = play(s, 0, put("I9", "@bomb"), put("C3", "@bomb"), put("G2", "@blaster", "down"))
    order = [e.data["at"] for e in effect_events(events) if e.data.get("destroyed")]
    assert order == ["G2", "C3", "I9"]  # row 2 before row 3; then row 9


def test_each_destructive_tile_only_destroys_any_given_tile_once():
    s = game(racks=[("@bomb", "@bomb"), ("B",)], tiles=[("8G", "CAT", 1)])
    _s2, events = play(s, 0, put("H7", "@bomb"), put("H9", "@bomb"))
    assert points(events) == {1: -(3 + 1 + 1)}  # C, A, T lost once, though in both areas
    assert sum(len(e.data["squares"]) for e in effect_events(events, "bomb")) == 3


def test_you_get_credit_for_your_own_word_first_then_lose_what_was_destroyed():
    s = game(racks=[("C", "A", "T", "@bomb"), ("B",)])
    s2, events = play(s, 0, word("8G", "CAT"), put("H7", "@bomb"))
    assert events[0].type == "play" and events[0].data["score"] == 5
    lost = effect_events(events, "bomb")
    assert lost[0].seat == 0 and lost[0].data["points"] == -5 and lost[0].data["score"] == 0
    assert s2.scores[0] == 0


def test_the_nuclear_bomb_destroys_all_letters_and_scenery_and_costs_nobody_points():
    s = game(board="warofwords-fortress", racks=[("@nuke",), ("B",)],
             tiles=[("8I", "CAT", 1), ("15H", "ZOO", 0)], effects=[marker("shield", "J8", 1)],
             scores=(10, 20))
    s2, events = play(s, 0, put("A3", "@nuke"))
    assert all(c is None for c in s2.cells)
    squares = live_squares(s2)
    assert not any(q.terrain == "scenery" for q in squares)
    assert sum(q.terrain == "titanium" for q in squares) == 18  # titanium stays
    assert s2.scores == (10, 20) and points(events) == {0: 0, 1: 0}  # logged, 0 points
    assert s2.irradiated


def test_once_irradiated_all_letters_are_worth_1_point():
    s = game(racks=[("@nuke",), ("Z", "A", "X")], tiles=[("8G", "CAT", 1)])
    s, _ = play(s, 0, put("A1", "@nuke"))
    _s2, events = play(s, 1, word("8G", "ZAX"))
    assert events[0].data["score"] == 3


def test_a_destroyed_letter_on_an_irradiated_board_costs_1_times_its_multipliers():
    s = game(racks=[("@bomb",), ("B",)], tiles=[("8D", "Q", 1)]).evolve(irradiated=True)
    _, events = play(s, 0, put("D7", "@bomb"))
    assert points(events) == {1: -4}


def test_lightning_destroys_what_lies_on_its_square_and_electrifies_water():
    s = game(board="warofwords-oasis", racks=[("@lightning", "@lightning"), ("B",)],
             tiles=[("4D", "OX", 1)])
    s2, events = play(s, 0, put("D4", "@lightning"), put("H8", "@lightning"))
    assert letter_at(s2, "D4") is None and letter_at(s2, "E4") == "X"
    patch = s.ruleset.board.water_patch[sq("D4")]
    assert s2.electrification[patch] == 2
    assert sum(s2.electrification) == len(s2.electrification) + 1  # H8 is not Water
    assert points(events) == {1: -1}


@pytest.mark.parametrize("seats", [2])
def test_destruction_events_explain_every_point(seats):
    s = game(racks=[("@bomb", "C", "A", "T"), ("B",)], tiles=[("9G", "DOG", 1)],
             effects=[change("A1", Square(letter_mult=5))])
    s2, events = play(s, 0, word("8G", "CAT"), put("H9", "@bomb"))
    total = [0, 0]
    for e in events:
        if e.type == "play":
            total[e.seat] += e.data["score"]
        elif e.type == "effect" and e.seat is not None:
            total[e.seat] += e.data["points"]
    assert tuple(total) == s2.scores
