"""war-of-words-2.txt, Persistent Tiles and Effects: Poison, Medic, Rain, Fire, Black Hole,
Whirlwind, Quicksand (and Sandstorm), Lightning and electrified Water."""

from __future__ import annotations

import pytest
from wow_helpers import change, effect_events, game, letter_at, marker, play, points, put, sq, word

from wordarena.engine.game import Pass, apply
from wordarena.engine.rulesets.layout import Square
from wordarena.engine.warofwords import arena as arena_mod
from wordarena.engine.warofwords.arena import live_squares, markers


def always(monkeypatch, answer=True):
    asked: list[float] = []

    def chance(self, p):
        asked.append(p)
        return answer

    monkeypatch.setattr(arena_mod.Arena, "chance", chance)
    return asked


def pass_(state, seat):
    """A pass that does not end the game (the zero-turn run is reset first)."""
    return apply(state.evolve(zero_run=0), Pass(seat))


def kinds(state):
    return sorted(m.kind for m in markers(state) if m.owner >= 0)


# --- Poison and Medic ------------------------------------------------------------------------


def test_poison_deducts_1_per_letter_in_its_3x3_from_whoever_owns_it_every_turn():
    s = game(racks=[("@poison",), ("B",)], tiles=[("8G", "CAT", 1), ("9H", "O", 0)])
    s, events = play(s, 0, put("H8", "@poison"))
    assert points(events, "poison") == {0: -1, 1: -3}
    s, events = apply(s, Pass(1))
    assert points(events, "poison") == {0: -1, 1: -3}  # again, every turn
    assert s.scores == (-2, -6)


def test_poison_over_a_multiplier_deducts_the_number_on_it_only_under_a_letter():
    # Open Field: G7 and I7 are 2L, H4 is 4L; wildcards count too; an empty 2L (I7) costs nothing
    s = game(racks=[("@poison",), ("B",)], tiles=[("7G", "*", 1)],
             effects=[change("H7", Square(word_mult=5))])
    s = s.evolve(cells=(*s.cells[:sq("H7")], s.cells[sq("G7")]._replace(letter="E"), *s.cells[sq("H7") + 1:]))
    _, events = play(s, 0, put("H8", "@poison"))
    assert points(events, "poison") == {1: -(2 + 5)}
    [event] = effect_events(events, "poison")
    assert event.data["squares"] == ["G7", "H7"] and event.data["by"] == 0


def test_medic_grants_1_per_letter_or_the_multiplier_number_every_turn():
    s = game(racks=[("@medic",), ("B",)], tiles=[("7G", "AB", 1)])
    s, events = play(s, 0, put("H8", "@medic"))
    assert points(events, "medic") == {1: 2 + 1}  # A on 2L G7, B on plain H7
    s, events = apply(s, Pass(1))
    assert points(events, "medic") == {1: 3}


def test_inactive_players_still_gain_and_lose_points_from_effects():
    from wordarena.engine.game import Resign
    s = game(racks=[("@poison",), ("B",), ("C",)], tiles=[("8G", "CAT", 2)])
    s, _ = apply(s, Resign(2))
    s, events = play(s, 0, put("H8", "@poison"))
    assert points(events, "poison") == {2: -3}


# --- Rain -----------------------------------------------------------------------------------


def test_rain_grants_points_like_medic_and_grows_multipliers_under_it_by_one():
    s = game(racks=[("@rain",), ("B",)], tiles=[("8G", "CAT", 1)])
    s, events = play(s, 0, put("H8", "@rain"))
    assert points(events, "rain") == {1: 3}
    squares = live_squares(s)
    assert [squares[sq(n)] for n in ("G7", "I7", "G9", "I9")] == [Square(letter_mult=3)] * 4


def test_rain_grows_multipliers_to_at_most_8L_8W_or_9LW():
    s = game(racks=[("@rain",), ("B",)],
             effects=[change("G7", Square(letter_mult=7)), change("H7", Square(word_mult=8)),
                      change("I7", Square(8, 8)), change("G9", Square(9, 9))])
    s, _ = play(s, 0, put("H8", "@rain"))
    s, _ = apply(s, Pass(1))
    squares = live_squares(s)
    assert squares[sq("G7")] == Square(letter_mult=8)
    assert squares[sq("H7")] == Square(word_mult=8)
    assert squares[sq("I7")] == Square(9, 9) and squares[sq("G9")] == Square(9, 9)


