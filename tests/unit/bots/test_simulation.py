"""Simulation (level 6): repeatable, blind to what the seat cannot see, stops early, within its
budget; the level-6 bot and its seam to the exact end game."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from wordarena.engine.bots import Bot, champion, leave_table
from wordarena.engine.bots.endcorpus import empty_bag_positions, small_racks
from wordarena.engine.bots.endgame import solve_endgame
from wordarena.engine.bots.simulation import (
    Candidate,
    SimSettings,
    candidates_of,
    prune,
    simulate,
    unseen_pool,
)
from wordarena.engine.bots.winmodel import WIN_MODELS, WinModel, win_chance
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Pass, Play, apply, start_game
from wordarena.engine.movegen import generate_moves

FIXED = SimSettings(candidates=4, iterations=6, min_iterations=6, budget_s=0)


@pytest.fixture(scope="module")
def midgame(lexicon):
    state, _ = start_game(get_ruleset("classic"), 2, 5, lexicon)
    for _ in range(4):
        state, _ = apply(state, Bot(4, 0, lexicon).choose(state))
    return state


def _run(state, lexicon, settings=FIXED, seed=7, clock=None):
    seat = state.to_move
    table = leave_table(state.ruleset.family)
    moves = generate_moves(state, seat, lexicon)
    cands = candidates_of(state, seat, moves, table, settings.candidates, None)
    kwargs = {} if clock is None else {"clock": clock}
    return simulate(state, seat, cands, lexicon, table, settings, seed, **kwargs)


def _summary(result):
    return [(c.move, c.n, round(c.mean, 6), round(c.win, 6)) for c in result.ranked]


def test_the_same_seed_gives_the_same_simulation(midgame, lexicon) -> None:
    first, again = _run(midgame, lexicon), _run(midgame, lexicon)
    assert _summary(first) == _summary(again) and first.rounds == FIXED.iterations
    assert _summary(_run(midgame, lexicon, seed=8)) != _summary(first)  # the seed matters


def test_the_simulation_never_sees_the_opponent_rack_or_the_bag_order(midgame, lexicon) -> None:
    seat, other = midgame.to_move, 1 - midgame.to_move
    # the same position for the seat to move, with the unseen tiles dealt differently
    hidden = list(midgame.bag) + list(midgame.racks[other])
    random.Random(99).shuffle(hidden)
    size = len(midgame.racks[other])
    racks = list(midgame.racks)
    racks[other] = tuple(hidden[:size])
    dealt = midgame.evolve(racks=tuple(racks), bag=tuple(hidden[size:]))
    assert dealt.racks[other] != midgame.racks[other] and dealt.racks[seat] == midgame.racks[seat]
    assert unseen_pool(dealt, seat) == unseen_pool(midgame, seat)
    assert _summary(_run(dealt, lexicon)) == _summary(_run(midgame, lexicon))
    level6 = SimSettings(candidates=3, iterations=4, min_iterations=4, budget_s=0)
    assert Bot(6, 3, lexicon, sim=level6).choose(dealt) == Bot(6, 3, lexicon, sim=level6).choose(midgame)


def test_a_clearly_best_candidate_stops_the_simulation_early(midgame, lexicon) -> None:
    seat = midgame.to_move
    table = leave_table("classic")
    moves = generate_moves(midgame, seat, lexicon)
    best = Candidate(moves[0], float(moves[0].score))
    worst = Candidate(moves[-1], float(moves[-1].score))  # the lowest-scoring play
    assert moves[0].score - moves[-1].score >= 20
    settings = SimSettings(candidates=2, iterations=200, min_iterations=5, budget_s=0)
    result = simulate(midgame, seat, [worst, best], lexicon, table, settings, 1)
    assert result.decided and result.rounds < settings.iterations
    assert result.best is best and not worst.live


def test_the_time_budget_stops_mid_round_and_drops_the_unfinished_round(midgame, lexicon) -> None:
    ticks = iter(range(1000))  # a clock that advances one second per reading
    settings = SimSettings(candidates=4, iterations=100, min_iterations=50, budget_s=3)
    result = _run(midgame, lexicon, settings, clock=lambda: float(next(ticks)))
    # read at the start, then before each play-out after the first round: the third reading of
    # round 2 is past the budget, and that round's first two play-outs are dropped
    assert result.rounds == 1 and not result.decided
    assert [c.n for c in result.ranked] == [1] * len(result.ranked)
    assert all(len(c.wins) == 1 for c in result.ranked)


def test_win_chance_grows_with_the_spread_and_narrows_late() -> None:
    assert win_chance(0, 50, has_move=False) < 0.5 < win_chance(0, 50)  # having the move is worth points
    tempo = WIN_MODELS["classic"].tempo
    assert win_chance(-tempo, 50) == pytest.approx(0.5) == win_chance(tempo, 50, has_move=False)
    assert win_chance(-30, 50) < win_chance(10, 50) < win_chance(30, 50)
    assert win_chance(30, 2) > win_chance(30, 60)
    # nothing unseen: the game is over and the lead decides
    assert (win_chance(1, 0), win_chance(0, 0), win_chance(-1, 0)) == (1.0, 0.5, 0.0)


def test_win_chance_predicts_who_wins_self_play_games(lexicon) -> None:
    # The promise of Hindsight's win_chance: calibrated on real games. Seeded level-5 games,
    # each position seen by the seat to move; the fitted model must beat both a coin and the
    # first guess (4 points of deviation a tile, no tempo) on log-loss.
    from wordarena.engine.bots.selfplay import play_game

    seen: list[tuple[float, int, int, int]] = []  # lead, unseen, seat, game
    finals: list[tuple[int, ...]] = []
    for g in range(12):
        def on_turn(before, _action, _after, g=g) -> None:
            if before.pending is None:
                seat = before.to_move
                lead = before.scores[seat] - before.scores[1 - seat]
                seen.append((lead, len(unseen_pool(before, seat)), seat, g))

        bots = [Bot(5, g, lexicon), Bot(5, g + 1, lexicon)]
        finals.append(play_game(get_ruleset("classic"), bots, 700 + g, lexicon, on_turn).scores)

    def loss(model: WinModel) -> float:
        total = 0.0
        for lead, unseen, seat, g in seen:
            mine, theirs = finals[g][seat], finals[g][1 - seat]
            won = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            p = min(max(win_chance(lead, unseen, model), 1e-6), 1 - 1e-6)
            total -= won * math.log(p) + (1 - won) * math.log(1 - p)
        return total / len(seen)

    fitted = loss(WIN_MODELS["classic"])
    assert fitted < loss(WinModel(8.0, 0.0, 4.0, 0.0)) and fitted < math.log(2)


def test_level6_plays_a_candidate_by_simulation(midgame, lexicon) -> None:
    bot = Bot(6, 2, lexicon, sim=FIXED)
    action = bot.choose(midgame)
    assert isinstance(action, Play)
    apply(midgame, action)  # legal
    moves = generate_moves(midgame, midgame.to_move, lexicon)
    cands = candidates_of(midgame, midgame.to_move, moves, leave_table("classic"), 4, None)
    assert any(c.move is not None and c.move.to_play(midgame.to_move) == action for c in cands)


def _bag_empty(state):
    return state.evolve(bag=state.bag[:0])


def test_level6_end_game_plays_the_exact_search(lexicon) -> None:
    # A real end game with small racks: level 6 plays what the exact search finds, and so does
    # level 5 (at its node budget, no clock; since 8 December 2026); the search's move differs
    # from the best-scoring one (level 4's) in at least one of the positions (else the seam is
    # untested).
    ends = [
        small_racks(end, seed) for seed, end in enumerate(empty_bag_positions("classic", range(6), lexicon))
    ]
    differs = 0
    for end in ends:
        solved = solve_endgame(end, lexicon, math.inf, node_limit=champion.ENDGAME_NODES)
        assert solved.exact
        assert Bot(6, 4, lexicon, sim=FIXED).choose(end) == solved.action
        assert Bot(5, 4, lexicon).choose(end) == solved.action
        differs += Bot(4, 4, lexicon).choose(end) != solved.action
    assert differs


def test_level6_plays_level5s_end_game_where_the_search_does_not_apply(lexicon) -> None:
    state, _ = start_game(get_ruleset("warofwords"), 2, 3, lexicon)
    end = _bag_empty(state)
    assert champion.endgame_action(end, lexicon, 1.0, 0) is None
    assert Bot(6, 4, lexicon, sim=FIXED).choose(end) == Bot(5, 4, lexicon).choose(end)


@pytest.mark.parametrize("family, language", [("classic", "en"), ("scrabble", "pl"), ("warofwords", "en")])
def test_the_leave_ceiling_bounds_every_leave_of_the_rack(family: str, language: str) -> None:
    """best_equity_move (levels 5 and 6) stops at the first score that cannot beat the best
    equity with the best leave: every leave of the rack, pairs and duplicates included, must
    be at most the ceiling."""
    from itertools import combinations

    from wordarena.engine.bots.simulation import LeaveMemo

    table = leave_table(family, language)
    memo = LeaveMemo(table)
    tokens = sorted(table.values)
    rng = random.Random(7)
    for _ in range(60):
        rack = tuple(rng.choice(tokens) for _ in range(7))
        ceiling = memo.ceiling(rack)
        for size in range(len(rack) + 1):
            for kept in set(combinations(sorted(rack), size)):
                assert table.value(kept) <= ceiling, (rack, kept)


def test_level5_plays_the_best_static_equity_of_the_400_best_scores(lexicon) -> None:
    """Level 5 stops scanning early, but its choice is that of scoring all 400 by equity."""
    from wordarena.engine.bots.simulation import static_equity

    for seed in range(4):
        state, _ = start_game(get_ruleset("classic"), 2, seed, lexicon)
        for _turn in range(8):
            seat = state.to_move
            moves = generate_moves(state)
            bot = Bot(5, seed, lexicon)
            table = bot._table(state)
            best, best_eq = None, -math.inf
            for move in moves[:400]:
                eq = static_equity(state, seat, move, table)
                if eq > best_eq:
                    best, best_eq = move, eq
            assert bot._best_equity(state, moves) in (best, None)
            action = bot.choose(state)
            state, _ = apply(state, action)
            if state.over:
                break


def test_a_two_ply_play_out_is_the_candidates_equity_less_the_best_reply_equity(midgame, lexicon) -> None:
    """Two plies value a candidate as level 5 weighs a play (score + leave) less the
    opponent's best-equity answer in that world (score + its leave), computed here by hand from
    the engine's own moves; the tiles the seat draws after the candidate do not count."""
    from wordarena.engine.bots.simulation import LeaveMemo, deal, play_out, static_equity

    seat, other = midgame.to_move, 1 - midgame.to_move
    table = leave_table("classic")
    moves = generate_moves(midgame, seat, lexicon)
    cands = candidates_of(midgame, seat, moves, table, 4, None)
    pool = unseen_pool(midgame, seat)
    for k in range(3):
        world = deal(midgame, seat, pool, random.Random(k))
        for cand in cands:
            after, _ = apply(world, cand.move.to_play(seat))
            answers = generate_moves(after, other, lexicon)[:100]
            best = max(static_equity(after, other, m, table) for m in answers)
            value, _ = play_out(world, seat, cand, lexicon, LeaveMemo(table), plies=2)
            assert value == pytest.approx(static_equity(midgame, seat, cand.move, table) - best)
    # what the seat draws does not change a two-ply value: the same world with the bag reordered
    # after the opponent's tiles gives the same values (it does change a three-ply one)
    world = deal(midgame, seat, pool, random.Random(0))
    shuffled = list(world.bag)
    random.Random(5).shuffle(shuffled)
    redrawn = world.evolve(bag=tuple(shuffled))
    two = [play_out(w, seat, cands[0], lexicon, LeaveMemo(table), plies=2)[0] for w in (world, redrawn)]
    three = [play_out(w, seat, cands[0], lexicon, LeaveMemo(table), plies=3)[0] for w in (world, redrawn)]
    assert two[0] == pytest.approx(two[1]) and three[0] != three[1]


