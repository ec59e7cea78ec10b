"""The level ladder from the outside: weaker levels play like people with a smaller vocabulary
who miss bingos (not random moves), every level is deterministic for a seed, and Word Tiles
bots check a pending play from what the lexicon says of it."""

from __future__ import annotations

import pytest

from wordarena.engine.bots import Bot
from wordarena.engine.bots.ladder import knows
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Decide, Play, apply, set_rack, start_game
from wordarena.engine.movegen import describe_move, generate_moves
from wordarena.engine.placement import Placement


def _opened(lexicon, seed: int = 3):  # type: ignore[no-untyped-def]
    """A classic game two plays in (level 4 openings), so there are words to play through."""
    state, _ = start_game(get_ruleset("classic"), 2, seed, lexicon)
    for _ in range(2):
        state, _ = apply(state, Bot(4, 0, lexicon).choose(state))
    return state


def _word(state, action: Play) -> str:  # type: ignore[no-untyped-def]
    """The main word of ``action`` as the engine describes it (through the generator's move)."""
    moves = {m.placements(): m for m in generate_moves(state, action.seat)}
    move = moves[action.placements]
    return describe_move(state.ruleset, state.cells, move).word.upper()


@pytest.mark.parametrize("level,longest", [(1, 4), (2, 5)])
def test_weak_levels_play_their_best_word_within_a_small_vocabulary(
    level: int, longest: int, lexicon
) -> None:  # type: ignore[no-untyped-def]
    """Not a random move: the best-scoring move whose main word the level knows (short
    words only), which scores less than the expert's best on these positions."""
    below_best = 0
    for seed in range(6):
        state = _opened(lexicon, seed)
        action = Bot(level, seed, lexicon).choose(state)
        if not isinstance(action, Play):
            continue
        word = _word(state, action)
        assert len(word) <= longest and knows(level, word)
        moves = generate_moves(state, state.to_move, lexicon)
        within = [
            m
            for m in moves
            if m.tile_count < 7 and knows(level, describe_move(state.ruleset, state.cells, m).word.upper())
        ]
        assert (
            within
            and apply(state, action)[0].scores[state.to_move] - state.scores[state.to_move] == within[0].score
        )
        below_best += within[0].score < moves[0].score
    assert below_best >= 3  # the smaller vocabulary costs points on most positions


def test_vocabularies_are_nested(lexicon) -> None:  # type: ignore[no-untyped-def]
    """What a weaker level knows, every stronger level knows too; the weakest knows about half
    of the short words."""
    words = [
        "CAT",
        "DOG",
        "QI",
        "ZA",
        "EAT",
        "TEA",
        "ATE",
        "JO",
        "OX",
        "AXE",
        "QUIZ",
        "RATE",
        "TEAR",
        "STARE",
        "TRADE",
        "ROASTED",
        "RETAINS",
    ] + [f"{a}{b}" for a in "AEIO" for b in "DMNST"]
    for w in words:
        for lower in (1, 2, 3):
            if knows(lower, w):
                assert all(knows(higher, w) for higher in range(lower + 1, 6))
    short = [w for w in words if len(w) <= 4]
    share = sum(knows(1, w) for w in short) / len(short)
    assert 0.2 < share < 0.8
    assert not knows(1, "STARE") and not knows(2, "ROASTED") and knows(4, "ROASTED")


def test_bingos_are_missed_by_weak_levels_and_found_by_strong_ones(lexicon) -> None:  # type: ignore[no-untyped-def]
    """RETAINS on an empty board is worth far more than any shorter word: levels 4-5 always
    play it, level 3 on some seeds only, levels 1-2 never."""
    state, _ = start_game(get_ruleset("classic"), 2, 3, lexicon)
    state = set_rack(state, 0, tuple("RETAINS"))
    assert state.to_move == 0

    def bingos(level: int) -> int:
        out = 0
        for seed in range(20):
            action = Bot(level, seed, lexicon).choose(state)
            out += isinstance(action, Play) and len(action.placements) == 7
        return out

    assert bingos(4) == bingos(5) == 20
    assert 0 < bingos(3) < 20
    assert bingos(1) == bingos(2) == 0


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_every_level_is_deterministic_for_a_seed(level: int, lexicon) -> None:  # type: ignore[no-untyped-def]
    state = _opened(lexicon, 5)
    first = [Bot(level, 9, lexicon).choose(state) for _ in range(2)]
    assert first[0] == first[1]


# --- Word Tiles: accept or check ----------------------------------------------------------


def _pending(lexicon, letters: str):  # type: ignore[no-untyped-def]
    state, _ = start_game(get_ruleset("wordtiles"), 2, 3, lexicon, check_words=True)
    state = set_rack(state, 0, (*letters, *"AEIOU"[: 7 - len(letters)]))
    play = Play(0, tuple(Placement(7, 7 + k, ch) for k, ch in enumerate(letters)))
    state, _ = apply(state, play)
    assert state.pending is not None
    return state


def _checks(state, level: int, seeds: int = 60) -> int:  # type: ignore[no-untyped-def]
    return sum(Bot(level, s).choose(state) == Decide(1, False) for s in range(seeds))


def test_wordtiles_phantoms_are_caught_as_often_as_the_level_allows(lexicon) -> None:  # type: ignore[no-untyped-def]
    """QX is not a word: levels 4-5 always check it; weaker levels catch it only sometimes,
    the weakest least (they stay beatable)."""
    phantom = _pending(lexicon, "QX")
    assert _checks(phantom, 5) == _checks(phantom, 4) == 60
    caught = [_checks(phantom, level) for level in (1, 2, 3)]
    assert 0 < caught[0] < caught[2] < 60 and caught[0] <= caught[1] <= caught[2]


def test_wordtiles_valid_plays_are_accepted_by_strong_levels(lexicon) -> None:  # type: ignore[no-untyped-def]
    """A check of a valid play loses the checker its turn: levels 3-5 never check a word
    they know; a beginner may doubt a valid word it does not know (but never one it knows)."""
    valid = _pending(lexicon, "QI")
    for level in (3, 4, 5):
        assert _checks(valid, level) == 0
    known = next(w for w in ("AT", "TO", "IT", "AN", "ON") if knows(1, w))
    assert _checks(_pending(lexicon, known), 1) == 0
    unknown = next(w for w in ("ZA", "XI", "JO", "QI", "OX") if not knows(1, w) and knows(3, w))
    assert 0 < _checks(_pending(lexicon, unknown), 1) < 60