def test_rain_over_sand_has_a_chance_to_grow_LW_multipliers(monkeypatch):
    asked = always(monkeypatch)
    s = game(board="warofwords-desert", racks=[("@rain",), ("B",)])
    s, _events = play(s, 0, put("B4", "@rain"))  # Dune Sea: A3-C5 is Sand (C3 a Star)
    squares = live_squares(s)
    assert squares[sq("A3")] == Square(2, 2, terrain="sand")
    assert squares[sq("C3")].terrain == "star" and squares[sq("C3")].letter_mult == 1
    assert set(asked) == {0.10}
    s, _ = apply(s, Pass(1))
    assert live_squares(s)[sq("A3")] == Square(3, 3, terrain="sand")


def test_rain_can_be_moved_by_its_owner_with_a_turn():
    from wordarena.engine.game import Play
    from wordarena.engine.game.actions import Move
    s = game(racks=[("@shield",), ("B",)], tiles=[("8G", "CAT", 1)],
             effects=[marker("rain", "A1", 0)])
    s, events = apply(s, Play(0, (put("O15", "@shield"),), (Move(0, 0, 7, 7),)))
    assert points(events, "rain") == {1: 3}


# --- Fire -----------------------------------------------------------------------------------


def test_fire_burns_letters_and_scenery_under_it_every_turn(monkeypatch):
    always(monkeypatch, False)  # no spreading, no reveal
    s = game(board="warofwords-fortress", racks=[("@fire",), ("B",)],
             tiles=[("5G", "Z", 1)])
    s, events = play(s, 0, put("G5", "@fire"))
    assert letter_at(s, "G5") is None and points(events, "fire") == {1: -10}
    s2 = game(board="warofwords-fortress", racks=[("@fire",), ("B",)])
    s2, _ = play(s2, 0, put("E4", "@fire"))
    assert not live_squares(s2)[sq("E4")].blocked  # a brick burnt


def test_after_burning_fire_may_grow_and_only_burns_the_new_squares_next_turn(monkeypatch):
    always(monkeypatch, True)
    s = game(racks=[("@fire",), ("B",)], tiles=[("8G", "CAT", 1)])
    s, events = play(s, 0, put("H8", "@fire"))
    assert letter_at(s, "H8") is None
    assert letter_at(s, "G8") == "C" and letter_at(s, "I8") == "T"  # caught fire, not burnt
    assert sorted(m.index for m in markers(s) if m.kind == "fire") == sorted(
        [sq("H8"), sq("G8"), sq("I8")])
    s, events = apply(s, Pass(1))
    assert letter_at(s, "G8") is None and letter_at(s, "I8") is None
    assert points(events, "fire") == {1: -(3 + 1)}


def test_fire_goes_out_after_three_turns_and_does_not_spread_onto_water_or_empty_squares():
    s = game(board="warofwords-oasis", racks=[("@fire",), ("B",)])
    s, _ = play(s, 0, put("C4", "@fire"))  # next to Water D4; no fuel anywhere
    assert [m.index for m in markers(s) if m.kind == "fire"] == [sq("C4")]
    s, _ = apply(s, Pass(1))
    s, _ = apply(s, Pass(0))
    assert "fire" not in kinds(s)


# --- Black Hole ------------------------------------------------------------------------------


def test_a_black_hole_grows_1_3_5_7_then_collapses_after_a_turn_at_7x7():
    s = game(racks=[("@blackhole", "A"), ("B",)], tiles=[("8G", "CAT", 1), ("8K", "Z", 1),
                                                       ("1H", "Q", 1)])
    s, events = play(s, 0, put("H8", "@blackhole"))
    assert letter_at(s, "H8") is None and letter_at(s, "G8") == "C"  # 1x1
    s, _ = pass_(s, 1)
    assert letter_at(s, "G8") is None and letter_at(s, "K8") == "Z"  # 3x3
    s, _ = pass_(s, 0)
    assert letter_at(s, "K8") == "Z"  # 5x5 reaches column J
    s, _ = pass_(s, 1)
    assert letter_at(s, "K8") is None and letter_at(s, "H1") == "Q"  # 7x7: rows 5-11
    assert "blackhole" in kinds(s)
    s, _ = pass_(s, 0)
    assert "blackhole" not in kinds(s)
    sizes = [e.data["size"] for e in effect_events(events, "blackhole-size")]
    assert sizes == [1]


