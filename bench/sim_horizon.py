"""Level 6's simulation in the pre-end-game, by how a play-out ends when the bag is empty at its
horizon (``SimSettings.horizon``): "leave" (the leaves weighted by the bag, so nothing) against
"out" (the seat's play that goes out and the game's end, else the racks' face values).

The positions are the first ones with ``--bag`` tile(s) in the bag of seeded level-5 self-play
games (``engine.bots.endcorpus.bag_positions``). Each horizon's simulation chooses (``--worlds``
rounds, no time budget: repeatable); where they differ, each distinct choice is valued over every
possible bag with end-game searches of ``--truth-nodes`` nodes (``preendgame.evaluate``: the mean
final spread and the share of bags won, each bag weighted by its ways). Printed: per horizon the
mean spread and win share lost against the better choice, and the two paired.

    .venv/bin/python bench/sim_horizon.py [--games 200] [--bag 1] [--first 90000]
                                          [--worlds 128] [--truth-nodes 100000]

A figure script, not a timed test.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from pathlib import Path

from wordarena.engine.bots import Bot
from wordarena.engine.bots.champion import simulated_pick
from wordarena.engine.bots.endcorpus import bag_positions
from wordarena.engine.bots.leaves import leave_table
from wordarena.engine.bots.preendgame import evaluate, scenarios
from wordarena.engine.bots.simulation import HORIZONS, SimSettings
from wordarena.engine.families import get_ruleset
from wordarena.engine.game import Action, Exchange, Pass
from wordarena.engine.game.state import GameState
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves
from wordarena.engine.tiles import remove_tokens

sys.path.insert(0, str(Path(__file__).resolve().parent))
from preendgame import mean_se, position_parser  # a sibling bench script


def choice(state: GameState, lexicon: object, horizon: str, worlds: int) -> Action:
    """Level 6's simulated choice in ``state`` with ``horizon`` (each horizon's CPU time is
    that of a whole choice: the moves and the exchange are not shared between them)."""
    seat = state.to_move
    table = leave_table(state.ruleset.family, state.ruleset.language)
    exchange = Bot(5, 0, lexicon).best_exchange(state, seat)
    settings = SimSettings(iterations=worlds, budget_s=0.0, horizon=horizon)
    moves = generate_moves(state, seat, lexicon)
    move = simulated_pick(state, moves, table, lexicon, exchange, settings, state.seed)
    if move is not None:
        return move.to_play(seat)
    if exchange is None:
        return Pass(seat)
    return Exchange(seat, remove_tokens(state.racks[seat], exchange[0]))


def main() -> None:
    ap = position_parser(__doc__ or "", 200)
    ap.add_argument("--worlds", type=int, default=128, help="the simulation's rounds")
    ap.add_argument("--truth-nodes", type=int, default=100_000, help="nodes per valuing search")
    args = ap.parse_args()

    lexicon = load_lexicon(get_ruleset(args.family).lexicon)
    lost = {h: [] for h in HORIZONS}
    lost_win = {h: [] for h in HORIZONS}
    cpu = {h: [] for h in HORIZONS}
    differ = 0
    for state in bag_positions(args.family, range(args.first, args.first + args.games), lexicon,
                               args.bag):
        picked = {}
        for h in HORIZONS:
            t = time.process_time()
            picked[h] = choice(state, lexicon, h, args.worlds)
            cpu[h].append(time.process_time() - t)
        distinct = list(dict.fromkeys(picked.values()))
        if len(distinct) == 1:  # the same choice: nothing lost either way
            for h in HORIZONS:
                lost[h].append(0.0)
                lost_win[h].append(0.0)
            continue
        differ += 1
        worlds = scenarios(state, 10**6, random.Random(f"truth/{state.seed}"))
        valued, _ = evaluate(worlds, distinct, lexicon, math.inf, args.truth_nodes)
        values = [(c.win_share, c.mean) for c in valued]
        top = max(values)
        line = []
        for h in HORIZONS:
            win, mean = values[distinct.index(picked[h])]
            lost[h].append(top[1] - mean)
            lost_win[h].append(top[0] - win)
            line.append(f"{h} {win:.2f}/{mean:+.1f}")
        print(f"seed {state.seed}: " + "  ".join(line), flush=True)
    n = len(lost[HORIZONS[0]])
    print(f"\n{args.family}, {n} positions with {args.bag} tile(s) in the bag, {differ} where the "
          f"choices differ (truth: {args.truth_nodes} nodes per search, every bag)")
    if n < 2:
        return
    for h in HORIZONS:
        print(f"  {h:6s} spread lost {mean_se(lost[h], 2)}  win share lost {mean_se(lost_win[h], 2)}"
              f"  CPU {statistics.mean(cpu[h]):.2f} s a choice")
    for h in HORIZONS[1:]:
        gain = [a - b for a, b in zip(lost[h], lost["out"], strict=True)]
        gain_win = [a - b for a, b in zip(lost_win[h], lost_win["out"], strict=True)]
        print(f"  out against {h}, paired: spread {mean_se(gain, 2)}, win share {mean_se(gain_win, 2)}")


if __name__ == "__main__":
    main()
