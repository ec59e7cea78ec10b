"""Hindsight "best by simulation": the level-6 simulation of a turn's best plays, from what the
seat could see (the same verdict whichever way the unseen tiles lay), the same every time."""

from __future__ import annotations

import random

import pytest

from wordarena.engine.analysis import best_by_simulation
from wordarena.engine.bots import Bot
from wordarena.engine.bots.simulation import SimSettings
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import apply, start_game
from wordarena.engine.movegen import generate_moves

SMALL = SimSettings(candidates=3, iterations=8, min_iterations=8, budget_s=0)


@pytest.fixture(scope="module")
def position():
    from wordarena.engine.lexicon import load_lexicon

    lexicon = load_lexicon("en")
    state, _ = start_game(get_ruleset("classic"), 2, 21, lexicon)
    for _ in range(3):
        state, _ = apply(state, Bot(4, 0, lexicon).choose(state))
    return state


def _summary(found):
    return [(a.candidate.move, a.candidate.exchange, a.iterations, round(a.candidate.mean, 6)) for a in found]


def test_the_verdict_is_repeatable_and_ranks_the_best_plays(position) -> None:
    seat = position.to_move
    found = best_by_simulation(position, seat, top=3, settings=SMALL)
    assert _summary(found) == _summary(best_by_simulation(position, seat, 3, SMALL))
    plays = [a.candidate.move for a in found if a.candidate.move is not None]
    assert len(plays) == 3 and set(plays) <= set(generate_moves(position, seat))
    assert any(not a.candidate.live or a.iterations == SMALL.iterations for a in found)
    assert any(a.candidate.move is None and a.candidate.exchange for a in found)  # the exchange


def test_the_verdict_never_depends_on_the_opponent_rack_or_the_bag_order(position) -> None:
    seat, other = position.to_move, 1 - position.to_move
    hidden = list(position.bag) + list(position.racks[other])
    random.Random(5).shuffle(hidden)
    size = len(position.racks[other])
    racks = list(position.racks)
    racks[other] = tuple(hidden[:size])
    dealt = position.evolve(racks=tuple(racks), bag=tuple(hidden[size:]))
    assert dealt.racks[other] != position.racks[other]
    assert _summary(best_by_simulation(dealt, seat, 3, SMALL)) == _summary(
        best_by_simulation(position, seat, 3, SMALL)
    )
