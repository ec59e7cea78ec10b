"""War of Words: "If the board is irradiated (meaning a Nuclear Bomb had been played at some
point), all letters are worth 1 point." — all letters: those left on a rack at the end count 1
each too, as the words and the destroyed letters do (issue 41, item 18; docs/rules.md)."""

from __future__ import annotations

from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Pass, apply, set_rack, start_game


def _ended_by_passes(irradiated: bool) -> tuple[int, ...]:
    state, _ = start_game(get_ruleset("warofwords"), 2, 3, None, False)
    state = set_rack(set_rack(state, 1, ("A", "E")), 0, ("Q", "Z"))
    state = state.evolve(irradiated=irradiated)
    seat = state.to_move
    for _ in range(40):
        if state.over:
            break
        state = apply(state, Pass(seat))[0]
        seat = state.to_move
    assert state.over and state.result is not None
    return state.result.adjustments


def test_letters_left_on_a_rack_count_one_point_each_on_an_irradiated_board() -> None:
    # before: Q and Z were deducted at face value (10 + 10) after a Nuclear Bomb
    assert _ended_by_passes(irradiated=True) == (-2, -2)


def test_letters_left_on_a_rack_count_their_face_value_otherwise() -> None:
    assert _ended_by_passes(irradiated=False) == (-20, -2)
