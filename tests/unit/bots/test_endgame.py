"""The end-game search against a brute-force minimax played with the engine's own ``apply``,
on real end games from seeded self-play, and the pre-end-game chooser."""

from __future__ import annotations

import math
from collections import Counter

import pytest
import soak

from wordarena.engine.bots import endgame_native
from wordarena.engine.bots.endcorpus import empty_bag_positions, small_racks
from wordarena.engine.bots.endgame import action_value, played, solve_endgame, spread, supports
from wordarena.engine.bots.preendgame import possible_bags, preendgame_choice
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Action, Decide, Pass, apply, start_game
from wordarena.engine.game.state import GameState
from wordarena.engine.movegen import generate_moves

# 200 small end games under --soak, 40 by default (tests/soak.py): (family, positions, rack cuts
# per self-play game). Word Tiles' brute force is the slowest (a pending play is accepted or
# checked; 4 zero turns end its game).
SMALL = soak.pick((("classic", 130, 10), ("scrabble", 50, 10), ("wordtiles", 20, 5)),
                  (("classic", 24, 10), ("scrabble", 10, 10), ("wordtiles", 6, 5)))
# The implementations of the search: the Python reference, and the C one when it is built
# (engine.bots.endgame_native); each is checked on its own against brute force.
ENGINES = ("python", "native") if endgame_native.available() else ("python",)


def brute_force(state: GameState, lexicon, plays: dict | None = None) -> int:
    """Seat 0's final spread under minimax over every action, each applied by the engine: no
    pruning, no table of values, no shortcut in the rules (a pending Word Tiles play is
    accepted or checked, as the rules allow). ``plays`` only saves generating a board and
    rack's moves twice."""
    plays = {} if plays is None else plays
    if state.over:
        return state.scores[0] - state.scores[1]
    seat = state.to_move
    actions: list[Action]
    if state.pending is not None:
        actions = [Decide(seat, True), Decide(seat, False)]
    else:
        key = (state.cells, seat, state.racks[seat])
        if key not in plays:
            plays[key] = [m.to_play(seat) for m in generate_moves(state, seat, lexicon)]
        actions = [*plays[key], Pass(seat)]
    values = [brute_force(apply(state, action)[0], lexicon, plays) for action in actions]
    return max(values) if seat == 0 else min(values)


def small_end_games(lexicon) -> list[GameState]:
    out: list[GameState] = []
    for family, count, cuts in SMALL:
        mine: list[GameState] = []
        for state in empty_bag_positions(family, range(100), lexicon, (4, 4)):
            mine += [small_racks(state, cut) for cut in range(cuts)]
            if len(mine) >= count:
                break
        out += mine[:count]
    return out


@pytest.mark.soak
@pytest.mark.timeout(900)  # ~2 CPU minutes of brute force under --soak; the machine is shared
def test_the_search_agrees_with_brute_force_on_200_small_end_games(lexicon) -> None:
    positions = small_end_games(lexicon)
    assert len(positions) == sum(count for _, count, _ in SMALL)
    assert {p.ruleset.family for p in positions} == {"classic", "scrabble", "wordtiles"}
    outcomes = Counter()
    for state in positions:
        if state.ruleset.family != "wordtiles":  # apply needs no lexicon: the words are valid
            state = state.evolve(lexicon=None, check_words=False)
        exact = brute_force(state, lexicon)
        mine = exact if state.to_move == 0 else -exact
        results = [solve_endgame(state, lexicon, budget_s=60.0, engine=e) for e in ENGINES]
        for result in results:
            assert result.exact
            assert result.value == mine, (state.ruleset.family, state.racks, state.scores)
            # Its principal variation, played by the engine, ends the game with that spread.
            line = played(state, result.pv)
            assert line.over and spread(line, state.to_move) == mine
        # The same search in C: the same move, line and tree.
        first = results[0]
        assert all((r.action, r.pv, r.nodes, r.depth) == (first.action, first.pv, first.nodes,
                                                          first.depth) for r in results)
        outcomes[(first.value > spread(state, state.to_move), len(first.pv) > 1)] += 1
    assert len(outcomes) >= 3  # not all one kind of end game: wins, losses, long and short lines