def _by_hand(state, lexicon):
    """What the play-out tests compute by hand from: the seat to move, its opponent, the classic
    leave table, the seat's four best candidates, its unseen pool, and a best-equity chooser
    over the 100 best-scoring moves (``REPLY_SCAN``), as the play-outs choose."""
    from wordarena.engine.bots.simulation import static_equity

    seat = state.to_move
    table = leave_table("classic")
    cands = candidates_of(state, seat, generate_moves(state, seat, lexicon), table, 4, None)

    def best_equity(position, who):
        answers = generate_moves(position, who, lexicon)[:100]
        return max(answers, key=lambda m: (static_equity(position, who, m, table), -answers.index(m)))

    return seat, 1 - seat, table, cands, unseen_pool(state, seat), best_equity


def test_a_three_ply_play_out_adds_the_seats_own_next_play_and_what_it_keeps(midgame, lexicon) -> None:
    """Three plies (macondo's look-ahead): the candidate's score, less the opponent's best-equity
    answer's score, plus the seat's own best-equity play from its leave and what it drew (its
    score and the tiles it keeps then), less the opponent's leave after its answer — computed
    here by hand from the engine's own moves."""
    from wordarena.engine.bots.simulation import LeaveMemo, deal, leave_weight, play_out, static_equity

    seat, other, table, cands, pool, best_equity = _by_hand(midgame, lexicon)

    for k in range(3):
        world = deal(midgame, seat, pool, random.Random(k))
        for cand in cands:
            after, _ = apply(world, cand.move.to_play(seat))
            answer = best_equity(after, other)
            theirs = leave_weight(after) * table.after(after.racks[other], answer.tokens)
            replied, _ = apply(after, answer.to_play(other))
            mine = best_equity(replied, seat)
            expected = (cand.move.score - answer.score - theirs
                        + static_equity(replied, seat, mine, table))
            value, _ = play_out(world, seat, cand, lexicon, LeaveMemo(table), plies=3)
            assert value == pytest.approx(expected)