def test_a_black_hole_destroys_multipliers_scenery_titanium_and_other_action_tiles(monkeypatch):
    asked = always(monkeypatch, False)
    s = game(board="warofwords-fortress", racks=[("@blackhole",), ("B",)],
             effects=[marker("shield", "I8", 1), marker("poison", "H10", 1)])
    s, _ = play(s, 0, put("H9", "@blackhole"))
    s, _ = pass_(s, 1)  # 3x3: G8-I10
    assert kinds(s) == ["blackhole"]
    s, _ = pass_(s, 0)
    s, _ = pass_(s, 1)  # 7x7: E6-K12, with the brick wall of row 12
    squares = live_squares(s)
    area = [r * 15 + c for r in range(5, 12) for c in range(4, 11)]
    assert not any(squares[i].letter_mult > 1 or squares[i].word_mult > 1 for i in area)
    assert not any(squares[i].blocked for i in area)
    assert asked and set(asked) == {0.05}  # scenery destroyed by a Black Hole: 5% for an 11L


def test_a_black_hole_destroys_titanium():
    s = game(board="warofwords-fortress", racks=[("@blackhole",), ("B",)])
    s, _ = play(s, 0, put("D8", "@blackhole"))  # D8 is Titanium
    assert not live_squares(s)[sq("D8")].blocked


def test_shields_cannot_stop_a_black_hole():
    s = game(racks=[("@blackhole",), ("B",)], tiles=[("8H", "Z", 1)],
             effects=[marker("shield", "H9", 1)])
    s, events = play(s, 0, put("H8", "@blackhole"))
    assert letter_at(s, "H8") is None and points(events) == {1: -10}


def test_a_collapsing_black_hole_may_reveal_random_multipliers(monkeypatch):
    always(monkeypatch, True)
    s = game(racks=[("@blackhole",), ("B",)])
    s, _ = play(s, 0, put("H8", "@blackhole"))
    for seat in (1, 0, 1, 0):
        s, _ = pass_(s, seat)
    squares = live_squares(s)
    assert all(squares[r * 15 + c].letter_mult > 1 or squares[r * 15 + c].word_mult > 1
               for r in range(4, 11) for c in range(4, 11))


# --- Whirlwind ------------------------------------------------------------------------------


def test_a_whirlwind_lives_for_three_of_its_owners_turns_and_acts_every_turn():
    s = game(racks=[("@whirlwind",), ("B",)])
    s, _ = play(s, 0, put("H8", "@whirlwind"))
    s, _ = apply(s, Pass(1))
    s = s.evolve(cells=(*s.cells[:sq("G7")], arena_mod.Tile("Z", False, 1), *s.cells[sq("G7") + 1:]))
    s, events = pass_(s, 0)  # owner's 2nd turn
    assert points(events, "whirlwind") == {1: -10}  # G7's 2L went in the first turn
    assert "whirlwind" in kinds(s)
    s, _ = pass_(s, 1)
    assert "whirlwind" in kinds(s)
    s, _ = pass_(s, 0)  # owner's 3rd turn: gone after it
    assert "whirlwind" not in kinds(s)


def test_a_moved_whirlwind_destroys_at_its_new_place_in_the_destructive_phase():
    from wordarena.engine.game import Play
    from wordarena.engine.game.actions import Move
    s = game(racks=[("@shield",), ("B",)], tiles=[("8G", "CAT", 1)],
             effects=[marker("whirlwind", "A1", 0)])
    s, events = apply(s, Play(0, (put("O15", "@shield"),), (Move(0, 0, 7, 7),)))
    assert letter_at(s, "H8") is None
    assert effect_events(events, "whirlwind")[0].data["destroyed"]


# --- Quicksand and Sandstorm ----------------------------------------------------------------


def test_quicksand_has_no_effect_off_sand():
    from wordarena.engine.errors import RuleError
    s = game(racks=[("@quicksand",), ("B",)])
    with pytest.raises(RuleError):
        play(s, 0, put("H8", "@quicksand"))