def test_an_actions_value_is_brute_forces_after_it(lexicon) -> None:
    """``action_value`` (the bench's judge of a budgeted move: ``bench/endgame.py --optimal``)
    of every first action of small end games equals brute force's value after that action
    (in Word Tiles brute force plays the opponent's accept and check); the best of them is the
    search's exact value."""
    positions = small_end_games(lexicon)
    picked = [p for p in positions if p.ruleset.family == "classic"][:8]
    picked += [p for p in positions if p.ruleset.family == "scrabble"][:4]
    picked += [p for p in positions if p.ruleset.family == "wordtiles"][:4]
    optimal = 0
    for state in picked:
        if state.ruleset.family != "wordtiles":
            state = state.evolve(lexicon=None, check_words=False)
        seat = state.to_move
        first = [m.to_play(seat) for m in generate_moves(state, seat, lexicon)] + [Pass(seat)]
        values = []
        for action in first:
            value, exact = action_value(state, lexicon, action)
            truth = brute_force(apply(state, action)[0], lexicon)
            assert exact and value == (truth if seat == 0 else -truth), (state.racks, action)
            values.append(value)
        solved = solve_endgame(state, lexicon, 60.0)
        assert max(values) == solved.value
        optimal += values.count(solved.value) < len(values)  # some action is not optimal
    assert optimal >= 4  # the comparison can tell an optimal action from one that is not


def test_real_end_games_are_solved_and_their_line_scores_what_it_says(lexicon) -> None:
    """Real end games from self-play, a few turns in (both racks full is the bench's job):
    the search finishes, and its principal variation, played by the engine, ends the game
    with the final spread it announced; a node limit makes it repeatable."""
    checked = 0
    # Game 100 (with the 20,000-game leave tables) ends in a V that can never be played against
    # five tiles: the other seat plays out at leisure, 4.4 M nodes for the native search and
    # 37.5 M without the table's cutoffs, too many for the Python search here; the games
    # after it are ordinary end games.
    for state in empty_bag_positions("classic", range(101, 107), lexicon):
        while sum(len(r) for r in state.racks) > 6 and not state.over:
            moves = generate_moves(state, state.to_move, lexicon)
            seat = state.to_move
            state, _ = apply(state, moves[-1].to_play(seat) if moves else Pass(seat))
        if state.over:
            continue
        for engine in ENGINES:
            result = solve_endgame(state, lexicon, budget_s=120.0, engine=engine)
            assert result.exact and result.pv[0] == result.action
            seat, line = state.to_move, played(state, result.pv)
            assert line.over and spread(line, seat) == result.value
            again = solve_endgame(state, lexicon, budget_s=120.0, engine=engine)
            assert (again.action, again.value, again.nodes) == (result.action, result.value,
                                                                result.nodes)
            # The table's bounds are right: without its cutoffs the search finds the same value.
            plain = solve_endgame(state, lexicon, budget_s=300.0, table_cutoffs=False,
                                  engine=engine)
            assert plain.exact and plain.value == result.value
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("engine", ENGINES)
def test_a_search_out_of_budget_returns_a_legal_move_and_says_it_is_not_exact(
    lexicon, engine: str
) -> None:
    state = next(empty_bag_positions("classic", range(3), lexicon))
    result = solve_endgame(state, lexicon, budget_s=60.0, node_limit=50, engine=engine)
    assert not result.exact and result.nodes <= 51
    apply(state, result.action)  # legal


@pytest.mark.parametrize("engine", ENGINES)
def test_a_search_cut_short_returns_the_best_move_its_last_iteration_has_found(lexicon, engine: str) -> None:
    """Out of nodes in the middle of an iteration, the search returns the best root move that
    iteration had searched to its end (the first searched is the last finished iteration's
    best, so another comes back only when it did better), not the finished iteration's."""
    state = next(empty_bag_positions("classic", range(1), lexicon))

    def run(limit: int):
        return solve_endgame(state, lexicon, math.inf, node_limit=limit, engine=engine)

    cut = run(1000)
    low, high = 1, 1000  # the node count at which its last finished iteration ended
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if run(middle).depth >= cut.depth else (middle + 1, high)
    finished = run(low)
    assert not cut.exact and finished.depth == cut.depth and finished.nodes < cut.nodes
    assert cut.action != finished.action  # 1 turn deep one move, 2 turns (in part) another
    apply(state, cut.action)  # legal