def test_a_four_ply_play_out_gives_each_side_two_plays_and_values_their_last_leaves(midgame, lexicon) -> None:
    """Four plies: the candidate, the opponent's best-equity answer, the seat's own best-equity
    play, the opponent's second answer — the spread they make, plus the tiles the seat kept at
    its second play less what the opponent kept at its second answer (both sides have played
    twice, so neither's board chances are left uncounted) — computed here by hand from the
    engine's own moves."""
    from wordarena.engine.bots.simulation import LeaveMemo, deal, leave_weight, play_out

    seat, other, table, cands, pool, best_equity = _by_hand(midgame, lexicon)

    for k in range(3):
        world = deal(midgame, seat, pool, random.Random(k))
        for cand in cands:
            state, _ = apply(world, cand.move.to_play(seat))
            spread, kept, unseen = float(cand.move.score), {}, []
            for who in (other, seat, other):
                move = best_equity(state, who)
                kept[who] = leave_weight(state) * table.after(state.racks[who], move.tokens)
                spread += move.score if who == seat else -move.score
                state, _ = apply(state, move.to_play(who))
                unseen.append(len(state.bag) + len(state.racks[other]))
            value, left = play_out(world, seat, cand, lexicon, LeaveMemo(table), plies=4)
            assert value == pytest.approx(spread + kept[seat] - kept[other])
            # the tiles still unseen (the win estimate's) after the last ply, whether or not
            # the play-out applied it: after the first answer with two plies, the second with four
            assert left == unseen[2]
            assert play_out(world, seat, cand, lexicon, LeaveMemo(table), plies=2)[1] == unseen[0]


