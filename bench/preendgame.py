"""Pre-end-game: the choice with one tile in the bag by level 5, by level 6's simulation and by
the pre-end-game search (``engine.bots.preendgame``), valued over every possible bag with a
deeper end-game search.

The positions are the first ones with ``--bag`` tile(s) in the bag of seeded self-play games
(level 5 against level 5, game ``seed`` for seeds ``--first`` ...; games whose bag never holds
exactly that many are skipped). In each, four choices of the seat to move:

* ``static``: level 5's (best equity);
* ``sim``: level 6's simulation (``champion.simulated_pick``; ``--iterations`` worlds, no time
  budget, so repeatable);
* ``pre``: the pre-end-game search (``preendgame_choice``: every possible bag, each play-out
  ended by an end-game search of ``--nodes`` nodes; ranked by the share of bags won);
* ``pre-spread``: the same ranked by mean final spread.

Each distinct chosen action is then valued the same way with ``--truth-nodes`` nodes per end-game
search over every possible bag (``preendgame.evaluate``: the mean final spread and the share of
bags won, each bag weighted by its ways). The printed figures per choice are the share of
positions where it is the best of the four by wins (then spread), its mean loss of win share and
of spread against that best, and its CPU time.

    .venv/bin/python bench/preendgame.py [--family classic] [--games 60] [--first 90000]
                                         [--bag 1] [--iterations 128] [--nodes N]
                                         [--truth-nodes 200000]

A figure script, not a timed test.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from typing import Any

from wordarena.engine.bots import Bot
from wordarena.engine.bots.champion import simulated_pick
from wordarena.engine.bots.endcorpus import bag_positions
from wordarena.engine.bots.leaves import leave_table
from wordarena.engine.bots.preendgame import evaluate, preendgame_choice, scenarios
from wordarena.engine.bots.simulation import SimSettings
from wordarena.engine.game import Action, Pass
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves

CHOICES = ("static", "sim", "pre", "pre-spread")


def choices(state: GameState, lexicon: Any, iterations: int, nodes: int) -> dict[str, tuple[Action, float]]:
    """(action, CPU seconds) of each choice (module doc) in ``state``."""
    seat = state.to_move
    out: dict[str, tuple[Action, float]] = {}
    t = time.process_time()
    out["static"] = (Bot(5, state.seed, lexicon).choose(state), time.process_time() - t)
    t = time.process_time()
    moves = generate_moves(state, seat, lexicon)
    bot = Bot(6, state.seed, lexicon, sim=SimSettings(iterations=iterations, budget_s=0.0))
    move = simulated_pick(state, moves, leave_table(state.ruleset.family, state.ruleset.language),
                          lexicon, None, bot.sim, state.seed)
    out["sim"] = (move.to_play(seat) if move is not None else Pass(seat), time.process_time() - t)
    t = time.process_time()
    by_wins = preendgame_choice(state, lexicon, math.inf, state.seed, node_limit=nodes, by_wins=True)
    out["pre"] = (by_wins.action, time.process_time() - t)
    t = time.process_time()
    by_spread = preendgame_choice(state, lexicon, math.inf, state.seed, node_limit=nodes)
    out["pre-spread"] = (by_spread.action, time.process_time() - t)
    return out


def position_parser(doc: str, games: int) -> argparse.ArgumentParser:
    """The options that pick the positions (``endcorpus.bag_positions``); also
    ``bench/sim_horizon.py``'s."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="classic", choices=("classic", "scrabble", "wordtiles"))
    ap.add_argument("--games", type=int, default=games, help="self-play games searched for positions")
    ap.add_argument("--first", type=int, default=90_000, help="first game's seed")
    ap.add_argument("--bag", type=int, default=1, help="tiles in the bag (default 1)")
    return ap


def main() -> None:
    ap = position_parser(__doc__ or "", 60)
    ap.add_argument("--iterations", type=int, default=128, help="the simulation's worlds")
    ap.add_argument("--nodes", type=int, default=1_000,
                    help="nodes per end-game search of the pre-end-game (default 1000)")
    ap.add_argument("--truth-nodes", type=int, default=200_000, help="nodes per valuing search")
    args = ap.parse_args()

    from wordarena.engine.families import get_ruleset

    lexicon = load_lexicon(get_ruleset(args.family).lexicon)
    best_count = dict.fromkeys(CHOICES, 0)
    lost_win: dict[str, list[float]] = {c: [] for c in CHOICES}
    lost_spread: dict[str, list[float]] = {c: [] for c in CHOICES}
    cpu: dict[str, list[float]] = {c: [] for c in CHOICES}
    n = 0
    for state in bag_positions(args.family, range(args.first, args.first + args.games), lexicon, args.bag):
        picked = choices(state, lexicon, args.iterations, args.nodes)
        distinct: list[Action] = []
        for action, _ in picked.values():
            if action not in distinct:
                distinct.append(action)
        worlds = scenarios(state, 10**6, random.Random(f"truth/{state.seed}"))
        valued, _ = evaluate(worlds, distinct, lexicon, math.inf, args.truth_nodes)
        value = {i: (c.win_share, c.mean) for i, c in enumerate(valued)}
        top = max(value.values())
        n += 1
        line = []
        for name, (action, seconds) in picked.items():
            win, mean = value[distinct.index(action)]
            best_count[name] += (win, mean) == top
            lost_win[name].append(top[0] - win)
            lost_spread[name].append(top[1] - mean)
            cpu[name].append(seconds)
            line.append(f"{name} {win:.2f}/{mean:+.1f}")
        print(f"seed {state.seed}: {len(distinct)} distinct; " + "  ".join(line), flush=True)
    print(f"\n{args.family}, {n} positions with {args.bag} tile(s) in the bag "
          f"(truth: {args.truth_nodes} nodes per search, every bag)")
    if n < 2:
        return
    for name in CHOICES:
        print(f"  {name:10s} best {best_count[name]}/{n}  win share lost {mean_se(lost_win[name])}"
              f"  spread lost {mean_se(lost_spread[name])}  CPU {statistics.mean(cpu[name]):.2f} s")
    gained_win = [a - b for a, b in zip(lost_win["sim"], lost_win["pre"], strict=True)]
    gained_spread = [a - b for a, b in zip(lost_spread["sim"], lost_spread["pre"], strict=True)]
    print(f"  pre against sim, paired: win share {mean_se(gained_win)}, spread {mean_se(gained_spread)}")


def mean_se(values: list[float], digits: int = 3) -> str:
    """``mean ± standard error`` of ``values`` (also ``bench/sim_horizon.py``'s)."""
    se = statistics.stdev(values) / math.sqrt(len(values))
    return f"{statistics.mean(values):+.{digits}f} ± {se:.{digits}f}"


if __name__ == "__main__":
    main()
