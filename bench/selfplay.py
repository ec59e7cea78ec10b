"""Self-play speed: games per second for the static bots (level 5: best equity, score + leave;
level 4: best score), a human-like ladder level (3) and the weakest (1), per ruleset, with the
pure-Python move generator and the native core side by side (``WORDARENA_MOVEGEN``; the same
games, since both give the same moves in the same order).

    .venv/bin/python bench/selfplay.py [--games 10] [--family classic ...] [--impl python|native|both]

``--ladder`` measures strength instead: each adjacent pair of levels (n+1 against n; seats
alternate, game g from seed SEED + g), the stronger level's win rate (ties half) and average
spread, each with its standard error, as rows of docs/bots.md's ladder table.
``--versus-leaves FILE`` plays level 5 with the shipped leave table (or the one in ``--leaves``)
against level 5 with the table in FILE on the same deals.

    .venv/bin/python bench/selfplay.py --ladder [--games 300] [--seed 30000] [--family classic]
    .venv/bin/python bench/selfplay.py --versus-leaves OLD.json [--leaves NEW.json] [--games 600]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from wordarena.engine.bots import Bot, play_game
from wordarena.engine.bots.leaves import load_leaves
from wordarena.engine.families import get_ruleset
from wordarena.engine.lexicon import load_lexicon
from wordarena.engine.movegen.native_bridge import ENV

FAMILIES = ("classic", "scrabble", "wordtiles", "warofwords")


def games_per_second(family: str, level: int, games: int, impl: str = "native") -> tuple[float, float]:
    """(games/s, turns/s) of ``level`` against itself, in CPU time, on the generator ``impl``."""
    os.environ[ENV] = impl
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    turns = 0
    t0 = time.process_time()
    for g in range(games):
        outcome = play_game(ruleset, [Bot(level, g, lexicon), Bot(level, g + 1, lexicon)], g,
                            lexicon)
        turns += outcome.turns
    seconds = time.process_time() - t0
    return games / seconds, turns / seconds


def match(family: str, strong: Bot, weak: Bot, games: int, seed: int) -> str:
    """``strong`` against ``weak`` over ``games`` deals (seats alternating): win rate and
    average spread of ``strong`` with standard errors, and the CPU time."""
    ruleset = get_ruleset(family)
    lexicon = load_lexicon(ruleset.lexicon)
    strong.lexicon = weak.lexicon = lexicon
    results: list[float] = []
    spreads: list[int] = []
    t0 = time.process_time()
    for g in range(games):
        strong.rng.seed(f"bot/{strong.level}/{seed + g}")
        weak.rng.seed(f"bot/{weak.level}/{seed + g + 10_000}")
        seats = [strong, weak] if g % 2 == 0 else [weak, strong]
        out = play_game(ruleset, seats, seed + g, lexicon)
        mine, theirs = (out.scores[0], out.scores[1]) if g % 2 == 0 else (out.scores[1], out.scores[0])
        spreads.append(mine - theirs)
        results.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    n = len(results)
    p = sum(results) / n
    mean = sum(spreads) / n
    sd = (sum((x - mean) ** 2 for x in spreads) / max(1, n - 1)) ** 0.5
    return (f"{100 * p:.1f} % ± {100 * (p * (1 - p) / n) ** 0.5:.1f}, {mean:+.1f} ± {sd / n**0.5:.1f} "
            f"({n}; {time.process_time() - t0:.0f} s CPU)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--impl", choices=("python", "native", "both"), default="both")
    parser.add_argument("--ladder", action="store_true", help="win rates of adjacent levels")
    parser.add_argument("--versus-leaves", help="level 5, shipped leaves against these")
    parser.add_argument("--leaves", help="--versus-leaves: this table instead of the shipped one")
    parser.add_argument("--pairs", default="2,1 3,2 4,3 5,4", help="--ladder: the pairs")
    parser.add_argument("--seed", type=int, default=30000)
    args = parser.parse_args(argv)
    if args.ladder or args.versus_leaves:
        for family in args.family or ("classic",):
            if args.versus_leaves:
                old = Bot(5, 0, leaves=load_leaves(args.versus_leaves))
                new = Bot(5, 0, leaves=load_leaves(args.leaves) if args.leaves else None)
                print(f"{family} 5 new leaves vs 5 old: "
                      f"{match(family, new, old, args.games, args.seed)}", flush=True)
                continue
            for pair in args.pairs.split():
                a, b = (int(x) for x in pair.split(","))
                print(f"{family} {a} vs {b}: {match(family, Bot(a, 0), Bot(b, 0), args.games, args.seed)}",
                      flush=True)
        return 0
    impls = ("python", "native") if args.impl == "both" else (args.impl,)
    print("games/s and turns/s in CPU time, per move generator")
    print(f"{'ruleset':<12}{'bot':<14}" + "".join(f"{i + ' g/s':>13}{'turns/s':>9}" for i in impls))
    for family in args.family or FAMILIES:
        for level, name in ((5, "strong (5)"), (4, "expert (4)"), (3, "club (3)"),
                            (1, "beginner (1)")):
            row = ""
            for impl in impls:
                gps, tps = games_per_second(family, level, args.games, impl)
                row += f"{gps:>13.2f}{tps:>9.1f}"
            print(f"{family:<12}{name:<14}{row}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