def test_a_decided_game_ranks_by_spread_and_a_close_one_by_the_win_estimate(lexicon) -> None:
    # Few tiles unseen (the win estimate ranks), far ahead: every candidate wins in every world,
    # so the spread decides; level with the opponent: the ranking is the win estimate's.
    state, _ = start_game(get_ruleset("classic"), 2, 17, lexicon)  # the best equity is not the best spread
    while len(unseen_pool(state, state.to_move)) > 20:
        state, _ = apply(state, Bot(5, 0, lexicon).choose(state))
    settings = SimSettings(candidates=6, iterations=24, min_iterations=24, budget_s=0)
    ahead = _run(state.evolve(scores=(state.scores[0] + 900, state.scores[1]) if state.to_move == 0
                              else (state.scores[0], state.scores[1] + 900)), lexicon, settings)
    assert all(c.win == 1.0 for c in ahead.ranked)
    assert ahead.ranked[0].mean == max(c.mean for c in ahead.ranked)
    assert ahead.ranked[0] is not max(ahead.ranked, key=lambda c: c.equity)
    level = _run(state.evolve(scores=(200, 200)), lexicon, settings)
    assert len({round(c.win, 4) for c in level.ranked}) > 1  # a close game: the estimates differ
    reference = max(level.ranked, key=lambda c: c.equity)
    edges = [round(sum(a - b for a, b in zip(c.wins, reference.wins, strict=True)) / c.n, 4)
             for c in level.ranked]
    assert edges == sorted(edges, reverse=True)


