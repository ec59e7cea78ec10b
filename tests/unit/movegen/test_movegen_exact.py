"""The generator against a slow, obviously-correct enumerator, and against ``apply``."""

from __future__ import annotations

import pytest
from mg_support import FAMILIES, brute_force, random_position, small_lexicon

from engine.game import apply
from engine.movegen import generate_moves


def _check(family: str, seed: int) -> int:
    lexicon = small_lexicon()
    state = random_position(family, seed, lexicon)
    moves = generate_moves(state)
    keys = [m.key for m in moves]
    assert len(keys) == len(set(keys)), "duplicate moves"
    got = {m.key: m.score for m in moves}
    expected = brute_force(state)
    missing = set(expected) - set(got)
    extra = set(got) - set(expected)
    assert not missing, f"{family} seed {seed}: missed {sorted(missing)[:5]}"
    assert not extra, f"{family} seed {seed}: invalid {sorted(extra)[:5]}"
    wrong = {k: (got[k], expected[k]) for k in got if got[k] != expected[k]}
    assert not wrong, f"{family} seed {seed}: wrong scores {list(wrong.items())[:5]}"
    for move in moves:
        _, events = apply(state, move.to_play(state.to_move))
        assert events[0].data["score"] == move.score
    return len(moves)


@pytest.mark.parametrize("family", FAMILIES)
def test_generator_matches_brute_force(family: str) -> None:
    total = sum(_check(family, seed) for seed in range(6))
    assert total > 0


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_generator_matches_brute_force_many(family: str) -> None:
    total = sum(_check(family, seed) for seed in range(1000, 1200))  # 200 positions per family
    assert total > 0


@pytest.mark.parametrize("family", FAMILIES)
def test_empty_board_matches_brute_force(family: str) -> None:
    lexicon = small_lexicon()
    for seed in range(3):
        state = random_position(family, seed, lexicon, plays=0, rack_len=4, jokers=seed % 2)
        got = {m.key: m.score for m in generate_moves(state)}
        assert got == brute_force(state)
