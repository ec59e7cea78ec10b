"""Bots weigh what keeping an action tile for later is worth (issue 14: "the bots value action
tiles"): ``engine.bots.actionkeep`` — the worth of holding a tile is an optimal stop over the
turns left, from the shipped distribution of the gains a tile of its kind offers a turn."""

from __future__ import annotations

import pytest
from wow_helpers import game

from wordarena.engine.bots import Bot, tactics
from wordarena.engine.bots.actionkeep import KeepTable
from wordarena.engine.game import Exchange, Play
from wordarena.engine.lexicon import load_lexicon


def test_holding_a_tile_is_worth_an_optimal_stop_over_the_turns_left() -> None:
    """Gains of 0 or 10, equally likely: with one turn left holding is worth their mean (5);
    with two, stop at a 10 or else take the last turn's mean: (10 + 5) / 2; never more than
    the best gain, and nothing with no turn left or for a kind never measured."""
    table = KeepTable({"bomb": (0.0, 10.0)}, tiles_per_turn=2.0)
    assert [table.worth("bomb", k) for k in (0, 1, 2, 3)] == [0.0, 5.0, 7.5, 8.75]
    assert table.worth("bomb", 50) <= 10.0
    assert table.worth("shield", 5) == 0.0
    state = game(racks=(("@bomb",), ("E",)), bag=tuple("E" * 12))
    assert table.turns_left(state) == 3  # 12 tiles in the bag, 2 players drawing 2 a turn
    assert table.keep(state, "bomb") == 8.75


@pytest.fixture(scope="module")
def lexicon():  # type: ignore[no-untyped-def]
    return load_lexicon("en")


def _bombs(action: object) -> bool:
    return isinstance(action, Play) and any(p.letter == "@bomb" for p in action.placements)


@pytest.mark.parametrize("bag, spends", [(tuple("E" * 40), False), ((), True)])
def test_a_strong_bot_keeps_a_tile_for_a_better_turn_unless_the_game_is_ending(
    lexicon, bag: tuple[str, ...], spends: bool  # type: ignore[no-untyped-def]
) -> None:
    """A Bomb that would destroy only the opponent's AT (a small gain) is kept while many turns
    are left for a Bomb's usual 20 points, and spent once the bag is empty."""
    usual = KeepTable({"bomb": (20.0,)}, tiles_per_turn=2.0, games=1)
    state = game(racks=(("@bomb", "D", "O", "G"), ("E",)), tiles=[("8G", "AT", 1)], bag=bag)
    gains = [a.gain for a in tactics.candidates(state, 0, (), []) if a.placements[0].letter == "@bomb"]
    assert 1.0 < max(gains) < 20.0  # worth spending for a bot that does not weigh keeping it
    action = Bot(5, 1, lexicon, keep=usual).choose(state)
    assert _bombs(action) is spends


@pytest.mark.parametrize("measured, keeps", [(True, True), (False, False)])
def test_an_exchange_keeps_an_action_tile_worth_holding(
    lexicon, measured: bool, keeps: bool  # type: ignore[no-untyped-def]
) -> None:
    """With no word to play, a strong bot exchanges: a Bomb worth 20 points held is kept over
    letters that make no words; a kind the table has not measured is thrown back first."""
    usual = KeepTable({"bomb": (20.0,)} if measured else {}, tiles_per_turn=2.0, games=1)
    state = game(racks=(("@bomb", "Q", "Q", "V", "V", "J", "X"), ("E",)), bag=tuple("E" * 40))
    action = Bot(5, 1, lexicon, keep=usual).choose(state)
    assert isinstance(action, Exchange)
    assert ("@bomb" not in action.tiles) is keeps