def test_a_play_out_that_empties_the_bag_ends_the_game_by_going_out(lexicon) -> None:
    """Pre-end-game (one tile in the bag): every candidate empties the bag, the opponent
    answers, and the seat is to move with the bag empty — where the leaves count nothing. With
    ``horizon="out"`` the play-out then plays the seat's best play that goes out and the game's
    end (the value is the final spread, exact: nothing unseen), or, when it cannot go out, adds
    the opponent's rack's face value less the seat's. Checked against the engine's own game."""
    from wordarena.engine.bots.endcorpus import bag_positions
    from wordarena.engine.bots.simulation import LeaveMemo, best_reply, deal, play_out

    table = leave_table("classic")
    branches = {"out": 0, "racks": 0}
    for state in bag_positions("classic", range(90_000, 90_030), lexicon, 1):
        seat, other = state.to_move, 1 - state.to_move
        moves = generate_moves(state, seat, lexicon)
        world = deal(state, seat, unseen_pool(state, seat), random.Random(1))
        base = world.scores[seat] - world.scores[other]
        for cand in candidates_of(state, seat, moves, table, 12, None):
            after, _ = apply(world, cand.move.to_play(seat))
            reply = best_reply(after, other, lexicon, LeaveMemo(table))
            after, _ = apply(after, reply.to_play(other) if reply else Pass(other))
            value, left = play_out(world, seat, cand, lexicon, LeaveMemo(table), horizon="out")
            if after.over:
                continue
            assert not after.bag and after.to_move == seat
            size = len(after.racks[seat])
            out = next((m for m in generate_moves(after, seat, lexicon) if m.tile_count == size), None)
            if out is not None:
                ended, _ = apply(after, out.to_play(seat))
                assert ended.result is not None
                final = ended.result.scores[seat] - ended.result.scores[other]
                assert (value, left) == (final - base, 0)
                branches["out"] += 1
            else:
                points = [sum(after.ruleset.tiles.value(t) for t in r) for r in after.racks]
                spread = after.scores[seat] - after.scores[other] - base
                assert (value, left) == (spread + points[other] - points[seat], len(after.racks[other]))
                branches["racks"] += 1
    assert branches["out"] >= 3 and branches["racks"] >= 3, branches


def _candidate(spreads: list[float], wins: list[float]) -> Candidate:
    return Candidate(None, 0.0, spreads=spreads, wins=wins)


