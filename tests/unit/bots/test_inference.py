"""Inference (level 6): the opponent's leave read from its last play — only from what the seat
sees, consistent with the real leave, more often right than chance, repeatable; and the
simulated worlds dealt from it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from wordarena.engine.bots import Bot, leave_table, play_game
from wordarena.engine.bots.inference import (
    MARGIN,
    consistent,
    infer_leaves,
    last_play,
    score_of,
)
from wordarena.engine.bots.simulation import LeaveMemo, SimSettings, deal, unseen_pool
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Exchange, Pass, Play, apply, start_game
from wordarena.engine.tiles import BLANK, remove_tokens


@pytest.fixture(scope="module")
def lexicon():
    from wordarena.engine.lexicon import load_lexicon

    return load_lexicon("en")


@pytest.fixture(scope="module")
def seen(lexicon):
    """(state before the opponent's play, its play, the state after) for every play of two
    seeded level-5 classic games with tiles left in the bag."""
    found = []

    def hook(before, action, after):
        if isinstance(action, Play) and after.bag and not after.over and after.pending is None:
            found.append((before, action, after))

    for g in range(2):
        play_game(get_ruleset("classic"), [Bot(5, g, lexicon), Bot(5, g + 7, lexicon)], 300 + g,
                  lexicon, on_turn=hook)
    return found


def _tokens(action: Play) -> tuple[str, ...]:
    return tuple(BLANK if p.blank else p.letter for p in action.placements)


def _real_leave(before, action) -> tuple[str, ...]:
    return tuple(sorted(remove_tokens(before.racks[action.seat], _tokens(action))))


def test_the_last_play_is_read_off_the_board(seen, lexicon) -> None:
    before, action, after = seen[3]
    play = last_play(after, after.to_move)
    assert play is not None and play.seat == action.seat
    assert play.before.cells == before.cells  # the board without the play is the board before it
    assert sorted(play.tokens) == sorted(_tokens(action))
    assert score_of(play, lexicon) == after.scores[action.seat] - before.scores[action.seat]


def test_the_real_leave_of_a_level5_play_is_always_consistent_with_it(seen, lexicon) -> None:
    table = leave_table("classic")
    memo = LeaveMemo(table)
    checked = 0
    for before, action, after in seen:
        play = last_play(after, after.to_move)
        kept = _real_leave(before, action)
        if play is None or not kept:
            continue
        actual = score_of(play, lexicon)
        assert actual is not None
        assert consistent(play, kept, actual, after.bag + play.tokens, lexicon, memo, MARGIN), (
            f"turn {before.turn}: a level-5 play judged inconsistent with its own leave {kept}")
        checked += 1
    assert checked >= 20


def test_inferred_leaves_hold_the_real_tiles_more_often_than_random_draws(seen, lexicon) -> None:
    """The information it adds: across the games' plays, the share of inferred leaves holding
    every tile the opponent really kept, against the same share of uniform draws."""
    table = leave_table("classic")
    inferred, uniform = [], []
    for k, (before, action, after) in enumerate(seen):
        kept = _real_leave(before, action)
        found = infer_leaves(after, after.to_move, lexicon, table, 150, k).leaves
        if not kept or not found:
            continue
        wanted = Counter(kept)
        pool = unseen_pool(after, after.to_move)
        rng = random.Random(k)
        draws = [tuple(rng.sample(pool, len(kept))) for _ in range(150)]
        inferred.append(sum(not (wanted - Counter(x)) for x in found) / len(found))
        uniform.append(sum(not (wanted - Counter(x)) for x in draws) / len(draws))
    assert len(inferred) >= 20
    assert sum(inferred) > 1.5 * sum(uniform)


def test_inference_reads_neither_the_opponents_rack_nor_the_bag_order(seen, lexicon) -> None:
    _, _, after = seen[5]
    seat, other = after.to_move, 1 - after.to_move
    table = leave_table("classic")
    swapped = list(unseen_pool(after, seat))
    random.Random(3).shuffle(swapped)
    size = len(after.racks[other])
    racks = list(after.racks)
    racks[other] = tuple(swapped[:size])
    blind = after.evolve(racks=tuple(racks), bag=tuple(swapped[size:]))
    first = infer_leaves(after, seat, lexicon, table, 120, 1)
    assert first.leaves
    assert infer_leaves(blind, seat, lexicon, table, 120, 1) == first  # and repeatable


def test_nothing_is_inferred_without_an_opponents_play_to_read(seen, lexicon) -> None:
    _, _, after = seen[4]
    seat = after.to_move
    # the seat passes, the opponent exchanges: the play on the board is no longer its last turn
    passed, _ = apply(after, Pass(seat))
    bot = Bot(5, 0, lexicon)
    keep, _ = bot.best_exchange(passed, passed.to_move) or ((), 0.0)
    tiles = remove_tokens(passed.racks[passed.to_move], keep) or passed.racks[passed.to_move]
    exchanged, _ = apply(passed, Exchange(passed.to_move, tiles))
    assert last_play(exchanged, seat) is None
    # the seat's own play is not the opponent's
    assert last_play(after, 1 - seat) is None
    # War of Words is not read (its effects change the board between turns)
    wow, _ = start_game(get_ruleset("warofwords"), 2, 1, lexicon)
    assert infer_leaves(wow, 0, lexicon, leave_table("warofwords"), 50, 0).leaves == ()


def test_a_world_gives_the_opponent_an_inferred_leave_and_keeps_every_tile(seen) -> None:
    _, _, after = seen[6]
    seat, other = after.to_move, 1 - after.to_move
    pool = unseen_pool(after, seat)
    leaves = (tuple(pool[:3]), tuple(pool[-2:]))
    for r in range(20):
        world = deal(after, seat, pool, random.Random(r), leaves)
        rack = world.racks[other]
        assert len(rack) == len(after.racks[other])
        assert any(not (Counter(x) - Counter(rack)) for x in leaves)
        assert sorted(rack + world.bag) == pool
        assert world.racks[seat] == after.racks[seat]


def test_level6_with_inference_plays_whole_games(lexicon) -> None:
    six = Bot(6, 1, lexicon, sim=SimSettings(candidates=4, iterations=8, min_iterations=8,
                                             budget_s=0, inference=60))
    outcome = play_game(get_ruleset("classic"), [six, Bot(5, 2, lexicon)], 11, lexicon)
    assert outcome.winners and sum(outcome.scores) > 300
