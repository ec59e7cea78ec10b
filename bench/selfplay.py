"""Self-play speed: games per second for the strongest, the static (level 3) and the weakest
bot, per ruleset, with the pure-Python move generator and the native core side by side
(``WORDARENA_MOVEGEN``; the same games, since both give the same moves in the same order).

    .venv/bin/python bench/selfplay.py [--games 10] [--family classic ...] [--impl python|native|both]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from wordarena.engine.bots import Bot, play_game
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--impl", choices=("python", "native", "both"), default="both")
    args = parser.parse_args(argv)
    impls = ("python", "native") if args.impl == "both" else (args.impl,)
    print("games/s and turns/s in CPU time, per move generator")
    print(f"{'ruleset':<12}{'bot':<14}" + "".join(f"{i + ' g/s':>13}{'turns/s':>9}" for i in impls))
    for family in args.family or FAMILIES:
        for level, name in ((5, "strong (5)"), (3, "static (3)"), (1, "beginner (1)")):
            row = ""
            for impl in impls:
                gps, tps = games_per_second(family, level, args.games, impl)
                row += f"{gps:>13.2f}{tps:>9.1f}"
            print(f"{family:<12}{name:<14}{row}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
