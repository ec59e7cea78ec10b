"""The generator against a slow, obviously-correct enumerator, and against ``apply``."""

from __future__ import annotations

import pytest
from mg_support import FAMILIES, brute_force, random_position, small_lexicon

from wordarena.engine.game import apply
from wordarena.engine.movegen import generate_moves, generator
from wordarena.engine.movegen.before_run import left_parts_before_run


def _check(family: str, seed: int, lexicon=None, **position) -> int:
    lexicon = lexicon or small_lexicon()
    state = random_position(family, seed, lexicon, **position)
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


def _before_long_words(monkeypatch: pytest.MonkeyPatch, family: str, jokers) -> None:
    """Positions with longer words and fuller boards, where anchors before a run of three
    tiles or more (``before_run``, left parts found backwards from the run) are common: the
    generator against the brute force, and proof that such left parts were found."""
    found: list[int] = []

    def counted(*args):
        parts = left_parts_before_run(*args)
        found.append(sum(len(group) for group in parts))
        return parts

    monkeypatch.setattr(generator, "left_parts_before_run", counted)
    lexicon = small_lexicon(20000, 11, longest=7)
    for seed in range(6):
        _check(family, seed, lexicon, plays=7, rack_len=4, jokers=jokers(seed))
    assert len(found) > 0 and sum(found) > 0, f"no anchor before a long word was tried: {found}"


@pytest.mark.parametrize("family", FAMILIES)
def test_left_parts_before_long_words_match_brute_force(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # War of Words: a wildcard on every rack
    _before_long_words(monkeypatch, family, lambda seed: 1 if family == "warofwords" else seed % 2)


@pytest.mark.slow
def test_wildcard_left_parts_before_long_words_match_brute_force(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two wildcards on every other rack: a wildcard inside the left part (about a minute)
    _before_long_words(monkeypatch, "warofwords", lambda seed: 1 + seed % 2)