def test_positions_the_search_does_not_cover_are_refused(lexicon) -> None:
    wow, _ = start_game(get_ruleset("warofwords"), 2, 1, lexicon)
    with pytest.raises(ValueError):
        solve_endgame(wow.evolve(bag=()), lexicon, 1.0)
    classic, _ = start_game(get_ruleset("classic"), 2, 1, lexicon)
    assert not supports(classic)  # the bag is full
    assert supports(classic.evolve(bag=()))


def test_possible_bags_are_every_distinct_draw_weighted_by_its_ways() -> None:
    import random

    unseen = list("AABCD")
    bags = possible_bags(unseen, 2, 100, random.Random(0))
    assert sum(w for _, w in bags) == math.comb(5, 2)
    assert dict(bags)[("A", "A")] == 1 and dict(bags)[("A", "B")] == 2
    assert len(bags) == len({b for b, _ in bags})
    sampled = possible_bags(list("ABCDEFGHIJKLMN"), 7, 24, random.Random(0))
    assert len(sampled) == 24 and all(w == 1 for _, w in sampled)


def test_the_pre_end_game_scores_its_candidates_over_the_bags_repeatably(lexicon) -> None:
    state = next(empty_bag_positions("classic", range(200, 210), lexicon))
    # Go back to a bag of 1: give one of the mover's tiles back to the bag.
    seat = state.to_move
    rack = state.racks[seat]
    back = state.evolve(
        bag=rack[:1], racks=tuple(r[1:] if i == seat else r for i, r in enumerate(state.racks))
    )
    first = preendgame_choice(back, lexicon, budget_s=120.0, seed=3, candidates=4, node_limit=500)
    again = preendgame_choice(back, lexicon, budget_s=120.0, seed=3, candidates=4, node_limit=500)
    assert first.complete
    assert first.action == again.action and first.candidates == again.candidates
    assert first.candidates[0].action == first.action
    means = [c.mean for c in first.candidates]
    assert means == sorted(means, reverse=True)
    assert any(isinstance(c.action, Pass) for c in first.candidates)
    unseen = len(back.bag) + len(back.racks[1 - seat])
    assert all(c.bags == unseen for c in first.candidates)  # each unseen tile may be the bag
    apply(back, first.action)  # legal


def test_pre_end_game_positions_have_exactly_the_bag_asked_for(lexicon) -> None:
    from wordarena.engine.bots.endcorpus import bag_positions

    found = list(bag_positions("classic", range(90_000, 90_040), lexicon, 1))
    assert found  # a bag of exactly 1 is met in some of 40 games
    assert all(len(s.bag) == 1 and s.pending is None and not s.over for s in found)
    assert len({s.seed for s in found}) == len(found)  # one per game at most


def test_the_pre_end_game_ranked_by_wins_puts_the_share_of_bags_won_first(lexicon) -> None:
    state = next(empty_bag_positions("classic", range(200, 210), lexicon))
    seat = state.to_move
    back = state.evolve(
        bag=state.racks[seat][:1],
        racks=tuple(r[1:] if i == seat else r for i, r in enumerate(state.racks)),
    )
    by_wins = preendgame_choice(back, lexicon, 120.0, seed=3, candidates=4, node_limit=500, by_wins=True)
    by_spread = preendgame_choice(back, lexicon, 120.0, seed=3, candidates=4, node_limit=500)
    order = [(c.win_share, c.mean) for c in by_wins.candidates]
    assert order == sorted(order, reverse=True)
    assert sorted(by_wins.candidates, key=repr) == sorted(by_spread.candidates, key=repr)  # same values
    assert by_wins.action == by_wins.candidates[0].action