def test_quicksand_grows_1_3_5_rescoring_letters_on_sand_then_collapses(monkeypatch):
    always(monkeypatch, False)
    # Dune Sea: B5 Sand; A4-C6 Sand; E5 2W (not Sand); D6 2L (not Sand)
    s = game(board="warofwords-desert", racks=[("@quicksand", "A"), ("B",)],
             tiles=[("5B", "Z", 1), ("4A", "Q", 0), ("6D", "X", 1), ("3D", "K", 1)])
    s, events = play(s, 0, put("B5", "@quicksand"))
    assert points(events, "quicksand") == {1: 10}  # 1x1
    s, events = apply(s, Pass(1))
    assert points(events, "quicksand") == {0: 10, 1: 10}  # 3x3
    s, events = apply(s, Pass(0))
    assert points(events, "quicksand") == {0: 10, 1: 10 + 5}  # 5x5: K on D3; X on 2L not Sand
    s, events = pass_(s, 1)  # collapse
    assert "quicksand" not in kinds(s)
    assert letter_at(s, "B5") is None and letter_at(s, "A4") is None and letter_at(s, "D3") is None
    assert letter_at(s, "D6") == "X"  # not Sand
    assert points(events, "quicksand") == {0: -10, 1: -15}


def test_a_sandstorm_doubles_quicksand_and_quicksand_collapse_removes_shields(monkeypatch):
    asked = always(monkeypatch, True)
    s = game(board="warofwords-desert", racks=[("@quicksand", "@sandstorm"), ("B",)],
             tiles=[("5B", "Z", 1)], effects=[marker("shield", "A4", 1)])
    s, events = play(s, 0, put("B5", "@quicksand"), put("O1", "@sandstorm"))
    assert points(events, "quicksand") == {1: 20}
    for seat in (1, 0, 1):
        s, events = pass_(s, seat)
    assert "shield" not in kinds(s)
    assert 0.10 in asked and any(q.letter_mult == 11 for q in live_squares(s))


def test_shields_cannot_stop_quicksand(monkeypatch):
    always(monkeypatch, False)
    s = game(board="warofwords-desert", racks=[("@quicksand",), ("B",)],
             tiles=[("5B", "Z", 1)], effects=[marker("shield", "B6", 1)])
    s, _ = play(s, 0, put("B5", "@quicksand"))
    for seat in (1, 0, 1):
        s, _ = pass_(s, seat)
    assert letter_at(s, "B5") is None


# --- Lightning and Water ----------------------------------------------------------------------


def test_lightning_doubles_electrification_up_to_512_which_takes_nine_lightning_tiles():
    s = game(board="warofwords-oasis", racks=[("@lightning",) * 8, ("@lightning",) * 2])
    patch = s.ruleset.board.water_patch[sq("D4")]
    charges = []
    for _k in range(10):
        seat = s.to_move
        s = s.evolve(racks=tuple(("@lightning",) * 2 for _ in range(2)), bag=("E",) * 20)
        s, _ = play(s, seat, put("D4", "@lightning"))
        charges.append(s.electrification[patch])
    assert charges == [2, 4, 8, 16, 32, 64, 128, 256, 512, 512]
    assert sum(1 for c in s.electrification if c > 1) == 1  # other ponds are independent


def test_the_electrification_multiplier_scores_letters_played_on_that_water():
    s = game(board="warofwords-oasis", racks=[("@lightning",), ("Z", "A")])
    s, _ = play(s, 0, put("D4", "@lightning"))
    _, events = play(s, 1, word("4D", "ZA"))
    assert events[0].data["score"] == 10 * 2 + 1 * 2


@pytest.mark.parametrize("board", ["warofwords-delta", "warofwords-swamp"])
def test_water_on_river_delta_and_swampland_is_joined(board):
    s = game(board=board, racks=[("@lightning",), ("B",)])
    water = [i for i, q in enumerate(s.ruleset.board.squares) if q.terrain == "water"]
    assert len(s.electrification) == 1 and len({s.ruleset.board.water_patch[i] for i in water}) == 1
    s, _ = play(s, 0, put(f"{'ABCDEFGHIJKLMNO'[water[-1] % 15]}{water[-1] // 15 + 1}", "@lightning"))
    assert s.electrification == (2,)


def test_water_patches_are_normally_independent():
    s = game(board="warofwords-oasis", racks=[("@lightning",), ("B",)])
    assert len(s.electrification) == 4