def test_a_close_game_prunes_by_the_win_estimate_it_ranks_by() -> None:
    # Behind late in a game: the bold play scores less on average but wins more often. Pruned by
    # the spread it would be dropped, though the win estimate (what ranks a close game) puts it
    # first; by the win estimate it is the careful play that goes.
    careful = _candidate([30.0, 31.0, 29.0, 30.0] * 4, [0.10, 0.11, 0.09, 0.10] * 4)
    bold = _candidate([-10.0, -11.0, -9.0, -10.0] * 4, [0.40, 0.41, 0.39, 0.40] * 4)
    assert prune([careful, bold], close=True) and bold.live and not careful.live
    careful.live = bold.live = True
    assert prune([careful, bold], close=False) and careful.live and not bold.live


def test_a_decided_game_prunes_by_the_spread() -> None:
    # Every world won whatever is played: the estimates tie and the spread decides, as it ranks.
    big = _candidate([60.0, 61.0, 59.0] * 4, [1.0] * 12)
    small = _candidate([10.0, 11.0, 9.0] * 4, [1.0] * 12)
    assert prune([small, big], close=True) and big.live and not small.live


def test_estimates_that_tie_are_not_pruned_by_the_win_estimate() -> None:
    # The ranking rounds the win estimate to 4 places and lets the spread break the tie: a play
    # a hair below the leader's estimate but far ahead on spread stays; a losing one goes.
    sure = _candidate([10.0, 11.0, 9.0] * 4, [1.0] * 12)
    near = _candidate([60.0, 61.0, 59.0] * 4, [0.99995] * 12)
    poor = _candidate([-60.0, -61.0, -59.0] * 4, [0.5] * 12)
    assert not prune([sure, near, poor], close=True)
    assert sure.live and near.live and not poor.live


def test_the_prune_and_plies_settings_are_checked() -> None:
    assert SimSettings(prune="spread").prune == "spread"
    assert SimSettings(prune="paired").prune == "paired"
    with pytest.raises(ValueError, match="prune must be one of"):
        SimSettings(prune="wins")
    with pytest.raises(ValueError, match="plies must be at least 2"):
        SimSettings(plies=1)


def test_paired_pruning_drops_a_play_worse_in_every_world_that_the_worlds_luck_hides() -> None:
    # The worlds swing both plays by ±40 points together; one is 2 points worse in each. Apart,
    # the swings hide it (both stay); world by world ("paired") it goes, and the search stops.
    luck = [40.0, -40.0, 20.0, -20.0] * 4
    better = _candidate([x + 2.0 + 0.5 * (i % 2) for i, x in enumerate(luck)], [0.5] * 16)
    worse = _candidate(list(luck), [0.5] * 16)
    assert not prune([better, worse]) and better.live and worse.live
    assert prune([better, worse], paired=True) and better.live and not worse.live


def test_paired_pruning_keeps_a_play_level_with_the_leader() -> None:
    # Ahead in half the worlds and behind in the other half: not clearly worse, so it stays.
    luck = [40.0, -40.0, 20.0, -20.0] * 4
    leader = _candidate([x + 0.5 for x in luck], [0.5] * 16)
    level = _candidate([x + (3.0 if i % 2 else -2.0) for i, x in enumerate(luck)], [0.5] * 16)
    assert not prune([leader, level], paired=True) and leader.live and level.live


def test_close_pool_decides_when_the_win_estimate_ranks(midgame, lexicon, monkeypatch) -> None:
    # A win estimate that falls as the lead grows ranks the candidates against their spreads:
    # mid-game (more unseen tiles than close_pool) the spread ranks; with close_pool above the
    # unseen pool the estimate does, throughout the game.
    from wordarena.engine.bots import simulation

    monkeypatch.setattr(simulation, "win_chance", lambda lead, *_: 1 / (1 + math.exp(lead / 10)))
    assert len(unseen_pool(midgame, midgame.to_move)) > FIXED.close_pool
    by_spread = [c.mean for c in _run(midgame, lexicon).ranked]
    assert by_spread == sorted(by_spread, reverse=True)
    throughout = _run(midgame, lexicon, settings=dataclasses.replace(FIXED, close_pool=1000))
    assert [c.mean for c in throughout.ranked] == sorted(by_spread)
