"""Does inference move the simulation's choice toward the one it would make knowing the rack?

    .venv/bin/python bench/inference_regret.py classic GAMES WORLDS MARGIN

Positions: every second play of GAMES seeded level-5 classic games where the opponent's last play
can be read. Truth: each candidate's two-ply value with the real racks (the reply is then
determined). Printed: the mean regret of the static choice, the simulation's, and the simulation
with inferred leaves, and the paired difference."""
import statistics as st
import sys
import time

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.bots.inference import infer_leaves, last_play
from wordarena.engine.bots.leaves import leave_table
from wordarena.engine.bots.simulation import LeaveMemo, SimSettings, candidates_of, play_out, simulate
from wordarena.engine.families import get_ruleset
from wordarena.engine.game.actions import Play
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen import generate_moves

fam = sys.argv[1]; games = int(sys.argv[2]); iters = int(sys.argv[3]); margin = float(sys.argv[4])
rs = get_ruleset(fam); lex = load_lexicon(rs.lexicon); table = leave_table(rs.family, rs.language)
settings = SimSettings(iterations=iters, budget_s=0)
five = Bot(5, 0, lex)
reg = {"static": [], "plain": [], "inferred": []}
changed = 0
positions = []
def hook(before, action, after):
    if isinstance(action, Play) and after.bag and len(after.bag) > 0 and not after.over and after.pending is None:
        if last_play(after, after.to_move) is not None:
            positions.append(after)
for g in range(games):
    play_game(rs, [Bot(5, g, lex), Bot(5, g + 1, lex)], 900 + g, lex, on_turn=hook)
positions = positions[::2]
t0 = time.process_time()
for k, state in enumerate(positions):
    seat = state.to_move
    moves = generate_moves(state, seat, lex, limit=400)
    if not moves: continue
    cands = candidates_of(state, seat, moves, table, 8, five.best_exchange(state, seat))
    memo = LeaveMemo(table)
    truth = [play_out(state, seat, c, lex, memo)[0] for c in cands]
    best = max(truth)
    inf = infer_leaves(state, seat, lex, table, 300, k, margin=margin).leaves
    if not inf: continue
    def choice(inferred):
        for c in cands: c.spreads, c.wins, c.live = [], [], True
        r = simulate(state, seat, cands, lex, table, settings, k, inferred=inferred)
        return cands.index(r.best)
    a, b = choice(()), choice(inf)
    s = max(range(len(cands)), key=lambda i: cands[i].equity)
    changed += a != b
    reg["static"].append(best - truth[s]); reg["plain"].append(best - truth[a]); reg["inferred"].append(best - truth[b])
n = len(reg["plain"])
print(f"{fam}: {n} positions, {changed} choices changed, {time.process_time()-t0:.0f} s CPU")
for key, v in reg.items():
    print(f"  regret against the true-rack two-ply value, {key}: {st.mean(v):.2f} ± {st.stdev(v)/n**0.5:.2f}")
d = [x - y for x, y in zip(reg["plain"], reg["inferred"], strict=False)]
print(f"  plain - inferred (paired): {st.mean(d):+.2f} ± {st.stdev(d)/n**0.5:.2f}")
